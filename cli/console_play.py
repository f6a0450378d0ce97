"""Rendering of ``hamlet bot play``: the live progress bar and the summary."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from workers.localsummary import BotLine, GameResult, Summary


class OnGame(Protocol):
    """Called after each game."""

    def __call__(self, result: GameResult) -> None:
        """Show one finished game."""
        ...


@contextmanager
def progress_bar(out: Console, title: str, total: int, show: bool) -> Iterator[OnGame]:
    """A live bar on ``out`` while games are played; when ``show`` is false (``--json``,
    or stdout is not a terminal) nothing is drawn at all."""
    if not show:
        yield lambda result: None
        return
    with Progress(
        TextColumn("{task.description}", style="bold", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[note]}", markup=False),
        console=out,
        transient=False,
    ) as progress:
        task = progress.add_task(title, total=total, note="")

        def step(result: GameResult) -> None:
            seat = result.target_seat
            forfeit = any(f.seat == seat for f in result.record.forfeits)
            note = f"game {result.number}: place {result.target_place}" + (
                " (forfeit)" if forfeit else f", score {result.record.scores[seat]}"
            )
            progress.update(task, advance=1, note=note)

        yield step


def _row(line: BotLine, you: bool) -> list[str | Text]:
    wins = f"{line.wins}" + (f" ({line.shared} shared)" if line.shared else "")
    return [
        Text(line.name + (" (you)" if you else "")),  # a file name is not markup
        str(line.games),
        wins,
        f"{line.average_place:.2f}",
        f"{line.average_score:.1f}",
        str(line.forfeits),
    ]


def summary_lines(s: Summary, opponents: str, decision_ms: int, bank_ms: int) -> list[str]:
    """The text around the tables: what was played and the bot's decision times."""
    lines = [
        f"{s.game}: {s.target.name} vs {opponents}, {s.games} games in {s.blocks} duplicate "
        f"block{'s' if s.blocks != 1 else ''} of {s.players} seat rotations, seed {s.seed}; "
        f"{decision_ms} ms per decision "
        f"+ {bank_ms} ms bank" + (f"; sandbox {s.sandbox_tier}" if s.sandbox_tier else "")
    ]
    if s.games != s.requested:
        lines.append(f"(asked for {s.requested} games: whole blocks only, so {s.games})")
    if s.sandbox_tier == "insecure":
        lines.append("HAMLET_SANDBOX=insecure: uploaded bots ran unsandboxed")
    lines.append(
        f"decision time of {s.target.name} over {s.decisions} decisions: mean "
        f"{s.mean_decision_s * 1000:.1f} ms, max {s.max_decision_s * 1000:.1f} ms"
    )
    return lines


def results_table(s: Summary) -> Table:
    """One line for the bot under test, one per opponent."""
    table = Table(title=f"Results ({s.game}, places 1-based, forfeits last)")
    for col in ("bot", "games", "wins", "avg place", "avg score", "forfeits"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    table.add_row(*_row(s.target, True))
    for line in s.opponents:
        table.add_row(*_row(line, False))
    return table


def forfeits_table(s: Summary) -> Table:
    """Every forfeit of the bot under test, with its reason and detail."""
    table = Table(title=f"Forfeits of {s.target.name}")
    for col in ("game", "seat", "decision", "reason", "detail"):
        table.add_column(col, justify="right" if col in ("game", "seat", "decision") else "left")
    for f in s.forfeits:
        table.add_row(str(f.game), str(f.seat + 1), str(f.decision), f.reason, Text(f.detail))
    return table
