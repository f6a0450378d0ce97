"""A bounded, deterministic fuzzer over every method of ``Arena`` and ``MatchHost``, on
SQLite and PostgreSQL.

Requests are built from the protos' descriptors, field by field, out of empty, malformed,
oversized, NUL, NaN, unicode and path-traversal values, mixed with ids that exist (so calls
get past the first lookup), and as one-field mutations of valid requests (so they reach the
deep checks). Every call must answer within its 5 s deadline, never UNKNOWN or INTERNAL (the
server's INTERNAL is reserved for faults, see ``server.boundary``), and a refused call must
not change the row count of any table nor put anything on the queue. Raw bytes that do not
decode go to every method too.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message

from hamlet.v1 import arena_pb2, worker_pb2
from tests.server import fakeworker
from tests.server.conftest import Metadata, Running, row_counts

SEED = 20261201
#: Cases per method: more where the checks go deep (about 300 in all).
CASES = {"ReportMatch": 64, "CreateTournament": 32, "SubmitBot": 32, "AnnounceWorker": 24}
CASES_DEFAULT = 12
DEADLINE = 5.0
FORBIDDEN = {
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.UNIMPLEMENTED,
}
METHODS: list[MethodDescriptor] = [
    *arena_pb2.DESCRIPTOR.services_by_name["Arena"].methods,
    *worker_pb2.DESCRIPTOR.services_by_name["MatchHost"].methods,
]

NASTY_STRINGS = [
    "",
    "\x00",
    "a\x00b",
    "alpha\x00",
    "\x00" * 64,
    "x" * 65,
    "x" * 5000,
    "y" * (300 * 1024),
    "../../etc/passwd",
    "..\\..\\windows\\win.ini",
    "/etc/shadow",
    "file:///etc/passwd",
    "ünïcødé",
    "名前",
    "💥" * 40,
    "\u202eevil",
    "\ufeffalpha",
    "NaN",
    "-1",
    "%s%n%x",
    "'; drop table bots; --",
    "alpha\n",
    " alpha",
    "ALPHA",
    "{}",
    '{"type": "Play", "card": 1}',
    "[" * 10_000,
]
NASTY_INTS = [0, 1, 2, 3, 4, 5, -1, 64, 65, 1000, 1001, 2**31 - 1, -(2**31)]
NASTY_UINTS = [0, 1, 2**63 - 1, 2**63, 2**64 - 1]
NASTY_FLOATS = [0.0, -0.0, 0.5, -1.0, math.nan, math.nan, math.inf, -math.inf, 1e308, 86_401.0]
DEEP_SOURCE = "x = " + "1+" * 100_000 + "1"


class World:
    """What exists on the server under test: names and ids the fuzzer mixes in."""

    def __init__(self, run: Running, admin: Metadata, worker: Metadata) -> None:
        self.many = tuple(f"b{i}" for i in range(64))
        fakeworker.announce(run.worker_channel, ["toy"])
        fakeworker.announce(run.worker_channel, ["toy"], bots=self.many)
        self.tournament = run.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game="toy", bots=["alpha", "beta", "gamma"], rounds=4, start=True
            ),
            metadata=admin,
        )
        self.matches = list(run.queue.sent)
        claims = [
            run.host.ClaimMatch(
                worker_pb2.ClaimMatchRequest(match_id=m, worker_id="fuzz"), metadata=worker
            )
            for m in self.matches
        ]
        self.specs = [c.match for c in claims]
        self.attempts = {c.match.match_id: c.attempt_token for c in claims}
        uploaded = run.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="up", game="toy", source="x = 1\n"), metadata=admin
        )
        self.sha = uploaded.code_sha256
        self.known = [
            "toy",
            "village",
            "alpha",
            "beta",
            "up",
            self.tournament.tournament_id,
            *self.matches,
            self.sha,
            self.sha.upper(),
        ]


def _value(field: FieldDescriptor, rng: random.Random, world: World, depth: int) -> Any:
    cpp = field.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        if field.type == FieldDescriptor.TYPE_BYTES:
            return rng.choice([b"", b"\x00", b"\xff" * 10, b"x" * 70_000])
        if field.name == "source" and rng.random() < 0.2:
            return DEEP_SOURCE
        if rng.random() < 0.35:
            return rng.choice(world.known)
        return rng.choice(NASTY_STRINGS)
    if cpp in (FieldDescriptor.CPPTYPE_INT32, FieldDescriptor.CPPTYPE_INT64):
        return rng.choice(NASTY_INTS)
    if cpp in (FieldDescriptor.CPPTYPE_UINT32, FieldDescriptor.CPPTYPE_UINT64):
        limit = 2**32 - 1 if cpp == FieldDescriptor.CPPTYPE_UINT32 else 2**64 - 1
        return min(rng.choice(NASTY_UINTS), limit)
    if cpp in (FieldDescriptor.CPPTYPE_DOUBLE, FieldDescriptor.CPPTYPE_FLOAT):
        return rng.choice(NASTY_FLOATS)
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return rng.random() < 0.5
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        return rng.choice([*(v.number for v in field.enum_type.values), 99, -7])
    raise AssertionError(f"unexpected field type of {field.full_name}")


def fill(msg: Message, rng: random.Random, world: World, depth: int = 0) -> Message:
    """Set some fields of ``msg`` (recursively, a few levels deep) to fuzz values."""
    for field in msg.DESCRIPTOR.fields:
        if rng.random() < 0.3:
            continue
        message = field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE
        if message and depth >= 3:
            continue
        if field.is_repeated:
            count = rng.choice([0, 1, 2, 3, 3, 70])
            target = getattr(msg, field.name)
            for _ in range(count):
                if message:
                    fill(target.add(), rng, world, depth + 1)
                else:
                    target.append(_value(field, rng, world, depth))
        elif message:
            fill(getattr(msg, field.name), rng, world, depth + 1)
        else:
            setattr(msg, field.name, _value(field, rng, world, depth))
    return msg


def _valid(method: str, world: World, rng: random.Random) -> Message | None:
    """A request the server would accept (to be mutated), for the methods with deep checks."""
    if method == "ReportMatch":
        spec = rng.choice(world.specs)
        outcome = fakeworker.play_outcome(spec, forfeit_seat=rng.choice([None, 0, 1]))
        return worker_pb2.ReportMatchRequest(
            match_id=spec.match_id, outcome=outcome, attempt_token=world.attempts[spec.match_id]
        )
    if method == "CreateTournament":
        if rng.random() < 0.5:  # 64 bots, 4 per table: 2.5 million matches
            return arena_pb2.CreateTournamentRequest(game="toy", bots=world.many)
        return arena_pb2.CreateTournamentRequest(game="toy", bots=["alpha", "beta", "gamma"])
    if method == "SubmitBot":
        return arena_pb2.SubmitBotRequest(name="fz", game="toy", source="x = 2\n")
    if method == "AnnounceWorker":
        return worker_pb2.AnnounceWorkerRequest(
            worker_id="w",
            builtin_bots=[
                worker_pb2.BuiltinBot(name=name, games=["toy"], description=name)
                for name in (f"n{rng.randrange(10**6)}", "alpha", f"n{rng.randrange(10**6)}")
            ],
        )
    return None


def _leaves(msg: Message, depth: int = 0) -> Iterator[tuple[Message, FieldDescriptor]]:
    """Every (message, scalar field) pair in ``msg``, including inside set sub-messages."""
    for field in msg.DESCRIPTOR.fields:
        if field.cpp_type != FieldDescriptor.CPPTYPE_MESSAGE:
            yield msg, field
        elif field.is_repeated:
            for item in getattr(msg, field.name):
                yield from _leaves(item, depth + 1)
        elif msg.HasField(field.name):
            yield from _leaves(getattr(msg, field.name), depth + 1)


def requests_for(method: MethodDescriptor, world: World) -> Iterator[Message]:
    """``CASES_PER_METHOD`` requests for ``method``, the same on every run."""
    rng = random.Random(f"{SEED}/{method.full_name}")
    cls = message_factory.GetMessageClass(method.input_type)
    for _ in range(CASES.get(method.name, CASES_DEFAULT)):
        base = _valid(method.name, world, rng)
        if base is not None and rng.random() < 0.7:
            yield mutate(base, rng, world)
        else:
            yield fill(cls(), rng, world)


def mutate(msg: Message, rng: random.Random, world: World) -> Message:
    """``msg`` with one or two of its fields (chosen by name, then by place) set to fuzz."""
    by_name: dict[str, list[tuple[Message, FieldDescriptor]]] = {}
    for leaf in _leaves(msg):
        by_name.setdefault(leaf[1].full_name, []).append(leaf)
    for _ in range(rng.choice([1, 1, 2])):
        target, field = rng.choice(by_name[rng.choice(sorted(by_name))])
        if field.is_repeated:
            values = getattr(target, field.name)
            del values[:]
            values.extend(_value(field, rng, world, 0) for _ in range(rng.choice([0, 1, 3, 70])))
        else:
            setattr(target, field.name, _value(field, rng, world, 0))
    return msg


def _call(run: Running, method: MethodDescriptor, metadata: Metadata) -> Callable[..., Any]:
    path = f"/{method.containing_service.full_name}/{method.name}"
    out = message_factory.GetMessageClass(method.output_type).FromString
    if method.server_streaming:
        stream = run.channel.unary_stream(path, response_deserializer=out)

        def first(request: Message) -> Any:
            answers = stream(request.SerializeToString(), metadata=metadata, timeout=DEADLINE)
            try:
                return next(answers)
            except StopIteration:
                return None
            finally:
                answers.cancel()

        return first
    unary = run.channel.unary_unary(path, response_deserializer=out)
    return lambda request: unary(request.SerializeToString(), metadata=metadata, timeout=DEADLINE)


def _metadata(method: MethodDescriptor, admin: Metadata, worker: Metadata) -> Metadata:
    return worker if method.containing_service.name == "MatchHost" else admin


def test_fuzz_every_method(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    world = World(served, admin_metadata, worker_metadata)
    failures: list[str] = []
    codes: dict[str, int] = {}
    for method in METHODS:
        call = _call(served, method, _metadata(method, admin_metadata, worker_metadata))
        for i, request in enumerate(requests_for(method, world)):
            before = row_counts(served.store.engine)
            sent = len(served.queue.sent)
            code = grpc.StatusCode.OK
            try:
                call(request)
            except grpc.RpcError as err:
                code = err.code()  # type: ignore[attr-defined]
                if code in FORBIDDEN:
                    failures.append(f"{method.name} #{i}: {code.name}: {err.details()}")  # type: ignore[attr-defined]
            codes[code.name] = codes.get(code.name, 0) + 1
            if code is not grpc.StatusCode.OK:
                if row_counts(served.store.engine) != before:
                    failures.append(f"{method.name} #{i}: refused ({code.name}) but wrote rows")
                if len(served.queue.sent) != sent:
                    failures.append(f"{method.name} #{i}: refused ({code.name}) but enqueued")
    assert failures == [], "\n".join(failures[:20])
    assert codes.get("INVALID_ARGUMENT", 0) > 50 and codes.get("OK", 0) > 10, codes
    assert served.arena.ListGames(arena_pb2.ListGamesRequest(), metadata=admin_metadata).games


UNDECODABLE = [
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",  # a varint longer than ten bytes
    b"\x0a\x05ab",  # field 1 says five bytes, two follow
    b"\x0f",  # wire type 7 does not exist
]


@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
def test_undecodable_bytes_are_invalid_arguments(
    running: Running,
    admin_metadata: Metadata,
    worker_metadata: Metadata,
    method: MethodDescriptor,
) -> None:
    path = f"/{method.containing_service.full_name}/{method.name}"
    metadata = _metadata(method, admin_metadata, worker_metadata)
    junk = list(UNDECODABLE)
    first = method.input_type.fields_by_number.get(1)
    if first is not None and first.type == FieldDescriptor.TYPE_STRING:
        junk.append(b"\x0a\x02\xc3\x28")  # field 1, a string that is not UTF-8
    before = row_counts(running.store.engine)
    for data in junk:
        with pytest.raises(grpc.RpcError) as err:
            if method.server_streaming:
                list(running.channel.unary_stream(path)(data, metadata=metadata, timeout=DEADLINE))
            else:
                running.channel.unary_unary(path)(data, metadata=metadata, timeout=DEADLINE)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, data  # type: ignore[attr-defined]
        assert err.value.details() == (  # type: ignore[attr-defined]
            f"the request bytes are not a valid message for "
            f"{method.containing_service.name}/{method.name} (DecodeError); "
            "send a message built from the hamlet.v1 protos"
        )
    assert row_counts(running.store.engine) == before
