"""How long one match may legally take, from its time control.

A bot may use its decision time on every decision and its bank on top, so a legal match
takes at most ``max_decisions x decision time + seats x bank`` of bot time, plus the
engine's and the transport's share of each decision and the seats' start-up. Workers give
each match that long (with a margin) before voiding it as stuck, instead of a fixed limit
that voids slow but legal matches; the server refuses a time control whose worst case is
longer than its longest allowed match (``HAMLET_MAX_MATCH_SECONDS``), saying why. Shared by
both sides so they agree.
"""

from __future__ import annotations

#: Head-room over the worst case (a loaded machine is slower than a quiet one).
MARGIN = 1.25
#: Per match: starting the seats (a sandboxed process each), the engine, the report.
SETUP_S = 30.0
#: Per decision, beyond the bot's time: the engine's step and the round trip to the bot.
PER_DECISION_S = 0.01


def match_limit_s(max_decisions: int, seats: int, decision_s: float, bank_s: float) -> float:
    """The longest a legal match may take, with the margin: seconds."""
    bot_time = max_decisions * decision_s + seats * bank_s
    return MARGIN * (bot_time + max_decisions * PER_DECISION_S) + SETUP_S


def describe(max_decisions: int, seats: int, decision_s: float, bank_s: float) -> str:
    """The worst case in words, for an error message."""
    return (
        f"up to {max_decisions} decisions x {decision_s:g} s + {seats} seat(s) x {bank_s:g} s "
        f"of bank, with a {MARGIN:g}x margin and {SETUP_S:g} s of set-up: "
        f"{match_limit_s(max_decisions, seats, decision_s, bank_s):.0f} s"
    )
