"""The decision loop (C.18): which options are asked now, how a choice moves the turn on,
and the automatic application of single-option decisions (MV-DP-9, engine API rule)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.core import Action
from games.my_village import black, dice, rounds, white
from games.my_village.actions import (
    Black,
    Bury,
    Chronicle,
    EndWhite,
    MoveWildcard,
    PayWith,
    PickCustomer,
    SetValue,
    StopPicking,
    TakeDice,
    White,
    WhiteMode,
)
from games.my_village.data import PROFESSIONS
from games.my_village.rounds import Phase

if TYPE_CHECKING:
    from games.my_village.state import MyVillageState


def legal(st: MyVillageState) -> list[Action]:
    """The options of the current decision (MV-DP-1..8)."""
    phase = st.phase
    if phase is Phase.DICE:
        return dice.dice_options(st)
    if phase is Phase.VALUE:
        return dice.value_options(st)
    if phase is Phase.MODE:
        return mode_options(st)
    if phase is Phase.WHITE:
        return white.sequence_options(st)
    if phase is Phase.OVERSEER:
        return black.overseer_options(st)
    if phase is Phase.PAYMENT:
        return black.payment_options(st)
    if phase is Phase.CHOICE:
        return black.choice_options(st)
    if phase is Phase.DEATH:
        v = st.villages[st.player]
        return [Bury(PROFESSIONS[i]) for i in range(5) if v.villagers[i]]
    return []


def mode_options(st: MyVillageState) -> list[Action]:
    """MV-DP-3 (MV-ACT-1): black banners, WHITE if a white banner can be activated, and the
    chronicle, which is always legal (MV-ACT-5)."""
    value = st.value
    out: list[Action] = [_black(b) for b in black.black_banners(st, value)]
    if white.white_options(st, value):
        out.append(_WHITE_MODE)
    out.append(_CHRONICLE)
    return out


_BLACKS: dict[str, Black] = {}
_WHITE_MODE = WhiteMode()
_CHRONICLE = Chronicle()


def _black(banner: str) -> Black:
    action = _BLACKS.get(banner)
    if action is None:
        action = _BLACKS[banner] = Black(banner)
    return action


def play(st: MyVillageState, action: Action) -> None:
    """Apply a legal ``action``, then every forced single-option decision after it."""
    st._legal = None
    step(st, action)
    settle(st)


def settle(st: MyVillageState) -> None:
    """Apply single-option decisions until a real choice (or the end) is reached."""
    while st.phase is not Phase.OVER:
        options = legal(st)
        if len(options) != 1:
            if not options:
                raise RuntimeError(f"no legal option in phase {st.phase.value}")
            st._legal = options
            return
        step(st, options[0])
    st._legal = []


def step(st: MyVillageState, action: Action) -> None:
    """Perform one decision's effect and move the turn to its next decision."""
    phase = st.phase
    if phase is Phase.DICE:
        assert isinstance(action, TakeDice)
        dice.take_dice(st, action)
    elif phase is Phase.VALUE:
        assert isinstance(action, SetValue)
        dice.set_value(st, action)
    elif phase is Phase.MODE:
        if isinstance(action, Black):
            if black.activate(st, action.banner):
                rounds.step_three(st)
        elif isinstance(action, WhiteMode):
            st.phase = Phase.WHITE
        else:
            assert isinstance(action, Chronicle)
            black.chronicle(st)
            rounds.step_three(st)
    elif phase is Phase.WHITE:
        if isinstance(action, White):
            if white.activate(st, action):  # MV-WHT-4: the meeting point ends it
                rounds.step_three(st)
        elif isinstance(action, MoveWildcard):
            white.move_wildcard(st)
        else:
            assert isinstance(action, EndWhite)
            rounds.step_three(st)
    elif phase is Phase.OVERSEER:
        if isinstance(action, PickCustomer):
            st.picks.append(action.card)
        else:
            assert isinstance(action, StopPicking)
            black.finish_overseer(st)
            rounds.step_three(st)
    elif phase is Phase.PAYMENT:
        assert isinstance(action, PayWith)
        if black.execute(st, st.banner, action.source):
            rounds.step_three(st)
    elif phase is Phase.CHOICE:
        black.choose(st, action)
        rounds.step_three(st)
    else:
        assert isinstance(action, Bury)
        rounds.bury(st, PROFESSIONS.index(action.profession))
        rounds.step_three(st)
