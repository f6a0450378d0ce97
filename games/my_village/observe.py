"""What players and spectators see (engine rule 5): the whole table except the customer
deck order and the cards below the top of the monk and travel stacks (C.16) and, by the
Greek text, of the craft building columns (``data.CRAFT_ONLY_TOP_VISIBLE``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.my_village.data import (
    CRAFT_KINDS,
    CRAFT_ONLY_TOP_VISIBLE,
    LETTERS,
    MONK_SYMBOLS,
    PROFESSIONS,
)
from games.my_village.rounds import BLACK, Phase, coffins

if TYPE_CHECKING:
    from games.my_village.state import MyVillageState


def _decision(st: MyVillageState) -> dict[str, object]:
    if st.phase is Phase.OVER:
        return {"kind": "over", "player": None}
    out: dict[str, object] = {"kind": st.phase.value, "player": st.player}
    if st.phase is not Phase.DICE:
        out["dice"] = list(st.dice)
    if st.value:
        out["value"] = st.value
    if st.phase is Phase.OVERSEER:
        out["picks"] = st.picks[:]
    if st.phase is Phase.WHITE:
        out["white_used"] = st.white_used[:]
        out["white_count"] = st.white_count
    if st.phase is Phase.PAYMENT:
        out["banner"] = st.banner
    if st.phase is Phase.CHOICE:
        out["choice"] = st.choice_kind
    return out


def public(st: MyVillageState) -> dict[str, object]:
    """The spectator view: everything public on the table."""
    return {
        "game": "my_village",
        "players": st.n,
        "round": st.round_no,
        "first_player": st.first_player,
        "turn_order": st.turn_order[:],
        "turn_index": st.turn_idx,
        "hand": {"holder": st.hand_holder, "palm": st.hand_palm, "sp": st.hand_sp},
        "pool": [["black" if d >= BLACK else "white", d % BLACK + 1] for d in st.pool],
        "churches": st.church_col[:],
        "council_chambers": st.council_col[:],
        "meeting_points": st.mp_stack,
        "fields": st.field_stack,
        "monks": {
            s.value: {"top": stack[-1] if stack else None, "count": len(stack)}
            for s, stack in zip(MONK_SYMBOLS, st.monk_stacks, strict=True)
        },
        "travel": {
            letter: {"top": stack[-1] if stack else None, "count": len(stack)}
            for letter, stack in zip(LETTERS, st.travel_stacks, strict=True)
        },
        "crafts": {
            kind: (
                {"top": col[-1] if col else None, "count": len(col)}
                if CRAFT_ONLY_TOP_VISIBLE
                else {"cards": col[:], "count": len(col)}
            )
            for kind, col in zip(CRAFT_KINDS, st.craft_cols, strict=True)
        },
        "customer_deck": len(st.deck),
        "display": st.display[:],
        "chronicle": {p.value: st.chronicle[i][:] for i, p in enumerate(PROFESSIONS)},
        "graves": st.graves[:],
        "coffins": coffins(st),
        "end_coffins": st.rules.end_coffins,
        "rat": st.rat,
        "plagues": st.plagues,
        "villages": [v.describe() for v in st.villages],
        "decision": _decision(st),
        "over": st.phase is Phase.OVER,
        "unfinished": st.unfinished,
    }


def observation(st: MyVillageState, player: int) -> dict[str, object]:
    """Player ``player``'s view: here everything but the hidden card orders is public."""
    view = public(st)
    view["player"] = player
    return view
