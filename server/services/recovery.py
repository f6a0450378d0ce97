"""How long a match can wait, at most, because of a fault: the recovery bound.

Every way a match's message can go missing ends in a re-send by the reaper, which runs
every ``reaper`` seconds:

- the message is lost while the match is QUEUED (the broker dropped it, a send failed, a
  task's retries ran out before its claim reached the server): re-sent once the match has
  been queued ``queue_timeout`` seconds, so within ``queue_timeout + reaper``;
- the broker restarted empty, or a send failed: every queued match is re-sent on the first
  beat after the broker answers again, so within ``reaper`` of its return;
- the worker holding the claim died (or its task gave up reporting): the lease ends
  ``lease`` seconds after the claim or its last renewal and the match is queued again on the
  next beat, so within ``lease + reaper`` of the worker's death, and then as a queued match.
  This holds for every block size and match length: a block's claims are leased for one
  lease each (never the lease times the matches of the block), and a live worker renews the
  claims of its unreported matches before each match and every quarter lease meanwhile
  (``RenewClaims``; :mod:`workers.leases`), so a long block keeps them and a dead one holds
  them one lease at most;
- the worker lost the broker (Redis restarted): its running block is not cancelled, it is
  played to the end and reported over gRPC (which does not need the broker), so no claim
  waits out a lease; its message is redelivered or re-sent and finds the matches final.

None of these re-sends counts an attempt; attempts are counted at claims. So a match
whose every message is lost is claimed again at the latest ``bound()`` seconds after its
last claim or send.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RecoveryBound:
    """The server's timing settings, in seconds."""

    lease: float
    queue_timeout: float
    reaper: float

    def lost_message(self) -> float:
        """A queued match's lost message is re-sent at most this long after it was sent."""
        return self.queue_timeout + self.reaper

    def dead_worker(self) -> float:
        """A claimed match whose worker died is queued again at most this long after the
        worker's last renewal (or the claim), whatever the size of its block (and then sent,
        as a queued match is)."""
        return self.lease + self.reaper

    def broker_back(self) -> float:
        """After the broker answers again, every queued match is re-sent within this."""
        return self.reaper

    def bound(self) -> float:
        """The longest a match waits for a fault before its message is sent again."""
        return max(self.lost_message(), self.dead_worker())
