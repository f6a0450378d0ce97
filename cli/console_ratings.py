"""The CLI's rendering of ratings: the published leaderboard (group by group, with open bounds,
the anchor and joint rank ranges), the live Elo table and a bot's history.

Every string is printed through :data:`cli.console.out`, which cleans it (see there).
"""

from __future__ import annotations

from rich.table import Table

from cli.console import time_control_text
from hamlet.v1 import arena_pb2


def _rated_at(board: arena_pb2.Leaderboard) -> str:
    """``; rated play at 1000 ms a decision, 10000 ms bank`` (empty when not sent)."""
    if not board.HasField("time_control"):
        return ""
    return f"; rated play at {time_control_text(board.time_control)}"


def interval_text(line: arena_pb2.RatedLine) -> str:
    """``1450 .. 1570``; ``anchor`` for the line that fixes the scale; ``>= 1870`` or
    ``<= 840`` for an interval open on one side (the bot never lost, or never won)."""
    if line.anchor:
        return "anchor"
    if line.open_high and line.open_low:
        return "no bound"
    if line.open_high:
        return f"≥ {line.low:.0f} (open above)"
    if line.open_low:
        return f"≤ {line.high:.0f} (open below)"
    return f"{line.low:.0f} .. {line.high:.0f}"


def _range(low: int, high: int) -> str:
    return f"{low}" if low == high else f"{low}-{high}"


def leaderboard_tables(board: arena_pb2.Leaderboard) -> list[Table]:
    """The published rating (a fit with 95% intervals), one table per group of bots that
    played one another, when there is one; else the live Elo table."""
    if not board.lines:
        return [elo_table(board)]
    return [
        _group_table(board, group, [e for e in board.lines if e.group == group])
        for group in sorted({e.group for e in board.lines})
    ]


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
        if e.open_high and e.open_low:
            rating = "-"
        elif e.open_high:
            rating = f"≥ {e.low:.0f}"
        elif e.open_low:
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
    if board.lines:
        scale = f"{board.anchor_bot} = 1000" if board.anchor_bot else "the mean = 1500"
    else:
        scale = "random = 1000 when it has rated games, else the mean = 1500"
    table = Table(
        title=f"Live Elo: {board.game}{_rated_at(board)}",
        caption=f"updated as results arrive (what pairings use); on the published scale: {scale}",
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
