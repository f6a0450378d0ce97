"""The authorization matrix: every method of ``Arena`` and ``MatchHost`` against every kind of
caller. Each cell asserts the status code, and a refused call must write nothing at all (every
row of every table is compared before and after)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from prometheus_client import CollectorRegistry
from sqlalchemy import update

from hamlet.channels import open_channel
from hamlet.v1 import arena_pb2, arena_pb2_grpc, worker_pb2, worker_pb2_grpc
from server.app import HamletServer, build_server
from server.auth import policy
from server.auth.ratelimit import RateLimits
from server.config import Settings
from server.remote_hosts import AllowList
from server.services.quotas import QuotaLimits
from server.services.scheduling import MemoryEnqueuer
from server.storage import models as m
from server.storage.base import utcnow
from tests import toygame
from tests.remotebot import serve_bot
from tests.server import fakeworker
from tests.server.conftest import snapshot
from tests.server.fakeworker import FAKE_WORKER_WINDOW

OK = grpc.StatusCode.OK
UNAUTH = grpc.StatusCode.UNAUTHENTICATED
DENIED = grpc.StatusCode.PERMISSION_DENIED
NOT_FOUND = grpc.StatusCode.NOT_FOUND
FAILED = grpc.StatusCode.FAILED_PRECONDITION
CALLERS = ("none", "wrong", "expired", "revoked", "read", "other", "owner", "admin", "worker")
SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"


@dataclass
class World:
    """A server with users alice (the owner of everything made per cell) and bob."""

    server: HamletServer
    addr: str
    queue: MemoryEnqueuer
    tokens: dict[str, str | None]
    admin: arena_pb2_grpc.ArenaStub
    alice: arena_pb2_grpc.ArenaStub
    worker: worker_pb2_grpc.MatchHostStub
    channels: list[grpc.Channel]
    remote_endpoint: str = ""  # a live remote bot (tests/remotebot.py) on an allowed address
    serial: int = 0

    def channel(self, caller: str) -> grpc.Channel:
        channel = open_channel(self.addr, token=self.tokens[caller])
        self.channels.append(channel)
        return channel

    def fresh(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}{self.serial}"

    # Objects each cell acts on, made fresh so that cells do not interfere.
    def alice_bot(self, retired: bool = False) -> str:
        name = self.fresh("abot")
        self.alice.SubmitBot(arena_pb2.SubmitBotRequest(name=name, game="toy", source=SOURCE))
        if retired:
            self.alice.RetireBot(arena_pb2.RetireBotRequest(name=name))
        return name

    def alice_remote_bot(self) -> arena_pb2.RegisterRemoteBotRequest:
        """A request for another version of a remote bot alice registered."""
        request = arena_pb2.RegisterRemoteBotRequest(
            name=self.fresh("rbot"), game="village", endpoint=self.remote_endpoint
        )
        self.alice.RegisterRemoteBot(request)
        return request

    def alice_tournament(self, start: bool = False) -> str:
        t = self.alice.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game="toy", bots=["alpha", "beta"], players_per_table=2, start=start
            )
        )
        return t.tournament_id

    def queued_match(self) -> str:
        before = len(self.queue.sent)
        self.alice_tournament(start=True)
        return self.queue.sent[before]

    def alice_token_id(self) -> str:
        made = self.alice.CreateToken(arena_pb2.CreateTokenRequest(label="spare"))
        return made.token_info.token_id

    def claimed_report(self) -> worker_pb2.ReportMatchRequest:
        match_id = self.queued_match()
        claim = self.worker.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id))
        return worker_pb2.ReportMatchRequest(
            match_id=match_id,
            outcome=fakeworker.play_outcome(claim.match),
            attempt_token=claim.attempt_token,
        )

    def claimed_lease(self) -> worker_pb2.RenewClaimsRequest:
        match_id = self.queued_match()
        claim = self.worker.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id))
        lease = worker_pb2.ClaimLease(match_id=match_id, attempt_token=claim.attempt_token)
        return worker_pb2.RenewClaimsRequest(worker_id="w", leases=[lease])


def _world(tmp: Path, public_reads: bool) -> Iterator[World]:
    with pytest.MonkeyPatch.context() as mp, serve_bot() as remote_bot:
        toygame.register(mp)
        queue = MemoryEnqueuer()
        settings = Settings(
            dispatch_window=FAKE_WORKER_WINDOW,
            data_dir=tmp,
            grpc_port=0,
            metrics_port=-1,
            reaper_interval_seconds=3600,
            public_reads=public_reads,
            remote_bot_hosts=AllowList.parse("127.0.0.1"),
            # alice makes a bot or an event for nearly every cell: quotas are not this test's
            quotas=QuotaLimits(bots=10_000, versions_per_day=10_000, open_events=10_000),
            # nor are rate limits: every cell of the "wrong" column is a failed sign-in
            rate=RateLimits(auth_failures="100000/minute", writes="100000/minute"),
        )
        server, port = build_server(settings, enqueuer=queue, registry=CollectorRegistry())
        addr = f"127.0.0.1:{port}"
        admin_token = (tmp / "admin.token").read_text().strip()
        worker_token = (tmp / "worker.token").read_text().strip()
        channels = [open_channel(addr, token=admin_token), open_channel(addr, token=worker_token)]
        admin = arena_pb2_grpc.ArenaStub(channels[0])
        worker = worker_pb2_grpc.MatchHostStub(channels[1])
        fakeworker.announce(channels[1], ["toy"], bots=("alpha", "beta", "gamma", "random"))
        alice = admin.CreateUser(arena_pb2.CreateUserRequest(name="alice")).token
        bob = admin.CreateUser(arena_pb2.CreateUserRequest(name="bob")).token
        channels.append(open_channel(addr, token=alice))
        alice_stub = arena_pb2_grpc.ArenaStub(channels[-1])

        def alice_token(**kw: Any) -> arena_pb2.CreateTokenResponse:
            return alice_stub.CreateToken(arena_pb2.CreateTokenRequest(**kw))

        expired = alice_token(expires_in_seconds=3600)
        with server.store.engine.begin() as conn:
            conn.execute(
                update(m.ApiToken)
                .where(m.ApiToken.id == expired.token_info.token_id)
                .values(expires_at=utcnow().replace(year=2000))
            )
        revoked = alice_token()
        alice_stub.RevokeToken(arena_pb2.RevokeTokenRequest(token_id=revoked.token_info.token_id))
        tokens = {
            "none": None,
            "wrong": "hmt_0123456789ab_" + "x" * 43,
            "expired": expired.token,
            "revoked": revoked.token,
            "read": alice_token(scopes=["read"]).token,
            "other": bob,
            "owner": alice,
            "admin": admin_token,
            "worker": worker_token,
        }
        world = World(
            server, addr, queue, tokens, admin, alice_stub, worker, channels, remote_bot.endpoint
        )
        try:
            yield world
        finally:
            for channel in world.channels:
                channel.close()
            server.stop(grace=1)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from _world(tmp_path_factory.mktemp("matrix"), public_reads=True)


@pytest.fixture(scope="module")
def private_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from _world(tmp_path_factory.mktemp("private"), public_reads=False)


Make = Callable[[World], Any]  # builds the request (and whatever it acts on) for one cell
READ_ROW = (OK, UNAUTH, UNAUTH, UNAUTH, OK, OK, OK, OK, OK)
OWNED_ROW = (UNAUTH, UNAUTH, UNAUTH, UNAUTH, DENIED, DENIED, OK, OK, DENIED)
WORKER_ROW = (UNAUTH, UNAUTH, UNAUTH, UNAUTH, DENIED, DENIED, DENIED, DENIED, OK)

ARENA: dict[str, tuple[Make, tuple[grpc.StatusCode, ...]]] = {
    "ListGames": (lambda w: arena_pb2.ListGamesRequest(), READ_ROW),
    "ListBots": (lambda w: arena_pb2.ListBotsRequest(), READ_ROW),
    "ListBotVersions": (lambda w: arena_pb2.ListBotVersionsRequest(name=w.alice_bot()), READ_ROW),
    "GetBotVersion": (lambda w: arena_pb2.GetBotVersionRequest(bot=w.alice_bot()), READ_ROW),
    "GetTournament": (
        lambda w: arena_pb2.TournamentRef(tournament_id=w.alice_tournament()),
        READ_ROW,
    ),
    "ListTournaments": (lambda w: arena_pb2.ListTournamentsRequest(), READ_ROW),
    "ListMatches": (
        lambda w: arena_pb2.TournamentRef(tournament_id=w.alice_tournament()),
        READ_ROW,
    ),
    "WatchTournament": (
        lambda w: arena_pb2.WatchTournamentRequest(tournament_id=_finished_tournament(w)),
        READ_ROW,
    ),
    "GetMatch": (lambda w: arena_pb2.MatchRef(match_id=w.queued_match()), READ_ROW),
    "GetReplay": (lambda w: arena_pb2.MatchRef(match_id=_finished_match(w)), READ_ROW),
    "GetLeaderboard": (lambda w: arena_pb2.GetLeaderboardRequest(game="toy"), READ_ROW),
    "GetBotHistory": (lambda w: arena_pb2.BotHistoryRequest(name="alpha", game="toy"), READ_ROW),
    "GetLadder": (lambda w: arena_pb2.GetLadderRequest(game="toy"), READ_ROW),
    "EndLadderSeason": (
        lambda w: arena_pb2.GetLadderRequest(game="toy"),
        (UNAUTH, UNAUTH, UNAUTH, UNAUTH, DENIED, DENIED, DENIED, OK, DENIED),
    ),
    "GetSprt": (lambda w: arena_pb2.SprtRef(test_id=_test(w)), READ_ROW),
    "WatchSprt": (lambda w: arena_pb2.SprtRef(test_id=_test(w, finished=True)), READ_ROW),
    "StartSprt": (
        lambda w: arena_pb2.StartSprtRequest(
            game="toy", bot_a="alpha", bot_b="beta", elo0=0, elo1=40, max_pairs=1
        ),
        (UNAUTH, UNAUTH, UNAUTH, UNAUTH, DENIED, OK, OK, OK, DENIED),
    ),
    "JoinLadder": (
        lambda w: arena_pb2.LadderRequest(bot_name=w.alice_bot(), game="toy"),
        OWNED_ROW,
    ),
    "LeaveLadder": (
        lambda w: arena_pb2.LadderRequest(bot_name=w.alice_bot(), game="toy"),
        OWNED_ROW,
    ),
    "WhoAmI": (lambda w: arena_pb2.WhoAmIRequest(), READ_ROW),
    "SubmitBot": (
        lambda w: arena_pb2.SubmitBotRequest(
            name=w.alice_bot(), game="toy", source=SOURCE + f"# v{w.fresh('')}\n"
        ),
        OWNED_ROW,
    ),
    "RegisterRemoteBot": (lambda w: w.alice_remote_bot(), OWNED_ROW),
    "RetireBot": (lambda w: arena_pb2.RetireBotRequest(name=w.alice_bot()), OWNED_ROW),
    "RestoreBot": (
        lambda w: arena_pb2.RetireBotRequest(name=w.alice_bot(retired=True)),
        OWNED_ROW,
    ),
    "CreateTournament": (
        lambda w: arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta"], players_per_table=2
        ),
        (UNAUTH, UNAUTH, UNAUTH, UNAUTH, DENIED, OK, OK, OK, DENIED),
    ),
    "StartTournament": (
        lambda w: arena_pb2.TournamentRef(tournament_id=w.alice_tournament()),
        OWNED_ROW,
    ),
    "CancelTournament": (
        lambda w: arena_pb2.TournamentRef(tournament_id=w.alice_tournament()),
        OWNED_ROW,
    ),
    "CreateUser": (
        lambda w: arena_pb2.CreateUserRequest(name=w.fresh("user")),
        (UNAUTH, UNAUTH, UNAUTH, UNAUTH, DENIED, DENIED, DENIED, OK, DENIED),
    ),
    "CreateToken": (
        lambda w: arena_pb2.CreateTokenRequest(user="alice", scopes=["submit"]),
        OWNED_ROW,
    ),
    "ListTokens": (
        lambda w: arena_pb2.ListTokensRequest(user="alice"),
        (UNAUTH, UNAUTH, UNAUTH, UNAUTH, OK, DENIED, OK, OK, DENIED),
    ),
    "GetQuota": (
        lambda w: arena_pb2.GetQuotaRequest(user="alice"),
        (UNAUTH, UNAUTH, UNAUTH, UNAUTH, OK, DENIED, OK, OK, DENIED),
    ),
    # A read-only token cannot revoke a read+submit one; another user's token id answers
    # like an unknown one (NOT_FOUND), naming nobody.
    "RevokeToken": (
        lambda w: arena_pb2.RevokeTokenRequest(token_id=w.alice_token_id()),
        (UNAUTH, UNAUTH, UNAUTH, UNAUTH, DENIED, NOT_FOUND, OK, OK, DENIED),
    ),
}

ARENA.update(
    {
        "SetBotPermission": (
            lambda w: arena_pb2.SetBotPermissionRequest(
                name=w.alice_bot(), permission=arena_pb2.BOT_PERMISSION_OPEN
            ),
            OWNED_ROW,
        ),
        # Anyone may ask for someone else's bot; its owner need not (nothing is written).
        "Challenge": (
            lambda w: arena_pb2.ChallengeRequest(bot=w.alice_bot(), rated=True),
            (UNAUTH, UNAUTH, UNAUTH, UNAUTH, DENIED, OK, FAILED, OK, DENIED),
        ),
        "ListInvitations": (
            lambda w: arena_pb2.ListInvitationsRequest(),
            (UNAUTH, UNAUTH, UNAUTH, UNAUTH, OK, OK, OK, OK, DENIED),
        ),
        # bob asked for alice's bot: alice (or an admin) answers, not bob.
        "AnswerInvitation": (
            lambda w: arena_pb2.AnswerInvitationRequest(invitation_id=_invitation(w), accept=True),
            OWNED_ROW,
        ),
    }
)

MATCH_HOST: dict[str, Make] = {
    "ClaimMatch": lambda w: worker_pb2.ClaimMatchRequest(match_id=w.queued_match()),
    "ReportMatch": lambda w: w.claimed_report(),
    "ClaimBlock": lambda w: worker_pb2.ClaimBlockRequest(match_ids=[w.queued_match()]),
    "ReportBlock": lambda w: worker_pb2.ReportBlockRequest(reports=[w.claimed_report()]),
    "RenewClaims": lambda w: w.claimed_lease(),
    "FetchBotCode": lambda w: worker_pb2.FetchBotCodeRequest(code_sha256=_alice_code(w)),
    "AnnounceWorker": lambda w: worker_pb2.AnnounceWorkerRequest(
        worker_id="w", builtin_bots=[worker_pb2.BuiltinBot(name="alpha", games=["toy"])]
    ),
}


def _alice_code(w: World) -> str:
    name = w.alice_bot()
    return next(
        b.code_sha256 for b in w.admin.ListBots(arena_pb2.ListBotsRequest()).bots if b.name == name
    )


def _invitation(w: World) -> int:
    """A pending invitation: bob asks alice to let him enter a new bot of hers."""
    bob = arena_pb2_grpc.ArenaStub(w.channel("other"))
    return int(bob.Challenge(arena_pb2.ChallengeRequest(bot=w.alice_bot())).invitation_id)


def _finished_match(w: World) -> str:
    """A match whose duplicate block is over (so its replay is published)."""
    before = len(w.queue.sent)
    w.alice_tournament(start=True)
    for match_id in w.queue.sent[before:]:
        fakeworker.play(w.channels[1], match_id)
    return w.queue.sent[before]


def _test(w: World, finished: bool = False) -> str:
    """A head-to-head test of alpha and beta (played to its end when ``finished``)."""
    before = len(w.queue.sent)
    t = w.admin.StartSprt(
        arena_pb2.StartSprtRequest(
            game="toy",
            bot_a="alpha",
            bot_b="beta",
            opponents=["gamma"],
            elo0=0,
            elo1=40,
            max_pairs=1,
        )
    )
    if finished:
        for match_id in w.queue.sent[before:]:
            fakeworker.play(w.channels[1], match_id)
    return t.test_id


def _finished_tournament(w: World) -> str:
    before = len(w.queue.sent)
    tid = w.alice_tournament(start=True)
    for match_id in w.queue.sent[before:]:
        fakeworker.play(w.channels[1], match_id)
    return tid


STREAMS = {
    m.name for m in arena_pb2.DESCRIPTOR.services_by_name["Arena"].methods if m.server_streaming
}


def _call(w: World, service: str, method: str, caller: str, request: Any) -> grpc.StatusCode:
    channel = w.channel(caller)
    stub = (arena_pb2_grpc.ArenaStub if service == "Arena" else worker_pb2_grpc.MatchHostStub)(
        channel
    )
    try:
        answer = getattr(stub, method)(request, timeout=10)
        if method in STREAMS:
            list(answer)
    except grpc.RpcError as exc:
        code: grpc.StatusCode = exc.code()  # type: ignore[attr-defined]
        assert exc.details(), (method, caller)  # type: ignore[attr-defined]
        return code
    return OK


def test_the_policy_covers_every_method() -> None:
    """A method the policy does not list is refused; so every method must be listed (and in
    this matrix)."""
    for desc, service in ((arena_pb2, "Arena"), (worker_pb2, "MatchHost")):
        names = {m.name for m in desc.DESCRIPTOR.services_by_name[service].methods}
        listed = {k.rsplit("/", 1)[1] for k in policy.METHODS if f".{service}/" in k}
        assert names == listed, service
        assert names == set(ARENA if service == "Arena" else MATCH_HOST), service


@pytest.mark.parametrize("method", sorted(ARENA))
def test_arena_matrix(world: World, method: str) -> None:
    make, row = ARENA[method]
    for caller, expected in zip(CALLERS, row, strict=True):
        request = make(world)
        before = snapshot(world.server.store)
        code = _call(world, "Arena", method, caller, request)
        assert code == expected, (method, caller)
        if code is not OK:
            assert snapshot(world.server.store) == before, (method, caller)


@pytest.mark.parametrize("method", sorted(MATCH_HOST))
def test_match_host_matrix(world: World, method: str) -> None:
    for caller, expected in zip(CALLERS, WORKER_ROW, strict=True):
        request = MATCH_HOST[method](world)
        before = snapshot(world.server.store)
        code = _call(world, "MatchHost", method, caller, request)
        assert code == expected, (method, caller)
        if code is not OK:
            assert snapshot(world.server.store) == before, (method, caller)


READS = [m for m, (_, row) in ARENA.items() if row is READ_ROW and m != "WhoAmI"]


@pytest.mark.parametrize("method", sorted(READS))
def test_reads_need_a_token_when_public_reads_are_off(private_world: World, method: str) -> None:
    make, _ = ARENA[method]
    expected = (UNAUTH, UNAUTH, UNAUTH, UNAUTH, OK, OK, OK, OK, DENIED)
    for caller, code in zip(CALLERS, expected, strict=True):
        assert _call(private_world, "Arena", method, caller, make(private_world)) == code, caller


def test_messages_say_what_is_missing(world: World) -> None:
    stub = arena_pb2_grpc.ArenaStub(world.channel("none"))
    with pytest.raises(grpc.RpcError) as err:
        stub.RetireBot(arena_pb2.RetireBotRequest(name="alpha"))
    assert "needs a token" in err.value.details()  # type: ignore[attr-defined]
    stub = arena_pb2_grpc.ArenaStub(world.channel("read"))
    with pytest.raises(grpc.RpcError) as err:
        stub.RetireBot(arena_pb2.RetireBotRequest(name="alpha"))
    assert "submit scope" in err.value.details()  # type: ignore[attr-defined]
    stub = arena_pb2_grpc.ArenaStub(world.channel("expired"))
    with pytest.raises(grpc.RpcError) as err:
        stub.ListGames(arena_pb2.ListGamesRequest())
    assert "expired" in err.value.details()  # type: ignore[attr-defined]
    stub = arena_pb2_grpc.ArenaStub(world.channel("revoked"))
    with pytest.raises(grpc.RpcError) as err:
        stub.ListGames(arena_pb2.ListGamesRequest())
    assert "revoked" in err.value.details()  # type: ignore[attr-defined]
    host = worker_pb2_grpc.MatchHostStub(world.channel("owner"))
    with pytest.raises(grpc.RpcError) as err:
        host.AnnounceWorker(worker_pb2.AnnounceWorkerRequest(worker_id="x"))
    assert "worker scope" in err.value.details()  # type: ignore[attr-defined]


def test_builtin_bots_belong_to_the_system(world: World) -> None:
    for caller in ("owner", "admin"):
        stub = arena_pb2_grpc.ArenaStub(world.channel(caller))
        for method, request in (
            ("RetireBot", arena_pb2.RetireBotRequest(name="alpha")),
            ("SubmitBot", arena_pb2.SubmitBotRequest(name="alpha", game="toy", source=SOURCE)),
        ):
            before = snapshot(world.server.store)
            with pytest.raises(grpc.RpcError) as err:
                getattr(stub, method)(request)
            assert err.value.code() == DENIED  # type: ignore[attr-defined]
            assert "belongs to the system" in err.value.details()  # type: ignore[attr-defined]
            assert snapshot(world.server.store) == before


def test_tokens_are_stored_hashed(world: World) -> None:
    made = world.alice.CreateToken(arena_pb2.CreateTokenRequest(label="look"))
    rows = json.dumps(snapshot(world.server.store))
    secret = made.token.split("_", 2)[2]
    assert made.token_info.token_id in rows and secret not in rows
