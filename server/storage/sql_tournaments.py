"""Tournaments and their progress counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from server.storage import models as m
from server.storage.base import (
    MatchStatus,
    NewMatch,
    NewTournament,
    TournamentRecord,
    TournamentStatus,
    utcnow,
)
from server.storage.sqlbase import SqlBase, rowcount

_MATCH_COLUMNS = (
    "id", "tournament_id", "game", "rules_version", "seed", "status", "round", "table_index",
    "rotation", "attempts", "duration_seconds", "void_reason", "queue", "sandbox_tier",
)  # fmt: skip
_SEAT_COLUMNS = ("match_id", "seat", "bot_version_id", "forfeit_reason", "forfeit_detail")


class TournamentsPart(SqlBase):
    """Tournaments and their progress counts."""

    def create_tournament(self, spec: NewTournament) -> TournamentRecord:
        with self._tx() as s:
            s.add(
                m.Tournament(
                    id=spec.tournament_id,
                    game=spec.game,
                    format=spec.format,
                    status=TournamentStatus.CREATED.value,
                    players_per_table=spec.players_per_table,
                    rounds=spec.rounds,
                    seed=spec.seed,
                    decision_time_ms=spec.decision_time_ms,
                    time_bank_ms=spec.time_bank_ms,
                    rated=spec.rated,
                    created_at=utcnow(),
                    owner_id=spec.owner_id,
                    seed_nonce=spec.seed_nonce or None,
                    seed_commitment=spec.seed_commitment or None,
                    planned_matches=spec.planned_matches or len(spec.matches),
                )
            )
            s.flush()
            for pos, vid in enumerate(spec.entry_version_ids):
                s.add(
                    m.TournamentEntry(
                        tournament_id=spec.tournament_id, position=pos, bot_version_id=vid
                    )
                )
            self._insert_matches(s, spec.tournament_id, spec.game, spec.rules_version, spec.matches)
            found = self._tournament_record(s, spec.tournament_id)
            assert found is not None
            return found

    def add_matches(
        self, tournament_id: str, rules_version: str, matches: Sequence[NewMatch]
    ) -> bool:
        try:
            with self._tx() as s:
                t = s.get(m.Tournament, tournament_id)
                if t is None or s.get(m.Match, matches[0].match_id) is not None:
                    return False
                self._insert_matches(s, tournament_id, t.game, rules_version, matches)
                return True
        except IntegrityError:  # a concurrent call inserted the same round
            return False

    def _insert_matches(
        self, s: Session, tournament_id: str, game: str, rules: str, matches: Sequence[NewMatch]
    ) -> None:
        # One executemany per table on the driver's own placeholders: a 20,000-match plan is
        # written in about half a second, so creating a large event never holds the writer
        # for long (the ORM, or even Core's per-row parameter handling, costs several times
        # that).
        if not matches:
            return
        conn = s.connection()
        mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"

        def insert_rows(table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
            values = ", ".join([mark] * len(columns))
            sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({values})"
            conn.exec_driver_sql(sql, rows)  # type: ignore[arg-type]

        pending = MatchStatus.PENDING.value
        rows = [
            (nm.match_id, tournament_id, game, rules, nm.seed, pending, nm.round, nm.table,
             nm.rotation, 0, 0.0, "", nm.queue, "")
            for nm in matches
        ]  # fmt: skip
        insert_rows("matches", _MATCH_COLUMNS, rows)
        insert_rows(
            "match_seats",
            _SEAT_COLUMNS,
            [
                (nm.match_id, seat, vid, "", "")
                for nm in matches
                for seat, vid in enumerate(nm.seat_version_ids)
            ],
        )

    def get_tournament(self, tournament_id: str) -> TournamentRecord | None:
        with self._tx() as s:
            return self._tournament_record(s, tournament_id)

    def list_tournaments(self, limit: int) -> list[TournamentRecord]:
        with self._tx() as s:
            ids = s.scalars(
                select(m.Tournament.id).order_by(m.Tournament.created_at.desc()).limit(limit)
            ).all()
            return [r for r in (self._tournament_record(s, i) for i in ids) if r is not None]

    def running_tournament(self, game: str, fmt: str) -> TournamentRecord | None:
        with self._tx() as s:
            found = s.scalar(
                select(m.Tournament.id)
                .where(
                    m.Tournament.status == TournamentStatus.RUNNING.value,
                    m.Tournament.game == game,
                    m.Tournament.format == fmt,
                )
                .order_by(m.Tournament.created_at.desc(), m.Tournament.id.desc())
                .limit(1)
            )
            return None if found is None else self._tournament_record(s, found)

    def count_tournaments(self, game: str, fmt: str) -> int:
        with self._tx() as s:
            return int(
                s.scalar(
                    select(func.count()).where(
                        m.Tournament.game == game, m.Tournament.format == fmt
                    )
                )
                or 0
            )

    def tournament_counts(self) -> dict[TournamentStatus, int]:
        with self._tx() as s:
            rows = s.execute(
                select(m.Tournament.status, func.count()).group_by(m.Tournament.status)
            ).all()
        found = {str(status): int(n) for status, n in rows}
        return {t: found.get(t.value, 0) for t in TournamentStatus}

    def set_tournament_status(
        self, tournament_id: str, status: TournamentStatus, only_from: Sequence[TournamentStatus]
    ) -> bool:
        with self._tx() as s:
            values: dict[str, Any] = {"status": status.value}
            if status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
                values["finished_at"] = utcnow()
            res = s.execute(
                update(m.Tournament)
                .where(
                    m.Tournament.id == tournament_id,
                    m.Tournament.status.in_([x.value for x in only_from]),
                )
                .values(**values)
            )
            return rowcount(res) == 1

    def _tournament_record(self, s: Session, tournament_id: str) -> TournamentRecord | None:
        t = s.get(m.Tournament, tournament_id)
        if t is None:
            return None
        entries = s.execute(
            select(
                m.Bot.name, m.BotVersion.version, m.BotVersion.id, m.BotVersion.runtime, m.User.name
            )
            .select_from(m.TournamentEntry)
            .join(m.BotVersion, m.BotVersion.id == m.TournamentEntry.bot_version_id)
            .join(m.Bot, m.Bot.id == m.BotVersion.bot_id)
            .outerjoin(m.User, m.User.id == m.Bot.owner_id)
            .where(m.TournamentEntry.tournament_id == tournament_id)
            .order_by(m.TournamentEntry.position)
        ).all()
        counts = s.execute(
            select(m.Match.status, func.count())
            .where(m.Match.tournament_id == tournament_id)
            .group_by(m.Match.status)
        ).all()
        return TournamentRecord(
            tournament_id=t.id,
            game=t.game,
            format=t.format,
            status=TournamentStatus(t.status),
            bots=tuple(f"{e[0]}@{e[1]}" for e in entries),
            players_per_table=t.players_per_table,
            rounds=t.rounds,
            seed=t.seed,
            decision_time_ms=t.decision_time_ms,
            time_bank_ms=t.time_bank_ms,
            rated=t.rated,
            created_at=t.created_at,
            finished_at=t.finished_at,
            counts={MatchStatus(status): int(n) for status, n in counts},
            owner=(s.scalar(select(m.User.name).where(m.User.id == t.owner_id)) or "")
            if t.owner_id is not None
            else "",
            seed_nonce=t.seed_nonce or "",
            seed_commitment=t.seed_commitment or "",
            entry_version_ids=tuple(int(e[2]) for e in entries),
            entry_owners=tuple(e[4] or "" for e in entries),
            entry_runtimes=tuple(e[3] for e in entries),
            owner_id=t.owner_id,
            planned_matches=t.planned_matches,
        )
