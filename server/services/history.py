"""A bot's history: its live rating after each rated match, and its record per opponent."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from server import elo
from server.ratings import livescale
from server.ratings.intervals import ANCHOR_BOT
from server.services import validation as v
from server.services.errors import InvalidArgumentError, NotFoundError
from server.storage import Store


@dataclass(frozen=True, slots=True)
class Point:
    """The bot's live Elo after one of its matches, on the published scale (shifted so that
    ``random`` sits at 1000 after the same match when it has rated games in this game: see
    :mod:`server.ratings.livescale`)."""

    match_id: str
    recorded_at: datetime
    rating: float
    rank: int
    players: int


@dataclass(slots=True)
class Record:
    """Matches shared with one opponent and who finished ahead."""

    opponent: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


@dataclass(frozen=True, slots=True)
class History:
    """What ``hamlet bot history`` shows."""

    bot: str
    game: str
    points: tuple[Point, ...]
    opponents: tuple[Record, ...] = field(default=())


class HistoryService:
    """Rebuilds a bot's history from the append-only result log (one pass, in order)."""

    def __init__(self, store: Store, anchored: Callable[[str], bool | None] | None = None) -> None:
        self.store = store
        #: Whether a game's published table is anchored on ``random`` now (None: not known
        #: yet): the live Elo follows it, so that history and leaderboard share one scale.
        self.anchored = anchored

    def history(self, name: str, game: str) -> History:
        """The bot's history in ``game`` (required if the bot plays several)."""
        v.identifier("bot name", name)
        bot = self.store.get_bot(name)
        if bot is None:
            raise NotFoundError(f"unknown bot {name!r}")
        if not game:
            if len(bot.games) != 1:
                raise InvalidArgumentError(
                    f"bot {name!r} plays {', '.join(bot.games)}: name the game"
                )
            game = bot.games[0]
        v.game_spec(game)
        table: dict[str, elo.BotRating] = {}
        points: list[Point] = []
        anchor_at: list[float | None] = []  # random's live Elo after each point's match
        records: dict[str, Record] = {}
        # random has finished ahead of (or level with) someone, and behind (or level with)
        # someone: only then is its strength bounded and the published table anchored on it
        anchor_beat = anchor_beaten = False
        for match_id, when, bots, ranks in self.store.rated_log(game):
            table.update(elo.apply_match(table, bots, ranks))
            if ANCHOR_BOT in bots:
                seat = bots.index(ANCHOR_BOT)
                others = [r for i, r in enumerate(ranks) if i != seat]
                anchor_beat |= any(r >= ranks[seat] for r in others)
                anchor_beaten |= any(r <= ranks[seat] for r in others)
            if name not in bots:
                continue
            mine = min(ranks[i] for i, b in enumerate(bots) if b == name)
            points.append(Point(match_id, when, table[name].rating, mine, len(bots)))
            anchor = table.get(ANCHOR_BOT)
            anchor_at.append(None if anchor is None else anchor.rating)
            for other, rank in zip(bots, ranks, strict=True):
                if other == name:
                    continue
                rec = records.setdefault(other, Record(other))
                rec.games += 1
                rec.wins += mine < rank
                rec.draws += mine == rank
                rec.losses += mine > rank
        published = None if self.anchored is None else self.anchored(game)
        if published is None:  # no published table yet: random's own results decide
            published = anchor_beat and anchor_beaten
        if published:  # shown on the table's scale (random = 1000)
            start = elo.INITIAL_RATING  # random's live Elo before its first match
            points = [
                replace(
                    p, rating=p.rating + livescale.offset({ANCHOR_BOT: start if a is None else a})
                )
                for p, a in zip(points, anchor_at, strict=True)
            ]
        opponents = tuple(sorted(records.values(), key=lambda r: (-r.games, r.opponent)))
        return History(name, game, tuple(points), opponents)
