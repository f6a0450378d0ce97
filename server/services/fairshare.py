"""Fair shares of the match window: start-time fair queueing with equal weights.

Each *flow* (an owner, or the ladder) that has work waiting is a candidate; the one that has
been served least since it became active goes next, and is charged the cost of what it got (a
block's matches). A flow that becomes active starts at the least service among the flows
already active, so idle time earns no credit and a newcomer needs no history to get its share:
with one flow holding 20,000 planned matches and another arriving with two, the newcomer is
served at the next free place. Ties go to the flow with fewer blocks in flight, then to the
one served longest ago (a newcomer first), then by name, so the order is deterministic.

Pure bookkeeping (no store, no clock): :mod:`server.services.dispatch` asks it who is next.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class FairShare:
    """Who is next among the flows with work waiting (equal weights)."""

    def __init__(self) -> None:
        #: Service (matches) each active flow received since it became active.
        self._served: dict[str, float] = {}
        #: When each active flow was last served (a count of charges; -1: not yet).
        self._last: dict[str, int] = {}
        self._turn = 0

    def served(self, flow: str) -> float:
        """The service a flow received since it became active (0 for an unknown one)."""
        return self._served.get(flow, 0.0)

    def activate(self, flows: Iterable[str]) -> None:
        """Only ``flows`` have work waiting: forget the others (so memory stays bounded by
        the active flows), and start each new one at the least service of those kept."""
        active = set(flows)
        for gone in [f for f in self._served if f not in active]:
            del self._served[gone]
            self._last.pop(gone, None)
        floor = min(self._served.values(), default=0.0)
        for flow in active:
            self._served.setdefault(flow, floor)

    def pick(self, candidates: Iterable[str], in_flight: Mapping[str, int]) -> str:
        """The candidate served least (ties: fewer blocks in flight, then served longest
        ago, then the name). Every candidate must have been activated."""
        return min(
            candidates,
            key=lambda f: (self._served[f], in_flight.get(f, 0), self._last.get(f, -1), f),
        )

    def charge(self, flow: str, cost: float) -> None:
        """``flow`` was given work of ``cost`` (matches)."""
        self._served[flow] = self._served.get(flow, 0.0) + cost
        self._last[flow] = self._turn
        self._turn += 1
