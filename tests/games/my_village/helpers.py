"""Helpers to build and steer My Village positions in tests.

Tests start from a real game (``new``: a chosen first player, round 1, at his dice
decision), change the table by hand where needed (``give`` moves a card from the table to a
village so conservation still holds; plain fields such as ``v.coins`` are set directly),
call ``refresh`` after such edits (single-option decisions then auto-apply as in play),
and act through the public API with ``act`` (by the action's ``str()``), which fails
listing the legal options when the wanted one is missing. ``to_value`` steers the current
player's step I to a banner value with two white dice.
"""

from __future__ import annotations

import games
from games.my_village import data as md
from games.my_village import rounds, turn
from games.my_village.player import Village
from games.my_village.rounds import BLACK, Phase
from games.my_village.state import MyVillageState

PROF = {p.value: i for i, p in enumerate(md.PROFESSIONS)}


def new(n: int = 2, seed: int = 0, first: int = 0) -> MyVillageState:
    """A fresh game with ``first`` as first player (starting coins dealt by seat from him),
    at the first player's dice decision of round 1."""
    st = games.get("my_village").new_game(num_players=n, seed=seed)
    assert isinstance(st, MyVillageState)
    st.first_player = st.hand_holder = first
    for p, v in enumerate(st.villages):
        v.coins = md.START_COINS[(p - first) % n]
    st.turn_order = [(first + i) % n for i in range(n)] * st.rules.turns_per_player
    st.turn_idx = 0
    rounds.start_turn(st)
    refresh(st)
    return st


def turn_of(st: MyVillageState, player: int) -> None:
    """Make the current turn ``player``'s (a fresh step I), keeping the round."""
    st.turn_order[st.turn_idx] = player
    rounds.start_turn(st)
    refresh(st)


def refresh(st: MyVillageState) -> None:
    """Recompute the options after fields were set by hand (single options auto-apply)."""
    st._legal = None
    turn.settle(st)


def options(st: MyVillageState) -> list[str]:
    """The legal actions as text."""
    return [str(a) for a in st.legal_actions()]


def act(st: MyVillageState, text: str) -> None:
    """Apply the legal action whose ``str()`` is ``text``."""
    for action in st.legal_actions():
        if str(action) == text:
            st.apply(action)
            return
    raise AssertionError(f"{text!r} is not legal; options: {options(st)}")


def set_pool(st: MyVillageState, dice: str) -> None:
    """Replace the pool, e.g. ``"W1 B2 W4"``, and return to the dice decision."""
    st.pool = sorted(int(d[1:]) - 1 + (BLACK if d[0] == "B" else 0) for d in dice.split())
    st.phase = Phase.DICE
    refresh(st)


FILLER = "W5 W5 W6 W6 B1 B1"


def to_value(st: MyVillageState, value: int, extra: str = FILLER) -> None:
    """Steer the current player's step I to banner ``value`` with two white dice (the pool
    holds those two plus the ``extra`` dice, left for the next turns)."""
    a = min(6, value - 1)
    b = value - a
    set_pool(st, f"W{a} W{b} {extra}".strip())
    if st.phase is Phase.DICE:
        act(st, f"dice W{min(a, b)}+W{max(a, b)}")
    if st.phase is Phase.VALUE:
        act(st, f"value {value}")


def village(st: MyVillageState, player: int | None = None) -> Village:
    """The village of ``player`` (default: the player to move)."""
    return st.villages[st.player if player is None else player]


def give(st: MyVillageState, player: int, card: str) -> None:
    """Move ``card`` from the table into ``player``'s village (as if acquired, no effect)."""
    v = st.villages[player]
    if card in md.CHURCH_BY_ID:
        st.church_col.remove(card)
        v.church = card
    elif card in md.CHAMBER_BY_ID:
        st.council_col.remove(card)
        v.chamber = card
    elif card in md.CRAFT_BY_ID:
        craft = md.CRAFT_BY_ID[card]
        st.craft_cols[craft.good].remove(card)
        v.crafts[craft.good] = card
    elif card in md.MONK_BY_ID:
        for stack in st.monk_stacks:
            if card in stack:
                stack.remove(card)
        v.monks.append(card)
    elif card in md.TRAVEL_BY_ID:
        st.travel_stacks[md.TRAVEL_BY_ID[card].letter].remove(card)
        v.travel.append(card)
    elif card in md.CUSTOMER_BY_ID:
        if card in st.display:
            st.display.remove(card)
            if st.deck:
                st.display.append(st.deck.pop())
        else:
            st.deck.remove(card)
        v.waiting.append(card)
    elif card == "FIELD":
        st.field_stack -= 1
        v.fields.append(0)
    else:
        assert card == "MEETING_POINT"
        st.mp_stack -= 1
        v.meeting_point = True


def top(st: MyVillageState, stack: list[str], card: str) -> None:
    """Put ``card`` on top of ``stack`` (a monk or travel stack)."""
    stack.remove(card)
    stack.append(card)


def finish_turn(st: MyVillageState) -> None:
    """Play the current turn out with the chronicle (or END/STOP), burying abbots first."""
    start = (st.round_no, st.turn_idx)
    while (st.round_no, st.turn_idx) == start and not st.is_over():
        opts = options(st)
        for pick in ("chronicle", "end white banners", "stop picking"):
            if pick in opts:
                act(st, pick)
                break
        else:
            st.apply(st.legal_actions()[0])


def next_rat_roll(st: MyVillageState) -> int:
    """The next roll of the rat die (its own named stream, drawn here on a fresh copy)."""
    return rounds.roll(st.chance, "rat", st.rat_rolls, 1)[0] + 1


def end_now(st: MyVillageState) -> None:
    """Declare the game over here (for scoring tests)."""
    st.phase = Phase.OVER
    st._legal = []
