"""dnd2024 (SRD 5.2): a table per rule, 24-COV-1..6, 24-ATK-1..4, 24-VIS-1..9 (docs/rules.md).

The grid is 100 px = 5 ft (``tests.scenes``); the attacker A stands at the top-left square.
"""

from __future__ import annotations

import pytest

from service.app import create_app
from service.engine.scene import build_scene
from service.rules import dnd5e
from service.rules.ask import cover_one, vision_one
from service.rules.base import Attack
from service.rules.dnd2024 import RULESET
from service.rules.dnd2024 import attacks as atk
from tests.scenes import T_EAST, T_SOUTHEAST, A, load, tok, wall


def cover(walls, tokens, attacker="A", target="T", attack=None, **options):
    scene = load(walls, tokens)
    att = scene.token(attacker) if attacker else None
    return cover_one(
        RULESET, build_scene(scene), att, scene.token(target), attack or Attack(), options
    )


def see(tokens, observer="A", target="T", regions=(), light="bright", **options):
    scene = load([], tokens, regions=list(regions), environment={"light": light})
    geo = build_scene(scene)
    return vision_one(RULESET, geo, scene.token(observer), scene.token(target), options)


# 24-COV-3 (and 24-COV-2's bonuses): blocked lines from the attacker's best corner -> degree.
BEST_CORNER = [
    pytest.param([], [A, T_EAST], "none", 0, id="24-COV-3 nothing in the way"),
    pytest.param(
        [wall("w", 250, -100, 250, 60)], [A, T_EAST], "half", 1, id="24-COV-3 upper half: half"
    ),
    pytest.param(
        [wall("w", 250, 0, 250, 200)],
        [A, T_SOUTHEAST],
        "three-quarters",
        4,
        id="24-COV-3 every line blocked, the wall's end passable: three-quarters",
    ),  # fmt: skip
    # DMG 2024's arrow slit: every corner line blocked, yet the attack can still reach.
    pytest.param(
        [wall("n", 250, -1000, 250, 48), wall("s", 250, 52, 250, 1000)],
        [A, T_EAST],
        "three-quarters",
        3,
        id="24-COV-3 arrow slit: three-quarters",
    ),
    pytest.param(
        [wall("w", 250, -1000, 250, 1000)], [A, T_EAST], "total", 4, id="24-COV-3 sealed: total"
    ),
]


@pytest.mark.parametrize(("walls", "tokens", "degree", "blocked"), BEST_CORNER)
def test_best_corner_degrees(walls, tokens, degree, blocked):
    res = cover(walls, tokens)
    assert res.cover == degree
    assert sum(line.blocked for line in res.lines) == blocked
    assert len(res.lines) == 4  # one corner's lines to the four target corners
    assert {"24-COV-2", "24-COV-3"} <= set(res.rules)


@pytest.mark.parametrize(
    ("degree", "ac", "can_target"),
    [("none", 0, True), ("half", 2, True), ("three-quarters", 5, True), ("total", None, False)],
)
def test_degree_bonuses_24_cov_2(degree, ac, can_target):
    """24-COV-2: +2 / +5 to AC and Dexterity saves; total: cannot be targeted directly."""
    walls = {
        "none": [],
        "half": [wall("w", 250, -100, 250, 60)],
        "three-quarters": [wall("n", 250, -1000, 250, 48), wall("s", 250, 52, 250, 1000)],
        "total": [wall("w", 250, -1000, 250, 1000)],
    }[degree]
    res = cover(walls, [A, T_EAST])
    assert (res.cover, res.ac_bonus, res.save_bonus, res.can_target) == (degree, ac, ac, can_target)


def test_the_family_shares_dnd5e_tables():
    """24-COV-2/3 are dnd5e's tables (the rules agree), and so is the degree of every pair."""
    assert RULESET.cover_degrees == dnd5e.RULESET.cover_degrees
    walls = [wall("w", 250, 0, 250, 200)]
    tokens = [A, T_SOUTHEAST, tok("B", 200, 300)]
    scene = load(walls, tokens)
    geo = build_scene(scene)
    for t in ("T", "B"):
        ours = cover_one(RULESET, geo, scene.token("A"), scene.token(t), Attack(), {})
        theirs = cover_one(
            dnd5e.RULESET, geo, scene.token("A"), scene.token(t), Attack(),
            {"cover_method": "dmg-corner"},
        )  # fmt: skip
        assert ours.cover == theirs.cover


@pytest.mark.parametrize(
    ("tokens", "degree", "rule"),
    [
        ([A, T_EAST, tok("B", 200, 0)], "half", "24-COV-4"),
        ([A, T_EAST, tok("B", 200, -50, 2)], "half", "24-COV-4"),
    ],
    ids=["24-COV-4 a creature in the way: half", "24-COV-4 a large creature: still half"],
)
def test_creatures_give_at_most_half(tokens, degree, rule):
    res = cover([], tokens)
    assert res.cover == degree and rule in res.rules


def test_low_wall_gives_at_most_half_24_cov_4():
    res = cover([wall("low", 250, -1000, 250, 1000, cover="low")], [A, T_EAST])
    assert res.cover == "half"
    assert any("24-COV-4" in n for n in res.notes)


def test_area_from_its_point_of_origin_24_cov_5():
    """24-COV-5: the origin is the one corner: four lines, no choice."""
    attack = Attack("area", origin=(50.0, 50.0))
    res = cover([wall("w", 250, -100, 250, 60)], [T_EAST], attacker=None, attack=attack)
    assert "24-COV-5" in res.rules
    assert len(res.lines) == 4 and all(line.start == (50.0, 50.0) for line in res.lines)
    assert res.cover == "half"


def test_sharing_a_space_24_cov_6():
    res = cover([], [A, T_EAST, tok("S", 400, 0)])
    assert res.cover == "none" and "24-COV-6" in res.rules
    assert any("S" in n for n in res.notes)


@pytest.mark.parametrize(
    ("distance", "normal", "long", "band", "roll", "possible"),
    [
        (80, 80, 320, "normal", None, True),  # a shortbow at its normal range
        (81, 80, 320, "long", "attack_disadvantage", True),
        (320, 80, 320, "long", "attack_disadvantage", True),
        (325, 80, 320, "beyond", None, False),
        (20, 20, 20, "normal", None, True),  # no long range given: long == normal
        (25, 20, 20, "beyond", None, False),
    ],
)
def test_long_range_24_atk_1(distance, normal, long, band, roll, possible):
    assert atk.range_band(distance, normal, long) == band
    assert atk.range_roll(distance, normal, long) == (roll, possible)


def test_long_range_refuses_bad_ranges():
    with pytest.raises(ValueError, match="normal <= long"):
        atk.range_band(10, 30, 20)


def test_close_combat_24_atk_2():
    """24-ATK-2: a ranged answer names the creatures within 5 ft that are not Incapacitated."""
    tokens = [A, T_EAST, tok("B", 100, 100), tok("Z", 0, 100, conditions=["unconscious"])]
    res = cover([], tokens, attack=Attack("ranged"))
    assert "24-ATK-2" in res.rules and any("B." in n and "Z" not in n for n in res.notes)
    assert "24-ATK-2" not in cover([], tokens, attack=Attack("melee")).rules


MODIFIERS = [
    # (attacker conditions, target conditions, target x, attack kind) -> (rule, applies_to)
    pytest.param(
        [],
        ["prone"],
        100,
        "melee",
        {("24-ATK-4", "attack_advantage")},
        id="24-ATK-4 prone within 5 ft",
    ),
    pytest.param(
        [],
        ["prone"],
        400,
        "ranged",
        {("24-ATK-4", "attack_disadvantage")},
        id="24-ATK-4 prone farther",
    ),
    pytest.param(
        ["prone"],
        [],
        400,
        "ranged",
        {("24-ATK-4", "attack_disadvantage")},
        id="24-ATK-4 prone attacker",
    ),
    pytest.param(
        ["blinded"],
        [],
        400,
        "ranged",
        {("24-VIS-7", "attack_disadvantage")},
        id="24-VIS-7 blinded attacker",
    ),
    pytest.param(
        [],
        ["blinded"],
        400,
        "ranged",
        {("24-VIS-7", "attack_advantage")},
        id="24-VIS-7 blinded target",
    ),
    pytest.param(
        ["invisible"],
        [],
        400,
        "ranged",
        {("24-VIS-8", "attack_advantage")},
        id="24-VIS-8 invisible attacker",
    ),
    pytest.param(
        [],
        ["invisible"],
        400,
        "ranged",
        {("24-VIS-8", "attack_disadvantage")},
        id="24-VIS-8 invisible target",
    ),
    pytest.param([], ["invisible"], 400, "area", set(), id="24-ATK-3 no attack roll, no modifier"),
]


@pytest.mark.parametrize(("mine", "theirs", "x", "kind", "expected"), MODIFIERS)
def test_condition_modifiers(mine, theirs, x, kind, expected):
    tokens = [tok("A", 0, 0, conditions=mine), tok("T", x, 0, conditions=theirs)]
    attack = Attack(kind, origin=(50.0, 50.0)) if kind == "area" else Attack(kind)
    res = cover([], tokens, attacker=None if kind == "area" else "A", attack=attack)
    assert {(m.rule, m.applies_to) for m in res.modifiers} == expected


def test_seeing_invisible_cancels_24_vis_8():
    tokens = [tok("A", 0, 0, senses={"truesight": 60}), tok("T", 400, 0, conditions=["invisible"])]
    assert cover([], tokens).modifiers == ()


VISION = [
    # 24-VIS-2/1: light at the target -> obscurement for plain sight.
    pytest.param([A, T_EAST], "bright", "sight", True, "none", id="24-VIS-2 bright"),
    pytest.param([A, T_EAST], "dim", "sight", True, "light", id="24-VIS-1 dim: lightly obscured"),
    pytest.param([A, T_EAST], "dark", "hearing", False, "heavy", id="24-VIS-1 darkness: heavy"),
    # 24-VIS-3: darkvision, dim as bright and darkness as dim.
    pytest.param(
        [tok("A", 0, 0, senses={"darkvision": 60}), T_EAST],
        "dim",
        "sight",
        True,
        "none",
        id="24-VIS-3 dim as bright",
    ),
    pytest.param(
        [tok("A", 0, 0, senses={"darkvision": 60}), T_EAST],
        "dark",
        "darkvision",
        True,
        "light",
        id="24-VIS-3 darkness as dim",
    ),
    pytest.param(
        [tok("A", 0, 0, senses={"darkvision": 10}), T_EAST],
        "dark",
        "hearing",
        False,
        "heavy",
        id="24-VIS-3 out of range",
    ),
    # 24-VIS-4: blindsight; 24-VIS-5: tremorsense locates only; 24-VIS-6/9.
    pytest.param(
        [tok("A", 0, 0, senses={"blindsight": 30}), T_EAST],
        "dark",
        "blindsight",
        True,
        "none",
        id="24-VIS-4 blindsight",
    ),
    pytest.param(
        [tok("A", 0, 0, senses={"tremorsense": 30}), T_EAST],
        "dark",
        "tremorsense",
        False,
        "heavy",
        id="24-VIS-5 tremorsense is not sight",
    ),
    pytest.param(
        [tok("A", 0, 0, senses={"truesight": 30}), T_EAST],
        "dark",
        "truesight",
        True,
        "none",
        id="24-VIS-6 truesight",
    ),
    pytest.param(
        [tok("A", 0, 0, senses={"devils_sight": 120}), T_EAST],
        "dim",
        "sight",
        True,
        "none",
        id="24-VIS-9 devil's sight in dim light",
    ),
    # 24-VIS-7 blinded; 24-VIS-8 invisible.
    pytest.param(
        [tok("A", 0, 0, conditions=["blinded"]), T_EAST],
        "bright",
        "hearing",
        False,
        "none",
        id="24-VIS-7 blinded",
    ),
    pytest.param(
        [A, tok("T", 400, 0, conditions=["invisible"])],
        "bright",
        "hearing",
        False,
        "none",
        id="24-VIS-8 invisible",
    ),
    pytest.param(
        [tok("A", 0, 0, senses={"xray": 60}), T_EAST],
        "dark",
        "hearing",
        False,
        "heavy",
        id="24-VIS-2 no x-ray vision in SRD 5.2",
    ),
]


@pytest.mark.parametrize(("tokens", "light", "sense", "can_see", "obscurement"), VISION)
def test_vision_table(tokens, light, sense, can_see, obscurement):
    res = see(tokens, light=light)
    assert (res.sense, res.can_see, res.obscurement) == (sense, can_see, obscurement)
    assert res.perception_disadvantage == (obscurement == "light")
    assert not (res.can_see and res.obscurement == "heavy")  # 24-VIS-1
    if not can_see:
        assert "24-ATK-3" in res.rules  # unseen: the attack rolls' note


def test_vision_rules_are_cited():
    res = see([tok("A", 0, 0, senses={"darkvision": 60}), T_EAST], light="dark")
    assert {"24-VIS-1", "24-VIS-2", "24-VIS-3"} <= set(res.rules)
    res = see([tok("A", 0, 0, conditions=["blinded"]), tok("T", 400, 0, conditions=["invisible"])])
    assert {"24-VIS-7", "24-VIS-8", "24-ATK-3"} <= set(res.rules)


def test_fog_lightly_obscures_24_vis_1():
    fog = {"id": "f", "shape": {"type": "rect", "x": 350, "y": -50, "width": 200, "height": 200}}
    res = see([A, T_EAST], regions=[{**fog, "obscurement": "light"}])
    assert res.obscurement == "light" and res.perception_disadvantage and res.can_see


def test_get_rulesets_lists_both_published_rulesets():
    """``GET /v1/rulesets`` lists five rulesets; dnd2024 takes no ``cover_method``."""
    client = create_app({"TESTING": False}).test_client()
    listing = {r["id"]: r for r in client.get("/v1/rulesets").get_json()["rulesets"]}
    assert set(listing) == {"dnd5e", "dnd2024", "pf2e", "pf2e-variant", "starfinder"}
    assert listing["dnd2024"]["cover_degrees"] == ["none", "half", "three-quarters", "total"]
    assert "cover_method" not in listing["dnd2024"]["options"]
    assert listing["pf2e"]["options"]["take_cover"]["default"] == []
