"""Pure rules engines for Hamlet's games.

No I/O, no clock, no global random, no logging, no framework: see ``games/README.md``.

>>> import games
>>> state = games.get("village").new_game(num_players=3, seed=7)
>>> state.to_move()
0
"""

from games.chance import Chance, derive_seed
from games.core import (
    Action,
    GameSpec,
    IllegalAction,
    Result,
    State,
    action_from_dict,
    action_to_dict,
    competition_ranks,
)
from games.registry import get, names

__all__ = [
    "Action",
    "Chance",
    "GameSpec",
    "IllegalAction",
    "Result",
    "State",
    "action_from_dict",
    "action_to_dict",
    "competition_ranks",
    "derive_seed",
    "get",
    "names",
]
