"""dnd5e cover tables: 5E-COV-1..8 (shared/RULES.md, seed dnd5e-zh_001)."""

from __future__ import annotations

import pytest

from service.engine.scene import build_scene
from service.rules.ask import cover_one
from service.rules.base import Attack
from service.rules.dnd5e import RULESET
from tests.scenes import T_EAST, T_SOUTHEAST, A, load, tok, wall


def cover(walls, tokens, attacker="A", target="T", attack=None, **options):
    scene = load(walls, tokens)
    geo = build_scene(scene)
    att = scene.token(attacker) if attacker else None
    return cover_one(RULESET, geo, att, scene.token(target), attack or Attack(), options)


PAIRED = [
    # Lines A1A2, B1B2 run at y=0.5, C1C2, D1D2 at y=99.5 (inset 0.5 px, GEO-6).
    pytest.param([], [A, T_EAST], "none", 0, id="5E-COV-5 no wall: 0 lines"),
    pytest.param(
        [wall("w", 250, 0, 250, 100)],
        [A, T_SOUTHEAST],
        "none",
        1,
        id="5E-COV-5 one line blocked: none",
    ),
    pytest.param(
        [wall("w", 250, -100, 250, 60)], [A, T_EAST], "half", 2, id="5E-COV-5 two lines: half"
    ),
    pytest.param(
        [wall("w", 250, 0, 250, 200)],
        [A, T_SOUTHEAST],
        "three-quarters",
        3,
        id="5E-COV-5 three lines: three-quarters",
    ),
    pytest.param(
        [wall("w", 250, -1000, 250, 1000)], [A, T_EAST], "total", 4, id="5E-COV-5 four lines: total"
    ),
    pytest.param(
        [wall("w", 250, 50, 250, 1000)], [A, T_EAST], "half", 2, id="5E-COV-5 lower half wall: half"
    ),
]


@pytest.mark.parametrize(("walls", "tokens", "degree", "blocked"), PAIRED)
def test_paired_corner_counts(walls, tokens, degree, blocked):
    res = cover(walls, tokens)
    assert res.cover == degree
    assert sum(line.blocked for line in res.lines) == blocked
    assert "5E-COV-5" in res.rules


@pytest.mark.parametrize(
    ("degree_walls", "ac", "can_target"),
    [
        pytest.param([], 0, True, id="5E-COV-3 none +0"),
        pytest.param([wall("w", 250, -100, 250, 60)], 2, True, id="5E-COV-3 half +2"),
        pytest.param(
            [wall("w", 250, -1000, 250, 1000)], None, False, id="5E-COV-3 total: cannot be targeted"
        ),
    ],
)
def test_bonuses(degree_walls, ac, can_target):
    res = cover(degree_walls, [A, T_EAST])
    assert res.ac_bonus == ac
    assert res.save_bonus == ac
    assert res.can_target is can_target
    assert res.advantage_levels == 0


def test_three_quarters_bonus_is_five():
    res = cover([wall("w", 250, 0, 250, 200)], [A, T_SOUTHEAST])
    assert (res.cover, res.ac_bonus, res.save_bonus) == ("three-quarters", 5, 5)


def test_paired_corner_lines_join_matching_corners():
    """5E-COV-5: A1A2, B1B2, C1C2, D1D2 in that order, inset 0.5 px."""
    res = cover([], [A, T_SOUTHEAST])
    assert [(line.start, line.end) for line in res.lines] == [
        ((0.5, 0.5), (400.5, 200.5)),
        ((99.5, 0.5), (499.5, 200.5)),
        ((99.5, 99.5), (499.5, 299.5)),
        ((0.5, 99.5), (400.5, 299.5)),
    ]


def test_corner_inset_option_moves_the_corners():
    res = cover([], [A, T_EAST], corner_inset=10)
    assert res.lines[0].start == (10.0, 10.0)
    assert res.lines[2].end == (490.0, 90.0)


@pytest.mark.parametrize(
    ("tokens", "degree", "rule"),
    [
        pytest.param(
            [A, T_EAST, tok("C", 200, 0)],
            "half",
            "5E-COV-6",
            id="5E-COV-6 creature blocks 4 lines: at most half",
        ),
        pytest.param(
            [A, T_EAST, tok("C", 200, -50)],
            "half",
            "5E-COV-6",
            id="5E-COV-6 creature blocks 2 lines: half",
        ),
        pytest.param(
            [A, T_EAST, tok("C", 200, 100)],
            "none",
            None,
            id="GEO-7 creature touching the lines' edge only: none",
        ),
        pytest.param(
            [A, T_EAST, tok("C", 400, 0)],
            "none",
            "5E-COV-7",
            id="5E-COV-7 creature sharing the target's space: none",
        ),
        pytest.param(
            [A, T_EAST, tok("C", 50, 0)],
            "half",
            "5E-COV-6",
            id="GEO-7 creature only partly overlapping the attacker's space: still half",
        ),
        pytest.param(
            [A, T_EAST, tok("C", 0, 0)],
            "none",
            "5E-COV-7",
            id="5E-COV-7 creature in the attacker's own space: none",
        ),
    ],
)
def test_creatures(tokens, degree, rule):
    res = cover([], tokens)
    assert res.cover == degree
    if rule:
        assert rule in res.rules
    if degree == "half":
        assert {b.id for line in res.lines for b in line.blockers} == {"C"}
        assert all(b.kind == "token" for line in res.lines for b in line.blockers)


def test_highest_single_source_wall_beats_creature():
    """5E-COV-4: a creature (half) and a wall (three-quarters): three-quarters."""
    res = cover([wall("w", 250, 0, 250, 200)], [A, T_SOUTHEAST, tok("C", 100, 0)])
    assert res.cover == "three-quarters"


def test_creatures_and_walls_do_not_stack():
    """5E-COV-4/6: two lines by a wall + two by a creature: half, not total."""
    res = cover([wall("w", 250, -100, 250, 60)], [A, T_EAST, tok("C", 150, 50)])
    assert sum(line.blocked for line in res.lines) == 4
    assert res.cover == "half"


@pytest.mark.parametrize(
    ("walls", "degree"),
    [
        pytest.param(
            [wall("fog", 250, -1000, 250, 1000, move="none")],
            "none",
            id="5E-COV-1 fog/ink wall (sight only): no cover",
        ),
        pytest.param(
            [wall("glass", 250, -1000, 250, 1000, sight="none", light="none")],
            "total",
            id="5E-COV-1/5E-VIS-10 glass is cover",
        ),
        pytest.param(
            [wall("d", 250, -1000, 250, 1000, door="door", door_state="open")],
            "none",
            id="GEO-2 open door",
        ),
        pytest.param(
            [wall("d", 250, -1000, 250, 1000, door="secret", door_state="locked")],
            "total",
            id="GEO-2 locked secret door",
        ),
    ],
)
def test_what_gives_cover(walls, degree):
    assert cover(walls, [A, T_EAST]).cover == degree


def test_liquids_and_gases_give_no_cover():
    """5E-COV-1: a heavily obscured region (fog) between them gives no cover."""
    scene_regions = [
        {
            "id": "fog",
            "shape": {"type": "rect", "x": 200, "y": -200, "width": 100, "height": 500},
            "obscurement": "heavy",
        }
    ]
    scene = load([], [A, T_EAST], regions=scene_regions)
    res = cover_one(RULESET, build_scene(scene), scene.token("A"), scene.token("T"), Attack(), {})
    assert res.cover == "none"


def test_cover_only_from_the_far_side():
    """5E-COV-2: a wall behind the target (not between) gives no cover."""
    assert cover([wall("w", 550, -1000, 550, 1000)], [A, T_EAST]).cover == "none"


def test_one_way_wall_depends_on_the_attackers_side():
    """GEO-3 in cover: a one-way wall blocks only attacks from its blocking side."""
    # Directed downward at x=250: left of (250,-1000)->(250,1000) on screen is x > 250.
    w = wall("w", 250, -1000, 250, 1000, direction="left")
    assert cover([w], [A, T_EAST]).cover == "none"
    assert cover([w], [A, T_EAST], attacker="T", target="A").cover == "total"


def test_wall_height_and_elevation():
    """GEO-5: a 10-ft wall does not block two creatures flying at 30 ft."""
    low = wall("w", 250, -1000, 250, 1000, height={"bottom": 0, "top": 10})
    assert cover([low], [A, T_EAST]).cover == "total"
    flying = [tok("A", 0, 0, elevation=30), tok("T", 400, 0, elevation=30)]
    assert cover([low], flying).cover == "none"


@pytest.mark.parametrize(
    ("walls", "tokens", "paired", "dmg"),
    [
        pytest.param(
            [wall("w", 250, -100, 250, 60)],
            [A, T_EAST],
            "half",
            "half",
            id="5E-COV-8 half wall: both half",
        ),
        pytest.param(
            [wall("w", 250, 40, 250, 60)],
            [A, T_EAST],
            "none",
            "half",
            id="5E-COV-8 small post: every corner has one blocked line",
        ),
        pytest.param(
            [wall("w", 250, 0, 250, 100)],
            [A, T_SOUTHEAST],
            "none",
            "none",
            id="5E-COV-8 corner D sees all: none",
        ),
        pytest.param(
            [wall("w", 250, -1000, 250, 1000)],
            [A, T_EAST],
            "total",
            "total",
            id="5E-COV-8 full wall, no line of effect: total",
        ),
        pytest.param(
            [wall("w", 250, -1000, 250, 1000)],
            [A, T_EAST, tok("C", 200, 0)],
            "total",
            "total",
            id="5E-COV-8 wall and creature: total",
        ),
    ],
)
def test_dmg_corner_variant(walls, tokens, paired, dmg):
    assert cover(walls, tokens).cover == paired
    res = cover(walls, tokens, cover_method="dmg-corner")
    assert res.cover == dmg
    assert "5E-COV-8" in res.rules
    assert len(res.lines) == 4


def test_dmg_corner_all_lines_blocked_but_line_of_effect_is_three_quarters():
    """5E-COV-8: 4 blocked lines from every corner, yet an exact line exists: three-quarters."""
    # Two walls leave only a slit at y 49..51 that no corner line passes through.
    walls = [wall("n", 250, -1000, 250, 49), wall("s", 250, 51, 250, 1000)]
    res = cover(walls, [A, T_EAST], cover_method="dmg-corner")
    assert res.line_of_effect is True
    assert res.cover == "three-quarters"
    assert cover(walls, [A, T_EAST]).cover == "total"


def test_area_effect_from_origin():
    """Area effects trace from the point of origin to the target's corners."""
    res = cover(
        [wall("w", 250, -100, 250, 60)],
        [A, T_EAST],
        attacker=None,
        attack=Attack("area", (150.0, 50.0)),
    )
    assert [line.start for line in res.lines] == [(150.0, 50.0)] * 4
    assert res.cover == "half"


def test_large_attacker_uses_the_corners_of_its_whole_space():
    res = cover([], [tok("A", 0, 0, 2), tok("T", 400, 0)])
    assert res.lines[2].start == (199.5, 199.5)


def test_line_of_effect_is_exact():
    """5E-LOE-2: a slit between two walls is line of effect though the corners see none."""
    walls = [wall("n", 250, -1000, 250, 49), wall("s", 250, 51, 250, 1000)]
    res = cover(walls, [A, T_EAST])
    assert res.line_of_effect is True
    assert res.notes  # explains total-by-corners despite a clear line


def test_low_wall_gives_at_most_half_cover():
    """5E-COV-3 (the seed's example of half cover is a low wall): never more than half."""
    low = wall("low", 250, -1000, 250, 1000, cover="low")
    res = cover([low], [A, T_EAST])
    assert sum(line.blocked for line in res.lines) == 4
    assert res.cover == "half"
    assert res.line_of_effect is True  # one can shoot over a low wall


@pytest.mark.parametrize("method", ["paired-corners", "dmg-corner"])
@pytest.mark.parametrize("target", ["kobold", "bat"])
def test_sealed_room_is_total_cover_whatever_the_method(method, target):
    """GEO-6/5E-LOE-2: no line slips through the joints of a wall made of pieces and a door.

    Regression for the whole kind: candidate lines of the exact search pass through wall
    joints up to float error; walls meeting there must all be found and block.
    """
    from schemas.scene import SceneSchema
    from service.app import sample_scene

    scene = SceneSchema().load(sample_scene())
    geo = build_scene(scene)
    res = cover_one(
        RULESET,
        geo,
        scene.token("fighter"),
        scene.token(target),
        Attack(),
        {"cover_method": method},
    )
    assert (res.cover, res.line_of_effect, res.can_target) == ("total", False, False)
    assert not res.notes


def _geo_cover(scene_kw, tokens, attack=None):
    scene = load([], tokens, **scene_kw)
    return cover_one(
        RULESET, build_scene(scene), scene.token("A"), scene.token("T"), attack or Attack(), {}
    )


WATER = {
    "id": "lake",
    "shape": {"type": "rect", "x": 300, "y": -500, "width": 1000, "height": 1000},
    "water": True,
}


@pytest.mark.parametrize(
    ("scene_kw", "attacker_kw", "attack", "expected"),
    [
        pytest.param(
            {"regions": [WATER]},
            {},
            Attack("ranged"),
            [("5E-UW-9", "attack_disadvantage_levels", 1)],
            id="5E-UW-9 ranged attack into water: refraction",
        ),
        pytest.param(
            {"regions": [WATER]},
            {"senses": {"blindsight": 30}},
            Attack("ranged"),
            [],
            id="5E-UW-9 blindsight ignores refraction",
        ),
        pytest.param(
            {"regions": [WATER]},
            {},
            Attack("melee"),
            [],
            id="5E-UW-9 refraction is for ranged attacks",
        ),
        pytest.param(
            {"environment": {"underwater": True}},
            {},
            Attack("ranged"),
            [],
            id="5E-UW-9 both under water: no surface crossed",
        ),
        pytest.param(
            {"environment": {"gravity": 3}},
            {"abilities": {"str": 1}},
            Attack("ranged"),
            [
                ("5E-GRV-3", "attack_disadvantage_levels", 2),
                ("5E-GRV-4", "dex_save_disadvantage_levels", 3),
            ],
            id="5E-GRV-3/4 scene gravity 3: Str +1 attacker, Dex +0 target",
        ),
        pytest.param(
            {
                "regions": [
                    {
                        "id": "g",
                        "shape": {"type": "rect", "x": -50, "y": -50, "width": 200, "height": 200},
                        "gravity": 2,
                    }
                ]
            },
            {},
            Attack("melee"),
            [("5E-GRV-3", "attack_disadvantage_levels", 2)],
            id="5E-GRV-3 gravity region around the attacker only",
        ),
        pytest.param({}, {}, Attack("ranged"), [], id="standard gravity, dry: nothing"),
    ],
)
def test_scene_environment_feeds_cover_modifiers(scene_kw, attacker_kw, attack, expected):
    res = _geo_cover(scene_kw, [tok("A", 0, 0, **attacker_kw), T_EAST], attack)
    assert [(m.rule, m.applies_to, m.value) for m in res.modifiers] == expected
