"""Reading matches back: single matches, whole tournaments, pages and cursors.

Records are built in batches: a page (or a whole list) of matches costs a constant number of
queries (the matches, their seats with bot names, their tournaments, their decision counts),
never a few per match.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from sqlalchemy import and_, func, or_, select, tuple_
from sqlalchemy.orm import Session

from server.storage import models as m
from server.storage.base import DecisionRecord, MatchRecord, MatchStatus, SeatRecord
from server.storage.sqlbase import FINAL, SqlBase

#: Where a page starts: (round, table, rotation) of the last match of the page before.
PageKey = tuple[int, int, int]
#: Where a cursor over final matches stands: (finished_at ISO text, match id) of the last one.
FinalKey = tuple[str, str]


class MatchReadsPart(SqlBase):
    """Matches as records, read in batches."""

    def list_matches(
        self, tournament_id: str, statuses: Sequence[MatchStatus] = ()
    ) -> list[MatchRecord]:
        with self._tx() as s:
            q = select(m.Match).where(m.Match.tournament_id == tournament_id)
            if statuses:
                q = q.where(m.Match.status.in_([x.value for x in statuses]))
            rows = s.scalars(q.order_by(m.Match.round, m.Match.table_index, m.Match.rotation)).all()
            return self._match_records(s, rows)

    def match_page(
        self, tournament_id: str, after: PageKey | None, limit: int
    ) -> tuple[list[MatchRecord], int]:
        with self._tx() as s:
            q = select(m.Match).where(m.Match.tournament_id == tournament_id)
            if after is not None:
                q = q.where(
                    tuple_(m.Match.round, m.Match.table_index, m.Match.rotation) > tuple_(*after)
                )
            q = q.order_by(m.Match.round, m.Match.table_index, m.Match.rotation).limit(limit)
            rows = s.scalars(q).all()
            total = s.scalar(
                select(func.count())
                .select_from(m.Match)
                .where(m.Match.tournament_id == tournament_id)
            )
            return self._match_records(s, rows), int(total or 0)

    def open_seeds(self, tournament_id: str, seeds: Collection[int]) -> set[int]:
        if not seeds:
            return set()
        with self._tx() as s:
            q = select(m.Match.seed).where(
                m.Match.tournament_id == tournament_id,
                # IN the open statuses, not NOT IN the final ones: an index range over the
                # open matches only, not a scan of every match of the tournament.
                m.Match.status.in_([x.value for x in MatchStatus if not x.final]),
                m.Match.seed.in_(sorted(seeds)),
            )
            return {int(x) for x in s.scalars(q.distinct()).all()}

    def finished_matches(self, tournament_id: str) -> list[MatchRecord]:
        return self.final_after(tournament_id, None, 1_000_000)

    def final_after(
        self, tournament_id: str, after: FinalKey | None, limit: int
    ) -> list[MatchRecord]:
        with self._tx() as s:
            q = select(m.Match).where(
                m.Match.tournament_id == tournament_id, m.Match.status.in_(FINAL)
            )
            if after is not None:
                at = datetime.fromisoformat(after[0])
                q = q.where(
                    or_(
                        m.Match.finished_at > at,
                        and_(m.Match.finished_at == at, m.Match.id > after[1]),
                    )
                )
            rows = s.scalars(q.order_by(m.Match.finished_at, m.Match.id).limit(limit)).all()
            return self._match_records(s, rows)

    def get_match(self, match_id: str) -> MatchRecord | None:
        with self._tx() as s:
            row = s.get(m.Match, match_id)
            return None if row is None else self._match_record(s, row)

    def get_matches(self, match_ids: Sequence[str]) -> list[MatchRecord]:
        with self._tx() as s:
            rows = s.scalars(select(m.Match).where(m.Match.id.in_(match_ids))).all()
            by_id = {r.match_id: r for r in self._match_records(s, rows)}
            return [by_id[i] for i in match_ids if i in by_id]

    def get_decisions(self, match_id: str) -> list[DecisionRecord]:
        with self._tx() as s:
            rows = s.scalars(
                select(m.Decision).where(m.Decision.match_id == match_id).order_by(m.Decision.idx)
            ).all()
            return [
                DecisionRecord(
                    r.idx,
                    r.player,
                    r.legal_count,
                    r.action_json,
                    r.action_text,
                    r.seconds,
                    r.by_fallback,
                )
                for r in rows
            ]

    def _match_record(self, s: Session, row: m.Match) -> MatchRecord:
        return self._match_records(s, [row])[0]

    def _match_records(self, s: Session, rows: Sequence[m.Match]) -> list[MatchRecord]:
        if not rows:
            return []
        ids = [r.id for r in rows]
        seats: dict[str, list[SeatRecord]] = {i: [] for i in ids}
        for seat, name, origin, version, sha, endpoint, ca_pem in s.execute(
            select(
                m.MatchSeat,
                m.Bot.name,
                m.Bot.origin,
                m.BotVersion.version,
                m.BotVersion.code_sha256,
                m.BotVersion.endpoint,
                m.BotVersion.ca_pem,
            )
            .join(m.BotVersion, m.BotVersion.id == m.MatchSeat.bot_version_id)
            .join(m.Bot, m.Bot.id == m.BotVersion.bot_id)
            .where(m.MatchSeat.match_id.in_(ids))
            .order_by(m.MatchSeat.match_id, m.MatchSeat.seat)
        ).all():
            seats[seat.match_id].append(
                SeatRecord(
                    seat=seat.seat,
                    bot_name=name,
                    bot_version=version,
                    origin=origin,
                    code_sha256=sha or "",
                    endpoint=endpoint,
                    ca_pem=ca_pem,
                    score=seat.score,
                    rank=seat.rank,
                    forfeit_reason=seat.forfeit_reason,
                    forfeit_detail=seat.forfeit_detail,
                    forfeit_at=seat.forfeit_at,
                )
            )
        timing = {
            str(tid): (int(dt), int(bank))
            for tid, dt, bank in s.execute(
                select(
                    m.Tournament.id, m.Tournament.decision_time_ms, m.Tournament.time_bank_ms
                ).where(m.Tournament.id.in_({r.tournament_id for r in rows}))
            ).all()
        }
        counts = {
            str(mid): int(n)
            for mid, n in s.execute(
                select(m.Decision.match_id, func.count())
                .where(m.Decision.match_id.in_(ids))
                .group_by(m.Decision.match_id)
            ).all()
        }
        return [_record(row, seats[row.id], timing[row.tournament_id], counts) for row in rows]


def _record(
    row: m.Match, seats: list[SeatRecord], timing: tuple[int, int], counts: dict[str, int]
) -> MatchRecord:
    return MatchRecord(
        match_id=row.id,
        tournament_id=row.tournament_id,
        game=row.game,
        rules_version=row.rules_version,
        seed=row.seed,
        status=MatchStatus(row.status),
        round=row.round,
        table=row.table_index,
        rotation=row.rotation,
        attempts=row.attempts,
        decision_time_ms=timing[0],
        time_bank_ms=timing[1],
        seats=tuple(seats),
        decision_count=counts.get(row.id, 0),
        duration_seconds=row.duration_seconds,
        finished_at=row.finished_at,
        void_reason=row.void_reason,
        claimed_by=row.claimed_by or "",
        queued_at=row.queued_at,
    )
