"""Bot versions are first class: listed and shown one by one, entered in tournaments of every
format as ``name@version`` (one bot at several versions), and recorded per seat as played."""

from __future__ import annotations

import hashlib
from pathlib import Path

import grpc
import pytest
from sqlalchemy import text

from hamlet.v1 import arena_pb2, common_pb2
from server.storage import SqlStore
from server.storage.migrate import upgrade
from server.storage.sql import make_engine
from tests.server import fakeworker
from tests.server.conftest import Running

SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"
FORMATS = (
    common_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN,
    common_pb2.TOURNAMENT_FORMAT_GAUNTLET,
    common_pb2.TOURNAMENT_FORMAT_SWISS,
)


def _three_versions(run: Running) -> list[str]:
    """``mine`` at versions 1-3 (the third without a description); the sources."""
    fakeworker.announce(run.worker_channel, ["toy"], bots=("alpha", "beta"))
    sources = [SOURCE + f"# v{i}\n" for i in (1, 2, 3)]
    for source, said in zip(sources, ("first try", "greedier", ""), strict=True):
        run.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="mine", game="toy", source=source, description=said)
        )
    return sources


def _code(err: pytest.ExceptionInfo[grpc.RpcError]) -> grpc.StatusCode:
    return err.value.code()  # type: ignore[attr-defined,no-any-return]


def _details(err: pytest.ExceptionInfo[grpc.RpcError]) -> str:
    return str(err.value.details())  # type: ignore[attr-defined]


def _create(run: Running, *bots: str, **kw: object) -> arena_pb2.Tournament:
    req = arena_pb2.CreateTournamentRequest(game="toy", bots=list(bots), **kw)  # type: ignore[arg-type]
    return run.arena.CreateTournament(req)


def _matches(run: Running, tournament_id: str) -> list[common_pb2.Match]:
    ref = arena_pb2.TournamentRef(tournament_id=tournament_id)
    return list(run.arena.ListMatches(ref).matches)


def _play_all(run: Running, tournament_id: str) -> None:
    """Play every queued match of a tournament until none is left (Swiss rounds included)."""
    played: set[str] = set()
    while True:
        todo = [
            m.match_id
            for m in _matches(run, tournament_id)
            if m.status == common_pb2.MATCH_STATUS_QUEUED and m.match_id not in played
        ]
        if not todo:
            return
        for match_id in todo:
            played.add(match_id)
            fakeworker.play(run.worker_channel, match_id)


def test_every_version_is_listed_with_its_facts(running: Running) -> None:
    sources = _three_versions(running)
    resp = running.arena.ListBotVersions(arena_pb2.ListBotVersionsRequest(name="mine"))
    assert resp.bot.name == "mine" and resp.bot.latest_version == 3
    assert [v.version for v in resp.versions] == [1, 2, 3]
    assert [v.latest for v in resp.versions] == [False, False, True]
    # a version without a description says what the one before it said
    assert [v.description for v in resp.versions] == ["first try", "greedier", "greedier"]
    for version, source in zip(resp.versions, sources, strict=True):
        assert version.code_sha256 == hashlib.sha256(source.encode()).hexdigest()
        assert (version.runtime, version.owner, version.bot_name) == ("python3", "admin", "mine")
        assert version.created_at.endswith("Z") and list(version.games) == ["toy"]
        assert version.origin == arena_pb2.BOT_ORIGIN_UPLOADED
        assert (version.matches, list(version.ratings)) == (0, [])
    builtin = running.arena.ListBotVersions(arena_pb2.ListBotVersionsRequest(name="alpha"))
    (only,) = builtin.versions
    assert (only.version, only.runtime, only.code_sha256, only.owner) == (1, "builtin", "", "")
    assert only.description == "alpha bot" and only.latest
    with pytest.raises(grpc.RpcError) as err:
        running.arena.ListBotVersions(arena_pb2.ListBotVersionsRequest(name="nobody"))
    assert _code(err) == grpc.StatusCode.NOT_FOUND


def test_one_version_is_shown_latest_by_default(running: Running) -> None:
    _three_versions(running)
    get = running.arena.GetBotVersion
    assert get(arena_pb2.GetBotVersionRequest(bot="mine")).version == 3
    first = get(arena_pb2.GetBotVersionRequest(bot="mine@1"))
    assert (first.version, first.description, first.latest) == (1, "first try", False)
    with pytest.raises(grpc.RpcError) as err:
        get(arena_pb2.GetBotVersionRequest(bot="mine@9"))
    assert _code(err) == grpc.StatusCode.NOT_FOUND
    assert "no version 9" in _details(err) and "versions are 1, 2 and 3" in _details(err)
    for bad in ("mine@", "mine@x", "mine@-1", "mine@1@2", "@1"):
        with pytest.raises(grpc.RpcError) as err:
            get(arena_pb2.GetBotVersionRequest(bot=bad))
        assert _code(err) == grpc.StatusCode.INVALID_ARGUMENT, bad
    with pytest.raises(grpc.RpcError) as err:
        get(arena_pb2.GetBotVersionRequest(bot="nobody@1"))
    assert _code(err) == grpc.StatusCode.NOT_FOUND and "unknown bot" in _details(err)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_takes_two_versions_of_one_bot(running: Running, fmt: int) -> None:
    _three_versions(running)
    t = _create(running, "mine@1", "mine@2", "alpha", "beta", format=fmt, players_per_table=2)
    assert list(t.bots) == ["mine@1", "mine@2", "alpha@1", "beta@1"]
    matches = _matches(running, t.tournament_id)
    seen = {(s.bot_name, s.bot_version) for m in matches for s in m.seats}
    assert {("mine", 1), ("mine", 2)} <= seen
    assert ("mine", 3) not in seen
    # a bare name is the latest version
    latest = _create(running, "mine", "alpha", format=fmt, players_per_table=2)
    assert list(latest.bots) == ["mine@3", "alpha@1"]


def test_a_version_entered_twice_is_refused(running: Running) -> None:
    _three_versions(running)
    for bots, words in (
        (("mine@1", "mine@1"), "named twice"),
        (("mine@3", "mine", "alpha"), "are both mine@3"),
        (("alpha", "alpha@1"), "are both alpha@1"),
    ):
        with pytest.raises(grpc.RpcError) as err:
            _create(running, *bots, rated=False)
        assert _code(err) == grpc.StatusCode.INVALID_ARGUMENT and words in _details(err), bots
    with pytest.raises(grpc.RpcError) as err:
        _create(running, "mine@1", "mine@7", rated=False)
    assert _code(err) == grpc.StatusCode.NOT_FOUND
    assert "no version 7" in _details(err) and "versions are 1, 2 and 3" in _details(err)
    with pytest.raises(grpc.RpcError) as err:
        _create(running, "mine@one", "alpha", rated=False)
    assert _code(err) == grpc.StatusCode.INVALID_ARGUMENT and "name@version" in _details(err)


def test_rated_play_keeps_versions_of_one_bot_apart(running: Running) -> None:
    # Two versions of one bot have one owner: a rated table never seats both.
    _three_versions(running)
    with pytest.raises(grpc.RpcError) as err:
        _create(running, "mine@1", "mine@2", rated=True)
    assert _code(err) == grpc.StatusCode.INVALID_ARGUMENT
    assert "two versions of one bot" in _details(err) and "--unrated" in _details(err)
    t = _create(running, "mine@1", "mine@2", "alpha", rated=True, players_per_table=2, start=True)
    tables = {
        frozenset((s.bot_name, s.bot_version) for s in m.seats)
        for m in _matches(running, t.tournament_id)
    }
    assert tables == {
        frozenset({("mine", 1), ("alpha", 1)}),
        frozenset({("mine", 2), ("alpha", 1)}),
    }
    _play_all(running, t.tournament_id)
    versions = running.arena.ListBotVersions(arena_pb2.ListBotVersionsRequest(name="mine"))
    played = {v.version: (v.matches, [r.game for r in v.ratings]) for v in versions.versions}
    assert played == {1: (2, ["toy"]), 2: (2, ["toy"]), 3: (0, [])}


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_v1_against_v2_tournament_records_the_versions_that_played(
    running: Running, fmt: int
) -> None:
    _three_versions(running)
    rounds = 2 if fmt == common_pb2.TOURNAMENT_FORMAT_SWISS else 1
    t = _create(running, "mine@2", "mine@1", format=fmt, rounds=rounds, start=True)
    _play_all(running, t.tournament_id)
    done = running.arena.GetTournament(arena_pb2.TournamentRef(tournament_id=t.tournament_id))
    assert done.status == common_pb2.TOURNAMENT_STATUS_FINISHED
    matches = _matches(running, t.tournament_id)
    assert len(matches) == 2 * rounds and done.matches_finished == 2 * rounds
    for m in matches:
        assert sorted((s.bot_name, s.bot_version) for s in m.seats) == [("mine", 1), ("mine", 2)]
        stored = running.store.get_match(m.match_id)
        assert stored is not None
        assert sorted(s.bot_version for s in stored.seats) == [1, 2]
    # standings name each entry name@version: two versions are two lines
    assert sorted(s.bot_name for s in done.standings) == ["mine@1", "mine@2"]
    assert [s.matches for s in done.standings] == [2 * rounds, 2 * rounds]


def test_versions_stored_before_descriptions_get_their_bots(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    upgrade(engine, "0006")
    with engine.begin() as conn:
        conn.execute(
            text(
                "insert into bots (id, name, origin, games, description, retired, created_at) "
                "values (1, 'old', 'uploaded', 'toy', 'said once', 0, '2026-01-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "insert into bot_versions (id, bot_id, version, created_at, runtime) "
                "values (1, 1, 1, '2026-01-01 00:00:00', 'python3')"
            )
        )
    upgrade(engine)
    store = SqlStore(engine)
    try:
        (only,) = store.list_bot_versions("old") or []
        assert (only.version, only.description, only.latest) == (1, "said once", True)
    finally:
        store.close()
