"""Pages of a tournament's standings, best first (points, then wins, down; then the name).

The lines are kept by the store as results are recorded (``server.storage.sql_standings``):
a page costs the same few queries however many matches the tournament has played. Page
tokens are keyset positions (the last line's points, wins and name), so a page never
repeats or skips a line that did not move; they name their tournament, and a token that
is not one this server handed out is refused.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from server.services import validation as v
from server.services.errors import InvalidArgumentError
from server.storage import Store
from server.storage.base import Standing

DEFAULT_PAGE = 100
MAX_PAGE = 1000
#: All of a tournament's lines (a Swiss pairing reads them; at most MAX_BOTS of them).
ALL = 1_000_000


@dataclass(frozen=True, slots=True)
class StandingsPage:
    """One page of standings, how many lines there are, and the next page's token."""

    lines: tuple[Standing, ...]
    total: int
    next_page_token: str


def page_token(tournament_id: str, last: Standing) -> str:
    """The token of the page that starts after ``last``."""
    raw = json.dumps([tournament_id, last.points, last.wins, last.bot], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def parse_token(tournament_id: str, token: str) -> Standing | None:
    """The line a page token starts after; None for the first page. INVALID_ARGUMENT for a
    token this server did not hand out for this tournament."""
    if not token:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        tid, points, wins, bot = json.loads(raw)
        valid = (
            tid == tournament_id
            and isinstance(points, int | float)
            and isinstance(wins, int)
            and isinstance(bot, str)
        )
    except (ValueError, TypeError, binascii.Error):
        valid = False
    if not valid or len(token) > 400:
        raise InvalidArgumentError(
            "standings_page_token is not one this server handed out for tournament "
            f"{tournament_id}; pass standings_next_page_token as it came, or leave it empty "
            "for the first page"
        )
    return Standing(bot=bot, wins=wins, points=float(points))


def page(store: Store, tournament_id: str, page_size: int, token: str) -> StandingsPage:
    """The page after ``token`` of at most ``page_size`` lines (0 means the default)."""
    size = v.bounded("standings_page_size", page_size or DEFAULT_PAGE, 1, MAX_PAGE)
    after = parse_token(tournament_id, token)
    found, total = store.standings_page(tournament_id, size + 1, after)
    more = len(found) > size
    lines = tuple(found[:size])
    next_token = page_token(tournament_id, lines[-1]) if more else ""
    return StandingsPage(lines, total, next_token)


def every_line(store: Store, tournament_id: str) -> list[Standing]:
    """All of a tournament's lines, best first."""
    return store.standings_page(tournament_id, ALL)[0]
