"""The stranger-facing side: security headers, the login cookie, CSRF tokens.

Every page is a read-only GET; the only writes are the login and logout POSTs, which carry a
CSRF token that must equal the one in a SameSite=Strict cookie (double submit). The token a
visitor logs in with lives only in an HttpOnly, SameSite=Strict cookie and is forwarded to
the server as the bearer token; it never appears in a URL or a page.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_COOKIE = "hamlet_token"
CSRF_COOKIE = "hamlet_csrf"
CSRF_FIELD = "csrf"
MAX_TOKEN_LENGTH = 512
MAX_FORM_BYTES = 4096

#: Our own scripts and styles only; no inline script or style, no framing, no plugins.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
}


class SecurityHeaders:
    """ASGI middleware adding :data:`HEADERS` (and no-store on pages) to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith("/static/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for key, value in HEADERS.items():
                    if key.encode() not in present:
                        headers.append((key.encode(), value.encode()))
                if not static and b"cache-control" not in present:
                    # Pages may show a logged-in visitor's view: never cache them shared.
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


async def read_form(request: Request) -> dict[str, str]:
    """A small url-encoded form (the login and logout forms); empty if it is anything else."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        return {}
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return {}
    fields = parse_qs(body.decode("utf-8", errors="replace"), max_num_fields=10)
    return {k: v[0] for k, v in fields.items() if v}


def visitor_token(request: Request) -> str | None:
    """The token of a logged-in visitor (from the HttpOnly cookie), or None."""
    token = request.cookies.get(TOKEN_COOKIE, "")
    return token if 0 < len(token) <= MAX_TOKEN_LENGTH else None


def csrf_token(request: Request) -> tuple[str, bool]:
    """The visitor's CSRF token and whether it is new (then :func:`set_csrf` must send it)."""
    current = request.cookies.get(CSRF_COOKIE, "")
    if len(current) == 43:
        return current, False
    return secrets.token_urlsafe(32), True


def csrf_ok(request: Request, submitted: object) -> bool:
    """True if the form's token equals the cookie's (constant time); fails closed."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not cookie or not isinstance(submitted, str) or not submitted:
        return False
    return hmac.compare_digest(cookie.encode(), submitted.encode())


def set_csrf(response: Response, token: str, secure: bool) -> None:
    """Send the CSRF cookie."""
    response.set_cookie(
        CSRF_COOKIE, token, httponly=True, samesite="strict", secure=secure, path="/"
    )


def set_login(response: Response, token: str, secure: bool) -> None:
    """Keep the visitor's token in the HttpOnly, SameSite=Strict cookie (a browser session)."""
    response.set_cookie(
        TOKEN_COOKIE, token, httponly=True, samesite="strict", secure=secure, path="/"
    )


def clear_login(response: Response) -> None:
    """Forget the visitor's token."""
    response.delete_cookie(TOKEN_COOKIE, path="/", httponly=True, samesite="strict")
