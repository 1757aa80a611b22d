"""pf2e (Pathfinder 2e Remaster): a table per rule, PF2-COV-1..7, PF2-DET-1..7, PF2-VIS-1..7,
PF2-ATK-1..4 (docs/rules.md). The grid is 100 px = 5 ft (``tests.scenes``)."""

from __future__ import annotations

import pytest

from service.engine.scene import build_scene
from service.rules.ask import cover_one, vision_one
from service.rules.base import Attack
from service.rules.pf2e import RULESET
from service.rules.pf2e import attacks as atk
from tests.scenes import T_EAST, A, load, tok, wall

WALL = wall("w", 250, -100, 250, 60)  # across the centre line, the spaces still joined


def cover(walls, tokens, attacker="A", attack=None, **options):
    scene = load(walls, tokens)
    att = scene.token(attacker) if attacker else None
    return cover_one(
        RULESET, build_scene(scene), att, scene.token("T"), attack or Attack(), options
    )


def see(tokens, light="bright", regions=(), **options):
    scene = load([], tokens, regions=list(regions), environment={"light": light})
    return vision_one(RULESET, build_scene(scene), scene.token("A"), scene.token("T"), options)


COVER = [
    # walls, tokens, options -> degree, AC, Reflex, Stealth, rule (PF2-COV-1 bonuses)
    pytest.param([], [A, T_EAST], {}, "none", 0, 0, None, "PF2-COV-2", id="PF2-COV-2 clear"),
    pytest.param(
        [],
        [A, T_EAST, tok("B", 200, 0)],
        {},
        "lesser",
        1,
        0,
        None,
        "PF2-COV-3",
        id="PF2-COV-3 a creature in the way: lesser",
    ),
    pytest.param(
        [WALL], [A, T_EAST], {}, "standard", 2, 2, 2, "PF2-COV-2", id="PF2-COV-2 terrain: standard"
    ),
    pytest.param(
        [{**WALL, "cover": "extreme"}],
        [A, T_EAST],
        {},
        "greater",
        4,
        4,
        4,
        "PF2-COV-2",
        id="PF2-COV-2 extreme: greater",
    ),
    pytest.param(
        [WALL],
        [A, T_EAST],
        {"take_cover": ["T"]},
        "greater",
        4,
        4,
        4,
        "PF2-COV-4",
        id="PF2-COV-4 standard -> greater",
    ),
    pytest.param(
        [],
        [A, T_EAST],
        {"take_cover": ["T"]},
        "standard",
        2,
        2,
        2,
        "PF2-COV-4",
        id="PF2-COV-4 otherwise standard",
    ),
    pytest.param(
        [],
        [A, T_EAST, tok("B", 200, 0)],
        {"take_cover": ["T"]},
        "standard",
        2,
        2,
        2,
        "PF2-COV-4",
        id="PF2-COV-4 lesser -> standard",
    ),
    pytest.param(
        [wall("w", 250, -1000, 250, 1000)],
        [A, T_EAST],
        {},
        "total",
        None,
        None,
        None,
        "PF2-COV-5",
        id="PF2-COV-5 no line of effect",
    ),
]


@pytest.mark.parametrize(
    ("walls", "tokens", "options", "degree", "ac", "reflex", "stealth", "rule"), COVER
)
def test_cover_table(walls, tokens, options, degree, ac, reflex, stealth, rule):
    res = cover(walls, tokens, **options)
    assert (res.cover, res.ac_bonus, res.save_bonus) == (degree, ac, reflex)
    assert {m.value for m in res.modifiers if m.applies_to == "stealth"} == (
        {stealth} if stealth else set()
    )
    assert rule in res.rules and "PF2-COV-1" in res.rules
    assert res.can_hide == (degree in ("standard", "greater", "total"))  # PF2-COV-7
    assert res.can_target == (degree != "total")


def test_prone_taking_cover_is_greater_against_ranged():
    """PF2-COV-4, PF2-ATK-4: prone and taking cover: greater against ranged, standard in melee."""
    tokens = [A, tok("T", 400, 0, conditions=["prone"])]
    assert cover([], tokens, attack=Attack("ranged"), take_cover=["T"]).cover == "greater"
    assert cover([], tokens, attack=Attack("melee"), take_cover=["T"]).cover == "standard"


def test_area_from_its_point_of_origin_pf2_cov_6():
    attack = Attack("area", origin=(300.0, 50.0))  # past the wall: nothing in the way
    res = cover([WALL], [T_EAST], attacker=None, attack=attack)
    assert res.cover == "none" and "PF2-COV-6" in res.rules
    assert res.lines[0].start == (300.0, 50.0)


def test_prone_modifiers_pf2_atk_4():
    res = cover([], [tok("A", 0, 0, conditions=["prone"]), tok("T", 400, 0, conditions=["prone"])])
    got = {(m.rule, m.applies_to, m.value) for m in res.modifiers}
    assert got == {("PF2-ATK-4", "ac", -2), ("PF2-ATK-4", "attack", -2)}


@pytest.mark.parametrize(
    ("distance", "increment", "penalty"),
    [(60, 60, 0), (70, 60, -2), (120, 60, -2), (121, 60, -4), (360, 60, -10), (361, 60, None)],
)
def test_range_increments_pf2_atk_1(distance, increment, penalty):
    """PF2-ATK-1: a shortbow (60 ft): −2 per increment beyond the first, six at most."""
    assert atk.range_penalty(distance, increment) == penalty


@pytest.mark.parametrize(
    ("size", "long", "reach"),
    [("tiny", False, 0), ("medium", False, 5), ("large", False, 10), ("large", True, 5),
     ("huge", True, 10), ("gargantuan", False, 20)],
)  # fmt: skip
def test_reach_pf2_atk_2(size, long, reach):
    assert atk.natural_reach_ft(size, long) == reach


def test_flanking_is_off_guard_pf2_atk_3():
    (mod,) = atk.flanking_modifier(True)
    assert (mod.rule, mod.applies_to, mod.value) == ("PF2-ATK-3", "ac", -2)
    assert atk.flanking_modifier(False) == ()


DETECTION = [
    # observer, target, light, options -> detection, concealed, flat check DC, off-guard
    pytest.param(A, T_EAST, "bright", {}, "observed", False, None, False, id="PF2-DET-1 observed"),
    pytest.param(
        A, T_EAST, "dim", {}, "observed", True, 5, False, id="PF2-VIS-1 dim: concealed DC 5"
    ),
    pytest.param(
        tok("A", 0, 0, senses={"low_light_vision": True}),
        T_EAST,
        "dim",
        {},
        "observed",
        False,
        None,
        False,
        id="PF2-VIS-2 low-light vision",
    ),
    pytest.param(
        A, T_EAST, "dark", {}, "hidden", False, 11, True, id="PF2-DET-4 heard in darkness: hidden"
    ),
    pytest.param(
        tok("A", 0, 0, senses={"hearing": 0}),
        T_EAST,
        "dark",
        {},
        "undetected",
        False,
        11,
        True,
        id="PF2-DET-5 nothing reaches: undetected",
    ),
    pytest.param(
        tok("A", 0, 0, senses={"darkvision": 60}),
        T_EAST,
        "dark",
        {},
        "observed",
        False,
        None,
        False,
        id="PF2-VIS-3 darkvision",
    ),
    pytest.param(
        tok("A", 0, 0, senses={"tremorsense": 60, "hearing": 0}),
        T_EAST,
        "dark",
        {},
        "hidden",
        False,
        11,
        True,
        id="PF2-VIS-5 tremorsense is imprecise",
    ),
    pytest.param(
        A,
        tok("T", 400, 0, conditions=["invisible"]),
        "bright",
        {},
        "undetected",
        False,
        11,
        True,
        id="PF2-DET-7 invisible: undetected though heard",
    ),
    pytest.param(
        A,
        tok("T", 400, 0, conditions=["invisible"]),
        "bright",
        {"was_observing": ["T"]},
        "hidden",
        False,
        11,
        True,
        id="PF2-DET-7 seen turning invisible: hidden",
    ),
    pytest.param(
        tok("A", 0, 0, senses={"blindsight": 60}),
        tok("T", 400, 0, conditions=["invisible"]),
        "bright",
        {},
        "observed",
        False,
        None,
        False,
        id="PF2-DET-2 a precise sense other than sight",
    ),
    pytest.param(
        A,
        T_EAST,
        "bright",
        {"unnoticed": ["T"]},
        "unnoticed",
        False,
        None,
        True,
        id="PF2-DET-6 unnoticed",
    ),
]


@pytest.mark.parametrize(
    ("observer", "target", "light", "options", "state", "concealed", "dc", "off_guard"), DETECTION
)
def test_detection_table(observer, target, light, options, state, concealed, dc, off_guard):
    res = see([observer, target], light=light, **options)
    assert (res.detection, res.concealed, res.flat_check_dc, res.off_guard) == (
        state,
        concealed,
        dc,
        off_guard,
    )
    assert "PF2-DET-1" in res.rules


def test_greater_darkvision_in_magical_darkness_pf2_vis_4():
    box = {"type": "rect", "x": 350, "y": -50, "width": 200, "height": 200}
    darkness = {"id": "d", "shape": box, "magical_darkness": True}
    plain = see([tok("A", 0, 0, senses={"darkvision": 60}), T_EAST], regions=[darkness])
    greater = see([tok("A", 0, 0, senses={"devils_sight": 60}), T_EAST], regions=[darkness])
    assert plain.detection == "hidden" and greater.detection == "observed"
    assert "PF2-VIS-4" in greater.rules


def test_concealing_fog_pf2_det_3():
    fog = {"id": "f", "shape": {"type": "rect", "x": 200, "y": -50, "width": 100, "height": 200},
           "obscurement": "light"}  # fmt: skip
    res = see([A, T_EAST], regions=[fog])
    assert res.concealed and res.flat_check_dc == 5 and {"PF2-DET-3", "GEO-9"} <= set(res.rules)


def test_deafened_pf2_vis_7():
    res = see([tok("A", 0, 0, conditions=["deafened"]), T_EAST])
    assert res.auditory_flat_check_dc == 5 and "PF2-VIS-7" in res.rules
