"""Worker tokens a deployment provisions: ``HAMLET_WORKER_TOKEN_FILE`` on the server.

A deployment keeps the worker credential in a secret that the server and every worker mount
(compose secrets, a Kubernetes Secret). The file holds one token per line, each made without a
server (``hamlet token generate``, or ``echo hmt_$(openssl rand -hex 6)_$(openssl rand -hex
32)``). The server enrolls each token it does not know as a worker-scoped token of the admin
user labelled :data:`LABEL` (only its salted digest is stored, like any token's) and revokes
the provisioned tokens that left the file. It does so at start and again whenever the file
changes (the reaper looks every pass), so a rotation needs no restart:

1. put the new token on the first line, keep the old one on the second (both are accepted);
2. the workers re-read the file (they use its first line) and move to the new token;
3. delete the old line: the server revokes it.

A line that is not a token, or a token id already used by another token, is logged and skipped.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from server.auth import tokens
from server.auth.identity import Scope
from server.services.accounts import ADMIN_USER
from server.storage import Store
from server.storage.base import utcnow

log = logging.getLogger(__name__)

LABEL = "provisioned (HAMLET_WORKER_TOKEN_FILE)"


@dataclass(frozen=True, slots=True)
class Sync:
    """What one pass over the file did (token ids)."""

    enrolled: tuple[str, ...] = ()
    revoked: tuple[str, ...] = ()
    skipped: int = 0


def read_lines(path: Path) -> list[str]:
    """The non-empty, non-comment lines of the token file."""
    text = path.read_text(encoding="utf-8")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def sync(store: Store, path: Path) -> Sync:
    """Enroll the file's tokens, revoke the provisioned ones it no longer lists."""
    admin = store.get_user(ADMIN_USER)
    if admin is None:
        log.warning("no %s user yet: the tokens of %s are not enrolled", ADMIN_USER, path)
        return Sync()
    listed: set[str] = set()
    enrolled: list[str] = []
    skipped = 0
    for n, line in enumerate(read_lines(path), 1):
        try:
            token_id, secret = tokens.split(line)
        except tokens.MalformedTokenError as exc:
            log.error("%s line %d skipped: %s", path, n, exc)
            skipped += 1
            continue
        listed.add(token_id)
        known = store.get_token(token_id)
        if known is None:
            salt = tokens.make().salt
            store.add_token(
                admin.user_id,
                token_id,
                [Scope.WORKER.value],
                LABEL,
                salt,
                tokens.derive(secret, salt),
                utcnow(),
                None,
            )
            enrolled.append(token_id)
            log.info("enrolled provisioned worker token %s from %s", token_id, path)
        elif known.label != LABEL or not tokens.matches(secret, known.salt, known.secret_hash):
            log.error(
                "%s line %d skipped: token id %s is already in use by another token; "
                "generate a new token for this line",
                path,
                n,
                token_id,
            )
            skipped += 1
        elif known.revoked_at is not None:
            log.error(
                "%s line %d: token %s was revoked at %s; a revoked token stays revoked, "
                "generate a new one",
                path,
                n,
                token_id,
                known.revoked_at.isoformat(),
            )
            skipped += 1
    revoked: list[str] = []
    for record in store.list_tokens(admin.user_id):
        if record.label == LABEL and record.revoked_at is None and record.token_id not in listed:
            store.revoke_token(record.token_id, utcnow())
            revoked.append(record.token_id)
            log.info("revoked provisioned worker token %s (no longer in %s)", record.token_id, path)
    return Sync(tuple(enrolled), tuple(revoked), skipped)


class Watcher:
    """Runs :func:`sync` at start and again when the file's modification time or size
    changes (a Kubernetes Secret update swaps a symlink: the stat follows it)."""

    def __init__(self, store: Store, path: Path) -> None:
        self.store = store
        self.path = path
        self._seen: tuple[float, int] | None = None

    def poll(self) -> Sync | None:
        """Sync if the file changed since the last pass; None if it did not."""
        try:
            st = self.path.stat()
        except OSError as exc:
            log.error("cannot read HAMLET_WORKER_TOKEN_FILE %s: %s", self.path, exc)
            return None
        stamp = (st.st_mtime, st.st_size)
        if stamp == self._seen:
            return None
        result = sync(self.store, self.path)
        self._seen = stamp
        return result
