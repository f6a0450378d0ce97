"""The queue contract: a match goes where only workers that can run it listen."""

from __future__ import annotations

from hamlet.queues import MATCH_QUEUE, queue_for, queues_served


def test_python_and_builtin_bots_go_on_the_common_queue() -> None:
    assert queue_for([]) == queue_for(["builtin", "python3"]) == MATCH_QUEUE


def test_other_runtimes_name_their_queue_in_a_stable_order() -> None:
    assert queue_for(["node", "python3"]) == "matches.node"
    assert queue_for(["node", "native", "node"]) == "matches.native+node"


def test_a_worker_serves_every_set_of_its_runtimes_and_no_other() -> None:
    served = queues_served(["python3", "node", "native"])
    assert sorted(served) == ["matches", "matches.native", "matches.native+node", "matches.node"]
    assert queues_served(["python3"]) == ["matches"]
    for needs in (["node"], ["native", "node"], []):
        assert queue_for(needs) in served
    assert queue_for(["node"]) not in queues_served(["python3", "native"])
