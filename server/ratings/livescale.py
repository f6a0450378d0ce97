"""One scale for every rating a person reads.

The published table puts the built-in ``random`` at 1000 (or, without it, the mean at 1500).
The live Elo (what pairings use) starts every bot at 1500 and is zero-sum, so its mean over the
bots that played stays at 1500 while ``random`` drifts wherever its results take it. Shown
raw, the same bot would read about 1500 in its history and about 1000 on the leaderboard.

Every live Elo a person reads is therefore shifted by one offset: ``1000 - (random's live
Elo)`` when the published table is anchored on ``random`` (it has rated games and has both won
and lost: else its strength is unbounded and the table is anchored on the mean), at the time of
the rating (a history point uses random's Elo after the same match); else 0, which already puts
the mean at 1500 as the published table does. Differences between bots are unchanged; pairings
use the raw values.
"""

from __future__ import annotations

from collections.abc import Mapping

from server.ratings.intervals import ANCHOR_BOT, ANCHOR_RATING


def offset(live: Mapping[str, float], anchored: bool = True) -> float:
    """What to add to each live Elo of one table (bot name -> live Elo) to show it, when the
    published table is (``anchored``) or is not anchored on ``random``."""
    anchor = live.get(ANCHOR_BOT)
    return 0.0 if anchor is None or not anchored else ANCHOR_RATING - anchor
