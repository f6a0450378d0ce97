"""Matches: queueing, leases, final results (exactly once), cancellation."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from server.storage import models as m
from server.storage.base import (
    MatchStatus,
    Outcome,
    TournamentStatus,
    utcnow,
)
from server.storage.sql_claims import ClaimsPart
from server.storage.sql_ratings import apply_ratings, lock_ratings
from server.storage.sql_standings import add_result
from server.storage.sql_traces import add_decisions, add_traces
from server.storage.sqlbase import FINAL, rowcount


class MatchesPart(ClaimsPart):
    """Matches: queueing, leases, final results (exactly once), cancellation."""

    def match_queues(self, match_ids: Sequence[str]) -> dict[str, str]:
        with self._tx() as s:
            rows = s.execute(select(m.Match.id, m.Match.queue).where(m.Match.id.in_(match_ids)))
            return {str(mid): str(queue) for mid, queue in rows}

    def match_routes(self, match_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        out: dict[str, tuple[str, str]] = {}
        with self._tx() as s:
            for start in range(0, len(match_ids), 500):
                rows = s.execute(
                    select(
                        m.Match.id,
                        m.Match.queue,
                        m.Match.tournament_id,
                        m.Match.round,
                        m.Match.table_index,
                    )
                    .where(m.Match.id.in_(list(match_ids[start : start + 500])))
                    .order_by(m.Match.rotation)
                )
                for mid, queue, tid, rnd, table in rows:
                    out[str(mid)] = (str(queue), f"{tid}.r{rnd}.t{table}")
        return out

    def mark_queued(self, match_ids: Sequence[str], now: datetime) -> list[str]:
        changed = []
        with self._tx() as s:
            for mid in match_ids:
                res = s.execute(
                    update(m.Match)
                    .where(m.Match.id == mid, m.Match.status.not_in(FINAL))
                    .values(
                        # An attempt is counted when a match is claimed, not when it is sent:
                        # a match waiting its turn in a long queue loses nothing.
                        status=MatchStatus.QUEUED.value,
                        queued_at=now,
                        claimed_by=None,
                        lease_until=None,
                    )
                )
                if rowcount(res):
                    changed.append(mid)
        return changed

    def finalize_match(
        self, match_id: str, outcome: Outcome, now: datetime, attempt_hash: str
    ) -> bool:
        return self.finalize_matches([(match_id, outcome, attempt_hash)], now)[0]

    def finalize_matches(
        self, reports: Sequence[tuple[str, Outcome, str]], now: datetime
    ) -> list[bool]:
        """Record several matches (a block's) in one transaction; whether each was."""
        with self._record_lock, self._tx() as s:
            done = [
                self._finalize(s, mid, outcome, now, digest) for mid, outcome, digest in reports
            ]
            s.flush()
            for tournament_id in dict.fromkeys(t for t in done if t is not None):
                self._maybe_finish(s, tournament_id, now)
            return [t is not None for t in done]

    def _finalize(
        self, s: Session, match_id: str, outcome: Outcome, now: datetime, attempt_hash: str
    ) -> str | None:
        """Record one match in transaction ``s``; its tournament id, or None if this attempt
        no longer holds it."""
        # Only the current attempt, while its lease holds: a stale worker's report (its
        # claim expired, or another worker claimed since) changes no row.
        res = s.execute(
            update(m.Match)
            .where(
                m.Match.id == match_id,
                m.Match.status == MatchStatus.RUNNING.value,
                m.Match.attempt_hash == attempt_hash,
                m.Match.lease_until >= now,
            )
            .values(
                status=MatchStatus.FINISHED.value,
                finished_at=now,
                duration_seconds=outcome.duration_seconds,
                lease_until=None,
                sandbox_tier=outcome.sandbox_tier[:32],
            )
        )
        if rowcount(res) != 1:
            return None
        lock_ratings(s)  # before the result log: a rebuild sees this result or waits
        match = s.get(m.Match, match_id)
        assert match is not None
        seats = s.scalars(
            select(m.MatchSeat).where(m.MatchSeat.match_id == match_id).order_by(m.MatchSeat.seat)
        ).all()
        for row, so in zip(seats, outcome.seats, strict=True):
            row.score, row.rank = so.score, so.rank
            row.forfeit_reason, row.forfeit_detail = so.forfeit_reason, so.forfeit_detail
            row.forfeit_at = so.forfeit_at
        add_result(s, match.tournament_id, match_id)  # its standings, in this transaction
        add_decisions(s, match_id, outcome.decisions)
        add_traces(s, match_id, outcome.traces)
        tournament = s.get(m.Tournament, match.tournament_id)
        assert tournament is not None
        # a match played without the full sandbox counts for nothing
        rated = tournament.rated and not outcome.unrated
        names = [self._bot_name(s, row.bot_version_id) for row in seats]
        ranks = [so.rank for so in outcome.seats]
        s.add(
            m.ResultLog(
                match_id=match_id,
                game=match.game,
                rated=rated,
                bots=",".join(names),
                ranks=",".join(map(str, ranks)),
                recorded_at=now,
            )
        )
        if rated:
            apply_ratings(s, match.game, names, ranks)
        return match.tournament_id

    def void_attempt(
        self,
        match_id: str,
        reason: str,
        max_attempts: int,
        lease_expired_by: datetime | None = None,
        attempt_hash: str | None = None,
        infra_limit: int | None = None,
        failed_reason: str = "",
    ) -> MatchStatus | None:
        # Conditional UPDATEs, never read-modify-write: a report that finalizes the match
        # between a read and a write must not be undone (a finished match put back in the
        # queue would be played and recorded again).
        open_match = [m.Match.id == match_id, m.Match.status.not_in(FINAL)]
        if lease_expired_by is not None:
            # The reaper's view may be stale: skip a match claimed again since it looked.
            open_match.append(
                or_(m.Match.lease_until.is_(None), m.Match.lease_until < lease_expired_by)
            )
        if attempt_hash is not None:
            open_match += [
                m.Match.status == MatchStatus.RUNNING.value,
                m.Match.attempt_hash == attempt_hash,
            ]
        cleared: dict[str, object] = {
            "void_reason": reason[:2000],
            "claimed_by": None,
            "lease_until": None,
        }
        if infra_limit is not None:
            # An infrastructure void: no bot could have lost this attempt, so it is given
            # back, and counted among the match's infrastructure retries instead.
            exhausted = m.Match.infra_retries + 1 >= infra_limit
            cleared |= {
                "attempts": m.Match.attempts - 1,  # >= 1: the void's claim counted one
                "infra_retries": m.Match.infra_retries + 1,
            }
        else:
            exhausted = m.Match.attempts >= max_attempts
        with self._record_lock, self._tx() as s:
            now = utcnow()
            values = dict(cleared)
            if failed_reason:
                values["void_reason"] = failed_reason[:2000]
            failed = s.execute(
                update(m.Match)
                .where(*open_match, exhausted)
                .values(status=MatchStatus.FAILED.value, finished_at=now, **values)
            )
            if rowcount(failed):
                tournament_id = s.scalar(
                    select(m.Match.tournament_id).where(m.Match.id == match_id)
                )
                if tournament_id is not None:
                    self._maybe_finish(s, tournament_id, now)
                return MatchStatus.FAILED
            queued = s.execute(
                update(m.Match)
                .where(*open_match)
                .values(status=MatchStatus.QUEUED.value, **cleared)
            )
            return MatchStatus.QUEUED if rowcount(queued) else None

    def cancel_open_matches(self, tournament_id: str, now: datetime) -> int:
        with self._tx() as s:
            res = s.execute(
                update(m.Match)
                .where(m.Match.tournament_id == tournament_id, m.Match.status.not_in(FINAL))
                .values(status=MatchStatus.CANCELLED.value, finished_at=now, lease_until=None)
            )
            return rowcount(res)

    def stale_matches(self, now: datetime, queued_before: datetime) -> list[str]:
        with self._tx() as s:
            running = s.scalars(
                select(m.Match.id).where(
                    m.Match.status == MatchStatus.RUNNING.value, m.Match.lease_until < now
                )
            ).all()
            queued = s.scalars(
                select(m.Match.id).where(
                    m.Match.status == MatchStatus.QUEUED.value, m.Match.queued_at < queued_before
                )
            ).all()
            return [*running, *queued]

    def expired_leases(self, now: datetime) -> list[str]:
        with self._tx() as s:
            return list(
                s.scalars(
                    select(m.Match.id).where(
                        m.Match.status == MatchStatus.RUNNING.value, m.Match.lease_until < now
                    )
                ).all()
            )

    def queued_matches(self, queued_before: datetime | None = None) -> list[str]:
        with self._tx() as s:
            q = select(m.Match.id).where(m.Match.status == MatchStatus.QUEUED.value)
            if queued_before is not None:
                q = q.where(m.Match.queued_at < queued_before)
            return list(s.scalars(q.order_by(m.Match.queued_at, m.Match.id)).all())

    def touch_queued(self, match_ids: Sequence[str], now: datetime) -> list[str]:
        changed: list[str] = []
        with self._tx() as s:
            for start in range(0, len(match_ids), 500):
                chunk = list(match_ids[start : start + 500])
                found = s.scalars(
                    select(m.Match.id).where(
                        m.Match.id.in_(chunk), m.Match.status == MatchStatus.QUEUED.value
                    )
                ).all()
                s.execute(update(m.Match).where(m.Match.id.in_(list(found))).values(queued_at=now))
                changed += found
        return changed

    def unqueue(self, tournament_id: str) -> int:
        with self._tx() as s:
            res = s.execute(
                update(m.Match)
                .where(
                    m.Match.tournament_id == tournament_id,
                    m.Match.status == MatchStatus.QUEUED.value,
                )
                .values(status=MatchStatus.PENDING.value, queued_at=None)
            )
            return rowcount(res)

    def _maybe_finish(self, s: Session, tournament_id: str, now: datetime | None) -> None:
        open_count = s.scalar(
            select(func.count())
            .select_from(m.Match)
            .where(m.Match.tournament_id == tournament_id, m.Match.status.not_in(FINAL))
        )
        if open_count:
            return
        # A format that pairs each round when the last ends (Swiss) is over only after its
        # last round; the others plan every round up front.
        last = s.scalar(
            select(func.max(m.Match.round)).where(m.Match.tournament_id == tournament_id)
        )
        rounds = s.scalar(select(m.Tournament.rounds).where(m.Tournament.id == tournament_id))
        if last is not None and rounds is not None and last + 1 < rounds:
            return
        s.execute(
            update(m.Tournament)
            .where(
                m.Tournament.id == tournament_id,
                m.Tournament.status == TournamentStatus.RUNNING.value,
            )
            .values(status=TournamentStatus.FINISHED.value, finished_at=now or utcnow())
        )

    def _bot_name(self, s: Session, version_id: int) -> str:
        name = s.scalar(
            select(m.Bot.name)
            .join(m.BotVersion, m.BotVersion.bot_id == m.Bot.id)
            .where(m.BotVersion.id == version_id)
        )
        return str(name)
