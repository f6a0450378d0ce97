"""API tokens: ``hmt_<id>_<secret>``.

The id is public (it names the token in lists and logs); the secret is 256 random bits, shown
once and stored only as a salted PBKDF2-HMAC-SHA256 digest compared in constant time. Because
the key derivation is deliberately slow, :class:`~server.services.accounts.AccountService`
keeps recently verified tokens in memory for a few seconds (and forgets them on revocation).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

PREFIX = "hmt"
ITERATIONS = 100_000
_ID_HEX = 12


class MalformedTokenError(ValueError):
    """The string is not a Hamlet token at all."""


@dataclass(frozen=True, slots=True)
class NewToken:
    """A freshly made token: the full secret string and what to store."""

    token_id: str
    secret: str
    salt: str
    secret_hash: str

    @property
    def token(self) -> str:
        """What the user puts in ``authorization: Bearer``."""
        return f"{PREFIX}_{self.token_id}_{self.secret}"


def derive(secret: str, salt: str) -> str:
    """The stored digest of ``secret``."""
    return hashlib.pbkdf2_hmac("sha256", secret.encode(), bytes.fromhex(salt), ITERATIONS).hex()


def make() -> NewToken:
    """A new random token."""
    secret = secrets.token_urlsafe(32)
    salt = secrets.token_hex(16)
    return NewToken(secrets.token_hex(_ID_HEX // 2), secret, salt, derive(secret, salt))


def split(token: str) -> tuple[str, str]:
    """``(token_id, secret)`` of a token string; :class:`MalformedTokenError` if it is none."""
    parts = token.strip().split("_", 2)
    if len(parts) != 3 or parts[0] != PREFIX or len(parts[1]) != _ID_HEX or not parts[2]:
        raise MalformedTokenError("this is not a Hamlet token (they look like hmt_<id>_<secret>)")
    try:
        int(parts[1], 16)
    except ValueError:
        raise MalformedTokenError("this is not a Hamlet token (bad id)") from None
    if len(parts[2]) > 128:
        raise MalformedTokenError("this is not a Hamlet token (secret too long)")
    return parts[1], parts[2]


def matches(secret: str, salt: str, secret_hash: str) -> bool:
    """Whether ``secret`` is the one behind ``secret_hash`` (constant-time comparison)."""
    return hmac.compare_digest(derive(secret, salt), secret_hash)


def fingerprint(token: str) -> str:
    """A fast digest of the full token, used only as an in-memory cache key."""
    return hashlib.sha256(token.encode()).hexdigest()
