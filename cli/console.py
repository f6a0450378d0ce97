"""Rendering for the CLI: rich tables for people, JSON for scripts.

Everything printed goes through :data:`out` or :data:`err`, two consoles that read no markup
and no emoji codes in the strings they are given (a ``[red]`` in a description is shown as
written) and pass every piece of text through :func:`cli.safe_text.clean` as it is written: the
strings users wrote (bot names, descriptions, stderr, forfeit details, messages) can carry no
escape sequence to the terminal, whichever table or line they end up in. JSON output escapes
control characters itself (``json.dumps``, ASCII only).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from rich.console import Console
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from cli.safe_text import clean
from hamlet.v1 import arena_pb2, common_pb2


class SafeConsole(Console):
    """A rich console that cleans the text of every segment it writes (never the control
    segments rich makes itself: a progress bar's cursor moves are rich's, not a user's).
    Strings are cleaned once more before layout, so that a table's columns are measured on
    what will be shown."""

    def render_str(self, text: str, **options: Any) -> Text:
        return super().render_str(clean(text), **options)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            segment if segment.control else Segment(clean(segment.text), segment.style)
            for segment in buffer
        )


out = SafeConsole(highlight=False, soft_wrap=True, markup=False, emoji=False)
err = SafeConsole(stderr=True, highlight=False, soft_wrap=True, markup=False, emoji=False)


def to_dict(msg: Message) -> dict[str, Any]:
    """A message as plain JSON-ready data (proto field names, defaults included)."""
    return json_format.MessageToDict(
        msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def print_json(data: Any) -> None:
    """One JSON document (or line) on stdout."""
    sys.stdout.write(json.dumps(data, sort_keys=True) + "\n")
    sys.stdout.flush()


def short_status(value: int, enum: Any, prefix: str) -> str:
    """``MATCH_STATUS_FINISHED`` -> ``finished``."""
    return str(enum.Name(value)).removeprefix(prefix).lower()


def match_status(value: int) -> str:
    """A match status for people."""
    return short_status(value, common_pb2.MatchStatus, "MATCH_STATUS_")


def tournament_status(value: int) -> str:
    """A tournament status for people."""
    return short_status(value, common_pb2.TournamentStatus, "TOURNAMENT_STATUS_")


def games_table(games: Iterable[common_pb2.Game]) -> Table:
    """The registered games."""
    table = Table(title="Games")
    for col in ("name", "title", "players", "rules version", "rated decision/bank"):
        table.add_column(col)
    for g in games:
        table.add_row(
            g.name,
            g.display_name,
            f"{g.min_players}-{g.max_players}",
            g.rules_version,
            f"{g.rated_time_control.decision_time_ms}/{g.rated_time_control.time_bank_ms} ms"
            if g.HasField("rated_time_control")
            else "-",
        )
    return table


def time_control_text(tc: common_pb2.TimeControl) -> str:
    """``1000 ms a decision, 10000 ms bank``."""
    return f"{tc.decision_time_ms} ms a decision, {tc.time_bank_ms} ms bank"


def bots_table(bots: Iterable[arena_pb2.BotInfo]) -> Table:
    """Bots with their latest versions."""
    table = Table(title="Bots")
    for col in ("name", "origin", "games", "version", "retired", "description"):
        table.add_column(col)
    for b in bots:
        origin = short_status(b.origin, arena_pb2.BotOrigin, "BOT_ORIGIN_")
        table.add_row(
            b.name,
            origin,
            ", ".join(b.games),
            str(b.latest_version),
            "yes" if b.retired else "",
            b.description,
        )
    return table


def tournament_table(t: arena_pb2.Tournament) -> Table:
    """A tournament's parameters and progress."""
    table = Table(title=f"Tournament {t.tournament_id}", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    rows = [
        ("game", t.game),
        ("status", tournament_status(t.status)),
        ("bots", ", ".join(t.bots)),
        ("players per table", str(t.players_per_table)),
        ("rounds", str(t.rounds)),
        ("seed", str(t.seed) if t.seed_nonce else "hidden until the tournament ends"),
        ("seed commitment", t.seed_commitment or "-"),
        ("decision time", f"{t.decision_time_ms} ms"),
        ("rated", "yes" if t.rated else "no"),
        (
            "matches",
            f"{t.matches_finished}/{t.matches_total} finished, {t.matches_running} running, "
            f"{t.matches_cancelled} cancelled, {t.matches_failed} failed",
        ),
        ("created", t.created_at),
        ("finished", t.finished_at or "-"),
    ]
    for row in rows:
        table.add_row(*row)
    return table


def standings_table(t: arena_pb2.Tournament) -> Table:
    """Per-bot standings of a tournament."""
    table = Table(title=f"Standings {t.tournament_id} ({t.game})")
    for col in ("#", "bot", "matches", "wins", "draws", "losses", "points", "forfeits"):
        table.add_column(col, justify="right" if col not in ("bot",) else "left")
    for i, s in enumerate(t.standings, 1):
        table.add_row(
            str(i),
            s.bot_name,
            str(s.matches),
            str(s.wins),
            str(s.draws),
            str(s.losses),
            f"{s.points:g}",
            str(s.forfeits),
        )
    return table


def seat_label(s: common_pb2.Seat) -> str:
    """A seat's bot as tournaments name their entries: ``name@version``."""
    return f"{s.bot_name}@{s.bot_version}"


def bot_versions_table(resp: arena_pb2.ListBotVersionsResponse) -> Table:
    """Every version of a bot, oldest first, with its published ratings."""
    b = resp.bot
    owner = b.owner or "the system (built-in)"
    table = Table(title=f"Versions of {b.name} (owner {owner}{', retired' if b.retired else ''})")
    for col in ("version", "created", "runtime", "code sha256", "matches", "rating", "description"):
        table.add_column(col, justify="right" if col in ("version", "matches") else "left")
    for ver in resp.versions:
        table.add_row(
            f"{ver.version}{' (latest)' if ver.latest else ''}",
            ver.created_at,
            ver.runtime,
            ver.code_sha256[:12] or "-",
            str(ver.matches),
            ratings_text(ver) or "-",
            ver.description,
        )
    return table


def ratings_text(ver: arena_pb2.BotVersion) -> str:
    """``toy 1512 (1450 .. 1570, 40 games)`` per game with a published line (``≥ 1870`` when
    the interval is open above, ``anchor`` for the line that fixes the scale)."""
    return "; ".join(
        f"{r.game} {_version_rating(r)}" + (" ?" if r.provisional else "") for r in ver.ratings
    )


def _version_rating(r: arena_pb2.VersionRating) -> str:
    if math.isinf(r.high) and math.isinf(r.low):
        return f"no bound ({r.games} games)"
    if math.isinf(r.high):
        return f"≥ {r.low:.0f} ({r.games} games, open above)"
    if math.isinf(r.low):
        return f"≤ {r.high:.0f} ({r.games} games, open below)"
    if r.low == r.high:
        return f"{r.rating:.0f} (anchor, {r.games} games)"
    return f"{r.rating:.0f} ({r.low:.0f} .. {r.high:.0f}, {r.games} games)"


def bot_version_table(ver: arena_pb2.BotVersion, permission: str = "") -> Table:
    """One version's details (and who may enter the bot, when given)."""
    table = Table(title=f"{ver.bot_name}@{ver.version}", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    rows = [
        ("bot", ver.bot_name),
        ("version", f"{ver.version}{' (latest)' if ver.latest else ''}"),
        ("origin", short_status(ver.origin, arena_pb2.BotOrigin, "BOT_ORIGIN_")),
        ("owner", ver.owner or "the system (built-in)"),
        ("games", ", ".join(ver.games)),
        ("created", ver.created_at),
        ("runtime", ver.runtime),
        ("code sha256", ver.code_sha256 or "-"),
        ("description", ver.description or "-"),
        ("matches", str(ver.matches)),
        ("rating", ratings_text(ver) or "no rated games yet"),
        ("retired", "yes" if ver.retired else "no"),
    ]
    if permission:
        rows.append(("permission", permission))
    for row in rows:
        table.add_row(*row)
    return table


def matches_table(matches: Iterable[common_pb2.Match], title: str = "Matches") -> Table:
    """One line per match (seats in seat order, places 1-based as everywhere people read
    them)."""
    table = Table(title=title)
    for col in ("match", "status", "seats (score/place)", "decisions", "attempts"):
        table.add_column(col)
    for m in matches:
        seats = ", ".join(
            f"{seat_label(s)} {s.score}/{s.rank + 1}"
            + (f" [forfeit: {s.forfeit_reason}]" if s.forfeit_reason else "")
            if m.status == common_pb2.MATCH_STATUS_FINISHED
            else seat_label(s)
            for s in m.seats
        )
        table.add_row(
            m.match_id, match_status(m.status), seats, str(m.decision_count), str(m.attempts)
        )
    return table


def match_table(m: common_pb2.Match) -> Table:
    """A match's seats and outcome (seats and places 1-based)."""
    seed = str(m.seed) if m.seed else "hidden"
    table = Table(title=f"Match {m.match_id} ({m.game}, seed {seed}, {match_status(m.status)})")
    for col in ("seat", "bot", "version", "score", "place", "forfeit"):
        table.add_column(col)
    for s in m.seats:
        forfeit = _forfeit_cell(s)
        table.add_row(
            str(s.seat + 1), s.bot_name, str(s.bot_version), str(s.score), str(s.rank + 1), forfeit
        )
    return table


def _forfeit_cell(s: common_pb2.Seat, width: int = 48) -> str:
    """A forfeit in a table cell: the reason, where, and the start of the detail (``hamlet
    match show`` prints the whole detail below the table)."""
    if not s.forfeit_reason:
        return ""
    where = f" at decision {s.forfeit_decision}" if s.forfeit_decision else ""
    detail = s.forfeit_detail if len(s.forfeit_detail) <= width else s.forfeit_detail[:width] + "…"
    return f"{s.forfeit_reason}{where}: {detail}"
