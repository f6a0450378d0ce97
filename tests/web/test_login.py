"""Logging in: CSRF-checked POST, the token only in an HttpOnly SameSite=Strict cookie, and
the seat toggle, which a visitor whose bot did not play a seat gets only a refusal from."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from tests.web.conftest import Site


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found
    return found.group(1)


def _fresh(site: Site) -> TestClient:
    return TestClient(site.client.app, base_url="http://testserver")


def test_login_keeps_the_token_in_a_strict_httponly_cookie_only(site: Site) -> None:
    client = _fresh(site)
    form = client.get("/login")
    assert "samesite=strict" in form.headers["set-cookie"].lower()
    r = client.post(
        "/login", data={"csrf": _csrf(form.text), "token": site.user_token}, follow_redirects=False
    )
    assert r.status_code == 303 and site.user_token not in r.headers["location"]
    cookie = next(c for c in r.headers.get_list("set-cookie") if c.startswith("hamlet_token="))
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    home = client.get("/")
    assert "Log out" in home.text and site.user_token not in home.text


def test_a_login_without_the_csrf_token_is_refused(site: Site) -> None:
    client = _fresh(site)
    client.get("/login")
    r = client.post("/login", data={"csrf": "forged", "token": site.user_token})
    assert r.status_code == 403 and "hamlet_token" not in r.headers.get("set-cookie", "")
    r = _fresh(site).post("/login", data={"token": site.user_token})
    assert r.status_code == 403


def test_a_bad_token_is_refused(site: Site) -> None:
    client = _fresh(site)
    form = client.get("/login")
    r = client.post("/login", data={"csrf": _csrf(form.text), "token": "hmt_nope_nope"})
    assert r.status_code == 401 and "does not accept" in r.text


def test_the_seat_toggle_refuses_a_seat_that_is_not_the_visitors(site: Site) -> None:
    client = _fresh(site)
    form = client.get("/login")
    client.post("/login", data={"csrf": _csrf(form.text), "token": site.user_token})
    mid = site.matches["village"][1]
    page = client.get(f"/matches/{mid}/replay?d=3")
    assert 'name="seat"' in page.text
    shown = client.get(f"/matches/{mid}/replay?d=3&seat=1").text
    assert "not your bot" in shown and "private view" not in shown
    anon = site.client.get(f"/matches/{mid}/replay?d=3&seat=1").text
    assert "log in with the token of this seat" in anon and '<select id="seat"' not in anon
    assert client.get(f"/matches/{mid}/replay?d=3&seat=2").status_code == 400


def test_logout_needs_the_csrf_token(site: Site) -> None:
    client = _fresh(site)
    form = client.get("/login")
    token = _csrf(form.text)
    client.post("/login", data={"csrf": token, "token": site.user_token})
    assert client.post("/logout", data={"csrf": "x"}).status_code == 403
    r = client.post("/logout", data={"csrf": token}, follow_redirects=False)
    assert r.status_code == 303 and 'hamlet_token=""' in r.headers["set-cookie"]
