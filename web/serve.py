"""Serving the web app with uvicorn: in the foreground (``hamlet web``) or on a thread beside
the gRPC server (``hamlet up`` and the browser tests)."""

from __future__ import annotations

import socket
import threading
import time

import uvicorn

from web.app import WebSettings, create_app

START_TIMEOUT = 20.0


def _config(settings: WebSettings, json_logs: bool = False) -> uvicorn.Config:
    # JSON logs: uvicorn's loggers propagate to the root's JSON handler (hamlet.jsonlog)
    # instead of getting uvicorn's own text handlers.
    return uvicorn.Config(
        create_app(settings),
        log_config=None if json_logs else uvicorn.config.LOGGING_CONFIG,
        log_level="warning",
        access_log=False,
        server_header=False,  # say less about ourselves to strangers
        proxy_headers=False,
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve_forever(settings: WebSettings, sock: socket.socket, json_logs: bool = False) -> None:
    """Serve on ``sock`` until interrupted (uvicorn handles SIGINT and SIGTERM)."""
    uvicorn.Server(_config(settings, json_logs)).run(sockets=[sock])


class BackgroundWeb:
    """The web app on a daemon thread (uvicorn leaves signals alone off the main thread);
    :meth:`stop` ends it."""

    def __init__(self, settings: WebSettings, host: str = "127.0.0.1", port: int = 0) -> None:
        self._sock = bind(host, port)
        self.host = host
        self.port = int(self._sock.getsockname()[1])
        self._server = uvicorn.Server(_config(settings))
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, name="hamlet-web",
            daemon=True,
        )  # fmt: skip
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the web app did not start on {host}:{self.port}")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        """The address people open."""
        return f"http://{self.host}:{self.port}/"

    def stop(self) -> None:
        """Ask uvicorn to finish and wait for the thread."""
        self._server.should_exit = True
        self._thread.join(10)
        self._sock.close()
