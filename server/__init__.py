"""Hamlet's match server: gRPC services, persistence, ratings, tournaments, metrics and CLI.

The server never imports ``workers`` or ``bots``: it enqueues Celery tasks by name and starts
worker processes as commands.
"""
