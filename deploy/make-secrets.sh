#!/bin/sh
# Make the secrets compose.yaml mounts, in deploy/secrets/ (or DIR): the database password,
# the database URL built from it, and a worker token (the server enrolls it; the workers
# present it). Existing files are kept, so running it again changes nothing.
#
#   deploy/make-secrets.sh [--tls] [DIR]
#
# --tls also makes a CA and a server certificate for compose.tls.yaml (names: server,
# localhost, 127.0.0.1; add yours with HAMLET_TLS_NAMES="DNS:hamlet.example.org,...").
# The directory is the operator's alone (0700); the files in it are readable (0644) because
# compose bind-mounts them into containers that run as uid 10001, not as you.
set -eu
tls=no
if [ "${1:-}" = "--tls" ]; then tls=yes; shift; fi
dir=${1:-$(dirname "$0")/secrets}
umask 022
mkdir -p "$dir"
chmod 0700 "$dir"
cd "$dir"
if [ ! -s postgres_password ]; then
    openssl rand -hex 24 > postgres_password
fi
if [ ! -s database_url ]; then
    printf 'postgresql+psycopg://hamlet:%s@postgres:5432/hamlet\n' "$(cat postgres_password)" > database_url
fi
if [ ! -s worker_token ]; then
    # The format `hamlet token generate` prints: hmt_<12 hex digits>_<secret>.
    printf 'hmt_%s_%s\n' "$(openssl rand -hex 6)" "$(openssl rand -hex 32)" > worker_token
fi
if [ "$tls" = yes ] && [ ! -s tls_cert ]; then
    names=${HAMLET_TLS_NAMES:-}
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=Hamlet CA" \
        -keyout ca.key -out tls_ca 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=server" -keyout tls_key -out server.csr 2>/dev/null
    printf 'subjectAltName=DNS:server,DNS:localhost,IP:127.0.0.1%s\n' "${names:+,$names}" > san.ext
    openssl x509 -req -in server.csr -CA tls_ca -CAkey ca.key -CAcreateserial -days 825 \
        -extfile san.ext -out tls_cert 2>/dev/null
    rm -f server.csr san.ext tls_ca.srl
    chmod 0600 ca.key
fi
chmod 0644 postgres_password database_url worker_token
[ ! -f tls_key ] || chmod 0644 tls_key tls_cert tls_ca
echo "secrets in $(pwd):"
ls -l
