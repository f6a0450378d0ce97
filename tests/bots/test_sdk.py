"""The bot SDK: framed stdin/stdout and the gRPC Bot service."""

from __future__ import annotations

import io

import games
from bots import sdk
from hamlet import codec
from hamlet.v1 import common_pb2


def request(seed: int = 1) -> common_pb2.DecisionRequest:
    state = games.get("village").new_game(num_players=2, seed=seed)
    seat = state.to_move()
    assert seat is not None
    return codec.decision_request(
        "village", "m-1", seat, 0, state.observation(seat), state.legal_actions(), 1500
    )


def test_run_answers_every_framed_request_until_eof() -> None:
    seen: list[tuple[dict[str, object], int]] = []

    def decide(observation: dict[str, object], legal: list[dict[str, object]]) -> int:
        seen.append((observation, len(legal)))
        assert all("type" in action for action in legal)
        return len(legal) - 1

    inp = io.BytesIO()
    for seed in (1, 2):
        codec.write_frame(inp, request(seed).SerializeToString())
    inp.seek(0)
    out = io.BytesIO()
    sdk.run(decide, stdin=inp, stdout=out)
    out.seek(0)
    answers = []
    while (frame := codec.read_frame(out)) is not None:
        answers.append(common_pb2.DecisionResponse.FromString(frame).action_index)
    assert answers == [n - 1 for _, n in seen] and len(answers) == 2
    assert isinstance(seen[0][0], dict) and seen[0][0]


def test_start_grpc_serves_decide() -> None:
    import grpc

    from hamlet.v1 import bot_pb2_grpc

    server, port = sdk.start_grpc(lambda observation, legal: 1, port=0, host="127.0.0.1")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = bot_pb2_grpc.BotStub(channel)  # type: ignore[no-untyped-call]
            assert stub.Decide(request(), timeout=10).action_index == 1
    finally:
        server.stop(grace=None)
