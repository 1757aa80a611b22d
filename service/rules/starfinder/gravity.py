"""Gravity in the ``starfinder`` ruleset: the one rule its seed gives, prone in zero gravity.

The French seed names gravity once (SF-PRN-2, "À terre"): a creature knocked prone where
gravity is zero does not fall; it becomes weightless (off-kilter) instead of prone. Under any
other gravity, prone is prone (SF-PRN-1). The seed scales nothing by gravity (weight, falls,
jumps, ranges, speed, saves: those are the dnd5e seed's 5E-GRV-1..6), so the answer says only
what being knocked prone does at this gravity, and notes what the ruleset leaves out. The
modifiers are the cover answer's own (``service.rules.starfinder.cover``: ``PRONE``,
``WEIGHTLESS``), so ``/v1/cover`` and ``/v1/modifiers/gravity`` agree.

References
----------
docs/rules.md SF-PRN-1, SF-PRN-2; seed ``starfinder-fr_000`` "À terre".
"""

from __future__ import annotations

from dataclasses import dataclass

from service.rules.base import Modifier
from service.rules.starfinder.cover import PRONE, WEIGHTLESS

#: What the answer notes: the seed defines no other gravity rule.
ONLY_RULE = (
    "The starfinder seed gives gravity one rule (SF-PRN-2, prone in zero gravity); weight, "
    "falling, jumps, ranges, speed and saves under other gravities (5E-GRV-1..6) are the "
    "dnd5e seed's, which this ruleset does not define."
)


@dataclass(frozen=True)
class ZeroGravityResult:
    """What a gravity X means in the starfinder ruleset (``/v1/modifiers/gravity``).

    ``weightless``: X = 0. ``prone``: the modifiers of a creature knocked prone at this
    gravity: SF-PRN-2's weightless (no prone modifiers) at X = 0, else SF-PRN-1's (−4 melee
    attacks; +4 AC against ranged, −4 against melee attacks).
    """

    weightless: bool
    prone: tuple[Modifier, ...]
    rules: tuple[str, ...]
    notes: tuple[str, ...]


def zero_gravity(x: float) -> ZeroGravityResult:
    """The starfinder answer for gravity ``x`` (local gravity / standard, >= 0).

    Returns
    -------
    ZeroGravityResult
        At ``x == 0``: weightless, prone is ``WEIGHTLESS`` (SF-PRN-2); otherwise not
        weightless, prone is ``PRONE``'s modifiers (SF-PRN-1). Notes say that no other
        gravity rule applies in this ruleset.
    """
    if x == 0:
        return ZeroGravityResult(True, (WEIGHTLESS,), ("SF-PRN-2",), (ONLY_RULE,))
    return ZeroGravityResult(False, tuple(PRONE.values()), ("SF-PRN-1",), (ONLY_RULE,))
