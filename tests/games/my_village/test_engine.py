"""Engine contract specifics for My Village: named chance streams, hidden information and
determinization (the issue's item 3), speed-relevant clone independence."""

from __future__ import annotations

import json
import random

import games
from tests.games.my_village.helpers import act, new, options


def test_determinize_redraws_only_the_hidden_orders() -> None:
    st = new(4, seed=3)
    det = st.determinize(1, random.Random(5))
    assert det.observation(1) == st.observation(1)
    assert sorted(det.deck) == sorted(st.deck) and det.deck != st.deck
    for a, b in zip(det.monk_stacks + det.travel_stacks + det.craft_cols,
                    st.monk_stacks + st.travel_stacks + st.craft_cols, strict=True):  # fmt: skip
        assert a[-1:] == b[-1:] and sorted(a) == sorted(b)  # top cards stay
    assert det.display == st.display and det.church_col == st.church_col
    assert det.pool == st.pool and det.chance.seed != st.chance.seed


def test_observation_never_shows_hidden_orders() -> None:
    st = new(3, seed=2)
    text = json.dumps(st.observation(0))
    for card in st.deck:
        assert f'"{card}"' not in text
    for stack in st.monk_stacks + st.travel_stacks + st.craft_cols:
        for card in stack[:-1]:
            assert f'"{card}"' not in text


def test_named_streams_same_dice_after_diverging_choices() -> None:
    spec = games.get("my_village")
    a = spec.new_game(2, 9)
    b = spec.new_game(2, 9)
    first = a.legal_actions()
    a.apply(first[0])
    b.apply(first[-1])
    while a.round_no == 1:
        a.apply(a.legal_actions()[0])
    while b.round_no == 1:
        b.apply(b.legal_actions()[-1])
    assert a.round_no == b.round_no == 2
    assert a.pool == b.pool  # round 2 draws the same dice whatever was chosen in round 1


def test_replay_with_same_seed_and_actions_is_identical() -> None:
    spec = games.get("my_village")
    a = spec.new_game(3, 21)
    rng = random.Random(2)
    actions = []
    while not a.is_over():
        action = rng.choice(a.legal_actions())
        actions.append(action)
        a.apply(action)
    b = spec.new_game(3, 21)
    for action in actions:
        b.apply(action)
    assert b.result() == a.result() and b.public_state() == a.public_state()
    c = new(2)
    act(c, options(c)[0])
    assert c.to_move() is not None
