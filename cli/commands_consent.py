"""The CLI's consent commands: a bot's permission, challenges and invitations."""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from rich.table import Table
from rich.text import Text

from cli import console
from cli.commands import EXIT_OK, arena
from cli.console import out, print_json, to_dict
from hamlet.v1 import arena_pb2

PERMISSIONS = {
    "private": arena_pb2.BOT_PERMISSION_PRIVATE,
    "challengeable": arena_pb2.BOT_PERMISSION_CHALLENGEABLE,
    "open": arena_pb2.BOT_PERMISSION_OPEN,
}
_MEANING = {
    arena_pb2.BOT_PERMISSION_UNSPECIFIED: "only its owner and admins may enter it",
    arena_pb2.BOT_PERMISSION_PRIVATE: "only its owner and admins may enter it",
    arena_pb2.BOT_PERMISSION_CHALLENGEABLE: "anyone may enter it in unrated events",
    arena_pb2.BOT_PERMISSION_OPEN: "anyone may enter it, in rated events too",
}


def permission_text(bot: arena_pb2.BotInfo) -> str:
    """``private (only its owner and admins may enter it)``; built-ins are anyone's."""
    if not bot.owner:
        return "built-in (anyone may enter it)"
    name = console.short_status(bot.permission, arena_pb2.BotPermission, "BOT_PERMISSION_")
    name = "private" if name == "unspecified" else name
    return f"{name} ({_MEANING[bot.permission]})"


def invitation_status(value: int) -> str:
    """An invitation's status for people."""
    return console.short_status(value, arena_pb2.InvitationStatus, "INVITATION_STATUS_")


def bot_permission(args: argparse.Namespace) -> int:
    """``hamlet bot permission NAME private|challengeable|open``."""
    req = arena_pb2.SetBotPermissionRequest(name=args.name, permission=PERMISSIONS[args.permission])
    bot = arena(args).SetBotPermission(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(bot))
    else:
        out.print(f"{bot.name}: {permission_text(bot)}")
    return EXIT_OK


def challenge(args: argparse.Namespace) -> int:
    """``hamlet challenge BOT [--rated] [--message TEXT]``."""
    req = arena_pb2.ChallengeRequest(bot=args.bot, rated=args.rated, message=args.message)
    inv = arena(args).Challenge(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(inv))
        return EXIT_OK
    events = "rated and unrated" if inv.rated else "unrated"
    if inv.status == arena_pb2.INVITATION_STATUS_ACCEPTED:
        out.print(
            f"invitation {inv.invitation_id}: {inv.owner} already lets you enter {inv.bot_name} "
            f"in {events} events, until {inv.expires_at}"
        )
    else:
        out.print(
            f"invitation {inv.invitation_id}: asked {inv.owner} to let you enter {inv.bot_name} "
            f"in {events} events; it waits until {inv.expires_at} for {inv.owner} to run "
            f"`hamlet invitations accept {inv.invitation_id}`"
        )
    return EXIT_OK


def invitations(args: argparse.Namespace) -> int:
    """``hamlet invitations`` (received and sent), ``... accept ID``, ``... decline ID``."""
    action = getattr(args, "invitations_command", None)
    stub = arena(args)
    if action in ("accept", "decline"):
        req = arena_pb2.AnswerInvitationRequest(
            invitation_id=args.invitation_id, accept=action == "accept"
        )
        inv = stub.AnswerInvitation(req, timeout=args.timeout)
        if args.json:
            print_json(to_dict(inv))
        elif inv.status == arena_pb2.INVITATION_STATUS_ACCEPTED:
            events = "rated and unrated" if inv.rated else "unrated"
            out.print(
                f"invitation {inv.invitation_id} accepted: {inv.challenger} may enter "
                f"{inv.bot_name} in {events} events until {inv.expires_at}"
            )
        else:
            out.print(f"invitation {inv.invitation_id}: {invitation_status(inv.status)}")
        return EXIT_OK
    resp = stub.ListInvitations(arena_pb2.ListInvitationsRequest(), timeout=args.timeout)
    if args.json:
        print_json(to_dict(resp))
        return EXIT_OK
    out.print(_table("Received (your bots)", "from", resp.received))
    out.print(_table("Sent (others' bots)", "owner", resp.sent))
    return EXIT_OK


def _table(title: str, who: str, found: Iterable[arena_pb2.Invitation]) -> Table:
    table = Table(title=title)
    for col in ("id", "bot", who, "rated", "status", "until", "message"):
        table.add_column(col, justify="right" if col == "id" else "left")
    for inv in found:
        table.add_row(
            str(inv.invitation_id),
            inv.bot_name,
            inv.challenger if who == "from" else inv.owner,
            "yes" if inv.rated else "no",
            invitation_status(inv.status),
            inv.expires_at,
            Text(inv.message),  # the challenger's words: never read as markup
        )
    return table
