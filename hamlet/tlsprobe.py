"""Why a connection to the server fails, in one line an operator can act on.

gRPC reports every TLS mistake as "failed to connect to all addresses" (and a client without
a CA waits out its deadline against a TLS server). :func:`diagnose` connects once itself with
Python's ``ssl`` and names the mistake: nothing listening, a missing or unreadable CA file, a
TLS server reached without a CA, a plaintext server reached with one, a certificate signed by
another CA, a certificate for another name. The CLI prints it; a worker refuses to start on a
:attr:`Diagnosis.definite` mistake (retrying cannot fix configuration).
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass
from pathlib import Path

_TIMEOUT = 3.0


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """What :func:`diagnose` found: a line to print, and whether it is a configuration
    mistake (``definite``) rather than a server that is down or fine."""

    ok: bool
    message: str
    definite: bool = False


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port)


def diagnose(address: str, ca_file: Path | None, timeout: float = _TIMEOUT) -> Diagnosis:
    """Connect to ``address`` (host:port) as a client with ``ca_file`` would, and say what
    goes wrong (``ok`` when the TCP and TLS set-up both succeed)."""
    if ca_file is not None:
        try:
            ca_pem = ca_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return Diagnosis(False, f"cannot read HAMLET_TLS_CA {ca_file}: {why}", True)
    if address.startswith("unix:"):
        # The server's private socket (plaintext, on this host): nothing to verify.
        if ca_file is not None:
            return Diagnosis(False, f"{address} is a local socket: it speaks no TLS", True)
        return Diagnosis(True, f"{address} is the server's local socket")
    try:
        host, port = _split(address)
    except ValueError:
        return Diagnosis(False, f"{address!r} is not host:port", True)
    try:
        raw = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        return Diagnosis(False, f"nothing answers at {address} ({exc.strerror or exc})")
    with raw:
        if ca_file is None:
            return _plaintext_client(raw, host, address, timeout)
        return _tls_client(raw, host, address, ca_file, ca_pem, timeout)


def _plaintext_client(raw: socket.socket, host: str, address: str, timeout: float) -> Diagnosis:
    """No CA: fine if the server speaks plaintext; a mistake if it speaks TLS."""
    probe = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    probe.check_hostname = False
    probe.verify_mode = ssl.CERT_NONE
    probe.set_alpn_protocols(["h2"])
    raw.settimeout(timeout)
    try:
        with probe.wrap_socket(raw, server_hostname=host):
            pass
    except (OSError, ssl.SSLError):
        return Diagnosis(True, f"{address} speaks plaintext")
    return Diagnosis(
        False,
        f"{address} speaks TLS but no CA is set: set HAMLET_TLS_CA to the CA certificate "
        "that signed the server's certificate",
        True,
    )


def _tls_client(
    raw: socket.socket, host: str, address: str, ca_file: Path, ca_pem: str, timeout: float
) -> Diagnosis:
    try:
        context = ssl.create_default_context(cadata=ca_pem)
    except ssl.SSLError:
        return Diagnosis(False, f"HAMLET_TLS_CA {ca_file} holds no PEM certificate", True)
    context.set_alpn_protocols(["h2"])
    raw.settimeout(timeout)
    try:
        with context.wrap_socket(raw, server_hostname=host):
            pass
    except ssl.SSLCertVerificationError as exc:
        if exc.verify_code in (62, 64):  # X509_V_ERR_HOSTNAME_MISMATCH, _IP_ADDRESS_MISMATCH
            return Diagnosis(
                False,
                f"name mismatch: the server's certificate is not for {host!r}; connect by a "
                "name the certificate lists (its subjectAltName) or reissue it with this one",
                True,
            )
        return Diagnosis(
            False,
            f"wrong CA: the certificate of {address} is not signed by HAMLET_TLS_CA "
            f"{ca_file} ({exc.verify_message}); use the CA that signed the server's certificate",
            True,
        )
    except ssl.SSLError as exc:
        return Diagnosis(
            False,
            f"{address} does not speak TLS ({exc.reason or exc}): unset HAMLET_TLS_CA, or start "
            "the server with HAMLET_TLS_CERT and HAMLET_TLS_KEY",
            True,
        )
    except OSError as exc:
        return Diagnosis(False, f"the TLS handshake with {address} failed: {exc}")
    return Diagnosis(True, f"{address} speaks TLS with a certificate HAMLET_TLS_CA verifies")
