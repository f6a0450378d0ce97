"""A finishing match's decision log and seat traces (what traced seats did beyond the log),
written with its result; seat traces read back."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import insert
from sqlalchemy.orm import Session

from server.storage import models as m
from server.storage.base import DecisionRecord, SeatTraceRecord, TracedStep
from server.storage.sqlbase import SqlBase


def add_decisions(s: Session, match_id: str, decisions: Sequence[DecisionRecord]) -> None:
    """Add a finalizing match's decision log to its transaction (``s``): one executemany,
    not an ORM object per decision (a match logs hundreds)."""
    if not decisions:
        return
    s.connection().execute(
        insert(m.Decision.__table__),  # type: ignore[arg-type]
        [
            {
                "match_id": match_id,
                "idx": d.index,
                "player": d.player,
                "legal_count": d.legal_count,
                "action_json": d.action_json,
                "action_text": d.action_text,
                "seconds": d.seconds,
                "by_fallback": d.by_fallback,
            }
            for d in decisions
        ],
    )


def add_traces(s: Session, match_id: str, traces: Sequence[SeatTraceRecord]) -> None:
    """Add a finalizing match's seat traces to its transaction (``s``)."""
    s.add_all(
        m.SeatTrace(
            match_id=match_id,
            seat=t.seat,
            # one compact row per seat: a list of [answer, milliseconds, stderr, fault]
            steps_json=json.dumps(
                [[x.answer, x.milliseconds, x.stderr, x.fault] for x in t.steps],
                separators=(",", ":"),
            ),
            stderr_tail=t.stderr_tail,
            dropped=t.dropped,
        )
        for t in traces
    )


class TracesPart(SqlBase):
    """Reading seat traces back."""

    def get_seat_trace(self, match_id: str, seat: int) -> SeatTraceRecord | None:
        with self._tx() as s:
            row = s.get(m.SeatTrace, (match_id, seat))
            if row is None:
                return None
            steps = tuple(
                TracedStep(int(a), int(ms), str(err), str(fault))
                for a, ms, err, fault in json.loads(row.steps_json)
            )
            return SeatTraceRecord(row.seat, steps, row.stderr_tail, row.dropped)
