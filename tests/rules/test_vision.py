"""Vision tables: 5E-VIS-1..10, SF-CON-4..6, PV-DET-1..9 (shared/RULES.md).

Layout: observer O at the top-left square, target T eight squares east (40 ft apart counted
as moves: 8 squares, nearest squares' centres), grid 100 px = 5 ft.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from service import rules
from service.engine.scene import build_scene
from service.rules.ask import vision_one
from service.senses import PRECISE
from tests.scenes import load, tok, wall

O_AT = (0, 0)
T_AT = (800, 0)  # 8 squares east: 40 ft


def see(
    senses=None,
    env="bright",
    walls=(),
    regions=(),
    lights=(),
    target_kw=None,
    observer_kw=None,
    ruleset="dnd5e",
    **options,
):
    observer = tok("O", *O_AT, senses=senses or {}, **(observer_kw or {}))
    target = tok("T", *T_AT, **(target_kw or {}))
    scene = load(
        list(walls),
        [observer, target],
        regions=list(regions),
        lights=list(lights),
        environment={"light": env},
    )
    system = rules.get(ruleset)
    return vision_one(system, build_scene(scene), scene.token("O"), scene.token("T"), options)


FOG = {
    "id": "fog",
    "shape": {"type": "rect", "x": 300, "y": -200, "width": 200, "height": 500},
    "obscurement": "heavy",
}
MIST = {
    "id": "mist",
    "shape": {"type": "rect", "x": 700, "y": -200, "width": 300, "height": 500},
    "obscurement": "light",
}
DARKNESS = {
    "id": "md",
    "shape": {"type": "rect", "x": 700, "y": -100, "width": 300, "height": 300},
    "magical_darkness": True,
}
WALL = wall("w", 400, -1000, 400, 1000)
GLASS = wall("g", 400, -1000, 400, 1000, sight="none", light="none")
FOG_WALL = wall("f", 400, -1000, 400, 1000, move="none")
INVISIBLE = {"conditions": ["invisible"]}

SENSE_CASES = [
    # sight
    pytest.param({}, "bright", (), (), None, "sight", id="5E-VIS-4 sight in bright light"),
    pytest.param({}, "dark", (), (), None, None, id="5E-VIS-1 sight: target in darkness"),
    pytest.param({}, "bright", [WALL], (), None, None, id="GEO-1 sight: wall between"),
    pytest.param({}, "bright", [GLASS], (), None, "sight", id="5E-VIS-10 sight through glass"),
    pytest.param({}, "bright", [FOG_WALL], (), None, None, id="5E-VIS-10 fog wall blocks sight"),
    pytest.param({}, "bright", (), [FOG], None, None, id="5E-VIS-2 heavy fog between"),
    pytest.param({}, "bright", (), (), INVISIBLE, None, id="5E-VIS-7 sight: invisible target"),
    # darkvision (range 40 ft reaches exactly, 35 ft does not)
    pytest.param(
        {"darkvision": 40},
        "dark",
        (),
        (),
        None,
        "darkvision",
        id="5E-VIS-5 darkvision at its range edge",
    ),
    pytest.param(
        {"darkvision": 35}, "dark", (), (), None, None, id="5E-VIS-5 darkvision one square short"
    ),
    pytest.param(
        {"darkvision": 60},
        "bright",
        (),
        [DARKNESS],
        None,
        None,
        id="5E-VIS-5 darkvision: magical darkness",
    ),
    pytest.param(
        {"darkvision": 60}, "dark", [WALL], (), None, None, id="5E-VIS-5 darkvision: wall between"
    ),
    pytest.param(
        {"darkvision": 60}, "dark", (), [FOG], None, None, id="5E-VIS-5 darkvision: fog between"
    ),
    pytest.param(
        {"darkvision": 60},
        "dark",
        (),
        (),
        INVISIBLE,
        None,
        id="5E-VIS-5 darkvision: invisible target",
    ),
    # devil's sight
    pytest.param(
        {"devils_sight": 40},
        "bright",
        (),
        [DARKNESS],
        None,
        "devils_sight",
        id="5E-VIS-6 devil's sight in magical darkness",
    ),
    pytest.param(
        {"devils_sight": 35},
        "bright",
        (),
        [DARKNESS],
        None,
        None,
        id="5E-VIS-6 devil's sight out of range",
    ),
    pytest.param(
        {"devils_sight": 60},
        "bright",
        (),
        [FOG],
        None,
        None,
        id="5E-VIS-6 devil's sight: fog between",
    ),
    # truesight
    pytest.param(
        {"truesight": 40},
        "bright",
        (),
        (),
        INVISIBLE,
        "truesight",
        id="5E-VIS-7 truesight sees invisible",
    ),
    pytest.param(
        {"truesight": 40},
        "bright",
        (),
        [DARKNESS],
        None,
        "truesight",
        id="5E-VIS-7 truesight in magical darkness",
    ),
    pytest.param(
        {"truesight": 60},
        "bright",
        (),
        [FOG],
        None,
        None,
        id="5E-VIS-7 truesight does not see through heavy fog",
    ),
    pytest.param({"truesight": 35}, "dark", (), (), None, None, id="5E-VIS-7 truesight range"),
    pytest.param(
        {"truesight": 60}, "bright", [WALL], (), None, None, id="5E-VIS-7 truesight: wall between"
    ),
    # blindsight
    pytest.param(
        {"blindsight": 40},
        "dark",
        (),
        [FOG],
        INVISIBLE,
        "blindsight",
        id="5E-VIS-8 blindsight through fog, darkness, invisibility",
    ),
    pytest.param(
        {"blindsight": 60},
        "dark",
        [WALL],
        (),
        None,
        None,
        id="5E-VIS-8 blindsight not behind a wall",
    ),
    pytest.param({"blindsight": 35}, "dark", (), (), None, None, id="5E-VIS-8 blindsight range"),
    # x-ray
    pytest.param(
        {"xray": 60},
        "bright",
        [WALL],
        [FOG],
        None,
        "xray",
        id="5E-VIS-9 x-ray sees behind walls and fog",
    ),
    pytest.param({"xray": 35}, "bright", [WALL], (), None, None, id="5E-VIS-9 x-ray range"),
    pytest.param(
        {"xray": 60}, "dark", [WALL], (), None, None, id="5E-VIS-9 x-ray still needs light"
    ),
    # tremorsense
    pytest.param(
        {"tremorsense": 40},
        "dark",
        [WALL],
        (),
        None,
        "tremorsense",
        id="tremorsense through the ground",
    ),
    pytest.param(
        {"tremorsense": 60},
        "dark",
        (),
        (),
        {"conditions": ["flying"]},
        None,
        id="tremorsense: not flying targets",
    ),
    pytest.param({"tremorsense": 35}, "dark", (), (), None, None, id="tremorsense range"),
    # see invisibility
    pytest.param(
        {"see_invisibility": 40},
        "bright",
        (),
        (),
        INVISIBLE,
        "sight",
        id="see invisibility in range",
    ),
    pytest.param(
        {"see_invisibility": 35},
        "bright",
        (),
        (),
        INVISIBLE,
        None,
        id="see invisibility out of range",
    ),
]


@pytest.mark.parametrize(("senses", "env", "walls", "regions", "target_kw", "sense"), SENSE_CASES)
def test_which_sense_reaches(senses, env, walls, regions, target_kw, sense):
    res = see(senses, env, walls, regions, target_kw=target_kw)
    assert res.can_see is (sense is not None)
    if sense is not None:
        assert res.sense == sense
    else:
        assert res.sense in (None, "hearing")


SOUNDPROOF = wall("w", 400, -1000, 400, 1000)
SOUND_PASSES = wall("w", 400, -1000, 400, 1000, sound="none")


@pytest.mark.parametrize(
    ("observer_kw", "walls", "sense"),
    [
        pytest.param({}, [], "hearing", id="hearing in the dark, nothing between"),
        pytest.param({}, [SOUNDPROOF], None, id="GEO-1 a wall restricting sound: not heard"),
        pytest.param({}, [SOUND_PASSES], "hearing", id="GEO-1 a wall passing sound: heard"),
        pytest.param({"conditions": ["deafened"]}, [], None, id="deafened: no hearing"),
        pytest.param({"senses": {"hearing": 35}}, [], None, id="hearing range 35 ft: too far"),
    ],
)
def test_hearing(observer_kw, walls, sense):
    kw = dict(observer_kw)
    senses = kw.pop("senses", {})
    res = see(senses, "dark", walls, observer_kw=kw)
    assert res.can_see is False
    assert res.sense == sense


@pytest.mark.parametrize(
    ("senses", "env", "regions", "light", "obscurement", "disadvantage"),
    [
        pytest.param({}, "bright", (), "bright", "none", False, id="5E-VIS-1 bright: none"),
        pytest.param({}, "dim", (), "dim", "light", True, id="5E-VIS-1 dim light: lightly"),
        pytest.param({}, "dark", (), "dark", "heavy", False, id="5E-VIS-1 darkness: heavily"),
        pytest.param(
            {"darkvision": 60},
            "dark",
            (),
            "dark",
            "light",
            True,
            id="5E-VIS-5 darkvision: darkness as dim",
        ),
        pytest.param(
            {"darkvision": 60},
            "dim",
            (),
            "dim",
            "light",
            True,
            id="5E-VIS-5 darkvision does not brighten dim light (seed)",
        ),
        pytest.param(
            {}, "bright", [MIST], "bright", "light", True, id="5E-VIS-1 target in light mist"
        ),
        pytest.param(
            {"blindsight": 60},
            "dark",
            (),
            "dark",
            "none",
            False,
            id="5E-VIS-8 blindsight ignores darkness",
        ),
    ],
)
def test_dnd5e_obscurement(senses, env, regions, light, obscurement, disadvantage):
    res = see(senses, env, regions=regions)
    assert (res.light, res.obscurement, res.perception_disadvantage) == (
        light,
        obscurement,
        disadvantage,
    )


def test_candle_across_a_dark_field():
    """5E-VIS-4: a 10-ft candle is seen from 300 ft across a dark field."""
    observer = tok("O", 0, 0)
    target = tok("T", 6000, 0, light={"bright": 0, "dim": 10})
    scene = load([], [observer, target], environment={"light": "dark"})
    res = vision_one(rules.get("dnd5e"), build_scene(scene), scene.token("O"), scene.token("T"), {})
    assert (res.can_see, res.sense, res.light) == (True, "sight", "dim")
    assert res.distance == 300


@pytest.mark.parametrize(
    ("senses", "env", "target_kw", "regions", "concealment", "miss"),
    [
        pytest.param({}, "bright", None, (), "none", 0, id="SF-CON-6 bright: none"),
        pytest.param({}, "dim", None, (), "concealment", 20, id="SF-CON-6 dim: 20 %"),
        pytest.param(
            {"low_light_vision": True},
            "dim",
            None,
            (),
            "none",
            0,
            id="SF-CON-6 low-light vision treats dim as normal",
        ),
        pytest.param(
            {"low_light_vision": True},
            "dark",
            None,
            (),
            "total",
            50,
            id="SF-CON-6 low-light vision in darkness: total",
        ),
        pytest.param({}, "dark", None, (), "total", 50, id="SF-CON-6 darkness: total 50 %"),
        pytest.param(
            {"darkvision": 60}, "dark", None, (), "none", 0, id="SF-CON-6 darkvision in range"
        ),
        pytest.param(
            {"darkvision": 35}, "dark", None, (), "total", 50, id="SF-CON-6 darkvision out of range"
        ),
        pytest.param({}, "bright", INVISIBLE, (), "total", 50, id="SF invisible: total"),
        pytest.param(
            {},
            "bright",
            None,
            [{"id": "c", "shape": FOG["shape"], "concealment": True}],
            "concealment",
            20,
            id="SF-CON-1 concealing region between",
        ),
        pytest.param(
            {},
            "dim",
            {"conditions": ["concealed"]},
            (),
            "concealment",
            20,
            id="SF-CON-3 dim and concealed do not stack",
        ),
    ],
)
def test_starfinder_concealment(senses, env, target_kw, regions, concealment, miss):
    res = see(senses, env, regions=regions, target_kw=target_kw, ruleset="starfinder")
    assert (res.concealment, res.miss_chance) == (concealment, miss)
    # API.md: detection and flat_check_dc are null outside pf2e-variant
    assert (res.detection, res.flat_check_dc, res.obscurement) == (None, None, "none")


def test_starfinder_sight_blocked_but_effect_passes_is_total_concealment():
    """SF-CON-4."""
    res = see({}, "bright", [FOG_WALL], ruleset="starfinder")
    assert (res.concealment, res.miss_chance) == ("total", 50)
    assert "SF-CON-4" in res.rules


@pytest.mark.parametrize(
    (
        "senses",
        "env",
        "target_kw",
        "regions",
        "observer_kw",
        "options",
        "detection",
        "concealed",
        "dc",
    ),
    [
        pytest.param(
            {}, "bright", None, (), None, {}, "observed", False, None, id="PV-DET-2 observed"
        ),
        pytest.param(
            {},
            "dim",
            None,
            (),
            None,
            {},
            "observed",
            True,
            5,
            id="PV-DET-6/9 dim light: concealed, DC 5",
        ),
        pytest.param(
            {"low_light_vision": True},
            "dim",
            None,
            (),
            None,
            {},
            "observed",
            False,
            None,
            id="PV-DET-9 low-light vision: not concealed",
        ),
        pytest.param(
            {}, "bright", None, [MIST], None, {}, "observed", True, 5, id="PV-DET-6 mist: concealed"
        ),
        pytest.param(
            {},
            "dark",
            None,
            (),
            None,
            {},
            "hidden",
            False,
            11,
            id="PV-DET-9 darkness, heard: hidden, DC 11",
        ),
        pytest.param(
            {},
            "dark",
            None,
            (),
            {"conditions": ["deafened"]},
            {},
            "undetected",
            False,
            11,
            id="PV-DET-9 darkness, deafened: undetected",
        ),
        pytest.param(
            {"darkvision": 60},
            "dark",
            None,
            (),
            None,
            {},
            "observed",
            False,
            None,
            id="PV-DET-2 darkvision: observed",
        ),
        pytest.param(
            {},
            "bright",
            INVISIBLE,
            (),
            None,
            {},
            "undetected",
            False,
            11,
            id="PV-DET-7 invisible: undetected",
        ),
        pytest.param(
            {},
            "bright",
            INVISIBLE,
            (),
            None,
            {"was_observing": ["T"]},
            "hidden",
            False,
            11,
            id="PV-DET-7 turned invisible while observed: hidden",
        ),
        pytest.param(
            {"blindsight": 60},
            "bright",
            INVISIBLE,
            (),
            None,
            {},
            "observed",
            False,
            None,
            id="PV-DET-7 other precise senses ignore invisibility",
        ),
        pytest.param(
            {},
            "bright",
            None,
            (),
            None,
            {"unnoticed": ["T"]},
            "unnoticed",
            False,
            None,
            id="PV-DET-5 unnoticed (GM input)",
        ),
    ],
)
def test_pf2e_detection(
    senses, env, target_kw, regions, observer_kw, options, detection, concealed, dc
):
    res = see(
        senses,
        env,
        regions=regions,
        target_kw=target_kw,
        observer_kw=observer_kw,
        ruleset="pf2e-variant",
        **options,
    )
    assert (res.detection, res.concealed, res.flat_check_dc) == (detection, concealed, dc)
    assert res.off_guard is (detection in ("hidden", "undetected"))
    assert res.save_disadvantage_levels == (1 if detection in ("hidden", "undetected") else 0)
    assert (res.concealment, res.miss_chance) == ("none", 0)


def test_pf2e_deafened_observer_auditory_flat_check():
    """PV-DET-8."""
    res = see({}, "bright", observer_kw={"conditions": ["deafened"]}, ruleset="pf2e-variant")
    assert res.auditory_flat_check_dc == 5


@pytest.mark.parametrize(
    ("ruleset", "reaching", "located"),
    [
        pytest.param(
            "dnd5e", ["hearing", "tremorsense"], ("tremorsense", True), id="5E tremorsense: precise"
        ),
        pytest.param("starfinder", ["tremorsense"], ("tremorsense", True), id="SF tremorsense"),
        pytest.param(
            "pf2e-variant", ["hearing", "tremorsense"], ("tremorsense", False), id="PV-DET-2"
        ),
        pytest.param("pf2e-variant", ["hearing"], ("hearing", False), id="PV-DET-2 hearing"),
        pytest.param("dnd5e", ["hearing"], ("hearing", False), id="5E hearing locates, not seen"),
        pytest.param("dnd5e", ["xray", "sight"], ("sight", True), id="5E-VIS-4 sight first"),
        pytest.param(
            "pf2e-variant",
            ["xray", "blindsight"],
            ("blindsight", True),
            id="PV-DET-2 blindsight before x-ray",
        ),
        pytest.param("starfinder", [], (None, False), id="nothing reaches"),
    ],
)
def test_each_rulesets_sense_order(ruleset, reaching, located):
    """A ruleset's ``senses`` table: the first precise sense that reaches sees the target,
    else the first imprecise one (hearing last) locates it (5E-VIS-4..10, PV-DET-2)."""
    order = rules.get(ruleset).senses
    reaches = {s: s in reaching for s in (*PRECISE, "hearing")}
    assert order.located(reaches) == located
    columns = {s: np.array([v]) for s, v in reaches.items()}
    assert order.located_all(columns) == ([located[0]], [located[1]])


@given(
    st.lists(st.frozensets(st.sampled_from([*PRECISE, "hearing"])), min_size=1, max_size=20),
    st.sampled_from(["dnd5e", "starfinder", "pf2e-variant"]),
)
def test_sense_order_of_many_pairs_is_each_pairs(rows, ruleset):
    """``SenseOrder.located_all`` (a vision matrix) reads each row as ``located``."""
    order = rules.get(ruleset).senses
    names = (*PRECISE, "hearing")
    columns = {s: np.array([s in row for row in rows]) for s in names}
    each = [order.located({s: s in row for s in names}) for row in rows]
    assert order.located_all(columns) == ([s for s, _ in each], [c for _, c in each])


RANGED_SENSES = ["darkvision", "devils_sight", "truesight", "blindsight", "tremorsense", "hearing"]


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize("sense", RANGED_SENSES)
def test_a_sense_of_range_zero_is_not_had_even_in_the_same_space(ruleset, sense):
    """``Senses``: a range of 0 means the creature does not have the sense (hearing 0:
    cannot hear), even toward a creature sharing its space (distance 0); a range of 5
    reaches it (5E-VIS-5..8, PV-DET-2)."""

    def located(rng):
        senses = {"hearing": 0, sense: rng}
        scene = load(
            [],
            [tok("O", 0, 0, senses=senses), tok("T", 0, 0)],
            environment={"light": "dark"},
        )
        built = build_scene(scene)
        res = vision_one(rules.get(ruleset), built, scene.token("O"), scene.token("T"), {})
        return res.sense

    assert located(0) is None
    assert located(5) == sense
