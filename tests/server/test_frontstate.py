"""What the front learns from the server's answers (server/frontstate.py): no servers."""

from __future__ import annotations

import grpc

from server.frontstate import ACCEPTED, MAX_TOKENS, CoolDowns, Outcome, Verdict, token_of
from server.peers import COOLDOWN_KEY

GOOD = "hmt_aaaaaaaaaaaa_" + "g" * 43
WRONG = "hmt_aaaaaaaaaaaa_" + "w" * 43
OTHER_ID = "hmt_bbbbbbbbbbbb_" + "w" * 43


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_outcomes_of_the_servers_answers() -> None:
    assert Outcome.of(grpc.StatusCode.UNAUTHENTICATED, ()).verdict is Verdict.REJECTED
    for code in (grpc.StatusCode.OK, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.NOT_FOUND):
        assert Outcome.of(code, ()).verdict is Verdict.ACCEPTED
    cooled = Outcome.of(grpc.StatusCode.RESOURCE_EXHAUSTED, ((COOLDOWN_KEY, "address 42"),))
    assert (cooled.verdict, cooled.seconds) == (Verdict.COOLDOWN_ADDRESS, 42.0)
    token = Outcome.of(grpc.StatusCode.RESOURCE_EXHAUSTED, ((COOLDOWN_KEY, "token 7"),))
    assert token.verdict is Verdict.COOLDOWN_TOKEN
    # A rate limit or a size refusal says nothing about the token; nor does a garbled hint.
    assert Outcome.of(grpc.StatusCode.RESOURCE_EXHAUSTED, ()).verdict is Verdict.UNKNOWN
    garbled = ((COOLDOWN_KEY, "everyone forever"),)
    assert Outcome.of(grpc.StatusCode.RESOURCE_EXHAUSTED, garbled).verdict is Verdict.UNKNOWN
    # INVALID_ARGUMENT and UNAVAILABLE may come before authentication: no verdict.
    assert Outcome.of(grpc.StatusCode.INVALID_ARGUMENT, ()).verdict is Verdict.UNKNOWN
    assert Outcome.of(grpc.StatusCode.UNAVAILABLE, ()).verdict is Verdict.UNKNOWN


def test_bearer_tokens_are_read_without_raising() -> None:
    assert token_of((("authorization", f"Bearer {GOOD}"),)) == GOOD
    assert token_of((("authorization", b"bearer  tok "),)) == "tok"
    assert token_of((("authorization", "Basic xyz"),)) is None
    assert token_of((("authorization", "Bearer "),)) is None
    assert token_of((("other", "x"),)) is None


def test_an_address_cool_down_refuses_tokens_not_accepted_before() -> None:
    clock = Clock()
    state = CoolDowns(clock)
    state.learn("10.0.0.1", GOOD, ACCEPTED)
    assert state.refusal("10.0.0.1", WRONG) is None  # nothing announced yet
    state.learn("10.0.0.1", WRONG, Outcome(Verdict.COOLDOWN_ADDRESS, 30))
    refused = state.refusal("10.0.0.1", WRONG)
    assert refused is not None
    message, hint = refused
    assert "from this address" in message and "30 s" in message and hint == "address 30"
    assert state.refusal("10.0.0.1", OTHER_ID) is not None  # any unproven token from there
    assert state.refusal("10.0.0.1", GOOD) is None  # the server would take it: so do we
    assert state.refusal("10.0.0.2", WRONG) is None  # another address is not cooling down
    clock.now += 31
    assert state.refusal("10.0.0.1", WRONG) is None  # the window has room again


def test_a_token_cool_down_refuses_that_id_from_that_address_only() -> None:
    state = CoolDowns(Clock())
    state.learn("10.0.0.1", WRONG, Outcome(Verdict.COOLDOWN_TOKEN, 10))
    refused = state.refusal("10.0.0.1", WRONG)
    assert refused is not None and "for token aaaaaaaaaaaa" in refused[0]
    assert refused[1] == "token 10"
    assert state.refusal("10.0.0.1", OTHER_ID) is None
    assert state.refusal("10.0.0.9", WRONG) is None


def test_a_rejected_token_is_no_longer_trusted() -> None:
    state = CoolDowns(Clock())
    state.learn("h", GOOD, ACCEPTED)
    state.learn("h", GOOD, Outcome(Verdict.REJECTED))  # revoked meanwhile
    state.learn("h", WRONG, Outcome(Verdict.COOLDOWN_ADDRESS, 5))
    assert state.refusal("h", GOOD) is not None


def test_memory_is_bounded() -> None:
    state = CoolDowns(Clock())
    for i in range(MAX_TOKENS + 50):
        state.learn("h", f"hmt_{i:012d}_{'s' * 43}", ACCEPTED)
    for i in range(60_000):
        state.learn(
            f"10.{i // 65536}.{i // 256 % 256}.{i % 256}",
            WRONG,
            Outcome(Verdict.COOLDOWN_ADDRESS, 5),
        )
    assert len(state._accepted) == MAX_TOKENS
    assert len(state._until) <= 50_000


def test_the_callers_deadline_travels_with_the_forwarded_call() -> None:
    from server.front import _timeout

    class Context:
        def __init__(self, left: float | None) -> None:
            self.left = left

        def time_remaining(self) -> float | None:
            return self.left

    assert _timeout(Context(2.5)) == 2.5  # type: ignore[arg-type]
    assert _timeout(Context(0.0)) == 0.001  # type: ignore[arg-type]  # already late: fail fast
    assert _timeout(Context(None)) is None  # type: ignore[arg-type]
    assert _timeout(Context(3e9)) is None  # type: ignore[arg-type]  # gRPC's "no deadline"
