"""A sample uploaded bot: plays a random legal action (seeded, so it is reproducible).

Upload this file as a bot version; the worker runs it in a sandbox with the SDK on its
path. Try it locally against the engine with ``hamlet bot play`` (see
docs/bot-authors.md).
"""

from __future__ import annotations

import random
from typing import Any

from bots.sdk import run

rng = random.Random(0)  # a bot may keep state between decisions: it lives for one match


def decide(observation: dict[str, Any], legal: list[dict[str, Any]]) -> int:
    """The index of the chosen action in ``legal``."""
    # Print to debug: it goes to stderr, and the worker keeps the tail of it.
    return rng.randrange(len(legal))


if __name__ == "__main__":
    run(decide)
