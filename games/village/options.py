"""The options of the open decision point (V-DP), by phase, in canonical order (V-DP-21)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from games.core import Action
from games.village import actions as va
from games.village import council, flow, market, mass, turn, works
from games.village import data as vd
from games.village.state import (
    ACTION,
    BUYOUT,
    CUBES,
    DEATH,
    FREE,
    GOODS,
    MARKET,
    OVER,
    PRIV,
    PROMOTE,
    TURN,
    WELL_PAY,
)

if TYPE_CHECKING:
    from games.village.state import Code, VillageState

Options = tuple[Sequence[Action], Sequence["Code"]]

DIE_ACTS = tuple(va.Die(loc) for loc in va.LOCS)


def death_options(s: VillageState) -> Options:
    """V-DP-17: a location for each place holding a lowest-generation visible member."""
    _g, locs = flow.death_candidates(s, s.death_player)
    return [DIE_ACTS[loc] for loc in locs], [(flow.do_die, loc) for loc in locs]


_ACTION_POINTS: dict[int, Callable[[VillageState], Options]] = {
    vd.HARVEST: turn.harvest_options,
    vd.FAMILY: turn.family_options,
    vd.CRAFTS: works.crafts_options,
    vd.TRAVEL: works.travel_options,
    vd.COUNCIL: council.council_options,
    vd.CHURCH: turn.church_options,
}


def _action_options(s: VillageState) -> Options:
    return _ACTION_POINTS[s.act_space](s)


def over_options(s: VillageState) -> Options:
    """The game is over: no option (a builder, so that settling needs no special case)."""
    return (), ()


_BY_PHASE: dict[int, Callable[[VillageState], Options]] = {
    TURN: turn.turn_options,
    FREE: turn.free_options,
    WELL_PAY: turn.well_pay_options,
    ACTION: _action_options,
    PRIV: council.privilege_options,
    CUBES: council.cubes_options,
    GOODS: council.goods_options,
    MARKET: market.market_options,
    DEATH: death_options,
    BUYOUT: mass.buyout_options,
    PROMOTE: mass.promote_options,
    OVER: over_options,
}

#: Option builders indexed by phase; the action point by space.
BUILDERS: tuple[Callable[[VillageState], Options], ...] = tuple(
    _BY_PHASE[ph] for ph in range(len(_BY_PHASE))
)
ACTION_BUILDERS: tuple[Callable[[VillageState], Options], ...] = tuple(
    _ACTION_POINTS.get(sp, _action_options) for sp in range(7)
)


def options(s: VillageState) -> Options:
    """(actions, codes) of the decision open in ``s``."""
    if s.phase == ACTION:
        return ACTION_BUILDERS[s.act_space](s)
    return BUILDERS[s.phase](s)
