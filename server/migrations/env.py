"""Alembic environment: runs on the connection handed over by server.storage.migrate."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from server.storage.models import Base

config = context.config
target_metadata = Base.metadata


def run() -> None:
    """Online migrations on the given connection (or a new engine from the config URL)."""
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(
            connection=connection, target_metadata=target_metadata, render_as_batch=True
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "sqlite://")
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


run()
