"""Round and turn sequencing (C.2, C.3), time, death and the rat (C.11, C.12, C.14).

Everything here is automatic (MV-DP-9) except the choice of the dying villager, which
:mod:`games.my_village.turn` asks as MV-DP-8 when there is more than one candidate.
"""

from __future__ import annotations

import enum
import random
from typing import TYPE_CHECKING

from games.chance import Chance, derive_seed
from games.my_village.data import (
    CHRONICLE_SP,
    CHURCH_BY_ID,
    MAX_ROUNDS,
    PLAGUE_DIVISOR,
    RAT_HALT,
    RAT_RED,
    RAT_TRACK,
    TIME_TRACK,
)
from games.my_village.player import USED

if TYPE_CHECKING:
    from games.my_village.state import MyVillageState


#: A die in the pool is one int: 0-5 for a white 1-6, 6-11 (``BLACK`` + face) for a black one.
BLACK = 6


class Phase(enum.StrEnum):
    """The decision being asked (spec C.18)."""

    DICE = "dice"  # MV-DP-1
    VALUE = "value"  # MV-DP-2
    MODE = "mode"  # MV-DP-3
    OVERSEER = "overseer"  # MV-DP-4
    PAYMENT = "payment"  # MV-DP-5
    WHITE = "white"  # MV-DP-6
    CHOICE = "choice"  # MV-DP-7
    DEATH = "death"  # MV-DP-8
    OVER = "over"


def occasion(chance: Chance, name: str, index: int = 0) -> random.Random:
    """The named chance stream ``(name, index)`` of ``chance``, for a one-off draw.

    It is the very generator ``chance.stream(name, index)`` would give (same
    :func:`derive_seed`), but it is not cached inside the :class:`Chance`: every stream kept
    there is copied by each ``clone()`` (a Mersenne state each, about 25 µs), and a game
    draws dozens of one-off streams (a shuffle per stack, a roll per round and per death).
    Seeds, duplicate fairness and ``reseeded`` behave exactly as with ``stream``."""
    return chance.once(name, index)


def roll(chance: Chance, name: str, index: int, count: int) -> list[int]:
    """``count`` die faces 0-5 from the named stream ``(name, index)`` of ``chance``.

    A one-off roll needs no generator: the stream's 64-bit derived seed, read as base-6
    digits, gives the faces (uniform up to a bias below 6**count / 2**64, i.e. below 1e-10
    for the 11 dice of a round) at a tenth of the cost of seeding a generator."""
    x = derive_seed(chance.seed, name, index)
    faces = []
    for _ in range(count):
        x, face = divmod(x, 6)
        faces.append(face)
    return faces


def start_round(st: MyVillageState) -> None:
    """MV-ROUND-1/-2: the preparation phase, then the first turn of the action phase."""
    st.round_no += 1
    if st.round_no > MAX_ROUNDS:
        # MV-GAP-16: engine safeguard, the game is abandoned and flagged as unfinished.
        st.unfinished = True
        st.phase = Phase.OVER
        return
    # MV-ROUND-5: whoever holds the hand is the first player of this round.
    st.first_player = st.hand_holder
    # MV-ROUND-2 (1): palm side up, 1 SP on it however many are already there (MV-BLK-6).
    st.hand_palm = True
    st.hand_sp += 1
    # MV-ROUND-2 (2): roll every die in use (B.3), from the stream ("dice", round).
    rules = st.rules
    faces = roll(st.chance, "dice", st.round_no, rules.white_dice + rules.black_dice)
    pool = faces[: rules.white_dice] + [BLACK + f for f in faces[rules.white_dice :]]
    pool.sort()
    st.pool = pool
    st.dice_taken = 0
    # MV-ROUND-3 (one turn each, clockwise) / MV-ROUND-4 (2 players: F, O, F, O).
    n = st.n
    st.turn_order = [(st.first_player + i) % n for i in range(n)] * rules.turns_per_player
    for v in st.villages:
        v.turns_taken = 0
    st.turn_idx = 0
    start_turn(st)


def start_turn(st: MyVillageState) -> None:
    """MV-TURN-1: a turn starts with step I (MV-DP-1)."""
    st.player = st.turn_order[st.turn_idx]
    st.phase = Phase.DICE
    st.dice = (0, 0)
    st.value = 0
    st.banner = ""
    st.choice_kind = ""
    st.white_used = []
    st.white_count = 0
    st.picks = []


def step_three(st: MyVillageState) -> None:
    """MV-TURN-1 step III: resolve pending deaths one by one (MV-GAP-15), then end the turn.

    A player without villagers takes a day labourer (MV-DAY-1); otherwise the DEATH decision
    is asked (the engine applies it itself when only one villager is left)."""
    v = st.villages[st.player]
    while v.pending_deaths > 0:
        if True in v.villagers:
            st.phase = Phase.DEATH
            return
        day_labourer(st)
    end_turn(st)


def end_turn(st: MyVillageState) -> None:
    """Close the turn; next player, or the end check after the action phase (MV-END-1)."""
    v = st.villages[st.player]
    v.turns_taken += 1
    v.new_customers.clear()
    if v.fields:
        v.fields = [f & ~USED for f in v.fields]
    st.turn_idx += 1
    if st.turn_idx < len(st.turn_order):
        start_turn(st)
    else:
        end_round(st)


def end_round(st: MyVillageState) -> None:
    """MV-END-1: the game ends after the action phase in which the coffins reach the
    threshold for the player count; the round is always finished first."""
    if coffins(st) >= st.rules.end_coffins:
        st.phase = Phase.OVER
    else:
        start_round(st)


def coffins(st: MyVillageState) -> int:
    """Filled coffin spaces: chronicle + anonymous graves + overflow (B.5)."""
    return sum(len(c) for c in st.chronicle) + len(st.graves)


def pay_time(st: MyVillageState, amount: int) -> None:
    """MV-TIME-2/-3: the current player pays time; bridge crossings add pending deaths."""
    st.villages[st.player].pay_time(amount, TIME_TRACK)


def bury(st: MyVillageState, profession: int) -> None:
    """MV-DEATH-1..3, -5: the villager of ``profession`` dies (reaper back on the bridge)."""
    p = st.player
    v = st.villages[p]
    v.pending_deaths -= 1
    v.villagers[profession] = False  # MV-DEATH-3: the area is inactive until replaced
    spaces = st.chronicle[profession]
    if len(spaces) < len(CHRONICLE_SP):
        # MV-DEATH-2: the first free chronicle space of the profession, with its SP.
        v.sp_tree += CHRONICLE_SP[len(spaces)]
        spaces.append(p)
    else:
        st.graves.append(p)  # lowest free anonymous grave, or beside them (MV-DEATH-4)
    roll_rat(st)


def day_labourer(st: MyVillageState) -> None:
    """MV-DAY-1: a death with no villager: a day labourer tile and an anonymous grave."""
    p = st.player
    v = st.villages[p]
    v.pending_deaths -= 1
    v.day_labourers += 1
    st.graves.append(p)
    roll_rat(st)


def roll_rat(st: MyVillageState) -> None:
    """MV-DEATH-5, MV-RAT-1..4: roll the grey die and move the rat; it halts on the first
    grey or red space it enters; a red space is a plague."""
    pips = roll(st.chance, "rat", st.rat_rolls, 1)[0] + 1  # the n-th roll's own stream
    st.rat_rolls += 1
    pos = st.rat
    for _ in range(pips):
        pos = (pos + 1) % RAT_TRACK
        if pos in RAT_HALT:
            break
    st.rat = pos
    if pos in RAT_RED:
        plague(st)


def plague(st: MyVillageState) -> None:
    """MV-RAT-3: everyone without the Church of Salvation loses half the story tree's SP,
    rounded down (R-30); main house and hand SP are safe."""
    st.plagues += 1
    for v in st.villages:
        if v.church and CHURCH_BY_ID[v.church].plague_immune:
            continue  # MV-CH-3
        v.sp_tree -= v.sp_tree // PLAGUE_DIVISOR
