"""Pages of a tournament's matches: keyset pagination on (round, table, rotation).

A page costs a constant number of queries whatever the tournament's size: the page's
matches (records built in one batch), the match count, and the open duplicate blocks
(which decide whether each match's seed may be shown).
"""

from __future__ import annotations

from dataclasses import dataclass

from server.services import publication
from server.services import validation as v
from server.services.errors import InvalidArgumentError, NotFoundError
from server.storage import MatchRecord, Store

DEFAULT_PAGE = 100
MAX_PAGE = 5000


@dataclass(frozen=True, slots=True)
class MatchPage:
    """One page: the matches with whether each is published, the next token, the total."""

    matches: tuple[tuple[MatchRecord, bool], ...]
    next_page_token: str
    total: int


def page_token(match: MatchRecord) -> str:
    """The token of the page that starts after ``match``."""
    return f"{match.round}.{match.table}.{match.rotation}"


def parse_token(token: str) -> tuple[int, int, int] | None:
    """(round, table, rotation) of a page token; None for the first page."""
    if not token:
        return None
    parts = token.split(".")
    if len(parts) != 3 or not all(p.isdigit() and len(p) <= 9 for p in parts):
        raise InvalidArgumentError(
            "page_token is not one this server handed out; pass next_page_token as it came"
        )
    return int(parts[0]), int(parts[1]), int(parts[2])


class MatchListing:
    """Reads a tournament's matches page by page."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def page(self, tournament_id: str, page_size: int, token: str) -> MatchPage:
        """The page after ``token`` of at most ``page_size`` matches (0 means the default)."""
        v.identifier("tournament_id", tournament_id)
        size = v.bounded("page_size", page_size or DEFAULT_PAGE, 1, MAX_PAGE)
        after = parse_token(token)
        if self.store.get_tournament(tournament_id) is None:
            raise NotFoundError(f"unknown tournament {tournament_id!r}")
        found, total = self.store.match_page(tournament_id, after, size)
        published = publication.published_many(self.store, tournament_id, found)
        matches = tuple((m, published[m.match_id]) for m in found)
        next_token = page_token(found[-1]) if len(found) == size else ""
        return MatchPage(matches, next_token, total)
