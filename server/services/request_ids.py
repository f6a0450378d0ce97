"""Client request ids: a retried create returns the event its first attempt made.

A client that sends CreateTournament or StartSprt and gets no answer (a lost connection, a
deadline, a refused start) cannot know whether the event exists. With a client request id
the retry is safe: the event's id is derived from the caller and the request id, so the
retry finds the event the first attempt created instead of making a duplicate. The id is
the key itself, so this needs no column, holds across server restarts, and a second event
for the same request cannot be written (the primary key refuses it).

The caller is part of the derivation: two users with the same request id get two events,
and no user can name (or block) another's.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from server.services.errors import InvalidArgumentError

#: Longest accepted client request id (a UUID is 36 characters).
MAX_LENGTH = 64
_ALLOWED = re.compile(r"[A-Za-z0-9._:-]+")


def event_id(prefix: str, owner_id: int | None, client_request_id: str) -> str:
    """The id of the event ``owner_id`` creates with ``client_request_id``: ``prefix`` and
    10 hex digits, the shape of a random event id."""
    if len(client_request_id) > MAX_LENGTH or not _ALLOWED.fullmatch(client_request_id):
        raise InvalidArgumentError(
            f"client_request_id must be 1 to {MAX_LENGTH} characters of A-Z, a-z, 0-9 and "
            "'._:-' (a UUID fits); send a fresh one per request and the same one on its retries"
        )
    key = f"{owner_id if owner_id is not None else '-'}\0{client_request_id}".encode()
    return prefix + hashlib.sha256(key).hexdigest()[:10]


#: Locks striped by event id: concurrent retries of one request create one event.
_STRIPES = tuple(threading.Lock() for _ in range(64))


@contextmanager
def creating(event_id_: str) -> Iterator[None]:
    """Hold the lock of ``event_id_`` while looking it up and creating it (in this process;
    with several servers the primary key refuses the second insert)."""
    with _STRIPES[int(hashlib.sha256(event_id_.encode()).hexdigest()[:8], 16) % len(_STRIPES)]:
        yield
