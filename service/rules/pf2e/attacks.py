"""What prone, flanking, reach and range increments do to a pf2e Strike (PF2-ATK-1..4).

Every number is a row of a table: the range penalty per increment and the last increment
(``RANGE_PENALTY``, PF2-ATK-1), reach by size (``REACH_FT``, PF2-ATK-2), the off-guard
penalty of flanking (``OFF_GUARD_AC``, PF2-ATK-3), the prone condition's penalties
(``PRONE``, PF2-ATK-4). A cover answer carries the prone rows as ``Modifier``s
(circumstance penalties: the worst of each kind applies, so two sources of off-guard do not
add up).

Units: distances and ranges in ft.

References
----------
``docs/rules.md`` PF2-ATK-1..4 (Pathfinder Player Core: "Range", "Reach", "Flanking";
conditions Off-Guard and Prone).
"""

from __future__ import annotations

import math

from service.engine.tolerances import SQUARE_COUNT_TOL
from service.model import Token
from service.rules.base import Attack, Modifier

# ---------------------------------------------------------------------------- tables

#: PF2-ATK-1: circumstance penalty per range increment beyond the first, and the last
#: increment a ranged Strike can reach (the published maximum: six, −10).
RANGE_PENALTY_PER_INCREMENT = -2
LAST_INCREMENT = 6

#: PF2-ATK-2: natural reach in ft by size, for a tall and for a long creature.
REACH_FT: dict[str, tuple[float, float]] = {
    "tiny": (0.0, 0.0),
    "small": (5.0, 5.0),
    "medium": (5.0, 5.0),
    "large": (10.0, 5.0),
    "huge": (15.0, 10.0),
    "gargantuan": (20.0, 15.0),
}

#: PF2-ATK-3: off-guard, a circumstance penalty to AC (flanked, prone, hidden from ...).
OFF_GUARD_AC = -2

#: PF2-ATK-4: the prone condition: whose it is -> (applies_to, value, reason) rows.
PRONE: dict[str, tuple[tuple[str, int, str], ...]] = {
    "target": (("ac", OFF_GUARD_AC, "the target is prone: off-guard"),),
    "attacker": (("attack", -2, "the attacker is prone"),),
}

#: The attack kinds that are Strikes or attack rolls (an area asks for a save).
ROLLS = ("melee", "ranged", "spell")

# ---------------------------------------------------------------------------- rules


def increments(distance_ft: float, increment_ft: float) -> int:
    """How many range increments ``distance_ft`` lies in (1: the first), float noise forgiven.

    Raises
    ------
    ValueError
        ``increment_ft`` ≤ 0 or a negative distance.
    """
    if increment_ft <= 0 or distance_ft < 0:
        raise ValueError(f"need increment > 0 and distance >= 0, not {increment_ft}/{distance_ft}")
    return max(1, math.ceil(distance_ft / increment_ft * (1 - SQUARE_COUNT_TOL)))


def range_penalty(distance_ft: float, increment_ft: float) -> int | None:
    """PF2-ATK-1: the range penalty to the attack roll, ``None`` past the last increment."""
    k = increments(distance_ft, increment_ft)
    if k > LAST_INCREMENT:
        return None
    return RANGE_PENALTY_PER_INCREMENT * (k - 1)


def natural_reach_ft(size: str, long: bool = False) -> float:
    """PF2-ATK-2: natural reach in ft of a creature of ``size`` (tall unless ``long``).

    A token's own ``reach`` (scene units, GEO-8) replaces this where the scene gives one.

    Raises
    ------
    KeyError
        ``size`` is not one of ``service.model.SIZES``.
    """
    tall, lengthwise = REACH_FT[size]
    return lengthwise if long else tall


def flanking_modifier(flanked: bool) -> tuple[Modifier, ...]:
    """PF2-ATK-3: a flanked target is off-guard to the flankers' melee attacks."""
    if not flanked:
        return ()
    return (Modifier("PF2-ATK-3", "ac", OFF_GUARD_AC, "flanked: off-guard"),)


def prone_modifiers(attacker: Token | None, target: Token, attack: Attack) -> tuple[Modifier, ...]:
    """PF2-ATK-4: the prone rows (``PRONE``) of the pair's prone creatures, for a roll."""
    if attack.kind not in ROLLS:
        return ()
    out: list[Modifier] = []
    for whose, token in (("attacker", attacker), ("target", target)):
        if token is not None and "prone" in token.conditions:
            out.extend(Modifier("PF2-ATK-4", *row) for row in PRONE[whose])
    return tuple(out)
