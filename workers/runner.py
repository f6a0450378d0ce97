"""The match runner: plays one match between seat clients, with no Celery, Redis or gRPC.

It drives the engine (``to_move`` / ``legal_actions`` / ``apply``) and asks the seat to
move for each decision, Kaggle style: every decision has a deadline, and time spent
beyond it comes out of the seat's bank for the whole match; a seat whose bank runs dry
times out. A seat that crashes, times out or answers an illegal index forfeits: the
reason is recorded, its bot is closed, and a fallback random policy (seeded from the
match seed) plays the seat to the end so the other seats' result still counts. Forfeited
seats are ranked last.

Every applied action goes into the decision log, fallback moves included, so
``(game, seed, seat count, log)`` replays the match exactly (:func:`replay`). The clock is
injected, so tests can make a bot "slow" without sleeping.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

import games
from bots.api import Decision
from games import Action, Result, State, derive_seed
from games.replay import LoggedStep, ranks_with_forfeits, replay_log
from workers.model import (
    BotError,
    Forfeit,
    ForfeitReason,
    InfrastructureError,
    LoggedDecision,
    MatchPlan,
    MatchRecord,
    SeatClient,
)
from workers.pause import PauseWatch, WorkerPausedError

#: Seconds from an arbitrary origin; only differences are used.
Clock = Callable[[], float]

#: Longest fault detail kept in a record.
MAX_DETAIL_CHARS = 500


class EngineError(InfrastructureError):
    """The engine misbehaved (or the match cannot be set up): an infrastructure fault.

    The worker voids the attempt instead of blaming a bot.
    """


class _Seat:
    """Mutable per-seat bookkeeping for one match."""

    __slots__ = ("asked", "bank_s", "client", "fallback", "forfeit")

    def __init__(self, client: SeatClient, bank_s: float, fallback: random.Random) -> None:
        self.client = client
        self.bank_s = bank_s
        self.fallback = fallback
        self.forfeit: Forfeit | None = None
        self.asked = 0  # this seat's decisions so far: the only counter a bot is told


def run_match(
    plan: MatchPlan,
    clients: Sequence[SeatClient],
    clock: Clock = time.monotonic,
    reraise: tuple[type[BaseException], ...] = (),
    pauses: PauseWatch | None = None,
) -> MatchRecord:
    """Play ``plan`` with ``clients[seat]`` in each seat and return the record.

    Raises :class:`EngineError` for faults that are not any bot's. Exceptions of the
    ``reraise`` types (the task's soft time limit) pass through a bot's ``decide`` instead
    of counting as that bot's crash. With ``pauses`` (the worker's progress clock), a
    decision that cost its bot time while the worker was paused raises
    :class:`~workers.pause.WorkerPausedError` instead of charging the bot.
    """
    if len(clients) != len(plan.seats):
        raise EngineError(f"{len(plan.seats)} seats but {len(clients)} clients")
    try:
        spec = games.get(plan.game)
        if plan.rules_version and plan.rules_version != spec.rules_version:
            raise EngineError(
                f"match wants {plan.game} rules {plan.rules_version}, "
                f"this worker has {spec.rules_version}"
            )
        state = spec.new_game(num_players=len(plan.seats), seed=plan.seed)
    except (KeyError, ValueError) as exc:
        raise EngineError(f"cannot start {plan.game}: {exc}") from exc

    seats = [
        _Seat(c, plan.time_bank_s, random.Random(derive_seed(plan.seed, "fallback", i)))
        for i, c in enumerate(clients)
    ]
    log: list[LoggedDecision] = []
    started = clock()
    while not state.is_over():
        if len(log) >= spec.max_decisions:
            raise EngineError(f"{plan.game} exceeded max_decisions={spec.max_decisions}")
        player = state.to_move()
        legal = state.legal_actions()
        if player is None or not legal:
            raise EngineError(f"{plan.game} has no player to move or no legal action")
        index, seconds, by_fallback = _ask(
            plan, seats[player], state, legal, len(log), clock, reraise, pauses
        )
        action = legal[index]
        try:
            state.apply(action)
        except games.IllegalAction as exc:  # the engine rejected its own legal action
            raise EngineError(f"engine rejected its legal action {action}: {exc}") from exc
        log.append(
            LoggedDecision(
                player=player,
                legal_count=len(legal),
                action=games.action_to_dict(action),
                action_text=str(action),
                seconds=seconds,
                by_fallback=by_fallback,
            )
        )
    result = state.result()
    forfeits = tuple(s.forfeit for s in seats if s.forfeit is not None)
    return MatchRecord(
        match_id=plan.match_id,
        game=plan.game,
        seed=plan.seed,
        scores=tuple(result.scores),
        ranks=ranks_with_forfeits(result.ranks, {f.seat for f in forfeits}),
        forfeits=forfeits,
        decisions=tuple(log),
        duration_s=max(0.0, clock() - started),
    )


def _ask(
    plan: MatchPlan,
    seat: _Seat,
    state: State,
    legal: Sequence[Action],
    decision_index: int,
    clock: Clock,
    reraise: tuple[type[BaseException], ...],
    pauses: PauseWatch | None = None,
) -> tuple[int, float, bool]:
    """(index into legal, seconds the bot took, whether the fallback chose)."""
    own_index = seat.asked
    seat.asked += 1
    if seat.forfeit is not None:
        return seat.fallback.randrange(len(legal)), 0.0, True
    player = state.to_move()
    assert player is not None  # checked by the caller
    time_left = plan.decision_time_s + max(0.0, seat.bank_s)
    decision = Decision(plan.game, player, own_index, time_left, plan.decision_time_s)
    fault: BotError | None = None
    index = -1
    wake = getattr(seat.client, "thaw", None)  # a frozen sandboxed seat wakes off its clock
    if wake is not None:
        wake()
    began = clock()
    paused_from = pauses.clock() if pauses is not None else 0.0
    try:
        index = seat.client.decide(state, legal, decision, time_left)
    except BotError as exc:
        fault = exc
    except InfrastructureError:
        raise
    except reraise:
        raise
    except Exception as exc:  # a built-in bot raising is a crash of that bot, not the worker
        fault = BotError(ForfeitReason.CRASH, f"{type(exc).__name__}: {exc}")
    seconds = max(0.0, clock() - began)
    costly = seconds > plan.decision_time_s or (
        fault is not None and fault.reason is ForfeitReason.TIMEOUT
    )
    if pauses is not None and costly:
        paused = pauses.paused(paused_from, pauses.clock())
        if paused > 0:
            raise WorkerPausedError(
                f"the worker was paused for {paused:.1f}s while seat {player} decided "
                f"(it took {seconds:.1f}s of {plan.decision_time_s:g}s): not the bot's time"
            )
    seat.bank_s -= max(0.0, seconds - plan.decision_time_s)
    if fault is None and seat.bank_s < 0:
        fault = BotError(
            ForfeitReason.TIMEOUT,
            f"took {seconds:.3f}s with {time_left:.3f}s left (deadline plus bank)",
        )
    if fault is None and not (
        isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(legal)
    ):
        fault = BotError(
            ForfeitReason.ILLEGAL_ACTION,
            f"answered index {index!r}; legal indices are 0..{len(legal) - 1}",
        )
    if fault is None:
        return index, seconds, False
    seat.forfeit = Forfeit(player, fault.reason, fault.detail[:MAX_DETAIL_CHARS], decision_index)
    seat.client.close()
    return seat.fallback.randrange(len(legal)), seconds, True


def replay(game: str, seed: int, num_players: int, decisions: Sequence[LoggedDecision]) -> Result:
    """The engine's result of replaying a logged match (forfeits not applied).

    Raises :class:`games.replay.LogMismatchError` (a ``ValueError``) if the log does not fit.
    """
    steps = [LoggedStep(d.player, d.action, d.legal_count) for d in decisions]
    return replay_log(games.get(game), num_players, seed, steps)
