"""The Starlette application: settings, routes, error pages and the security middleware."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from web import account, health, pages, replay, rules
from web.arena import ArenaReader
from web.security import SecurityHeaders
from web.templating import page

STATIC = Path(__file__).parent / "static"

#: gRPC answers as HTTP statuses, with the server's message shown to the visitor.
_HTTP_FOR = {
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,  # a quota: the message says which and when
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}


@dataclass(frozen=True)
class WebSettings:
    """Where the gRPC server is and how the web app talks to it."""

    server: str  # host:port of the gRPC server
    ca_file: Path | None = None  # TLS to the gRPC server
    token: str | None = None  # a read token when the server has public reads off
    secure_cookies: bool = False  # set behind HTTPS: cookies only over TLS
    poll_ms: int = 2000  # how often a live tournament page asks for news


async def _rpc_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, grpc.RpcError)
    code = exc.code()  # type: ignore[attr-defined]
    status = _HTTP_FOR.get(code, 502)
    if code is grpc.StatusCode.UNAVAILABLE:
        message = "the Hamlet server cannot be reached right now"
    else:
        message = str(exc.details() or code.name)  # type: ignore[attr-defined]
    return page(request, "error.html", status, title=f"Error {status}", message=message)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return page(
        request, "error.html", exc.status_code, title=f"Error {exc.status_code}",
        message=exc.detail,
    )  # fmt: skip


def create_app(settings: WebSettings, reader: ArenaReader | None = None) -> Starlette:
    """The web app reading from ``settings.server`` (or through ``reader``)."""
    routes = [
        Route("/", pages.index, name="index"),
        *health.ROUTES,
        Route("/leaderboards/{game}", pages.leaderboard, name="leaderboard"),
        Route("/games/{game}/rules", rules.rulebook, name="rules"),
        Route("/tournaments", pages.tournaments, name="tournaments"),
        Route("/tournaments/{tid}", pages.tournament, name="tournament"),
        Route("/tournaments/{tid}/live.json", pages.tournament_live, name="tournament_live"),
        Route("/bots", pages.bots, name="bots"),
        Route("/bots/{name}", pages.bot, name="bot"),
        Route("/matches/{mid}", replay.match, name="match"),
        Route("/matches/{mid}/log.json", replay.log_json, name="match_log"),
        Route("/matches/{mid}/replay", replay.viewer, name="replay"),
        Route("/matches/{mid}/replay/frame.json", replay.frame_json, name="replay_frame"),
        Route("/login", account.login_form, methods=["GET"], name="login"),
        Route("/login", account.login, methods=["POST"]),
        Route("/logout", account.logout, methods=["POST"], name="logout"),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={grpc.RpcError: _rpc_error, HTTPException: _http_error},
    )
    app.state.settings = settings
    app.state.reader = reader or ArenaReader(settings.server, settings.ca_file, settings.token)
    app.add_middleware(SecurityHeaders)
    return app
