"""The web app's health routes: /livez for the process, /healthz for the server behind it."""

from __future__ import annotations

from starlette.testclient import TestClient

from tests.integration.stack import free_port
from tests.web.conftest import Site
from web.app import WebSettings, create_app


def test_healthz_is_ok_while_the_server_serves(site: Site) -> None:
    with TestClient(create_app(WebSettings(server=site.addr))) as client:
        assert client.get("/healthz").status_code == 200
        assert client.get("/livez").status_code == 200


def test_healthz_says_why_when_the_server_cannot_be_reached() -> None:
    gone = f"127.0.0.1:{free_port()}"
    with TestClient(create_app(WebSettings(server=gone))) as client:
        answer = client.get("/healthz")
        assert answer.status_code == 503
        assert f"the server at {gone} did not answer: UNAVAILABLE" in answer.text
        assert client.get("/livez").status_code == 200  # the process itself is fine
