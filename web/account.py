"""Logging in with a token: a form, a CSRF check, the token kept in an HttpOnly cookie."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from web import security
from web.arena import ArenaReader
from web.templating import page


async def login_form(request: Request) -> Response:
    """``GET /login``: the form (the token goes in the body of a POST, never in a URL)."""
    return page(request, "login.html", title="Log in")


async def login(request: Request) -> Response:
    """``POST /login``: check the token with the server, then keep it in the cookie."""
    form = await security.read_form(request)
    if not security.csrf_ok(request, form.get(security.CSRF_FIELD)):
        expired = "the form expired or came from another site; please try again"
        return page(request, "login.html", 403, title="Log in", error=expired)
    token = form.get("token")
    reader: ArenaReader = request.app.state.reader
    if not isinstance(token, str) or not 0 < len(token.strip()) <= security.MAX_TOKEN_LENGTH:
        return page(request, "login.html", 400, title="Log in", error="paste a token")
    who = await run_in_threadpool(reader.whoami, token.strip())
    if who is None:
        return page(request, "login.html", 401, title="Log in",
                    error="the server does not accept this token")  # fmt: skip
    response = RedirectResponse("/", status_code=303)
    security.set_login(response, token.strip(), request.app.state.settings.secure_cookies)
    return response


async def logout(request: Request) -> Response:
    """``POST /logout``: forget the token (CSRF-checked, so no other site can log you out)."""
    form = await security.read_form(request)
    if not security.csrf_ok(request, form.get(security.CSRF_FIELD)):
        return page(request, "error.html", 403, title="Error 403",
                    message="the form expired or came from another site")  # fmt: skip
    response = RedirectResponse("/", status_code=303)
    security.clear_login(response)
    return response
