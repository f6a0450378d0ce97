"""Quotas per user, against a real server with small limits: each quota accepts a call at its
limit, refuses one over it with RESOURCE_EXHAUSTED (naming the limit, the use and when it
resets) and writes nothing, and accepts again once it resets (the next UTC midnight, on a
clock the test moves) or frees (a bot retired, an event ended). Admins are exempt."""

from __future__ import annotations

import io
import random
import re
import threading
import tracemalloc
import zipfile
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from prometheus_client import CollectorRegistry

from bots.archive import MAX_MANIFEST_BYTES, ArchiveError, check, measure
from cli.main import main
from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from server.app import build_server
from server.config import ConfigError, Settings
from server.remote_hosts import AllowList
from server.services.quotas import Quota, QuotaLimits, QuotaService, day_start, utcnow, variable
from server.services.scheduling import MemoryEnqueuer
from tests.remotebot import serve_bot
from tests.server import fakeworker
from tests.server.conftest import Running, snapshot

SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"
EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED
DOCS = Path(__file__).resolve().parents[2] / "docs" / "running.md"


def serve(tmp_path: Path, limits: QuotaLimits) -> Running:
    settings = Settings(
        data_dir=tmp_path / "data",
        grpc_port=0,
        metrics_port=-1,
        reaper_interval_seconds=3600,
        quotas=limits,
        remote_bot_hosts=AllowList.parse("127.0.0.1"),
    )
    queue = MemoryEnqueuer()
    registry = CollectorRegistry()
    server, port = build_server(settings, enqueuer=queue, registry=registry)
    run = Running(server, port, queue, registry)
    fakeworker.announce(run.worker_channel, ["toy"], bots=("alpha", "beta", "gamma", "random"))
    return run


@pytest.fixture
def limited(tmp_path: Path, toy: str) -> Iterator[Callable[..., Running]]:
    """Start a server with these limits (the rest at their defaults)."""
    made: list[Running] = []

    def make(**limits: int) -> Running:
        made.append(serve(tmp_path / f"server{len(made)}", QuotaLimits(**limits)))
        return made[-1]

    yield make
    for run in made:
        run.close()
        run.server.stop(grace=1)


def refused(run: Running, call: Callable[[], Any], code: grpc.StatusCode = EXHAUSTED) -> str:
    """The message of a call refused with ``code``; it must have written nothing."""
    before = snapshot(run.store)
    with pytest.raises(grpc.RpcError) as err:
        call()
    assert err.value.code() == code, err.value.details()  # type: ignore[attr-defined]
    assert snapshot(run.store) == before
    details: str = err.value.details()  # type: ignore[attr-defined]
    return details


def submit(stub: arena_pb2_grpc.ArenaStub, name: str, tag: str = "", **kw: Any) -> Any:
    source = kw.pop("source", SOURCE + f"# {name} {tag}\n")
    return stub.SubmitBot(arena_pb2.SubmitBotRequest(name=name, game="toy", source=source, **kw))


def create(stub: arena_pb2_grpc.ArenaStub, rounds: int = 1, fmt: int = 0) -> str:
    request = arena_pb2.CreateTournamentRequest(
        game="toy",
        bots=["alpha", "beta", "gamma"],
        players_per_table=2,
        rounds=rounds,
        format=fmt,  # type: ignore[arg-type]
    )
    return str(stub.CreateTournament(request).tournament_id)


def sprt(stub: arena_pb2_grpc.ArenaStub, pairs: int = 1) -> str:
    request = arena_pb2.StartSprtRequest(
        game="toy", bot_a="alpha", bot_b="beta", elo0=0, elo1=40, max_pairs=pairs
    )
    return str(stub.StartSprt(request).test_id)


def tomorrow(run: Running) -> None:
    """Move the quotas' clock to the next UTC day."""
    assert run.server.quotas is not None
    run.server.quotas.now = lambda: utcnow() + timedelta(days=1)


def zipped(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


def bot_archive(extra: dict[str, bytes] | None = None) -> bytes:
    manifest = b'{"runtime": "python3", "entry": "main.py"}'
    return zipped({"hamlet.json": manifest, "main.py": SOURCE.encode(), **(extra or {})})


def next_midnight() -> str:
    return (day_start(utcnow()) + timedelta(days=1)).isoformat() + "Z"


def test_bots_owned(limited: Callable[..., Running]) -> None:
    run = limited(bots=2, versions_per_day=100)
    _, ann = run.user("ann")
    submit(ann, "a1")
    submit(ann, "a2")  # at the limit
    message = refused(run, lambda: submit(ann, "a3"))
    assert message == (
        "quota bots (bots you own, not retired): limit 2, used 2, this needs 1 more; "
        "a place frees when you retire a bot (`hamlet bot retire NAME`)"
    )
    remote = arena_pb2.RegisterRemoteBotRequest(
        name="a3", game="toy", endpoint="grpc://127.0.0.1:9"
    )
    assert "quota bots" in refused(run, lambda: ann.RegisterRemoteBot(remote))
    submit(ann, "a1", "v2")  # a new version of a bot is no new bot
    ann.RetireBot(arena_pb2.RetireBotRequest(name="a1"))
    submit(ann, "a3")  # retiring freed a place
    restore = arena_pb2.RetireBotRequest(name="a1")
    assert "quota bots" in refused(run, lambda: ann.RestoreBot(restore))


def test_versions_per_day(limited: Callable[..., Running]) -> None:
    run = limited(versions_per_day=3)
    _, ann = run.user("ann")
    for tag in ("v1", "v2", "v3"):  # at the limit
        submit(ann, "mine", tag)
    message = refused(run, lambda: submit(ann, "mine", "v4"))
    assert message == (
        "quota versions_per_day (bot versions created today (UTC)): limit 3, used 3, this "
        f"needs 1 more; it resets at {next_midnight()} (the next UTC midnight)"
    )
    again = submit(ann, "mine", "v3")  # code the bot already has: nothing new, not refused
    assert not again.created and again.version == 3
    tomorrow(run)
    assert submit(ann, "mine", "v4").version == 4


def test_remote_versions_per_day(limited: Callable[..., Running]) -> None:
    run = limited(versions_per_day=1)
    _, ann = run.user("ann")
    with serve_bot() as first, serve_bot() as second:

        def register(endpoint: str) -> Any:
            request = arena_pb2.RegisterRemoteBotRequest(
                name="far", game="village", endpoint=endpoint
            )
            return ann.RegisterRemoteBot(request)

        assert register(first.endpoint).created  # at the limit
        assert not register(first.endpoint).created  # the same endpoint: no new version
        message = refused(run, lambda: register(second.endpoint))
        assert message.startswith("quota versions_per_day (bot versions created today (UTC)): ")
        tomorrow(run)
        assert register(second.endpoint).version == 2


def test_archive_bytes_per_version(limited: Callable[..., Running]) -> None:
    run = limited(archive_bytes=3000)
    _, ann = run.user("ann")
    fits = SOURCE + "#" * (3000 - len(SOURCE) - 1) + "\n"
    assert len(fits.encode()) == 3000
    submit(ann, "big", source=fits)  # at the limit
    over = fits + "#"
    message = refused(run, lambda: submit(ann, "big", source=over))
    assert message == (
        "quota archive_bytes (bytes of one version's code): limit 3000 bytes, this version "
        "has 3001 bytes; it applies to each version: send a smaller one"
    )
    archive = bot_archive({"pad.bin": random.Random(0).randbytes(4000)})  # incompressible
    assert len(archive) > 3000
    assert "quota archive_bytes" in refused(run, lambda: submit(ann, "zipped", archive=archive))
    submit(ann, "big", source=SOURCE + "# smaller\n")  # a smaller version is accepted


def test_stored_bytes(limited: Callable[..., Running]) -> None:
    run = limited(stored_bytes=2500)
    _, ann = run.user("ann")
    body = SOURCE + "#" * (1250 - len(SOURCE) - 3)
    submit(ann, "s1", source=body + "#1\n")
    submit(ann, "s2", source=body + "#2\n")  # 2500 bytes: at the limit
    message = refused(run, lambda: submit(ann, "s3", source=body + "#3\n"))
    assert message == (
        "quota stored_bytes (bytes of code stored for all your bots' versions (each distinct "
        "code once)): limit 2500 bytes, used 2500 bytes, this needs 1250 bytes more; it does "
        "not free: stored code is kept for replays (an admin may raise "
        "HAMLET_QUOTA_STORED_BYTES)"
    )
    ann.RetireBot(arena_pb2.RetireBotRequest(name="s1"))  # retiring keeps the code
    assert "quota stored_bytes" in refused(run, lambda: submit(ann, "s3", source=body + "3"))
    again = submit(ann, "s2", source=body + "#2\n")  # the same code again stores nothing
    assert not again.created
    submit(run.arena, "s3", source=body + "#3\n")  # the admin is exempt


def test_unpacked_size_and_members(limited: Callable[..., Running]) -> None:
    run = limited(unpacked_bytes=10_000, archive_members=3)
    _, ann = run.user("ann")
    submit(ann, "z1", archive=bot_archive({"data.txt": b"x" * 9_000}))  # 3 members, < 10 kB
    four = bot_archive({"a.txt": b"a", "b.txt": b"b"})
    message = refused(run, lambda: submit(ann, "z2", archive=four))
    assert message == (
        "quota archive_members (files and directories in one version's archive): limit 3, "
        "this version has 4; it applies to each version: send a smaller one"
    )
    inflates = bot_archive({"data.txt": b"x" * 20_000})
    message = refused(run, lambda: submit(ann, "z2", archive=inflates))
    assert message.startswith(
        "quota unpacked_bytes (bytes one version's archive unpacks to): limit 10000 bytes, "
        "this version has 20"
    )
    submit(run.arena, "z2", archive=four)  # the admin is exempt


def manifest_bomb() -> bytes:
    """About 31 KB that would inflate to a 31 MiB manifest (valid JSON: spaces, then {})."""
    manifest = b" " * (31 << 20) + b'{"runtime": "python3", "entry": "main.py"}'
    return zipped({"hamlet.json": manifest, "main.py": SOURCE.encode()})


def test_a_manifest_bomb_is_refused_unread(running: Running) -> None:
    """INVALID_ARGUMENT, for everyone: a manifest is a small JSON object, so a huge one is a
    malformed submission rather than a use of anybody's budget (no quota could allow it)."""
    bomb = manifest_bomb()
    assert len(bomb) < 64 << 10
    _, ann = running.user("ann")
    for stub in (ann, running.arena):

        def send(stub: arena_pb2_grpc.ArenaStub = stub) -> Any:
            return submit(stub, "bomb", archive=bomb)

        message = refused(running, send, grpc.StatusCode.INVALID_ARGUMENT)
        assert f"a manifest is at most {MAX_MANIFEST_BYTES} bytes" in message
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveError):
            check(bomb)
        assert measure(bomb).unpacked_bytes > 31 << 20
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20  # the 31 MiB were never inflated


def test_too_many_members_at_the_defaults(running: Running) -> None:
    """A user over the members quota: RESOURCE_EXHAUSTED (a budget, configurable); an admin
    (exempt) meets the archive format's own cap, which every worker applies: INVALID_ARGUMENT."""
    many = bot_archive({f"f{i}.txt": b"" for i in range(600)})
    _, ann = running.user("ann")
    assert "quota archive_members" in refused(running, lambda: submit(ann, "many", archive=many))
    message = refused(
        running,
        lambda: submit(running.arena, "many", archive=many),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert "members (at most 512)" in message


def test_open_events(limited: Callable[..., Running]) -> None:
    run = limited(open_events=2)
    _, ann = run.user("ann")
    first = create(ann)
    create(ann)  # at the limit
    message = refused(run, lambda: create(ann))
    assert message == (
        "quota open_events (your tournaments and SPRTs created or running (the ladder aside)): "
        "limit 2, used 2, this needs 1 more; a place frees when one of your events ends (it "
        "finishes, or `hamlet tournament cancel ID`)"
    )
    assert "quota open_events" in refused(run, lambda: sprt(ann))  # SPRTs are events too
    ann.CancelTournament(arena_pb2.TournamentRef(tournament_id=first))
    create(ann)


def test_matches_planned_per_day(limited: Callable[..., Running]) -> None:
    run = limited(matches_per_day=16)
    _, ann = run.user("ann")
    cancelled = create(ann, rounds=2)  # 3 tables x 2 rotations x 2 rounds = 12
    ann.CancelTournament(arena_pb2.TournamentRef(tournament_id=cancelled))  # still planned
    # an SPRT counts the most it may play: 2 pairs x 2 tables x 2 rotations = 8 > 16 - 12
    assert "used 12 matches, this needs 8 matches more" in refused(run, lambda: sprt(ann, 2))
    sprt(ann, pairs=1)  # 4 more: 16, at the limit
    message = refused(run, lambda: create(ann, rounds=1))
    assert message == (
        "quota matches_per_day (matches planned by the events you created today (UTC; an SPRT "
        "counts its most)): limit 16 matches, used 16 matches, this needs 6 matches more; it "
        f"resets at {next_midnight()} (the next UTC midnight)"
    )
    tomorrow(run)
    create(ann, rounds=1)


def test_swiss_counts_every_round(limited: Callable[..., Running]) -> None:
    run = limited(matches_per_day=1000)
    _, ann = run.user("ann")
    four = ["alpha", "beta", "gamma", "random"]
    ann.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy",
            bots=four,
            players_per_table=2,
            rounds=3,
            format=common_pb2.TOURNAMENT_FORMAT_SWISS,
            rated=False,
        )
    )
    used = {q.name: q.used for q in ann.GetQuota(arena_pb2.GetQuotaRequest()).items}
    assert used["matches_per_day"] == 2 * 2 * 3  # tables x rotations x rounds


def test_concurrent_sprts(limited: Callable[..., Running]) -> None:
    run = limited(sprts=1)
    _, ann = run.user("ann")
    first = sprt(ann)  # at the limit
    message = refused(run, lambda: sprt(ann))
    assert message == (
        "quota sprts (your SPRTs created or running): limit 1, used 1, this needs 1 more; a "
        "place frees when one of your SPRTs ends (it decides, reaches its pair limit, or "
        "`hamlet tournament cancel ID`)"
    )
    ann.CancelTournament(arena_pb2.TournamentRef(tournament_id=first))
    sprt(ann)


def test_ladder_entries(limited: Callable[..., Running]) -> None:
    run = limited(ladder_entries=2)
    _, ann = run.user("ann")
    for name in ("l1", "l2", "l3"):
        submit(ann, name)
    ann.JoinLadder(arena_pb2.LadderRequest(bot_name="l1"))
    ann.JoinLadder(arena_pb2.LadderRequest(bot_name="l2"))  # at the limit
    join = arena_pb2.LadderRequest(bot_name="l3")
    message = refused(run, lambda: ann.JoinLadder(join))
    assert message == (
        "quota ladder_entries (your bots' ladder entries, across games): limit 2, used 2, this "
        "needs 1 more; a place frees when you take a bot off a ladder (`hamlet ladder leave BOT`)"
    )
    ann.JoinLadder(arena_pb2.LadderRequest(bot_name="l2"))  # joining again takes no place
    ann.LeaveLadder(arena_pb2.LadderRequest(bot_name="l1"))
    ann.JoinLadder(join)


def test_admins_are_exempt(limited: Callable[..., Running]) -> None:
    run = limited(
        bots=0,
        versions_per_day=0,
        archive_bytes=0,
        stored_bytes=0,
        unpacked_bytes=0,
        archive_members=0,
        open_events=0,
        matches_per_day=0,
        sprts=0,
        ladder_entries=0,
    )
    admin = run.arena
    submit(admin, "adm", archive=bot_archive())
    submit(admin, "adm2")
    create(admin)
    sprt(admin)
    admin.JoinLadder(arena_pb2.LadderRequest(bot_name="adm"))
    quota = admin.GetQuota(arena_pb2.GetQuotaRequest())
    assert quota.exempt
    _, ann = run.user("ann")
    assert not ann.GetQuota(arena_pb2.GetQuotaRequest()).exempt
    assert refused(run, lambda: submit(ann, "anns")).startswith("quota ")


def test_get_quota(limited: Callable[..., Running]) -> None:
    run = limited(bots=5, open_events=4)
    _, ann = run.user("ann")
    _, bob = run.user("bob")
    submit(ann, "q1")
    submit(ann, "q1", "v2")
    archive = bot_archive()
    submit(ann, "q2", archive=archive)
    create(ann, rounds=2)
    sprt(ann, pairs=2)
    ann.JoinLadder(arena_pb2.LadderRequest(bot_name="q1"))
    mine = ann.GetQuota(arena_pb2.GetQuotaRequest())
    assert mine.user == "ann" and not mine.exempt
    items = {q.name: q for q in mine.items}
    assert list(items) == [q.value for q in Quota]
    code = sum(len((SOURCE + f"# q1 {t}\n").encode()) for t in ("", "v2")) + len(archive)
    used = {n: q.used for n, q in items.items()}
    assert used == {
        "bots": 2,
        "versions_per_day": 3,
        "archive_bytes": 0,
        "stored_bytes": code,
        "unpacked_bytes": 0,
        "archive_members": 0,
        "open_events": 2,
        "matches_per_day": 12 + 8,
        "sprts": 1,
        "ladder_entries": 1,
    }
    assert items["bots"].limit == 5 and items["open_events"].limit == 4
    assert items["archive_bytes"].limit == 8 << 20 and items["archive_bytes"].unit == "bytes"
    assert items["versions_per_day"].resets == next_midnight()
    assert "retire a bot" in items["bots"].resets
    # an admin sees anyone's; another user nobody's but their own
    assert run.arena.GetQuota(arena_pb2.GetQuotaRequest(user="ann")) == mine
    assert refused(
        run,
        lambda: bob.GetQuota(arena_pb2.GetQuotaRequest(user="ann")),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    refused(
        run,
        lambda: run.arena.GetQuota(arena_pb2.GetQuotaRequest(user="nobody")),
        grpc.StatusCode.NOT_FOUND,
    )
    assert bob.GetQuota(arena_pb2.GetQuotaRequest()).items[0].used == 0


def test_check_and_write_are_one_step(limited: Callable[..., Running]) -> None:
    """Eight submissions at once of new bots by one user: exactly the limit are accepted."""
    run = limited(bots=3)
    token, _ = run.user("ann")
    stubs = [run.connect(token) for _ in range(8)]
    codes: list[grpc.StatusCode] = []
    start = threading.Barrier(len(stubs))

    def go(i: int, stub: arena_pb2_grpc.ArenaStub) -> None:
        start.wait()
        try:
            submit(stub, f"race{i}")
            codes.append(grpc.StatusCode.OK)
        except grpc.RpcError as exc:
            codes.append(exc.code())  # type: ignore[attr-defined]

    threads = [threading.Thread(target=go, args=(i, s)) for i, s in enumerate(stubs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(c.name for c in codes) == ["OK"] * 3 + ["RESOURCE_EXHAUSTED"] * 5


def test_hamlet_quota(
    limited: Callable[..., Running],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = limited(bots=7)
    token, ann = run.user("ann")
    submit(ann, "c1")
    monkeypatch.setenv("HAMLET_TOKEN", token)
    assert main(["quota", "--server", run.addr]) == 0
    out = capsys.readouterr().out
    assert "quotas of ann" in out
    assert re.search(r"bots\W+7\W+1\W", out) and "retire" in out
    assert "8.0 MiB" in out and "UTC" in out
    assert main(["quota", "--user", "bob", "--server", run.addr]) == 5  # not an admin
    monkeypatch.setenv("HAMLET_TOKEN", run.admin_token)
    assert main(["quota", "--user", "ann", "--json", "--server", run.addr]) == 0
    assert '"name": "bots"' in capsys.readouterr().out


def test_limits_from_the_environment() -> None:
    assert Settings.from_env({}).quotas == QuotaLimits()
    env = {variable("bots"): "7", variable("stored_bytes"): "1_000_000", variable("sprts"): ""}
    parsed = Settings.from_env(env).quotas
    assert (parsed.bots, parsed.stored_bytes, parsed.sprts) == (7, 1_000_000, 2)
    for name, value, says in (
        ("open_events", "many", "must be a whole number"),
        ("ladder_entries", "-1", "must be a whole number"),
        ("archive_members", "513", "must be 0..512"),
        ("unpacked_bytes", str((32 << 20) + 1), "must be 0..33554432"),
        ("archive_bytes", str((8 << 20) + 1), "must be 0..8388608"),
    ):
        with pytest.raises(ConfigError, match=f"{variable(name)} {says}"):
            Settings.from_env({variable(name): value})
    with pytest.raises(ConfigError, match="HAMLET_QUOTA_BOTS"):
        Settings().with_(quotas=QuotaLimits(bots=-1))


def test_every_limit_is_documented_with_its_default() -> None:
    text = DOCS.read_text()
    defaults = QuotaLimits()
    for quota in Quota:
        row = next((x for x in text.splitlines() if f"`{variable(quota.value)}`" in x), "")
        assert row, quota
        value = defaults.limit(quota)
        shown = f"{value >> 20} MiB" if value >= 1 << 20 else f"{value:,}"
        assert shown in row, (quota, row)


def test_without_limits_nothing_is_checked(store: Any) -> None:
    from server.services.caller import Caller

    quotas = QuotaService(store, None)
    quotas.check(Caller(1, "ann"), Quota.BOTS, 10**9)
    assert quotas.exempt(Caller(1, "ann"))


def test_usage_is_counted_in_the_store(store: Any) -> None:
    """The one query, on SQLite and PostgreSQL: every count of :class:`QuotaUsage`."""
    from server.storage import NewTournament, TournamentStatus
    from server.storage.base import QuotaUsage

    ann = store.create_user("ann", False, utcnow()).user_id
    bob = store.create_user("bob", False, utcnow()).user_id
    store.add_bot_version("a1", "toy", b"one", "1" * 64, "", ann)
    store.add_bot_version("a1", "toy", b"two!", "2" * 64, "", ann)
    store.add_bot_version("a2", "toy", b"one", "1" * 64, "", ann)  # the same code: once
    store.add_bot_version("a3", "toy", b"three", "3" * 64, "", ann)
    store.add_bot_version("b1", "toy", b"bob's", "4" * 64, "", bob)
    store.retire_bot("a3")
    store.set_ladder_entry("toy", "a1", True, utcnow())
    store.set_ladder_entry("other", "a1", True, utcnow())
    store.set_ladder_entry("toy", "b1", True, utcnow())
    alpha = store.upsert_builtin_bot("alpha", ["toy"], "a").version_id

    def event(tid: str, fmt: str, planned: int, owner: int | None = ann) -> None:
        store.create_tournament(
            NewTournament(
                tournament_id=tid,
                game="toy",
                rules_version="toy-1",
                format=fmt,
                players_per_table=2,
                rounds=1,
                seed=1,
                decision_time_ms=100,
                time_bank_ms=1000,
                rated=False,
                entry_version_ids=(alpha,),
                matches=(),
                owner_id=owner,
                planned_matches=planned,
            )
        )

    event("t1", "round_robin", 10)
    event("t2", "swiss", 20)
    event("s1", "sprt", 40)
    event("t3", "round_robin", 80)
    store.set_tournament_status("t3", TournamentStatus.CANCELLED, [TournamentStatus.CREATED])
    event("ladder-toy-1", "ladder", 0, None)
    event("t4", "round_robin", 160, bob)
    today = day_start(utcnow())
    assert store.quota_usage(ann, today) == QuotaUsage(
        bots=2,
        versions_today=4,
        stored_bytes=len(b"one") + len(b"two!") + len(b"three"),
        open_events=3,
        matches_today=150,
        sprts=1,
        ladder_entries=2,
    )
    later = store.quota_usage(ann, today + timedelta(days=1))
    assert (later.versions_today, later.matches_today, later.open_events) == (0, 0, 3)
    assert store.bot_has_code("a2", "1" * 64) and not store.bot_has_code("a2", "2" * 64)
    assert store.on_ladder("other", "a1") and not store.on_ladder("other", "b1")
