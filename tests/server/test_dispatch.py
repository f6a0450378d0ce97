"""Fair-share dispatch: a bounded window of blocks in flight, refilled fairly across owners and
then across each owner's events (deterministic: a real store, the memory queue, blocks ended by
hand)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest
from sqlalchemy import update

from server.services.caller import Caller
from server.services.dispatch import (
    IDLE_WINDOW,
    LADDER_FLOW,
    SYSTEM_FLOW,
    Capacity,
    Dispatcher,
    flow_of,
)
from server.services.fairshare import FairShare
from server.services.scheduling import MemoryEnqueuer
from server.services.tournaments import TournamentRequest, TournamentService
from server.storage import MatchStatus, SqlStore, TournamentRecord
from server.storage import models as m
from server.storage.base import DispatchEvent

BOTS = tuple(f"b{i}" for i in range(11))


def test_fair_share_serves_the_least_served_and_a_newcomer_at_once() -> None:
    fair = FairShare()
    fair.activate(["a"])
    for _ in range(50):
        assert fair.pick(["a"], {}) == "a"
        fair.charge("a", 2)
    # b arrives: it starts level with a (no credit for having been idle), and wins the tie
    # because it has nothing in flight.
    fair.activate(["a", "b"])
    assert fair.served("b") == fair.served("a") == 100
    order = []
    for _ in range(6):
        flow = fair.pick(["a", "b"], {"a": 3} if not order else {})
        order.append(flow)
        fair.charge(flow, 2)
    assert order[0] == "b"  # the newcomer goes first
    for n in range(1, len(order) + 1):  # and then neither is ever more than a block ahead
        assert abs(order[:n].count("a") - order[:n].count("b")) <= 1


def test_fair_share_charges_cost_not_turns() -> None:
    fair = FairShare()
    fair.activate(["big", "small"])
    got = {"big": 0, "small": 0}
    for _ in range(30):
        flow = fair.pick(["big", "small"], {})
        fair.charge(flow, 6 if flow == "big" else 2)  # 6-match blocks against 2-match ones
        got[flow] += 6 if flow == "big" else 2
    assert abs(got["big"] - got["small"]) <= 6  # equal matches, not equal turns


def test_fair_share_forgets_idle_flows() -> None:
    fair = FairShare()
    fair.activate(["a", "b"])
    fair.charge("a", 10)
    fair.activate(["b"])
    assert fair.served("a") == 0.0  # forgotten: memory holds the active flows only


def test_flows() -> None:
    assert flow_of(DispatchEvent("t1", 7, "round_robin")) == "user:7"
    assert flow_of(DispatchEvent("s1", 7, "sprt")) == "user:7"
    assert flow_of(DispatchEvent("ladder-village-1", None, "ladder")) == LADDER_FLOW
    assert flow_of(DispatchEvent("t2", None, "round_robin")) == SYSTEM_FLOW


def test_the_window_is_sized_from_the_worker_processes() -> None:
    clock = [0.0]
    seen = Capacity(horizon=60, clock=lambda: clock[0])
    assert seen.slots("matches") == 0
    assert seen.saw("matches", "w1")  # a claim: one worker at least
    assert seen.slots("matches") == 1
    # A pool of three children that share the name "w1" but announce themselves apart.
    for pid in (11, 12, 13):
        assert seen.announced(f"host:{pid}", ["matches", "matches.node"])
    assert not seen.announced("host:11", ["matches"])  # already counted
    assert seen.slots("matches") == 3 and seen.slots("matches.node") == 3
    assert seen.slots("matches.native") == 0  # nobody runs that queue
    clock[0] = 61
    assert seen.slots("matches") == 0  # gone quiet: back to the idle window


def test_a_worker_announcing_itself_widens_the_window(store: SqlStore, toy: str) -> None:
    world = World(store, toy, window=0)
    world.event("alice", BOTS[:4], rounds=5)
    assert len(blocks(world.queue.sent)) == IDLE_WINDOW
    for pid in range(5):
        world.dispatcher.announced(f"host:{pid}", ["python3"])
    assert len(blocks(world.queue.sent)) == 5
    assert len(world.store.blocks_in_flight()) == 5


class World:
    """Users alice and bob, eleven built-in bots, a dispatcher with a window of two blocks."""

    def __init__(self, store: SqlStore, toy: str, window: int = 2) -> None:
        self.store = store
        for name in BOTS:
            store.upsert_builtin_bot(name, [toy], "")
        self.alice = store.create_user("alice", False, datetime(2026, 1, 1))
        self.bob = store.create_user("bob", False, datetime(2026, 1, 1))
        self.queue = MemoryEnqueuer()
        self.dispatcher = Dispatcher(store, self.queue, window=window)
        self.tournaments = TournamentService(store, self.queue, 100, dispatcher=self.dispatcher)
        self.toy = toy

    def event(self, who: str, bots: Sequence[str], rounds: int) -> TournamentRecord:
        user = self.alice if who == "alice" else self.bob
        caller = Caller(user.user_id, user.name)
        t = self.tournaments.create(
            TournamentRequest(
                game=self.toy,
                bots=tuple(bots),
                players_per_table=2,
                rounds=rounds,
                rated=False,
                owner_id=user.user_id,
                caller=caller,
            )
        )
        return self.tournaments.start(t.tournament_id)

    def end_block(self, match_id: str) -> list[str]:
        """Every match of ``match_id``'s block ends (as a worker's report would make it);
        the dispatcher is told, as the server tells it after each result."""
        block = match_id.rsplit(".", 1)[0] + "."
        with self.store._tx() as s:
            s.execute(
                update(m.Match)
                .where(m.Match.id.like(f"{block}%"))
                .values(status=MatchStatus.FINISHED.value)
            )
        return self.dispatcher.refill()


def blocks(ids: Sequence[str]) -> list[str]:
    """The blocks (``tournament.rR.tT``) of some match ids, in order, each once."""
    return list(dict.fromkeys(i.rsplit(".", 1)[0] for i in ids))


def test_a_large_event_leaves_room_for_a_small_one(store: SqlStore, toy: str) -> None:
    world = World(store, toy)
    big = world.event("alice", BOTS, rounds=181)  # 11 bots, 2 seats: 19,910 matches
    assert big.matches_total == 19_910
    first = blocks(world.queue.sent)
    assert len(first) == 2 and all(b.startswith(big.tournament_id) for b in first)
    assert len(world.queue.sent) == 4  # the window, not the event, went to the broker

    small = world.event("bob", BOTS[:2], rounds=2)  # two blocks of two matches
    assert len(world.queue.sent) == 4  # the window is full: bob waits for a free place

    sent: list[str] = []
    in_flight = list(first)
    for _ in range(6):
        done = in_flight.pop(0)
        new = blocks(world.end_block(done + ".s0"))
        assert len(new) == 1
        sent += new
        in_flight += new
    owners = ["bob" if b.startswith(small.tournament_id) else "alice" for b in sent]
    # The window alternates while both wait; once bob's event is all sent, alice has it.
    assert owners == ["bob", "alice", "bob", "alice", "alice", "alice"]
    assert world.store.get_tournament(big.tournament_id).counts[MatchStatus.PENDING] > 19_000  # type: ignore[union-attr]


def test_within_an_owner_events_share_too(store: SqlStore, toy: str) -> None:
    world = World(store, toy, window=1)
    a1 = world.event("alice", BOTS[:4], rounds=5)
    a2 = world.event("alice", BOTS[4:6], rounds=5)
    sent = blocks(world.queue.sent)
    for _ in range(4):
        sent += blocks(world.end_block(sent[-1] + ".s0"))
    events = [
        a1.tournament_id if b.startswith(a1.tournament_id) else a2.tournament_id for b in sent
    ]
    assert events[1:] == [a2.tournament_id, a1.tournament_id] * 2


def test_cancelling_frees_the_window_at_once(store: SqlStore, toy: str) -> None:
    world = World(store, toy)
    big = world.event("alice", BOTS[:4], rounds=20)
    small = world.event("bob", BOTS[:2], rounds=1)
    assert not any(i.startswith(small.tournament_id) for i in world.queue.sent)
    world.tournaments.cancel(big.tournament_id)
    assert any(i.startswith(small.tournament_id) for i in world.queue.sent)


def test_a_queue_no_worker_serves_holds_only_its_own_places(store: SqlStore, toy: str) -> None:
    world = World(store, toy, window=0)  # sized from the workers: none seen yet
    t = world.event("alice", BOTS[:3], rounds=10)
    with world.store._tx() as s:
        s.execute(
            update(m.Match)
            .where(m.Match.tournament_id == t.tournament_id, m.Match.table_index == 0)
            .values(queue="matches-node", status=MatchStatus.PENDING.value)
        )
        s.execute(
            update(m.Match)
            .where(m.Match.tournament_id == t.tournament_id)
            .values(status=MatchStatus.PENDING.value)
        )
    world.queue.sent.clear()
    world.dispatcher.refill()
    routes = world.store.match_queues(world.queue.sent)
    per_queue = {q: len(blocks([i for i in routes if routes[i] == q])) for q in routes.values()}
    assert per_queue == {"matches": IDLE_WINDOW, "matches-node": IDLE_WINDOW}


def test_services_built_alone_send_everything(store: SqlStore, toy: str) -> None:
    """Without a window (a service built on its own) every waiting block goes out at once."""
    world = World(store, toy)
    alone = TournamentService(store, world.queue, 100)
    t = alone.create(TournamentRequest(game=toy, bots=BOTS[:3], rounds=2, rated=False))
    alone.start(t.tournament_id)
    assert sum(i.startswith(t.tournament_id) for i in world.queue.sent) == t.matches_total


@pytest.mark.parametrize("window", [1, 3])
def test_the_window_is_never_exceeded(store: SqlStore, toy: str, window: int) -> None:
    world = World(store, toy, window=window)
    world.event("alice", BOTS[:5], rounds=3)
    world.event("bob", BOTS[5:9], rounds=3)
    for _ in range(10):
        flight = world.store.blocks_in_flight()
        assert len(flight) == window
        world.end_block(f"{flight[0].tournament_id}.r{flight[0].round}.t{flight[0].table}.s0")
