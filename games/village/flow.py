"""Game flow: setup, rounds and seeding, the end of an action and of a turn, deaths,
the end trigger and the last turns (V-SET, V-RND, V-TRN-6, V-DTH, V-END)."""

from __future__ import annotations

from itertools import chain, compress, repeat
from typing import TYPE_CHECKING

from games.village import data as vd
from games.village.state import DEATH, FREE, TURN

if TYPE_CHECKING:
    from games.village.state import VillageState


def setup(s: VillageState) -> None:
    """V-SET-5: shuffle the customer pile and fill the market; then round 1 (V-SET-12)."""
    pile = list(range(len(vd.CUSTOMERS)))
    s.once("customers", 0).shuffle(pile)
    s.pile = pile
    # Engine convention: stalls in use first, then Q1..Q5; the pile's top is its end.
    for i in range(vd.STALLS_IN_USE[s.n]):
        s.stalls[i] = pile.pop()
    for j in range(vd.QUEUE):
        s.queue[j] = pile.pop()
    start_round(s)


def start_round(s: VillageState) -> None:
    """V-RND-1: starting player change (V-NSP-2), seeding (V-RND-2), first turn."""
    s.round_no += 1
    if s.nsp >= 0:
        s.start = s.nsp
        s.nsp = -1
    seed_board(s)
    s.active = s.start
    if s.board_cubes == 0:
        # Engine convention (gap): a round whose seeding places no cube at all could never
        # end; the game ends as if triggered, with the final mass (see docs).
        s.triggered = True
        s.last_built = True
        s.last_queue = []
        from games.village.mass import start_mass

        start_mass(s, final=True)
        return
    s.phase = TURN


def seed_board(s: VillageState) -> None:
    """V-RND-2/3: fill the green bag from the supply, then draw onto the spaces in order."""
    add = vd.BAG_ADD_PER_COLOUR[s.n]
    sup = s.sup_cubes
    bag = s.bag
    for c in vd.INFLUENCE:
        k = add if sup[c] >= add else sup[c]
        sup[c] -= k
        bag[c] += k
    bag[vd.PLAGUE] += sup[vd.PLAGUE]
    sup[vd.PLAGUE] = 0
    getrandbits = s.once("seeding", s.round_no).getrandbits
    # The bag as a colour-sorted list of cubes: cube r is the colour that draw r picks by
    # cumulative counts, and popping it keeps the list sorted.
    cubes = list(chain.from_iterable(map(repeat, range(5), bag)))
    in_bag = len(cubes)
    spaces = s.spaces
    for sp in _SEED_ORDER[s.n]:
        total = len(cubes)
        if total == 0:
            break
        k = total.bit_length()
        r = getrandbits(k)
        while r >= total:
            r = getrandbits(k)
        # r is exactly rng.randrange(total): CPython's _randbelow, inlined (it runs for
        # every cube of every round; the same draws from the same stream).
        spaces[sp][cubes.pop(r)] += 1
    for c in range(5):
        bag[c] = cubes.count(c)
    s.board_cubes += in_bag - len(cubes)
    s._take = None


# The space of each cube drawn in seeding, in draw order (V-RND-2, G-40), per player count.
_SEED_ORDER = {
    n: tuple(sp for sp, need in enumerate(per_space) for _ in range(need))
    for n, per_space in vd.CUBES_PER_SPACE.items()
}


def begin_turn(s: VillageState) -> None:
    """A normal turn, or a free last action once the board is empty (V-END-3)."""
    s.phase = TURN if s.board_cubes else FREE


def end_action(s: VillageState) -> None:
    """V-TRN-6 / V-DTH-1: the action is over; resolve the active player's deaths."""
    p = s.active
    if s.due[p]:
        s.death_player = p
        s.death_in_market = False
        resolve_deaths(s)
    elif s.board_cubes and not s.triggered:
        # end_turn()'s common case, inlined (this runs after nearly every action).
        s.active = (p + 1) % s.n
        s.phase = TURN
    else:
        end_turn(s)


def death_candidates(s: VillageState, p: int) -> tuple[int, list[int]]:
    """V-DTH-2: (generation index, locations) of p's lowest visible living members."""
    m = s.mem[p]
    end = len(vd.VISIBLE_LOCS) * 4
    for g in range(4):
        # m[g:end:4] is generation g at each visible location, in location order.
        locs = list(compress(vd.VISIBLE_LOCS, m[g:end:4]))
        if locs:
            return g, locs
    return -1, []


def resolve_deaths(s: VillageState) -> None:
    """Resolve every death due to ``s.death_player`` (G-32), asking V-DP-17 when needed."""
    p = s.death_player
    while s.due[p] > 0:
        _g, locs = death_candidates(s, p)
        if not locs:
            s.due[p] = 0  # V-DTH-3 / G-13: the death lapses
            break
        if len(locs) == 1:
            kill(s, p, locs[0])
            continue
        s.phase = DEATH
        return
    after_deaths(s)


def after_deaths(s: VillageState) -> None:
    """Continue where the deaths interrupted: the market day, or the end of the turn."""
    if s.death_in_market:
        from games.village.market import next_seller

        next_seller(s)
    else:
        end_turn(s)


def kill(s: VillageState, p: int, loc: int) -> None:
    """V-DTH-4..7: the lowest-generation member at ``loc`` dies and is laid down."""
    m = s.mem[p]
    g = 0
    while not m[loc * 4 + g]:
        g += 1
    m[loc * 4 + g] -= 1
    s.due[p] -= 1
    cat = vd.LOC_CATEGORY[loc]
    filled = False
    if s.chron_free[cat]:
        s.chron_free[cat] -= 1
        m[vd.CHRONICLE * 4 + g] += 1
        s.chron_cat[p][cat] += 1
        filled = not any(s.chron_free)
    elif s.graves_free:
        s.graves_free -= 1
        m[vd.GRAVE * 4 + g] += 1
        filled = s.graves_free == 0
    else:
        m[vd.REMOVED * 4 + g] += 1  # V-DTH-5 / V-END-6
    if filled and not s.triggered:
        # V-END-1 / G-33: the owner of the member laid on the last space triggers the end.
        s.triggered = True
        s.trigger_player = p


def do_die(s: VillageState, code: tuple[object, ...]) -> None:
    """V-DP-17 option: the member at the chosen location dies; continue resolving."""
    loc = code[1]
    assert isinstance(loc, int)
    kill(s, s.death_player, loc)
    resolve_deaths(s)


def end_turn(s: VillageState) -> None:
    """V-TRN-6: end check (last turns, V-END-2/5), then round end (V-RND-4)."""
    n = s.n
    if s.triggered:
        if not s.last_built:
            s.last_built = True
            a = s.active
            if s.trigger_player == a:
                # V-END-2 (and V-END-5, trigger by the market-day starter): the others.
                s.last_queue = [(a + i) % n for i in range(1, n)]
            else:
                # V-END-5: triggered by another player during a's market day: everyone,
                # starting after a and ending with a.
                s.last_queue = [(a + i) % n for i in range(1, n + 1)]
        if s.last_queue:
            s.active = s.last_queue.pop(0)
            begin_turn(s)
            return
        from games.village.mass import start_mass

        start_mass(s, final=True)  # V-END-4, V-END-7
        return
    if s.board_cubes == 0:
        from games.village.mass import start_mass

        start_mass(s, final=False)  # V-RND-4
        return
    s.active = (s.active + 1) % n
    s.phase = TURN
