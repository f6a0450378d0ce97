"""Spectators never see hidden information: the replay HTML and JSON the web app sends carry
the public state only, checked against what each seat alone could see."""

from __future__ import annotations

import json
import random

import games
from hamlet.v1 import arena_pb2
from tests.web.conftest import Site


def _paths(value: object, path: str = "") -> set[str]:
    out = {path} if path else set()
    if isinstance(value, dict):
        for k, v in value.items():
            out |= _paths(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out |= _paths(v, f"{path}.{i}" if path else str(i))
    return out


def _private_paths(game: str, match_id: str, site: Site) -> dict[int, set[str]]:
    """Per decision: the paths only some seat's observation has (its hidden information)."""
    detail = site.arena.GetMatch(arena_pb2.MatchRef(match_id=match_id))
    m = detail.match
    spec = games.get(game)
    state = spec.new_game(num_players=len(m.seats), seed=m.seed)
    out = {}
    for d, decision in enumerate([None, *detail.decisions]):
        if decision is not None:
            state.apply(spec.action_from_dict(json.loads(decision.action_json)))
        public = _paths(state.public_state())
        private: set[str] = set()
        for seat in range(len(m.seats)):
            private |= _paths(state.observation(seat)) - public
        out[d] = private
    return out


def test_the_farmaria_replay_shows_no_seats_hidden_cards(site: Site) -> None:
    mid = site.matches["farmaria"][0]
    private = _private_paths("farmaria", mid, site)
    assert any(private.values()), "Farmaria has hidden information to keep"
    rng = random.Random(3)
    last = max(private)
    for d in sorted({0, last, *rng.sample(range(last + 1), 12)}):
        frame = site.client.get(f"/matches/{mid}/replay/frame.json?d={d}").json()
        page = site.client.get(f"/matches/{mid}/replay?d={d}").text
        for path in private[d]:
            assert f"<dt>{path}</dt>" not in frame["html"] and f"<dt>{path}</dt>" not in page
        for word in ("face_down", "opportunity", "selected"):  # counts are public, cards not
            for leak in (f".{word}</dt>", f".{word}."):
                assert leak not in frame["html"] and leak not in page, (d, word)


def test_the_downloaded_log_is_the_one_the_server_shows_anyone(site: Site) -> None:
    mid = site.matches["farmaria"][1]
    body = site.client.get(f"/matches/{mid}/log.json").json()
    anon = site.arena.GetMatch(arena_pb2.MatchRef(match_id=mid))
    assert [d["action_text"] for d in body["decisions"]] == [d.action_text for d in anon.decisions]
