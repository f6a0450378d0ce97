"""Village (Inka & Markus Brand, 2011), base game for 2-4 players.

Rules: ``shared/rules/village.md`` (spec) and the Greek rulebook; the rulebook for bot
authors is ``docs/rules/village.md``, the rule coverage ``docs/rules/village-coverage.md``.
Data in :mod:`games.village.data`.
"""

from __future__ import annotations

from typing import ClassVar

from games.core import Action, GameSpec
from games.village.actions import ACTION_TYPES
from games.village.state import VillageState


class VillageSpec(GameSpec):
    """Static facts and the factory for Village."""

    name: ClassVar[str] = "village"
    display_name: ClassVar[str] = "Village"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    rules_version: ClassVar[str] = "village-1"
    max_decisions: ClassVar[int] = 6000
    action_types: ClassVar[tuple[type[Action], ...]] = ACTION_TYPES

    def _new_game(self, num_players: int, seed: int) -> VillageState:
        from games.village.flow import setup

        state = VillageState(num_players, seed)
        setup(state)
        state.settle()
        return state


SPEC = VillageSpec()

__all__ = ["SPEC", "VillageSpec", "VillageState"]
