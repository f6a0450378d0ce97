"""``hamlet web``: the read-only web app over the gRPC API (see :mod:`web`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from cli import console, credentials

if TYPE_CHECKING:
    from web.app import WebSettings

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_WEB_PORT = 8080


def settings_from(args: argparse.Namespace) -> WebSettings:
    """The web app's settings from the command line and the environment."""
    from hamlet.channels import read_token_file
    from web.app import WebSettings

    token_file = os.environ.get("HAMLET_WEB_TOKEN_FILE", "")
    token = read_token_file(Path(token_file)) if token_file else None
    return WebSettings(
        server=args.server,
        ca_file=credentials.tls_ca(),
        token=token,
        secure_cookies=args.secure_cookies,
    )


def web(args: argparse.Namespace) -> int:
    """``hamlet web``: serve the web app until Ctrl-C."""
    from web.serve import bind, serve_forever

    try:
        settings = settings_from(args)
    except OSError as exc:
        console.err.print(f"hamlet web: cannot read HAMLET_WEB_TOKEN_FILE: {exc}")
        return EXIT_USAGE
    port = (
        args.port
        if args.port is not None
        else int(os.environ.get("HAMLET_WEB_PORT", DEFAULT_WEB_PORT))
    )
    try:
        sock = bind(args.host, port)
    except OSError as exc:
        console.err.print(f"hamlet web: cannot listen on {args.host}:{port}: {exc}")
        return EXIT_FAILED
    shown = f"[{args.host}]" if ":" in args.host else args.host
    console.out.print(
        f"Hamlet web on http://{shown}:{sock.getsockname()[1]}/ reading from {args.server}"
    )
    serve_forever(settings, sock)
    return EXIT_OK
