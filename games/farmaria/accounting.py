"""Phase 4 and the end of the year (FM-MONEY-1, FM-LOAN-*, FM-VP-1, FM-GIFT-1, FM-P4C-1,
FM-EOY-1, FM-END-*)."""

from __future__ import annotations

from games.core import Action, Result, competition_ranks
from games.farmaria import data as d
from games.farmaria import demolition, market
from games.farmaria.actions import CARD_INDEX, Borrow, Demolish, Sell, sell_at
from games.farmaria.farm import count_vp, goods_income, interest, sellables, tax_of, upkeep_of
from games.farmaria.flow import bit, start_year
from games.farmaria.state import GAME_OVER, PAY_4A, REPAY_4A, FarmariaState


def evading(s: FarmariaState, p: int) -> bool:
    return bool(s.played[p] & bit(d.TAX_EVASION))


def tax_due(s: FarmariaState, p: int) -> bool:
    """FM-EVT-9: Tax is in effect and p is neither Michalis (FM-CHAR-4) nor evading it."""
    return bool(s.effective >> d.EV_TAX & 1) and s.char[p] != d.MICHALIS and not evading(s, p)


def amount_due(s: FarmariaState, p: int) -> int:
    """FM-MONEY-1 step 2: P = tax_due + audit_penalty + upkeep_due (recomputed after sales
    and demolitions)."""
    tax = tax_of(s.farm[p]) if tax_due(s, p) else 0
    return tax + s.audit_pen[p] + upkeep_of(s, p)


def stable_charge(s: FarmariaState, p: int) -> int:
    """What one of p's stables adds to P now: its tax if due, plus its upkeep."""
    stable = d.GOODS[d.STABLE]
    return (stable.tax if tax_due(s, p) else 0) + stable.upkeep


def begin_4a(s: FarmariaState, idx: int) -> None:
    """FM-MONEY-1, each player in turn order (FM-YEAR-3)."""
    while idx < s.n:
        p = s.order[idx]
        s.idx = idx
        if not s.jailed_now[p]:  # step 1 (FM-JAIL-1: no permanent income)
            s.wallet[p] += d.CHARACTERS[s.char[p]].income
        if evading(s, p):  # FM-ACT-10 / FM-AMB-51: tax at the start of the payment stage
            s.evaded_amt_now[p] = tax_of(s.farm[p])
        s.bridge = 0
        s.bridge_interest = 0
        s.pay_stage = 1
        if not continue_4a(s):
            return
        idx += 1
    end_of_year(s)


def continue_4a(s: FarmariaState) -> bool:
    """Run the stages of the current player; False while a decision is pending."""
    p = s.order[s.idx]
    if s.pay_stage == 1:
        due = amount_due(s, p)
        if s.wallet[p] < due:
            s.dec = PAY_4A
            s.actor = p
            return False
        s.wallet[p] -= due
        after_payment(s, p)
    owed = s.debt[p] + s.bridge  # step 4
    if s.wallet[p] >= owed:
        s.wallet[p] -= owed
        s.debt[p] = 0
        s.bridge = 0
        s.bridge_interest = 0
        return True
    s.dec = REPAY_4A
    s.actor = p
    return False


def after_payment(s: FarmariaState, p: int) -> None:
    s.wallet[p] += goods_income(s, p)  # step 3, FM-INC-3
    s.pay_stage = 2


def legal_pay(s: FarmariaState) -> list[Action]:
    """FM-DEC-21/22: sell(x) at the emergency price, or borrow / reborrow.

    While the stables' charge is still to be paid (``pay_4a``), each stable may also be
    demolished first (Greek p.4, "at any time"): that lowers P by ``stable_charge``. Once P
    is paid (``repay_4a``) a demolition would only lose the stable's VP, so it is not offered.
    """
    p = s.order[s.idx]
    out: list[Action] = [sell_at(t, fi, st) for t, fi, st in sellables(s.farm[p])]
    if s.pay_stage == 1 and stable_charge(s, p) > 0:
        out += demolition.options(s, p)
    out.append(Borrow())
    return out


def payment_view(s: FarmariaState) -> dict[str, int]:
    """What the pending ``pay_4a`` / ``repay_4a`` decision is about (all public, FM-MONEY-1).

    ``payment_due`` is what this stage asks: P (with its parts) in ``pay_4a``, last year's
    debt plus this year's loan (``loan`` + ``loan_interest``) in ``repay_4a``; ``shortfall``
    is what the wallet lacks, and borrowing takes exactly that with ``borrow_interest``."""
    p = s.order[s.idx]
    out: dict[str, int] = {}
    if s.pay_stage == 1:
        tax = tax_of(s.farm[p]) if tax_due(s, p) else 0
        upkeep = upkeep_of(s, p)
        due = tax + s.audit_pen[p] + upkeep
        out.update(tax_due=tax, audit_fine=s.audit_pen[p], upkeep_due=upkeep)
    else:
        due = s.debt[p] + s.bridge
        out.update(loan=s.bridge - s.bridge_interest, loan_interest=s.bridge_interest)
    short = max(0, due - s.wallet[p])
    out.update(payment_due=due, shortfall=short, borrow_interest=interest(short))
    return out


def resume_4a(s: FarmariaState) -> None:
    """Carry on with the current player's 4a stages, then the next players'."""
    if continue_4a(s):
        begin_4a(s, s.idx + 1)


def apply_pay(s: FarmariaState, a: Action) -> None:
    from games.farmaria.investing import sell_owned

    p = s.order[s.idx]
    if isinstance(a, Demolish):  # relocations first; resume_4a recomputes P after them
        demolition.demolish_stable(s, p, a, PAY_4A)
        return
    if isinstance(a, Sell):  # FM-AMB-14: always the emergency price in 4a
        sell_owned(s, p, CARD_INDEX[a.card], a.field, a.stable, False)
    elif s.pay_stage == 1:  # bridge loan of exactly the shortfall (FM-LOAN-1)
        short = amount_due(s, p) - s.wallet[p]
        s.bridge_interest = interest(short)
        s.bridge = short + s.bridge_interest
        s.wallet[p] = 0
        after_payment(s, p)
    else:  # re-borrow the remainder, carried with fresh interest (FM-LOAN-3)
        rest = s.debt[p] + s.bridge - s.wallet[p]
        s.debt[p] = rest + interest(rest)
        s.bridge = 0
        s.bridge_interest = 0
        s.wallet[p] = 0
        begin_4a(s, s.idx + 1)
        return
    resume_4a(s)


def end_of_year(s: FarmariaState) -> None:
    """4b, the gift, 4c and FM-EOY-1."""
    for p in range(s.n):  # FM-VP-1
        s.vp[p] = count_vp(s, p)
        if s.vp[p] >= s.cond.vp:  # FM-END-1(b)
            s.end_triggered = True
    best = max(s.vp)  # FM-GIFT-1: ties to the earliest in this year's turn order
    leader = next(p for p in s.order if s.vp[p] == best)
    c = market.draw(s)
    if c >= 0:
        s.fd[leader].append(c)
    s.gift_pending[leader] = True
    for p in range(s.n):  # FM-P4C-1
        s.fd[p].extend(s.sel[p])
        s.fd[p].extend(s.opp[p])
        s.sel[p] = []
        s.opp[p] = []
    s.ye_discard.extend(s.ye_current)  # FM-EOY-1 step 1
    s.ye_current = []
    s.effective = 0
    n = s.n
    s.evaded_last = [evading(s, p) and s.char[p] != d.MICHALIS for p in range(n)]  # step 2
    s.evaded_amt_last = s.evaded_amt_now
    s.evaded_amt_now = [0] * n
    s.audit_pen = [0] * n
    s.jailed_now = s.jailed_next  # step 3
    s.jailed_next = [False] * n
    s.played = [0] * n  # step 4
    s.dip_received = [False] * n
    s.stole = [False] * n
    s.theft_targeted = [False] * n
    s.dip_attack = [False] * n
    s.ioanna_used = [False] * n
    s.nikos_used = [False] * n
    s.phase3_done = [False] * n
    s.cm_put.clear()
    s.moved = set()
    if s.year >= s.year_limit or s.end_triggered:  # step 5, FM-END-1/2
        s.over = True
        s.dec = GAME_OVER
        return
    start_year(s)


def final_result(s: FarmariaState) -> Result:
    """FM-END-3: most VP; ties by net money, then fewer Defamations, then shared."""
    keys = [(s.vp[p], s.wallet[p] - s.debt[p], -s.defam[p]) for p in range(s.n)]
    detail = tuple(
        {
            "vp": s.vp[p],
            "wallet": s.wallet[p],
            "debt": s.debt[p],
            "net_money": s.wallet[p] - s.debt[p],
            "defamations": s.defam[p],
        }
        for p in range(s.n)
    )
    return Result(tuple(s.vp), competition_ranks(keys), detail)
