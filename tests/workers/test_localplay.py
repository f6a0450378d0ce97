"""Local play (``hamlet bot play``): duplicate blocks, the summary's numbers, forfeits, traces
that hold exactly the target's decisions and only its own view, and argument errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import games
from games.blocks import block_seed
from workers import localplay
from workers.localplay import LocalPlay, LocalPlayError, SandboxRefusedError, prepare
from workers.localsummary import GameResult
from workers.sandbox_check import Guarantee, SandboxReport, SandboxTier

ILLEGAL = b"""
import sys
from bots.sdk import run

def decide(observation, legal):
    print("about to answer 999", file=sys.stderr)
    return 999

if __name__ == "__main__":
    run(decide)
"""


def test_blocks_rotate_every_seat_with_one_seed_and_cycle_the_opponents() -> None:
    prepared = prepare(LocalPlay("first", "village", ("random", "greedy"), 5, seed=9, players=2))
    tables = prepared.tables
    assert [t.number for t in tables] == [1, 2, 3, 4, 5, 6]  # 5 games -> 3 whole blocks of 2
    assert [(t.block, t.rotation, t.target_seat) for t in tables] == [
        (0, 0, 0), (0, 1, 1), (1, 0, 0), (1, 1, 1), (2, 0, 0), (2, 1, 1),
    ]  # fmt: skip
    assert [t.seed for t in tables] == [block_seed(9, b) for b in (0, 0, 1, 1, 2, 2)]
    assert [[c.label for c in t.seats] for t in tables] == [
        ["first", "random"], ["random", "first"],
        ["first", "greedy"], ["greedy", "first"],
        ["first", "random"], ["random", "first"],
    ]  # fmt: skip
    for t in tables:
        assert t.seats[t.target_seat].label == "first"


def test_players_default_to_one_seat_per_opponent_within_the_games_range() -> None:
    assert prepare(LocalPlay("first", "village", ("random", "greedy"), 1)).players == 3
    assert prepare(LocalPlay("first", "village", ("random",), 1)).players == 2
    many = ("random",) * 8
    assert prepare(LocalPlay("first", "farmaria", many, 1)).players == 6


def _run(request: LocalPlay) -> tuple[localplay.Summary, list[GameResult]]:
    seen: list[GameResult] = []
    summary = localplay.play(prepare(request), seen.append)
    return summary, seen


def test_the_summary_counts_wins_places_scores_and_is_deterministic() -> None:
    request = LocalPlay("greedy", "village", ("random", "first"), 6, seed=4)
    summary, seen = _run(request)
    again, _ = _run(request)
    assert summary.games == len(seen) == 6 and summary.blocks == 2 and summary.players == 3
    # The same seed plays the same games (times aside).
    assert [r.record.scores for r in seen] == [g.record.scores for g in _run(request)[1]]
    assert (summary.target, summary.opponents) == (again.target, again.opponents)
    places = [r.record.ranks[r.target_seat] + 1 for r in seen]
    assert summary.target.games == 6
    assert summary.target.wins == places.count(1)
    assert summary.target.average_place == pytest.approx(sum(places) / 6)
    scores = [r.record.scores[r.target_seat] for r in seen]
    assert summary.target.average_score == pytest.approx(sum(scores) / 6)
    by_name = {line.name: line for line in summary.opponents}
    assert set(by_name) == {"random", "first"} and by_name["random"].games == 6
    random_scores = [
        s for r in seen for s, n in zip(r.record.scores, r.labels, strict=True) if n == "random"
    ]
    assert by_name["random"].average_score == pytest.approx(sum(random_scores) / 6)
    # greedy beats random and first clearly on these seeds
    assert summary.target.wins > by_name["random"].wins
    assert summary.forfeits == () and summary.opponent_forfeits == 0
    assert summary.decisions == sum(
        1 for r in seen for d in r.record.decisions if d.player == r.target_seat
    )
    assert 0 <= summary.mean_decision_s <= summary.max_decision_s
    json.dumps(summary.to_dict())  # --json prints it as it is


def test_a_bot_that_answers_illegally_forfeits_with_its_reason(tmp_path: Path) -> None:
    bot = tmp_path / "illegal.py"
    bot.write_bytes(ILLEGAL)
    summary, _ = _run(LocalPlay(str(bot), "village", ("random",), 2, seed=1, trace_dir=tmp_path))
    assert len(summary.forfeits) == 2 and summary.target.forfeits == 2
    assert {f.reason for f in summary.forfeits} == {"illegal_action"}
    assert "answered index 999" in summary.forfeits[0].detail
    assert summary.target.average_place == 2.0  # forfeits rank last
    trace = json.loads((tmp_path / "game-001-seat0.json").read_text())
    (step,) = trace["decisions"]  # the forfeit closes the bot: nothing else is asked of it
    assert step["answer"] == 999 and step["action"] is None
    assert step["stderr"] == ["about to answer 999"]
    assert trace["result"]["forfeits"][0]["reason"] == "illegal_action"


def test_a_trace_holds_exactly_the_targets_decisions_and_only_its_view(tmp_path: Path) -> None:
    # Farmaria hides hands: another seat's observation differs from the target's.
    summary, seen = _run(LocalPlay("greedy", "farmaria", ("random",), 2, 3, trace_dir=tmp_path))
    assert [Path(p).name for p in summary.traces] == ["game-001-seat0.json", "game-002-seat1.json"]
    spec = games.get("farmaria")
    for result in seen:
        assert result.trace_path is not None
        trace = json.loads(result.trace_path.read_text())
        seat = result.target_seat
        assert trace["format"] == "hamlet-trace/1" and trace["seat"] == seat
        assert trace["seed"] == result.record.seed
        assert trace["result"]["places"] == [r + 1 for r in result.record.ranks]
        mine = [i for i, d in enumerate(result.record.decisions) if d.player == seat]
        assert [s["decision"] for s in trace["decisions"]] == mine
        assert [s["seat_decision"] for s in trace["decisions"]] == list(range(len(mine)))
        state = spec.new_game(num_players=2, seed=result.record.seed)
        steps = iter(trace["decisions"])
        differs = 0
        for i, logged in enumerate(result.record.decisions):
            if logged.player == seat:
                step = next(steps)
                assert step["decision"] == i
                assert step["observation"] == state.observation(seat)
                assert step["legal"] == [games.action_to_dict(a) for a in state.legal_actions()]
                assert step["action"] == logged.action
                differs += step["observation"] != state.observation(1 - seat)
            state.apply(spec.action_from_dict(logged.action))
        assert differs > 0


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (LocalPlay("random", "chess"), "unknown game 'chess'; known games: village"),
        (LocalPlay("nobody", "village"), "unknown bot 'nobody': not a built-in bot (random"),
        (LocalPlay("random", "village", ("nobody",)), "unknown bot 'nobody'"),
        (LocalPlay("missing.py", "village"), "no such file: missing.py"),
        (LocalPlay("random", "village", players=7), "village is played by 2 to 4 players, not 7"),
        (LocalPlay("random", "village", games=0), "--games must be at least 1"),
        (LocalPlay("grpc://nohost", "village"), "bad remote bot 'grpc://nohost'"),
        (LocalPlay("random", "village", decision_ms=0), "--decision-ms must be at least 1"),
    ],
)
def test_bad_arguments_are_one_line_naming_what_is_valid(request_: LocalPlay, message: str) -> None:
    with pytest.raises(LocalPlayError) as info:
        prepare(request_)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_uploaded_bots_are_refused_without_the_sandbox_as_by_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = SandboxReport(
        SandboxTier.REFUSED, (), ((Guarantee.SECCOMP, "the kernel has no seccomp"),)
    )
    monkeypatch.setattr(localplay, "cached_check", lambda limits: refused)
    bot = tmp_path / "bot.py"
    bot.write_bytes(ILLEGAL)
    with pytest.raises(SandboxRefusedError, match=r"seccomp: the kernel has no seccomp.*insecure"):
        prepare(LocalPlay(str(bot), "village"))
    prepare(LocalPlay("random", "village"))  # built-ins need no sandbox
