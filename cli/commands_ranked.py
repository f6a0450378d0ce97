"""The CLI's commands for ranked play: head-to-head tests, the ladder, a bot's history and
match verification. Each makes a call or two and renders the answer."""

from __future__ import annotations

import argparse

from cli import console, console_ratings, retrying
from cli.commands import EXIT_FAILED, EXIT_OK, arena, read_matches
from cli.console import out, print_json, to_dict
from hamlet.v1 import arena_pb2, common_pb2


def match_verify(args: argparse.Namespace) -> int:
    """``hamlet match verify ID``: the seeds were fixed in advance, and the replay holds."""
    from server.services.commitments import commitment, table_seed

    stub = arena(args)
    match = stub.GetMatch(arena_pb2.MatchRef(match_id=args.match_id), timeout=args.timeout).match
    # The tournament for its seed and commitment only: one standing line, not all of them.
    ref = arena_pb2.TournamentRef(tournament_id=match.tournament_id, standings_page_size=1)
    t = stub.GetTournament(ref, timeout=args.timeout)
    if not t.seed_nonce:
        console.err.print(
            f"hamlet: tournament {t.tournament_id} is not over: its seeds are revealed when it "
            f"ends (commitment {t.seed_commitment})"
        )
        return EXIT_FAILED
    matches = read_matches(stub, match.tournament_id, args.timeout)
    again = commitment(t.tournament_id, t.seed_nonce, t.seed)
    # A head-to-head test replays one seed on both tables of a round (A's and B's).
    paired = t.format == common_pb2.TOURNAMENT_FORMAT_SPRT
    per_round = 1 if paired else 1 + max((_table_of(m.match_id) for m in matches), default=0)
    derived = all(
        m.seed
        == table_seed(
            t.seed, _round_of(m.match_id), per_round, 0 if paired else _table_of(m.match_id)
        )
        for m in matches
    )
    committed = again == t.seed_commitment and derived
    # Every page says whether the whole replay agrees with the record: one step is enough.
    replay = stub.GetReplay(arena_pb2.MatchRef(match_id=args.match_id, max_steps=1), timeout=60)
    if args.json:
        print_json(
            {
                "commitment": t.seed_commitment,
                "recomputed": again,
                "commitment_holds": committed,
                "replay_holds": replay.matches_record,
            }
        )
    else:
        holds = "matches" if committed else "does NOT match"
        out.print(
            f"seed commitment {t.seed_commitment} (published when {t.tournament_id} was "
            f"created) {holds} the revealed seed {t.seed} and the seeds of its "
            f"{len(matches)} matches"
        )
        verdict = "reproduces" if replay.matches_record else "does NOT reproduce"
        out.print(
            f"match {args.match_id}, seed {match.seed}: replayed through the engine, it "
            f"{verdict} the recorded result (scores {list(replay.replayed_scores)})"
        )
    return EXIT_OK if committed and replay.matches_record else EXIT_FAILED


def _round_of(match_id: str) -> int:
    return int(match_id.split(".")[-3][1:])  # <tournament>.r<round>.t<table>.s<rotation>


def _table_of(match_id: str) -> int:
    return int(match_id.split(".")[-2][1:])


def sprt(args: argparse.Namespace) -> int:
    """``hamlet sprt A B --game G --elo0 0 --elo1 10``: is B better than A?"""
    stub = arena(args)
    req = arena_pb2.StartSprtRequest(
        game=args.game,
        bot_a=args.a,
        bot_b=args.b,
        opponents=[x for x in args.vs.split(",") if x],
        players_per_table=args.players,
        elo0=args.elo0,
        elo1=args.elo1,
        alpha=args.alpha,
        beta=args.beta,
        max_pairs=args.max_pairs,
        decision_time_ms=args.decision_ms,
        client_request_id=retrying.new_request_id(),
    )
    started = retrying.call_with_retries(stub.StartSprt, req, args.timeout)
    if not args.json:
        out.print(
            f"test {started.test_id}: is {started.bot_b} better than {started.bot_a} in "
            f"{started.game} (against {', '.join(started.opponents)})? H0 nElo <= "
            f"{started.elo0:g}, H1 nElo >= {started.elo1:g}, alpha {started.alpha:g}, beta "
            f"{started.beta:g}; expected pairs of blocks: {started.expected_pairs_h0:.0f} if H0 "
            f"holds, {started.expected_pairs_h1:.0f} if H1, {started.expected_pairs_midway:.0f} "
            "halfway"
        )
    last = started
    for last in stub.WatchSprt(arena_pb2.SprtRef(test_id=started.test_id)):
        if args.json:
            print_json(to_dict(last))
        else:
            out.print(
                f"  {last.pairs:>5} pairs  LLR {last.llr:+.2f} in [{last.lower:+.2f}, "
                f"{last.upper:+.2f}]  nElo {last.nelo:+.1f}"
            )
    if not args.json:
        verdict = {
            "h1": f"H1: {last.bot_b} is better than {last.bot_a} (nElo >= {last.elo1:g})",
            "h0": f"H0: {last.bot_b} is not better than {last.bot_a} (nElo <= {last.elo0:g})",
        }.get(last.verdict, "no verdict within the maximum number of pairs")
        out.print(f"after {last.pairs} pairs: {verdict}")
    return EXIT_OK if last.verdict in ("h0", "h1") else EXIT_FAILED


def ladder(args: argparse.Namespace) -> int:
    """``hamlet ladder join|leave BOT [--game G]``, ``hamlet ladder status|end GAME``."""
    stub = arena(args)
    command = args.ladder_command
    if command in ("status", "end"):
        which = arena_pb2.GetLadderRequest(game=args.game)
        if command == "status":
            status = stub.GetLadder(which, timeout=args.timeout)
        else:
            status = stub.EndLadderSeason(which, timeout=args.timeout)
    else:
        req = arena_pb2.LadderRequest(bot_name=args.bot, game=args.game)
        change = stub.JoinLadder if command == "join" else stub.LeaveLadder
        status = change(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(status))
        return EXIT_OK
    bots = ", ".join(status.bots) or "nobody yet"
    out.print(
        f"{status.game} ladder ({status.tournament_id}): {bots}; {status.blocks} blocks "
        f"scheduled, {status.open_blocks} being played"
    )
    return EXIT_OK


def bot_history(args: argparse.Namespace) -> int:
    """``hamlet bot history NAME [--game G]``: rating over time, results by opponent."""
    req = arena_pb2.BotHistoryRequest(name=args.name, game=args.game)
    h = arena(args).GetBotHistory(req, timeout=args.timeout)
    if args.json:
        print_json(to_dict(h))
        return EXIT_OK
    out.print(console_ratings.history_chart(h))
    out.print(console_ratings.opponents_table(h))
    return EXIT_OK
