"""Play one match on this machine without Celery or a server (``python -m workers play``)."""

from __future__ import annotations

import hashlib
import shutil
import socket
import tempfile
from collections.abc import Sequence
from pathlib import Path

import games
from bots import registry
from workers.clients import CodeCache, SeatClients
from workers.model import BotKind, MatchPlan, MatchRecord, SeatPlan
from workers.play import play_plan


def seat_plan(seat: int, spec: str) -> tuple[SeatPlan, bytes | None]:
    """A seat from a command-line spec: built-in name, ``.py`` or archive ``.zip`` path, or
    ``grpc://host:port``."""
    if spec.startswith("grpc://"):
        return SeatPlan(seat, spec, 0, BotKind.REMOTE, endpoint=_pinned(spec)), None
    if spec.endswith((".py", ".zip")):
        code = Path(spec).read_bytes()
        sha = hashlib.sha256(code).hexdigest()
        return SeatPlan(seat, Path(spec).stem, 0, BotKind.UPLOADED, code_sha256=sha), code
    registry.get(spec)  # KeyError naming the known bots
    return SeatPlan(seat, spec, 0, BotKind.BUILTIN), None


def _pinned(url: str) -> str:
    """``grpc://host:port`` as ``ip:port`` (seat clients dial addresses, not names). On one's
    own machine there is no allow-list: the person running this picks the endpoints."""
    host, _, port = url.removeprefix("grpc://").rpartition(":")
    host = host.strip("[]")
    address = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)[0][4][0]
    return f"[{address}]:{port}" if ":" in str(address) else f"{address}:{port}"


def play_local(
    game: str, seats: Sequence[str], seed: int, decision_time_s: float, time_bank_s: float
) -> MatchRecord:
    """Play ``game`` between ``seats`` (command-line specs) and return the record."""
    plans, codes = [], {}
    for i, spec in enumerate(seats):
        plan, code = seat_plan(i, spec)
        plans.append(plan)
        if code is not None:
            codes[plan.code_sha256] = code
    match = MatchPlan(
        match_id=f"local-{seed}",
        game=game,
        rules_version=games.get(game).rules_version,
        seed=seed,
        seats=tuple(plans),
        decision_time_s=decision_time_s,
        time_bank_s=time_bank_s,
    )
    cache_dir = Path(tempfile.mkdtemp(prefix="hamlet-local-code-"))
    try:
        return play_plan(match, SeatClients(CodeCache(cache_dir, codes.__getitem__)), None)
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
