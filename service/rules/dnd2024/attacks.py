"""What conditions, nearness and range do to a dnd2024 attack roll (24-ATK-1..4, 24-VIS-7/8).

SRD 5.2 gives these as Advantage or Disadvantage on the roll, which never stack: one or more
of each cancel out (24-ATK-3). A cover answer lists each that applies as a ``Modifier``
(``applies_to`` ``attack_advantage`` or ``attack_disadvantage``, ``value`` 1), read from
``CONDITION_EFFECTS``; whoever rolls applies the net result. ``range_roll`` reads a weapon's
normal and long range (24-ATK-1) from ``RANGE_ROLL``; ``close_combat`` names the creatures
near a ranged attacker (24-ATK-2), since the scene does not say who is an enemy.

Units: distances in grid units (GEO-8), ranges in the scene's units.

References
----------
``docs/rules.md`` 24-ATK-1..4, 24-VIS-7, 24-VIS-8 (SRD 5.2 "Rules Glossary": Blinded,
Invisible, Prone, Unseen Attackers and Targets; "Playing the Game": Ranged Attacks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.engine.grids import (
    diagonal_rule,
    feet_to_units,
    space_distance_units,
    within_units,
)
from service.engine.scene import BuiltScene
from service.model import Token
from service.rules.base import Attack, Modifier

# ---------------------------------------------------------------------------- tables

ADVANTAGE, DISADVANTAGE = "attack_advantage", "attack_disadvantage"

#: The attack kinds that make an attack roll (an area or a spell with a save does not).
ROLLS = ("melee", "ranged")

#: How near "within 5 feet" is, in ft (24-ATK-2, 24-ATK-4).
NEAR_FT = 5.0


@dataclass(frozen=True)
class Effect:
    """What one condition of the attacker or the target does to the attack roll.

    ``near`` / ``far``: the roll's ``applies_to`` when the attacker is within ``NEAR_FT`` of
    the target or not (``None``: nothing); ``unless_sense``: a sense of the *other* creature
    that cancels the effect when it reaches the condition's owner (Blinded: its blindsight;
    Invisible: the attacker's truesight or see invisibility, 24-VIS-8).
    """

    rule: str
    near: str | None
    far: str | None
    reason: str
    unless_sense: tuple[str, ...] = ()


#: (whose condition, condition) -> its effect on the roll (24-VIS-7, 24-VIS-8, 24-ATK-4).
CONDITION_EFFECTS: dict[tuple[str, str], Effect] = {
    ("attacker", "blinded"): Effect(
        "24-VIS-7", DISADVANTAGE, DISADVANTAGE, "the attacker is Blinded", ("own blindsight",)
    ),
    ("target", "blinded"): Effect(
        "24-VIS-7", ADVANTAGE, ADVANTAGE, "the target is Blinded", ("target blindsight",)
    ),
    ("attacker", "invisible"): Effect(
        "24-VIS-8", ADVANTAGE, ADVANTAGE, "the attacker is Invisible", ("target sees invisible",)
    ),
    ("target", "invisible"): Effect(
        "24-VIS-8", DISADVANTAGE, DISADVANTAGE, "the target is Invisible", ("sees invisible",)
    ),
    ("attacker", "prone"): Effect("24-ATK-4", DISADVANTAGE, DISADVANTAGE, "the attacker is Prone"),
    ("target", "prone"): Effect(
        "24-ATK-4", ADVANTAGE, DISADVANTAGE, "the target is Prone (Advantage within 5 ft only)"
    ),
}

#: 24-ATK-1: where the target is against the weapon's ranges -> (roll, possible).
RANGE_ROLL: dict[str, tuple[str | None, bool]] = {
    "normal": (None, True),
    "long": (DISADVANTAGE, True),
    "beyond": (None, False),
}

#: Conditions that include Incapacitated (SRD 5.2 glossary): such a creature does not
#: hinder a ranged attacker (24-ATK-2).
INCAPACITATED = frozenset({"incapacitated", "paralyzed", "petrified", "stunned", "unconscious"})

# ---------------------------------------------------------------------------- rules


def _cancelled(unless: tuple[str, ...], attacker: Token, target: Token, distance: float) -> bool:
    """Whether a sense of ``unless`` reaches across ``distance`` (grid units)."""

    def reaches(rng: float) -> bool:
        return rng > 0 and within_units(distance, rng)

    checks = {
        "own blindsight": reaches(attacker.senses.blindsight),
        "target blindsight": reaches(target.senses.blindsight),
        "sees invisible": reaches(max(attacker.senses.truesight, attacker.senses.see_invisibility)),
        "target sees invisible": reaches(
            max(target.senses.truesight, target.senses.see_invisibility)
        ),
    }
    return any(checks[name] for name in unless)


def attack_modifiers(
    built: BuiltScene, attacker: Token | None, target: Token, attack: Attack, diagonals: str
) -> tuple[Modifier, ...]:
    """The Advantage and Disadvantage the pair's conditions give an attack roll.

    Only for an attack roll (``ROLLS``) with an attacker; read from ``CONDITION_EFFECTS``,
    the distance between the spaces by GEO-8 (``diagonals`` unless the scene sets a rule).
    """
    if attacker is None or attack.kind not in ROLLS:
        return ()
    grid = built.scene.grid
    rule = diagonal_rule(grid, diagonals)
    distance = space_distance_units(attacker, target, grid, built.token_boxes, rule)
    near = within_units(distance, feet_to_units(NEAR_FT, grid))
    out: list[Modifier] = []
    for (whose, condition), effect in CONDITION_EFFECTS.items():
        owner = attacker if whose == "attacker" else target
        if condition not in owner.conditions:
            continue
        if _cancelled(effect.unless_sense, attacker, target, distance):
            continue
        applies = effect.near if near else effect.far
        if applies is not None:
            out.append(Modifier(effect.rule, applies, 1, effect.reason))
    return tuple(out)


def close_combat(
    built: BuiltScene, attacker: Token, attack: Attack, diagonals: str
) -> tuple[str, ...]:
    """24-ATK-2: ids of the creatures within 5 ft of a ranged attacker, not Incapacitated.

    Any of them that is an enemy and sees the attacker gives the ranged attack roll
    Disadvantage; the scene does not say who is an enemy, so the answer names them.
    Hidden tokens count (a GM's answer; ``ignore_hidden`` is the GM's to send).
    """
    if attack.kind != "ranged":
        return ()
    grid = built.scene.grid
    rule = diagonal_rule(grid, diagonals)
    limit = feet_to_units(NEAR_FT, grid)
    return tuple(
        t.id
        for t in built.scene.tokens
        if t.id != attacker.id
        and not INCAPACITATED & set(t.conditions)
        and within_units(space_distance_units(attacker, t, grid, built.token_boxes, rule), limit)
    )


def close_combat_all(
    built: BuiltScene, pairs: Sequence[tuple[Token | None, Token]], attack: Attack, diagonals: str
) -> list[tuple[str, ...]]:
    """``close_combat`` of each pair's attacker (none without one), each attacker's once."""
    found: dict[str, tuple[str, ...]] = {}
    for attacker, _ in pairs:
        if attacker is not None and attacker.id not in found:
            found[attacker.id] = close_combat(built, attacker, attack, diagonals)
    return [() if a is None else found[a.id] for a, _ in pairs]


def range_band(distance: float, normal: float, long: float) -> str:
    """24-ATK-1: ``normal`` (within the normal range), ``long`` or ``beyond`` the long range.

    Parameters
    ----------
    distance, normal, long : float
        In the same units; ``long`` ≥ ``normal`` > 0 (a weapon without a long range gives
        ``long == normal``).

    Raises
    ------
    ValueError
        ``normal`` ≤ 0 or ``long`` < ``normal``.
    """
    if normal <= 0 or long < normal:
        raise ValueError(f"ranges must be 0 < normal <= long, not {normal:g}/{long:g}")
    if within_units(distance, normal):
        return "normal"
    return "long" if within_units(distance, long) else "beyond"


def range_roll(distance: float, normal: float, long: float) -> tuple[str | None, bool]:
    """24-ATK-1: the roll (``attack_disadvantage`` or ``None``) and whether it is possible."""
    return RANGE_ROLL[range_band(distance, normal, long)]
