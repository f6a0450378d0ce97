"""Claims: leasing matches to an attempt (a block's in one transaction) and renewing them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session

from server.storage import models as m
from server.storage.base import MatchRecord, MatchStatus, TournamentStatus
from server.storage.sql_match_reads import MatchReadsPart
from server.storage.sqlbase import rowcount


class ClaimsPart(MatchReadsPart):
    """Claims: leasing matches to an attempt (a block's in one transaction) and renewing them."""

    def claim_match(
        self,
        match_id: str,
        worker_id: str,
        lease_until: datetime,
        attempt_hash: str,
        task_id: str = "",
        now: datetime | None = None,
    ) -> MatchRecord | None:
        with self._tx() as s:
            return self._claim(s, match_id, worker_id, lease_until, attempt_hash, task_id, now)

    def claim_matches(
        self,
        claims: Sequence[tuple[str, datetime, str]],
        worker_id: str,
        task_id: str,
        now: datetime,
        before_commit: Callable[[], None] = lambda: None,
    ) -> list[MatchRecord | None]:
        """Claim (match id, lease until, attempt hash) for each match of a block in one
        transaction; ``before_commit`` runs last inside it and may raise to roll it all back
        (the caller gave up waiting: no attempt counted, no claim left)."""
        with self._tx() as s:
            out = [
                self._claim(s, match_id, worker_id, lease_until, digest, task_id, now)
                for match_id, lease_until, digest in claims
            ]
            before_commit()
            return out

    def renew_leases(
        self, leases: Sequence[tuple[str, str, datetime]], now: datetime
    ) -> list[bool]:
        """Move the lease of each (match id, attempt hash, lease until) that this attempt
        still holds (RUNNING, same attempt, lease not yet over); whether each was."""
        with self._tx() as s:
            out = []
            for match_id, digest, lease_until in leases:
                res = s.execute(
                    update(m.Match)
                    .where(
                        m.Match.id == match_id,
                        m.Match.status == MatchStatus.RUNNING.value,
                        m.Match.attempt_hash == digest,
                        m.Match.lease_until >= now,
                    )
                    .values(lease_until=lease_until)
                )
                out.append(rowcount(res) == 1)
            return out

    def _claim(
        self,
        s: Session,
        match_id: str,
        worker_id: str,
        lease_until: datetime,
        attempt_hash: str,
        task_id: str,
        now: datetime | None,
    ) -> MatchRecord | None:
        running = select(m.Tournament.id).where(
            m.Tournament.status == TournamentStatus.RUNNING.value
        )
        claimable = [
            m.Match.id == match_id,
            m.Match.tournament_id.in_(running.scalar_subquery()),
        ]
        if task_id and now is not None:
            # A live claim is taken over only by a redelivery of its own message (its worker
            # died); a re-sent copy of the message finds the match held and leaves it.
            claimable.append(
                or_(
                    m.Match.status == MatchStatus.QUEUED.value,
                    and_(
                        m.Match.status == MatchStatus.RUNNING.value,
                        or_(
                            m.Match.lease_until.is_(None),
                            m.Match.lease_until < now,
                            m.Match.claim_task == task_id,
                        ),
                    ),
                )
            )
        else:
            claimable.append(
                m.Match.status.in_([MatchStatus.QUEUED.value, MatchStatus.RUNNING.value])
            )
        res = s.execute(
            update(m.Match)
            .where(*claimable)
            .values(
                status=MatchStatus.RUNNING.value,
                claimed_by=worker_id,
                lease_until=lease_until,
                attempt_hash=attempt_hash,
                attempts=m.Match.attempts + 1,
                claim_task=task_id[:64] or None,
            )
        )
        if rowcount(res) != 1:
            return None
        row = s.get(m.Match, match_id)
        return None if row is None else self._match_record(s, row)

    def attempt_hash(self, match_id: str) -> str | None:
        with self._tx() as s:
            return s.scalar(select(m.Match.attempt_hash).where(m.Match.id == match_id))
