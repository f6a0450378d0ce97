"""The ``hamlet`` command line and the embedded launcher: a client of the service.

Which way imports point: ``cli`` sits on top. It reaches the service through the gRPC API
(the wire package :mod:`hamlet`), the workers only through their public entry points
(:mod:`workers.localplay` for ``hamlet bot play``, ``python -m workers`` for ``hamlet worker``),
and the web app through :mod:`web.serve`. It imports :mod:`server` only where a command runs
the service in this process or on its database: ``hamlet server`` and ``hamlet up``
(:mod:`server.app`, :mod:`server.config`, :mod:`server.logs`), ``hamlet rebuild-ratings`` (the
store), and ``hamlet match verify`` (the one seed-commitment formula); the other commands
load nothing of the server. Nothing imports ``cli`` (``tests/test_layering.py`` keeps this
true).

* :mod:`cli.main` — the argument parser, exit codes and the console script's ``main``;
  :mod:`cli.args_bot` — the arguments of ``bot ...``, ``challenge`` and ``invitations``;
* ``cli.commands*`` — one module per family of commands: each makes a call or two and renders;
  :mod:`cli.commands_local` runs things on this machine (``server``, ``up``, ``worker``,
  ``web``, ``rebuild-ratings``);
* :mod:`cli.console`, :mod:`cli.console_play` — rendering (rich tables, JSON), and
  :mod:`cli.safe_text`, which strips terminal escapes from what users wrote;
* :mod:`cli.credentials` — where the token and the CA certificate are found;
* :mod:`cli.embedded`, :mod:`cli.processes`, :mod:`cli.datalock` — ``hamlet up`` and
  ``hamlet server``: the processes they start and the lock on the data directory.
"""

import os as _os

# gRPC's C core reads its log level when grpc is first imported, and logs at absl's INFO level
# unless told otherwise: each failed TLS handshake would add its own line to the CLI's
# one-line messages (and to the server's logs). Before anything of ours imports grpc.
_os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
