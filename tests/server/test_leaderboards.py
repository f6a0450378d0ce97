"""The published leaderboard over gRPC: a fit with intervals, per bot version."""

from __future__ import annotations

from hamlet.v1 import arena_pb2
from tests.integration.stack import wait_until
from tests.server import fakeworker
from tests.server.conftest import Running

SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"


def _play(run: Running, bots: list[str], rounds: int, seed: int = 1) -> None:
    before = len(run.queue.sent)
    run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy",
            bots=bots,
            players_per_table=2,
            rounds=rounds,
            rated=True,
            start=True,
            seed=seed,
        )
    )
    # Seeded random play repeats itself across a block's rotations (all luck cancels), so
    # seat 0 crashes in every third match to give the results some spread.
    for i, match_id in enumerate(run.queue.sent[before:]):
        fakeworker.play(run.worker_channel, match_id, forfeit_seat=0 if i % 3 == 0 else None)


def test_published_lines_with_intervals_per_version(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("random", "alpha"))
    running.arena.SubmitBot(arena_pb2.SubmitBotRequest(name="mine", game="toy", source=SOURCE))
    _play(running, ["random", "alpha", "mine"], rounds=6)
    running.arena.SubmitBot(
        arena_pb2.SubmitBotRequest(name="mine", game="toy", source=SOURCE + "# v2\n")
    )
    _play(running, ["random", "mine"], rounds=6)

    board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    assert board.rules_version == "toy-1" and board.anchor_bot == "random"
    assert board.matches == 6 * 6 + 6 * 2 and board.blocks == 6 * 3 + 6
    by_bot = {line.bot_name: line for line in board.lines}
    assert set(by_bot) == {"random", "alpha", "mine"}  # each bot once, at its latest version
    assert by_bot["mine"].version == 2 and list(by_bot["mine"].other_versions) == [1]
    assert by_bot["random"].rating == board.anchor_rating
    for line in board.lines:
        assert line.low <= line.rating <= line.high
        assert 1 <= line.rank_low <= line.rank_high <= 3
        assert 1.0 <= line.average_place <= 2.0
    assert [(a.players, a.seat) for a in board.seat_advantages] == [(2, 1)]
    assert sum(e.games for e in board.entries) == 2 * board.matches  # the live Elo table too

    every = running.arena.GetLeaderboard(
        arena_pb2.GetLeaderboardRequest(game="toy", version_lines=True)
    )
    assert sorted((x.bot_name, x.version) for x in every.lines) == [
        ("alpha", 1),
        ("mine", 1),
        ("mine", 2),
        ("random", 1),
    ]
    older = running.arena.GetLeaderboard(
        arena_pb2.GetLeaderboardRequest(game="toy", rules_version="toy-0")
    )
    assert list(older.lines) == [] and older.rules_version == "toy-0"


def test_the_fit_is_refitted_when_results_arrive(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("random", "alpha"))
    _play(running, ["random", "alpha"], rounds=2)
    first = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    assert first.fitted_results == first.matches == 4 and first.fitted_at
    _play(running, ["random", "alpha"], rounds=8, seed=2)
    # The refit runs in the background: the next reads serve the last fit until it is done.
    boards = []

    def refitted() -> bool:
        boards.append(running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy")))
        return boards[-1].matches == 20

    wait_until(refitted, 30, "the refit with the new results")
    later = boards[-1]
    assert all(b.matches in (4, 20) for b in boards)
    assert later.results_recorded == later.fitted_results == 20
    width = {b.matches: max(x.high - x.low for x in b.lines) for b in (first, later)}
    assert width[20] < width[4]  # more blocks, a narrower interval


def test_bots_that_never_met_are_published_as_groups(running: Running) -> None:
    """Two fields that never shared a table: two groups, ranks counted within each, and the
    joint rank ranges and anchor flags filled in."""
    bots = ("random", "alpha", "beta", "gamma")
    fakeworker.announce(running.worker_channel, ["toy"], bots=bots)
    _play(running, ["random", "alpha"], rounds=4)
    _play(running, ["beta", "gamma"], rounds=4, seed=2)
    board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    group = {line.bot_name: line.group for line in board.lines}
    assert board.groups == 2 and sorted(group.values()) == [0, 0, 1, 1]
    assert group["random"] == group["alpha"] == 0 and group["beta"] == group["gamma"] == 1
    for line in board.lines:
        assert 1 <= line.rank_low <= line.rank_high <= 2
        assert 1 <= line.joint_rank_low <= line.joint_rank_high <= 2
        assert line.position in (1, 2)
    anchors = [line.bot_name for line in board.lines if line.anchor]
    assert anchors == ([board.anchor_bot] if board.anchor_bot else [])
