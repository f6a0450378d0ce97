"""Ranked play -> protobuf: leaderboards (the published fit and the live Elo), SPRT status,
and the ladder. Part of :mod:`server.servicers.convert`, which re-exports it."""

from __future__ import annotations

from hamlet.v1 import arena_pb2
from server.elo import BotRating
from server.ratings import livescale
from server.ratings.intervals import ANCHOR_BOT, ANCHOR_RATING, MEAN_RATING
from server.servicers.convert_consent import _iso, time_control
from server.services.headtohead import TestStatus
from server.services.ladder import LadderStatus
from server.services.leaderboards import Published
from server.services.timecontrol import TimeControl


def leaderboard(
    game_name: str,
    lines: list[BotRating],
    published: Published | None = None,
    version_lines: bool = False,
    rated: TimeControl | None = None,
) -> arena_pb2.Leaderboard:
    """A game's published rating (when given), its live Elo table (shifted onto the published
    scale, see :mod:`server.ratings.livescale`) and the time control its rated matches are
    played at (when given).

    Lines come group by group (group 0 first), best first within a group; ``position`` counts
    within the group, since no order across groups is claimed. The anchor named is the line
    that fixes group 0's scale (none when every group is anchored on its mean).
    """
    shown = (
        () if published is None else published.lines if version_lines else published.latest_only()
    )
    anchor = next((vl for vl in shown if vl.line.anchor), None)
    # the live table follows the published one's anchoring (before any fit: random's)
    shift = livescale.offset({r.bot: r.rating for r in lines}, anchor is not None or not shown)
    # groups numbered 0.. among the lines shown (a group of older versions only drops out)
    number = {g: i for i, g in enumerate(sorted({vl.line.group for vl in shown}))}
    positions: dict[int, int] = {}
    rated_lines = []
    for vl in shown:
        group = number[vl.line.group]
        position = positions[group] = positions.get(group, 0) + 1
        rated_lines.append(
            arena_pb2.RatedLine(
                position=position,
                bot_name=vl.bot,
                version=vl.version,
                rating=vl.line.rating,
                low=vl.line.low,
                high=vl.line.high,
                rank_low=vl.line.rank_low,
                rank_high=vl.line.rank_high,
                games=vl.line.games,
                average_place=vl.line.average_place,
                provisional=vl.line.provisional,
                other_versions=list(vl.other_versions),
                group=group,
                open_low=vl.line.open_low,
                open_high=vl.line.open_high,
                anchor=vl.line.anchor,
                joint_rank_low=vl.line.joint_rank_low,
                joint_rank_high=vl.line.joint_rank_high,
            )
        )
    return arena_pb2.Leaderboard(
        game=game_name,
        rules_version=published.rules_version if published else "",
        lines=rated_lines,
        groups=len(positions),
        seat_advantages=[
            arena_pb2.SeatAdvantage(players=a.k, seat=a.seat, elo=a.elo, low=a.low, high=a.high)
            for a in (published.seats if published else ())
        ],
        matches=published.matches if published else 0,
        blocks=published.blocks if published else 0,
        anchor_bot=anchor.bot if anchor else ("" if shown else ANCHOR_BOT),
        anchor_rating=anchor.line.rating if anchor else (MEAN_RATING if shown else ANCHOR_RATING),
        time_control=time_control(rated) if rated else None,
        fitted_results=published.matches if published else 0,
        fitted_at=_iso(published.fitted_at) if published else "",
        results_recorded=published.results_recorded if published else 0,
        entries=[
            arena_pb2.LeaderboardEntry(
                position=i + 1,
                bot_name=r.bot,
                rating=r.rating + shift,
                games=r.games,
                wins=r.wins,
                draws=r.draws,
                losses=r.losses,
            )
            for i, r in enumerate(lines)
        ],
    )


def sprt_status(t: TestStatus) -> arena_pb2.SprtStatus:
    """A head-to-head test."""
    h0, h1, mid = t.expected
    verdict = t.verdict if t.verdict.value != "continue" else t.state.verdict
    return arena_pb2.SprtStatus(
        test_id=t.tournament_id,
        game=t.game,
        bot_a=t.bot_a,
        bot_b=t.bot_b,
        opponents=list(t.opponents),
        elo0=t.bounds.elo0,
        elo1=t.bounds.elo1,
        alpha=t.bounds.alpha,
        beta=t.bounds.beta,
        expected_pairs_h0=h0,
        expected_pairs_h1=h1,
        expected_pairs_midway=mid,
        pairs=t.state.blocks,
        llr=t.state.llr,
        lower=t.bounds.lower,
        upper=t.bounds.upper,
        nelo=t.state.nelo,
        verdict=verdict.value,
        finished=t.finished,
    )


def ladder(status: LadderStatus) -> arena_pb2.LadderStatus:
    """A game's ladder."""
    return arena_pb2.LadderStatus(
        game=status.game,
        tournament_id=status.tournament_id,
        bots=list(status.bots),
        open_blocks=status.open_blocks,
        blocks=status.blocks,
    )
