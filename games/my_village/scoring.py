"""Final scoring by category and the tie-breakers (C.15: MV-SCORE-1..10, MV-TIE-1/-2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.core import Result, competition_ranks
from games.my_village.data import (
    CHAMBER_BY_ID,
    CHURCH_BY_ID,
    CUSTOMER_BY_ID,
    DAY_LABOURER_PP,
    FIELD_PP,
    HAND_PP,
    MAX_WINDOWS,
    MP_PP,
    TRAVEL_BY_ID,
    WINDOW_PP,
)

if TYPE_CHECKING:
    from games.my_village.state import MyVillageState

CATEGORY_KEYS = (
    "church",
    "council",
    "harvest",
    "travel",
    "customers",
    "saved_sp",
    "day_labourers",
    "hand",
)


def breakdown(st: MyVillageState, player: int) -> dict[str, int]:
    """PP per category, the total and the tie-break value for ``player``."""
    v = st.villages[player]
    # MV-SCORE-1: church PP + window table (monks + monastery church, at most 6, MV-GAP-11).
    church = CHURCH_BY_ID[v.church].pp if v.church else 0
    church += WINDOW_PP[min(MAX_WINDOWS, v.windows())]
    # MV-SCORE-2/-3: meeting point + chamber + land registry bonus per marked category.
    council = MP_PP if v.meeting_point else 0
    council += CHAMBER_BY_ID[v.chamber].pp if v.chamber else 0
    registry = sum(v.category_count(i) for i, marked in enumerate(v.registry) if marked)
    council += registry
    detail = {
        "church": church,
        "council": council,
        "harvest": FIELD_PP * len(v.fields),  # MV-SCORE-4
        "travel": sum(TRAVEL_BY_ID[t].pp for t in v.travel),  # MV-SCORE-5
        "customers": sum(CUSTOMER_BY_ID[c].pp for c in v.served),  # MV-SCORE-6
        "saved_sp": v.sp_house,  # MV-SCORE-7
        "day_labourers": DAY_LABOURER_PP * v.day_labourers,  # MV-SCORE-8
        "hand": HAND_PP if st.hand_holder == player else 0,  # MV-SCORE-9
    }
    # MV-SCORE-10: story tree SP, coins, goods, craft buildings and monks give nothing.
    total = sum(detail[k] for k in CATEGORY_KEYS)
    detail["registry_bonus"] = registry
    detail["total"] = total
    # MV-TIE-1: coins + goods (wildcards and ploughs on fields included) + story tree SP.
    detail["tiebreak"] = v.coins + v.goods_total() + v.sp_tree
    detail["unfinished"] = int(st.unfinished)
    return detail


def result(st: MyVillageState) -> Result:
    """Scores and ranks: highest PP, then the tie-break total; still tied players share the
    rank (MV-TIE-2)."""
    details = tuple(breakdown(st, p) for p in range(st.n))
    keys = [(d["total"], d["tiebreak"]) for d in details]
    return Result(
        scores=tuple(d["total"] for d in details),
        ranks=competition_ranks(keys),
        detail=details,
    )
