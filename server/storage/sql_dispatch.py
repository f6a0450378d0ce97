"""What the dispatcher reads: blocks in flight, events with work waiting, their next blocks."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import and_, exists, or_, select, update

from server.storage import models as m
from server.storage.base import (
    DispatchEvent,
    InFlight,
    MatchStatus,
    PendingBlock,
    TournamentStatus,
)
from server.storage.sqlbase import SqlBase, rowcount

_IN_FLIGHT = (MatchStatus.QUEUED.value, MatchStatus.RUNNING.value)
#: Rotations a block may have at most (a table of six seats): a page of blocks is read as
#: this many rows per block.
_MAX_ROTATIONS = 6


class DispatchPart(SqlBase):
    """Reads for the fair-share dispatcher (each one query, on indexes)."""

    def blocks_in_flight(self) -> list[InFlight]:
        with self._tx() as s:
            rows = s.execute(
                select(
                    m.Match.tournament_id,
                    m.Match.round,
                    m.Match.table_index,
                    m.Match.queue,
                    m.Match.status,
                )
                .where(m.Match.status.in_(_IN_FLIGHT))
                .distinct()
            ).all()
        blocks: dict[tuple[str, int, int], InFlight] = {}
        for t, r, b, q, status in rows:
            key = (str(t), int(r), int(b))
            running = status == MatchStatus.RUNNING.value
            old = blocks.get(key)
            blocks[key] = InFlight(*key, str(q), running or (old is not None and old.running))
        return list(blocks.values())

    def dispatch_events(self) -> list[DispatchEvent]:
        waiting = exists().where(
            m.Match.tournament_id == m.Tournament.id,
            m.Match.status == MatchStatus.PENDING.value,
        )
        with self._tx() as s:
            rows = s.execute(
                select(m.Tournament.id, m.Tournament.owner_id, m.Tournament.format)
                .where(m.Tournament.status == TournamentStatus.RUNNING.value, waiting)
                .order_by(m.Tournament.created_at, m.Tournament.id)
            ).all()
        return [DispatchEvent(str(t), owner, str(fmt)) for t, owner, fmt in rows]

    def pending_blocks(
        self, tournament_id: str, after: tuple[int, int] | None, limit: int
    ) -> list[PendingBlock]:
        q = select(
            m.Match.id, m.Match.round, m.Match.table_index, m.Match.queue, m.Match.rotation
        ).where(
            m.Match.tournament_id == tournament_id,
            m.Match.status == MatchStatus.PENDING.value,
        )
        if after is not None:
            r, t = after
            q = q.where(or_(m.Match.round > r, and_(m.Match.round == r, m.Match.table_index > t)))
        rows_limit = limit * _MAX_ROTATIONS
        with self._tx() as s:
            rows = s.execute(
                q.order_by(m.Match.round, m.Match.table_index, m.Match.rotation).limit(rows_limit)
            ).all()
        blocks: dict[tuple[int, int], list[tuple[str, str]]] = {}
        for mid, rnd, table, queue, _ in rows:
            blocks.setdefault((int(rnd), int(table)), []).append((str(mid), str(queue)))
        keys = list(blocks)
        if len(rows) == rows_limit and len(keys) > 1:
            keys = keys[:-1]  # the last block may be cut short by the limit: read it next time
        out = []
        for rnd, table in keys[:limit]:
            ids = blocks[(rnd, table)]
            out.append(PendingBlock(tournament_id, rnd, table, ids[0][1], tuple(i for i, _ in ids)))
        return out

    def unqueue_matches(self, match_ids: Sequence[str]) -> int:
        with self._tx() as s:
            res = s.execute(
                update(m.Match)
                .where(m.Match.id.in_(list(match_ids)), m.Match.status == MatchStatus.QUEUED.value)
                .values(status=MatchStatus.PENDING.value, queued_at=None)
            )
            return rowcount(res)
