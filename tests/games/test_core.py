"""The engine API's shared pieces (games/core.py)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import pytest

import games
from games.core import action_from_dict, action_to_dict, competition_ranks


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Take(games.Action):
    space: int
    colour: Colour
    coins: tuple[int, ...]
    last: bool


def test_action_dict_round_trip() -> None:
    action = Take(3, Colour.BLUE, (1, 0), True)
    data = action_to_dict(action)
    assert data == {"type": "Take", "space": 3, "colour": "blue", "coins": [1, 0], "last": True}
    assert action_from_dict([Take], data) == action


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "Nope"}, "unknown action type"),
        ({"type": "Take", "space": 1, "colour": "red", "coins": []}, "needs field 'last'"),
        ({"type": "Take", "space": "1", "colour": "red", "coins": [], "last": 1}, "integer"),
        ({"type": "Take", "space": 1, "colour": "green", "coins": [], "last": True}, "not one of"),
        (
            {"type": "Take", "space": 1, "colour": "red", "coins": [], "last": True, "x": 1},
            "no field",
        ),
    ],
)
def test_malformed_action_dicts_are_clear_errors(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        action_from_dict([Take], data)


def test_competition_ranks_share_ties_and_skip() -> None:
    assert competition_ranks([(5, 1), (7, 0), (5, 1), (2, 9)]) == (1, 0, 1, 3)
    assert games.Result((1, 1), (0, 0)).winners == (0, 1)
