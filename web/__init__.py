"""Hamlet on the web: a read-only site over the ``Arena`` gRPC API.

Leaderboards, tournaments (live), bots, matches and a replay viewer with a board renderer per
game. Every page is server-rendered (autoescaping Jinja2 templates) and works without
JavaScript; the replay scrubber and the live tournament updates are small scripts on top. The
server stays the one authority: the web app holds no database and reads only through gRPC.
"""
