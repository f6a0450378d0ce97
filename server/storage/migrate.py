"""Apply Alembic migrations (``server/migrations``) at start-up."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config(engine: Engine | None = None) -> Config:
    """An Alembic config pointing at our migrations (and at ``engine`` when given)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if engine is not None:
        # ConfigParser interpolates "%": a percent-encoded URL (a password, options=) needs %%.
        url = engine.url.render_as_string(hide_password=False).replace("%", "%%")
        cfg.set_main_option("sqlalchemy.url", url)
        cfg.attributes["engine"] = engine
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database of ``engine`` to ``revision``."""
    with engine.begin() as connection:
        cfg = alembic_config(engine)
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, revision)
