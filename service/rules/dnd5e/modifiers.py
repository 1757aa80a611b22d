"""The modifiers a dnd5e scene's gravity and water give an attack (5E-GRV-3/4, 5E-UW-9)."""

from __future__ import annotations

from service.engine.scene import BuiltScene, in_water, local_gravity
from service.model import Token
from service.rules.base import Attack, Modifier
from service.rules.dnd5e.gravity import disadvantage_levels


def scene_modifiers(
    built: BuiltScene, attacker: Token | None, target: Token, attack: Attack
) -> tuple[Modifier, ...]:
    """Modifiers the scene's environment gives an attack (the dnd5e seed).

    - 5E-GRV-3: levels of disadvantage on weapon attacks for an attacker in gravity X >= 2
      whose Strength modifier is below X; 5E-GRV-4: levels on the target's Dexterity save.
    - 5E-UW-9: a ranged attack across a water surface (one in water, the other not) has
      disadvantage unless the attacker has blindsight or truesight.
    """
    out: list[Modifier] = []
    if attacker is not None and attack.kind in ("melee", "ranged"):
        x = local_gravity(built, attacker)
        if x >= 2:
            levels = disadvantage_levels(x, attacker.abilities.str)
            if levels:
                out.append(
                    Modifier(
                        "5E-GRV-3",
                        "attack_disadvantage_levels",
                        levels,
                        f"attacker in gravity {x:g}, Str {attacker.abilities.str:+d}",
                    )
                )
    x_t = local_gravity(built, target)
    if x_t >= 2:
        levels = disadvantage_levels(x_t, target.abilities.dex)
        if levels:
            out.append(
                Modifier(
                    "5E-GRV-4",
                    "dex_save_disadvantage_levels",
                    levels,
                    f"target in gravity {x_t:g}, Dex {target.abilities.dex:+d}",
                )
            )
    if attacker is not None and attack.kind in ("ranged", "spell"):
        if in_water(built, attacker) != in_water(built, target):
            senses = attacker.senses
            if not (senses.blindsight > 0 or senses.truesight > 0):
                out.append(
                    Modifier(
                        "5E-UW-9",
                        "attack_disadvantage_levels",
                        1,
                        "ranged attack across the water surface (refraction)",
                    )
                )
    return tuple(out)
