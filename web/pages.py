"""The read-only pages: home, leaderboards, tournaments (live), bots.

Handlers are plain functions (Starlette runs them in its thread pool), one or two gRPC reads
each, then a template. Nothing here decides what a visitor may see: the server does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from hamlet.v1 import arena_pb2, common_pb2
from web.arena import ArenaReader
from web.charts import Series, interval_bar, line_chart
from web.templating import ENV, page

RECENT_MATCHES = 20


def _reader(request: Request) -> ArenaReader:
    reader: ArenaReader = request.app.state.reader
    return reader


def index(request: Request) -> Response:
    """``/``: the games with links to their leaderboards, and the latest tournaments."""
    r = _reader(request)
    return page(
        request, "index.html", title="Hamlet", games=r.games(), tournaments=r.tournaments(10)
    )


@dataclass(frozen=True)
class BoardGroup:
    """One group of the published rating: bots that played one another (directly or through
    others); no order across groups is claimed."""

    number: int  # 0-based
    rows: list[tuple[arena_pb2.RatedLine, Markup]]


def leaderboard_groups(board: arena_pb2.Leaderboard) -> list[BoardGroup]:
    """The published lines group by group, each with its interval bar (on one axis per group:
    the groups' scales are not comparable). An open side runs the bar to the axis' edge."""
    out = []
    for number in sorted({ln.group for ln in board.lines}):
        lines = [ln for ln in board.lines if ln.group == number]
        ends = [v for ln in lines for v in (ln.low, ln.high, ln.rating) if math.isfinite(v)]
        lo, hi = min(ends, default=0.0), max(ends, default=1.0)
        if hi - lo < 1.0:
            lo, hi = lo - 50.0, hi + 50.0
        bars = [interval_bar(ln.low, ln.rating, ln.high, lo, hi) for ln in lines]
        out.append(BoardGroup(number, list(zip(lines, bars, strict=True))))
    return out


def leaderboard(request: Request) -> Response:
    """``/leaderboards/{game}?rules=``: the published rating with intervals (group by group),
    seat advantages, and the live Elo table."""
    game = request.path_params["game"]
    rules = request.query_params.get("rules", "")[:64]
    board = _reader(request).leaderboard(game, rules)
    return page(
        request,
        "leaderboard.html",
        title=f"Leaderboard: {game} ({board.rules_version})",
        board=board,
        groups=leaderboard_groups(board),
    )


def tournaments(request: Request) -> Response:
    """``/tournaments``: the most recent tournaments."""
    return page(
        request, "tournaments.html", title="Tournaments", tournaments=_reader(request).tournaments()
    )


#: Standing lines and matches a tournament page (and each live.json poll) shows at once.
PAGE = 100
#: Longest page token the pages pass on (the server's are far shorter).
MAX_TOKEN = 400


#: Blocks of a running ladder season its page shows (the latest, newest first).
LADDER_BLOCKS = 10


@dataclass(frozen=True)
class TournamentView:
    """What a tournament page shows: the tournament with one page of standings, one page of
    its matches (plan order; a running ladder's latest blocks, newest first), and the links
    to the next pages."""

    t: arena_pb2.Tournament
    matches: arena_pb2.ListMatchesResponse
    standings_token: str
    matches_token: str
    #: The game's ladder when this is its running season (who is on it, its blocks).
    ladder: arena_pb2.LadderStatus | None = None

    @property
    def is_ladder(self) -> bool:
        """Whether this is a ladder season (no rounds, no entry list, no end of its own)."""
        return self.t.format == common_pb2.TOURNAMENT_FORMAT_LADDER

    @property
    def latest_first(self) -> bool:
        """Whether the matches shown are the latest blocks, newest first."""
        return self.ladder is not None and not self.matches_token

    @property
    def live(self) -> bool:
        """Whether the tournament may still change (the page polls live.json)."""
        return self.t.status in (
            common_pb2.TOURNAMENT_STATUS_CREATED,
            common_pb2.TOURNAMENT_STATUS_RUNNING,
        )

    def query(self, standings: str | None = None, matches: str | None = None) -> str:
        """The query string of this view with either page token replaced."""
        params = {
            "standings": self.standings_token if standings is None else standings,
            "matches": self.matches_token if matches is None else matches,
        }
        kept = {k: v for k, v in params.items() if v}
        return "?" + urlencode(kept) if kept else ""


def tournament_view(request: Request) -> TournamentView:
    """The tournament of the path at the page tokens of the query (``standings``,
    ``matches``): two bounded reads, whatever the tournament's size."""
    standings = request.query_params.get("standings", "")
    matches = request.query_params.get("matches", "")
    if len(standings) > MAX_TOKEN or len(matches) > MAX_TOKEN:
        raise HTTPException(400, "page tokens are short: follow the page's own links")
    r = _reader(request)
    t = r.tournament(request.path_params["tid"], standings, PAGE)
    if t.format == common_pb2.TOURNAMENT_FORMAT_LADDER:
        status = r.ladder(t.game)
        if status.tournament_id == t.tournament_id:  # the running season: its latest blocks
            page = (
                r.match_page(t.tournament_id, matches, PAGE)
                if matches
                else newest_first(
                    r.latest_rounds(t.tournament_id, status.blocks, LADDER_BLOCKS, PAGE)
                )
            )
            return TournamentView(t, page, standings, matches, status)
    return TournamentView(t, r.match_page(t.tournament_id, matches, PAGE), standings, matches)


def newest_first(page: arena_pb2.ListMatchesResponse) -> arena_pb2.ListMatchesResponse:
    """A page of the latest matches, newest first, without a next page (the older ones are
    the plan-order pages' and each bot's own page's)."""
    return arena_pb2.ListMatchesResponse(matches=list(reversed(page.matches)), total=page.total)


def tournament(request: Request) -> Response:
    """``/tournaments/{tid}?standings=&matches=``: progress, a page of standings (best first)
    and a page of matches (plan order), updated in place while it runs."""
    view = tournament_view(request)
    t = view.t
    return page(
        request,
        "tournament.html",
        title=f"{'Ladder season' if view.is_ladder else 'Tournament'} {t.tournament_id} ({t.game})",
        t=t,
        view=view,
        live=view.live,
        poll_ms=request.app.state.settings.poll_ms,
    )


def tournament_live(request: Request) -> Response:
    """``/tournaments/{tid}/live.json?standings=&matches=``: progress and the same pages of
    standings and matches as the page shows (the page polls this; it never reloads)."""
    view = tournament_view(request)
    macros = ENV.get_template("_tournament.html").module
    return JSONResponse(
        {
            "over": not view.live,
            "progress_html": str(macros.progress(view)),  # type: ignore[attr-defined]
            "standings_html": str(macros.standings(view)),  # type: ignore[attr-defined]
            "matches_html": str(macros.matches(view)),  # type: ignore[attr-defined]
        }
    )


def bots(request: Request) -> Response:
    """``/bots``: every bot with its owner and versions."""
    return page(request, "bots.html", title="Bots", bots=_reader(request).bots())


@dataclass(frozen=True)
class RecentMatch:
    """One row of a bot's recent matches: its rating point and who sat where, as
    ``name@version`` (this bot's seats first)."""

    point: arena_pb2.RatingPoint
    mine: tuple[common_pb2.Seat, ...]
    others: tuple[common_pb2.Seat, ...]


def recent_matches(r: ArenaReader, name: str, history: arena_pb2.BotHistory) -> list[RecentMatch]:
    """The bot's latest rated matches, newest first, with the versions that played them."""
    out = []
    for p in list(reversed(history.points))[:RECENT_MATCHES]:
        seats = r.final_seats(p.match_id)
        mine = tuple(s for s in seats if s.bot_name == name)
        out.append(RecentMatch(p, mine, tuple(s for s in seats if s.bot_name != name)))
    return out


def bot(request: Request) -> Response:
    """``/bots/{name}?game=``: owner, versions, rating history, recent matches, opponents
    (``/bots/{name}@{version}`` leads to the same page, at that version's line)."""
    name = request.path_params["name"]
    bare, at, version = name.partition("@")
    if at and version.isdigit():
        # A tournament's entry ("name@version") as an address: the bot's page, at that version.
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"/bots/{quote(bare)}{query}#v{version}", status_code=308)
    r = _reader(request)
    found = r.bot_with_versions(name)
    if found is None:
        raise HTTPException(404, f"no bot named {request.path_params['name']!r}")
    info = found.bot
    game = request.query_params.get("game", "")
    if game not in info.games:
        game = info.games[0] if info.games else ""
    history = r.history(info.name, game) if game else arena_pb2.BotHistory(name=info.name)
    points = tuple((float(i), p.rating) for i, p in enumerate(history.points))
    chart = line_chart(
        [Series(info.name, 0, points)], f"Elo of {info.name} in {game} after each rated match",
        "rated matches",
    )  # fmt: skip
    return page(
        request,
        "bot.html",
        title=f"Bot {info.name}",
        bot=info,
        game=game,
        history=history,
        chart=chart if points else None,
        recent=recent_matches(r, info.name, history),
        versions=list(reversed(found.versions)),
    )
