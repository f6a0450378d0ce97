"""Decision dispatch (FM-DEC-1/2): the options of each decision kind and their effects.

``apply_and_settle`` applies one answer and then resolves automatically until a decision
with at least two options is pending: a decision with a single option is applied by the
engine itself (FM-DEC-2, forced decisions).
"""

from __future__ import annotations

from collections.abc import Callable

from games.core import Action
from games.farmaria import accounting, auction, cards, demolition, flow, investing, options, state
from games.farmaria.actions import (
    CARD_INDEX,
    CARDS,
    CHARACTER_NAMES,
    DISCARD,
    DONE,
    PLAY,
    SELECT,
    STOP,
    ChooseCharacter,
    Discard,
    NoPick,
    Pick,
    PlayCard,
    Reject,
    Select,
    StopDiscarding,
    TellEvents,
)
from games.farmaria.farm import CTYPE
from games.farmaria.state import FarmariaState


def _types(cards_: list[int]) -> list[int]:
    return sorted(set(map(CTYPE.__getitem__, cards_)))


# -- setup and phases 1-2 ------------------------------------------------------------------


def _legal_character(s: FarmariaState) -> list[Action]:
    return [ChooseCharacter(CHARACTER_NAMES[c]) for c in s.chars_free]


def _apply_character(s: FarmariaState, a: Action) -> None:
    assert isinstance(a, ChooseCharacter)
    c = CHARACTER_NAMES.index(a.character)
    s.char[s.actor] = c
    s.chars_free.remove(c)
    if s.actor + 1 < s.n:
        s.actor += 1
    else:
        flow.finish_setup(s)


def _legal_tell(s: FarmariaState) -> list[Action]:
    out: list[Action] = [TellEvents(q) for q in range(s.n) if q != s.actor]
    out.append(TellEvents(-1))
    return out


def _apply_tell(s: FarmariaState, a: Action) -> None:
    assert isinstance(a, TellEvents)
    if a.player >= 0:  # FM-AMB-25: told without enforcing any payment
        s.ye_known |= 1 << a.player
        s.told = a.player
    flow.begin_select(s, 0)


def _legal_select(s: FarmariaState) -> list[Action]:
    return [SELECT[t] for t in _types(s.fd[s.actor])]


def _apply_select(s: FarmariaState, a: Action) -> None:
    assert isinstance(a, Select)
    flow.select_card(s, s.actor, CARD_INDEX[a.card])


def _legal_defence(s: FarmariaState) -> list[Action]:
    out: list[Action] = [PLAY[t] for t in flow.defence_options(s, s.actor)]
    out.append(DONE)
    return out


def _apply_defence(s: FarmariaState, a: Action) -> None:
    if isinstance(a, PlayCard):
        flow.play_defence(s, s.actor, CARD_INDEX[a.card])
    else:
        s.idx += 1
    flow.next_defence(s)


# -- 3b / 3c -------------------------------------------------------------------------------


def _legal_discard_opp(s: FarmariaState) -> list[Action]:
    return [DISCARD[0][t] for t in _types(s.opp[s.active])]


def _legal_discard_limit(s: FarmariaState) -> list[Action]:
    p = s.active
    if s.sel[p]:
        return [DISCARD[0][t] for t in _types(s.sel[p])]
    return [DISCARD[1][t] for t in _types(s.fd[p])]  # FM-AMB-48


def _legal_discard_min(s: FarmariaState) -> list[Action]:
    return [DISCARD[0][t] for t in _types(s.sel[s.active])]


def _legal_discard_more(s: FarmariaState) -> list[Action]:
    out: list[Action] = [DISCARD[0][t] for t in _types(s.sel[s.active])]
    out.append(STOP)
    return out


def _apply_discard(s: FarmariaState, a: Action) -> None:
    if isinstance(a, StopDiscarding):
        flow.begin_3c(s)
        return
    assert isinstance(a, Discard)
    flow.discard(s, CARD_INDEX[a.card], a.face_down)


def _legal_giannos(s: FarmariaState) -> list[Action]:
    out: list[Action] = [Pick(pos + 1) for pos in flow.giannos_options(s)]
    out.append(NoPick())
    return out


def _apply_giannos(s: FarmariaState, a: Action) -> None:
    flow.giannos_pick(s, a.position - 1 if isinstance(a, Pick) else -1)


def _legal_alexandros(s: FarmariaState) -> list[Action]:
    return [Reject(CARDS[t]) for t in _types(s.drawn)]


def _apply_alexandros(s: FarmariaState, a: Action) -> None:
    assert isinstance(a, Reject)
    flow.alexandros_reject(s, CARD_INDEX[a.card])


Legal = Callable[[FarmariaState], list[Action]]
Apply = Callable[[FarmariaState, Action], None]

_TABLE: dict[int, tuple[Legal, Apply]] = {
    state.CHARACTER: (_legal_character, _apply_character),
    state.TASOS_TELL: (_legal_tell, _apply_tell),
    state.SELECT: (_legal_select, _apply_select),
    state.EVENT_DEFENCE: (_legal_defence, _apply_defence),
    state.ACTION_3A: (options.legal_3a, investing.apply_3a),
    state.PLACE: (investing.legal_place, investing.apply_place),
    state.MOVE_TO: (investing.legal_move_to, investing.apply_move_to),
    state.RELOCATE: (demolition.legal_relocate, demolition.apply_relocate),
    state.THEFT_TARGET: (cards.legal_theft_target, cards.apply_theft_target),
    state.THEFT_DEFENCE: (cards.legal_theft_defence, cards.apply_theft_defence),
    state.DIPLOMACY_TARGET: (cards.legal_diplomacy, cards.apply_diplomacy),
    state.BABIS_KEEP: (cards.legal_babis, cards.apply_babis),
    state.AUCTION_LOT: (auction.legal_lot, auction.apply_lot),
    state.AUCTION_BID: (auction.legal_bid, auction.apply_bid),
    state.OPPORTUNITY_REJECT: (cards.legal_reject, cards.apply_reject),
    state.DISCARD_OPPORTUNITY: (_legal_discard_opp, _apply_discard),
    state.DISCARD_LIMIT: (_legal_discard_limit, _apply_discard),
    state.DISCARD_MINIMUM: (_legal_discard_min, _apply_discard),
    state.DISCARD_MORE: (_legal_discard_more, _apply_discard),
    state.GIANNOS_PICK: (_legal_giannos, _apply_giannos),
    state.ALEXANDROS_REJECT: (_legal_alexandros, _apply_alexandros),
    state.PAY_4A: (accounting.legal_pay, accounting.apply_pay),
    state.REPAY_4A: (accounting.legal_pay, accounting.apply_pay),
}


# The same, indexed by decision kind (a tuple index is the cheapest lookup on the hot path).
_BY_KIND: tuple[tuple[Legal, Apply], ...] = tuple(_TABLE[k] for k in range(len(_TABLE)))


def legal(s: FarmariaState) -> list[Action]:
    """The options of the pending decision (FM-DEC-3..22)."""
    return _BY_KIND[s.dec][0](s)


def settle(s: FarmariaState) -> None:
    """Apply forced (single-option) decisions until a real one is pending or the game ends."""
    while not s.over:
        acts = _BY_KIND[s.dec][0](s)
        if len(acts) >= 2:
            s._legal = acts
            s._legal_set = None
            return
        if not acts:
            raise RuntimeError(f"no legal option for {state.DECISION_NAMES[s.dec]}")
        _BY_KIND[s.dec][1](s, acts[0])
    s.invalidate()


def apply_and_settle(s: FarmariaState, a: Action) -> None:
    """Apply a legal answer, then resolve until the next real decision (see :func:`settle`)."""
    s._legal = None
    s._legal_set = None
    table = _BY_KIND
    table[s.dec][1](s, a)
    while not s.over:
        legal_of, apply_of = table[s.dec]
        acts = legal_of(s)
        if len(acts) >= 2:
            s._legal = acts
            return
        if not acts:
            raise RuntimeError(f"no legal option for {state.DECISION_NAMES[s.dec]}")
        apply_of(s, acts[0])
