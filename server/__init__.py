"""Hamlet's match server, the service alone: wiring (``app``), gRPC servicers, domain services,
storage and migrations, auth, ratings, config, metrics and logs.

Which way imports point: ``server`` uses ``games`` (metadata, replays) and the wire package
``hamlet``, and of ``bots`` only the archive format (``bots.archive``). It never imports
``workers``: it reaches them through Celery task *names* and the ``MatchHost`` gRPC service.
Nothing of ours imports ``server`` but the command line (``cli``), and only where a command runs
the service in its own process (``hamlet server``, ``hamlet up``, ``hamlet rebuild-ratings``);
``tests/test_layering.py`` keeps this true.
"""
