"""The trace file of one seat in one match (``hamlet bot play --trace DIR``).

One JSON object per file, ``DIR/game-NNN-seatS.json`` (``NNN`` the 1-based game number, ``S``
the traced seat). Its format, ``hamlet-trace/1``, is documented in docs/bot-authors.md
("Traces"): the match (game, rules version, seed, seats, limits), its result, and for every
decision the seat was asked, what it saw (its own observation and the legal actions, exactly
as sent), what it answered, how long it took, what it wrote to stderr and any fault.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from workers.model import MatchPlan, MatchRecord, SeatTrace
from workers.trace import decision_indices

FORMAT = "hamlet-trace/1"


def trace_name(game_number: int, seat: int) -> str:
    """``game-003-seat1.json``."""
    return f"game-{game_number:03d}-seat{seat}.json"


def trace_document(
    game_number: int, plan: MatchPlan, record: MatchRecord, trace: SeatTrace
) -> dict[str, Any]:
    """The JSON-ready trace of ``trace.seat`` in the played match."""
    positions = decision_indices([d.player for d in record.decisions], trace.seat)
    steps = []
    for step in trace.decisions:
        index = positions[step.seat_decision] if step.seat_decision < len(positions) else -1
        chosen = step.legal[step.answer] if 0 <= step.answer < len(step.legal) else None
        steps.append(
            {
                "decision": index,
                "seat_decision": step.seat_decision,
                "observation": step.observation,
                "legal": list(step.legal),
                "answer": step.answer,
                "action": chosen,
                "seconds": round(step.seconds, 6),
                "stderr": step.stderr.splitlines(),
                "fault": step.fault,
            }
        )
    return {
        "format": FORMAT,
        "game": plan.game,
        "rules_version": plan.rules_version,
        "match_id": plan.match_id,
        "game_number": game_number,
        "seed": plan.seed,
        "decision_time_ms": round(plan.decision_time_s * 1000),
        "time_bank_ms": round(plan.time_bank_s * 1000),
        "seat": trace.seat,
        "seats": [{"seat": s.seat, "bot": s.bot_name, "kind": s.kind.value} for s in plan.seats],
        "result": {
            "scores": list(record.scores),
            "places": [r + 1 for r in record.ranks],
            "forfeits": [
                {
                    "seat": f.seat,
                    "reason": f.reason.value,
                    "detail": f.detail,
                    "decision": f.at_decision,
                }
                for f in record.forfeits
            ],
            "decisions": len(record.decisions),
        },
        "decisions": steps,
        "dropped": trace.dropped,
        "stderr_tail": trace.stderr_tail,
    }


def write_trace(
    directory: Path, game_number: int, plan: MatchPlan, record: MatchRecord, trace: SeatTrace
) -> Path:
    """Write the trace file (whole or not at all) and return its path."""
    target = directory / trace_name(game_number, trace.seat)
    document = trace_document(game_number, plan, record, trace)
    partial = target.with_suffix(".json.part")
    partial.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, target)
    return target
