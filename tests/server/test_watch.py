"""WatchTournament: one shared feed, a cursor per stream, a cap on open streams, and a
thread pool of workers' own so that no number of watchers holds up their reports."""

from __future__ import annotations

import threading

import grpc
import pytest

from hamlet.v1 import arena_pb2, arena_pb2_grpc
from tests.server import fakeworker
from tests.server.conftest import Running

BOTS = ["alpha", "beta", "gamma"]
#: A guard against a hang, not a measurement: nothing here is timed.
GUARD = 60.0


def _tournament(run: Running, rounds: int = 2) -> str:
    fakeworker.announce(run.worker_channel, ["toy"])
    t = run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=BOTS, players_per_table=2, rounds=rounds, start=True
        )
    )
    return t.tournament_id


class Watcher(threading.Thread):
    """Follows one tournament to its end, keeping what it was sent."""

    def __init__(
        self, run: Running, tournament_id: str, stub: arena_pb2_grpc.ArenaStub | None = None
    ) -> None:
        super().__init__(daemon=True)
        self.stream = (stub or run.arena).WatchTournament(
            arena_pb2.WatchTournamentRequest(tournament_id=tournament_id), timeout=GUARD
        )
        self.first = threading.Event()
        self.matches: list[str] = []
        self.error: grpc.RpcError | None = None

    def run(self) -> None:
        try:
            for event in self.stream:
                self.first.set()
                if event.HasField("match"):
                    self.matches.append(event.match.match_id)
        except grpc.RpcError as exc:
            self.error = exc
        finally:
            self.first.set()


def test_forty_watchers_neither_starve_reports_nor_miss_events(running: Running) -> None:
    tid = _tournament(running)
    # Ten users with four streams each: within each one's share, so only the cap refuses.
    stubs = [running.user(f"watcher{i}")[1] for i in range(10)]
    watchers = [Watcher(running, tid, stubs[i % 10]) for i in range(40)]
    for w in watchers:
        w.start()
    for w in watchers:
        assert w.first.wait(GUARD)
    for match_id in running.queue.sent:  # workers' calls go through while streams are open
        assert fakeworker.play(running.worker_channel, match_id).recorded
    for w in watchers:
        w.join(GUARD)
    served = [w for w in watchers if w.error is None]
    refused = [w for w in watchers if w.error is not None]
    cap = running.server.settings.max_streams
    assert len(served) == cap and len(refused) == 40 - cap
    for w in refused:
        assert w.error is not None
        assert w.error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert f"cap of {cap} open streams" in (w.error.details() or "")
    for w in served:  # every match once, in the order it became final
        assert w.matches == running.queue.sent


def test_workers_calls_run_on_their_own_pool(running: Running) -> None:
    tid = _tournament(running, rounds=1)
    assert fakeworker.play(running.worker_channel, running.queue.sent[0]).recorded
    names = {t.name.rsplit("_", 1)[0] for t in threading.enumerate()}
    assert "hamlet-matchhost" in names
    assert tid


def test_a_stream_ends_with_the_cancelled_matches(running: Running) -> None:
    tid = _tournament(running, rounds=1)
    assert fakeworker.play(running.worker_channel, running.queue.sent[0]).recorded
    watcher = Watcher(running, tid)
    watcher.start()
    assert watcher.first.wait(GUARD)
    running.arena.CancelTournament(arena_pb2.TournamentRef(tournament_id=tid))
    watcher.join(GUARD)
    assert watcher.error is None
    assert sorted(watcher.matches) == sorted(running.queue.sent[1:])


@pytest.mark.parametrize("include_finished", [True, False])
def test_include_finished_replays_what_came_before(
    running: Running, include_finished: bool
) -> None:
    tid = _tournament(running, rounds=1)
    first, *rest = running.queue.sent
    assert fakeworker.play(running.worker_channel, first).recorded
    stream = running.arena.WatchTournament(
        arena_pb2.WatchTournamentRequest(tournament_id=tid, include_finished=include_finished),
        timeout=GUARD,
    )
    got: list[str] = []
    next(stream)
    for match_id in rest:
        assert fakeworker.play(running.worker_channel, match_id).recorded
    got = [e.match.match_id for e in stream if e.HasField("match")]
    assert got == ([first] if include_finished else []) + rest
