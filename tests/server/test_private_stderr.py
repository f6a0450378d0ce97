"""A bot's own output stays its owner's: a crashed bot's stderr (and whatever else it wrote)
reaches no public read, neither an ``Arena`` call nor a web page, while its owner's seat view
still shows it. Played once with the real worker's sandbox and once with a stand-in worker that
reports the bot's output in the forfeit detail (as workers do)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf.message import Message
from starlette.testclient import TestClient

from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, arena_pb2_grpc, worker_pb2
from server.services.forfeits import PLAIN, public_detail
from tests.server import fakeworker
from tests.server.conftest import Running
from tests.server.test_seat_view import play, sandbox
from web.app import WebSettings, create_app

__all__ = ["sandbox"]  # the fixture, imported for its use below

LEAKY = """
import sys

from bots.sdk import run


def decide(observation, legal):
    print("thinking about", observation["me"], file=sys.stderr)
    print("{secret}", file=sys.stderr)
    sys.exit(1)


if __name__ == "__main__":
    run(decide)
"""


def _public_texts(run: Running, tid: str, bot: str) -> Iterator[tuple[str, str]]:
    """(where, text) of every public read of the tournament, its matches and the bot."""
    anon = run.connect(None)
    for who, stub in (("anonymous", anon), ("admin", run.arena)):
        yield from _rpc_texts(who, stub, tid, bot)
    app = create_app(WebSettings(server=run.addr))
    try:
        with TestClient(app) as web:
            pages = [f"/tournaments/{tid}", f"/tournaments/{tid}/live.json", f"/bots/{bot}"]
            for m in all_matches(anon, tid):
                base = f"/matches/{m.match_id}"
                pages += [base, f"{base}/log.json", f"{base}/replay"]
            for page in pages:
                answer = web.get(page)
                assert answer.status_code == 200, page
                yield f"web {page}", answer.text
    finally:
        app.state.reader.close()


def _rpc_texts(
    who: str, stub: arena_pb2_grpc.ArenaStub, tid: str, bot: str
) -> Iterator[tuple[str, str]]:
    ref = arena_pb2.TournamentRef(tournament_id=tid)
    answers: list[tuple[str, Message]] = [("GetTournament", stub.GetTournament(ref))]
    answers.append(
        ("ListMatches", stub.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=tid)))
    )
    watch = arena_pb2.WatchTournamentRequest(tournament_id=tid, include_finished=True)
    answers += [("WatchTournament", e) for e in stub.WatchTournament(watch)]
    answers.append(("GetBotHistory", stub.GetBotHistory(arena_pb2.BotHistoryRequest(name=bot))))
    for m in all_matches(stub, tid):
        ref_m = arena_pb2.MatchRef(match_id=m.match_id)
        answers += [("GetMatch", stub.GetMatch(ref_m)), ("GetReplay", stub.GetReplay(ref_m))]
    for name, message in answers:
        yield f"{who} {name}", str(message)


def _check(run: Running, tid: str, owner: arena_pb2_grpc.ArenaStub, secret: str) -> None:
    forfeited = [(m, s) for m in all_matches(run.arena, tid) for s in m.seats if s.forfeit_reason]
    assert forfeited, "the leaky bot forfeited"
    for _, seat in forfeited:
        assert seat.forfeit_detail == "the bot exited with status 1"  # what happened
    for where, text in _public_texts(run, tid, "leaky"):
        assert secret not in text, where
        assert "thinking about" not in text, where
    match, seat = forfeited[0]
    view = owner.GetMatch(arena_pb2.MatchRef(match_id=match.match_id, seat=seat.seat)).seat_view
    assert secret in view.stderr_tail
    assert any(secret in d.fault for d in view.decisions)


def test_a_crashed_sandboxed_bot_s_stderr_reaches_only_its_owner(
    running: Running, sandbox: None, tmp_path: Path
) -> None:
    secret = f"SECRET-{secrets.token_hex(8)}"
    fakeworker.announce(running.worker_channel, ["farmaria"], bots=("random",))
    _, alice = running.user("alice")
    source = LEAKY.replace("{secret}", secret)
    alice.SubmitBot(arena_pb2.SubmitBotRequest(name="leaky", game="farmaria", source=source))
    t = alice.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="farmaria", bots=["leaky", "random"], players_per_table=2, start=True
        )
    )
    for match_id in list(running.queue.sent):
        play(running, match_id, tmp_path / "code")
    _check(running, t.tournament_id, alice, secret)


def test_a_worker_s_detail_with_the_bot_s_output_is_not_published(running: Running) -> None:
    """A worker reports the crash as it saw it, the bot's last stderr lines included (the
    sandbox does): the server keeps them for the owner's trace and publishes what happened."""
    secret = f"SECRET-{secrets.token_hex(8)}"
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha",))
    _, alice = running.user("alice")
    alice.SubmitBot(arena_pb2.SubmitBotRequest(name="leaky", game="toy", source="pass\n"))
    t = alice.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["leaky", "alpha"], players_per_table=2, start=True
        )
    )
    for m in all_matches(running.arena, t.tournament_id):
        seat = next(s.seat for s in m.seats if s.bot_name == "leaky")

        def leak(
            spec: worker_pb2.MatchSpec, outcome: worker_pb2.MatchOutcome, seat: int = seat
        ) -> None:
            detail = f"the bot exited with status 1: thinking about it | {secret}"
            for f in outcome.forfeits:
                f.detail = detail
            trace = fakeworker.honest_trace(spec, outcome, seat, f"thinking about it\n{secret}")
            for d in trace.decisions:
                if d.fault:
                    d.fault = f"crash: {detail}"
            outcome.seat_traces.append(trace)

        fakeworker.play(running.worker_channel, m.match_id, forfeit_seat=seat, edit=leak)
    _check(running, t.tournament_id, alice, secret)


@pytest.mark.parametrize(
    ("reason", "detail", "public"),
    [
        ("crash", "the bot exited with status 1: a | SECRET", "the bot exited with status 1"),
        (
            "crash",
            "the bot killed by signal 9 (the memory limit of its process tree was reached): x",
            "the bot killed by signal 9 (the memory limit of its process tree was reached)",
        ),
        ("crash", "ValueError: SECRET", "crashed"),
        (
            "crash",
            "bot.example:443: INTERNAL: SECRET",
            "the call to the remote bot ended with INTERNAL",
        ),
        ("crash", "[::1]:443: UNKNOWN: SECRET", "the call to the remote bot ended with UNKNOWN"),
        (
            "unreachable",
            "grpc://127.0.0.1:41234: UNAVAILABLE: failed to connect SECRET",
            "the call to the remote bot ended with UNAVAILABLE",
        ),
        (
            "crash",
            "grpcs://[::1]:1: INTERNAL: SECRET",
            "the call to the remote bot ended with INTERNAL",
        ),
        ("crash", "x: SECRET_WORD: y", "crashed"),
        ("timeout", "no answer within 0.500s", "no answer within 0.500s"),
        ("timeout", "no answer within 0.5s SECRET", "no answer in time"),
        ("illegal_action", "answered index 7; legal indices are 0..3", None),
        (
            "bad_output",
            "wrote text to stdout (print?): stdout ...; first bytes: 'SECRET'",
            "wrote text to stdout (print?): stdout carries the protocol's frames, so print "
            "to stderr instead",
        ),
        ("bad_output", "answer is not a DecisionResponse: SECRET", None),
        (
            "unreachable",
            "h.example:1: UNAVAILABLE: SECRET",
            "the call to the remote bot ended with UNAVAILABLE",
        ),
        ("unreachable", "h.example:1 not dialled: resolves to 10.0.0.1", None),
        ("", "", ""),
    ],
)
def test_public_details_take_only_numbers_and_status_names(
    reason: str, detail: str, public: str | None
) -> None:
    shown = public_detail(reason, detail)
    assert "SECRET" not in shown
    if public is not None:
        assert shown == public
    assert public_detail(reason, shown) == shown  # read back: the same text


def test_every_reason_has_a_plain_word() -> None:
    for reason, word in PLAIN.items():
        assert public_detail(reason, "anything the bot wrote") == word
