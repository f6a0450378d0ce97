"""Input hygiene at the service boundary, one test per finding of the fuzzer, on SQLite and
PostgreSQL: each asserts the status code, the message, and that a refused call wrote nothing
(the row count of every table)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from hamlet.v1 import arena_pb2, common_pb2, worker_pb2
from tests.server import fakeworker
from tests.server.conftest import Metadata, Running
from tests.server.refusals import assert_refused, finish_others, running_match


def test_nul_in_a_stderr_tail_is_stripped_and_the_match_recorded(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    spec = running_match(served, admin_metadata, worker_metadata)
    outcome = fakeworker.play_outcome(spec, forfeit_seat=0)
    outcome.forfeits[0].detail = "the bot exited with status 1: Traceback\x00 | boom\x00"
    outcome.decisions[0].action_text = "play\x00 1"
    answer = served.host.ReportMatch(
        worker_pb2.ReportMatchRequest(
            match_id=spec.match_id,
            outcome=outcome,
            attempt_token=served.attempts[spec.match_id],
        ),
        metadata=worker_metadata,
    )
    assert answer.recorded
    finish_others(served, spec.match_id)
    detail = served.arena.GetMatch(
        arena_pb2.MatchRef(match_id=spec.match_id), metadata=admin_metadata
    )
    assert detail.match.status == common_pb2.MATCH_STATUS_FINISHED
    # what happened, without the bot's stderr (its owner's, in the seat trace)
    assert detail.match.seats[0].forfeit_detail == "the bot exited with status 1"
    assert detail.decisions[0].action_text == "play 1"


def test_nul_in_a_void_reason_is_stripped(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    spec = running_match(served, admin_metadata, worker_metadata)
    served.host.ReportMatch(
        worker_pb2.ReportMatchRequest(
            match_id=spec.match_id,
            void_reason="redis\x00 went away",
            attempt_token=served.attempts[spec.match_id],
        ),
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
def test_nul_in_names_and_ids_isassert_refused(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata, call: Call, text: str
) -> None:
    running_match(served, admin_metadata, worker_metadata)
    assert_refused(
        served,
        lambda: call(served, admin_metadata, worker_metadata),
        grpc.StatusCode.INVALID_ARGUMENT,
        text,
    )


def test_nul_in_an_action_json_isassert_refused(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    spec = running_match(served, admin_metadata, worker_metadata)
    outcome = fakeworker.play_outcome(spec)
    outcome.decisions[2].action_json = '{"type": "Play\x00"}'
    assert_refused(
        served,
        lambda: served.host.ReportMatch(
            worker_pb2.ReportMatchRequest(
                match_id=spec.match_id,
                outcome=outcome,
                attempt_token=served.attempts[spec.match_id],
            ),
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
    spec = running_match(served, admin_metadata, worker_metadata)
    outcome = fakeworker.play_outcome(spec)
    if where == "duration":
        outcome.duration_seconds = value
        text = "duration_seconds must be"
    else:
        outcome.decisions[1].seconds = value
        text = "decision 1: seconds must be"
    assert_refused(
        served,
        lambda: served.host.ReportMatch(
            worker_pb2.ReportMatchRequest(
                match_id=spec.match_id,
                outcome=outcome,
                attempt_token=served.attempts[spec.match_id],
            ),
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
def test_sources_the_compiler_chokes_on_areassert_refused(
    served: Running, admin_metadata: Metadata, source: str, text: str
) -> None:
    assert_refused(
        served,
        lambda: served.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="deep", game="toy", source=source),
            metadata=admin_metadata,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        text,
    )


def test_request_bytes_that_do_not_decode_are_invalid_arguments(
    served: Running, admin_metadata: Metadata
) -> None:
    call = served.channel.unary_unary("/hamlet.v1.Arena/SubmitBot")
    for junk in (b"\xff\xff\xff\xff", b"\x0a\x02\xc3\x28", b"\x0a\x05ab"):
        assert_refused(
            served,
            lambda junk=junk: call(junk, metadata=admin_metadata, timeout=5),  # type: ignore[misc]
            grpc.StatusCode.INVALID_ARGUMENT,
            "the request bytes are not a valid message for Arena/SubmitBot",
        )
