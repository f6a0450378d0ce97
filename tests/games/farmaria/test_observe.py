"""What the observation says about a pending decision: the 4a payment, the audit's basis,
the animals waiting to be relocated (FM-STATE-2: public or the player's own)."""

from __future__ import annotations

from typing import Any

from games.farmaria import data as d
from hamlet import codec
from tests.games.farmaria.helpers import act, at_3a, at_4a, blank, field, put, strs
from tests.games.farmaria.test_demolition import _tasos_with_stable


def _round_trip(obs: dict[str, Any]) -> dict[str, Any]:
    msg = codec.observation_to_proto("farmaria", obs)
    return codec.observation_from_proto("farmaria", type(msg).FromString(msg.SerializeToString()))


def test_FM_DEC_21_pay_4a_shows_what_is_due_and_what_borrowing_adds() -> None:
    """Covers: FM-DEC-21
    Covers: FM-DEC-22
    Covers: FM-MONEY-1
    Covers: FM-LOAN-1
    Covers: FM-STATE-2

    Tasos evaded 3 coins of tax last year and the audit fines him 6: under Tax his farm owes
    3 tax (field, stable, sheep) and 1 upkeep (the sheep), so P = 10 against a wallet of 3
    (his income). Both the pay and the repay decision say so, and so do the typed messages."""
    s = _tasos_with_stable("tax", "merchant")
    s.evaded_last[0], s.evaded_amt_last[0], s.audit_pen[0] = True, 3, 6
    s.debt[0] = 4
    at_4a(s)
    assert strs(s)[-1] == "borrow"
    for viewer in (0, 1):  # all public: the opponent sees the same
        obs = s.observation(viewer)
        dec = obs["decision"]
        assert dec["kind"] == "pay_4a"
        assert (dec["tax_due"], dec["audit_fine"], dec["upkeep_due"]) == (3, 6, 1)
        assert (dec["payment_due"], dec["shortfall"], dec["borrow_interest"]) == (10, 7, 4)
        assert obs["players"][0]["evaded_last_year"] == 3
        assert obs["players"][0]["audit_fine"] == 6
        assert obs["players"][1]["evaded_last_year"] == 0
        assert _round_trip(obs) == obs
    act(s, "borrow")  # a bridge loan of 7 + 4 interest, then income 2 (the sheep)
    obs = s.observation(1)
    dec = obs["decision"]
    assert dec["kind"] == "repay_4a"
    assert obs["players"][0]["wallet"] == 2 and obs["players"][0]["debt"] == 4
    assert (dec["loan"], dec["loan_interest"]) == (7, 4)
    assert dec["payment_due"] == 4 + 7 + 4  # last year's debt and this year's loan
    assert (dec["shortfall"], dec["borrow_interest"]) == (13, 6)
    assert "tax_due" not in dec  # P is paid: its parts are no longer what is asked
    assert _round_trip(obs) == obs
    act(s, "borrow")  # re-borrowing carries exactly what the decision announced
    assert s.debt[0] == dec["shortfall"] + dec["borrow_interest"]


def test_FM_DEC_10_relocation_lists_every_waiting_animal() -> None:
    """Covers: FM-DEC-10
    Covers: FM-STATE-2

    A stable with a sheep and a ram is demolished: the relocate decision names both animals,
    the next one first, and after the first is placed only the second."""
    s = blank(("michalis", "anthi"))
    put(s, 0, "stable")
    put(s, 0, "sheep", 0, 0)
    put(s, 0, "ram", 0, 0)
    field(s, 0)
    at_3a(s, 0)
    act(s, "demolish F0/S0")
    obs = s.observation(1)
    assert obs["decision"]["relocating"] == ["sheep", "ram"]
    assert _round_trip(obs) == obs
    act(s, "place F1")
    assert s.observation(0)["decision"]["relocating"] == ["ram"]
    act(s, "sell it")
    assert "relocating" not in s.observation(0)["decision"]
    assert s.wallet[0] == 6 + d.GOODS[d.RAM].emergency
