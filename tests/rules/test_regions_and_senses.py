"""Per ruleset: region flags (GEO-9), senses (PV-DET-2/7/9), hidden and downed
obstacles (``ignore_hidden``, ``ignore_prone_or_dead``), the GM options and rule lists.

Layout as ``tests/rules/test_vision.py``: observer O at the top-left square, target T four
squares east; grid 100 px = 5 ft.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service import rules
from service.engine.scene import build_scene
from service.rules.ask import cover_one, vision_one
from service.rules.base import Attack
from tests.scenes import load, tok, wall

RULESETS = ("dnd5e", "starfinder", "pf2e-variant")


def rect(rid, x, y, w, h, **kw):
    return {"id": rid, "shape": {"type": "rect", "x": x, "y": y, "width": w, "height": h}, **kw}


#: Regions over the whole target square (400..500) and the line to it.
MIST = rect("mist", 350, -50, 200, 200, obscurement="light")
SMOKE = rect("smoke", 350, -50, 200, 200, concealment=True)
DENSE = rect("fog", 350, -50, 200, 200, obscurement="heavy")
#: Dense fog over only the target's east half (the handed case 5e-target-half-in-dense-fog).
HALF_DENSE = rect("fog", 450, -100, 250, 300, obscurement="heavy")


def see(ruleset, *, regions=(), env="bright", senses=None, target_kw=None, lights=(), **options):
    scene = load(
        [],
        [tok("O", 0, 0, senses=senses or {}), tok("T", 400, 0, **(target_kw or {}))],
        regions=list(regions),
        lights=list(lights),
        environment={"light": env},
    )
    system = rules.get(ruleset)
    return vision_one(system, build_scene(scene), scene.token("O"), scene.token("T"), options)


# ------------------------------------------------------------------ GEO-9 region flags


@pytest.mark.parametrize(
    ("region", "can_see", "obscurement"),
    [
        pytest.param(None, True, "none", id="5E-VIS-1 no region"),
        pytest.param(MIST, True, "light", id="5E-VIS-1 mist: lightly obscured"),
        pytest.param(SMOKE, True, "light", id="GEO-9 concealment flag = light obscurement"),
        pytest.param(HALF_DENSE, True, "light", id="5E-VIS-1 target half in dense fog: light"),
        pytest.param(DENSE, False, "heavy", id="5E-VIS-1/2 target wholly in dense fog"),
    ],
)
def test_dnd5e_region_table(region, can_see, obscurement):
    """GEO-9 in dnd5e: light → lightly obscured; heavy → heavily obscured only wholly inside."""
    r = see("dnd5e", regions=[region] if region else [])
    assert (r.can_see, r.obscurement) == (can_see, obscurement)
    assert r.perception_disadvantage is (obscurement == "light")


@pytest.mark.parametrize(
    ("region", "detection", "concealed", "dc"),
    [
        pytest.param(None, "observed", False, None, id="PV-DET-2 no region: observed"),
        pytest.param(MIST, "observed", True, 5, id="PV-DET-6 mist conceals"),
        pytest.param(SMOKE, "observed", True, 5, id="PV-DET-6 concealment flag conceals"),
        pytest.param(HALF_DENSE, "observed", True, 5, id="PV-DET-6 heavy at least as light"),
        pytest.param(DENSE, "hidden", True, 11, id="PV-DET-9 dense fog: hidden by hearing"),
    ],
)
def test_pf2e_region_table(region, detection, concealed, dc):
    """GEO-9 in pf2e-variant: concealing regions conceal (PV-DET-6); heavy blocks (PV-DET-9)."""
    r = see("pf2e-variant", regions=[region] if region else [])
    assert (r.detection, r.concealed, r.flat_check_dc) == (detection, concealed, dc)


def test_pf2e_region_on_the_line_conceals():
    """PV-DET-6 Decision: a concealing region the line passes through conceals the target."""
    between = rect("smoke", 200, -50, 100, 200, concealment=True)
    r = see("pf2e-variant", regions=[between])
    assert (r.detection, r.concealed, r.flat_check_dc) == ("observed", True, 5)
    assert "GEO-9" in r.rules


@pytest.mark.parametrize(
    ("region", "concealment", "miss"),
    [
        pytest.param(None, "none", 0, id="SF-CON-1 no region"),
        pytest.param(MIST, "concealment", 20, id="GEO-9 light obscurement: concealment 20 %"),
        pytest.param(SMOKE, "concealment", 20, id="SF-CON-1 concealment flag: 20 %"),
        pytest.param(HALF_DENSE, "concealment", 20, id="GEO-9 heavy not blocking sight: 20 %"),
        pytest.param(DENSE, "total", 50, id="GEO-9 heavy blocking sight: total 50 %"),
    ],
)
def test_starfinder_region_table(region, concealment, miss):
    """GEO-9 in starfinder: light → 20 %; heavy → total 50 % where it blocks sight."""
    r = see("starfinder", regions=[region] if region else [])
    assert (r.concealment, r.miss_chance) == (concealment, miss)
    assert r.rules  # never empty


@pytest.mark.parametrize("ruleset", RULESETS)
def test_starfinder_cover_answers_regions_like_vision(ruleset):
    """GEO-9: a mist region between attacker and target conceals in starfinder cover too."""
    scene = load([], [tok("O", 0, 0), tok("T", 400, 0)], regions=[MIST])
    built = build_scene(scene)
    r = cover_one(
        rules.get(ruleset), built, scene.token("O"), scene.token("T"), Attack("ranged"), {}
    )
    if ruleset == "starfinder":
        assert (r.concealment, r.miss_chance) == ("concealment", 20)
    assert r.cover == "none"  # 5E-COV-1: gases give no cover


@settings(max_examples=40, deadline=None)
@given(
    x=st.integers(0, 900),
    w=st.integers(20, 600),
    kind=st.sampled_from(["light", "heavy"]),
    env=st.sampled_from(["bright", "dim", "dark"]),
    senses=st.sampled_from([{}, {"darkvision": 60}, {"truesight": 60}, {"xray": 60}]),
)
def test_property_dnd5e_never_heavy_and_seen(x, w, kind, env, senses):
    """5E-VIS-1: one answer never says ``obscurement: heavy`` and ``can_see: true``."""
    fog = rect("fog", x, -100, w, 300, obscurement=kind)
    r = see("dnd5e", regions=[fog], env=env, senses=senses)
    assert not (r.obscurement == "heavy" and r.can_see)


# ------------------------------------------------------------------ senses (pf2e-variant)


@pytest.mark.parametrize(
    ("senses", "target_kw", "env", "options", "detection", "sense"),
    [
        pytest.param(
            {"tremorsense": 30},
            {"conditions": ["invisible"]},
            "bright",
            {},
            "hidden",
            "tremorsense",
            id="PV-DET-2/7 invisible, tremorsense (imprecise): hidden",
        ),
        pytest.param(
            {"tremorsense": 30},
            {},
            "dark",
            {},
            "hidden",
            "tremorsense",
            id="PV-DET-2 tremorsense in the dark: at best hidden",
        ),
        pytest.param(
            {"tremorsense": 30, "hearing": 0},
            {},
            "dark",
            {},
            "hidden",
            "tremorsense",
            id="PV-DET-2 tremorsense without hearing: hidden",
        ),
        pytest.param(
            {},
            {"conditions": ["invisible"]},
            "bright",
            {},
            "undetected",
            "hearing",
            id="PV-DET-7 invisible, sight only: undetected even if heard",
        ),
        pytest.param(
            {"see_invisibility": 60},
            {"conditions": ["invisible"]},
            "dark",
            {},
            "hidden",
            "hearing",
            id="PV-DET-9 sees invisible, in the dark: hidden by hearing",
        ),
        pytest.param(
            {"see_invisibility": 60},
            {"conditions": ["invisible"]},
            "bright",
            {},
            "observed",
            "sight",
            id="PV-DET-9 sees invisible, in light: observed",
        ),
        pytest.param(
            {"blindsight": 30},
            {"conditions": ["invisible"]},
            "dark",
            {},
            "observed",
            "blindsight",
            id="PV-DET-2/7 blindsight (precise): observed",
        ),
        pytest.param(
            {},
            {"conditions": ["invisible"]},
            "bright",
            {"was_observing": ["T"]},
            "hidden",
            "hearing",
            id="PV-DET-7 was observing: hidden",
        ),
        pytest.param({}, {}, "dark", {}, "hidden", "hearing", id="PV-DET-9 dark, heard: hidden"),
        pytest.param(
            {"hearing": 0},
            {},
            "dark",
            {},
            "undetected",
            None,
            id="PV-DET-9 dark, not heard: undetected",
        ),
    ],
)
def test_pf2e_senses_table(senses, target_kw, env, options, detection, sense):
    """PV-DET-2 (tremorsense imprecise), PV-DET-7, PV-DET-9 (an observer that sees invisible)."""
    r = see("pf2e-variant", senses=senses, target_kw=target_kw, env=env, **options)
    assert (r.detection, r.sense) == (detection, sense)
    assert r.can_see is (detection == "observed")


def test_dnd5e_tremorsense_stays_precise():
    """API.md: tremorsense locates (``can_see``) in dnd5e; only pf2e-variant reads it imprecise."""
    r = see("dnd5e", senses={"tremorsense": 30}, target_kw={"conditions": ["invisible"]})
    assert (r.can_see, r.sense) == (True, "tremorsense")


# ------------------------------------------------------------------ GM options


@pytest.mark.parametrize(
    ("option", "light_level", "obscurement"),
    [
        pytest.param(False, "dim", "light", id="5E-VIS-5 seed: dim stays lightly obscured"),
        pytest.param(True, "dim", "none", id="option darkvision_dim_as_bright: dim as bright"),
        pytest.param(True, "dark", "light", id="option: darkness still dim for darkvision"),
    ],
)
def test_darkvision_dim_as_bright(option, light_level, obscurement):
    """GM option (published 5e): within darkvision range, dim light counts as bright."""
    r = see("dnd5e", env=light_level, senses={"darkvision": 60}, darkvision_dim_as_bright=option)
    assert (r.can_see, r.obscurement) == (True, obscurement)


def test_darkvision_dim_as_bright_needs_range():
    r = see("dnd5e", env="dim", senses={"darkvision": 10}, darkvision_dim_as_bright=True)
    assert r.obscurement == "light"  # 20 ft away, beyond 10 ft of darkvision


DARK_WALL = rect("night", 200, -500, 100, 1000, magical_darkness=True)


@pytest.mark.parametrize(
    ("senses", "option", "can_see"),
    [
        pytest.param({}, False, True, id="5E-VIS-4 seed: darkness between does not block"),
        pytest.param({}, True, False, id="option: magical darkness blocks sight through it"),
        pytest.param({"darkvision": 60}, True, False, id="option: darkvision blocked too"),
        pytest.param({"devils_sight": 60}, True, True, id="option: devil's sight sees through"),
        pytest.param({"truesight": 60}, True, True, id="option: truesight sees through"),
    ],
)
@pytest.mark.parametrize("ruleset", RULESETS)
def test_magical_darkness_blocks_sight(ruleset, senses, option, can_see):
    """GM option (Foundry v12): magical darkness between the two blocks sight through it."""
    r = see(ruleset, regions=[DARK_WALL], senses=senses, magical_darkness_blocks_sight=option)
    assert r.can_see is can_see
    assert r.light == "bright"  # the target itself stands in light


def test_magical_darkness_partly_across_does_not_block():
    """The option blocks only when every sampled line crosses the darkness."""
    corner = rect("night", 200, 60, 100, 500, magical_darkness=True)  # below most lines
    r = see("dnd5e", regions=[corner], magical_darkness_blocks_sight=True)
    assert r.can_see is True


@pytest.mark.parametrize(
    ("option", "miss", "rule"),
    [
        pytest.param(None, 20, False, id="SF-CON-3 computed: 20 %"),
        pytest.param(35, 35, True, id="SF-CON-7 GM override 35 %"),
        pytest.param(0, 0, True, id="SF-CON-7 GM override 0 %"),
    ],
)
def test_starfinder_miss_chance_override(option, miss, rule):
    """SF-CON-7: ``miss_chance`` replaces the computed miss chance, cited as SF-CON-7."""
    opts = {} if option is None else {"miss_chance": option}
    r = see("starfinder", regions=[MIST], **opts)
    assert r.miss_chance == miss
    assert ("SF-CON-7" in r.rules) is rule
    scene = load([], [tok("O", 0, 0), tok("T", 400, 0)], regions=[MIST])
    c = cover_one(
        rules.get("starfinder"),
        build_scene(scene),
        scene.token("O"),
        scene.token("T"),
        Attack("ranged"),
        opts,
    )
    assert c.miss_chance == miss
    assert ("SF-CON-7" in c.rules) is rule


# ------------------------------------------------------------------ obstacle options

#: A creature standing between attacker A and target T (4 squares apart): 5 ft in between.
BLOCKER_AT = (200, 0)
EXPECTED_COVER = {"dnd5e": "half", "starfinder": "soft", "pf2e-variant": "lesser"}


def cover_with(ruleset, blocker_kw, **options):
    scene = load([], [tok("A", 0, 0), tok("T", 400, 0), tok("B", *BLOCKER_AT, **blocker_kw)])
    return cover_one(
        rules.get(ruleset),
        build_scene(scene),
        scene.token("A"),
        scene.token("T"),
        Attack("ranged"),
        options,
    ).cover


@pytest.mark.parametrize(
    ("blocker_kw", "options", "blocks"),
    [
        pytest.param({}, {}, True, id="GEO-7 a creature between gives cover"),
        pytest.param({"hidden": True}, {}, True, id="hidden token, option off: still blocks"),
        pytest.param({"hidden": True}, {"ignore_hidden": True}, False, id="ignore_hidden"),
        pytest.param({}, {"ignore_hidden": True}, True, id="ignore_hidden: visible still blocks"),
        pytest.param(
            {"conditions": ["prone"]},
            {"ignore_prone_or_dead": True},
            False,
            id="ignore_prone_or_dead: prone",
        ),
        pytest.param(
            {"conditions": ["dead"]},
            {"ignore_prone_or_dead": True},
            False,
            id="ignore_prone_or_dead: dead",
        ),
        pytest.param({"conditions": ["prone"]}, {}, True, id="prone, option off: blocks"),
    ],
)
@pytest.mark.parametrize("ruleset", RULESETS)
def test_obstacle_options(ruleset, blocker_kw, options, blocks):
    """``ignore_hidden`` / ``ignore_prone_or_dead``: such tokens neither block nor give cover."""
    got = cover_with(ruleset, blocker_kw, **options)
    assert got == (EXPECTED_COVER[ruleset] if blocks else "none")


# ------------------------------------------------------------------ rule lists


def test_starfinder_vision_rules_never_empty():
    """API.md: every result lists the rules that decided it (SF-CON-1 lines, SF-CON-6 light)."""
    r = see("starfinder")
    assert {"SF-CON-1", "SF-CON-6"} <= set(r.rules)


@pytest.mark.parametrize(
    ("kind", "target_conditions", "attacker_conditions", "rule"),
    [
        pytest.param("ranged", ["prone"], [], "SF-PRN-1", id="SF-PRN-1 prone target, ranged"),
        pytest.param("melee", ["prone"], [], "SF-PRN-1", id="SF-PRN-1 prone target, melee"),
        pytest.param("melee", [], ["prone"], "SF-PRN-1", id="SF-PRN-1 prone attacker, melee"),
    ],
)
def test_starfinder_prone_rule_listed(kind, target_conditions, attacker_conditions, rule):
    """SF-PRN-1 is in ``rules`` whenever its modifiers come with the answer."""
    scene = load(
        [],
        [
            tok("A", 0, 0, conditions=attacker_conditions),
            tok("T", 100, 0, conditions=target_conditions),
        ],
    )
    r = cover_one(
        rules.get("starfinder"),
        build_scene(scene),
        scene.token("A"),
        scene.token("T"),
        Attack(kind),
        {},
    )
    assert r.modifiers
    assert rule in r.rules


@pytest.mark.parametrize(
    ("wall_x", "rule"),
    [
        pytest.param(350, True, id="SF-COV-5 low wall next to the target: cover, cited"),
        pytest.param(50, True, id="SF-COV-5 attacker closer to it: ignored, cited"),
    ],
)
def test_starfinder_low_obstacle_rule_listed(wall_x, rule):
    """SF-COV-5 is in ``rules`` when a low obstacle was weighed for the pair."""
    low = wall("low", wall_x, -200, wall_x, 300, cover="low")
    scene = load([low], [tok("A", 0, 0), tok("T", 400, 0)])
    r = cover_one(
        rules.get("starfinder"),
        build_scene(scene),
        scene.token("A"),
        scene.token("T"),
        Attack("ranged"),
        {},
    )
    assert ("SF-COV-5" in r.rules) is rule


@settings(max_examples=30, deadline=None)
@given(
    bx=st.integers(-2, 6),
    by=st.integers(-2, 2),
    size=st.sampled_from([0.5, 1, 2]),
    ruleset=st.sampled_from(RULESETS),
    kind=st.sampled_from(["ranged", "melee"]),
)
def test_property_ignore_hidden_is_as_if_absent(bx, by, size, ruleset, kind):
    """``ignore_hidden``: the answer is the one of the scene without the hidden tokens."""
    walls = [wall("w", 250, 60, 250, 400)]
    base = [tok("A", 0, 0), tok("T", 400, 0)]
    hidden = tok("H", bx * 100, by * 100, size, hidden=True)
    system = rules.get(ruleset)

    def answer(tokens, options):
        scene = load(walls, tokens)
        r = cover_one(
            system,
            build_scene(scene),
            scene.token("A"),
            scene.token("T"),
            Attack(kind),
            options,
        )
        return (r.cover, r.ac_bonus, r.line_of_effect, r.concealment)

    assert answer([*base, hidden], {"ignore_hidden": True}) == answer(base, {})
