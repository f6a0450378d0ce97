"""A ranked match seen from one seat: a real worker plays an uploaded bot in its sandbox and
reports its trace; the bot's owner sees what the seat saw, answered and wrote to stderr;
anyone else is refused that view, and a spectator's match and replay never hold any seat's
hidden information (what the engine shows a seat beyond the public state)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from prometheus_client import CollectorRegistry

import games
from cli.console import to_dict
from cli.main import main
from hamlet import codec
from hamlet.v1 import arena_pb2
from tests.server import fakeworker
from tests.server.conftest import Running
from workers.clients import CodeCache, SeatClients
from workers.metrics import MatchOutcome, WorkerMetrics
from workers.play import execute
from workers.reporting import MatchHostClient
from workers.sandbox import SandboxLimits
from workers.sandbox_check import cached_check

#: An uploaded Farmaria bot that writes its own hidden cards to stderr at every decision.
PEEKER = """
import random
import sys

from bots.sdk import run

rng = random.Random(0)


def decide(observation, legal):
    me = observation["me"]
    mine = observation["players"][me]
    print(f"secret-of-seat-{me}: {mine.get('selected')} {mine.get('face_down')}", file=sys.stderr)
    return rng.randrange(len(legal))


if __name__ == "__main__":
    run(decide)
"""
MARKER = "secret-of-seat-"


@pytest.fixture(scope="module")
def sandbox() -> None:
    report = cached_check(SandboxLimits())
    if not report.plays_uploaded:
        pytest.skip(f"this machine's sandbox refuses uploaded bots: {report.why_refused()}")


def play(running: Running, match_id: str, code_dir: Path) -> None:
    """Play ``match_id`` with the real worker code (claim, sandbox, report over gRPC)."""
    with MatchHostClient(running.addr, token=running.worker_token) as host:
        seats = SeatClients(CodeCache(code_dir, host.fetch_code))
        outcome = execute(match_id, host, seats, "w1", WorkerMetrics(CollectorRegistry()))
    assert outcome is MatchOutcome.RECORDED


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def leaf_paths(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaf_paths(v, (*path, str(k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaf_paths(v, (*path, str(i)))
    else:
        yield path, value


def keys_of(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def hidden_keys(game: str, seed: int, seats: int, log: list[dict[str, Any]]) -> set[str]:
    """The keys under which the engine shows a seat what the public state does not: the first
    key of every path of a seat's observation that the public state lacks, along the log."""
    spec = games.get(game)
    state = spec.new_game(num_players=seats, seed=seed)
    found: set[str] = set()
    for action in [*log, None]:
        public = dict(leaf_paths(state.public_state()))
        prefixes = {p[:i] for p in public for i in range(len(p) + 1)}
        for seat in range(seats):
            for path, value in leaf_paths(state.observation(seat)):
                if public.get(path, object()) == value:
                    continue
                first = next(path[:i] for i in range(1, len(path) + 1) if path[:i] not in prefixes)
                assert not first[-1].isdigit(), f"hidden by position only: {path}"
                found.add(first[-1])
        if action is not None:
            state.apply(spec.action_from_dict(action))
    return found


def test_a_ranked_match_from_my_seat_and_from_the_stands(
    running: Running,
    sandbox: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fakeworker.announce(running.worker_channel, ["farmaria"], bots=("random",))
    alice_token, alice = running.user("alice")
    bob_token, bob = running.user("bob")
    alice.SubmitBot(arena_pb2.SubmitBotRequest(name="peeker", game="farmaria", source=PEEKER))
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="farmaria",
            bots=["peeker", "random"],
            players_per_table=2,
            rated=True,
            start=True,
        )
    )
    first, second = running.queue.sent[:2]
    play(running, first, tmp_path / "code")
    match = running.arena.GetMatch(arena_pb2.MatchRef(match_id=first)).match
    mine = next(s.seat for s in match.seats if s.bot_name == "peeker")
    theirs = 1 - mine

    # Withheld with the log: the other rotation of the block shares the seed.
    with pytest.raises(grpc.RpcError) as held:
        alice.GetReplay(arena_pb2.MatchRef(match_id=first, seat=mine))
    assert held.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    play(running, second, tmp_path / "code")

    # The owner sees the seat's own observations (recomputed by the engine), answers, stderr.
    replay = alice.GetReplay(arena_pb2.MatchRef(match_id=first, seat=mine))
    view = replay.seat_view
    log = [json.loads(s.action_json) for s in replay.steps]
    spec = games.get("farmaria")
    state = spec.new_game(num_players=2, seed=replay.match.seed)
    expected = []
    for step, action in zip(replay.steps, log, strict=True):
        if step.player == mine:
            expected.append((step.index, state.observation(mine), state.legal_actions()))
        state.apply(spec.action_from_dict(action))
    assert view.traced and view.seat == mine and view.bot_name == "peeker"
    assert [d.index for d in view.decisions] == [i for i, _, _ in expected]
    assert [d.number for d in view.decisions] == list(range(1, len(expected) + 1))
    for d, (_, seen, legal) in zip(view.decisions, expected, strict=True):
        assert codec.struct_to_dict(d.observation) == json.loads(json.dumps(seen))
        assert codec.observation_from_request(d.request) == codec.struct_to_dict(d.observation)
        assert d.legal_text == [str(a) for a in legal] and d.answer == d.chosen
        assert d.traced and d.stderr.startswith(f"{MARKER}{mine}:")
    assert MARKER in view.stderr_tail
    detail = alice.GetMatch(arena_pb2.MatchRef(match_id=first, seat=mine))
    assert detail.seat_view == view

    # Anyone else: no view. An admin sees any seat (a built-in seat: from the log alone).
    for stub, seat, code in (
        (bob, mine, grpc.StatusCode.PERMISSION_DENIED),
        (alice, theirs, grpc.StatusCode.PERMISSION_DENIED),
        (running.connect(None), mine, grpc.StatusCode.UNAUTHENTICATED),
    ):
        for call in (stub.GetReplay, stub.GetMatch):
            with pytest.raises(grpc.RpcError) as refused:
                call(arena_pb2.MatchRef(match_id=first, seat=seat))
            assert refused.value.code() is code
    builtin = running.arena.GetReplay(arena_pb2.MatchRef(match_id=first, seat=theirs)).seat_view
    assert not builtin.traced and builtin.decisions and not builtin.decisions[0].stderr

    # A spectator's replay and match: public state only, in bytes, JSON and the CLI.
    hidden = hidden_keys("farmaria", replay.match.seed, 2, log)
    assert {"face_down", "selected"} <= hidden
    monkeypatch.setenv("HAMLET_TOKEN", bob_token)
    srv = ("--server", running.addr)
    texts = [
        cli(capsys, "match", "replay", first, "--states", *srv)[1],
        cli(capsys, "match", "show", first, "--log", *srv)[1],
    ]
    as_json = json.loads(cli(capsys, "match", "replay", first, "--json", *srv)[1])
    public = bob.GetReplay(arena_pb2.MatchRef(match_id=first))
    for msg in (public, bob.GetMatch(arena_pb2.MatchRef(match_id=first))):
        assert not msg.HasField("seat_view")
        raw = msg.SerializeToString()
        assert MARKER.encode() not in raw
        for key in hidden:  # a Struct key on the wire: field 1 of a map entry, its length, it
            assert b"\n" + bytes([len(key)]) + key.encode() not in raw, key
    # (The log itself is public once published, its actions' fields included: it is what
    # anyone re-simulates; the states along it never show what only a seat saw.)
    for states in (
        [to_dict(public)["initial_state"], *(s["public_state"] for s in to_dict(public)["steps"])],
        [as_json["initial_state"], *(s["public_state"] for s in as_json["steps"])],
    ):
        assert not keys_of(states) & hidden, keys_of(states) & hidden
    assert "seat_view" not in as_json or not as_json["seat_view"]["decisions"]
    for text in [*texts, json.dumps(as_json)]:
        assert MARKER not in text
    for text in texts:
        assert not any(f'"{k}":' in text for k in hidden)

    # The owner's CLI: the seat's view per decision, and as JSON.
    monkeypatch.setenv("HAMLET_TOKEN", alice_token)
    # --seat N and the printed seat count from 1, as people read seats
    code, text = cli(capsys, "match", "replay", first, "--seat", str(mine + 1), *srv)
    assert code == 0 and f"Seat {mine + 1} (peeker)" in text
    assert "decision 1 (log #" in text and "  saw " in text and "face_down" in text
    assert f"stderr | {MARKER}{mine}" in text and "  * " in text
    code, text = cli(capsys, "match", "replay", first, "--seat", str(mine + 1), "--json", *srv)
    assert code == 0 and json.loads(text)["decisions"][0]["number"] == 1
    code, _ = cli(capsys, "match", "replay", first, "--seat", str(theirs + 1), *srv)
    assert code != 0
