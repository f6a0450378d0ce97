"""Worker configuration and the start-up check of the Redis visibility timeout."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from workers import celery_app
from workers.config import ConfigError, WorkerConfig


def test_defaults_follow_the_contract() -> None:
    config = WorkerConfig.from_env({})
    assert config.redis_url == "redis://127.0.0.1:6379/0"
    assert config.server_addr == "127.0.0.1:50051"
    assert config.metrics_port == 9465
    assert config.visibility_timeout >= 2 * config.match_time_limit


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HAMLET_REDIS_URL": "http://x"}, "redis://"),
        ({"HAMLET_SERVER_ADDR": "nowhere"}, "host:port"),
        ({"HAMLET_WORKER_METRICS_PORT": "70000"}, "METRICS_PORT"),
        ({"HAMLET_WORKER_CONCURRENCY": "two"}, "must be a number"),
        ({"HAMLET_MATCH_SOFT_TIME_LIMIT": "900"}, "SOFT_TIME_LIMIT"),
        ({"HAMLET_VISIBILITY_TIMEOUT": "700"}, "visibility timeout"),
    ],
)
def test_bad_values_are_refused_clearly(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        WorkerConfig.from_env(env)


def test_app_settings_for_long_idempotent_tasks() -> None:
    app = celery_app.create_app(WorkerConfig())
    conf = app.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1
    assert conf.task_soft_time_limit < conf.task_time_limit
    assert conf.broker_transport_options["visibility_timeout"] >= 2 * conf.task_time_limit
    assert "hamlet.play_match" in app.tasks
    assert conf.task_routes["hamlet.play_match"]["queue"] == "matches"


def test_startup_refuses_to_run_without_a_worker_token() -> None:
    app = celery_app.create_app(WorkerConfig())
    with pytest.raises(ConfigError, match="no worker token"):
        celery_app.check_startup(app)


def test_worker_token_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "worker.token"
    path.write_text("hmt_0123456789ab_secret\n")
    config = WorkerConfig.from_env({"HAMLET_WORKER_TOKEN_FILE": str(path)})
    assert config.worker_token == "hmt_0123456789ab_secret"
    assert "secret" not in repr(config)
    with pytest.raises(ConfigError, match="cannot read"):
        WorkerConfig.from_env({"HAMLET_WORKER_TOKEN_FILE": str(tmp_path / "missing")})


def test_startup_refuses_an_ignored_visibility_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    app = celery_app.create_app(WorkerConfig(worker_token="hmt_0123456789ab_x"))
    # What Redis really uses when the option was silently dropped: kombu's default hour.
    monkeypatch.setattr(celery_app, "effective_visibility_timeout", lambda app: 3600.0 / 4)
    with pytest.raises(ConfigError, match="visibility timeout"):
        celery_app.check_startup(app)
    with pytest.raises(SystemExit):
        celery_app._on_worker_setup(instance=SimpleNamespace(app=app))


def test_announced_bots_name_their_games() -> None:
    announced = {b.name: b for b in celery_app.builtin_bots()}
    assert "random" in announced and "first" in announced
    import games

    assert list(announced["random"].games) == games.names()


def test_pool_children_announce_again_every_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, object]] = []
    sleeps: list[float] = []

    class StopError(Exception):
        pass

    def fake_announce(config: WorkerConfig, **kwargs: object) -> bool:
        calls.append(kwargs)
        return True

    def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 3:
            raise StopError

    monkeypatch.setattr(celery_app, "announce", fake_announce)
    with pytest.raises(StopError):
        celery_app.keep_announcing(WorkerConfig(), interval_s=60, sleep=fake_sleep)
    assert calls == [{}, {"attempts": 1, "again": True}, {"attempts": 1, "again": True}]
    assert sleeps == [60, 60, 60]
