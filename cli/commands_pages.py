"""Reading a tournament's matches page by page for the CLI, with a progress bar."""

from __future__ import annotations

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from cli import console
from hamlet.paging import match_pages
from hamlet.v1 import arena_pb2_grpc, common_pb2

#: Matches per ListMatches call: a page answers well within any per-call timeout.
PAGE_SIZE = 500


def read_matches(
    stub: arena_pb2_grpc.ArenaStub, tournament_id: str, timeout: float | None
) -> list[common_pb2.Match]:
    """Every match of a tournament; ``timeout`` bounds each page's call, not the whole read.
    The bar (on stderr, so ``--json`` output stays clean) shows only past the first page."""
    pages = match_pages(stub, tournament_id, page_size=PAGE_SIZE, timeout=timeout)
    first = next(pages)
    out = list(first.matches)
    if not first.next_page_token:
        return out
    with Progress(
        TextColumn("[bold]matches"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console.err,
        transient=True,
    ) as progress:
        task = progress.add_task("matches", total=first.total, completed=len(out))
        for page in pages:
            out.extend(page.matches)
            progress.update(task, completed=len(out), total=page.total)
    return out
