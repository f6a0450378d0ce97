"""Attacks on the gRPC boundary (issue 22, points 1 and 4): wrong-token floods, the
known/unknown token-id oracle, revocation that names an owner, large requests before
authentication, write limits. Real servers on loopback, bounded loops, no timing assertions."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import grpc
import pytest

from hamlet.v1 import arena_pb2, worker_pb2, worker_pb2_grpc
from server.auth import tokens
from server.auth.ratelimit import RateKind, RateLimiter, RateLimits, redis_storage_url
from server.pools import PoolInterceptor
from server.services.accounts import AccountService
from server.services.errors import ResourceExhaustedError, UnauthenticatedError
from server.storage import SqlStore
from tests.server.conftest import Running, serving, snapshot

AUTH_FAILURES = 5


@pytest.fixture
def kdf_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts key derivations (the server runs in this process)."""
    calls: list[int] = []
    real = tokens.derive

    def counted(secret: str, salt: str) -> str:
        calls.append(1)
        return real(secret, salt)

    monkeypatch.setattr(tokens, "derive", counted)
    return calls


@pytest.fixture
def guarded(tmp_path: Path, toy: str) -> Iterator[Running]:
    """A server that cools a client down after a few failed authentications."""
    with serving(tmp_path, rate=RateLimits(auth_failures=f"{AUTH_FAILURES}/minute")) as run:
        yield run


def wrong(token: str) -> str:
    """``token`` with a wrong secret of the same length."""
    prefix, token_id, secret = token.split("_", 2)
    return f"{prefix}_{token_id}_{'x' * len(secret)}"


def code_and_details(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def rate_limited(run: Running, kind: str) -> float:
    value = run.registry.get_sample_value("hamlet_rate_limited_total", {"kind": kind})
    return value or 0.0


def test_a_wrong_token_flood_is_throttled_before_any_key_derivation_and_workers_go_on(
    guarded: Running, kdf_calls: list[int]
) -> None:
    announce = worker_pb2.AnnounceWorkerRequest(worker_id="real")
    guarded.host.AnnounceWorker(announce)  # the real worker, verified at start
    bad = guarded.channel_for(wrong(guarded.worker_token))
    attacker = worker_pb2_grpc.MatchHostStub(bad)
    codes = [code_and_details(lambda: attacker.AnnounceWorker(announce))[0] for _ in range(8)]
    assert codes[:AUTH_FAILURES] == [grpc.StatusCode.UNAUTHENTICATED] * AUTH_FAILURES
    assert set(codes[AUTH_FAILURES:]) == {grpc.StatusCode.RESOURCE_EXHAUSTED}

    # During the cool-down: no key derivation for the flood, and the real worker goes on.
    derived = len(kdf_calls)
    stop = threading.Event()
    flood_codes: list[grpc.StatusCode] = []

    def flood() -> None:
        for _ in range(200):  # bounded
            if stop.is_set():
                return
            try:
                attacker.AnnounceWorker(announce)
            except grpc.RpcError as exc:
                flood_codes.append(exc.code())

    threads = [threading.Thread(target=flood) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        for _ in range(20):
            guarded.host.AnnounceWorker(announce)  # raises if refused
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    assert flood_codes and set(flood_codes) == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert len(kdf_calls) == derived
    assert rate_limited(guarded, "auth") >= len(flood_codes)


def test_the_cool_down_names_the_wait_and_covers_the_token_id_from_any_address(
    guarded: Running,
) -> None:
    stub = guarded.connect(wrong(guarded.admin_token))
    for _ in range(AUTH_FAILURES):
        code_and_details(lambda: stub.WhoAmI(arena_pb2.WhoAmIRequest()))
    code, details = code_and_details(lambda: stub.WhoAmI(arena_pb2.WhoAmIRequest()))
    assert code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "wait up to 60 s" in details


def test_known_and_unknown_token_ids_cost_and_answer_the_same(
    running: Running, kdf_calls: list[int]
) -> None:
    known = wrong(running.admin_token)
    token_id = running.admin_token.split("_")[1]
    other_id = "0" * len(token_id) if token_id != "0" * len(token_id) else "1" * len(token_id)
    unknown = known.replace(token_id, other_id)
    answers = []
    for token in (known, unknown):
        before = len(kdf_calls)
        stub = running.connect(token)
        code, details = code_and_details(lambda s=stub: s.WhoAmI(arena_pb2.WhoAmIRequest()))
        answers.append((code, details.replace(token_id, "<id>").replace(other_id, "<id>")))
        assert len(kdf_calls) - before == 1  # one key derivation each
    assert answers[0] == answers[1]
    assert answers[0][0] is grpc.StatusCode.UNAUTHENTICATED


def test_revoking_another_users_token_reveals_nothing(running: Running) -> None:
    _alice, alice = running.user("alice")
    _bob, bob = running.user("bob")
    spare = alice.CreateToken(arena_pb2.CreateTokenRequest(label="spare")).token_info.token_id
    before = snapshot(running.store)
    theirs = code_and_details(lambda: bob.RevokeToken(arena_pb2.RevokeTokenRequest(token_id=spare)))
    unknown_id = "f" * len(spare) if spare != "f" * len(spare) else "e" * len(spare)
    nobodys = code_and_details(
        lambda: bob.RevokeToken(arena_pb2.RevokeTokenRequest(token_id=unknown_id))
    )
    assert theirs[0] is nobodys[0] is grpc.StatusCode.NOT_FOUND
    assert theirs[1].replace(spare, "<id>") == nobodys[1].replace(unknown_id, "<id>")
    assert "alice" not in theirs[1]
    assert snapshot(running.store) == before


def test_writes_over_the_limit_are_refused_per_token(tmp_path: Path, toy: str) -> None:
    with serving(tmp_path, rate=RateLimits(writes="3/minute")) as run:
        _token, alice = run.user("alice")
        create = arena_pb2.CreateTokenRequest(scopes=["read"])
        for _ in range(3):
            alice.CreateToken(create)
        before = snapshot(run.store)
        code, details = code_and_details(lambda: alice.CreateToken(create))
        assert code is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "HAMLET_RATE_WRITES" in details
        assert snapshot(run.store) == before
        assert rate_limited(run, "write") == 1
        # another token of another user has its own share
        _token, bob = run.user("bob")
        bob.CreateToken(create)
        for _ in range(5):  # admins are exempt, as from quotas
            run.arena.CreateToken(create)


def test_expensive_reads_over_the_limit_are_refused_per_address(tmp_path: Path, toy: str) -> None:
    with serving(tmp_path, rate=RateLimits(reads="2/minute")) as run:
        for _ in range(2):
            run.connect(None).ListTournaments(arena_pb2.ListTournamentsRequest())
        code, _ = code_and_details(
            lambda: run.connect(None).ListTournaments(arena_pb2.ListTournamentsRequest())
        )
        assert code is grpc.StatusCode.RESOURCE_EXHAUSTED
        run.connect(None).ListGames(arena_pb2.ListGamesRequest())  # a cheap read is not counted
        assert rate_limited(run, "read") == 1


BIG = 16 * 1024 * 1024 - 4096


def test_a_16_mib_anonymous_request_is_refused_unparsed(running: Running) -> None:
    request = arena_pb2.SubmitBotRequest(name="big", game="toy", archive=b"\0" * BIG)
    before = snapshot(running.store)
    # a method that needs a token: refused without reading the request at all
    code, details = code_and_details(lambda: running.connect(None).SubmitBot(request))
    assert code is grpc.StatusCode.UNAUTHENTICATED
    assert "needs a token" in details
    # a public read: read, but refused by its size before parsing
    big_read = arena_pb2.ListMatchesRequest(tournament_id="x" * BIG)
    code, details = code_and_details(lambda: running.connect(None).ListMatches(big_read))
    assert code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "64 KiB limit" in details
    # a small-request method refuses a large request even with a valid token
    big_read = arena_pb2.ListMatchesRequest(tournament_id="x" * (100 * 1024))
    code, details = code_and_details(lambda: running.arena.ListMatches(big_read))
    assert code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert snapshot(running.store) == before


def test_a_large_request_with_a_wrong_token_is_refused_before_parsing(running: Running) -> None:
    request = arena_pb2.SubmitBotRequest(name="big", game="toy", archive=b"\0" * (1024 * 1024))
    stub = running.connect(wrong(running.admin_token))
    code, _ = code_and_details(lambda: stub.SubmitBot(request))
    assert code is grpc.StatusCode.UNAUTHENTICATED


def test_an_authenticated_large_submission_is_parsed(running: Running) -> None:
    source = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n" + "#" * (200 * 1024)
    made = running.arena.SubmitBot(
        arena_pb2.SubmitBotRequest(name="roomy", game="toy", source=source)
    )
    assert made.bot.name == "roomy"


def test_health_and_reflection_take_small_requests_only(running: Running) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    health = health_pb2_grpc.HealthStub(running.anon_channel)
    assert health.Check(health_pb2.HealthCheckRequest(service="")).status == 1
    code, _ = code_and_details(
        lambda: health.Check(health_pb2.HealthCheckRequest(service="x" * (100 * 1024)))
    )
    assert code is not grpc.StatusCode.OK


def test_a_cooled_token_id_stays_open_to_a_clean_address_only(
    store: SqlStore, tmp_path: Path, kdf_calls: list[int]
) -> None:
    accounts = AccountService(store, limiter=RateLimiter(RateLimits(auth_failures="3/minute")))
    accounts.bootstrap(tmp_path)
    admin = (tmp_path / "admin.token").read_text().strip()
    for _ in range(3):  # the attacker at .1 cools the token id (and its own address) down
        with pytest.raises(UnauthenticatedError):
            accounts.authenticate(wrong(admin), "10.0.0.1")
    with pytest.raises(ResourceExhaustedError):
        accounts.authenticate(wrong(admin), "10.0.0.1")
    # another attacker gets one try, then its address is no longer clean
    with pytest.raises(UnauthenticatedError):
        accounts.authenticate(wrong(admin), "10.0.0.2")
    derived = len(kdf_calls)
    with pytest.raises(ResourceExhaustedError):
        accounts.authenticate(wrong(admin), "10.0.0.2")
    assert len(kdf_calls) == derived
    # the real holder, at a clean address, is not locked out
    assert accounts.authenticate(admin, "10.0.0.9").name == "admin"


def test_a_revocation_keeps_other_verified_tokens(guarded: Running) -> None:
    attacker = worker_pb2_grpc.MatchHostStub(guarded.channel_for(wrong(guarded.worker_token)))
    announce = worker_pb2.AnnounceWorkerRequest(worker_id="real")
    guarded.arena.WhoAmI(arena_pb2.WhoAmIRequest())  # the admin's token, verified before
    for _ in range(AUTH_FAILURES + 1):  # the worker's token id and loopback cool down
        with pytest.raises(grpc.RpcError):
            attacker.AnnounceWorker(announce)
    spare = guarded.arena.CreateToken(arena_pb2.CreateTokenRequest(scopes=["read"]))
    guarded.arena.RevokeToken(arena_pb2.RevokeTokenRequest(token_id=spare.token_info.token_id))
    guarded.host.AnnounceWorker(announce)  # still verified: no cool-down applies


def test_only_admitted_calls_go_to_the_workers_pool() -> None:
    pool = futures.ThreadPoolExecutor(1)
    handler = grpc.unary_unary_rpc_method_handler(lambda request, context: None)
    details = SimpleNamespace(method="/hamlet.v1.MatchHost/ClaimMatch", invocation_metadata=())
    for admit, on_pool in ((False, False), (True, True)):
        interceptor = PoolInterceptor("/hamlet.v1.MatchHost/", pool, admit=lambda d, a=admit: a)
        chosen = interceptor.intercept_service(lambda d: handler, details)  # type: ignore[arg-type]
        assert chosen is not None
        assert (getattr(chosen.unary_unary, "experimental_thread_pool", None) is pool) is on_pool
    pool.shutdown()


def test_an_unreachable_rate_storage_falls_back_to_memory() -> None:
    limiter = RateLimiter(
        RateLimits(auth_failures="2/minute", storage="redis"), "redis://127.0.0.1:1/0"
    )
    assert limiter.under(RateKind.AUTH, "addr:x")  # not locked out
    limiter.failed("addr:x")
    limiter.failed("addr:x")
    assert not limiter.under(RateKind.AUTH, "addr:x")  # and not open either
    assert redis_storage_url("unix:///run/redis.sock") == "redis+unix:///run/redis.sock"
