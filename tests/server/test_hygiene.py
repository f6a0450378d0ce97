"""Input hygiene at the service boundary, one test per finding of the fuzzer, on SQLite and
PostgreSQL: each asserts the status code, the message, and that a refused call wrote nothing
(the row count of every table)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import grpc
import pytest

from hamlet.v1 import arena_pb2, common_pb2, worker_pb2
from server.services import tournaments as tournaments_module
from server.storage import NewMatch, NewTournament, Outcome, SeatOutcome, SqlStore
from tests.server import fakeworker
from tests.server.conftest import Metadata, Running, row_counts

BOTS = ["alpha", "beta", "gamma"]


def _refused(
    run: Running, call: Callable[[], Any], code: grpc.StatusCode, text: str
) -> grpc.RpcError:
    """Make ``call``; assert it is refused with ``code`` and ``text`` and wrote nothing."""
    before = row_counts(run.store.engine)
    sent = list(run.queue.sent)
    with pytest.raises(grpc.RpcError) as err:
        call()
    assert err.value.code() == code, err.value.details()  # type: ignore[attr-defined]
    assert text in err.value.details(), err.value.details()  # type: ignore[attr-defined]
    assert row_counts(run.store.engine) == before
    assert run.queue.sent == sent
    return err.value


def _running_match(run: Running, admin: Metadata, worker: Metadata) -> worker_pb2.MatchSpec:
    """Announce the bots, start a two-bot tournament and claim its first match."""
    fakeworker.announce(run.channel, ["toy"])
    run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(game="toy", bots=BOTS[:2], start=True),
        metadata=admin,
    )
    claim = run.host.ClaimMatch(
        worker_pb2.ClaimMatchRequest(match_id=run.queue.sent[0], worker_id="w"), metadata=worker
    )
    return claim.match


def test_nul_in_a_stderr_tail_is_stripped_and_the_match_recorded(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    spec = _running_match(served, admin_metadata, worker_metadata)
    outcome = fakeworker.play_outcome(spec, forfeit_seat=0)
    outcome.forfeits[0].detail = "the bot exited with code 1: Traceback\x00 | boom\x00"
    outcome.decisions[0].action_text = "play\x00 1"
    answer = served.host.ReportMatch(
        worker_pb2.ReportMatchRequest(match_id=spec.match_id, outcome=outcome),
        metadata=worker_metadata,
    )
    assert answer.recorded
    detail = served.arena.GetMatch(
        arena_pb2.MatchRef(match_id=spec.match_id), metadata=admin_metadata
    )
    assert detail.match.status == common_pb2.MATCH_STATUS_FINISHED
    assert detail.match.seats[0].forfeit_detail == "the bot exited with code 1: Traceback | boom"
    assert detail.decisions[0].action_text == "play 1"


def test_nul_in_a_void_reason_is_stripped(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    spec = _running_match(served, admin_metadata, worker_metadata)
    served.host.ReportMatch(
        worker_pb2.ReportMatchRequest(match_id=spec.match_id, void_reason="redis\x00 went away"),
        metadata=worker_metadata,
    )
    match = served.arena.GetMatch(
        arena_pb2.MatchRef(match_id=spec.match_id), metadata=admin_metadata
    )
    assert match.match.void_reason == "redis went away"
    assert match.match.status == common_pb2.MATCH_STATUS_QUEUED


def test_nul_in_a_description_is_stripped(served: Running, admin_metadata: Metadata) -> None:
    done = served.arena.SubmitBot(
        arena_pb2.SubmitBotRequest(name="nul", game="toy", source="x = 1\n", description="a\x00b"),
        metadata=admin_metadata,
    )
    assert done.bot.description == "ab"


Call = Callable[[Running, Metadata, Metadata], Any]
NUL_REFUSED: list[tuple[str, Call, str]] = [
    (
        "bot name",
        lambda r, a, w: r.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="bad\x00", game="toy", source="x=1"), metadata=a
        ),
        "bot name contains a NUL character",
    ),
    (
        "source",
        lambda r, a, w: r.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="src", game="toy", source="x=1\x00"), metadata=a
        ),
        "source contains a NUL character (\\0) at position 3",
    ),
    (
        "tournament bot",
        lambda r, a, w: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="toy", bots=["alpha", "be\x00ta"]), metadata=a
        ),
        "bot name contains a NUL character (\\0) at position 2; remove it",
    ),
    (
        "retired bot",
        lambda r, a, w: r.arena.RetireBot(arena_pb2.RetireBotRequest(name="alpha\x00"), metadata=a),
        "bot name contains a NUL character",
    ),
    (
        "tournament id",
        lambda r, a, w: r.arena.StartTournament(
            arena_pb2.TournamentRef(tournament_id="t\x00"), metadata=a
        ),
        "tournament_id contains a NUL character",
    ),
    (
        "match id",
        lambda r, a, w: r.arena.GetMatch(arena_pb2.MatchRef(match_id="\x00"), metadata=a),
        "match_id contains a NUL character",
    ),
    (
        "claimed match id",
        lambda r, a, w: r.host.ClaimMatch(
            worker_pb2.ClaimMatchRequest(match_id="m\x00", worker_id="w"), metadata=w
        ),
        "match_id contains a NUL character",
    ),
    (
        "claiming worker id",
        lambda r, a, w: r.host.ClaimMatch(
            worker_pb2.ClaimMatchRequest(match_id=r.queue.sent[0], worker_id="w\x00"),
            metadata=w,
        ),
        "worker_id contains a NUL character",
    ),
    (
        "announced bot",
        lambda r, a, w: r.host.AnnounceWorker(
            worker_pb2.AnnounceWorkerRequest(
                worker_id="w",
                builtin_bots=[
                    worker_pb2.BuiltinBot(name="fine", games=["toy"]),
                    worker_pb2.BuiltinBot(name="n\x00", games=["toy"]),
                ],
            ),
            metadata=w,
        ),
        "bot name contains a NUL character",
    ),
    (
        "announcing worker id",
        lambda r, a, w: r.host.AnnounceWorker(
            worker_pb2.AnnounceWorkerRequest(
                worker_id="\x00", builtin_bots=[worker_pb2.BuiltinBot(name="fine", games=["toy"])]
            ),
            metadata=w,
        ),
        "worker_id contains a NUL character",
    ),
    (
        "code hash",
        lambda r, a, w: r.host.FetchBotCode(
            worker_pb2.FetchBotCodeRequest(code_sha256="a" * 63 + "\x00"), metadata=w
        ),
        "code_sha256 must be 64 hex digits",
    ),
    (
        "bot name with a trailing newline",
        lambda r, a, w: r.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="mine\n", game="toy", source="x=1"), metadata=a
        ),
        "bad bot name 'mine\\n'",
    ),
]


@pytest.mark.parametrize(
    ("call", "text"), [c[1:] for c in NUL_REFUSED], ids=[c[0] for c in NUL_REFUSED]
)
def test_nul_in_names_and_ids_is_refused(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata, call: Call, text: str
) -> None:
    _running_match(served, admin_metadata, worker_metadata)
    _refused(
        served,
        lambda: call(served, admin_metadata, worker_metadata),
        grpc.StatusCode.INVALID_ARGUMENT,
        text,
    )


def test_nul_in_an_action_json_is_refused(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    spec = _running_match(served, admin_metadata, worker_metadata)
    outcome = fakeworker.play_outcome(spec)
    outcome.decisions[2].action_json = '{"type": "Play\x00"}'
    _refused(
        served,
        lambda: served.host.ReportMatch(
            worker_pb2.ReportMatchRequest(match_id=spec.match_id, outcome=outcome),
            metadata=worker_metadata,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "decision 2: action_json contains a NUL character",
    )


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -1.0])
@pytest.mark.parametrize("where", ["duration", "decision"])
def test_durations_must_be_finite(
    served: Running,
    admin_metadata: Metadata,
    worker_metadata: Metadata,
    value: float,
    where: str,
) -> None:
    spec = _running_match(served, admin_metadata, worker_metadata)
    outcome = fakeworker.play_outcome(spec)
    if where == "duration":
        outcome.duration_seconds = value
        text = "duration_seconds must be"
    else:
        outcome.decisions[1].seconds = value
        text = "decision 1: seconds must be"
    _refused(
        served,
        lambda: served.host.ReportMatch(
            worker_pb2.ReportMatchRequest(match_id=spec.match_id, outcome=outcome),
            metadata=worker_metadata,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        text,
    )
    match = served.arena.GetMatch(
        arena_pb2.MatchRef(match_id=spec.match_id), metadata=admin_metadata
    )
    assert match.match.status == common_pb2.MATCH_STATUS_RUNNING


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("x = " + "1+" * 100_000 + "1", "nests expressions or blocks too deeply"),
        ("x = " + "-" * 100_000 + "1", "ran out of memory"),
    ],
    ids=["recursion", "memory"],
)
def test_sources_the_compiler_chokes_on_are_refused(
    served: Running, admin_metadata: Metadata, source: str, text: str
) -> None:
    _refused(
        served,
        lambda: served.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="deep", game="toy", source=source),
            metadata=admin_metadata,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        text,
    )


def test_a_tournament_too_large_is_refused_before_it_is_planned(
    served: Running,
    admin_metadata: Metadata,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = tuple(f"b{i}" for i in range(64))
    fakeworker.announce(served.channel, ["toy"], bots=names)

    def no_planning(*args: Any) -> Any:
        raise AssertionError("a refused tournament was planned")

    monkeypatch.setattr(tournaments_module, "plan_round_robin", no_planning)
    start = time.monotonic()
    _refused(
        served,
        lambda: served.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game="toy", bots=names, players_per_table=4, rounds=1000
            ),
            metadata=admin_metadata,
            timeout=5,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "64 bots at 4 per table for 1000 rounds make 2541504000 matches; the limit is 20000",
    )
    assert time.monotonic() - start < 2


def test_a_refused_announcement_registers_no_bot(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    _refused(
        served,
        lambda: served.host.AnnounceWorker(
            worker_pb2.AnnounceWorkerRequest(
                worker_id="w",
                builtin_bots=[
                    worker_pb2.BuiltinBot(name="good", games=["toy"]),
                    worker_pb2.BuiltinBot(name="Bad Name", games=["toy"]),
                ],
            ),
            metadata=worker_metadata,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "bad bot name 'Bad Name'",
    )
    bots = served.arena.ListBots(arena_pb2.ListBotsRequest(), metadata=admin_metadata).bots
    assert [b.name for b in bots] == []


def test_an_announcement_conflicting_with_an_uploaded_bot_registers_none(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    served.arena.SubmitBot(
        arena_pb2.SubmitBotRequest(name="taken", game="toy", source="x = 1\n"),
        metadata=admin_metadata,
    )
    _refused(
        served,
        lambda: served.host.AnnounceWorker(
            worker_pb2.AnnounceWorkerRequest(
                worker_id="w",
                builtin_bots=[
                    worker_pb2.BuiltinBot(name="aaa", games=["toy"]),
                    worker_pb2.BuiltinBot(name="taken", games=["toy"]),
                ],
            ),
            metadata=worker_metadata,
        ),
        grpc.StatusCode.ALREADY_EXISTS,
        "bot name 'taken' is taken by an uploaded bot",
    )


def test_request_bytes_that_do_not_decode_are_invalid_arguments(
    served: Running, admin_metadata: Metadata
) -> None:
    call = served.channel.unary_unary("/hamlet.v1.Arena/SubmitBot")
    for junk in (b"\xff\xff\xff\xff", b"\x0a\x02\xc3\x28", b"\x0a\x05ab"):
        _refused(
            served,
            lambda junk=junk: call(junk, metadata=admin_metadata, timeout=5),  # type: ignore[misc]
            grpc.StatusCode.INVALID_ARGUMENT,
            "the request bytes are not a valid message for Arena/SubmitBot",
        )


def _rated_tournament(store: SqlStore, n_matches: int) -> list[str]:
    bots = [store.upsert_builtin_bot(name, ["toy"], name) for name in ("ann", "bob", "cy")]
    ids = [f"t9.m{i}" for i in range(n_matches)]
    store.create_tournament(
        NewTournament(
            tournament_id="t9",
            game="toy",
            rules_version="toy-1",
            format="round_robin",
            players_per_table=2,
            rounds=1,
            seed=1,
            decision_time_ms=100,
            time_bank_ms=1000,
            rated=True,
            entry_version_ids=tuple(b.version_id for b in bots),
            matches=tuple(
                NewMatch(
                    match_id, 0, i, 0, i, (bots[i % 3].version_id, bots[(i + 1) % 3].version_id)
                )
                for i, match_id in enumerate(ids)
            ),
        )
    )
    return ids


def test_rebuild_ratings_while_results_are_recorded(store: SqlStore) -> None:
    ids = _rated_tournament(store, 40)
    rebuilder = SqlStore(store.engine)  # another writer, as `hamlet rebuild-ratings` is
    errors: list[BaseException] = []
    recording = threading.Event()

    def record() -> None:
        try:
            for i, match_id in enumerate(ids):
                outcome = Outcome((SeatOutcome(1, i % 2), SeatOutcome(0, 1 - i % 2)), (), 0.1)
                assert store.finalize_match(match_id, outcome, datetime(2026, 1, 1))
        except BaseException as exc:
            errors.append(exc)
        finally:
            recording.set()

    def rebuild() -> None:
        try:
            while not recording.is_set():
                rebuilder.rebuild_ratings("toy")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=record), threading.Thread(target=rebuild)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sum(line.games for line in store.leaderboard("toy")) == 2 * len(ids)
    assert store.leaderboard("toy") == rebuilder.rebuild_ratings("toy")


def test_workers_announcing_the_same_new_bots_at_once_all_succeed(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    names = [f"c{i}" for i in range(12)]
    request = worker_pb2.AnnounceWorkerRequest(
        worker_id="pool",
        builtin_bots=[worker_pb2.BuiltinBot(name=n, games=["toy"]) for n in names],
    )
    start = threading.Barrier(6)
    codes: list[grpc.StatusCode] = []

    def announce() -> None:
        start.wait()
        try:
            served.host.AnnounceWorker(request, metadata=worker_metadata, timeout=30)
        except grpc.RpcError as err:
            codes.append(err.code())  # type: ignore[attr-defined]

    threads = [threading.Thread(target=announce) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert codes == []
    bots = served.arena.ListBots(arena_pb2.ListBotsRequest(), metadata=admin_metadata).bots
    assert sorted(b.name for b in bots) == sorted(names)
    assert {b.latest_version for b in bots} == {1}


def test_a_recorded_log_that_does_not_replay_is_a_failed_precondition(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    spec = _running_match(served, admin_metadata, worker_metadata)
    outcome = fakeworker.play_outcome(spec)
    outcome.decisions[0].action_json = "not json"
    served.host.ReportMatch(
        worker_pb2.ReportMatchRequest(match_id=spec.match_id, outcome=outcome),
        metadata=worker_metadata,
    )
    _refused(
        served,
        lambda: served.arena.GetReplay(
            arena_pb2.MatchRef(match_id=spec.match_id), metadata=admin_metadata
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        f"the log of match {spec.match_id} does not replay at decision 0: JSONDecodeError",
    )
