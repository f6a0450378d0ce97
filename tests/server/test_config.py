"""Settings from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import ConfigError, Settings


def test_defaults() -> None:
    s = Settings.from_env({})
    assert (s.grpc_port, s.metrics_port, s.redis_url) == (50051, 9464, "redis://127.0.0.1:6379/0")
    assert s.effective_database_url.endswith("/.hamlet/hamlet.db")


def test_environment_overrides() -> None:
    s = Settings.from_env(
        {
            "HAMLET_DATA_DIR": "/tmp/x",
            "HAMLET_DATABASE_URL": "postgresql+psycopg://u@h/db",
            "HAMLET_GRPC_PORT": "6000",
            "HAMLET_MATCH_LEASE_SECONDS": "2.5",
        }
    )
    assert (s.data_dir, s.grpc_port, s.match_lease_seconds) == (Path("/tmp/x"), 6000, 2.5)
    assert s.effective_database_url == "postgresql+psycopg://u@h/db"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HAMLET_GRPC_PORT": "lots"}, "HAMLET_GRPC_PORT must be a number"),
        ({"HAMLET_GRPC_PORT": "70000"}, "0..65535"),
        ({"HAMLET_REDIS_URL": "http://x"}, "redis://"),
        ({"HAMLET_MAX_MATCH_ATTEMPTS": "0"}, "at least 1"),
        ({"HAMLET_MATCH_LEASE_SECONDS": "-1"}, "positive"),
        ({"HAMLET_LOG_LEVEL": "LOUD"}, "HAMLET_LOG_LEVEL must be one of DEBUG, INFO"),
        ({"HAMLET_LOG_FORMAT": "xml"}, "HAMLET_LOG_FORMAT must be one of text, json"),
    ],
)
def test_bad_values_are_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings.from_env(env)


def test_log_settings() -> None:
    s = Settings.from_env({"HAMLET_LOG_LEVEL": "debug", "HAMLET_LOG_FORMAT": "JSON"})
    assert (s.log_level, s.log_format) == ("DEBUG", "json")
    assert (Settings.from_env({}).log_level, Settings.from_env({}).log_format) == ("INFO", "text")
