"""Farmaria (Nikolaos Vardakis), a Greek farm card game for 2-6 players.

Rules: ``../shared/rules/farmaria.md`` (rule IDs ``FM-*``); data in :mod:`.data` (the values
the spec reconstructs are marked there). ``SPEC.new_game(n, seed)`` deals characters at
random; :meth:`FarmariaSpec.new_variant` offers the setup variants (chosen characters, given
characters, Tasos telling a player, a longer year limit).
"""

from __future__ import annotations

from typing import ClassVar

from games.core import Action, GameSpec
from games.farmaria import data, flow, rules
from games.farmaria.actions import ACTION_TYPES, CHARACTER_NAMES, CharacterName
from games.farmaria.state import FarmariaState


class FarmariaSpec(GameSpec):
    """Farmaria behind the engine API."""

    name: ClassVar[str] = "farmaria"
    display_name: ClassVar[str] = "Farmaria"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    # 2: stables may be demolished in 4a too (the Greek, FM-AMB-29);
    # 3: a demolished stable's animals go to another field or are sold (the Greek, FM-AMB-46)
    rules_version: ClassVar[str] = "farmaria-3"
    max_decisions: ClassVar[int] = 20000
    action_types: ClassVar[tuple[type[Action], ...]] = ACTION_TYPES

    def _new_game(self, num_players: int, seed: int) -> FarmariaState:
        return self.new_variant(num_players, seed)

    def new_variant(
        self,
        num_players: int,
        seed: int,
        *,
        characters: tuple[CharacterName, ...] | None = None,
        choose_characters: bool = False,
        tasos_may_tell: bool = False,
        year_limit: int | None = None,
    ) -> FarmariaState:
        """A new game with setup options (FM-SETUP-2, FM-DEC-3/4, FM-END-4)."""
        if not self.min_players <= num_players <= self.max_players:
            raise ValueError(f"farmaria is played by 2 to 6 players, not {num_players}")
        s = FarmariaState(num_players, seed)
        s.tell_variant = tasos_may_tell
        if year_limit is not None:
            s.year_limit = year_limit
        chars = None
        if characters is not None:
            if len(characters) != num_players or len(set(characters)) != num_players:
                raise ValueError("one distinct character per player is needed")
            chars = [CHARACTER_NAMES.index(c) for c in characters]
        flow.setup(s, chars, choose_characters)
        rules.settle(s)
        return s


SPEC = FarmariaSpec()

__all__ = ["SPEC", "FarmariaSpec", "FarmariaState", "data"]
