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


def _rated_at(board: arena_pb2.Leaderboard) -> str:
    """``; rated play at 1000 ms a decision, 10000 ms bank`` (empty when not sent)."""
    if not board.HasField("time_control"):
        return ""
    return f"; rated play at {time_control_text(board.time_control)}"


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
        return f"(no games, {r.games} games)"
    if math.isinf(r.high):
        return f"≥ {r.low:.0f} ({r.games} games, never beaten)"
    if math.isinf(r.low):
        return f"≤ {r.high:.0f} ({r.games} games, never won)"
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
    """One line per match."""
    table = Table(title=title)
    for col in ("match", "status", "seats (score/rank)", "decisions", "attempts"):
        table.add_column(col)
    for m in matches:
        seats = ", ".join(
            f"{seat_label(s)} {s.score}/{s.rank}"
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
    """A match's seats and outcome."""
    seed = str(m.seed) if m.seed else "hidden"
    table = Table(title=f"Match {m.match_id} ({m.game}, seed {seed}, {match_status(m.status)})")
    for col in ("seat", "bot", "version", "score", "place", "forfeit"):
        table.add_column(col)
    for s in m.seats:
        forfeit = _forfeit_cell(s)
        table.add_row(
            str(s.seat), s.bot_name, str(s.bot_version), str(s.score), str(s.rank + 1), forfeit
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


def interval_text(line: arena_pb2.RatedLine) -> str:
    """``1450 .. 1570``; ``anchor`` for the line that fixes the scale; ``>= 1870`` or
    ``<= 840`` for an interval open on one side (the bot never lost, or never won)."""
    if line.anchor:
        return "anchor"
    if line.open_high and line.open_low:
        return "no games"
    if line.open_high:
        return f"≥ {line.low:.0f} (never beaten)"
    if line.open_low:
        return f"≤ {line.high:.0f} (never won)"
    return f"{line.low:.0f} .. {line.high:.0f}"


def _range(low: int, high: int) -> str:
    return f"{low}" if low == high else f"{low}-{high}"


def leaderboard_tables(board: arena_pb2.Leaderboard) -> list[Table]:
    """The published rating (a fit with 95% intervals), one table per group of bots that
    played one another, when there is one; else the live Elo table."""
    if not board.lines:
        return [elo_table(board)]
    tables = []
    for group in range(max(board.groups, 1)):
        lines = [e for e in board.lines if e.group == group]
        if not lines:
            continue
        tables.append(_group_table(board, group, lines))
    return tables


def _group_title(board: arena_pb2.Leaderboard, group: int, lines: list[arena_pb2.RatedLine]) -> str:
    if group == 0:
        anchor = (
            f"{board.anchor_bot} = {board.anchor_rating:.0f} (anchor)"
            if board.anchor_bot
            else "the mean of its bots = 1500"
        )
        title = (
            f"Leaderboard: {board.game} ({board.rules_version}), {board.matches} rated matches "
            f"in {board.blocks} blocks; {anchor}{_rated_at(board)}"
        )
        if board.groups > 1:
            title += f"\nGroup 1 of {board.groups}"
        return title
    return (
        f"Group {group + 1} of {board.groups}: {len(lines)} bots that never played (even "
        "through others) the bots of any other group. Their ratings are on their own scale "
        "(their mean = 1500) and are NOT comparable with other groups: no order across groups"
    )


def _group_table(
    board: arena_pb2.Leaderboard, group: int, lines: list[arena_pb2.RatedLine]
) -> Table:
    last = group == max(e.group for e in board.lines)
    table = Table(
        title=_group_title(board, group, lines), caption=_caption(board) if last else None
    )
    for col in ("#", "bot", "rating", "95% interval", "rank", "joint rank", "games", "avg place"):
        table.add_column(col, justify="left" if col in ("bot", "95% interval") else "right")
    for e in lines:
        name = f"{e.bot_name}@{e.version}"
        if e.other_versions:
            name += f" (also v{', v'.join(map(str, e.other_versions))})"
        rating = f"{e.rating:.0f}"
        if e.open_high and not e.open_low:
            rating = f"≥ {e.low:.0f}"
        elif e.open_low and not e.open_high:
            rating = f"≤ {e.high:.0f}"
        table.add_row(
            str(e.position),
            name + (" ?" if e.provisional else ""),
            rating,
            interval_text(e),
            _range(e.rank_low, e.rank_high),
            _range(e.joint_rank_low, e.joint_rank_high),
            str(e.games),
            f"{e.average_place:.2f}",
        )
    return table


def leaderboard_table(board: arena_pb2.Leaderboard) -> Table:
    """The first table of :func:`leaderboard_tables` (group 0, or the live Elo table)."""
    return leaderboard_tables(board)[0]


def _caption(board: arena_pb2.Leaderboard) -> str:
    parts = [
        f"seat {a.seat + 1} of {a.players}: {a.elo:+.0f} ({a.low:+.0f} .. {a.high:+.0f})"
        for a in board.seat_advantages
        if a.high > a.low
    ]
    note = (
        "? = provisional (wide or open interval, or few games); rank: what each line's own "
        "interval allows; joint rank: 95% for every line at once; seat advantages against "
        "seat 1 (a seat whose games say nothing about it is left out)"
    )
    return note + ("\n" + "; ".join(parts) if parts else "")


def elo_table(board: arena_pb2.Leaderboard) -> Table:
    """A game's live Elo table (order-dependent; what pairings use)."""
    table = Table(
        title=f"Live Elo: {board.game}{_rated_at(board)}",
        caption="updated as results arrive (what pairings use); shown on the published scale: "
        "random = 1000 when it has rated games, else the mean = 1500",
    )
    for col in ("#", "bot", "rating", "games", "wins", "draws", "losses"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for e in board.entries:
        table.add_row(
            str(e.position),
            e.bot_name,
            f"{e.rating:.1f}",
            str(e.games),
            str(e.wins),
            str(e.draws),
            str(e.losses),
        )
    return table


_BARS = " ▁▂▃▄▅▆▇█"


def history_chart(h: arena_pb2.BotHistory, width: int = 60) -> str:
    """The live rating over the bot's matches as a one-line chart, with its range."""
    if not h.points:
        return f"{h.name} has no rated {h.game} matches yet"
    ratings = [p.rating for p in h.points]
    step = max(1, len(ratings) // width)
    sampled = ratings[::step][-width:]
    low, high = min(ratings), max(ratings)
    span = (high - low) or 1.0
    bars = "".join(_BARS[1 + int((r - low) / span * (len(_BARS) - 2))] for r in sampled)
    return (
        f"{h.name} in {h.game}: {len(ratings)} rated matches, live Elo (random = 1000 when it "
        f"has rated games, else the mean = 1500) {ratings[0]:.0f} -> "
        f"{ratings[-1]:.0f} (low {low:.0f}, high {high:.0f})\n{bars}"
    )


def opponents_table(h: arena_pb2.BotHistory) -> Table:
    """Results against each opponent (ahead, level, behind)."""
    table = Table(title=f"{h.name} against each opponent ({h.game})")
    for col in ("opponent", "matches", "ahead", "level", "behind"):
        table.add_column(col, justify="left" if col == "opponent" else "right")
    for r in h.opponents:
        table.add_row(r.bot_name, str(r.games), str(r.wins), str(r.draws), str(r.losses))
    return table
