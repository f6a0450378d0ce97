"""Planting results in bulk: many matches' final results in one transaction.

A worker's report goes through three transactions per block (queued, claimed, finalized) and
several statements per match; recording a million results that way takes hours on SQLite.
:meth:`PlantPart.plant_results` writes what those three steps write for each match (the match
row's final state, its seats, standings, decisions, seat traces, the result log and the Elo
ratings), with one statement per table per chunk (``executemany``) and one transaction per
chunk: the rows it leaves are the rows that queueing, claiming and finalizing the same matches
one by one, in the same order, would leave (``tests/server/test_plant.py`` compares them table
by table). It is for loading a store (benchmarks, imports), not for workers: it checks no
lease, since no attempt holds one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from server import elo
from server.storage import models as m
from server.storage.base import MatchStatus, Outcome, TournamentStatus
from server.storage.sql_matches import MatchesPart
from server.storage.sql_ratings import lock_ratings, rating_line
from server.storage.sql_standings import tally
from server.storage.sql_traces import add_decisions, add_traces
from server.storage.sqlbase import FINAL

#: Statements bind at most this many values each (SQLite's limit is 32,766 parameters).
_IN_CHUNK = 500


class PlantPart(MatchesPart):
    """Final results of many matches at once (see the module's docstring)."""

    def plant_results(
        self,
        reports: Sequence[tuple[str, Outcome, str]],
        worker_id: str,
        task_id: str,
        now: datetime,
    ) -> None:
        """Record (match id, outcome, attempt hash) for each match as if each had been
        queued at ``now``, claimed by ``worker_id`` (``task_id``) with that attempt hash and
        finalized at ``now``, in this order, all in one transaction. Every match must be
        open (not final) in a running tournament; ValueError otherwise, before any write."""
        if not reports:
            return
        ids = [mid for mid, _, _ in reports]
        if len(set(ids)) != len(ids):
            raise ValueError("a match is planted twice")
        with self._record_lock, self._tx() as s:
            lock_ratings(s)
            matches: dict[str, tuple[str, str]] = {}
            seats: dict[str, list[int]] = {}
            for at in range(0, len(ids), _IN_CHUNK):
                part = ids[at : at + _IN_CHUNK]
                for mid, tid, game, status, running in s.execute(
                    select(
                        m.Match.id,
                        m.Match.tournament_id,
                        m.Match.game,
                        m.Match.status,
                        m.Tournament.status,
                    )
                    .join(m.Tournament, m.Tournament.id == m.Match.tournament_id)
                    .where(m.Match.id.in_(part))
                ):
                    if status in FINAL or running != TournamentStatus.RUNNING.value:
                        raise ValueError(f"match {mid} is not open in a running tournament")
                    matches[str(mid)] = (str(tid), str(game))
                for mid, version_id in s.execute(
                    select(m.MatchSeat.match_id, m.MatchSeat.bot_version_id)
                    .where(m.MatchSeat.match_id.in_(part))
                    .order_by(m.MatchSeat.match_id, m.MatchSeat.seat)
                ):
                    seats.setdefault(str(mid), []).append(int(version_id))
            missing = [mid for mid in ids if mid not in matches]
            if missing:
                raise ValueError(f"no such match: {missing[0]}")
            for mid, outcome, _ in reports:
                if len(outcome.seats) != len(seats[mid]):
                    raise ValueError(f"match {mid}: {len(outcome.seats)} seats reported")
            versions = {v for held in seats.values() for v in held}
            names = self._version_lines(s, versions)
            tournaments = {t for t, _ in matches.values()}
            rated_events = set(
                s.scalars(
                    select(m.Tournament.id).where(
                        m.Tournament.id.in_(list(tournaments)), m.Tournament.rated.is_(True)
                    )
                )
            )
            self._plant_matches(s, reports, worker_id, task_id, now)
            self._plant_seats(s, reports)
            for mid, outcome, _ in reports:
                add_decisions(s, mid, outcome.decisions)
                add_traces(s, mid, outcome.traces)
            self._plant_standings(s, reports, matches, seats, names)
            log = []
            rated_by_game: dict[str, list[tuple[list[str], list[int]]]] = {}
            for mid, outcome, _ in reports:
                tid, game = matches[mid]
                bots = [names[v][0] for v in seats[mid]]
                ranks = [so.rank for so in outcome.seats]
                rated = tid in rated_events and not outcome.unrated
                log.append(
                    {
                        "match_id": mid,
                        "game": game,
                        "rated": rated,
                        "bots": ",".join(bots),
                        "ranks": ",".join(map(str, ranks)),
                        "recorded_at": now,
                    }
                )
                if rated:
                    rated_by_game.setdefault(game, []).append((bots, ranks))
            s.execute(insert(m.ResultLog), log)
            for game, played in rated_by_game.items():
                _plant_ratings(s, game, played)
            s.flush()
            for tid in dict.fromkeys(matches[mid][0] for mid in ids):
                self._maybe_finish(s, tid, now)

    def _version_lines(self, s: Session, versions: set[int]) -> dict[int, tuple[str, str]]:
        """(bot name, ``name@version``) of each bot version id."""
        out: dict[int, tuple[str, str]] = {}
        listed = sorted(versions)
        for at in range(0, len(listed), _IN_CHUNK):
            for vid, name, version in s.execute(
                select(m.BotVersion.id, m.Bot.name, m.BotVersion.version)
                .join(m.Bot, m.Bot.id == m.BotVersion.bot_id)
                .where(m.BotVersion.id.in_(listed[at : at + _IN_CHUNK]))
            ):
                out[int(vid)] = (str(name), f"{name}@{version}")
        return out

    def _plant_matches(
        self,
        s: Session,
        reports: Sequence[tuple[str, Outcome, str]],
        worker_id: str,
        task_id: str,
        now: datetime,
    ) -> None:
        """Each match row as queueing, claiming and finalizing it leave it."""
        table = m.Match.__table__
        s.connection().execute(
            update(table)  # type: ignore[arg-type]
            .where(table.c.id == bindparam("match"))
            .values(
                status=MatchStatus.FINISHED.value,
                queued_at=now,
                claimed_by=worker_id,
                lease_until=None,
                attempt_hash=bindparam("digest"),
                attempts=table.c.attempts + 1,
                claim_task=task_id[:64] or None,
                finished_at=now,
                duration_seconds=bindparam("duration"),
                sandbox_tier=bindparam("tier"),
            ),
            [
                {
                    "match": mid,
                    "digest": digest,
                    "duration": outcome.duration_seconds,
                    "tier": outcome.sandbox_tier[:32],
                }
                for mid, outcome, digest in reports
            ],
        )

    def _plant_seats(self, s: Session, reports: Sequence[tuple[str, Outcome, str]]) -> None:
        table = m.MatchSeat.__table__
        s.connection().execute(
            update(table)  # type: ignore[arg-type]
            .where(table.c.match_id == bindparam("match"), table.c.seat == bindparam("at"))
            .values(
                score=bindparam("score"),
                rank=bindparam("rank"),
                forfeit_reason=bindparam("reason"),
                forfeit_detail=bindparam("detail"),
                forfeit_at=bindparam("when"),
            ),
            [
                {
                    "match": mid,
                    "at": seat,
                    "score": so.score,
                    "rank": so.rank,
                    "reason": so.forfeit_reason,
                    "detail": so.forfeit_detail,
                    "when": so.forfeit_at,
                }
                for mid, outcome, _ in reports
                for seat, so in enumerate(outcome.seats)
            ],
        )

    def _plant_standings(
        self,
        s: Session,
        reports: Sequence[tuple[str, Outcome, str]],
        matches: dict[str, tuple[str, str]],
        seats: dict[str, list[int]],
        names: dict[int, tuple[str, str]],
    ) -> None:
        """Each entry's line summed over the chunk, then added to its row (or inserted)."""
        added: dict[tuple[str, str], list[float]] = {}
        for mid, outcome, _ in reports:
            tid = matches[mid][0]
            shares = tally(
                [so.rank for so in outcome.seats], [bool(so.forfeit_reason) for so in outcome.seats]
            )
            for version, t in zip(seats[mid], shares, strict=True):
                acc = added.setdefault((tid, names[version][1]), [0, 0, 0, 0, 0.0, 0])
                for i, add in enumerate((1, t.wins, t.draws, t.losses, t.points, t.forfeits)):
                    acc[i] += add
        line = m.StandingRow
        found: dict[tuple[str, str], m.StandingRow] = {}
        for tid in {t for t, _ in added}:
            bots = [b for t, b in added if t == tid]
            for at in range(0, len(bots), _IN_CHUNK):
                for row in s.scalars(
                    select(line).where(
                        line.tournament_id == tid, line.bot.in_(bots[at : at + _IN_CHUNK])
                    )
                ):
                    found[(row.tournament_id, row.bot)] = row
        fresh: list[dict[str, object]] = []
        for (tid, bot), a in added.items():
            held = found.get((tid, bot))
            if held is None:
                fresh.append(
                    {
                        "tournament_id": tid,
                        "bot": bot,
                        "matches": int(a[0]),
                        "wins": int(a[1]),
                        "draws": int(a[2]),
                        "losses": int(a[3]),
                        "points": float(a[4]),
                        "forfeits": int(a[5]),
                    }
                )
                continue
            held.matches += int(a[0])
            held.wins += int(a[1])
            held.draws += int(a[2])
            held.losses += int(a[3])
            held.points += float(a[4])
            held.forfeits += int(a[5])
        if fresh:
            s.execute(insert(line), fresh)


def _plant_ratings(s: Session, game: str, played: list[tuple[list[str], list[int]]]) -> None:
    """Apply the chunk's rated results to the game's Elo table in order (as one by one)."""
    bots = sorted({b for names, _ in played for b in names})
    rows: dict[str, m.Rating] = {}
    for at in range(0, len(bots), _IN_CHUNK):
        for r in s.scalars(
            select(m.Rating).where(
                m.Rating.game == game, m.Rating.bot_name.in_(bots[at : at + _IN_CHUNK])
            )
        ):
            rows[r.bot_name] = r
    table = {name: rating_line(r) for name, r in rows.items()}
    for names, ranks in played:
        table.update(elo.apply_match(table, names, ranks))
    for name, line in table.items():
        row = rows.get(name)
        if row is None:
            row = m.Rating(game=game, bot_name=name)
            s.add(row)
        row.rating, row.games = line.rating, line.games
        row.wins, row.draws, row.losses = line.wins, line.draws, line.losses
