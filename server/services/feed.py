"""One shared notifier of final matches, and the cursors ``WatchTournament`` streams follow.

Every match that becomes final is published here once, by the service that made it final
(with whether its seed may be shown, decided once). Streams wait on one condition and
take the events after their own cursor: a stream costs no query while nothing happens,
and the tournament's progress is read once per change however many streams follow it.
Events are kept per tournament up to a bound; a stream that falls behind the bound reads
the missing matches back from the store once and carries on from the feed.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from server.services import publication
from server.services.errors import NotFoundError
from server.storage import MatchRecord, Store, TournamentRecord

#: Events kept per tournament (a stream further behind reads the store once).
KEEP = 4096
#: Tournaments whose events are kept (the most recently active ones).
CHANNELS = 256
#: How long a stream sleeps between checks that its client is still there.
WAKE_SECONDS = 1.0
#: The least time between two wake-ups of one stream: under load a stream takes the events
#: of several matches per wake-up instead of waking (with every other stream) for each one.
MIN_WAKE_INTERVAL = 0.1


@dataclass(frozen=True, slots=True)
class MatchEvent:
    """A match that became final: its sequence number in its tournament's feed."""

    seq: int
    match: MatchRecord
    published: bool


#: Where a stream stands: (generation of its tournament's channel, last sequence number).
Cursor = tuple[int, int]


@dataclass(slots=True)
class _Channel:
    generation: int
    head: int = 0
    dropped_upto: int = 0  # events up to this sequence number are no longer kept
    events: list[MatchEvent] = field(default_factory=list)
    snapshot: TournamentRecord | None = None
    snapshot_seq: int = -1
    in_flight: int = 0  # writes begun whose events are not published yet


class TournamentFeed:
    """Final matches by tournament, in the order they became final."""

    def __init__(self, store: Store, keep: int = KEEP, channels: int = CHANNELS) -> None:
        self.store = store
        self.keep = keep
        self.max_channels = channels
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._channels: dict[str, _Channel] = {}
        self._generations = itertools.count(1)
        self._snapshot_lock = threading.Lock()

    def publish(self, tournament_id: str, matches: Sequence[MatchRecord] = ()) -> None:
        """``matches`` of ``tournament_id`` became final (none: only its status changed)."""
        published = self._published(tournament_id, matches)
        with self._changed:
            ch = self._channel(tournament_id)
            for match in matches:
                ch.head += 1
                ch.events.append(MatchEvent(ch.head, match, published[match.match_id]))
            if not matches:
                ch.head += 1  # a status change: the next snapshot must be read again
            extra = len(ch.events) - self.keep
            if extra > 0:
                ch.dropped_upto = ch.events[extra - 1].seq
                del ch.events[:extra]
            self._changed.notify_all()

    @contextlib.contextmanager
    def recording(self, tournament_id: str) -> Iterator[None]:
        """Around a write that may make matches (or the tournament) final, before its
        :meth:`publish`: a stream that reads the write's effect early does not end before
        the write's events reach it."""
        with self._lock:
            self._channel(tournament_id).in_flight += 1
        try:
            yield
        finally:
            with self._changed:
                self._channel(tournament_id).in_flight -= 1
                self._changed.notify_all()

    def settled(self, tournament_id: str, cursor: Cursor) -> bool:
        """No write in flight and no event after ``cursor``: a final snapshot is the end."""
        with self._lock:
            ch = self._channel(tournament_id)
            return ch.in_flight == 0 and (ch.generation, ch.head) == cursor

    def cursor(self, tournament_id: str) -> Cursor:
        """A new stream's cursor: after the latest event."""
        with self._lock:
            ch = self._channel(tournament_id)
            return ch.generation, ch.head

    def after(
        self, tournament_id: str, cursor: Cursor, timeout: float
    ) -> tuple[list[MatchEvent], Cursor, bool]:
        """Events after ``cursor`` (waiting up to ``timeout`` for a change), the new cursor,
        and whether events the stream needed are no longer kept (read the store then)."""
        with self._changed:
            ch = self._channel(tournament_id)
            generation, seq = cursor
            if generation != ch.generation:
                return [], (ch.generation, ch.head), True
            if ch.head <= seq and timeout > 0:
                self._changed.wait_for(lambda: ch.head > seq, timeout)
            # Events are in sequence order: bisect, do not scan (many streams, long feeds).
            fresh = ch.events[bisect.bisect_right(ch.events, seq, key=_seq) :]
            return fresh, (generation, ch.head), ch.dropped_upto > seq

    def snapshot(self, tournament_id: str) -> TournamentRecord:
        """The tournament's progress as of the latest event: one read per change, shared."""
        with self._snapshot_lock:
            with self._lock:
                ch = self._channel(tournament_id)
                head, cached = ch.head, ch.snapshot
                if cached is not None and ch.snapshot_seq == head:
                    return cached
            record = self.store.get_tournament(tournament_id)
            if record is None:
                raise NotFoundError(f"unknown tournament {tournament_id!r}")
            with self._lock:
                ch.snapshot, ch.snapshot_seq = record, head
            return record

    def _channel(self, tournament_id: str) -> _Channel:
        """The tournament's channel, made most recent; the least recent one goes past the
        bound (its streams notice by the generation and read the store once)."""
        ch = self._channels.pop(tournament_id, None)
        if ch is None:
            ch = _Channel(next(self._generations))
        self._channels[tournament_id] = ch
        while len(self._channels) > self.max_channels:
            del self._channels[next(iter(self._channels))]
        return ch

    def _published(self, tournament_id: str, matches: Sequence[MatchRecord]) -> dict[str, bool]:
        return publication.published_many(self.store, tournament_id, matches)


def _seq(event: MatchEvent) -> int:
    return event.seq


def follow(
    feed: TournamentFeed,
    tournament_id: str,
    include_finished: bool,
    stop: threading.Event,
) -> Iterator[tuple[TournamentRecord, MatchEvent | None]]:
    """The tournament now, then (progress, event) as each match becomes final; ends when the
    tournament is final and every event is sent (or when ``stop`` is set)."""
    cursor = feed.cursor(tournament_id)
    seen: set[str] = set()
    yield feed.snapshot(tournament_id), None
    if include_finished:
        for event in _from_store(feed, tournament_id, seen):
            yield feed.snapshot(tournament_id), event
    wait = WAKE_SECONDS
    woke = 0.0
    while not stop.is_set():
        # Stream pacing, not match timing: the clock only spaces this stream's wake-ups.
        pause = woke + MIN_WAKE_INTERVAL - time.monotonic()
        if pause > 0 and stop.wait(pause):
            return
        events, cursor, gap = feed.after(tournament_id, cursor, wait)
        woke = time.monotonic()
        if gap:
            events = [*_from_store(feed, tournament_id, seen), *events]
        for event in events:
            if event.match.match_id not in seen:
                seen.add(event.match.match_id)
                yield feed.snapshot(tournament_id), event
        # Drain what came meanwhile before deciding the stream is over.
        wait = 0.0 if events else WAKE_SECONDS
        if (
            not events
            and feed.snapshot(tournament_id).status.final
            and feed.settled(tournament_id, cursor)
        ):
            return


def _from_store(feed: TournamentFeed, tournament_id: str, seen: set[str]) -> list[MatchEvent]:
    """The final matches a stream has not sent yet, read from the store (once)."""
    found = [m for m in feed.store.finished_matches(tournament_id) if m.match_id not in seen]
    published = publication.published_many(feed.store, tournament_id, found)
    seen.update(m.match_id for m in found)
    return [MatchEvent(0, m, published[m.match_id]) for m in found]
