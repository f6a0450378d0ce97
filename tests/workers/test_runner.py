"""The match runner with scripted bots: exact forfeit reasons, the match still completes."""

from __future__ import annotations

import pytest

import games
from games.replay import ranks_with_forfeits
from tests import toygame
from tests.workers.scripted import FakeClock, Scripted
from workers.model import BotKind, ForfeitReason, MatchPlan, SeatPlan
from workers.runner import EngineError, replay, run_match


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    toygame.register(monkeypatch)


def plan(seats: int = 3, seed: int = 11, game: str = toygame.NAME, bank: float = 2.0) -> MatchPlan:
    return MatchPlan(
        match_id="m-1",
        game=game,
        rules_version="",
        seed=seed,
        seats=tuple(SeatPlan(i, f"bot{i}", 1, BotKind.UPLOADED) for i in range(seats)),
        decision_time_s=1.0,
        time_bank_s=bank,
    )


@pytest.mark.parametrize(
    ("behaviour", "reason", "detail"),
    [
        ("crash", ForfeitReason.CRASH, "status 3"),
        ("raise", ForfeitReason.CRASH, "ZeroDivisionError"),
        ("illegal", ForfeitReason.ILLEGAL_ACTION, "legal indices"),
        ("negative", ForfeitReason.ILLEGAL_ACTION, "-1"),
        ("not_int", ForfeitReason.ILLEGAL_ACTION, "'0'"),
        ("garbage", ForfeitReason.BAD_OUTPUT, "DecisionResponse"),
        ("hang", ForfeitReason.TIMEOUT, "no answer"),
    ],
)
def test_a_faulty_seat_forfeits_and_the_match_completes(
    behaviour: str, reason: ForfeitReason, detail: str
) -> None:
    bad = Scripted(behaviour, fail_at=2, seed=1)
    clients = [Scripted(seed=0), bad, Scripted(seed=2)]
    record = run_match(plan(), clients)
    assert len(record.forfeits) == 1
    forfeit = record.forfeits[0]
    assert (forfeit.seat, forfeit.reason) == (1, reason)
    assert detail in forfeit.detail
    assert bad.closed and bad.asked == 3
    # Seat 1's third decision is the forfeit; it and everything after are fallback moves.
    seat1 = [d for d in record.decisions if d.player == 1]
    assert [d.by_fallback for d in seat1] == [False, False] + [True] * (len(seat1) - 2)
    assert record.decisions[forfeit.at_decision].player == 1
    assert record.ranks[1] == 2 and sorted(record.ranks[0::2]) in ([0, 1], [0, 0])
    # The log (fallback moves included) replays to the engine's scores.
    assert replay(record.game, record.seed, 3, record.decisions).scores == record.scores


def test_time_bank_absorbs_overruns_until_it_is_empty() -> None:
    clock = FakeClock()
    # Each decision takes 1.5s against a 1s deadline: 0.5s from a 2s bank each time,
    # so the bank is empty after 4 decisions and the 5th overrun is a timeout.
    slow = Scripted(clock=clock, seconds=1.5)
    record = run_match(plan(seats=2, bank=2.0), [slow, Scripted(seed=3)], clock=clock)
    assert [f.reason for f in record.forfeits] == [ForfeitReason.TIMEOUT]
    assert slow.asked == 5
    assert "bank" in record.forfeits[0].detail
    assert slow.timeouts[:3] == [3.0, 2.5, 2.0]  # the deadline grants what is left
    assert record.ranks[0] == 1


def test_a_decision_exactly_at_the_deadline_costs_nothing() -> None:
    clock = FakeClock()
    punctual = Scripted(clock=clock, seconds=1.0)
    record = run_match(plan(seats=2, bank=0.0), [punctual, Scripted()], clock=clock)
    assert record.forfeits == ()


def test_every_seat_forfeiting_still_completes() -> None:
    record = run_match(plan(), [Scripted("crash"), Scripted("illegal"), Scripted("hang")])
    assert {f.reason for f in record.forfeits} == {
        ForfeitReason.CRASH,
        ForfeitReason.ILLEGAL_ACTION,
        ForfeitReason.TIMEOUT,
    }
    assert record.ranks == (0, 0, 0)
    assert all(d.by_fallback for d in record.decisions)


def test_same_seed_same_bots_same_record() -> None:
    def once() -> tuple[object, ...]:
        record = run_match(plan(seed=5), [Scripted(seed=i) for i in range(3)])
        return record.scores, record.ranks, [d.action for d in record.decisions]

    assert once() == once()


def test_replay_reproduces_the_recorded_result_on_every_registered_game() -> None:
    import random

    from bots import registry
    from workers.clients import BuiltinClient

    for game in [toygame.NAME, *games.names()]:
        spec = games.get(game)
        n = spec.min_players
        clients = [BuiltinClient(registry.make("random", game, random.Random(i))) for i in range(n)]
        record = run_match(plan(seats=n, game=game, seed=21), clients)
        result = replay(game, 21, n, record.decisions)
        assert (result.scores, result.ranks) == (record.scores, record.ranks)


def test_engine_problems_are_not_blamed_on_bots() -> None:
    with pytest.raises(EngineError, match="unknown game"):
        run_match(plan(game="no_such_game"), [Scripted()] * 3)
    with pytest.raises(EngineError, match="played by"):
        run_match(plan(seats=5), [Scripted()] * 5)
    with pytest.raises(EngineError, match="rules"):
        bad = MatchPlan("m", toygame.NAME, "toy-0", 1, plan().seats, 1.0, 1.0)
        run_match(bad, [Scripted()] * 3)


def test_ranks_with_forfeits() -> None:
    assert ranks_with_forfeits((0, 1, 2, 3), set()) == (0, 1, 2, 3)
    assert ranks_with_forfeits((0, 1, 2, 3), {0}) == (3, 0, 1, 2)
    assert ranks_with_forfeits((1, 0, 1, 3), {1, 3}) == (0, 2, 0, 2)


class _Interrupt(Exception):  # noqa: N818 (stands for Celery's SoftTimeLimitExceeded)
    pass


def test_the_tasks_soft_limit_passes_through_a_bots_code() -> None:
    class Interrupted(Scripted):
        def decide(self, *args: object, **kwargs: object) -> int:
            raise _Interrupt

    with pytest.raises(_Interrupt):
        run_match(plan(seats=2), [Interrupted(), Scripted()], reraise=(_Interrupt,))
    # Without reraise it is the bot's crash.
    record = run_match(plan(seats=2), [Interrupted(), Scripted()])
    assert record.forfeits[0].reason is ForfeitReason.CRASH
