"""When a match's seed, action log and replay may be shown: one rule, used by every read.

A seed is dealt to several matches: every seat rotation of a duplicate block, and in a
head-to-head test both tables of a round (table 1 replays table 0's deal with the candidate
in the baseline's seat). While any of them is still open (pending, queued or running), the
seed, the log and the replay of a finished one would tell the bots still playing what chance
holds for them. So the rule is on the seed itself, whatever the format: **a match is
published once no match of its tournament with the same seed is open.**

Every read that reveals a seed, a log or a replay asks here: ``GetMatch`` (and its seat
view), ``GetReplay``, ``ListMatches``, ``WatchTournament``'s events, and through them the
web app and ``hamlet match verify``. Cost: one indexed query per match, or one per page or
batch of matches (the page's seeds only).
"""

from __future__ import annotations

from collections.abc import Sequence

from server.storage import MatchRecord, Store


def published(store: Store, match: MatchRecord) -> bool:
    """Whether ``match``'s seed, log and replay may be shown (no match sharing its seed in
    its tournament is open)."""
    return not store.open_seeds(match.tournament_id, (match.seed,))


def published_many(
    store: Store, tournament_id: str, matches: Sequence[MatchRecord]
) -> dict[str, bool]:
    """:func:`published` for each of ``matches`` (all of ``tournament_id``), by match id, in
    one query."""
    if not matches:
        return {}
    open_seeds = store.open_seeds(tournament_id, {m.seed for m in matches})
    return {m.match_id: m.seed not in open_seeds for m in matches}
