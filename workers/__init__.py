"""Hamlet's workers: the Celery app, the match runner, the bot sandbox and the bot clients.

Deliberately imports nothing: ``python -m workers`` must be able to set up Prometheus'
multiprocess directory before any metric module is imported.
"""
