"""Replaying a logged match through its engine, and ranking forfeited seats last.

Workers use this to check their own logs and the server to verify a reported result before
it becomes final: the same pure code on both sides, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.core import Action, GameSpec, IllegalAction, Result


class LogMismatchError(ValueError):
    """A decision log that this engine cannot have produced."""


@dataclass(frozen=True, slots=True)
class LoggedStep:
    """One logged decision: who chose, what, and how many options they had (if known)."""

    player: int
    action: Mapping[str, Any]
    legal_count: int | None = None


def replay_log(spec: GameSpec, num_players: int, seed: int, steps: Sequence[LoggedStep]) -> Result:
    """The engine's result of playing ``steps`` from ``(num_players, seed)``.

    Raises :class:`LogMismatchError` naming the first decision that does not fit: the wrong
    player to move, a different number of legal options, an action that is not legal or not
    an action of this game, a log that goes past the end or stops before it.
    """
    state = spec.new_game(num_players=num_players, seed=seed)
    # Actions are values: a step whose action is the very same mapping as an earlier one's
    # (callers share the parsed form of repeated actions) reuses the action built for it.
    built: dict[int, Action] = {}
    for i, step in enumerate(steps):
        if state.is_over():
            raise LogMismatchError(f"decision {i}: the game was already over")
        if state.to_move() != step.player:
            raise LogMismatchError(
                f"decision {i}: the log says player {step.player}, the engine {state.to_move()}"
            )
        legal = state.legal_actions()
        if step.legal_count is not None and step.legal_count != len(legal):
            raise LogMismatchError(
                f"decision {i}: the log says {step.legal_count} options, the engine {len(legal)}"
            )
        try:
            action = built.get(id(step.action))
            if action is None:
                action = built[id(step.action)] = spec.action_from_dict(step.action)
            state.apply(action)
        except IllegalAction as exc:
            raise LogMismatchError(f"decision {i}: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise LogMismatchError(f"decision {i}: not an action of {spec.name}: {exc}") from None
    if not state.is_over():
        raise LogMismatchError(f"the log ends after {len(steps)} decisions; the game is not over")
    return state.result()


def ranks_with_forfeits(ranks: Sequence[int], forfeited: set[int]) -> tuple[int, ...]:
    """Competition ranks where forfeited seats share the last place.

    The others keep their engine order among themselves: a seat's rank is the number of
    non-forfeited seats the engine ranked strictly better.
    """
    playing = [p for p in range(len(ranks)) if p not in forfeited]
    out = []
    for p in range(len(ranks)):
        if p in forfeited:
            out.append(len(playing))
        else:
            out.append(sum(1 for q in playing if ranks[q] < ranks[p]))
    return tuple(out)
