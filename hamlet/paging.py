"""Reading a paginated list to its end (``ListMatches``, ``GetTournament``'s standings,
``GetReplay``'s steps): one call per page."""

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


def tournament_with_standings(
    stub: Any, tournament_id: str, *, page_size: int = 0, timeout: float | None = None
) -> arena_pb2.Tournament:
    """A tournament with every page of its standings joined (best first); ``timeout``
    bounds each call."""
    ref = arena_pb2.TournamentRef(tournament_id=tournament_id, standings_page_size=page_size)
    t: arena_pb2.Tournament = stub.GetTournament(ref, timeout=timeout)
    while t.standings_next_page_token:
        ref.standings_page_token = t.standings_next_page_token
        more: arena_pb2.Tournament = stub.GetTournament(ref, timeout=timeout)
        t.standings.extend(more.standings)
        t.standings_next_page_token = more.standings_next_page_token
    return t


def whole_replay(
    stub: Any,
    match_id: str,
    *,
    seat: int | None = None,
    max_steps: int = 2000,
    timeout: float | None = None,
) -> common_pb2.Replay:
    """A replay with every page of its steps joined (and ``seat``'s own view, asked for with
    the first page only); ``timeout`` bounds each call."""
    ref = arena_pb2.MatchRef(match_id=match_id, max_steps=max_steps)
    if seat is not None:
        ref.seat = seat
    rep: common_pb2.Replay = stub.GetReplay(ref, timeout=timeout)
    ref.ClearField("seat")
    while rep.next_step:
        ref.first_step = rep.next_step
        more: common_pb2.Replay = stub.GetReplay(ref, timeout=timeout)
        rep.steps.extend(more.steps)
        rep.next_step = more.next_step
    return rep
