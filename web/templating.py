"""Jinja2 templates (autoescaping everywhere) and the filters the pages use."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from hamlet.v1 import arena_pb2, common_pb2
from web import security
from web.render.svg import player_colour, player_shape


def _short(value: int, enum: Any, prefix: str) -> str:
    return str(enum.Name(value)).removeprefix(prefix).lower().replace("_", " ")


def match_status(value: int) -> str:
    """``MATCH_STATUS_FINISHED`` -> ``finished``."""
    return _short(value, common_pb2.MatchStatus, "MATCH_STATUS_")


def tournament_status(value: int) -> str:
    """``TOURNAMENT_STATUS_RUNNING`` -> ``running``."""
    return _short(value, common_pb2.TournamentStatus, "TOURNAMENT_STATUS_")


def tournament_format(value: int) -> str:
    """``TOURNAMENT_FORMAT_ROUND_ROBIN`` -> ``round robin``."""
    return _short(value, common_pb2.TournamentFormat, "TOURNAMENT_FORMAT_")


def bot_origin(value: int) -> str:
    """``BOT_ORIGIN_BUILTIN`` -> ``builtin``."""
    return _short(value, arena_pb2.BotOrigin, "BOT_ORIGIN_")


def when(value: str) -> str:
    """An ISO 8601 UTC time, shorter ("2026-12-01 10:57:03")."""
    return value.replace("T", " ")[:19] if value else ""


ENV = Environment(
    loader=PackageLoader("web", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
ENV.filters.update(
    match_status=match_status,
    tournament_status=tournament_status,
    tournament_format=tournament_format,
    bot_origin=bot_origin,
    when=when,
    colour=player_colour,
    shape=player_shape,
)


def page(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """Render ``template`` with the visitor's login state and CSRF token."""
    csrf, new = security.csrf_token(request)
    settings = request.app.state.settings
    html = ENV.get_template(template).render(
        request=request,
        logged_in=security.visitor_token(request) is not None,
        csrf=csrf,
        **context,
    )
    response = HTMLResponse(html, status_code=status_code)
    if new:
        security.set_csrf(response, csrf, settings.secure_cookies)
    return response
