"""GetReplay a page at a time, from a bounded cache of replays in wire form.

A finished, published match never changes what its log replays to, so the engine's part of
its replay (initial state, every step with its public state, the engine's scores and ranks)
is computed once, encoded, and kept by match id in a byte-bounded LRU
(:class:`~server.services.replaycache.ByteLRU`, ``HAMLET_REPLAY_CACHE_BYTES``). A page then
costs the match's record (read on every call: who may see it, and whether the stored result
still agrees with the engine's) and the decoding of its own steps, never a replay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hamlet import codec
from hamlet.v1 import common_pb2
from server.servicers import convert
from server.services import validation as v
from server.services.errors import InvalidArgumentError
from server.services.replaycache import ByteLRU
from server.services.replays import Replay, judge
from server.storage import MatchRecord, MatchStatus

DEFAULT_STEPS = 500
#: The cache's budget unless the server's settings say (HAMLET_REPLAY_CACHE_BYTES).
DEFAULT_REPLAY_CACHE_BYTES = 64 * 2**20
MAX_STEPS = 2000
#: What an entry costs beyond its encoded bytes (the objects holding them), per step.
_OVERHEAD_PER_STEP = 40
_INITIAL_STATE = common_pb2.Replay.INITIAL_STATE_FIELD_NUMBER
_STEPS = common_pb2.Replay.STEPS_FIELD_NUMBER


def _framed(field_number: int, payload: bytes) -> bytes:
    """``payload`` as a length-delimited field of a message (protobuf wire format): pages are
    joined from framed steps and parsed once, not built a step at a time."""
    key, size, out = (field_number << 3) | 2, len(payload), bytearray()
    for value in (key, size):
        while value > 0x7F:
            out.append((value & 0x7F) | 0x80)
            value >>= 7
        out.append(value)
    return bytes(out) + payload


@dataclass(frozen=True, slots=True)
class EncodedReplay:
    """The engine's part of a replay, encoded: what a page is cut from."""

    initial_state: bytes  # Replay.initial_state, framed
    steps: tuple[bytes, ...]  # each a Replay.steps entry, framed
    scores: tuple[int, ...]
    engine_ranks: tuple[int, ...]

    @property
    def size(self) -> int:
        """Bytes it holds, roughly (its encoded states and steps dominate)."""
        data = len(self.initial_state) + sum(len(b) for b in self.steps)
        return data + _OVERHEAD_PER_STEP * (len(self.steps) + 1)


def encode(data: Replay) -> EncodedReplay:
    """A computed replay in wire form."""
    g = data.match.game
    return EncodedReplay(
        initial_state=_framed(
            _INITIAL_STATE, codec.dict_to_struct(data.initial_state).SerializeToString()
        ),
        steps=tuple(
            _framed(_STEPS, convert.replay_step(g, s).SerializeToString()) for s in data.steps
        ),
        scores=tuple(data.scores),
        engine_ranks=data.engine_ranks,
    )


class ReplayPages:
    """Serves pages of replays, computing each match's at most once while it stays cached."""

    def __init__(self, max_bytes: int) -> None:
        self.cache: ByteLRU[str, EncodedReplay] = ByteLRU(max_bytes)

    def page(
        self,
        match: MatchRecord,
        published: bool,
        compute: Callable[[], Replay],
        first_step: int,
        max_steps: int,
    ) -> common_pb2.Replay:
        """Steps ``first_step``.. (at most ``max_steps``, 0 meaning the default) of the
        replay of ``match`` (its current record). ``compute`` replays it (and refuses what
        may not be replayed); a cached replay is served only for a finished, published
        match (cached ones are), else ``compute`` decides."""
        size = v.bounded("max_steps", max_steps or DEFAULT_STEPS, 1, MAX_STEPS)
        if first_step < 0:
            raise InvalidArgumentError(f"first_step must not be negative, not {first_step}")
        servable = match.status is MatchStatus.FINISHED and published
        found = self.cache.get(match.match_id) if servable else None
        if found is None:

            def computed() -> tuple[EncodedReplay, int]:
                enc = encode(compute())
                return enc, enc.size

            found = self.cache.get_or_compute(match.match_id, computed)
        total = len(found.steps)
        if first_step and first_step >= total:
            raise InvalidArgumentError(
                f"match {match.match_id} has {total} steps (0..{total - 1}); first_step "
                f"{first_step} is past the last: follow next_step, which is 0 after the last page"
            )
        ranks, agrees = judge(match, found.scores, found.engine_ranks)
        end = min(first_step + size, total)
        wire = b"".join(found.steps[first_step:end])
        if first_step == 0:
            wire = found.initial_state + wire
        out = common_pb2.Replay.FromString(wire)
        out.match.CopyFrom(convert.match(match))
        out.replayed_scores.extend(found.scores)
        out.replayed_ranks.extend(ranks)
        out.matches_record = agrees
        out.steps_total = total
        out.next_step = end if end < total else 0
        return out
