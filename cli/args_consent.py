"""The ``hamlet challenge`` and ``hamlet invitations`` commands' arguments (their code is
``cli.commands_consent``; ``hamlet bot permission`` is with the other bot commands)."""

from __future__ import annotations

from typing import Any

from cli.args_bot import Add


def add_commands(sub: Any, add: Add) -> None:
    """Add ``challenge`` and ``invitations`` to the top-level subparsers ``sub``."""
    from cli import commands_consent as cco

    p = add(
        "challenge",
        cco.challenge,
        "ask a bot's owner to let you enter it in your events (they answer with "
        "`hamlet invitations accept ID`)",
    )
    p.add_argument("bot", metavar="BOT")
    p.add_argument("--rated", action="store_true", help="rated events too (default: unrated)")
    p.add_argument("--message", default="", help="a note to the owner (at most 200 characters)")
    p = add(
        "invitations",
        cco.invitations,
        "invitations you received (for your bots) and sent; accept or decline one",
    )
    actions = p.add_subparsers(dest="invitations_command", required=False, metavar="ACTION")
    for action, text in (
        ("accept", "let the challenger enter your bot (until the grant expires)"),
        ("decline", "refuse a challenge, or withdraw an invitation you accepted"),
    ):
        q = add(action, cco.invitations, text, actions)
        q.add_argument("invitation_id", type=int, metavar="ID")
