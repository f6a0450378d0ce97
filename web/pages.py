"""The read-only pages: home, leaderboards, tournaments (live), bots.

Handlers are plain functions (Starlette runs them in its thread pool), one or two gRPC reads
each, then a template. Nothing here decides what a visitor may see: the server does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hamlet.v1 import arena_pb2, common_pb2
from web.arena import ArenaReader
from web.charts import Series, interval_bar, line_chart
from web.templating import ENV, page

FINAL = (
    common_pb2.MATCH_STATUS_FINISHED,
    common_pb2.MATCH_STATUS_CANCELLED,
    common_pb2.MATCH_STATUS_FAILED,
)
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


def finished_in_order(matches: list[common_pb2.Match]) -> list[common_pb2.Match]:
    """The final matches in the order they became final (the live cursor counts these)."""
    done = [m for m in matches if m.status in FINAL]
    return sorted(done, key=lambda m: (m.finished_at, m.match_id))


def tournament(request: Request) -> Response:
    """``/tournaments/{tid}``: progress, standings and the matches as they finish."""
    r = _reader(request)
    t = r.tournament(request.path_params["tid"])
    done = finished_in_order(r.matches(t.tournament_id))
    return page(
        request,
        "tournament.html",
        title=f"Tournament {t.tournament_id} ({t.game})",
        t=t,
        done=done,
        cursor=len(done),
        live=t.status
        in (common_pb2.TOURNAMENT_STATUS_CREATED, common_pb2.TOURNAMENT_STATUS_RUNNING),
        poll_ms=request.app.state.settings.poll_ms,
    )


def tournament_live(request: Request) -> Response:
    """``/tournaments/{tid}/live.json?cursor=N``: progress, standings, and the matches that
    became final after the first N (the page polls this; it never reloads)."""
    r = _reader(request)
    try:
        cursor = max(0, int(request.query_params.get("cursor", "0")))
    except ValueError:
        raise HTTPException(400, "cursor must be a number") from None
    t = r.tournament(request.path_params["tid"])
    done = finished_in_order(r.matches(t.tournament_id))
    macros = ENV.get_template("_tournament.html").module
    over = t.status not in (
        common_pb2.TOURNAMENT_STATUS_CREATED,
        common_pb2.TOURNAMENT_STATUS_RUNNING,
    )
    return JSONResponse(
        {
            "cursor": len(done),
            "over": over,
            "progress_html": str(macros.progress(t)),  # type: ignore[attr-defined]
            "standings_html": str(macros.standings(t)),  # type: ignore[attr-defined]
            "rows_html": "".join(str(macros.match_row(m)) for m in done[cursor:]),  # type: ignore[attr-defined]
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
    """``/bots/{name}?game=``: owner, versions, rating history, recent matches, opponents."""
    r = _reader(request)
    found = r.bot_with_versions(request.path_params["name"])
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
