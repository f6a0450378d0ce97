"""A block's claims are renewed while it plays (workers.leases): by a thread every quarter
lease during a long match, and a claim the server no longer gives is known as lost."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from workers.leases import DEFAULT_INTERVAL_S, ClaimKeeper, renew_interval
from workers.reporting import HostUnavailableError, MatchGoneError


def test_the_interval_is_a_quarter_lease() -> None:
    assert renew_interval(900) == 225
    assert renew_interval(0) == DEFAULT_INTERVAL_S


def test_a_long_match_keeps_its_claims_by_renewals_in_the_background() -> None:
    calls: list[list[str]] = []
    enough = threading.Event()

    def renew(ids: Sequence[str]) -> dict[str, bool]:
        calls.append(list(ids))
        if len(calls) >= 3:
            enough.set()
        return dict.fromkeys(ids, True)

    keeper = ClaimKeeper(renew, ["a", "b"], interval_s=0.01)
    with keeper.running():
        assert enough.wait(60), "no renewal in the background"
    assert calls[:3] == [["a", "b"]] * 3 and not keeper.lost


def test_a_refused_renewal_loses_that_claim_only() -> None:
    keeper = ClaimKeeper(lambda ids: {m: m != "b" for m in ids}, ["a", "b"], 60)
    keeper.renew_now()
    assert keeper.lost == {"b"}


def test_an_unreachable_server_loses_nothing_and_a_gone_block_loses_all() -> None:
    def down(ids: Sequence[str]) -> dict[str, bool]:
        raise HostUnavailableError("down")

    def gone(ids: Sequence[str]) -> dict[str, bool]:
        raise MatchGoneError("gone")

    keeper = ClaimKeeper(down, ["a"], 60)
    keeper.renew_now()
    assert not keeper.lost and keeper.renewals == 0
    keeper = ClaimKeeper(gone, ["a", "b"], 60)
    keeper.renew_now()
    assert keeper.lost == {"a", "b"}
