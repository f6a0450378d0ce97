"""Refusing a time control no worker limit can hold.

Workers give each match what its time control lets a legal match take
(:mod:`hamlet.timelimits`); an event whose worst case is longer than the server's longest
allowed match (``HAMLET_MAX_MATCH_SECONDS``) is refused at creation, saying why and what to
change, rather than accepted and then failing its slow matches as stuck.
"""

from __future__ import annotations

import games
from hamlet.timelimits import MARGIN, PER_DECISION_S, SETUP_S, describe, match_limit_s
from server.services.errors import InvalidArgumentError

#: The default longest match: a day (every game's default and rated time controls fit).
#: No bound by default: the games' decision limits (``max_decisions``) are loose guards (My
#: Village's is 40,000), so a bound from them would refuse ordinary time controls; an operator
#: whose workers cannot hold long matches sets HAMLET_MAX_MATCH_SECONDS.
DEFAULT_MAX_MATCH_SECONDS = 0.0


def check_time_control(
    spec: games.GameSpec, seats: int, decision_ms: int, bank_ms: int, max_match_s: float
) -> None:
    """Raise InvalidArgumentError if a legal match at this time control could outlast
    ``max_match_s`` (0: no bound)."""
    if max_match_s <= 0:
        return
    decision_s, bank_s = decision_ms / 1000, bank_ms / 1000
    if match_limit_s(spec.max_decisions, seats, decision_s, bank_s) <= max_match_s:
        return
    # The largest decision time that fits, with the same bank factor as asked.
    factor = bank_ms / decision_ms
    room = (max_match_s - SETUP_S) / MARGIN - spec.max_decisions * PER_DECISION_S
    fits = room / (spec.max_decisions + seats * factor)
    raise InvalidArgumentError(
        f"a {spec.name} match at {decision_ms} ms per decision may legally take "
        f"{describe(spec.max_decisions, seats, decision_s, bank_s)}, longer than the longest "
        f"match this server allows ({max_match_s:.0f} s, HAMLET_MAX_MATCH_SECONDS): use at "
        f"most {max(1, int(fits * 1000))} ms per decision"
    )
