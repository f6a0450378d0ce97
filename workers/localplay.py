"""``hamlet bot play``: play one bot against built-ins on this machine, as the workers would.

The bot under test (the *target*: a ``.py`` file, a ``.zip`` archive or a bot directory, a
built-in name, or ``grpc://host:port``) plays ``games`` games of ``game`` in duplicate blocks:
each block is one table in every cyclic seat rotation, all with one seed (``games.blocks``,
the same derivation as the server's tournaments), the other seats filled from the opponents
in turn. Every match goes through :func:`workers.play.play_plan` with the workers' own seat
clients, so an uploaded bot runs in the same sandbox, with the same protocol, the same
per-decision deadline and time bank (the server's defaults unless told otherwise) and the
same forfeit rules. The sandbox policy is the workers' too: without every guarantee uploaded
bots are refused unless ``HAMLET_SANDBOX=insecure``.

Nothing here prints: the caller gets a :class:`GameResult` after each game (for a progress
bar) and a :class:`~workers.localsummary.Summary` at the end.
"""

from __future__ import annotations

import hashlib
import math
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import games
from bots import registry
from games.blocks import block_seed, rotation, seat_in_rotation
from workers.clients import CodeCache, SeatClients
from workers.config import ConfigError, WorkerConfig
from workers.localsummary import GameResult, Summary, summarize
from workers.model import BotKind, MatchPlan, SeatClient, SeatPlan
from workers.play import play_plan
from workers.sandbox import SandboxLimits
from workers.sandbox_check import cached_check
from workers.trace import TracingClient
from workers.tracefile import write_trace

#: The server's default per-decision limit (``server.config.Settings.default_decision_time_ms``).
DEFAULT_DECISION_MS = 1000
#: The server's time bank, in per-decision limits (``server.services.tournaments``).
TIME_BANK_FACTOR = 10


class LocalPlayError(ValueError):
    """Bad arguments: the message is one line naming what is wrong and what is valid."""


class SandboxRefusedError(RuntimeError):
    """Uploaded bots cannot be played here: the sandbox lacks guarantees (one-line message)."""


@dataclass(frozen=True, slots=True)
class Contestant:
    """A command-line bot spec, resolved: who plays a seat and the code it brings."""

    spec: str
    label: str
    kind: BotKind
    code: bytes | None = None
    endpoint: str = ""

    @property
    def code_sha256(self) -> str:
        """The SHA-256 of the code ("" for built-in and remote bots)."""
        return hashlib.sha256(self.code).hexdigest() if self.code is not None else ""

    def seat(self, seat: int) -> SeatPlan:
        """This contestant in ``seat`` of a match plan."""
        name = self.label if self.kind is not BotKind.BUILTIN else self.spec
        return SeatPlan(seat, name, 0, self.kind, self.code_sha256, self.endpoint)


@dataclass(frozen=True, slots=True)
class LocalPlay:
    """What to play (the command line, validated by :func:`prepare`)."""

    target: str
    game: str
    opponents: tuple[str, ...] = ("random",)
    games: int = 20
    seed: int = 1
    #: Players per table; 0: one seat per opponent plus the target, within the game's range.
    players: int = 0
    decision_ms: int = DEFAULT_DECISION_MS
    trace_dir: Path | None = None


@dataclass(frozen=True, slots=True)
class Table:
    """One planned game: rotation ``rotation`` of block ``block``."""

    number: int  # 1-based, in playing order
    block: int
    rotation: int
    seed: int
    seats: tuple[Contestant, ...]
    target_seat: int


@dataclass(frozen=True, slots=True)
class Prepared:
    """A validated request: its contestants and every table to play."""

    request: LocalPlay
    target: Contestant
    players: int
    tables: tuple[Table, ...]
    limits: SandboxLimits
    sandbox_tier: str


def resolve(spec: str, game: str) -> Contestant:
    """A bot spec: ``grpc://host:port``, a ``.py``/``.zip`` file or bot directory, or a
    built-in name that plays ``game``; :class:`LocalPlayError` otherwise."""
    if spec.startswith("grpc://"):
        host, _, port = spec.removeprefix("grpc://").rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise LocalPlayError(f"bad remote bot {spec!r}: write grpc://HOST:PORT")
        return Contestant(spec, spec, BotKind.REMOTE, endpoint=f"{host}:{port}")
    path = Path(spec)
    if spec in registry.names():
        if not registry.get(spec).plays(game):
            raise LocalPlayError(
                f"built-in bot {spec!r} cannot play {game!r}; it plays: "
                f"{', '.join(registry.games_for(spec)) or 'nothing yet'}"
            )
        return Contestant(spec, spec, BotKind.BUILTIN)
    if path.is_dir():
        from bots.archive import pack

        try:
            return Contestant(spec, path.name, BotKind.UPLOADED, code=pack(path))
        except (OSError, ValueError) as exc:
            raise LocalPlayError(f"cannot pack bot directory {spec}: {exc}") from None
    if path.suffix in (".py", ".zip"):
        try:
            return Contestant(spec, path.name, BotKind.UPLOADED, code=path.read_bytes())
        except FileNotFoundError:
            raise LocalPlayError(f"no such file: {spec}") from None
        except OSError as exc:
            raise LocalPlayError(f"cannot read {spec}: {exc.strerror or exc}") from None
    raise LocalPlayError(
        f"unknown bot {spec!r}: not a built-in bot ({', '.join(registry.names())}), "
        "a .py or .zip file, a bot directory, or grpc://HOST:PORT"
    )


def prepare(request: LocalPlay) -> Prepared:
    """Check ``request`` and plan its tables; :class:`LocalPlayError` naming the first
    problem, :class:`SandboxRefusedError` if uploaded bots cannot be played here."""
    if request.game not in games.names():
        raise LocalPlayError(
            f"unknown game {request.game!r}; known games: {', '.join(games.names())}"
        )
    spec = games.get(request.game)
    if request.games < 1:
        raise LocalPlayError(f"--games must be at least 1, not {request.games}")
    if request.decision_ms < 1:
        raise LocalPlayError(f"--decision-ms must be at least 1, not {request.decision_ms}")
    if request.seed < 0:
        raise LocalPlayError(f"--seed must not be negative, not {request.seed}")
    if not request.opponents or any(not o for o in request.opponents):
        raise LocalPlayError("--vs needs at least one opponent, e.g. --vs random,greedy")
    players = request.players or min(
        max(1 + len(request.opponents), spec.min_players), spec.max_players
    )
    if not spec.min_players <= players <= spec.max_players:
        raise LocalPlayError(
            f"{request.game} is played by {spec.min_players} to {spec.max_players} players, "
            f"not {players}"
        )
    target = resolve(request.target, request.game)
    opponents = [resolve(o, request.game) for o in request.opponents]
    if request.trace_dir is not None:
        try:
            request.trace_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LocalPlayError(
                f"cannot use --trace {request.trace_dir}: {exc.strerror or exc}"
            ) from None
    limits, tier = _sandbox([target, *opponents])
    tables = plan_tables(target, opponents, players, request.games, request.seed)
    return Prepared(request, target, players, tuple(tables), limits, tier)


def plan_tables(
    target: Contestant, opponents: Sequence[Contestant], players: int, count: int, seed: int
) -> list[Table]:
    """Whole duplicate blocks covering at least ``count`` games: block ``b`` seats the target
    and the next ``players - 1`` opponents in turn, in every rotation, with one seed."""
    out: list[Table] = []
    others = players - 1
    for block in range(math.ceil(count / players)):
        order = (target, *(opponents[(block * others + k) % len(opponents)] for k in range(others)))
        table_seed = block_seed(seed, block)
        for rot in range(players):
            out.append(
                Table(
                    number=len(out) + 1,
                    block=block,
                    rotation=rot,
                    seed=table_seed,
                    seats=rotation(order, rot),
                    target_seat=seat_in_rotation(players, rot),
                )
            )
    return out


def _sandbox(contestants: Sequence[Contestant]) -> tuple[SandboxLimits, str]:
    try:
        limits = WorkerConfig.from_env().sandbox_limits()
    except ConfigError as exc:
        raise LocalPlayError(str(exc)) from None
    if not any(c.kind is BotKind.UPLOADED for c in contestants):
        return limits, ""
    report = cached_check(limits)
    if not report.plays_uploaded:
        raise SandboxRefusedError(
            "uploaded bots are refused here, as a worker would: the sandbox is missing "
            f"guarantees ({report.why_refused()}); `hamlet worker --check-sandbox` lists them; "
            "HAMLET_SANDBOX=insecure plays them unsandboxed (local development only)"
        )
    return limits, report.tier.value


class _Seats:
    """The workers' seat clients, the target's wrapped in a :class:`TracingClient` when its
    decisions are traced."""

    def __init__(self, inner: SeatClients, target_seat: int, trace: bool) -> None:
        self._inner = inner
        self._target = target_seat
        self._trace = trace
        self.tracer: TracingClient | None = None

    @property
    def unrated(self) -> bool:
        """Whether an uploaded bot ran without the full sandbox."""
        return self._inner.unrated

    @property
    def sandbox_tier(self) -> str:
        """The tier uploaded bots ran in."""
        return self._inner.sandbox_tier

    def open(self, plan: MatchPlan) -> list[SeatClient]:
        """The match's clients, the target's traced."""
        clients = self._inner.open(plan)
        if not self._trace:
            return clients
        self.tracer = TracingClient(clients[self._target], self._target)
        # A TracingClient is a SeatClient whose kind is read-only (a property).
        clients[self._target] = cast(SeatClient, self.tracer)
        return clients


def match_plan(request: LocalPlay, table: Table) -> MatchPlan:
    """The plan a worker would claim for ``table``: same limits, same rules version."""
    return MatchPlan(
        match_id=f"local.b{table.block}.r{table.rotation}",
        game=request.game,
        rules_version=games.get(request.game).rules_version,
        seed=table.seed,
        seats=tuple(c.seat(i) for i, c in enumerate(table.seats)),
        decision_time_s=request.decision_ms / 1000,
        time_bank_s=request.decision_ms * TIME_BANK_FACTOR / 1000,
    )


def play(prepared: Prepared, on_game: Callable[[GameResult], None] | None = None) -> Summary:
    """Play every table of ``prepared`` in order; the summary of the target's games.

    Raises :class:`~workers.model.InfrastructureError` when a match cannot be played at all
    (a sandbox that will not start, an engine fault): a fault that is no bot's.
    """
    request = prepared.request
    codes = {c.code_sha256: c.code for t in prepared.tables for c in t.seats if c.code}
    cache_dir = Path(tempfile.mkdtemp(prefix="hamlet-play-code-"))
    results: list[GameResult] = []
    try:
        clients = SeatClients(CodeCache(cache_dir, codes.__getitem__), prepared.limits)
        for table in prepared.tables:
            plan = match_plan(request, table)
            seats = _Seats(clients, table.target_seat, request.trace_dir is not None)
            record = play_plan(plan, seats)
            path = None
            if request.trace_dir is not None and seats.tracer is not None:
                trace = seats.tracer.trace()
                path = write_trace(request.trace_dir, table.number, plan, record, trace)
            result = GameResult(
                table.number,
                table.block,
                table.rotation,
                table.target_seat,
                tuple(c.label for c in table.seats),
                record,
                path,
            )
            results.append(result)
            if on_game is not None:
                on_game(result)
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    return summarize(
        game=request.game,
        seed=request.seed,
        players=prepared.players,
        requested=request.games,
        target=prepared.target.label,
        results=results,
        sandbox_tier=prepared.sandbox_tier,
    )
