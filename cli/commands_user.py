"""``hamlet user disable NAME`` / ``hamlet user enable NAME``: on the server's host, straight
on its database (the server's settings), so an admin can shut an account out even when no
admin token is at hand. Every token of a disabled user is refused (UNAUTHENTICATED, saying
so); tokens the server verified in the last 30 s are re-checked within that time. Its bots,
tournaments and results stay; ``enable`` lets the same tokens in again."""

from __future__ import annotations

import argparse

from cli import console
from cli.commands import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from cli.console import out

EXIT_NOT_FOUND = 3  # as cli.main says for an unknown name


def set_disabled(args: argparse.Namespace) -> int:
    """Disable or enable ``args.name``."""
    from server.config import ConfigError, Settings
    from server.storage import open_store
    from server.storage.base import utcnow

    disable = args.user_command == "disable"
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        console.err.print(f"hamlet user {args.user_command}: {exc}")
        return EXIT_USAGE
    try:
        # No migration from here: a schema change is the server's (or `hamlet db upgrade`).
        store = open_store(settings.effective_database_url, migrate=False)
    except Exception as exc:
        console.err.print(f"hamlet user {args.user_command}: cannot open the database: {exc}")
        return EXIT_FAILED
    try:
        user = store.set_user_disabled(args.name, utcnow() if disable else None)
    finally:
        store.close()
    if user is None:
        console.err.print(f"hamlet user {args.user_command}: no user {args.name!r}")
        return EXIT_NOT_FOUND
    if disable:
        out.print(
            f"user {user.name} disabled: its tokens are refused (within 30 s on a running server)"
        )
    else:
        out.print(f"user {user.name} enabled: its tokens work again")
    return EXIT_OK


def add_commands(user: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``disable`` and ``enable`` under ``hamlet user``."""
    for action, text in (
        ("disable", "refuse every token of a user (on the server's host: its database)"),
        ("enable", "let a disabled user's tokens in again (on the server's host)"),
    ):
        p = user.add_parser(action, help=text, description=text)
        p.add_argument("name")
        p.set_defaults(func=set_disabled)
