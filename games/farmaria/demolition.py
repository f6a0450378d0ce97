"""Demolishing a stable (FM-FARM-6) and relocating its animals (FM-DEC-10).

The Greek rulebook (p.4) lets a player demolish a stable "at any time"
(«οποιαδήποτε στιγμή»). In the one-decision model (FM-DEC-1) the engine offers it where it
can change the outcome:

* in the owner's 3a (FM-DEC-7 item 6), as the spec does;
* in the owner's 4a payment decision (``pay_4a``, FM-DEC-21) while a stable still adds to
  the amount due (its tax under Tax, plus its upkeep): demolishing first saves that charge.

Elsewhere it would change nothing the owner could not do in 3a, or nothing at all (see
``docs/rules/farmaria-coverage.md``). The demolition's relocation decisions return to the decision
kind it interrupted (``s.reloc_to``); the relocating player is ``s.actor`` throughout.
"""

from __future__ import annotations

from games.core import Action
from games.farmaria import data as d
from games.farmaria import market
from games.farmaria.actions import Demolish, Place, SellInstead, demolish, place
from games.farmaria.farm import CTYPE, add_card, farm_changed, locations_for
from games.farmaria.flow import back_to_3a
from games.farmaria.state import ACTION_3A, RELOCATE, FarmariaState

SELL_INSTEAD = SellInstead()


def options(s: FarmariaState, p: int) -> list[Action]:
    """``demolish(stable)`` for each stable p owns, field by field (FM-DEC-7 item 6 order)."""
    return [demolish(fi, st) for fi, f in enumerate(s.farm[p]) for st in range(len(f.stables))]


def demolish_stable(s: FarmariaState, p: int, a: Demolish, resume: int) -> None:
    """FM-FARM-6: the stable leaves the game (no refund); its animals are relocated one at a
    time, then play resumes at decision kind ``resume`` (``ACTION_3A`` or ``PAY_4A``)."""
    f = s.farm[p][a.field]
    s.removed.append(f.stables.pop(a.stable))
    s.reloc = f.inside.pop(a.stable)
    s.reloc_to = resume
    s.reloc_field = a.field
    s.actor = p
    next_relocation(s)


def next_relocation(s: FarmariaState) -> None:
    if s.reloc:
        s.dec = RELOCATE
        return
    s.reloc_field = -1
    farm_changed(s, s.actor)  # relocated animals may complete a field (FM-END-1(c))
    if s.reloc_to == ACTION_3A:
        back_to_3a(s)
    else:  # the 4a payment, recomputed without the stable (FM-MONEY-1 step 2)
        from games.farmaria import accounting  # late: accounting imports this module

        accounting.resume_4a(s)


def legal_relocate(s: FarmariaState) -> list[Action]:
    """FM-DEC-10: each legal location in another field of the player, plus ``sell``.

    The Greek (p.4): «θα πρέπει ο παίκτης να τα μετακινήσει σε άλλο Χωράφι του, αλλιώς θα
    πρέπει να τα πουλήσει» -- to *another* field, otherwise sold (FM-AMB-46). With no other
    field that has room, ``sell`` is the only option and the engine applies it."""
    locs = locations_for(s.farm[s.actor], CTYPE[s.reloc[0]])
    out: list[Action] = [place(fi, st) for fi, st in locs if fi != s.reloc_field]
    out.append(SELL_INSTEAD)
    return out


def apply_relocate(s: FarmariaState, a: Action) -> None:
    p = s.actor
    c = s.reloc.pop(0)
    if isinstance(a, Place):
        add_card(s.farm[p], c, a.field, a.stable)
    else:
        # 4a sales are always at the emergency price (FM-AMB-14), relocation sales included.
        merchant = s.reloc_to == ACTION_3A and bool(s.effective >> d.EV_MERCHANT & 1)
        col = "merchant" if merchant else "emergency"
        s.wallet[p] += getattr(d.GOODS[CTYPE[c]], col)
        market.to_cm(s, c, p)
    next_relocation(s)
