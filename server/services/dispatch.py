"""The dispatcher: a bounded window of blocks in flight, refilled by fair share.

The server never puts a whole event on the broker. Matches wait PENDING in the database; the
dispatcher keeps at most a *window* of duplicate blocks QUEUED or RUNNING per worker queue and,
whenever a place frees (a block's last result, a cancelled event, a new worker, the reaper's
beat), sends the next blocks by fair share:

- across *flows*: each user's events form one flow, the ladder one of its own, the server's
  own events (the demo) another; flows are served by :class:`~server.services.fairshare.
  FairShare` (equal weights, cost = a block's matches);
- within a flow, across its events, by the same rule.

So a user's two-match tournament started behind another user's 20,000-match one goes out at
the next free place instead of behind 20,000 matches. The window per queue is
``HAMLET_DISPATCH_WINDOW`` when set, else sized from the workers seen claiming that queue's
matches lately: one place per worker process plus one, so a worker finds the next block
waiting, and a new block never waits behind more than about one block per worker. A queue no
worker has claimed from lately gets :data:`IDLE_WINDOW` places (its blocks may wait for a
worker that never comes: they must not hold the others' places).

Everything here is the server's own bookkeeping: what is in flight is read from the database
each time (the single writer's truth), and only the fair-share counters live in memory (a
restart forgets them, which costs nothing but a moment of history).
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from hamlet.queues import queues_served
from server.services.fairshare import FairShare
from server.services.scheduling import Enqueuer, send_quietly
from server.storage import Store
from server.storage.base import DispatchEvent, PendingBlock, utcnow

#: Places per queue no worker has claimed from lately.
IDLE_WINDOW = 2
#: How long a worker process counts as present after it last announced itself or claimed
#: (pool processes announce themselves every minute).
WORKER_HORIZON_SECONDS = 150.0
#: Blocks read ahead per event in one refill.
LOOKAHEAD = 16
LADDER_FLOW = "ladder"
SYSTEM_FLOW = "system"


def flow_of(event: DispatchEvent) -> str:
    """The flow an event's blocks are served in: its owner's, the ladder's, or the server's."""
    if event.format == "ladder":
        return LADDER_FLOW
    if event.owner_id is None:
        return SYSTEM_FLOW
    return f"user:{event.owner_id}"


class Capacity:
    """How many blocks of each queue the workers can play at once: the pool processes that
    announced themselves lately with the runtimes that queue needs (each child of a worker's
    pool announces itself every minute), or the distinct workers seen claiming from it,
    whichever is more."""

    def __init__(
        self,
        horizon: float = WORKER_HORIZON_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.horizon = horizon
        self.clock = clock
        self._processes: dict[str, dict[str, float]] = {}
        self._claimers: dict[str, dict[str, float]] = {}

    def announced(self, process: str, queues: Iterable[str]) -> bool:
        """A pool process is up and consumes ``queues``; True when it is new on one."""
        new = [self._note(self._processes, q, process) for q in queues]  # note every queue
        return any(new)

    def saw(self, queue: str, worker_id: str) -> bool:
        """A worker claimed from ``queue``; True when it is new (or back) there."""
        return self._note(self._claimers, queue, worker_id)

    def slots(self, queue: str) -> int:
        """Blocks of ``queue`` the workers seen lately can play at once (0: none seen)."""
        return max(self._alive(self._processes, queue), self._alive(self._claimers, queue))

    def _note(self, table: dict[str, dict[str, float]], queue: str, who: str) -> bool:
        now = self.clock()
        seen = table.setdefault(queue, {})
        last = seen.get(who)
        seen[who] = now
        return last is None or now - last > self.horizon

    def _alive(self, table: dict[str, dict[str, float]], queue: str) -> int:
        now = self.clock()
        seen = table.get(queue, {})
        for gone in [w for w, t in seen.items() if now - t > self.horizon]:
            del seen[gone]
        return len(seen)


class Dispatcher:
    """Moves blocks from PENDING to the queue, a bounded window at a time, by fair share.

    ``window``: blocks in flight per queue; 0 sizes it from the workers seen; None is no bound
    at all (every waiting block goes out at once: services built alone, in tests)."""

    def __init__(
        self,
        store: Store,
        enqueuer: Enqueuer,
        window: int | None = None,
        capacity: Capacity | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = store
        self.enqueuer = enqueuer
        self.window = window
        self.seen = capacity or Capacity()
        self.now = now or utcnow
        #: Told the kind of flow ("user", "ladder", "system") of each block sent (a metric).
        self.on_dispatch: Callable[[str], object] | None = None
        self._owners = FairShare()
        self._events = FairShare()
        self._lock = threading.Lock()

    def capacity(self, queue: str) -> int | None:
        """Blocks this queue may have in flight (None: no bound)."""
        if self.window is None:
            return None
        if self.window > 0:
            return self.window
        return self.seen.slots(queue) or IDLE_WINDOW

    def saw_worker(self, worker_id: str, match_id: str) -> None:
        """A worker claimed a match: count it on that match's queue; a new worker widens the
        window, so refill at once."""
        queue = self.store.match_queues([match_id]).get(match_id)
        if queue is not None and self.seen.saw(queue, worker_id) and self.window == 0:
            self.refill()

    def announced(self, process: str, runtimes: Iterable[str]) -> None:
        """A worker's pool process announced itself with the runtimes it can run: count it on
        every queue it consumes; a new one widens the window, so refill at once."""
        if self.seen.announced(process, queues_served(runtimes)) and self.window == 0:
            self.refill()

    def refill(self) -> list[str]:
        """Send blocks while their queues have room, fairly; the match ids sent. Never
        raises for the broker: a failed send leaves the matches QUEUED for the reaper."""
        with self._lock:
            chosen = self._choose()
            if not chosen:
                return []
            ids = [mid for block, _ in chosen for mid in block.match_ids]
            queued = self.store.mark_queued(ids, self.now())
        send_quietly(self.enqueuer, queued)
        if self.on_dispatch is not None:
            for _, flow in chosen:
                self.on_dispatch(flow.split(":", 1)[0])
        return queued

    def _choose(self) -> list[tuple[PendingBlock, str]]:
        """The blocks to send now, each with its flow."""
        flight = self.store.blocks_in_flight()
        busy = Counter(b.queue for b in flight)
        events = self.store.dispatch_events()
        if not events:
            return []
        flow_of_event = {e.tournament_id: flow_of(e) for e in events}
        in_flight = Counter(flow_of_event.get(b.tournament_id, "") for b in flight)
        event_flight = Counter(b.tournament_id for b in flight)
        per_flow: dict[str, list[str]] = {}
        for e in events:
            per_flow.setdefault(flow_of_event[e.tournament_id], []).append(e.tournament_id)
        self._owners.activate(per_flow)
        self._events.activate(flow_of_event)
        ahead: dict[str, _Lookahead] = {}
        chosen: list[tuple[PendingBlock, str]] = []
        while per_flow:
            flow = self._owners.pick(per_flow, in_flight)
            event = self._events.pick(per_flow[flow], event_flight)
            look = ahead.setdefault(event, _Lookahead(self.store, event))
            block = look.take(lambda q: self._room(q, busy))
            if block is None:  # nothing of this event fits now
                per_flow[flow].remove(event)
                if not per_flow[flow]:
                    del per_flow[flow]
                continue
            chosen.append((block, flow))
            busy[block.queue] += 1
            in_flight[flow] += 1
            event_flight[event] += 1
            self._owners.charge(flow, len(block.match_ids))
            self._events.charge(event, len(block.match_ids))
        return chosen

    def _room(self, queue: str, busy: Counter[str]) -> bool:
        cap = self.capacity(queue)
        return cap is None or busy[queue] < cap


class _Lookahead:
    """An event's next pending blocks, read a page at a time (keyset on round and table)."""

    def __init__(self, store: Store, tournament_id: str) -> None:
        self.store = store
        self.tournament_id = tournament_id
        self._page: deque[PendingBlock] = deque()
        self._after: tuple[int, int] | None = None
        self._done = False
        self._skipped: list[PendingBlock] = []

    def take(self, room: Callable[[str], bool]) -> PendingBlock | None:
        """The first waiting block whose queue has room, or None (within the lookahead)."""
        for i, block in enumerate(self._skipped):
            if room(block.queue):
                return self._skipped.pop(i)
        while len(self._skipped) < LOOKAHEAD:
            if not self._page and not self._fetch():
                return None
            block = self._page.popleft()
            if room(block.queue):
                return block
            self._skipped.append(block)  # its queue is full: later blocks may still fit
        return None

    def _fetch(self) -> bool:
        if self._done:
            return False
        page = self.store.pending_blocks(self.tournament_id, self._after, LOOKAHEAD)
        if not page:
            self._done = True
            return False
        self._after = (page[-1].round, page[-1].table)
        self._page.extend(page)
        return True


def sent_of(queued: Sequence[str], tournament_id: str) -> list[str]:
    """The ids among ``queued`` that belong to one event (ids start with its id)."""
    prefix = f"{tournament_id}."
    return [mid for mid in queued if mid.startswith(prefix)]
