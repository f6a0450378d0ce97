"""Game setup (C.1: MV-SETUP-1..15), each shuffle from its own named chance stream
(``rounds.occasion``)."""

from __future__ import annotations

from games.chance import Chance
from games.my_village import rounds, turn
from games.my_village.data import (
    CHAMBERS,
    CHURCHES,
    CRAFTS,
    CUSTOMERS,
    DISPLAY_SIZE,
    FIELDS,
    LETTERS,
    MEETING_POINTS,
    MONK_SYMBOLS,
    MONKS,
    PLAY_VALUES,
    START_COINS,
    TRAVELS,
)
from games.my_village.player import Village
from games.my_village.rounds import occasion
from games.my_village.state import MyVillageState


def new_state(num_players: int, seed: int) -> MyVillageState:
    """A new game, positioned at the first real decision of round 1."""
    chance = Chance(seed)
    st = MyVillageState(num_players, chance)
    # MV-SETUP-12: a random village board each; MV-SETUP-13 / MV-GAP-17: random first player.
    rng = occasion(chance, "setup")
    boards = rng.sample(range(len(PLAY_VALUES)), num_players)
    first = rng.randrange(num_players)
    # MV-SETUP-14: 1, 2, 3, 4 coins clockwise from the first player; MV-SETUP-15: nothing else.
    st.villages = [
        Village(boards[p], PLAY_VALUES[boards[p]], START_COINS[(p - first) % num_players])
        for p in range(num_players)
    ]
    st.first_player = st.hand_holder = first
    st.hand_palm = True
    st.hand_sp = 0
    # MV-SETUP-4/-5: church and council chamber columns, shuffled, every card available.
    st.church_col = [c.id for c in CHURCHES]
    occasion(chance, "churches").shuffle(st.church_col)
    st.council_col = [c.id for c in CHAMBERS]
    occasion(chance, "council").shuffle(st.council_col)
    # MV-SETUP-6/-8: identical meeting points and fields in stacks.
    st.mp_stack = MEETING_POINTS
    st.field_stack = FIELDS
    # MV-SETUP-7: one shuffled stack per monk symbol; only the top card is available.
    st.monk_stacks = []
    for i, symbol in enumerate(MONK_SYMBOLS):
        stack = [m.id for m in MONKS if m.symbol is symbol]
        occasion(chance, "monks", i).shuffle(stack)
        st.monk_stacks.append(stack)
    # MV-SETUP-10: one shuffled stack per travel letter A..E.
    st.travel_stacks = []
    for i in range(len(LETTERS)):
        stack = [t.id for t in TRAVELS if t.letter == i]
        occasion(chance, "travel", i).shuffle(stack)
        st.travel_stacks.append(stack)
    # MV-SETUP-11: one column per craft kind, every card available.
    st.craft_cols = []
    for g in range(5):
        col = [c.id for c in CRAFTS if c.good == g]
        occasion(chance, "crafts", g).shuffle(col)
        st.craft_cols.append(col)
    # MV-SETUP-9: the customer deck and its display of 6.
    st.deck = [c.id for c in CUSTOMERS]
    occasion(chance, "customers").shuffle(st.deck)
    st.display = [st.deck.pop() for _ in range(DISPLAY_SIZE)]
    # MV-SETUP-1: the rat on the start space for the player count.
    st.rat = st.rules.rat_start
    rounds.start_round(st)
    turn.settle(st)
    return st
