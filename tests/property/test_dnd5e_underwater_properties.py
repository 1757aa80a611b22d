"""Hypothesis properties of ``service.rules.dnd5e.underwater`` (5E-UW-1, 5E-UW-2, 5E-UW-9).

Refraction never removes a disadvantage, senses and radiant damage never add one, there is
no roll after an automatic miss, and a swimming speed never adds a disadvantage.
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from service.rules.dnd5e import underwater as uwr

WEAPON_NAMES = sorted(w.name for w in uwr.WEAPONS.values())


@given(
    st.sampled_from(["melee", "ranged"]),
    st.sampled_from(WEAPON_NAMES),
    st.floats(min_value=0, max_value=100, allow_nan=False),
    st.floats(min_value=0, max_value=700, allow_nan=False),
    st.floats(min_value=0, max_value=60, allow_nan=False),
    st.booleans(),
)
@example("ranged", "light crossbow", 0.0, 40.0, 0.0, True)
def test_underwater_attack_properties(kind, weapon, swim, distance, sight, radiant):
    kw = {"distance": distance, "normal_range": 150, "long_range": 600}
    kw["damage_types"] = ["radiant"] if radiant else ["piercing"]
    dry = uwr.underwater_attack(kind, weapon, swim_speed=swim, **kw)
    wet = uwr.underwater_attack(kind, weapon, swim_speed=swim, crosses_surface=True, **kw)
    # 5E-UW-9 never removes a disadvantage; senses and radiant never add one.
    assert wet.auto_miss == dry.auto_miss
    assert wet.disadvantage >= dry.disadvantage
    seeing = uwr.underwater_attack(
        kind, weapon, swim_speed=swim, crosses_surface=True, senses_truesight=sight + 1, **kw
    )
    assert seeing.disadvantage == dry.disadvantage
    # No roll after an automatic miss; a swimming speed never adds a disadvantage.
    assert not (dry.auto_miss and dry.disadvantage)
    assert dry.auto_miss == (kind == "ranged" and distance > 150)
    no_swim = uwr.underwater_attack(kind, weapon, swim_speed=0, **kw)
    assert dry.disadvantage <= no_swim.disadvantage
