"""What each player sees (FM-STATE-2) and conserved totals (determinization: ``determinize``).

Public: characters, wallets, debts, farms, defamations, jail, card counts, CM tops (and
stack sizes), pile sizes, the used Year Events. Hidden: hand identities (own hand shown to
its owner), deck and Year Event pile order, others' unrevealed selections, drawn cards.
Tasos (and whoever he told, variant) sees the coming two events before phase 2.
"""

from __future__ import annotations

from games.core import JSON
from games.farmaria import accounting, market
from games.farmaria import data as d
from games.farmaria.farm import CTYPE, NUM_CARDS, Field
from games.farmaria.state import (
    AUCTION_BID,
    DECISION_NAMES,
    PAY_4A,
    REPAY_4A,
    SELECT,
    THEFT_DEFENCE,
    FarmariaState,
)

EVENT_IDS = tuple(e for e, _ in d.EVENTS)


def _names(cards: list[int]) -> list[str]:
    return sorted(d.CARD_IDS[CTYPE[c]] for c in cards)


def _field(f: Field) -> dict[str, JSON]:
    return {
        "stables": [_names(a) for a in f.inside],
        "outside": _names(f.outside),
        "full": f.is_full(),
    }


def _item(s: FarmariaState, c: int) -> JSON:
    b = s.bundles.get(c)
    if b is None:
        return d.CARD_IDS[CTYPE[c]]
    return {"bundle": _field(b)}


def _decision(s: FarmariaState, viewer: int) -> dict[str, JSON]:
    out: dict[str, JSON] = {"kind": DECISION_NAMES[s.dec], "player": None if s.over else s.actor}
    if s.over:
        return out
    out["active"] = s.active
    if s.dec == SELECT:
        out["remaining"] = s.sel_left
    if s.dec == THEFT_DEFENCE:
        fi, st = s.move_from
        out["thief"] = s.active
        out["animal"] = d.CARD_IDS[CTYPE[s.move_card]]
        out["field"] = fi
        out["stable"] = st
    if s.lot >= 0:
        out["lot"] = _item(s, s.lot)
        out["high_bid"] = s.high
        out["high_bidder"] = s.high_bidder
        out["passed"] = list(s.passed)
    if s.dec == AUCTION_BID:
        out["bidder"] = s.bidder
    if s.pending >= 0:
        out["placing"] = d.CARD_IDS[CTYPE[s.pending]]
    if s.reloc:  # every animal still waiting, the next one to relocate first
        out["relocating"] = [d.CARD_IDS[CTYPE[c]] for c in s.reloc]
    if s.dec in (PAY_4A, REPAY_4A):
        out.update(accounting.payment_view(s))
    if s.drawn and viewer == s.drawn_owner:
        out["drawn"] = _names(s.drawn)
    return out


def observation(s: FarmariaState, viewer: int) -> dict[str, JSON]:
    """Observation of ``viewer`` (-1: spectator / public state)."""
    selecting = s.dec == SELECT and not s.over
    players: list[JSON] = []
    for p in range(s.n):
        info: dict[str, JSON] = {
            "character": d.CHARACTERS[s.char[p]].id if s.char[p] >= 0 else None,
            "wallet": s.wallet[p],
            "debt": s.debt[p],
            "defamations": s.defam[p],
            "jailed": s.jailed_now[p],
            "jailed_next_year": s.jailed_next[p],
            "vp": s.vp[p],
            "farm": [_field(f) for f in s.farm[p]],
            "hand_size": len(s.sel[p]) + len(s.fd[p]) + len(s.opp[p]),
            "played": [d.CARD_IDS[t] for t in range(d.THIEF, d.TAX_EVASION + 1)
                       if s.played[p] >> (t - d.THIEF) & 1],
            "turn_passed": s.phase3_done[p],
            "gift_pending": s.gift_pending[p],
            # FM-EVT-10: the tax evaded last year (public: the card was played) and the
            # audit fine it sets this year (twice that amount, once an audit is drawn)
            "evaded_last_year": s.evaded_amt_last[p] if s.evaded_last[p] else 0,
            "audit_fine": s.audit_pen[p],
        }  # fmt: skip
        if not selecting:
            info["selected_count"] = len(s.sel[p]) + len(s.opp[p])
            info["face_down_count"] = len(s.fd[p])
            info["opportunity_count"] = len(s.opp[p])
        if p == viewer:
            info["selected"] = _names(s.sel[p])
            info["face_down"] = _names(s.fd[p])
            info["opportunity"] = _names(s.opp[p])
        players.append(info)
    obs: dict[str, JSON] = {
        "year": s.year,
        "turn_order": list(s.order),
        "players": players,
        "market": [
            {"top": _item(s, stack[-1]) if stack else None, "size": len(stack)} for stack in s.cm
        ],
        "marker": s.marker + 1,
        "deck_size": len(s.deck),
        "event_piles": [len(s.ye_piles[0]), len(s.ye_piles[1])],
        "events": [EVENT_IDS[market.ETYPE[c]] for c in s.ye_current],
        "effective_events": [EVENT_IDS[e] for e in range(len(EVENT_IDS)) if s.effective >> e & 1],
        "used_events": sorted(EVENT_IDS[market.ETYPE[c]] for c in s.ye_discard),
        "end_triggered": s.end_triggered,
        "decision": _decision(s, viewer),
    }
    if viewer >= 0:
        obs["me"] = viewer
        if s.ye_known >> viewer & 1:  # FM-P1-2, FM-CHAR-10
            obs["foresight"] = [EVENT_IDS[market.ETYPE[pile[-1]]] for pile in s.ye_piles if pile]
    return obs


def conserved_totals(s: FarmariaState) -> dict[str, int]:
    """Every management card is somewhere; the 36 Year Events too."""
    counts = [0] * len(d.CARD_IDS)
    where: list[int] = list(s.deck) + s.removed + s.reloc + s.drawn
    for stack in s.cm:
        for c in stack:
            where.extend(market_item(s, c))
    for p in range(s.n):
        where.extend(s.sel[p])
        where.extend(s.fd[p])
        where.extend(s.opp[p])
        for f in s.farm[p]:
            where.extend(f.cards())
    for c in (s.pending, s.theft_card, s.lot):
        if c >= 0:
            where.extend(market_item(s, c))
    for c in where:
        counts[CTYPE[c]] += 1
    out = {f"cards_{d.CARD_IDS[t]}": counts[t] for t in range(len(counts))}
    out["cards_total"] = len(where)
    out["cards_distinct"] = len(set(where))
    out["events_total"] = (
        len(s.ye_piles[0]) + len(s.ye_piles[1]) + len(s.ye_discard) + len(s.ye_current)
    )
    out["cards_expected"] = NUM_CARDS
    return out


def market_item(s: FarmariaState, c: int) -> list[int]:
    b = s.bundles.get(c)
    return [c] if b is None else b.cards()
