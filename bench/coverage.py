"""Coverage of the published intervals against planted strengths, per case, printed.

``python bench/coverage.py [--datasets N]`` (default 400 per case; about a minute or two on a
busy two-core machine). For each case of :data:`server.ratings.coverage.CASES` it simulates N
leaderboards, publishes each as the service does, and prints:

- coverage: the share of 95% intervals (every line but the anchor) that hold the true rating on
  the line's own scale (an open side reaches to infinity);
- open / provisional: the share of lines with an open side, and marked provisional;
- false order, per line: boards where two lines' own intervals do not overlap although the
  truth has them the other way round (or equal); joint: the same for the 95% simultaneous rank
  ranges; across groups: boards claiming any order between two groups;
- for the unbeaten case, the planted bot's own line: how often it is open, covered, provisional.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.ratings.coverage import CASES, measure


def main() -> None:
    """Print the coverage table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=400)
    args = parser.parse_args()
    print(f"{args.datasets} datasets per case; 95% intervals; shared luck 0.5 within blocks")
    header = (
        f"{'case':<40} {'games/bot':>9} {'coverage':>8} {'open':>5} {'prov.':>5} "
        f"{'median width':>12} {'false order':>11} {'joint':>6} {'across':>6}"
    )
    print(header)
    print("-" * len(header))
    for case in CASES:
        started = time.process_time()
        t = measure(case, args.datasets)
        width = float(np.median(t.widths)) if t.widths else float("nan")
        print(
            f"{case.name:<40} {case.games_a_bot():>9.1f} {t.coverage:>8.3f} "
            f"{t.open_lines / max(t.intervals, 1):>5.2f} "
            f"{t.provisional / max(t.intervals, 1):>5.2f} "
            f"{width:>12.0f} {t.boards_false_order / t.datasets:>11.3f} "
            f"{t.boards_false_joint / t.datasets:>6.3f} {t.boards_across_groups / t.datasets:>6.3f}"
            f"   ({time.process_time() - started:.0f} s CPU)"
        )
        if t.watched:
            print(
                f"{'  the unbeaten bot itself':<40} {'':>9} {t.watched_covered / t.watched:>8.3f} "
                f"{t.watched_open / t.watched:>5.2f} {t.watched_provisional / t.watched:>5.2f}"
            )


if __name__ == "__main__":
    main()
