"""Who is calling: the client address of a gRPC call, through the front or not.

With a front process (:mod:`server.front`) the public port is the front's; it forwards each
call to this server over a private Unix socket and names the original client in the
``x-hamlet-peer`` metadata. That name is believed only for calls that came in over a Unix
socket (the front's, in a directory only the server's user can enter); on any other
connection the metadata is ignored, so a network client cannot choose whose rate limits,
stream shares or log lines its calls count against.
"""

from __future__ import annotations

from typing import Any

import grpc

#: The metadata key the front sets to the client's own peer string.
PEER_KEY = "x-hamlet-peer"
#: Trailing metadata of a refusal for an authentication cool-down: ``address <seconds>``
#: or ``token <seconds>`` (the front refuses the same calls itself for that long).
COOLDOWN_KEY = "x-hamlet-cooldown"


def forwarded(metadata: Any) -> str | None:
    """The ``x-hamlet-peer`` value of ``metadata``, if any."""
    for key, value in metadata or ():
        if key == PEER_KEY:
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


def call_peer(context: grpc.ServicerContext) -> str:
    """The client's peer string (``ipv4:1.2.3.4:5``...): the front's word for it on the
    private socket, else the connection's own."""
    peer = getattr(context, "peer", None)
    own = str(peer()) if callable(peer) else "unknown"
    if own.startswith("unix:"):
        named = forwarded(context.invocation_metadata())
        if named:
            return named
    return own
