"""White banners (C.7, C.8, C.9): the options of MV-DP-6 and their effects, the school,
customers and their payment ways, and the free wildcard move (MV-GAP-8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.core import Action
from games.my_village.actions import EndWhite, MoveWildcard, White, WhiteBanner
from games.my_village.data import (
    ABBOT,
    CATEGORIES,
    CHAMBER_BY_ID,
    CHURCH_BY_ID,
    COUNCILMAN,
    CRAFT_BY_ID,
    CRAFTSMAN,
    CUSTOMER_BY_ID,
    FIELD_PLOUGH_BONUS,
    FIELD_VALUES,
    FIELD_WHITE_COINS,
    FIELD_WHITE_TIME,
    GOODS,
    MERCHANT,
    MP_CAPACITY,
    MP_WHITE_COINS,
    MP_WHITE_TIME,
    MP_WHITE_VALUES,
    PLAY_SP,
    PLAY_TIME,
    PLOUGH,
    PROFESSIONS,
    REGISTRY_MARKERS,
    SCHOOL_MOVE_TIME,
    SCHOOL_RIGHT_SP,
    SCHOOL_VALUES,
    WILDCARD_SPACES,
    ChamberAction,
    ChurchAction,
    Source,
)
from games.my_village.player import PLOUGHED, USED, Village
from games.my_village.rounds import pay_time

if TYPE_CHECKING:
    from games.my_village.state import MyVillageState

_GOOD_NAMES = tuple(g.value for g in GOODS)
_TO = tuple(p.name for p in PROFESSIONS)


def school_choices(v: Village) -> list[str]:
    """MV-SCH-2..6: the school outcomes allowed now (empty list: not activatable)."""
    left, right = v.school
    empty = [_TO[i] for i in range(5) if not v.villagers[i]]
    if not left and not right:
        return ["NEW_LEFT"]  # MV-SCH-2
    if left and not right:
        return ["LEFT_TO_RIGHT"] + [f"LEFT_TO_{x}" for x in empty]  # MV-SCH-3
    if right and not left:
        return ["NEW_LEFT"] + [f"RIGHT_TO_{x}" for x in empty]  # MV-SCH-4
    return [f"LEFT_TO_{x}" for x in empty] + [f"RIGHT_TO_{x}" for x in empty]  # MV-SCH-5


def payment_ways(v: Village, goods: tuple[int, ...]) -> list[tuple[Source, ...]]:
    """Each distinct way to pay ``goods`` (sorted good indices) from the player's sources:
    the craft building of the good, ploughs on fields (ploughs only), wildcards
    (MV-GOODS-3, MV-DP-6, MV-GAP-5). One source per demanded good, in goods order."""
    groups: list[tuple[int, int]] = []
    for g in goods:
        if groups and groups[-1][0] == g:
            groups[-1] = (g, groups[-1][1] + 1)
        else:
            groups.append((g, 1))
    out: list[tuple[Source, ...]] = []
    ploughed = v.ploughed_fields()

    def rec(gi: int, wild: int, acc: tuple[Source, ...]) -> None:
        if gi == len(groups):
            out.append(acc)
            return
        g, n = groups[gi]
        fields = ploughed if g == PLOUGH else 0
        for nb in range(min(n, v.craft_goods[g]), -1, -1):
            for nf in range(min(n - nb, fields), -1, -1):
                nw = n - nb - nf
                if nw <= wild:
                    part = (Source.BUILDING,) * nb + (Source.FIELD,) * nf
                    rec(gi + 1, wild - nw, acc + part + (Source.WILDCARD,) * nw)

    rec(0, v.wildcards, ())
    return out


def white_options(st: MyVillageState, value: int, printed_only: bool = False) -> list[Action]:
    """MV-DP-6 banner options for ``value`` in the canonical order (MV-WHT-1..3). With
    ``printed_only``, "?" customers are left out (the MV-GAP-3 check)."""
    v = st.villages[st.player]
    used = st.white_used
    out: list[Action] = []
    if value in v.play_values and "PLAY" not in used:  # MV-WHT-5
        out.append(White(WhiteBanner.PLAY))
    if value in SCHOOL_VALUES and "SCHOOL" not in used:  # MV-SCH-1
        out += [White(WhiteBanner.SCHOOL, c) for c in school_choices(v)]
    villagers = v.villagers
    if v.church and villagers[ABBOT] and "CHURCH" not in used:  # MV-WHT-2
        church = CHURCH_BY_ID[v.church]
        if value in church.values:
            if church.white_action is ChurchAction.CUSTOMER:  # MV-GAP-14: needs a display
                out += [White(WhiteBanner.CHURCH, c) for c in st.display]
            else:
                out.append(White(WhiteBanner.CHURCH))
    if v.chamber and villagers[COUNCILMAN] and "CHAMBER" not in used:
        ch = CHAMBER_BY_ID[v.chamber]
        if value in ch.values:
            if ch.action is ChamberAction.REGISTRY:  # MV-GAP-13
                if sum(v.registry) < REGISTRY_MARKERS:
                    out += [
                        White(WhiteBanner.CHAMBER, c.value)
                        for i, c in enumerate(CATEGORIES)
                        if not v.registry[i]
                    ]
            elif ch.action is not ChamberAction.WILDCARD or v.wildcards < WILDCARD_SPACES:
                out.append(White(WhiteBanner.CHAMBER))
    if (
        v.meeting_point
        and villagers[COUNCILMAN]
        and value in MP_WHITE_VALUES
        and "MP" not in used
        and v.coins >= MP_WHITE_COINS
        and len(v.mp_markers) < MP_CAPACITY  # MV-GAP-13
    ):
        out.append(White(WhiteBanner.MEETING_POINT))
    if v.fields and value in FIELD_VALUES:  # MV-GAP-9: one option per field state
        states = {f for f in v.fields if not f & USED}
        if PLOUGHED in states:
            out.append(White(WhiteBanner.FIELD_PLOUGHED))
        if 0 in states:
            out.append(White(WhiteBanner.FIELD_BARE))
    if villagers[CRAFTSMAN]:
        for g, cid in enumerate(v.crafts):
            if (
                cid
                and value in CRAFT_BY_ID[cid].values
                and f"CRAFT:{g}" not in used
                and v.craft_goods[g] < CRAFT_BY_ID[cid].spaces  # MV-CRAFT-2
            ):
                out.append(White(WhiteBanner.CRAFT, _GOOD_NAMES[g]))
    if villagers[MERCHANT] and v.waiting:  # MV-CUST-3
        for cid in v.waiting:
            if cid in v.new_customers:  # MV-CUST-4, MV-GAP-10
                continue
            cust = CUSTOMER_BY_ID[cid]
            if (cust.values and value not in cust.values) or (printed_only and not cust.values):
                continue
            out += [White(WhiteBanner.CUSTOMER, cid, w) for w in payment_ways(v, cust.goods)]
    return out


def any_printed(st: MyVillageState, value: int) -> bool:
    """True if a white banner printed with ``value`` can be activated (MV-GAP-3)."""
    return bool(white_options(st, value, printed_only=True))


def sequence_options(st: MyVillageState) -> list[Action]:
    """MV-DP-6 in full: banners, the wildcard move (MV-GAP-8) and END."""
    out = white_options(st, st.value)
    v = st.villages[st.player]
    if (
        v.wildcards
        and any(not f & PLOUGHED for f in v.fields)
        and (st.white_count or _banner_after_move(st))
    ):
        out.append(MoveWildcard())
    if st.white_count:
        out.append(EndWhite())
    return out


def _banner_after_move(st: MyVillageState) -> bool:
    twin = st.villages[st.player]
    saved_fields, saved_wild = twin.fields[:], twin.wildcards
    move_wildcard(st)
    try:
        return bool(white_options(st, st.value))
    finally:
        twin.fields, twin.wildcards = saved_fields, saved_wild


def move_wildcard(st: MyVillageState) -> None:
    """MV-FIELD-2 / MV-GAP-8: a wildcard becomes a plough on an empty field plough space
    (an unused field first, so its banner can still give the extra coin)."""
    v = st.villages[st.player]
    empty = [i for i, f in enumerate(v.fields) if not f & PLOUGHED]
    best = next((i for i in empty if not v.fields[i] & USED), empty[0])
    v.wildcards -= 1
    v.fields[best] |= PLOUGHED


def activate(st: MyVillageState, action: White) -> bool:
    """Pay for and perform one white banner (MV-WHT-3, MV-ACT-4). True when the sequence
    must end (the meeting point, MV-WHT-4)."""
    v = st.villages[st.player]
    kind = action.banner
    st.white_count += 1
    if kind is WhiteBanner.PLAY:
        st.white_used.append("PLAY")
        pay_time(st, PLAY_TIME)
        v.sp_tree += PLAY_SP
    elif kind is WhiteBanner.SCHOOL:
        st.white_used.append("SCHOOL")
        _school(st, v, action.choice)
    elif kind is WhiteBanner.CHURCH:
        st.white_used.append("CHURCH")
        church = CHURCH_BY_ID[v.church]
        pay_time(st, church.white_time)
        if church.white_action is ChurchAction.CUSTOMER:  # MV-CUST-1/-2, MV-GAP-10
            from games.my_village.black import refill

            st.display.remove(action.choice)
            v.waiting.append(action.choice)
            v.new_customers.append(action.choice)
            refill(st)
        else:
            v.sp_tree += church.white_sp
    elif kind is WhiteBanner.CHAMBER:
        st.white_used.append("CHAMBER")
        _chamber(st, v, action.choice)
    elif kind is WhiteBanner.MEETING_POINT:  # B.14
        st.white_used.append("MP")
        pay_time(st, MP_WHITE_TIME)
        v.coins -= MP_WHITE_COINS
        v.mp_markers.append(st.round_no)
        return True
    elif kind is WhiteBanner.CRAFT:
        g = _GOOD_NAMES.index(action.choice)
        st.white_used.append(f"CRAFT:{g}")
        pay_time(st, CRAFT_BY_ID[v.crafts[g]].white_time)
        v.craft_goods[g] += 1  # MV-CRAFT-2, MV-GOODS-2
        if g == PLOUGH:
            v.place_ploughs()  # MV-GAP-7
    elif kind is WhiteBanner.CUSTOMER:
        cust = CUSTOMER_BY_ID[action.choice]
        pay_time(st, cust.time)
        for g, src in zip(cust.goods, action.payment, strict=True):
            v.take_good(g, src)
        v.waiting.remove(cust.id)
        v.served.append(cust.id)
    else:  # fields (MV-FIELD-3, B.16)
        ploughed = kind is WhiteBanner.FIELD_PLOUGHED
        want = PLOUGHED if ploughed else 0
        i = next(i for i, f in enumerate(v.fields) if f == want)
        v.fields[i] |= USED
        pay_time(st, FIELD_WHITE_TIME)
        v.coins += FIELD_WHITE_COINS + (FIELD_PLOUGH_BONUS if ploughed else 0)
    return False


def _school(st: MyVillageState, v: Village, choice: str) -> None:
    """MV-SCH-2..5, MV-SCH-7."""
    if choice == "NEW_LEFT":
        v.school[0] = True
        return
    if choice == "LEFT_TO_RIGHT":
        v.school[0] = False
        v.school[1] = True
        return
    side, target = choice.split("_TO_")
    pay_time(st, SCHOOL_MOVE_TIME)
    v.villagers[_TO.index(target)] = True  # MV-SCH-7: active at once
    if side == "RIGHT":
        v.school[1] = False
        v.sp_tree += SCHOOL_RIGHT_SP
    else:
        v.school[0] = False


def _chamber(st: MyVillageState, v: Village, choice: str) -> None:
    """Council chamber white actions (B.13)."""
    ch = CHAMBER_BY_ID[v.chamber]
    pay_time(st, ch.white_time)
    if ch.action is ChamberAction.COINS:
        v.coins += ch.amount
    elif ch.action is ChamberAction.WILDCARD:
        v.wildcards += 1
    elif ch.action is ChamberAction.REGISTRY:
        v.registry[[c.value for c in CATEGORIES].index(choice)] = True
    else:  # MV-GAP-6: as many as possible
        moved = min(ch.amount, v.sp_tree)
        v.sp_tree -= moved
        v.sp_house += moved


__all__ = ["activate", "any_printed", "move_wildcard", "sequence_options", "white_options"]
