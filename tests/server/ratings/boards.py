"""A published leaderboard with every edge at once, for the display tests: two groups that
never met, a bot never beaten, the anchor, and a seat advantage."""

from __future__ import annotations

from hamlet.v1 import arena_pb2
from server.elo import BotRating
from server.ratings.data import Result, pack
from server.ratings.fit import fit
from server.ratings.intervals import sandwich, seat_advantages, table
from server.servicers.convert_ranked import leaderboard
from server.services.leaderboards import Published, VersionLine, split_version


def _results() -> list[Result]:
    out = []
    main = ["random@1", "alpha@1", "beta@1", "gamma@1"]
    for i in range(12):  # the anchor's group: alpha mostly beats beta, beta gamma...
        a, b = main[i % 4], main[(i + 1 + i // 4) % 4]
        if a == b:
            continue
        winner = (a, b) if (i * 7) % 5 else (b, a)
        out += [Result(winner, (0, 1), f"m{i}"), Result(winner[::-1], (1, 0), f"m{i}")]
        out += [Result(winner, (1, 0), f"n{i}")] if i % 3 == 0 else []
    for i in range(4):  # ace never loses
        out.append(Result(("ace@1", main[i % 4]), (0, 1), f"ace{i}"))
    other = ["north@1", "south@1", "east@1"]  # a second group: never met the first
    for i in range(9):
        a, b = other[i % 3], other[(i + 1) % 3]
        out += [Result((a, b), (i % 2, 1 - i % 2), f"o{i}"), Result((b, a), (0, 1), f"o{i}")]
    return out


def published() -> Published:
    """The fitted board, as the service would publish it."""
    packed = pack(_results())
    result = fit(packed)
    cov = sandwich(packed, result)
    lines = []
    for line in table(packed, result, cov):
        name, version = split_version(line.bot)
        lines.append(VersionLine(name, version, line, ()))
    seats = tuple(seat_advantages(result, cov))
    return Published("toy", "toy-1", tuple(lines), seats, len(_results()), packed.blocks)


def board() -> arena_pb2.Leaderboard:
    """The same board as sent over gRPC, with a live Elo table where random sits at 1460."""
    live = [BotRating("alpha", 1580.0, 10), BotRating("random", 1460.0, 10)]
    return leaderboard("toy", live, published())
