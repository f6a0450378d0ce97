"""The arguments of ``hamlet bot ...`` (their code is in ``cli.commands_bots``,
``cli.commands_play`` and ``cli.commands_ranked``), and of ``hamlet challenge`` and ``hamlet
invitations`` (``cli.commands_consent``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: ``add(name, func, help, parent)``: the CLI's way to add one client command.
Add = Callable[..., argparse.ArgumentParser]


def add_commands(sub: Any, add: Add) -> None:
    """Add ``bot`` and its actions to the top-level subparsers ``sub``."""
    from cli import commands_bots as cb
    from cli import commands_consent as cco
    from cli import commands_play as cp
    from cli import commands_ranked as cr

    bot = sub.add_parser(
        "bot",
        help="write, play locally, submit, register, show or retire a bot",
    ).add_subparsers(dest="bot_command", required=True, metavar="ACTION")
    p = add(
        "submit",
        cb.bot_submit,
        "submit a new version of an uploaded bot (a .py file, .zip or directory)",
        bot,
    )
    p.add_argument("name")
    p.add_argument("game")
    p.add_argument("file", type=Path)
    p.add_argument("--description", default="")
    p = add("versions", cb.bot_versions, "every version of a bot, with its ratings", bot)
    p.add_argument("name")
    p = add("show", cb.bot_show, "one version of a bot (default: its latest)", bot)
    p.add_argument("bot", metavar="NAME[@VERSION]")
    p = add(
        "register",
        cb.bot_register,
        "register a new version of a remote bot (your own gRPC hamlet.v1.Bot service)",
        bot,
    )
    p.add_argument("name")
    p.add_argument("--game", required=True)
    p.add_argument(
        "--endpoint", required=True, help="grpc://host:port, or grpcs://host:port for TLS"
    )
    p.add_argument("--ca", type=Path, default=None, help="PEM CA certificate for grpcs")
    p.add_argument("--description", default="")
    p = add(
        "permission",
        cco.bot_permission,
        "who may enter your bot in others' events: private (you only), challengeable "
        "(anyone, unrated events) or open (anyone, rated events too)",
        bot,
    )
    p.add_argument("name")
    p.add_argument("permission", choices=tuple(cco.PERMISSIONS))
    p = add("retire", cb.bot_retire, "retire a bot (it keeps its results)", bot)
    p.add_argument("name")
    p = add("history", cr.bot_history, "a bot's rating over time and results by opponent", bot)
    p.add_argument("name")
    p.add_argument("--game", default="", help="the game (needed if the bot plays several)")
    p = add(
        "restore", cb.bot_restore, "put a retired bot back in play (its owner or an admin)", bot
    )
    p.add_argument("name")
    p = add("new", cp.bot_new, "write NAME.py: a commented bot for GAME that beats random", bot)
    p.add_argument("name")
    p.add_argument("--game", required=True, help="the game the bot plays")
    p.add_argument("--dir", type=Path, default=Path(), help="where to write it (default .)")
    p = add(
        "play",
        cp.bot_play,
        "play a bot locally against built-ins, in duplicate blocks, with the workers' sandbox "
        "and time rules (no server needed)",
        bot,
    )
    p.add_argument("target", metavar="TARGET", help="a .py or .zip file, a built-in, grpc://H:P")
    p.add_argument("--game", required=True)
    p.add_argument("--vs", default="random", help="comma-separated opponents (default random)")
    p.add_argument("--games", type=int, default=20, help="games, in whole blocks (default 20)")
    p.add_argument("--seed", type=int, default=None, help="default: random (printed)")
    p.add_argument(
        "--players", type=int, default=0, help="per table (default: you + one per opponent)"
    )
    p.add_argument(
        "--decision-ms",
        type=int,
        default=None,
        help="per-decision limit (default: the server's, 1000); the bank is 10 times it",
    )
    p.add_argument(
        "--trace", type=Path, default=None, metavar="DIR", help="write every decision to DIR"
    )


def add_consent_commands(sub: Any, add: Add) -> None:
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
