"""Seed commitments: published at creation, seeds hidden while they matter, then verifiable."""

from __future__ import annotations

import hashlib

import grpc
import pytest

from cli.main import main
from hamlet.v1 import arena_pb2
from server.services.commitments import commitment, committed_text, table_seed
from tests.server import fakeworker
from tests.server.conftest import Running


def test_the_commitment_is_a_plain_sha256_anyone_can_recompute() -> None:
    text = committed_text("t1", "ab", 7)
    assert text == "hamlet-seeds-v1 t1 ab 7"
    assert commitment("t1", "ab", 7) == hashlib.sha256(text.encode()).hexdigest()
    assert commitment("t1", "ab", 8) != commitment("t1", "ab", 7)
    assert table_seed(7, 1, 3, 2) == table_seed(7, 2, 3, -1) != table_seed(7, 1, 3, 1)


def test_seeds_stay_hidden_while_they_matter_then_verify(
    running: Running, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fakeworker.announce(running.worker_channel, ["toy"])
    t = running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta"], players_per_table=2, rounds=2, start=True
        )
    )
    assert len(t.seed_commitment) == 64 and t.seed == 0 and t.seed_nonce == ""
    first, second = running.queue.sent[0], running.queue.sent[1]  # the rotations of a block
    fakeworker.play(running.worker_channel, first)
    detail = running.arena.GetMatch(arena_pb2.MatchRef(match_id=first))
    assert detail.match.seed == 0 and list(detail.decisions) == []
    with pytest.raises(grpc.RpcError) as err:
        running.arena.GetReplay(arena_pb2.MatchRef(match_id=first))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
    assert "shares its seed" in err.value.details()  # type: ignore[attr-defined]
    fakeworker.play(running.worker_channel, second)  # the block is complete: published
    detail = running.arena.GetMatch(arena_pb2.MatchRef(match_id=first))
    assert detail.match.seed != 0 and detail.decisions
    ref = arena_pb2.TournamentRef(tournament_id=t.tournament_id)
    assert running.arena.GetTournament(ref).seed == 0  # the tournament still runs

    monkeypatch.setenv("HAMLET_TOKEN", running.admin_token)
    srv = ("--server", running.addr)
    assert main(["match", "verify", first, *srv]) == 1
    assert "not over" in capsys.readouterr().err
    for match_id in running.queue.sent[2:]:
        fakeworker.play(running.worker_channel, match_id)
    done = running.arena.GetTournament(ref)
    assert done.seed != 0 and done.seed_nonce
    assert main(["match", "verify", first, *srv]) == 0
    out = capsys.readouterr().out
    assert f"seed commitment {t.seed_commitment}" in out and "matches the revealed seed" in out
    assert "reproduces the recorded result" in out
