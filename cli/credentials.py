"""Where the CLI finds its token and the server's CA certificate.

A token is looked for, in order, in ``HAMLET_TOKEN``, in the file ``hamlet login`` wrote
(``$XDG_CONFIG_HOME/hamlet/token``, by default ``~/.config/hamlet/token``, mode 0600), and in
the data directory's ``admin.token`` that ``hamlet server``/``hamlet up`` keep (readable only by
the user who runs the server, who is the local admin anyway). Without one, calls are anonymous.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from hamlet.channels import read_token_file

#: The token files the server keeps in its data directory (``server.services.accounts`` names
#: them; ``tests/cli/test_cli_accounts.py`` keeps the names equal). The CLI reads the admin's,
#: ``hamlet up`` hands the worker's to the workers it starts.
ADMIN_TOKEN_FILE = "admin.token"
WORKER_TOKEN_FILE = "worker.token"


def config_file(env: Mapping[str, str] | None = None) -> Path:
    """The file ``hamlet login`` writes."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "hamlet" / "token"


def find_token(env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """``(token, where it came from)``; ``("", "")`` when there is none."""
    env = os.environ if env is None else env
    if env.get("HAMLET_TOKEN"):
        return env["HAMLET_TOKEN"].strip(), "HAMLET_TOKEN"
    data_admin = Path(env.get("HAMLET_DATA_DIR") or ".hamlet") / ADMIN_TOKEN_FILE
    for path in (config_file(env), data_admin):
        try:
            token = read_token_file(path)
        except OSError:
            continue
        if token:
            return token, str(path)
    return "", ""


def save_token(token: str, env: Mapping[str, str] | None = None) -> Path:
    """Keep ``token`` for later commands (mode 0600); where it went."""
    path = config_file(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # a file that was there before keeps no wider mode
        os.write(fd, (token + "\n").encode())
    finally:
        os.close(fd)
    return path


def tls_ca(env: Mapping[str, str] | None = None) -> Path | None:
    """``HAMLET_TLS_CA``: the CA certificate that signed the server's, or None (plaintext)."""
    env = os.environ if env is None else env
    raw = env.get("HAMLET_TLS_CA", "")
    return Path(raw) if raw else None
