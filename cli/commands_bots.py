"""The CLI's bot commands: submit, register (remote), versions, show, retire, restore."""

from __future__ import annotations

import argparse
from pathlib import Path

from cli import console
from cli.commands import EXIT_OK, EXIT_USAGE, arena
from cli.console import out, print_json, to_dict
from hamlet.v1 import arena_pb2


def read_submission(path: Path) -> tuple[str, bytes]:
    """(Python source, archive) of a bot file, a ``.zip`` archive, or a directory to zip."""
    from bots.archive import is_archive, pack

    if path.is_dir():
        return "", pack(path)
    data = path.read_bytes()
    return ("", data) if is_archive(data) else (data.decode("utf-8"), b"")


def bot_submit(args: argparse.Namespace) -> int:
    """``hamlet bot submit NAME GAME FILE``."""
    try:
        source, archive = read_submission(args.file)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        console.err.print(f"hamlet: cannot read {args.file}: {exc}")
        return EXIT_USAGE
    req = arena_pb2.SubmitBotRequest(
        name=args.name,
        game=args.game,
        source=source,
        description=args.description,
        archive=archive,
    )
    resp = arena(args).SubmitBot(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(resp))
    else:
        what = "new version" if resp.created else "unchanged (same code)"
        out.print(f"{resp.bot.name} v{resp.version} ({what}), code sha256 {resp.code_sha256}")
    return EXIT_OK


def bot_retire(args: argparse.Namespace) -> int:
    """``hamlet bot retire NAME``."""
    resp = arena(args).RetireBot(arena_pb2.RetireBotRequest(name=args.name), timeout=args.timeout)
    if args.json:
        print_json(to_dict(resp))
    else:
        out.print(f"{resp.name} retired")
    return EXIT_OK


def bot_restore(args: argparse.Namespace) -> int:
    """``hamlet bot restore NAME``."""
    req = arena_pb2.RetireBotRequest(name=args.name)
    resp = arena(args).RestoreBot(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(resp))
    else:
        out.print(f"{resp.name} restored (v{resp.latest_version})")
    return EXIT_OK


def bot_versions(args: argparse.Namespace) -> int:
    """``hamlet bot versions NAME``."""
    req = arena_pb2.ListBotVersionsRequest(name=args.name)
    resp = arena(args).ListBotVersions(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(resp))
    else:
        out.print(console.bot_versions_table(resp))
    return EXIT_OK


def bot_show(args: argparse.Namespace) -> int:
    """``hamlet bot show NAME[@VERSION]``."""
    from cli.commands_consent import permission_text

    stub = arena(args)
    req = arena_pb2.GetBotVersionRequest(bot=args.bot)
    found = stub.GetBotVersion(req, timeout=args.timeout)
    # Who may enter it is the bot's, not the version's: BotInfo says it.
    bot = stub.ListBotVersions(
        arena_pb2.ListBotVersionsRequest(name=found.bot_name), timeout=args.timeout
    ).bot
    if args.json:
        shown = to_dict(found)
        shown["permission"] = to_dict(bot)["permission"]
        print_json(shown)
    else:
        out.print(console.bot_version_table(found, permission_text(bot)))
    return EXIT_OK


def bot_register(args: argparse.Namespace) -> int:
    """``hamlet bot register NAME --game G --endpoint grpc://host:port [--ca FILE]``."""
    ca_pem = ""
    if args.ca is not None:
        try:
            ca_pem = args.ca.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            console.err.print(f"hamlet: cannot read {args.ca}: {exc}")
            return EXIT_USAGE
    req = arena_pb2.RegisterRemoteBotRequest(
        name=args.name,
        game=args.game,
        endpoint=args.endpoint,
        description=args.description,
        ca_cert_pem=ca_pem,
    )
    resp = arena(args).RegisterRemoteBot(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(resp))
    else:
        what = "new version" if resp.created else "unchanged (same endpoint)"
        out.print(
            f"{resp.bot.name} v{resp.version} ({what}), {resp.bot.endpoint} answered the "
            f"handshake at {resp.checked_address}"
        )
    return EXIT_OK
