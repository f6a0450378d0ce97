"""Reading a paginated list to its end (``ListMatches``): one call per page."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from hamlet.v1 import arena_pb2, common_pb2


def match_pages(
    stub: Any, tournament_id: str, *, page_size: int = 0, timeout: float | None = None
) -> Iterator[arena_pb2.ListMatchesResponse]:
    """Every page of a tournament's matches, first to last (``stub`` is an ArenaStub)."""
    token = ""
    while True:
        request = arena_pb2.ListMatchesRequest(
            tournament_id=tournament_id, page_size=page_size, page_token=token
        )
        page: arena_pb2.ListMatchesResponse = stub.ListMatches(request, timeout=timeout)
        yield page
        token = page.next_page_token
        if not token:
            return


def all_matches(
    stub: Any,
    tournament_id: str,
    *,
    page_size: int = 0,
    timeout: float | None = None,
    on_page: Callable[[int, int], object] | None = None,
) -> list[common_pb2.Match]:
    """Every match of a tournament; ``on_page(read so far, total)`` after each page."""
    out: list[common_pb2.Match] = []
    for page in match_pages(stub, tournament_id, page_size=page_size, timeout=timeout):
        out.extend(page.matches)
        if on_page is not None:
            on_page(len(out), page.total)
    return out
