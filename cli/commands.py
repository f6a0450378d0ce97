"""The CLI's commands: each makes one or two gRPC calls and renders the answer."""

from __future__ import annotations

import argparse
import json

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cli import commands_seat, console, console_ratings, credentials, retrying
from cli.console import out, print_json, to_dict
from hamlet.channels import open_channel
from hamlet.paging import match_pages, tournament_with_standings, whole_replay
from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


_FORMATS = {
    "round-robin": common_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN,
    "gauntlet": common_pb2.TOURNAMENT_FORMAT_GAUNTLET,
    "swiss": common_pb2.TOURNAMENT_FORMAT_SWISS,
}


def arena(args: argparse.Namespace) -> arena_pb2_grpc.ArenaStub:
    """A stub on ``--server`` with the caller's token (see :mod:`cli.credentials`)."""
    token, _ = credentials.find_token()
    channel = open_channel(args.server, token=token or None, ca_file=credentials.tls_ca())
    return arena_pb2_grpc.ArenaStub(channel)  # type: ignore[no-untyped-call]


#: Matches per ListMatches call: a page answers well within any per-call timeout.
PAGE_SIZE = 500


def read_matches(
    stub: arena_pb2_grpc.ArenaStub, tournament_id: str, timeout: float | None
) -> list[common_pb2.Match]:
    """Every match of a tournament; ``timeout`` bounds each page's call, not the whole read.
    The bar (on stderr, so ``--json`` output stays clean) shows only past the first page."""
    pages = match_pages(stub, tournament_id, page_size=PAGE_SIZE, timeout=timeout)
    first = next(pages)
    out = list(first.matches)
    if not first.next_page_token:
        return out
    with Progress(
        TextColumn("[bold]matches"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console.err,
        transient=True,
    ) as progress:
        task = progress.add_task("matches", total=first.total, completed=len(out))
        for page in pages:
            out.extend(page.matches)
            progress.update(task, completed=len(out), total=page.total)
    return out


def games(args: argparse.Namespace) -> int:
    """``hamlet games``."""
    resp = arena(args).ListGames(arena_pb2.ListGamesRequest(), timeout=args.timeout)
    if args.json:
        print_json([to_dict(g) for g in resp.games])
    else:
        out.print(console.games_table(resp.games))
    return EXIT_OK


def bots(args: argparse.Namespace) -> int:
    """``hamlet bots``."""
    req = arena_pb2.ListBotsRequest(game=args.game, include_retired=args.all)
    resp = arena(args).ListBots(req, timeout=args.timeout)
    if args.json:
        print_json([to_dict(b) for b in resp.bots])
    else:
        out.print(console.bots_table(resp.bots))
    return EXIT_OK


def tournament_create(args: argparse.Namespace) -> int:
    """``hamlet tournament create GAME BOT...``."""
    req = arena_pb2.CreateTournamentRequest(
        game=args.game,
        bots=args.bots,
        format=_FORMATS[args.format],
        players_per_table=args.players,
        rounds=args.rounds,
        seed=max(args.seed, 0),
        decision_time_ms=args.decision_ms,
        rated=not args.unrated,
        start=args.start or args.watch,
        client_request_id=retrying.new_request_id(),
    )
    if args.seed < 0 or args.rounds < 0 or args.players < 0 or args.decision_ms < 0:
        console.err.print(
            "hamlet: --seed, --rounds, --players and --decision-ms must not be negative"
        )
        return EXIT_USAGE
    t = retrying.call_with_retries(arena(args).CreateTournament, req, args.timeout)
    if args.watch:
        return _watch(args, t.tournament_id)
    _show_tournament(args, t)
    return EXIT_OK


def tournament_start(args: argparse.Namespace) -> int:
    """``hamlet tournament start ID``."""
    t = arena(args).StartTournament(
        arena_pb2.TournamentRef(tournament_id=args.tournament_id), timeout=args.timeout
    )
    if args.watch:
        return _watch(args, t.tournament_id)
    _show_tournament(args, t)
    return EXIT_OK


def tournament_watch(args: argparse.Namespace) -> int:
    """``hamlet tournament watch ID``."""
    return _watch(args, args.tournament_id)


def tournament_show(args: argparse.Namespace) -> int:
    """``hamlet tournament show ID``."""
    stub = arena(args)
    t = tournament_with_standings(stub, args.tournament_id, timeout=args.timeout)
    matches = (
        read_matches(stub, args.tournament_id, args.timeout) if args.matches or args.json else []
    )
    if args.json:
        print_json({"tournament": to_dict(t), "matches": [to_dict(m) for m in matches]})
        return EXIT_OK
    out.print(console.tournament_table(t))
    if t.standings:
        out.print(console.standings_table(t))
    if matches:
        out.print(console.matches_table(matches))
    return EXIT_OK


def tournament_cancel(args: argparse.Namespace) -> int:
    """``hamlet tournament cancel ID``."""
    t = arena(args).CancelTournament(
        arena_pb2.TournamentRef(tournament_id=args.tournament_id), timeout=args.timeout
    )
    _show_tournament(args, t)
    return EXIT_OK


def tournament_list(args: argparse.Namespace) -> int:
    """``hamlet tournament list``."""
    resp = arena(args).ListTournaments(
        arena_pb2.ListTournamentsRequest(limit=args.limit), timeout=args.timeout
    )
    if args.json:
        print_json([to_dict(t) for t in resp.tournaments])
        return EXIT_OK
    from rich.table import Table

    table = Table(title="Tournaments")
    for col in ("id", "game", "status", "matches", "bots", "created"):
        table.add_column(col)
    for t in resp.tournaments:
        table.add_row(
            t.tournament_id,
            t.game,
            console.tournament_status(t.status),
            f"{t.matches_finished}/{t.matches_total}",
            ", ".join(t.bots),
            t.created_at,
        )
    out.print(table)
    return EXIT_OK


def match_show(args: argparse.Namespace) -> int:
    """``hamlet match show ID``."""
    detail = arena(args).GetMatch(arena_pb2.MatchRef(match_id=args.match_id), timeout=args.timeout)
    if args.json:
        print_json(to_dict(detail))
        return EXIT_OK
    out.print(console.match_table(detail.match))
    out.print(
        f"{len(detail.decisions)} decisions, {detail.match.duration_seconds:.2f}s, "
        f"attempts {detail.match.attempts}, tournament {detail.match.tournament_id}"
    )
    for line in commands_seat.forfeit_lines(arena(args), detail, args.timeout):
        out.print(line, markup=False)
    if args.log:
        for d in detail.decisions:
            tag = " (fallback)" if d.by_fallback else ""
            out.print(
                f"{d.index:>5}  seat {d.player + 1}  of {d.legal_count:>3}: {d.action_text}{tag}"
            )
    return EXIT_OK


def match_replay(args: argparse.Namespace) -> int:
    """``hamlet match replay ID`` (``--seat N``: that seat's own view)."""
    if args.seat is not None:
        return commands_seat.replay_seat(args, arena(args))
    replay = whole_replay(arena(args), args.match_id, timeout=max(args.timeout, 60))
    if args.json:
        print_json(to_dict(replay))
        return EXIT_OK
    from hamlet import codec

    out.print(console.match_table(replay.match))
    for step in replay.steps:
        tag = " (fallback)" if step.by_fallback else ""
        out.print(
            f"{step.index:>5}  seat {step.player + 1}  of {step.legal_count:>3}: "
            f"{step.action_text}{tag}"
        )
        if args.states:
            out.print(
                "       " + json.dumps(codec.struct_to_dict(step.public_state), sort_keys=True)
            )
    verdict = "reproduces" if replay.matches_record else "does NOT reproduce"
    out.print(
        f"replayed scores {list(replay.replayed_scores)}, places "
        f"{[r + 1 for r in replay.replayed_ranks]} (forfeits last): "
        f"the engine {verdict} the recorded result"
    )
    return EXIT_OK if replay.matches_record else EXIT_FAILED


def leaderboard(args: argparse.Namespace) -> int:
    """``hamlet leaderboard GAME``."""
    req = arena_pb2.GetLeaderboardRequest(
        game=args.game, rules_version=args.rules_version, version_lines=args.version_lines
    )
    board = arena(args).GetLeaderboard(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(board))
    elif args.elo:
        out.print(console_ratings.elo_table(board))
    else:
        for table in console_ratings.leaderboard_tables(board):
            out.print(table)
    return EXIT_OK


def _show_tournament(args: argparse.Namespace, t: arena_pb2.Tournament) -> None:
    if args.json:
        print_json(to_dict(t))
    else:
        out.print(console.tournament_table(t))


def _watch(args: argparse.Namespace, tournament_id: str) -> int:
    final = watch_tournament(arena(args), tournament_id, as_json=args.json)
    t = tournament_with_standings(arena(args), tournament_id, timeout=args.timeout)
    if not args.json:
        out.print(console.standings_table(t))
    ok = final.status == common_pb2.TOURNAMENT_STATUS_FINISHED and final.matches_failed == 0
    return EXIT_OK if ok else EXIT_FAILED


def watch_tournament(
    stub: arena_pb2_grpc.ArenaStub,
    tournament_id: str,
    as_json: bool = False,
    timeout: float | None = None,
) -> arena_pb2.Tournament:
    """Follow a tournament to its end: JSON lines, or a live progress bar; the last state.

    ``timeout`` bounds the whole watch (DEADLINE_EXCEEDED past it)."""
    req = arena_pb2.WatchTournamentRequest(tournament_id=tournament_id, include_finished=True)
    last = arena_pb2.Tournament()
    if as_json:
        for event in stub.WatchTournament(req, timeout=timeout):
            last = event.tournament
            print_json(to_dict(event))
        return last
    with Progress(
        TextColumn("{task.description}", style="bold", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[note]}", markup=False),
        console=out,
        transient=False,
    ) as progress:
        task = progress.add_task(tournament_id, total=None, note="")
        for event in stub.WatchTournament(req, timeout=timeout):
            last = event.tournament
            done = last.matches_finished + last.matches_cancelled + last.matches_failed
            note = f"{last.game}: {last.matches_running} running"
            if event.HasField("match"):
                m = event.match
                winners = [console.seat_label(s) for s in m.seats if s.rank == 0]
                note = f"{last.game}: {m.match_id} won by {', '.join(winners) or '-'}"
            progress.update(task, total=last.matches_total, completed=done, note=note)
    out.print(f"tournament {tournament_id}: {console.tournament_status(last.status)}")
    return last
