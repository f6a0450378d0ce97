"""The CLI's account commands: users, tokens, login. Each makes one call and renders it."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from datetime import datetime

from rich.table import Table

from cli import console, credentials
from cli.commands import EXIT_OK, EXIT_USAGE, arena
from cli.console import out, print_json, to_dict
from hamlet.v1 import arena_pb2

_DURATION = re.compile(r"(\d+)([smhd]?)")
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> int:
    """Seconds in ``90``, ``90s``, ``15m``, ``12h`` or ``30d``; ``0`` for ``never``."""
    if text in ("", "never", "0"):
        return 0
    found = _DURATION.fullmatch(text.strip().lower())
    if found is None:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 3600, 15m, 12h, 30d)")
    return int(found.group(1)) * _UNIT[found.group(2)]


def _show_secret(token: str, info: arena_pb2.TokenInfo) -> None:
    out.print(f"token {info.token_id} for {info.user} (scopes {', '.join(info.scopes)})")
    out.print("the secret is shown only now; keep it (e.g. `hamlet login` or HAMLET_TOKEN):")
    out.print(token, soft_wrap=True, highlight=False)


def _minute(iso: str) -> str:
    """``2026-12-01T08:30:12.5Z`` as ``2026-12-01 08:30`` (empty stays empty)."""
    return iso[:16].replace("T", " ")


def user_create(args: argparse.Namespace) -> int:
    """``hamlet user create NAME [--admin]`` (admin only)."""
    req = arena_pb2.CreateUserRequest(name=args.name, admin=args.admin)
    resp = arena(args).CreateUser(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(resp))
        return EXIT_OK
    out.print(f"user {resp.user.name} created{' (admin)' if resp.user.admin else ''}")
    _show_secret(resp.token, resp.token_info)
    return EXIT_OK


def token_create(args: argparse.Namespace) -> int:
    """``hamlet token create [--user U] [--scope S,...] [--expires 30d] [--label L]``."""
    scopes = [s for s in args.scope.split(",") if s] if args.scope else []
    req = arena_pb2.CreateTokenRequest(
        user=args.user, scopes=scopes, expires_in_seconds=args.expires, label=args.label
    )
    resp = arena(args).CreateToken(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(resp))
        return EXIT_OK
    _show_secret(resp.token, resp.token_info)
    if resp.token_info.expires_at:
        out.print(f"expires {resp.token_info.expires_at}")
    return EXIT_OK


def token_list(args: argparse.Namespace) -> int:
    """``hamlet token list [--user U]``."""
    resp = arena(args).ListTokens(arena_pb2.ListTokensRequest(user=args.user), timeout=args.timeout)
    if args.json:
        print_json([to_dict(t) for t in resp.tokens])
        return EXIT_OK
    table = Table(title="tokens (a token's children are indented below it)")
    table.add_column("id", no_wrap=True)
    for column in ("user", "scopes", "label", "created", "expires", "state"):
        table.add_column(column)
    for depth, t in token_tree(resp.tokens):
        state = f"revoked {_minute(t.revoked_at)}" if t.revoked_at else "active"
        table.add_row(
            "  " * (depth - 1) + "└ " + t.token_id if depth else t.token_id,
            t.user,
            ", ".join(t.scopes),
            t.label,
            _minute(t.created_at),
            _minute(t.expires_at) or "never",
            state,
        )
    out.print(table)
    return EXIT_OK


def token_tree(tokens: Sequence[arena_pb2.TokenInfo]) -> list[tuple[int, arena_pb2.TokenInfo]]:
    """The tokens depth first, each with its depth: a root is a token with no parent, or
    whose parent is not listed (another user's, e.g. an admin made it); children oldest first."""
    listed = {t.token_id for t in tokens}
    children: dict[str, list[arena_pb2.TokenInfo]] = {}
    for t in tokens:
        parent = t.parent_token_id if t.parent_token_id in listed else ""
        children.setdefault(parent, []).append(t)
    out: list[tuple[int, arena_pb2.TokenInfo]] = []

    def walk(parent: str, depth: int) -> None:
        for t in sorted(children.get(parent, []), key=lambda x: (x.created_at, x.token_id)):
            out.append((depth, t))
            if t.token_id != parent:  # a token is never its own parent; guard anyway
                walk(t.token_id, depth + 1)

    walk("", 0)
    return out


def token_revoke(args: argparse.Namespace) -> int:
    """``hamlet token revoke ID``."""
    req = arena_pb2.RevokeTokenRequest(token_id=args.token_id)
    resp = arena(args).RevokeToken(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(resp))
    else:
        out.print(
            f"token {resp.token_id} of {resp.user} revoked at {resp.revoked_at}, with every "
            "token it created"
        )
    return EXIT_OK


def whoami(args: argparse.Namespace) -> int:
    """``hamlet whoami``: the user and scopes of the token in use."""
    resp = arena(args).WhoAmI(arena_pb2.WhoAmIRequest(), timeout=args.timeout)
    _, where = credentials.find_token()
    if args.json:
        print_json(to_dict(resp))
    elif resp.anonymous:
        out.print("anonymous (no token: `hamlet login`, or set HAMLET_TOKEN)")
    else:
        admin = " (admin)" if resp.user.admin else ""
        out.print(
            f"{resp.user.name}{admin}, token {resp.token_id}, scopes {', '.join(resp.scopes)}"
            f" (from {where})"
        )
    return EXIT_OK


def _is_time(text: str) -> bool:
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _amount(value: int, unit: str) -> str:
    """``8388608`` bytes as ``8.0 MiB``; other units as the number."""
    if unit != "bytes":
        return f"{value:,}"
    for size, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if value >= size:
            return f"{value / size:.1f} {name}"
    return f"{value} B"


def quota(args: argparse.Namespace) -> int:
    """``hamlet quota [--user NAME]``: each limit, its use now and when it resets."""
    resp = arena(args).GetQuota(arena_pb2.GetQuotaRequest(user=args.user), timeout=args.timeout)
    if args.json:
        print_json(to_dict(resp))
        return EXIT_OK
    exempt = " (exempt: an admin is not limited)" if resp.exempt else ""
    table = Table(title=f"quotas of {resp.user}{exempt}")
    table.add_column("quota", no_wrap=True)
    for column in ("limit", "used"):
        table.add_column(column, justify="right")
    table.add_column("resets")
    for q in resp.items:
        per_version = q.resets.startswith("each version")
        resets = f"{_minute(q.resets)} UTC" if _is_time(q.resets) else q.resets
        table.add_row(
            q.name,
            _amount(q.limit, q.unit),
            "-" if per_version else _amount(q.used, q.unit),
            resets,
        )
    out.print(table)
    return EXIT_OK


def login(args: argparse.Namespace) -> int:
    """``hamlet login [--token-file F]``: check a token with the server, then keep it."""
    if args.token_file is not None:
        try:
            token = args.token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            console.err.print(f"hamlet login: cannot read {args.token_file}: {exc}")
            return EXIT_USAGE
    else:
        if sys.stdin.isatty():
            console.err.print("paste your token and press Enter:")
        token = sys.stdin.readline().strip()
    if not token:
        console.err.print("hamlet login: no token given (pipe it in, or use --token-file)")
        return EXIT_USAGE
    from hamlet.channels import open_channel
    from hamlet.v1 import arena_pb2_grpc

    stub = arena_pb2_grpc.ArenaStub(  # type: ignore[no-untyped-call]
        open_channel(args.server, token=token, ca_file=credentials.tls_ca())
    )
    resp = stub.WhoAmI(arena_pb2.WhoAmIRequest(), timeout=args.timeout)
    path = credentials.save_token(token)
    if args.json:
        print_json({"user": resp.user.name, "scopes": list(resp.scopes), "saved": str(path)})
    else:
        out.print(
            f"logged in as {resp.user.name} (scopes {', '.join(resp.scopes)}); token in {path}"
        )
    return EXIT_OK
