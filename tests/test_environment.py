"""Environment modifier tables: 5E-GRV-1..6, 5E-UW-1..9, PV-RNG-1..2, PV-MEL-1..2.

Expected values are worked by hand from shared/RULES.md and the seeds (dnd5e-zh_001
"水下战斗" / "异常重力战斗", pf2e-variant-en_003 "Range Bands" / "Ranged Attacks"), not
from the code. Rows marked "decision" pin a reading documented in service/environment.py.
"""

from __future__ import annotations

import math

import pytest

from service import environment as env
from service.errors import RulesError

# A creature of the handed case grav-3: Str +1, Dex +2, Con +4, speed 30 ft, longbow 150/600.
CREATURE = {"str_mod": 1, "dex_mod": 2, "con_mod": 4, "speed_ft": 30}
LONGBOW = {"normal_range": 150, "long_range": 600}


def grav(x, **kw):
    args = {**CREATURE, **LONGBOW, **kw}
    return env.gravity_modifiers(x, **args)


# --------------------------------------------------------------------------------------
# Abnormal gravity
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "weight", "cap", "jump", "normal", "long"),
    [
        pytest.param(0, 0, "0d6", 10, 150, 6000, id="5E-GRV-6 X=0 weightless: x10 caps"),
        pytest.param(0.5, 0.5, "10d6", 2, 150, 1200, id="5E-GRV-1 X=0.5 normal range unscaled"),
        pytest.param(1, 1, "20d6", 1, 150, 600, id="5E-GRV-1 X=1 standard"),
        pytest.param(2, 2, "40d6", 0.5, 150, 300, id="5E-GRV-1 X=2"),
        pytest.param(3, 3, "60d6", 1 / 3, 150, 200, id="5E-GRV-1 X=3 handed grav-3"),
        pytest.param(
            9.99, 9.99, "200d6", 1 / 9.99, 600 / 9.99, 600 / 9.99, id="5E-GRV-1 X=9.99 199.8 dice"
        ),
        pytest.param(10, 10, "200d6", 0.1, 60, 60, id="5E-GRV-1 X=10 normal capped at max"),
        pytest.param(12, 12, "240d6", 1 / 12, 50, 50, id="5E-GRV-1 X=12"),
        pytest.param(0.05, 0.05, "1d6", 10, 150, 6000, id="5E-GRV-1 X=0.05 jump capped at x10"),
    ],
)
def test_gravity_any_x(x, weight, cap, jump, normal, long):
    res = grav(x)
    assert res.weight_multiplier == pytest.approx(weight)
    assert res.fall_distance_multiplier == pytest.approx(weight)
    assert res.fall_damage_cap == cap
    assert res.jump_multiplier == pytest.approx(jump)
    assert res.range_multiplier == pytest.approx(jump)
    assert res.weapon.normal_range == pytest.approx(normal)
    assert res.weapon.long_range == pytest.approx(long)


@pytest.mark.parametrize(
    ("x", "cap"),
    [
        pytest.param(0.02, "0d6", id="decision 20d6 x 0.02 = 0.4 die rounds to 0d6"),
        pytest.param(0.025, "1d6", id="decision 20d6 x 0.025 = 0.5 die rounds up"),
        pytest.param(0.35, "7d6", id="decision 20d6 x 0.35 = 7 dice exactly"),
        pytest.param(1.5, "30d6", id="5E-GRV-1 20d6 x 1.5"),
        pytest.param(2.55, "51d6", id="decision 20d6 x 2.55 = 51 dice"),
        pytest.param(2.56, "51d6", id="decision 20d6 x 2.56 = 51.2 dice rounds down"),
    ],
)
def test_fall_damage_cap_rounding(x, cap):
    assert grav(x).fall_damage_cap == cap


@pytest.mark.parametrize(
    ("x", "speed", "expected", "can_dash"),
    [
        pytest.param(1.99, 30, 30, True, id="5E-GRV-2 X<2: no speed loss, Dash allowed"),
        pytest.param(2, 30, 20, False, id="5E-GRV-2 X=2: -10 ft, no Dash"),
        pytest.param(3, 30, 15, False, id="5E-GRV-2 X=3: -15 ft (handed grav-3)"),
        pytest.param(2.5, 40, 27.5, False, id="5E-GRV-2 X=2.5: -12.5 ft, not rounded"),
        pytest.param(2.2, 30, 19, False, id="5E-GRV-2 X=2.2: -11 ft"),
        pytest.param(4, 25, 5, False, id="5E-GRV-2 X=4: 25-20 = 5 ft"),
        pytest.param(9.99, 30, 5, False, id="5E-GRV-2 speed floor 5 ft"),
        pytest.param(12, 30, 5, False, id="5E-GRV-2 X=12: floor 5 ft (handed grav-12)"),
        pytest.param(12, 5, 5, False, id="5E-GRV-2 speed 5 keeps 5"),
        pytest.param(3, 0, 0, False, id="5E-GRV-2 speed 0 is not raised to 5"),
        pytest.param(12, 3, 3, False, id="5E-GRV-2 already slower than 5 ft keeps its speed"),
    ],
)
def test_gravity_speed_and_dash(x, speed, expected, can_dash):
    res = grav(x, speed_ft=speed)
    assert res.speed == pytest.approx(expected)
    assert res.can_dash is can_dash


@pytest.mark.parametrize(
    ("x", "str_mod", "grounded"),
    [
        pytest.param(1.9, -5, False, id="5E-GRV-2 X<2 never grounded"),
        pytest.param(2, 1, True, id="5E-GRV-2 Str +1 below X=2: grounded"),
        pytest.param(2, 2, False, id="5E-GRV-2 Str +2 not below X=2"),
        pytest.param(3, 1, True, id="5E-GRV-2 handed grav-3 grounded"),
        pytest.param(2.5, 2, True, id="5E-GRV-2 Str +2 below X=2.5"),
        pytest.param(2.5, 3, False, id="5E-GRV-2 Str +3 above X=2.5"),
        pytest.param(12, 11, True, id="5E-GRV-2 Str +11 below X=12"),
    ],
)
def test_gravity_grounded(x, str_mod, grounded):
    assert grav(x, str_mod=str_mod).grounded is grounded


@pytest.mark.parametrize(
    ("x", "mod", "rounding", "levels"),
    [
        pytest.param(1.99, -5, "up", 0, id="5E-GRV-3 X<2: no levels"),
        pytest.param(2, 2, "up", 0, id="5E-GRV-3 mod equal to X: none"),
        pytest.param(2, 5, "up", 0, id="5E-GRV-3 mod above X: none (never negative)"),
        pytest.param(3, 1, "up", 2, id="5E-GRV-3 X=3 Str+1: 2 levels"),
        pytest.param(3, 2, "up", 1, id="5E-GRV-4 X=3 Dex+2: 1 level"),
        pytest.param(3, 4, "up", 0, id="5E-GRV-4 X=3 Con+4: 0"),
        pytest.param(12, -1, "up", 13, id="5E-GRV-3 X=12 Str-1: 13 levels"),
        pytest.param(2.5, 2, "up", 1, id="decision X=2.5 mod+2: a started point counts"),
        pytest.param(2.5, 2, "down", 0, id="decision option down: whole points only"),
        pytest.param(2.5, 0, "up", 3, id="decision X=2.5 mod 0 up: 3"),
        pytest.param(2.5, 0, "down", 2, id="decision X=2.5 mod 0 down: 2"),
        pytest.param(9.99, 1, "up", 9, id="decision X=9.99 Str+1: ceil(8.99)=9"),
        pytest.param(9.99, 1, "down", 8, id="decision X=9.99 Str+1 down: 8"),
    ],
)
def test_disadvantage_levels(x, mod, rounding, levels):
    assert env.disadvantage_levels(x, mod, rounding) == levels


@pytest.mark.parametrize(
    ("x", "attack", "saves"),
    [
        pytest.param(0, 0, (0, 0, 0), id="5E-GRV-3/4 X=0: none"),
        pytest.param(1, 0, (0, 0, 0), id="5E-GRV-3/4 X=1: none"),
        pytest.param(2, 1, (1, 0, 0), id="5E-GRV-3/4 X=2"),
        pytest.param(3, 2, (2, 1, 0), id="5E-GRV-3/4 X=3 handed grav-3"),
        pytest.param(9.99, 9, (9, 8, 6), id="5E-GRV-3/4 X=9.99"),
        pytest.param(10, 9, (9, 8, 6), id="5E-GRV-3/4 X=10"),
        pytest.param(12, 11, (11, 10, 8), id="5E-GRV-3/4 X=12"),
    ],
)
def test_gravity_levels(x, attack, saves):
    res = grav(x)
    assert res.attack_disadvantage_levels == attack
    levels = res.save_disadvantage_levels
    assert (levels.str, levels.dex, levels.con) == saves


@pytest.mark.parametrize(
    ("x", "dc", "damage"),
    [
        pytest.param(3, None, None, id="5E-GRV-5 X=3: no entry save"),
        pytest.param(9.99, None, None, id="5E-GRV-5 X=9.99: no entry save"),
        pytest.param(10, 20, "20d6", id="5E-GRV-5 X=10: DC 20, 20d6"),
        pytest.param(12, 24, "24d6", id="5E-GRV-5 X=12: DC 24, 24d6 (handed grav-12)"),
        pytest.param(10.2, 20, "20d6", id="decision X=10.2: 20.4 rounds to 20"),
        pytest.param(10.25, 21, "21d6", id="decision X=10.25: 20.5 rounds half up"),
    ],
)
def test_gravity_entry_save(x, dc, damage):
    save = grav(x).entry_save
    if dc is None:
        assert save is None
        return
    assert (save.ability, save.dc, save.damage, save.type, save.on_success) == (
        "con",
        dc,
        damage,
        "bludgeoning",
        "half",
    )


@pytest.mark.parametrize(
    ("x", "rules"),
    [
        pytest.param(0, ("5E-GRV-1", "5E-GRV-6"), id="X=0 cites 5E-GRV-6"),
        pytest.param(1, ("5E-GRV-1",), id="X=1"),
        pytest.param(2, ("5E-GRV-1", "5E-GRV-2", "5E-GRV-3", "5E-GRV-4"), id="X=2"),
        pytest.param(10, ("5E-GRV-1", "5E-GRV-2", "5E-GRV-3", "5E-GRV-4", "5E-GRV-5"), id="X=10"),
    ],
)
def test_gravity_rules_cited(x, rules):
    assert grav(x).rules == rules


@pytest.mark.parametrize(
    ("x", "normal", "long", "expected"),
    [
        pytest.param(3, None, None, None, id="no weapon"),
        pytest.param(3, 30, None, (10, 10), id="5E-GRV-1 one range is the maximum"),
        pytest.param(0.5, 30, None, (30, 60), id="5E-GRV-1 low gravity: normal stays"),
        pytest.param(3, None, 120, (None, 40), id="5E-GRV-1 long range only"),
        pytest.param(4, 80, 320, (80, 80), id="5E-GRV-1 light crossbow X=4: 80/80"),
        pytest.param(5, 80, 320, (64, 64), id="5E-GRV-1 light crossbow X=5: normal cut to 64"),
    ],
)
def test_gravity_weapon(x, normal, long, expected):
    weapon = grav(x, normal_range=normal, long_range=long).weapon
    if expected is None:
        assert weapon is None
    else:
        assert (weapon.normal_range, weapon.long_range) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("kw", "path"),
    [
        pytest.param({"x": -1}, ("gravity",), id="negative gravity"),
        pytest.param({"x": math.nan}, ("gravity",), id="NaN gravity"),
        pytest.param({"x": math.inf}, ("gravity",), id="infinite gravity"),
        pytest.param({"speed_ft": -5}, ("creature", "speed"), id="negative speed"),
        pytest.param({"str_mod": 1.5}, ("creature", "str"), id="fractional modifier"),
        pytest.param({"long_range": -1}, ("weapon", "long_range"), id="negative range"),
        pytest.param(
            {"normal_range": 700}, ("weapon", "normal_range"), id="normal above long range"
        ),
        pytest.param(
            {"levels_rounding": "sideways"}, ("options", "levels_rounding"), id="bad rounding"
        ),
    ],
)
def test_gravity_errors(kw, path):
    args = {"x": 3, **CREATURE, **LONGBOW, **kw}
    with pytest.raises(RulesError) as err:
        env.gravity_modifiers(**args)
    assert err.value.path == path


# --------------------------------------------------------------------------------------
# Underwater attacks
# --------------------------------------------------------------------------------------


def uw(kind, weapon, swim_speed=0, **kw):
    return env.underwater_attack(kind, weapon, swim_speed=swim_speed, **kw)


@pytest.mark.parametrize(
    ("weapon", "swim_speed", "disadvantage"),
    [
        pytest.param("longsword", 0, True, id="5E-UW-1 longsword, no swim speed"),
        pytest.param("greatclub", 0, True, id="5E-UW-1 greatclub"),
        pytest.param("handaxe", 0, True, id="5E-UW-1 handaxe is not an exception"),
        pytest.param("unarmed strike", 0, True, id="5E-UW-1 unarmed strike"),
        pytest.param("dagger", 0, False, id="5E-UW-1 exception dagger"),
        pytest.param("javelin", 0, False, id="5E-UW-1 exception javelin"),
        pytest.param("shortsword", 0, False, id="5E-UW-1 exception shortsword"),
        pytest.param("spear", 0, False, id="5E-UW-1 exception spear"),
        pytest.param("trident", 0, False, id="5E-UW-1 exception trident"),
        pytest.param("Short Sword", 0, False, id="5E-UW-1 name case and spacing ignored"),
        pytest.param("TRIDENT", 0, False, id="5E-UW-1 upper case"),
        pytest.param("longsword", 30, False, id="5E-UW-1 swim speed lifts it"),
        pytest.param("war-pick", 0, True, id="5E-UW-1 war pick with a hyphen"),
    ],
)
def test_underwater_melee(weapon, swim_speed, disadvantage):
    res = uw("melee", weapon, swim_speed)
    assert (res.auto_miss, res.disadvantage) == (False, disadvantage)
    assert res.rules == ("5E-UW-1",)


@pytest.mark.parametrize(
    ("weapon", "distance", "kw", "auto_miss", "disadvantage"),
    [
        pytest.param("longbow", 200, LONGBOW, True, False, id="5E-UW-2 longbow beyond 150: miss"),
        pytest.param("longbow", 151, {}, True, False, id="5E-UW-2 table range 150: 151 misses"),
        pytest.param("longbow", 150, {}, False, True, id="5E-UW-2 longbow at normal range"),
        pytest.param("longbow", 30, {}, False, True, id="5E-UW-2 longbow close"),
        pytest.param("shortbow", 80, {}, False, True, id="5E-UW-2 shortbow"),
        pytest.param("sling", 30, {}, False, True, id="5E-UW-2 sling"),
        pytest.param("blowgun", 25, {}, False, True, id="5E-UW-2 blowgun"),
        pytest.param("light crossbow", 80, {}, False, False, id="5E-UW-2 exception light crossbow"),
        pytest.param("light crossbow", 81, {}, True, False, id="5E-UW-2 light crossbow past 80"),
        pytest.param("hand crossbow", 30, {}, False, False, id="5E-UW-2 exception hand crossbow"),
        pytest.param(
            "Heavy Crossbow", 100, {}, False, False, id="5E-UW-2 exception heavy crossbow"
        ),
        pytest.param("net", 5, {}, False, False, id="5E-UW-2 exception net"),
        pytest.param("net", 10, {}, True, False, id="5E-UW-2 net past 5 ft"),
        pytest.param("javelin", 30, {}, False, False, id="5E-UW-2 exception javelin"),
        pytest.param("spear", 20, {}, False, False, id="5E-UW-2 exception spear"),
        pytest.param("trident", 20, {}, False, False, id="5E-UW-2 exception trident"),
        pytest.param("dart", 20, {}, False, False, id="5E-UW-2 exception dart"),
        pytest.param("dagger", 20, {}, False, True, id="decision thrown dagger not javelin-like"),
        pytest.param(
            "dagger", 20, {"thrown": True}, False, False, id="decision thrown=true overrides"
        ),
        pytest.param("handaxe", 20, {}, False, True, id="decision thrown handaxe"),
        pytest.param(
            "javelin", 30, {"thrown": False}, False, True, id="property overrides the table"
        ),
        pytest.param(
            "harpoon gun",
            50,
            {"crossbow": True, "normal_range": 60},
            False,
            False,
            id="unknown name with crossbow property",
        ),
        pytest.param(
            "sea sling",
            50,
            {"thrown": False, "normal_range": 60},
            False,
            True,
            id="unknown name with properties false",
        ),
        pytest.param(
            "light crossbow",
            100,
            {"normal_range": 120, "long_range": 480},
            False,
            False,
            id="given ranges override the table",
        ),
    ],
)
def test_underwater_ranged(weapon, distance, kw, auto_miss, disadvantage):
    res = uw("ranged", weapon, distance=distance, **kw)
    assert (res.auto_miss, res.disadvantage) == (auto_miss, disadvantage)
    assert res.rules == ("5E-UW-2",)


@pytest.mark.parametrize(
    ("weapon", "kw", "disadvantage"),
    [
        pytest.param("light crossbow", {}, True, id="5E-UW-9 crossbow across the surface"),
        pytest.param("light crossbow", {"senses_blindsight": 10}, False, id="5E-UW-9 blindsight"),
        pytest.param("light crossbow", {"senses_truesight": 60}, False, id="5E-UW-9 truesight"),
        pytest.param(
            "light crossbow",
            {"damage_types": ["piercing", "radiant"]},
            False,
            id="5E-UW-9 part radiant damage",
        ),
        pytest.param(
            "light crossbow", {"damage_types": ["Radiant"]}, False, id="5E-UW-9 radiant any case"
        ),
        pytest.param(
            "light crossbow",
            {"damage_types": ["piercing", "fire"]},
            True,
            id="5E-UW-9 no radiant part",
        ),
        pytest.param(
            "longbow",
            {"senses_truesight": 60},
            True,
            id="5E-UW-9 truesight does not lift 5E-UW-2",
        ),
    ],
)
def test_underwater_refraction(weapon, kw, disadvantage):
    res = uw("ranged", weapon, distance=40, crosses_surface=True, **kw)
    assert res.disadvantage is disadvantage
    assert res.rules == ("5E-UW-2", "5E-UW-9")


def test_refraction_is_for_ranged_attacks_only():
    res = uw("melee", "dagger", crosses_surface=True)
    assert (res.disadvantage, res.rules) == (False, ("5E-UW-1",))


def test_auto_miss_across_the_surface_has_no_roll():
    res = uw("ranged", "longbow", distance=300, crosses_surface=True)
    assert (res.auto_miss, res.disadvantage) == (True, False)


@pytest.mark.parametrize(
    ("kind", "weapon", "kw", "path"),
    [
        pytest.param("ranged", "harpoon gun", {"distance": 10}, ("attack", "weapon"), id="unknown"),
        pytest.param("melee", "claw", {}, ("attack", "weapon"), id="unknown melee"),
        pytest.param(
            "ranged",
            "harpoon gun",
            {"distance": 10, "thrown": False},
            ("attack", "normal_range"),
            id="unknown weapon needs a normal range",
        ),
        pytest.param("ranged", "longbow", {}, ("attack", "distance"), id="ranged needs distance"),
        pytest.param(
            "ranged", "longbow", {"distance": -1}, ("attack", "distance"), id="negative distance"
        ),
        pytest.param(
            "ranged",
            "longbow",
            {"distance": 10, "normal_range": 700, "long_range": 600},
            ("attack", "normal_range"),
            id="normal above long",
        ),
        pytest.param("thrown", "dart", {}, ("attack", "kind"), id="unknown kind"),
        pytest.param(
            "ranged",
            "dart",
            {"distance": 5, "damage_types": ["holy"]},
            ("attack", "damage_types"),
            id="unknown damage type",
        ),
        pytest.param(
            "melee", "dagger", {"swim_speed": -10}, ("attacker", "swim_speed"), id="negative swim"
        ),
    ],
)
def test_underwater_attack_errors(kind, weapon, kw, path):
    kw = {"swim_speed": 0, **kw}
    with pytest.raises(RulesError) as err:
        env.underwater_attack(kind, weapon, **kw)
    assert err.value.path == path


# --------------------------------------------------------------------------------------
# Underwater effects
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        pytest.param(
            {"kind": "fire", "damage": 25},
            {"resistance": True, "damage": 12},
            id="5E-UW-3 submerged: resistance, 25 -> 12",
        ),
        pytest.param(
            {"kind": "fire", "submerged": False, "damage": 25},
            {"resistance": False, "damage": 25},
            id="5E-UW-3 not fully submerged",
        ),
        pytest.param(
            {"kind": "fire"}, {"resistance": True, "damage": None}, id="5E-UW-3 no damage given"
        ),
        pytest.param(
            {"kind": "acid", "timing": "start_of_turn", "damage": 10},
            {"negated": True, "damage": 0},
            id="5E-UW-4 start of turn negated",
        ),
        pytest.param(
            {"kind": "acid", "timing": "end_of_turn"},
            {"negated": True, "damage": None},
            id="5E-UW-4 end of turn negated",
        ),
        pytest.param(
            {"kind": "acid", "timing": "other", "damage": 10},
            {"negated": False, "damage": 10},
            id="5E-UW-4 acid on a hit is taken",
        ),
        pytest.param(
            {"kind": "lightning_area", "size": 20},
            {"size": 30, "multiplier": 1.5},
            id="5E-UW-5 20-ft radius -> 30",
        ),
        pytest.param(
            {"kind": "lightning_area", "size": 15},
            {"size": 22.5, "multiplier": 1.5},
            id="5E-UW-5 15-ft cone -> 22.5",
        ),
        pytest.param(
            {"kind": "lightning_area", "size": 20, "scale": "area"},
            {"size": pytest.approx(24.4949, abs=1e-4), "multiplier": pytest.approx(1.224745)},
            id="decision scale=area: lengths x sqrt(1.5)",
        ),
        pytest.param({"kind": "freeze", "cold_damage": 30}, {"frozen": True}, id="5E-UW-6 30 cold"),
        pytest.param(
            {"kind": "freeze", "cold_damage": 45}, {"frozen": True}, id="decision 45 cold freezes"
        ),
        pytest.param({"kind": "freeze", "cold_damage": 29}, {"frozen": False}, id="5E-UW-6 29"),
        pytest.param(
            {"kind": "freeze", "cold_damage": 30, "occupied": True},
            {"frozen": False},
            id="5E-UW-6 a creature in the square",
        ),
        pytest.param(
            {"kind": "freeze", "cold_damage": 30, "water_filled": False},
            {"frozen": False},
            id="5E-UW-6 not filled with water",
        ),
        pytest.param(
            {"kind": "breath", "con": 0},
            {"hold_breath_seconds": 60, "hold_breath_rounds": 10, "suffocating": None},
            id="5E-UW-7 Con 0: 1 minute",
        ),
        pytest.param(
            {"kind": "breath", "con": 2},
            {"hold_breath_seconds": 180, "hold_breath_rounds": 30},
            id="5E-UW-7 Con +2: 3 minutes",
        ),
        pytest.param(
            {"kind": "breath", "con": -1},
            {"hold_breath_seconds": 30, "hold_breath_rounds": 5},
            id="5E-UW-7 Con -1: 0 minutes -> 30 s minimum",
        ),
        pytest.param(
            {"kind": "breath", "con": -3},
            {"hold_breath_seconds": 30},
            id="5E-UW-7 Con -3: 30 s minimum",
        ),
        pytest.param(
            {"kind": "breath", "con": 1, "elapsed_seconds": 120},
            {"hold_breath_seconds": 120, "suffocating": False},
            id="5E-UW-7 at the limit: not yet suffocating",
        ),
        pytest.param(
            {"kind": "breath", "con": 1, "elapsed_seconds": 121},
            {"suffocating": True},
            id="5E-UW-7 past the limit: suffocating",
        ),
        pytest.param(
            {"kind": "breath", "con": 1, "water_breathing": True, "elapsed_seconds": 9999},
            {"hold_breath_seconds": None, "suffocating": False},
            id="5E-UW-7 water breathing",
        ),
        pytest.param(
            {"kind": "air_magic", "ability": "gust of wind"},
            {"works": False},
            id="5E-UW-8 wind magic fails",
        ),
    ],
)
def test_underwater_effects(params, expected):
    res = env.underwater_effect(**params)
    assert res.kind == params["kind"]
    for name, want in expected.items():
        assert getattr(res, name) == want, name
    rule = {
        "fire": "5E-UW-3",
        "acid": "5E-UW-4",
        "lightning_area": "5E-UW-5",
        "freeze": "5E-UW-6",
        "breath": "5E-UW-7",
        "air_magic": "5E-UW-8",
    }[params["kind"]]
    assert res.rules == (rule,)


@pytest.mark.parametrize(
    ("params", "path"),
    [
        pytest.param({"kind": "steam"}, ("effect", "kind"), id="unknown kind"),
        pytest.param({"kind": "acid", "timing": "noon"}, ("effect", "timing"), id="bad timing"),
        pytest.param({"kind": "fire", "damage": -1}, ("effect", "damage"), id="negative damage"),
        pytest.param({"kind": "lightning_area", "size": -5}, ("effect", "size"), id="negative"),
        pytest.param({"kind": "breath", "con": 1.5}, ("effect", "con"), id="fractional con"),
    ],
)
def test_underwater_effect_errors(params, path):
    with pytest.raises(RulesError) as err:
        env.underwater_effect(**params)
    assert err.value.path == path


# --------------------------------------------------------------------------------------
# pf2e-variant range and melee
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("distance", "engaged", "band"),
    [
        pytest.param(0, False, "close", id="PV-RNG-1 0 ft close"),
        pytest.param(30, False, "close", id="PV-RNG-1 30 close"),
        pytest.param(30.5, False, "near", id="decision 30.5 is not within 30 ft: near"),
        pytest.param(31, False, "near", id="PV-RNG-1 31 near"),
        pytest.param(60, False, "near", id="PV-RNG-1 60 near"),
        pytest.param(61, False, "far", id="PV-RNG-1 61 far"),
        pytest.param(120, False, "far", id="PV-RNG-1 120 far"),
        pytest.param(120.5, False, "distant", id="decision 120.5 distant"),
        pytest.param(121, False, "distant", id="PV-RNG-1 121 distant"),
        pytest.param(5, True, "engaged", id="PV-RNG-1 engaged"),
        pytest.param(100, True, "engaged", id="PV-RNG-1 engaged is an input"),
    ],
)
def test_range_band(distance, engaged, band):
    assert env.range_band(distance, engaged) == band


@pytest.mark.parametrize(
    ("distance", "levels", "possible"),
    [
        pytest.param(0, 0, True, id="PV-RNG-2 0 ft none"),
        pytest.param(30, 0, True, id="PV-RNG-2 <=30 none"),
        pytest.param(30.5, 1, True, id="PV-RNG-2 over 30: one"),
        pytest.param(31, 1, True, id="PV-RNG-2 31 one"),
        pytest.param(45, 1, True, id="PV-RNG-2 45 one (handed range-crossbow-45)"),
        pytest.param(60, 1, True, id="PV-RNG-2 <=60 one"),
        pytest.param(61, 2, True, id="PV-RNG-2 61 two"),
        pytest.param(90, 2, True, id="PV-RNG-2 <=90 two"),
        pytest.param(91, 3, True, id="PV-RNG-2 91 three"),
        pytest.param(120, 3, True, id="PV-RNG-2 <=120 three"),
        pytest.param(121, 4, True, id="PV-RNG-2 121 four"),
        pytest.param(150, 4, True, id="PV-RNG-2 <=150 four"),
        pytest.param(151, 5, True, id="PV-RNG-2 151 five"),
        pytest.param(180, 5, True, id="PV-RNG-2 <=180 five (maximum)"),
        pytest.param(180.5, None, False, id="PV-RNG-2 >180 impossible"),
        pytest.param(181, None, False, id="PV-RNG-2 181 impossible (handed)"),
        pytest.param(1000, None, False, id="PV-RNG-2 far beyond impossible"),
    ],
)
def test_light_crossbow_range_table(distance, levels, possible):
    assert env.range_increment_penalty(distance, 30) == (levels, possible)


@pytest.mark.parametrize(
    ("distance", "increment", "expected"),
    [
        pytest.param(0.6, 0.1, (5, True), id="6 increments of 0.1 despite float error"),
        pytest.param(1.1, 0.1, (None, False), id="11 increments of 0.1"),
        pytest.param(0.3, 0.1, (2, True), id="3 increments of 0.1"),
        pytest.param(2.1, 0.35, (5, True), id="6 increments of 0.35 (6.000000000000001)"),
        pytest.param(1e6, 1e-300, (None, False), id="a tiny increment overflows: impossible"),
        pytest.param(0, 1e-300, (0, True), id="no distance, tiny increment"),
    ],
)
def test_range_increment_snaps_float_error(distance, increment, expected):
    assert env.range_increment_penalty(distance, increment) == expected


def test_range_modifiers_without_increment_is_band_only():
    res = env.range_modifiers(45)
    assert (res.band, res.disadvantage_levels, res.possible, res.rules) == (
        "near",
        None,
        None,
        ("PV-RNG-1",),
    )


def test_range_modifiers_cite_both_rules():
    res = env.range_modifiers(45, 30)
    assert (res.band, res.disadvantage_levels, res.possible) == ("near", 1, True)
    assert res.rules == ("PV-RNG-1", "PV-RNG-2")


@pytest.mark.parametrize(
    ("distance", "increment", "path"),
    [
        pytest.param(-1, 30, ("distance",), id="negative distance"),
        pytest.param(10, 0, ("range_increment",), id="zero increment"),
        pytest.param(10, -30, ("range_increment",), id="negative increment"),
        pytest.param(math.nan, 30, ("distance",), id="NaN distance"),
    ],
)
def test_range_errors(distance, increment, path):
    with pytest.raises(RulesError) as err:
        env.range_modifiers(distance, increment)
    assert err.value.path == path


@pytest.mark.parametrize(
    ("might", "damage"),
    [
        pytest.param(0, 1, id="PV-MEL-2 Might 0: 1"),
        pytest.param(3, 4, id="PV-MEL-2 Might 3: 4"),
        pytest.param(-1, 0, id="PV-MEL-2 Might -1: 0"),
        pytest.param(-4, 0, id="decision never negative"),
    ],
)
def test_unarmed_strike(might, damage):
    assert env.unarmed_strike_damage(might) == damage


@pytest.mark.parametrize(
    ("distance", "reach", "ok"),
    [
        pytest.param(5, 5, True, id="PV-MEL-1 adjacent, usual 5-ft reach"),
        pytest.param(10, 5, False, id="PV-MEL-1 10 ft out of 5-ft reach"),
        pytest.param(10, 10, True, id="PV-MEL-1 10-ft reach"),
    ],
)
def test_in_reach(distance, reach, ok):
    assert env.in_reach(distance, reach) is ok
