"""Rated time controls: the one decision limit and time bank each game's rated play uses.

A leaderboard compares bots only if they played under the same clock, so every rated match of a
game (rated tournaments, the ladder) is played at that game's published time control, from
configuration (``HAMLET_RATED_TIME_CONTROL``), and a rated request that names another is
refused. Unrated events choose their own limit (the bank is then
:data:`TIME_BANK_FACTOR` times it).

The setting is a comma-separated list of ``[GAME=]DECISION_MS[/BANK_MS]`` items: the item
without a game is the default for every game (``1000/10000`` when there is none), an item with
a game overrides it for that game, and a bank left out is ``TIME_BANK_FACTOR`` decisions. For
example ``1000/10000,village=500/5000``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: The per-decision limit's bounds (as any tournament's: ``tournaments.MAX_DECISION_MS``).
MIN_DECISION_MS = 1
MAX_DECISION_MS = 60_000
#: The bank's upper bound: ten minutes of overruns per seat.
MAX_BANK_MS = 600_000
#: Each seat's time bank for overruns, as a multiple of the per-decision limit, when a bank is
#: not named (as ``tournaments.TIME_BANK_FACTOR``).
TIME_BANK_FACTOR = 10
#: What ``HAMLET_RATED_TIME_CONTROL`` is when it is not set.
DEFAULT_SPEC = "1000/10000"
VARIABLE = "HAMLET_RATED_TIME_CONTROL"


class TimeControlError(ValueError):
    """A time control that cannot be used; the message says what to write instead."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Each decision's limit and a bank per seat for overruns, in milliseconds."""

    decision_ms: int
    bank_ms: int

    def __str__(self) -> str:
        return f"{self.decision_ms}/{self.bank_ms}"

    def describe(self) -> str:
        """For people: ``1000 ms per decision, a 10000 ms bank``."""
        return f"{self.decision_ms} ms per decision, a {self.bank_ms} ms bank"

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``DECISION_MS[/BANK_MS]``: e.g. ``1000/10000``, or ``1000`` (bank 10 times it)."""
        decision_text, _, bank_text = text.strip().partition("/")
        try:
            decision = int(decision_text)
            bank = int(bank_text) if bank_text.strip() else decision * TIME_BANK_FACTOR
        except ValueError:
            raise TimeControlError(
                f"bad time control {text.strip()!r}: write DECISION_MS/BANK_MS, e.g. 1000/10000"
            ) from None
        if not MIN_DECISION_MS <= decision <= MAX_DECISION_MS:
            raise TimeControlError(
                f"bad time control {text.strip()!r}: the decision limit must be "
                f"{MIN_DECISION_MS}..{MAX_DECISION_MS} ms"
            )
        if not 0 <= bank <= MAX_BANK_MS:
            raise TimeControlError(
                f"bad time control {text.strip()!r}: the bank must be 0..{MAX_BANK_MS} ms"
            )
        return cls(decision, bank)


STANDARD = TimeControl(1000, 10_000)


@dataclass(frozen=True, slots=True)
class RatedTimeControls:
    """The time control of each game's rated play: a default and per-game overrides."""

    default: TimeControl = STANDARD
    overrides: tuple[tuple[str, TimeControl], ...] = ()

    def for_game(self, game: str) -> TimeControl:
        """The time control rated ``game`` matches are played at."""
        return next((tc for name, tc in self.overrides if name == game), self.default)

    def __str__(self) -> str:
        return ",".join([str(self.default), *(f"{g}={tc}" for g, tc in self.overrides)])

    def check_games(self, known: Iterable[str]) -> None:
        """Raise :class:`TimeControlError` if an override names a game that is not known."""
        names = set(known)
        for game, _ in self.overrides:
            if game not in names:
                raise TimeControlError(
                    f"no game {game!r} to give a time control to; known games: "
                    f"{', '.join(sorted(names))}"
                )

    @classmethod
    def parse(cls, text: str) -> RatedTimeControls:
        """``[GAME=]DECISION_MS[/BANK_MS],...`` (empty: the standard ``1000/10000``)."""
        default: TimeControl | None = None
        overrides: dict[str, TimeControl] = {}
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            game, eq, spec = item.partition("=")
            if not eq:
                game, spec = "", item
            if eq and not game.strip():
                raise TimeControlError(f"bad item {item!r}: write GAME=DECISION_MS/BANK_MS")
            tc = TimeControl.parse(spec)
            if not eq:
                if default is not None:
                    raise TimeControlError(
                        f"two default time controls ({default} and {tc}): give other games "
                        "theirs as GAME=DECISION_MS/BANK_MS"
                    )
                default = tc
            elif game.strip() in overrides:
                raise TimeControlError(f"game {game.strip()!r} is given two time controls")
            else:
                overrides[game.strip()] = tc
        return cls(default or STANDARD, tuple(sorted(overrides.items())))
