"""The conformance suite every registered game passes (PettingZoo/OpenSpiel style).

Parametrised over ``games.names()``: a new game joins it by its registry line.
"""

from __future__ import annotations

import json
import random

import pytest

import games
from tests.games.playout import player_counts, random_steps

SEEDS_PER_COUNT = 200

CASES = [(g, n) for g in games.names() for n in player_counts(g)]
IDS = [f"{g}-{n}p" for g, n in CASES]


def _check_ranks(result: games.Result, n: int) -> None:
    assert len(result.scores) == n and len(result.ranks) == n
    assert min(result.ranks) == 0
    for p, r in enumerate(result.ranks):
        # competition ranking: a rank equals the number of players strictly ahead
        assert r == sum(1 for q in range(n) if result.ranks[q] < r), result.ranks
        assert 0 <= r < n and p < n


@pytest.mark.parametrize(("game", "n"), CASES, ids=IDS)
def test_random_playouts_end_cleanly(game: str, n: int) -> None:
    """200 seeds per player count: every game ends within the bound, no exception,
    options are distinct (and so are their ``str()``) and never fewer than two, totals are
    conserved."""
    spec = games.get(game)
    for seed in range(SEEDS_PER_COUNT):
        state = spec.new_game(num_players=n, seed=seed)
        assert state.num_players == n
        totals = state.conserved_totals()
        rng = random.Random(seed)
        decisions = 0
        while not state.is_over():
            player = state.to_move()
            assert player is not None and 0 <= player < n
            legal = state.legal_actions()
            assert len(legal) >= 2, f"seed {seed}: a single-option decision was asked: {legal}"
            assert len(set(legal)) == len(legal), f"seed {seed}: duplicate options"
            texts = [str(a) for a in legal]  # logs and replays tell options apart by text
            assert len(set(texts)) == len(texts), f"seed {seed}: two options print alike: {texts}"
            state.apply(rng.choice(legal))
            decisions += 1
            assert decisions <= spec.max_decisions, f"seed {seed}: game did not end"
            assert state.conserved_totals() == totals, f"seed {seed} step {decisions}"
        assert state.to_move() is None
        _check_ranks(state.result(), n)


@pytest.mark.parametrize(("game", "n"), CASES, ids=IDS)
def test_same_seed_same_actions_same_game(game: str, n: int) -> None:
    spec = games.get(game)
    for seed in range(10):
        a = spec.new_game(num_players=n, seed=seed)
        b = spec.new_game(num_players=n, seed=seed)
        assert a.public_state() == b.public_state()
        rng = random.Random(1000 + seed)
        while not a.is_over():
            assert a.legal_actions() == b.legal_actions()
            action = rng.choice(a.legal_actions())
            a.apply(action)
            b.apply(action)
            assert a.public_state() == b.public_state()
            for p in range(n):
                assert a.observation(p) == b.observation(p)
        assert a.result() == b.result()


@pytest.mark.parametrize(("game", "n"), CASES, ids=IDS)
def test_clone_is_independent(game: str, n: int) -> None:
    spec = games.get(game)
    for seed in range(10):
        state = spec.new_game(num_players=n, seed=seed)
        rng = random.Random(seed)
        step = 0
        while not state.is_over():
            if step % 17 == 0:
                before = [state.observation(p) for p in range(n)]
                twin = state.clone()
                assert twin.public_state() == state.public_state()
                for _ in zip(range(25), random_steps(twin, random.Random(step)), strict=False):
                    pass
                assert [state.observation(p) for p in range(n)] == before
                # The untouched original still plays on exactly like a fresh clone.
                again = state.clone()
                action = rng.choice(state.legal_actions())
                state.apply(action)
                again.apply(action)
                assert again.public_state() == state.public_state()
            else:
                state.apply(rng.choice(state.legal_actions()))
            step += 1


@pytest.mark.parametrize(("game", "n"), CASES, ids=IDS)
def test_illegal_action_raises_naming_it(game: str, n: int) -> None:
    spec = games.get(game)
    state = spec.new_game(num_players=n, seed=3)
    rng = random.Random(3)
    seen: set[games.Action] = set()
    checked = 0
    while not state.is_over():
        legal = state.legal_actions()
        seen.update(legal)
        foreign = [a for a in seen if a not in legal]
        if foreign:
            bad = sorted(foreign, key=str)[0]
            before = state.public_state()
            with pytest.raises(games.IllegalAction) as info:
                state.apply(bad)
            assert str(bad) in str(info.value)
            assert state.public_state() == before, "a refused action changed the state"
            checked += 1
        state.apply(rng.choice(legal))
    assert checked > 0
    with pytest.raises(games.IllegalAction):
        state.apply(sorted(seen, key=str)[0])


@pytest.mark.parametrize(("game", "n"), CASES, ids=IDS)
def test_actions_and_views_are_plain_data(game: str, n: int) -> None:
    """Actions round-trip through dicts and print readably; views are JSON data."""
    spec = games.get(game)
    state = spec.new_game(num_players=n, seed=5)
    rng = random.Random(5)
    while not state.is_over():
        legal = state.legal_actions()
        for action in legal:
            assert type(action) in spec.action_types
            assert str(action)
            assert hash(action) == hash(spec.action_from_dict(games.action_to_dict(action)))
            assert spec.action_from_dict(json.loads(json.dumps(games.action_to_dict(action)))) == (
                action
            )
        json.dumps(state.public_state())
        json.dumps(state.observation(state.to_move() or 0))
        state.apply(rng.choice(legal))


@pytest.mark.parametrize(("game", "n"), CASES, ids=IDS)
def test_determinize_never_changes_what_the_player_sees(game: str, n: int) -> None:
    """The leak test: for positions reached in random play, re-drawing everything hidden
    from p (many rngs) never changes p's observation, never touches the real state, and
    gives a state that plays on to a legal end."""
    spec = games.get(game)
    for seed in range(6):
        state = spec.new_game(num_players=n, seed=seed)
        rng = random.Random(seed)
        step = 0
        while not state.is_over():
            if step % 23 == 0:
                real_public = state.public_state()
                for p in range(n):
                    seen = state.observation(p)
                    for k in range(6):
                        det = state.determinize(p, random.Random(k * 7919 + step))
                        assert det.observation(p) == seen, f"seed {seed} step {step} player {p}"
                        assert det.to_move() == state.to_move()
                        assert det.legal_actions() == state.legal_actions() or p != state.to_move()
                    assert state.public_state() == real_public
                det = state.determinize(state.to_move() or 0, random.Random(step))
                for _ in random_steps(det, random.Random(step)):
                    pass
                assert det.is_over()
            state.apply(rng.choice(state.legal_actions()))
            step += 1


@pytest.mark.parametrize(("game", "n"), CASES, ids=IDS)
def test_determinized_futures_are_reseeded(game: str, n: int) -> None:
    """Two determinizations with different rngs do not share the real future chance:
    played on with the same policy they may diverge, and the real game is untouched."""
    spec = games.get(game)
    state = spec.new_game(num_players=n, seed=11)
    rng = random.Random(11)
    for _ in range(10):
        state.apply(rng.choice(state.legal_actions()))
    p = state.to_move()
    assert p is not None
    ends = set()
    for k in range(8):
        det = state.determinize(p, random.Random(k))
        for _ in random_steps(det, random.Random(99)):
            pass
        ends.add(json.dumps(det.public_state(), sort_keys=True))
    assert len(ends) > 1, "every determinization played out identically: chance not re-seeded"


def test_unknown_game_and_bad_player_counts_are_clear_errors() -> None:
    with pytest.raises(KeyError, match="unknown game"):
        games.get("chess")
    for name in games.names():
        spec = games.get(name)
        for bad in (spec.min_players - 1, spec.max_players + 1):
            with pytest.raises(ValueError, match="players"):
                spec.new_game(num_players=bad, seed=1)
        assert spec.rules_version and spec.display_name
