"""The CLI's local commands for bot authors, no server needed: ``hamlet bot new`` writes a
template, ``hamlet bot play`` plays a bot against built-ins with the workers' own rules.

The logic lives in :mod:`bots.templates` and :mod:`workers.localplay`; these commands parse,
delegate and render. Exit codes: 0 done; 1 the bot forfeited a game, the sandbox refuses
uploaded bots here, a match could not be played, or ``bot new`` would overwrite a file; 2 bad
arguments (unknown game, bot or file, bad player count), always one line.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from pathlib import Path

from cli import console, console_play
from cli.console import out, print_json

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _fail(args: argparse.Namespace, command: str, code: str, message: str, status: int) -> int:
    """One line on stderr, or with ``--json`` a JSON error on stdout, like the other commands."""
    if getattr(args, "json", False):
        print(json.dumps({"error": {"code": code, "message": message}}))
    else:
        console.err.print(f"hamlet {command}: {message}", markup=False)
    return status


def bot_new(args: argparse.Namespace) -> int:
    """``hamlet bot new NAME --game GAME [--dir D]``."""
    from bots.templates import TemplateError, TemplateExistsError, write

    try:
        path = write(args.name, args.game, args.dir)
    except TemplateExistsError as exc:
        return _fail(args, "bot new", "ALREADY_EXISTS", str(exc), EXIT_FAILED)
    except TemplateError as exc:
        return _fail(args, "bot new", "INVALID_ARGUMENT", str(exc), EXIT_USAGE)
    if args.json:
        print_json({"path": str(path), "name": args.name, "game": args.game})
        return EXIT_OK
    out.print(f"wrote {path}: a commented {args.game} bot that beats random", markup=False)
    out.print(
        f"try it:  hamlet bot play {path} --game {args.game} --vs random,greedy --games 20",
        markup=False,
    )
    out.print(f"submit:  hamlet bot submit {args.name} {args.game} {path}", markup=False)
    return EXIT_OK


def bot_play(args: argparse.Namespace) -> int:
    """``hamlet bot play TARGET --game GAME [--vs A,B] [--games N] [--seed S] ...``."""
    from workers import localplay
    from workers.model import InfrastructureError

    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    request = localplay.LocalPlay(
        target=args.target,
        game=args.game,
        opponents=tuple(o.strip() for o in args.vs.split(",")),
        games=args.games,
        seed=seed,
        players=args.players,
        decision_ms=localplay.DEFAULT_DECISION_MS if args.decision_ms is None else args.decision_ms,
        trace_dir=args.trace,
    )
    try:
        prepared = localplay.prepare(request)
    except localplay.LocalPlayError as exc:
        return _fail(args, "bot play", "INVALID_ARGUMENT", str(exc), EXIT_USAGE)
    except localplay.SandboxRefusedError as exc:
        return _fail(args, "bot play", "FAILED_PRECONDITION", str(exc), EXIT_FAILED)
    opponents = ", ".join(dict.fromkeys(request.opponents))
    show = not args.json and out.is_terminal
    title = f"{prepared.target.label} vs {opponents}"
    try:
        with console_play.progress_bar(out, title, len(prepared.tables), show) as on_game:
            summary = localplay.play(prepared, on_game)
    except InfrastructureError as exc:
        return _fail(
            args, "bot play", "INTERNAL", f"a match could not be played: {exc}", EXIT_FAILED
        )
    if args.json:
        print_json(summary.to_dict())
    else:
        bank_ms = request.decision_ms * localplay.TIME_BANK_FACTOR
        lines = console_play.summary_lines(summary, opponents, request.decision_ms, bank_ms)
        out.print(lines[0], markup=False)
        out.print(console_play.results_table(summary))
        for line in lines[1:]:
            out.print(line, markup=False)
        if summary.forfeits:
            out.print(console_play.forfeits_table(summary))
        if summary.traces:
            out.print(
                f"traces: {len(summary.traces)} files in {args.trace} "
                f"({Path(summary.traces[0]).name} ...)",
                markup=False,
            )
    sys.stdout.flush()
    return EXIT_FAILED if summary.forfeits else EXIT_OK
