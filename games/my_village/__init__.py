"""My Village (2-4 players), the dice sequel of Village, played by ``shared/rules/my-village.md``.

Card data (much of it reconstructed, see ``docs/rules/my-village-coverage.md``) lives in
:mod:`games.my_village.data`; the decisions are those of the spec's C.18.
"""

from __future__ import annotations

from typing import ClassVar

from games.core import Action, GameSpec, State
from games.my_village.actions import ACTION_TYPES
from games.my_village.setup import new_state
from games.my_village.state import MyVillageState


class MyVillageSpec(GameSpec):
    """Static facts about My Village and its game factory."""

    name: ClassVar[str] = "my_village"
    display_name: ClassVar[str] = "My Village"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    rules_version: ClassVar[str] = "my_village-1"  # the spec after its Part F revision
    #: 100 rounds (MV-GAP-16) x 4 turns x 100 decisions (a white sequence can serve
    #: every waiting customer), a true upper bound.
    max_decisions: ClassVar[int] = 40_000
    action_types: ClassVar[tuple[type[Action], ...]] = ACTION_TYPES

    def _new_game(self, num_players: int, seed: int) -> State:
        return new_state(num_players, seed)


SPEC = MyVillageSpec()

__all__ = ["SPEC", "MyVillageSpec", "MyVillageState"]
