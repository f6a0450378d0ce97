"""Seat traces: what traced seats did in a match beyond its log, written with the result."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy.orm import Session

from server.storage import models as m
from server.storage.base import SeatTraceRecord, TracedStep
from server.storage.sqlbase import SqlBase


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
