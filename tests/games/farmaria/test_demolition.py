"""Demolishing a stable outside 3a: the Greek "at any time" (p.4) in the 4a payment.

The spec (FM-AMB-29) allows demolition in the owner's 3a only; the engine follows the Greek
and also offers it in ``pay_4a`` (FM-DEC-21) while the stable is still charged to P.
"""

from __future__ import annotations

from games.farmaria import data as d
from games.farmaria.farm import CTYPE
from games.farmaria.flow import bit
from games.farmaria.state import FarmariaState
from tests.games.farmaria.helpers import act, at_3a, at_4a, blank, events, field, put, strs


def _tasos_with_stable(*evs: str, wallet: int = 0) -> FarmariaState:
    """Tasos (income 3): F0 with an empty stable and a sheep outside; P = 4 under Tax."""
    s = blank(("tasos", "lambis"))
    put(s, 0, "stable")
    put(s, 0, "sheep")
    s.wallet[0] = wallet
    events(s, *evs)
    return s


def test_FM_FARM_6_demolish_in_pay_4a_saves_the_stable_tax() -> None:
    """Covers: FM-FARM-6
    Covers: FM-DEC-21
    Covers: FM-MONEY-1

    Under Tax a stable adds its tax to P, so demolishing it in ``pay_4a`` (Greek p.4: "at any
    time") lowers P: M = 0 + 3 < P = 1 field upkeep + 1 stable tax + 2 sheep = 4, and after
    the demolition P = 3 is paid without a loan."""
    s = _tasos_with_stable("tax", "merchant")
    at_4a(s)
    assert strs(s) == ["sell sheep F0", "sell field F0", "demolish F0/S0", "borrow"]
    stable = s.farm[0][0].stables[0]
    act(s, "demolish F0/S0")  # no animals inside: no relocation, P is recomputed at once
    assert s.is_over()  # paid (4 of 4), income 2, no debt: nothing more to decide
    assert (s.wallet[0], s.debt[0]) == (2, 0)
    assert s.farm[0][0].stables == [] and stable in s.removed  # out of the game, not the CM
    assert s.vp[0] == d.GOODS[d.SHEEP].vp  # the stable's VP went with it

    borrowed = _tasos_with_stable("tax", "merchant")
    at_4a(borrowed)
    act(borrowed, "borrow")  # the alternative: a 1-coin bridge loan, repaid after income
    assert (borrowed.wallet[0], borrowed.debt[0]) == (1, 0)


def test_FM_DEC_21_no_demolish_while_the_stable_costs_nothing() -> None:
    """Covers: FM-DEC-21
    Covers: FM-FARM-6
    Covers: FM-CHAR-4
    Covers: FM-ACT-10

    Demolition is offered in 4a only while it lowers P: not without Tax (a stable has no
    upkeep), not for Michalis (no tax) and not for a player evading the tax this year."""
    no_tax = _tasos_with_stable("merchant")
    no_tax.audit_pen[0] = 5  # short without Tax: P = 2 upkeep + 5 > M = 3
    at_4a(no_tax)
    assert strs(no_tax) == ["sell sheep F0", "sell field F0", "borrow"]

    michalis = blank(("michalis", "lambis"))
    put(michalis, 0, "stable")
    michalis.wallet[0] = 0
    michalis.audit_pen[0] = 9
    events(michalis, "tax", "merchant")
    at_4a(michalis)
    assert strs(michalis) == ["sell field F0", "borrow"]

    evader = _tasos_with_stable("tax", "merchant")
    evader.played[0] |= bit(d.TAX_EVASION)
    evader.audit_pen[0] = 5
    at_4a(evader)
    assert strs(evader) == ["sell sheep F0", "sell field F0", "borrow"]


def test_FM_DEC_22_no_demolish_once_the_charge_is_paid() -> None:
    """Covers: FM-DEC-22

    At the repayment stage the stable's tax is already paid; demolishing would only lose its
    VP, so ``repay_4a`` offers sales and ``reborrow`` only."""
    s = _tasos_with_stable("tax", "merchant", wallet=10)
    s.debt[0] = 30
    at_4a(s)
    assert s.wallet[0] < 30  # paid P, now short of the debt
    assert strs(s) == ["sell sheep F0", "sell field F0", "borrow"]


def test_FM_DEC_10_relocation_during_4a_at_the_emergency_price() -> None:
    """Covers: FM-DEC-10
    Covers: FM-FARM-6
    Covers: FM-SELL-2

    A stable demolished in ``pay_4a`` sends its animals to ``relocate`` as in 3a; a sale
    there is at the emergency price even under Merchant (FM-AMB-14), and the payment then
    goes on with P recomputed."""
    s = blank(("tasos", "lambis"))
    put(s, 0, "stable")
    put(s, 0, "sheep", 0, 0, 2)
    f1 = field(s, 0)
    put(s, 0, "apple", f1)
    s.wallet[0] = 0
    s.audit_pen[0] = 6
    events(s, "tax", "merchant")
    at_4a(s)  # P = 2 fields + stable 1 + sheep 4 + apple 1 + audit 6 = 14, M = 3
    assert "demolish F0/S0" in strs(s)
    act(s, "demolish F0/S0")
    decision = s.observation(0)["decision"]
    assert decision["kind"] == "relocate" and decision["player"] == 0
    assert strs(s) == ["place F1", "sell it"]  # FM-AMB-46: not F0, the stable's own field
    act(s, "sell it")  # emergency 3, not the merchant's 6
    assert s.wallet[0] == 3 + d.GOODS[d.SHEEP].emergency
    act(s, "place F1")
    assert s.observation(0)["decision"]["kind"] == "pay_4a"  # P = 2 + 2 + 1 + 6 = 11 > 6
    assert strs(s) == ["sell field F0", "sell sheep F1", "sell field F1", "borrow"]
    assert s.farm[0][0].outside == [] and s.farm[0][0].stables == []
    act(s, "borrow")  # bridge 5 + 2 interest; income (apple 3 + sheep 2) repays 5 of it
    assert s.observation(0)["decision"]["kind"] == "repay_4a"
    act(s, "borrow")
    assert (s.wallet[0], s.debt[0]) == (0, 2)


def test_FM_AMB_46_demolished_stable_animals_leave_its_field() -> None:
    """Covers: FM-FARM-6
    Covers: FM-DEC-10

    The Greek (p.4): the animals must be moved to *another* field of the player («σε άλλο
    Χωράφι του»), otherwise sold. On a one-field farm there is no other field: both sheep are
    sold (a single option, applied by the engine), though the freed spaces of F0 had room."""
    s = blank(("michalis", "anthi"))
    put(s, 0, "stable")
    put(s, 0, "sheep", 0, 0, 2)
    s.wallet[0] = 0
    at_3a(s, 0)
    act(s, "demolish F0/S0")
    assert s.observation(0)["decision"]["kind"] == "action_3a"  # no relocate decision asked
    assert s.farm[0][0].outside == [] and s.farm[0][0].stables == []
    assert s.wallet[0] == 2 * d.GOODS[d.SHEEP].emergency  # sold, no Merchant this year
    assert sum(CTYPE[c] == d.SHEEP for stack in s.cm for c in stack) == 2  # sold to the CM

    two = blank(("michalis", "anthi"))
    put(two, 0, "stable")
    put(two, 0, "sheep", 0, 0, 2)
    field(two, 0)
    put(two, 0, "stable", 0)
    at_3a(two, 0)
    act(two, "demolish F0/S0")  # F0 keeps a second, empty stable: still not a target
    assert strs(two) == ["place F1", "sell it"]
    act(two, "place F1")
    act(two, "place F1")
    assert [len(f.outside) for f in two.farm[0]] == [0, 2]
    assert two.farm[0][0].inside == [[]]
