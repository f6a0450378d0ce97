"""The engine API every game implements.

A game is a :class:`GameSpec` (static facts and a factory) plus a :class:`State`
(one position of one game, mutated by :meth:`State.apply`). Runners, bots, tests and
tools only ever use the names defined here, so the three games are interchangeable
to them. See ``games/README.md`` for the contract in prose.
"""

from __future__ import annotations

import dataclasses
import enum
import random
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

#: JSON-like data: what observations, public states and encoded actions are made of.
JSON = Any


class IllegalAction(ValueError):  # noqa: N818 (the name is part of the engine API contract)
    """Raised by :meth:`State.apply` when the action is not in ``legal_actions()``."""


class Action:
    """Base of every game's action values.

    Subclasses are ``@dataclass(frozen=True, slots=True)`` with fields of type ``int``,
    ``bool``, ``str``, a ``str``-valued :class:`enum.Enum`, or tuples of those. That keeps
    them hashable, comparable and convertible to and from plain dicts (:func:`action_to_dict`),
    which is what the wire codec builds on. ``str()`` gives a short readable form.
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Result:
    """Final outcome of a game.

    ``scores[p]`` is player p's final score; ``ranks[p]`` is 0 for the winner(s), ties share
    a rank and the next rank skips (competition ranking: 0, 0, 2). ``detail`` holds the
    per-player score breakdown and tie-break values for humans and replays.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    detail: tuple[Mapping[str, int], ...] = ()

    @property
    def winners(self) -> tuple[int, ...]:
        """Players ranked first."""
        return tuple(p for p, r in enumerate(self.ranks) if r == 0)


def competition_ranks(keys: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """Rank players by descending key tuples; equal keys share a rank (0, 0, 2, ...)."""
    return tuple(sum(1 for other in keys if other > mine) for mine in keys)


class State(ABC):
    """One position of one game. Mutable; :meth:`clone` gives an independent copy."""

    @abstractmethod
    def to_move(self) -> int | None:
        """The one player who must decide now; ``None`` once the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every distinct legal choice of :meth:`to_move`, once each, in a stable order.

        Never empty before the end. A decision with one option is never asked: the engine
        applies it itself.
        """

    @abstractmethod
    def apply(self, action: Action) -> None:
        """Play ``action`` for :meth:`to_move`; raise :class:`IllegalAction` if not legal."""

    @abstractmethod
    def is_over(self) -> bool:
        """True once final scoring is done."""

    @abstractmethod
    def result(self) -> Result:
        """Final scores and ranks after the rulebook's tie-breakers (only when over)."""

    @abstractmethod
    def observation(self, player: int) -> dict[str, JSON]:
        """Everything ``player`` may see, and nothing else, as JSON-like data."""

    @abstractmethod
    def public_state(self) -> dict[str, JSON]:
        """What a spectator sees: the public part common to every observation."""

    @abstractmethod
    def clone(self) -> State:
        """An independent deep copy (its future chance included)."""

    @abstractmethod
    def determinize(self, player: int, rng: random.Random) -> State:
        """A clone where everything hidden from ``player`` is re-drawn consistently with
        what he saw, and every future chance stream is re-seeded from ``rng``."""

    @abstractmethod
    def conserved_totals(self) -> dict[str, int]:
        """Totals that never change in a game (pieces in supply + board + players).

        Used by the conformance suite to check conservation after every action.
        """

    @property
    @abstractmethod
    def num_players(self) -> int:
        """Number of seats at the table."""

    def check_legal(self, action: Action) -> None:
        """Raise :class:`IllegalAction` naming ``action`` unless it is legal now."""
        if self.is_over():
            raise IllegalAction(f"{action} is not legal: the game is over")
        if action not in self.legal_actions():
            raise IllegalAction(f"{action} is not legal for player {self.to_move()} now")


S = TypeVar("S", bound=State)


class GameSpec(ABC):
    """Static facts about a game and the factory for new games."""

    name: ClassVar[str]
    display_name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    rules_version: ClassVar[str]
    #: Upper bound on decisions in one game, for runners and the conformance suite.
    max_decisions: ClassVar[int]
    #: Every concrete action class of the game (for codecs and round-trip tests).
    action_types: ClassVar[tuple[type[Action], ...]]

    def new_game(self, num_players: int, seed: int) -> State:
        """A new game for ``num_players`` seats; same seed and actions give the same game."""
        if not isinstance(num_players, int) or not (
            self.min_players <= num_players <= self.max_players
        ):
            raise ValueError(
                f"{self.name} is played by {self.min_players} to {self.max_players} players, "
                f"not {num_players!r}"
            )
        return self._new_game(num_players, seed)

    @abstractmethod
    def _new_game(self, num_players: int, seed: int) -> State:
        """Build the initial state; player count already validated."""

    def action_from_dict(self, data: Mapping[str, JSON]) -> Action:
        """Inverse of :func:`action_to_dict` for this game's action types."""
        return action_from_dict(self.action_types, data)


def action_to_dict(action: Action) -> dict[str, JSON]:
    """``{"type": ClassName, field: value, ...}`` with enums as their values, tuples as lists."""
    out: dict[str, JSON] = {"type": type(action).__name__}
    for f in dataclasses.fields(action):  # type: ignore[arg-type]
        out[f.name] = _plain(getattr(action, f.name))
    return out


def _plain(value: object) -> JSON:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def action_from_dict(types: Sequence[type[Action]], data: Mapping[str, JSON]) -> Action:
    """Rebuild an action from :func:`action_to_dict` output; ``ValueError`` if malformed."""
    by_name = {t.__name__: t for t in types}
    kind = data.get("type")
    cls = by_name.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown action type {kind!r}; expected one of {sorted(by_name)}")
    hints = _field_types(cls)
    kwargs: dict[str, Any] = {}
    for name, typ in hints.items():
        if name not in data:
            raise ValueError(f"{cls.__name__} needs field {name!r}")
        kwargs[name] = _coerce(typ, data[name], f"{cls.__name__}.{name}")
    extra = set(data) - set(hints) - {"type"}
    if extra:
        raise ValueError(f"{cls.__name__} has no field(s) {sorted(extra)}")
    return cls(**kwargs)


def _field_types(cls: type[Action]) -> dict[str, Any]:
    # Resolving string annotations costs far more than the rest of a decode; action classes
    # never change, so each is resolved once.
    found = _FIELD_TYPES.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        found = {f.name: hints[f.name] for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        _FIELD_TYPES[cls] = found
    return found


_FIELD_TYPES: dict[type[Action], dict[str, Any]] = {}


def _coerce(typ: Any, value: JSON, where: str) -> Any:
    origin = typing.get_origin(typ)
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{where} must be a list")
        inner = typing.get_args(typ)[0]
        return tuple(_coerce(inner, v, where) for v in value)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(typ) if a is not type(None)]
        if value is None:
            return None
        return _coerce(options[0], value, where)
    if isinstance(typ, type) and issubclass(typ, enum.Enum):
        try:
            return typ(value)
        except ValueError:
            raise ValueError(f"{where}: {value!r} is not one of {[m.value for m in typ]}") from None
    if typ is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{where} must be a boolean")
        return value
    if typ is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where} must be an integer")
        return value
    if typ is str:
        if not isinstance(value, str):
            raise ValueError(f"{where} must be a string")
        return value
    raise ValueError(f"{where}: unsupported field type {typ!r}")
