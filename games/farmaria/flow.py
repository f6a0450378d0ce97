"""The year's skeleton: setup, 1a/1b, phase 2, and the 3b/3c tail of each player's turn.

Each ``begin_*``/``next_*`` function either sets the next pending decision (``s.dec`` and
``s.actor``) or runs the automatic steps and moves on (FM-YEAR-1, FM-YEAR-4).
"""

from __future__ import annotations

from games.farmaria import data as d
from games.farmaria import market
from games.farmaria.farm import CTYPE, Field
from games.farmaria.state import (
    ACTION_3A,
    ALEXANDROS_REJECT,
    CHARACTER,
    DISCARD_LIMIT,
    DISCARD_MINIMUM,
    DISCARD_MORE,
    DISCARD_OPPORTUNITY,
    EVENT_DEFENCE,
    GIANNOS_PICK,
    SELECT,
    TASOS_TELL,
    FarmariaState,
)

DEFENCE_EVENTS = ((d.INSECTICIDE, d.EV_INSECTS), (d.VET, d.EV_DISEASE), (d.TAX_EVASION, d.EV_TAX))
_DEFENCE_EVENT_MASK = sum(1 << ev for _, ev in DEFENCE_EVENTS)
#: bitmask of the defence card types (for a quick "holds none" test)
DEFENCE_CARDS = sum(1 << t for t, _ in DEFENCE_EVENTS)
# (card type, its event, its bit in ``played``, the character who may not play it)
_DEFENCES = tuple(
    (t, ev, 1 << (t - d.THIEF), {d.INSECTICIDE: d.ARGYRI, d.TAX_EVASION: d.MICHALIS}.get(t, -1))
    for t, ev in DEFENCE_EVENTS
)  # FM-CHAR-13: Argyri never uses Insecticide; FM-CHAR-4: Michalis never evades tax


def bit(t: int) -> int:
    """Bit of an action card type in the per-year ``played`` mask."""
    return 1 << (t - d.THIEF)


def cards_of(s: FarmariaState, p: int) -> int:
    """The character's card count."""
    return d.CHARACTERS[s.char[p]].cards


# -- setup (FM-SETUP-1..9) -----------------------------------------------------------------


def setup(s: FarmariaState, characters: list[int] | None, choose: bool) -> None:
    """FM-SETUP-2: characters dealt from stream ``characters``, given, or chosen in turn."""
    if characters is not None:
        s.char = list(characters)
    elif choose:
        s.char = [-1] * s.n
        s.chars_free = list(range(len(d.CHARACTERS)))
        s.dec = CHARACTER
        s.actor = 0
        return
    else:
        s.char = s.chance.stream("characters").sample(range(len(d.CHARACTERS)), s.n)
    finish_setup(s)


def finish_setup(s: FarmariaState) -> None:
    first_stable = d.CARD_COUNTS[d.FIELD]
    taken = set(range(s.n))  # FM-SETUP-3: one inherited field each
    for p in range(s.n):
        s.farm[p] = [Field(p)]
        if s.char[p] == d.VANGELIS:  # FM-CHAR-1, FM-AMB-45
            s.farm[p][0].stables.append(first_stable)
            s.farm[p][0].inside.append([])
            taken.add(first_stable)
    market.shuffle_deck(s, [c for c in range(len(CTYPE)) if c not in taken])
    market.split_events(s, list(range(len(market.ETYPE))))  # FM-SETUP-4
    for p in range(s.n):  # FM-SETUP-7
        s.fd[p] = market.draw_many(s, cards_of(s, p))
    s.marker = s.k - 1  # FM-SETUP-8: positions 1 and 2, marker on 2
    for c in market.draw_many(s, d.CM_INITIAL_CARDS):
        market.to_cm(s, c, -1)
    start_year(s)


# -- phase 1 -------------------------------------------------------------------------------


def start_year(s: FarmariaState) -> None:
    s.year += 1  # FM-P1-1
    start = (s.year - 1) % s.n  # FM-YEAR-2
    s.order = [(start + i) % s.n for i in range(s.n)]
    if not s.ye_piles[0] and not s.ye_piles[1]:  # FM-EVT-1 safety case
        evs = s.ye_discard
        s.ye_discard = []
        market.split_events(s, evs)
    s.ye_known = 0
    s.told = -1
    for p in range(s.n):
        if s.char[p] == d.TASOS:  # FM-P1-2 / FM-CHAR-10: the peek
            s.ye_known |= 1 << p
            if s.tell_variant:
                s.dec = TASOS_TELL
                s.actor = p
                return
    begin_select(s, 0)


def begin_select(s: FarmariaState, idx: int) -> None:
    """FM-P1-3: each player in turn order selects exactly min(S, hand size) cards."""
    while idx < s.n:
        p = s.order[idx]
        size = d.SELECTION_SIZE + (s.char[p] == d.VALANTIS) + s.gift_pending[p]
        s.gift_pending[p] = False
        k = min(size, len(s.fd[p]))
        s.idx = idx
        s.sel_left = k
        if not auto_select(s, p):
            s.dec = SELECT
            s.actor = p
            return
        idx += 1
    begin_phase2(s)


def auto_select(s: FarmariaState, p: int) -> bool:
    """Complete a selection with only one possible outcome; True when the player is done."""
    hand = s.fd[p]
    if s.sel_left >= len(hand):
        s.sel[p].extend(hand)
        s.fd[p] = []
        s.sel_left = 0
    elif s.sel_left and _one_type(hand):
        for _ in range(s.sel_left):
            s.sel[p].append(hand.pop())
        s.sel_left = 0
    return s.sel_left == 0


def _one_type(cards: list[int]) -> bool:
    """Are these (at least one) cards all of one type? (Stops at the first other type.)"""
    t = CTYPE[cards[0]]
    for c in cards:  # noqa: SIM110 - a plain loop: all() over a generator is slower here
        if CTYPE[c] != t:
            return False
    return True


def select_card(s: FarmariaState, p: int, t: int) -> None:
    hand = s.fd[p]
    for i, c in enumerate(hand):
        if CTYPE[c] == t:
            s.sel[p].append(hand.pop(i))
            break
    s.sel_left -= 1
    if auto_select(s, p):
        begin_select(s, s.idx + 1)


# -- phase 2 (FM-EVT-3) --------------------------------------------------------------------


def begin_phase2(s: FarmariaState) -> None:
    cur = []
    for pile in s.ye_piles:  # FM-EVT-1
        if pile:
            cur.append(pile.pop())
    s.ye_current = cur
    s.ye_known = 0
    e = s.effective = market.effective(cur)  # step 1, FM-EVT-2
    if e >> d.EV_HORSE & 1:  # step 2, FM-EVT-7
        for p in range(s.n):
            horses = sum(
                1
                for f in s.farm[p]
                for c in f.outside + [x for a in f.inside for x in a]
                if CTYPE[c] == d.HORSE
            )
            s.wallet[p] += d.HORSE_SUBSIDY * horses
    if e >> d.EV_AUDIT & 1:  # step 3, FM-EVT-10
        for p in range(s.n):
            if s.evaded_last[p] and s.char[p] != d.MICHALIS:
                s.defam[p] += 1
                s.audit_pen[p] = 2 * s.evaded_amt_last[p]
    s.idx = 0
    next_defence(s)


def defence_options(s: FarmariaState, p: int) -> list[int]:
    """FM-DEC-6: event-defence cards p may play now (1b-selected, unplayed, allowed)."""
    out: list[int] = []
    e = s.effective
    if not e & _DEFENCE_EVENT_MASK:  # the usual year: nothing to defend against
        return out
    played, ch, sel = s.played[p], s.char[p], s.sel[p]
    for t, ev, played_bit, barred in _DEFENCES:
        if not e >> ev & 1 or played & played_bit or ch == barred:
            continue
        for c in sel:
            if CTYPE[c] == t:
                out.append(t)
                break
    return out


def defence_types(s: FarmariaState, p: int) -> list[int]:
    """The event-defence card types p would be allowed to play now, held or not."""
    e = s.effective
    return [
        t
        for t, ev, played_bit, barred in _DEFENCES
        if e >> ev & 1 and not s.played[p] & played_bit and s.char[p] != barred
    ]


def next_defence(s: FarmariaState) -> None:
    """Step 4: the event-defence window in turn order; then step 5, the audit reshuffle."""
    while s.idx < s.n:
        p = s.order[s.idx]
        if defence_options(s, p):
            s.dec = EVENT_DEFENCE
            s.actor = p
            return
        s.idx += 1
    if s.effective >> d.EV_AUDIT & 1:
        market.audit_reshuffle(s)
    begin_phase3(s, 0)


def play_defence(s: FarmariaState, p: int, t: int) -> None:
    """FM-ACT-8/9/10 with FM-ACT-G7: the card goes to the CM, a replacement is drawn."""
    c = take_from_hand(s, p, t, allow_opp=False)
    s.played[p] |= bit(t)
    market.to_cm(s, c, p)
    replacement(s, p)


def replacement(s: FarmariaState, p: int) -> None:
    c = market.draw(s)
    if c >= 0:
        s.fd[p].append(c)


def take_from_hand(s: FarmariaState, p: int, t: int, allow_opp: bool = True) -> int:
    """Remove a selected card of type t (the Opportunity copy first, FM-DEC-2)."""
    pools = (s.opp[p], s.sel[p]) if allow_opp else (s.sel[p],)
    for pool in pools:
        for i, c in enumerate(pool):
            if CTYPE[c] == t:
                pool.pop(i)
                return c
    raise ValueError(f"player {p} holds no selected {d.CARD_IDS[t]}")


# -- phase 3 sequencing (FM-P3-1, FM-P3-3, FM-P3-4) ---------------------------------------


def begin_phase3(s: FarmariaState, idx: int) -> None:
    from games.farmaria import accounting

    while idx < s.n:
        p = s.order[idx]
        if not s.jailed_now[p]:
            s.idx = idx
            s.active = p
            s.moved = set()
            s.dec = ACTION_3A
            s.actor = p
            return
        s.phase3_done[p] = True  # FM-P3-5: a jailed player counts as passed
        idx += 1
    accounting.begin_4a(s, 0)


def back_to_3a(s: FarmariaState) -> None:
    """The active player's 3a continues (after a placement, a card, a demolition...)."""
    s.dec = ACTION_3A
    s.actor = s.active


def begin_3b(s: FarmariaState) -> None:
    s.discarded_any = False
    continue_3b(s)


def continue_3b(s: FarmariaState) -> None:
    p = s.active
    s.actor = p
    if s.opp[p]:
        s.dec = DISCARD_OPPORTUNITY
    elif len(s.sel[p]) + len(s.fd[p]) > cards_of(s, p):
        s.dec = DISCARD_LIMIT
    elif not s.discarded_any and s.sel[p] and s.char[p] not in (d.BABIS, d.IOANNA):
        s.dec = DISCARD_MINIMUM
    elif s.sel[p]:
        s.dec = DISCARD_MORE
    else:
        begin_3c(s)


def discard(s: FarmariaState, t: int, face_down: bool) -> None:
    p = s.active
    pools = [s.fd[p]] if face_down else [s.opp[p], s.sel[p]]
    for pool in pools:
        for i, c in enumerate(pool):
            if CTYPE[c] == t:
                pool.pop(i)
                market.to_cm(s, c, p)
                s.discarded_any = True
                continue_3b(s)
                return
    raise ValueError("no such card to discard")


def begin_3c(s: FarmariaState) -> None:
    p = s.active
    need = cards_of(s, p) - len(s.sel[p]) - len(s.fd[p])
    if need >= 1:
        if s.char[p] == d.GIANNOS and not s.dip_attack[p]:  # FM-CHAR-8
            s.sel_left = need
            s.dec = GIANNOS_PICK
            s.actor = p
            return
        if s.char[p] == d.ALEXANDROS and not s.played[p] & bit(d.OPPORTUNITY):  # FM-CHAR-2
            drawn = market.draw_many(s, need + 1)
            if len(drawn) == need + 1:
                s.drawn = drawn
                s.drawn_owner = p
                s.dec = ALEXANDROS_REJECT
                s.actor = p
                return
            s.fd[p].extend(drawn)
        else:
            s.fd[p].extend(market.draw_many(s, need))
    finish_turn(s)


def finish_turn(s: FarmariaState) -> None:
    s.phase3_done[s.active] = True
    s.drawn = []
    s.drawn_owner = -1
    begin_phase3(s, s.idx + 1)


def giannos_options(s: FarmariaState) -> list[int]:
    """FM-DEC-19: CM positions (0-based) with a single card Giannos did not put there."""
    p = s.active
    out = []
    for pos in range(s.k):
        c = market.active(s, pos)
        if c >= 0 and c not in s.bundles and not market.put_by(s, c, p):
            out.append(pos)
    return out


def giannos_pick(s: FarmariaState, pos: int) -> None:
    p = s.active
    need = s.sel_left
    if pos >= 0:
        c = market.take_active(s, pos)
        s.fd[p].append(c)
        s.known_all.add(c)  # taken face up from the CM: public
        need -= 1
    s.fd[p].extend(market.draw_many(s, need))
    finish_turn(s)


def alexandros_reject(s: FarmariaState, t: int) -> None:
    p = s.active
    for i, c in enumerate(s.drawn):
        if CTYPE[c] == t:
            s.drawn.pop(i)
            market.to_cm(s, c, p)
            break
    s.fd[p].extend(s.drawn)
    finish_turn(s)
