"""Underwater combat tables: 5E-UW-1..9 (``service.rules.dnd5e.underwater``).

Expected values are worked by hand from shared/RULES.md and the seed (dnd5e-zh_001
"水下战斗"), not from the code. Rows marked "decision" pin a reading documented in
service/rules/dnd5e/underwater.py.
"""

from __future__ import annotations

import pytest

from service.errors import RulesError
from service.rules.dnd5e import underwater as uwr

LONGBOW = {"normal_range": 150, "long_range": 600}


# --------------------------------------------------------------------------------------
# Underwater attacks
# --------------------------------------------------------------------------------------


def uw(kind, weapon, swim_speed=0, **kw):
    return uwr.underwater_attack(kind, weapon, swim_speed=swim_speed, **kw)


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
        uwr.underwater_attack(kind, weapon, **kw)
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
    res = uwr.underwater_effect(**params)
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
        uwr.underwater_effect(**params)
    assert err.value.path == path


# --------------------------------------------------------------------------------------
# The weapon table against the rule texts
# --------------------------------------------------------------------------------------


def test_weapon_table_exceptions_are_the_rules_lists():
    melee = {w.name for w in uwr.WEAPON_LIST if w.melee_exempt}
    ranged = {w.name: w.ranged_exempt for w in uwr.WEAPON_LIST if w.ranged_exempt}
    # 5E-UW-1: dagger, javelin, shortsword, spear or trident.
    assert melee == {"dagger", "javelin", "shortsword", "spear", "trident"}
    # 5E-UW-2: a crossbow, a net, or a thrown weapon like the javelin (spear, trident, dart).
    assert ranged == {
        "javelin": "thrown",
        "spear": "thrown",
        "trident": "thrown",
        "dart": "thrown",
        "light crossbow": "crossbow",
        "hand crossbow": "crossbow",
        "heavy crossbow": "crossbow",
        "net": "net",
    }


def test_weapon_table_keys_and_ranges():
    assert len(uwr.WEAPONS) == len(uwr.WEAPON_LIST)
    for weapon in uwr.WEAPON_LIST:
        assert uwr.find_weapon(weapon.name.upper()) is weapon
        assert (weapon.normal_range is None) == (weapon.long_range is None), weapon.name
        if weapon.normal_range is not None:
            assert 0 < weapon.normal_range < weapon.long_range, weapon.name
