"""Claims: leasing a block's matches to an attempt, in one transaction that a claim nobody
waits for any more never commits, and renewing those leases one at a time as the block plays.

A claim is leased for one lease (``HAMLET_MATCH_LEASE_SECONDS``), never the lease times the
matches of its block: the worker renews its unreported matches' claims as it goes
(:meth:`ClaimsPart.renew`), so a dead worker's block is queued again one lease after its last
renewal whatever its size (:mod:`server.services.recovery`).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from server.services import validation as v
from server.services.errors import (
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
)
from server.storage import MatchRecord, MatchStatus, Store

#: Matches in one block at most (a table of up to 4 seats: 4 rotations; room to spare).
MAX_BLOCK = 64


@dataclass(frozen=True, slots=True)
class Claim:
    """What a worker gets when it claims a match."""

    match: MatchRecord
    already_final: bool
    attempt_token: str = ""


def attempt_digest(token: str) -> str:
    """How an attempt token is stored (the token itself is only ever with the worker)."""
    return hashlib.sha256(token.encode()).hexdigest()


class ClaimsPart:
    """The claim side of :class:`~server.services.matches.MatchService`."""

    if TYPE_CHECKING:
        store: Store
        lease: timedelta
        now: Callable[[], datetime]
        on_claimed: Callable[[str, str], object] | None

        def get(self, match_id: str) -> MatchRecord: ...

        def _observe(self, stage: str, seconds: float) -> None: ...

    def claim(
        self,
        match_id: str,
        worker_id: str,
        task_id: str = "",
        deadline: Callable[[], float | None] = lambda: None,
    ) -> Claim:
        """Lease a match to a new attempt with a fresh attempt token (the attempt is counted
        here). A final match is handed back with ``already_final`` (the worker acks its task
        and stops); a redelivered running match is leased again (the earlier attempt's token
        stops working), unless ``task_id`` says the claim comes from a re-sent copy of the
        message while a live attempt holds the match (FAILED_PRECONDITION: drop the copy).
        ``deadline`` as in :meth:`claim_block`."""
        self.get(match_id)  # NOT_FOUND for an unknown match
        ((_, claim, why),) = self.claim_block([match_id], worker_id, task_id, deadline)
        if claim is None:
            raise FailedPreconditionError(why)
        return claim

    def _claimed(self, claimed: MatchRecord, worker_id: str, token: str, now: datetime) -> Claim:
        if claimed.queued_at is not None:
            self._observe("dispatch", (now - claimed.queued_at).total_seconds())
        if self.on_claimed is not None and claimed.rotation == 0:  # once per block
            self.on_claimed(worker_id, claimed.match_id)
        return Claim(claimed, already_final=False, attempt_token=token)

    def _not_claimed(self, match_id: str, task_id: str) -> Claim:
        """Why a claim changed nothing: final (handed back), or FailedPreconditionError."""
        match = self.get(match_id)
        if match.status.final:
            return Claim(match, already_final=True)
        if match.status is MatchStatus.RUNNING and task_id:
            raise FailedPreconditionError(
                f"match {match_id} is being played by a live attempt of another queue "
                "message; this copy of the message is not needed"
            )
        raise FailedPreconditionError(
            f"match {match_id} is {match.status.value} and its tournament is not running: "
            "only queued matches of a started tournament can be claimed"
        )

    def claim_block(
        self,
        match_ids: Sequence[str],
        worker_id: str,
        task_id: str = "",
        deadline: Callable[[], float | None] = lambda: None,
    ) -> list[tuple[str, Claim | None, str]]:
        """Claim a block's matches in one transaction: (id, claim, "") for each claimed or
        final one, (id, None, why) for one this attempt must not play (cancelled, held
        elsewhere, unknown). Each claim is leased for one lease (not one per match of the
        block); the worker renews its claims while it plays (:meth:`renew`).

        ``deadline``: seconds the caller still waits (None: no deadline), asked last inside
        the transaction: past it, the transaction is rolled back and DeadlineExceededError
        raised, so a claim nobody waits for any more counts no attempt and holds nothing."""
        if not 1 <= len(match_ids) <= MAX_BLOCK:
            raise InvalidArgumentError(f"a block has 1 to {MAX_BLOCK} matches")
        v.worker_id(worker_id)
        if len(task_id) > 64:
            raise InvalidArgumentError("task_id is longer than 64 characters")
        now = self.now()
        out: dict[str, tuple[Claim | None, str]] = {}
        wanted: list[tuple[str, datetime, str]] = []
        tokens: dict[str, str] = {}
        for match_id in dict.fromkeys(match_ids):
            try:
                match = self.get(match_id)
            except NotFoundError as exc:
                out[match_id] = (None, str(exc))
                continue
            if match.status is MatchStatus.CANCELLED:
                out[match_id] = (None, f"match {match_id} was cancelled")
            elif match.status.final:
                out[match_id] = (Claim(match, already_final=True), "")
            else:
                tokens[match_id] = secrets.token_urlsafe(24)
                wanted.append((match_id, now + self.lease, attempt_digest(tokens[match_id])))

        def still_wanted() -> None:
            left = deadline()
            if left is not None and left <= 0:
                raise DeadlineExceededError(
                    "the worker stopped waiting for this claim before it could be committed; "
                    "nothing was claimed (the match stays queued)"
                )

        claimed = self.store.claim_matches(wanted, worker_id[:128], task_id, now, still_wanted)
        for (match_id, _, _), record in zip(wanted, claimed, strict=True):
            if record is not None:
                out[match_id] = (self._claimed(record, worker_id, tokens[match_id], now), "")
                continue
            try:
                out[match_id] = (self._not_claimed(match_id, task_id), "")
            except (FailedPreconditionError, NotFoundError) as exc:
                out[match_id] = (None, str(exc))
        return [(match_id, *out[match_id]) for match_id in match_ids]

    def renew(self, leases: Sequence[tuple[str, str]], worker_id: str) -> list[tuple[str, bool]]:
        """Renew the leases of (match id, attempt token) a worker still holds, each to one
        lease from now (a worker renews its block's unreported matches every quarter lease
        while it plays); whether each was renewed (False: the claim expired or was taken
        over: the worker should not play it)."""
        v.worker_id(worker_id)
        if not 1 <= len(leases) <= MAX_BLOCK:
            raise InvalidArgumentError(f"a renewal names 1 to {MAX_BLOCK} matches")
        now = self.now()
        wanted = []
        for match_id, token in leases:
            v.identifier("match_id", match_id)
            if not token or len(token) > 128:
                raise InvalidArgumentError("each renewal carries its claim's attempt token")
            wanted.append((match_id, attempt_digest(token), now + self.lease))
        renewed = self.store.renew_leases(wanted, now)
        return [(match_id, ok) for (match_id, _), ok in zip(leases, renewed, strict=True)]
