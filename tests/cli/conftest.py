"""The CLI's tests run against the real test server of ``tests/server``: its fixtures here."""

from tests.server.conftest import running, served, store, toy

__all__ = ["running", "served", "store", "toy"]
