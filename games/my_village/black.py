"""Black banners (C.6, C.9): which can be activated (MV-DP-3), their costs, the
overseer's picks (MV-DP-4), goods payment (MV-DP-5), card choices (MV-DP-7) and effects."""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.core import Action
from games.my_village.actions import MarkCategory, PayWith, PickCustomer, SchoolSpace, StopPicking
from games.my_village.data import (
    ABBOT,
    CATEGORIES,
    CHAMBER_BY_ID,
    CHRONICLE_TIME,
    CHURCH_BY_ID,
    COUNCILMAN,
    CRAFT_BY_ID,
    CRAFT_ONLY_TOP_VISIBLE,
    CRAFTSMAN,
    DISPLAY_SIZE,
    FIELD_ACQUIRE_COINS,
    FIELD_BLACK_TIME,
    FIELD_VALUES,
    GOOD_INDEX,
    HAND_TIME,
    HAND_VALUES,
    MONK_BY_ID,
    MONK_SYMBOLS,
    MP_BLACK_COINS,
    MP_BLACK_TIME,
    MP_BLACK_VALUES,
    OVERSEER_COST,
    OVERSEER_VALUES,
    PLOUGH,
    TRAVEL_BY_ID,
    TRAVELLER,
    WILDCARD_SPACES,
    ChamberAction,
    Source,
)
from games.my_village.player import Village
from games.my_village.rounds import Phase, pay_time

if TYPE_CHECKING:
    from games.my_village.state import MyVillageState

MONK_BANNERS = tuple(f"MONK_{s.name}" for s in MONK_SYMBOLS)

#: (time, coins, goods) of every card's black banner, built once from the data tables.
CARD_COST: dict[str, tuple[int, int, tuple[int, ...]]] = {
    **{c.id: (c.black_time, c.black_coins, ()) for c in CHURCH_BY_ID.values()},
    **{
        c.id: (c.black_time, c.black_coins, tuple(GOOD_INDEX[g] for g in c.black_goods))
        for c in CHAMBER_BY_ID.values()
    },
    **{c.id: (c.black_time, c.black_coins, ()) for c in CRAFT_BY_ID.values()},
    **{m.id: (m.time, m.coins, tuple(GOOD_INDEX[g] for g in m.goods)) for m in MONK_BY_ID.values()},
}
# MV-DP-5 asks one source per black banner: the data demands at most one good per banner
# (travel surcharges included); a data change adding more must extend the payment step.
if any(len(price[2]) > 1 for price in CARD_COST.values()):
    raise ValueError("a black banner demands more than one good: extend black.payment_options")


def _by_value(cards: dict[str, tuple[int, ...]]) -> dict[int, list[str]]:
    return {x: sorted(c for c, values in cards.items() if x in values) for x in range(2, 13)}


_CHURCHES_BY_VALUE = _by_value({c.id: c.values for c in CHURCH_BY_ID.values()})
_CHAMBERS_BY_VALUE = _by_value({c.id: c.values for c in CHAMBER_BY_ID.values()})


def hand_allowed(st: MyVillageState) -> bool:
    """MV-BLK-2: palm side only; the first player never with 3-4 players, and with 2
    players not in his first turn of the round."""
    if not st.hand_palm:
        return False
    p = st.player
    if p != st.first_player:
        return True
    return st.n == 2 and st.villages[p].turns_taken > 0


def cost(st: MyVillageState, banner: str) -> tuple[int, int, tuple[int, ...]]:
    """(time, coins, goods) of a black banner other than the overseer, travel surcharge
    included (MV-TRAVEL-2)."""
    v = st.villages[st.player]
    if banner == "HAND":
        return HAND_TIME, 0, ()
    if banner == "MEETING_POINT":
        return MP_BLACK_TIME, MP_BLACK_COINS, ()
    if banner == "FIELD":
        return FIELD_BLACK_TIME, 0, ()
    if banner == "TRAVEL":
        card = TRAVEL_BY_ID[st.travel_stacks[len(v.travel)][-1]]
        time, coins = card.time, card.coins
        goods: tuple[int, ...] = ()
        if v.travel:
            extra = TRAVEL_BY_ID[v.travel[-1]].surcharge
            time += extra.time
            coins += extra.coins
            if extra.good >= 0:
                goods = (extra.good,)
        return time, coins, goods
    if banner in MONK_BANNERS:
        return CARD_COST[st.monk_stacks[MONK_BANNERS.index(banner)][-1]]
    return CARD_COST[banner]


def _payable(st: MyVillageState, banner: str) -> bool:
    """MV-ACT-3: coins and goods can be paid in full (time always can, MV-GAP-18)."""
    return _affordable(st.villages[st.player], cost(st, banner))


def _affordable(v: Village, price: tuple[int, int, tuple[int, ...]]) -> bool:
    if price[1] > v.coins:
        return False
    return all(v.sources(g) for g in price[2])


def black_banners(st: MyVillageState, value: int) -> list[str]:
    """MV-DP-3 black options for banner value ``value``, in the canonical order:
    HAND, OVERSEER, card IDs (churches, chambers, crafts), MEETING_POINT, FIELD, MONK_*,
    TRAVEL (MV-BLK-1, MV-BLK-4, C.9, MV-GAP-14)."""
    v = st.villages[st.player]
    out: list[str] = []
    if value in HAND_VALUES and hand_allowed(st):
        out.append("HAND")
    if value in OVERSEER_VALUES and st.display:
        out.append("OVERSEER")  # MV-BLK-3: one customer (1 time) is always payable
    villagers = v.villagers
    if villagers[ABBOT] and not v.church:  # MV-CH-1
        out += [
            c
            for c in _CHURCHES_BY_VALUE[value]
            if c in st.church_col and _affordable(v, CARD_COST[c])
        ]
    if villagers[COUNCILMAN] and not v.chamber:  # MV-CC-1
        out += [
            c
            for c in _CHAMBERS_BY_VALUE[value]
            if c in st.council_col and _affordable(v, CARD_COST[c])
        ]
    if villagers[CRAFTSMAN]:  # MV-CRAFT-1: one building per kind
        cards = []
        for g, col in enumerate(st.craft_cols):
            if col and not v.crafts[g]:
                shown = col[-1:] if CRAFT_ONLY_TOP_VISIBLE else col
                cards += [
                    c
                    for c in shown
                    if value in CRAFT_BY_ID[c].values and _affordable(v, CARD_COST[c])
                ]
        if cards:
            out += sorted(cards)
    if (
        value in MP_BLACK_VALUES
        and st.mp_stack
        and v.villagers[COUNCILMAN]
        and not v.meeting_point  # MV-MP-1
        and v.coins >= MP_BLACK_COINS
    ):
        out.append("MEETING_POINT")
    if value in FIELD_VALUES and st.field_stack:  # MV-FIELD-1: no villager needed
        out.append("FIELD")
    if v.villagers[ABBOT] and len(v.monks) < v.monk_limit():  # MV-MONK-2
        for i, stack in enumerate(st.monk_stacks):
            if (
                stack
                and value in MONK_BY_ID[stack[-1]].values
                and _affordable(v, CARD_COST[stack[-1]])
            ):
                out.append(MONK_BANNERS[i])
    if v.villagers[TRAVELLER] and len(v.travel) < len(st.travel_stacks):  # MV-TRAVEL-1
        stack = st.travel_stacks[len(v.travel)]
        if stack and value in TRAVEL_BY_ID[stack[-1]].values and _payable(st, "TRAVEL"):
            out.append("TRAVEL")
    return out


def any_black(st: MyVillageState, value: int) -> bool:
    """True if some black banner can be activated with ``value`` (the common cases are
    checked first; the full list only when they fail)."""
    if value in FIELD_VALUES and st.field_stack:
        return True
    if value in OVERSEER_VALUES and st.display:
        return True
    return bool(black_banners(st, value))


def activate(st: MyVillageState, banner: str) -> bool:
    """Start a black banner (MV-BLK-4/-5); True when step II is complete."""
    if banner == "OVERSEER":
        st.phase = Phase.OVERSEER
        st.picks = []
        return False
    goods = cost(st, banner)[2]
    source = Source.BUILDING
    if goods:
        sources = st.villages[st.player].sources(goods[0])
        if len(sources) > 1:  # MV-DP-5: asked only when there is a real choice
            st.banner = banner
            st.phase = Phase.PAYMENT
            return False
        source = sources[0]
    return execute(st, banner, source)


def payment_options(st: MyVillageState) -> list[Action]:
    """MV-DP-5: the sources of the demanded good (MV-GAP-5)."""
    goods = cost(st, st.banner)[2]
    return [PayWith(s) for s in st.villages[st.player].sources(goods[0])]


def execute(st: MyVillageState, banner: str, source: Source) -> bool:
    """MV-ACT-4: pay time, then the extra cost, then perform the action. True when done."""
    p = st.player
    v = st.villages[p]
    time, coins, goods = cost(st, banner)
    pay_time(st, time)
    v.coins -= coins
    for g in goods:
        v.take_good(g, source)
    if banner == "HAND":  # MV-BLK-2
        v.sp_tree += st.hand_sp
        st.hand_sp = 0
        st.hand_holder = p
        st.hand_palm = False
    elif banner == "MEETING_POINT":  # B.14: one marker, the 2/12 tile
        st.mp_stack -= 1
        v.meeting_point = True
        v.mp_markers.append(st.round_no)
    elif banner == "FIELD":  # B.16: +1 coin; smithy ploughs move on (MV-GAP-7)
        st.field_stack -= 1
        v.fields.append(0)
        v.coins += FIELD_ACQUIRE_COINS
        v.place_ploughs()
    elif banner == "TRAVEL":  # MV-TRAVEL-3
        card = TRAVEL_BY_ID[st.travel_stacks[len(v.travel)].pop()]
        v.travel.append(card.id)
        v.sp_tree += card.sp
    elif banner in MONK_BANNERS:
        return _monk(st, st.monk_stacks[MONK_BANNERS.index(banner)].pop())
    elif banner in CHURCH_BY_ID:
        st.church_col.remove(banner)
        v.church = banner
    elif banner in CHAMBER_BY_ID:
        return _chamber(st, banner)
    else:  # MV-CRAFT-2: a craft building, producing one good at once
        craft = CRAFT_BY_ID[banner]
        st.craft_cols[craft.good].remove(banner)
        v.crafts[craft.good] = banner
        v.craft_goods[craft.good] += 1
        if craft.good == PLOUGH:
            v.place_ploughs()
    return True


def _monk(st: MyVillageState, card_id: str) -> bool:
    """MV-MONK-1: place the monk and apply its one-off effect (B.15)."""
    v = st.villages[st.player]
    monk = MONK_BY_ID[card_id]
    v.monks.append(card_id)
    if monk.save_sp:  # MV-GAP-6: always as many as possible
        moved = min(monk.save_sp, v.sp_tree)
        v.sp_tree -= moved
        v.sp_house += moved
    v.coins += monk.gain_coins
    v.sp_tree += monk.gain_sp
    if monk.school:
        empty = [i for i in (0, 1) if not v.school[i]]
        if len(empty) == 2:  # MV-DP-7: LEFT or RIGHT
            st.choice_kind = "school"
            st.phase = Phase.CHOICE
            return False
        if empty:
            v.school[empty[0]] = True
        # MV-GAP-12: with a full school the effect lapses.
    return True


def _chamber(st: MyVillageState, card_id: str) -> bool:
    """MV-CC-1: place the council chamber and apply its acquisition action (B.13)."""
    v = st.villages[st.player]
    st.council_col.remove(card_id)
    v.chamber = card_id
    ch = CHAMBER_BY_ID[card_id]
    if ch.action is ChamberAction.COINS:
        v.coins += ch.amount
    elif ch.action is ChamberAction.WILDCARD:
        v.wildcards = min(WILDCARD_SPACES, v.wildcards + 1)
    elif ch.action is ChamberAction.SAVE_SP:
        moved = min(ch.amount, v.sp_tree)
        v.sp_tree -= moved
        v.sp_house += moved
    else:  # land registry: the first marker's category is asked (MV-DP-7, R-32)
        st.choice_kind = "registry"
        st.phase = Phase.CHOICE
        return False
    return True


def choice_options(st: MyVillageState) -> list[Action]:
    """MV-DP-7 options."""
    v = st.villages[st.player]
    if st.choice_kind == "registry":
        return [MarkCategory(c) for i, c in enumerate(CATEGORIES) if not v.registry[i]]
    return [SchoolSpace(False), SchoolSpace(True)]


def choose(st: MyVillageState, action: Action) -> None:
    """Apply an MV-DP-7 choice."""
    v = st.villages[st.player]
    if isinstance(action, MarkCategory):
        v.registry[CATEGORIES.index(action.category)] = True
    else:
        assert isinstance(action, SchoolSpace)
        v.school[1 if action.right else 0] = True


def overseer_options(st: MyVillageState) -> list[Action]:
    """MV-DP-4: a display card after the last pick, or STOP once one is picked; a further
    pick only if the larger set's coins can be paid: at most 4, at most 2 without a coin
    (MV-GAP-4, B.9)."""
    picks = st.picks
    n = len(picks)
    out: list[Action] = []
    nxt = OVERSEER_COST.get(n + 1)
    if nxt is not None and nxt[0] <= st.villages[st.player].coins:
        start = st.display.index(picks[-1]) + 1 if picks else 0
        out = [PickCustomer(c) for c in st.display[start:]]
    if n:
        out.append(StopPicking())
    return out


def finish_overseer(st: MyVillageState) -> None:
    """MV-BLK-3: pay per B.9, move the picks to the waiting row, refill the display."""
    v = st.villages[st.player]
    coins, time = OVERSEER_COST[len(st.picks)]
    pay_time(st, time)
    v.coins -= coins
    for card in st.picks:
        st.display.remove(card)
        v.waiting.append(card)
        v.new_customers.append(card)  # MV-CUST-4
    refill(st)


def refill(st: MyVillageState) -> None:
    """Refill the display to 6 from the deck; an empty deck stops refills (MV-CUST-2)."""
    while len(st.display) < DISPLAY_SIZE and st.deck:
        st.display.append(st.deck.pop())


def chronicle(st: MyVillageState) -> None:
    """MV-SP-4: pay 1 time, move every story tree SP into the main house."""
    v = st.villages[st.player]
    pay_time(st, CHRONICLE_TIME)
    v.sp_house += v.sp_tree
    v.sp_tree = 0
