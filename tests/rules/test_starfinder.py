"""starfinder tables: SF-COV-1..9, SF-CON-1..5, SF-FLK-1, SF-PRN-1/2 (shared/RULES.md)."""

from __future__ import annotations

import pytest

from service.engine.scene import build_scene
from service.rules.ask import cover_one
from service.rules.base import Attack
from service.rules.starfinder import RULESET
from tests.scenes import T_EAST, A, load, tok, wall

FULL = wall("w", 250, -1000, 250, 1000)
HALF = wall("w", 250, -100, 250, 60)


def sf(walls, tokens, attacker="A", target="T", attack=None, regions=(), **options):
    scene = load(walls, tokens, regions=list(regions))
    att = scene.token(attacker) if attacker else None
    return cover_one(
        RULESET, build_scene(scene), att, scene.token(target), attack or Attack(), options
    )


def rect(rid, x, y, w, h, **kw):
    return {"id": rid, "shape": {"type": "rect", "x": x, "y": y, "width": w, "height": h}, **kw}


@pytest.mark.parametrize(
    ("walls", "tokens", "options", "degree", "ac", "reflex"),
    [
        pytest.param(
            [HALF],
            [A, T_EAST],
            {},
            "cover",
            4,
            2,
            id="SF-COV-1/2 every corner has a blocked line: cover +4/+2",
        ),
        pytest.param(
            [wall("w", 250, -100, 250, 20)],
            [A, T_EAST],
            {},
            "none",
            0,
            0,
            id="SF-COV-1 corner C sees all four corners: none",
        ),
        pytest.param(
            [],
            [A, T_EAST, tok("C", 200, 0)],
            {},
            "soft",
            4,
            0,
            id="SF-COV-6 creature between, ranged: soft +4/+0",
        ),
        pytest.param(
            [wall("w", 250, -100, 250, 60, cover="improved")],
            [A, T_EAST],
            {},
            "improved",
            8,
            4,
            id="SF-COV-8 improved wall: +8/+4",
        ),
        pytest.param(
            [wall("w", 250, -100, 250, 60, cover="extreme")],
            [A, T_EAST],
            {},
            "improved",
            8,
            4,
            id="SF-COV-8 extreme wall counts as improved",
        ),
        pytest.param(
            [HALF],
            [A, T_EAST],
            {"partial_cover": ["T"]},
            "partial",
            2,
            1,
            id="SF-COV-7 partial cover flag: +2/+1",
        ),
        pytest.param(
            [],
            [A, T_EAST],
            {"partial_cover": ["T"]},
            "none",
            0,
            0,
            id="SF-COV-7 flag without cover changes nothing",
        ),
        pytest.param([FULL], [A, T_EAST], {}, "total", None, None, id="SF-COV-9 full wall: total"),
        pytest.param(
            [wall("g", 250, -1000, 250, 1000, sight="none")],
            [A, T_EAST],
            {},
            "total",
            None,
            None,
            id="SF-COV-9 glass: no line of effect, total",
        ),
    ],
)
def test_cover_degrees(walls, tokens, options, degree, ac, reflex):
    res = sf(walls, tokens, **options)
    assert (res.cover, res.ac_bonus, res.save_bonus) == (degree, ac, reflex)
    assert res.can_target is (degree != "total")
    assert "SF-COV-1" in res.rules


def test_cover_forbids_attacks_of_opportunity():
    """SF-COV-4."""
    res = sf([HALF], [A, T_EAST])
    assert "SF-COV-4" in res.rules


def test_running_along_a_wall_counts():
    """SF-COV-1 exception to GEO-6: lines along the wall under both tokens are blocked."""
    walls = [wall("edge", -1000, 100, 1000, 100), wall("post", 250, -1000, 250, 50)]
    res = sf(walls, [A, T_EAST])
    assert res.cover == "cover"
    # The lines from the chosen corner show what blocked them.
    assert any(b.id == "edge" for line in res.lines for b in line.blockers) or any(
        b.id == "post" for line in res.lines for b in line.blockers
    )


def test_multi_square_attacker_picks_among_all_its_squares():
    """SF-COV-1: a 2x2 attacker has 9 corner points; the middle one may see past a post."""
    # Post blocks lines from the attacker's outer corners to the target's top corners, the
    # target stands level with the attacker's middle row.
    big = tok("A", 0, 0, 2)
    target = tok("T", 600, 50)
    res = sf([wall("w", 400, 0, 400, 40)], [big, target])
    assert res.cover == "none"


@pytest.mark.parametrize(
    ("squares", "corners", "cut"),
    [(2, 9, False), (8, 81, False), (16, 289, True), (300, 301 * 301, True)],
)
def test_huge_attackers_try_the_corners_nearest_the_target(squares, corners, cut):
    """SF-COV-1 for a huge space: at most MAX_SOURCE_CORNERS corners, the nearest; said so.

    A 300-square attacker used to trace 90,601 corners x 4 lines (a worker timed out).
    """
    big = tok("A", 0, 0, squares)
    target = tok("T", squares * 100 + 400, 0)
    post = wall("post", squares * 100 + 200, -100, squares * 100 + 200, 40)
    res = sf([post], [big, target])
    note = f"SF-COV-1: the attacker's space has {corners} square corners; the 256 nearest"
    assert any(n.startswith(note) for n in res.notes) is cut
    assert res.cover == "none"  # the corners low on the near edge see under the post
    assert len(res.lines) == 4 and not any(line.blocked for line in res.lines)


def test_soft_cover_is_ranged_only():
    """SF-COV-6: creatures give no cover against melee."""
    res = sf([], [A, T_EAST, tok("C", 200, 0)], attack=Attack("melee"))
    assert res.cover == "none"


def test_area_effects_cancel_cover():
    """SF-COV-3: spread effects go around corners and cancel cover bonuses."""
    res = sf([HALF], [A, T_EAST], attacker=None, attack=Attack("area", (50.0, 50.0)))
    assert (res.cover, res.ac_bonus, res.save_bonus) == ("none", 0, 0)
    assert "SF-COV-3" in res.rules and res.can_target


LOW = wall("low", 350, -1000, 350, 1000, cover="low")


@pytest.mark.parametrize(
    ("tokens", "degree"),
    [
        pytest.param([A, T_EAST], "cover", id="SF-COV-5 target next to the low wall: cover"),
        pytest.param(
            [A, tok("T", 1000, 0)], "none", id="SF-COV-5 target 30+ ft from the low wall: none"
        ),
        pytest.param(
            [tok("A", 400, 0), tok("T", 0, 0)],
            "none",
            id="SF-COV-5 attacker closer to the wall than the target: ignored",
        ),
    ],
)
def test_low_obstacles(tokens, degree):
    assert sf([LOW], tokens).cover == degree


FOG = rect("fog", 200, -200, 100, 500, concealment=True)


@pytest.mark.parametrize(
    ("regions", "tokens", "attack", "options", "concealment", "miss"),
    [
        pytest.param(
            [FOG],
            [A, T_EAST],
            Attack(),
            {},
            "concealment",
            20,
            id="SF-CON-1/3 concealing square between: 20 %",
        ),
        pytest.param([], [A, T_EAST], Attack(), {}, "none", 0, id="SF-CON-1 nothing between"),
        pytest.param(
            [rect("f", 200, 80, 100, 100, concealment=True)],
            [A, T_EAST],
            Attack(),
            {},
            "concealment",
            20,
            id="SF-CON-1 defender picks: one corner's line grazes the fog",
        ),
        pytest.param(
            [rect("f", 200, 80, 100, 100, concealment=True)],
            [A, T_EAST],
            Attack(),
            {"concealment_corner": "attacker"},
            "none",
            0,
            id="SF-CON-1 attacker picks: a corner with clear lines exists",
        ),
        pytest.param(
            [rect("f", 90, -100, 20, 300, concealment=True)],
            [A, tok("T", 100, 0)],
            Attack("melee"),
            {},
            "none",
            0,
            id="SF-CON-2 melee adjacent, target partly in fog: none",
        ),
        pytest.param(
            [rect("f", 100, -100, 200, 300, concealment=True)],
            [A, tok("T", 100, 0)],
            Attack("melee"),
            {},
            "concealment",
            20,
            id="SF-CON-2 melee adjacent, target wholly in fog: 20 %",
        ),
        pytest.param(
            [],
            [A, tok("T", 400, 0, conditions=["concealed"])],
            Attack(),
            {},
            "concealment",
            20,
            id="SF-CON-5 concealed condition",
        ),
        pytest.param(
            [FOG],
            [A, tok("T", 400, 0, conditions=["concealed"])],
            Attack(),
            {},
            "concealment",
            20,
            id="SF-CON-3 concealments do not stack",
        ),
    ],
)
def test_concealment(regions, tokens, attack, options, concealment, miss):
    res = sf([], tokens, attack=attack, regions=regions, **options)
    assert (res.concealment, res.miss_chance) == (concealment, miss)


def test_total_concealment_line_of_effect_without_sight():
    """SF-CON-4: a wall that blocks sight only: no cover, total concealment, 50 %."""
    res = sf([wall("smoke", 250, -1000, 250, 1000, move="none")], [A, T_EAST])
    assert res.cover == "none"
    assert (res.concealment, res.miss_chance) == ("total", 50)
    assert "SF-CON-4" in res.rules


@pytest.mark.parametrize(
    ("conditions", "attack", "applies_to", "value"),
    [
        pytest.param(["prone"], "ranged", "ac", 4, id="SF-PRN-1 prone vs ranged +4 AC"),
        pytest.param(["prone"], "melee", "ac", -4, id="SF-PRN-1 prone vs melee -4 AC"),
    ],
)
def test_prone_target(conditions, attack, applies_to, value):
    res = sf([], [A, tok("T", 100, 0, conditions=conditions)], attack=Attack(attack))
    assert [(m.rule, m.applies_to, m.value) for m in res.modifiers] == [
        ("SF-PRN-1", applies_to, value)
    ]


def test_prone_attacker_melee_penalty():
    res = sf([], [tok("A", 0, 0, conditions=["prone"]), tok("T", 100, 0)], attack=Attack("melee"))
    assert [(m.applies_to, m.value) for m in res.modifiers] == [("attack", -4)]


def test_prone_in_zero_gravity_is_weightless():
    """SF-PRN-2."""
    scene = load([], [A, tok("T", 100, 0, conditions=["prone"])], environment={"gravity": 0})
    res = cover_one(
        RULESET, build_scene(scene), scene.token("A"), scene.token("T"), Attack("melee"), {}
    )
    assert [m.rule for m in res.modifiers] == ["SF-PRN-2"]


def flank(tokens, attacker="A", ally="B", target="T"):
    scene = load([], tokens)
    geo = build_scene(scene)
    return RULESET.flanking(geo, scene.token(attacker), scene.token(ally), scene.token(target))[0]


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        pytest.param(
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100)],
            True,
            id="SF-FLK-1 opposite edges",
        ),
        pytest.param(
            [tok("A", 0, 0), tok("T", 100, 100), tok("B", 200, 200)],
            True,
            id="SF-FLK-1 opposite corners",
        ),
        pytest.param(
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 100, 0)],
            False,
            id="SF-FLK-1 adjacent edges are not opposite",
        ),
        pytest.param(
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 0)],
            False,
            id="SF-FLK-1 edge and corner not opposite",
        ),
        pytest.param(
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 300, 100)],
            False,
            id="SF-FLK-1 ally too far to threaten",
        ),
        pytest.param(
            [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100, reach=0)],
            False,
            id="SF-FLK-1 reach 0 cannot flank",
        ),
        pytest.param(
            [tok("A", 0, 100), tok("T", 100, 100, 2), tok("B", 300, 200)],
            True,
            id="SF-FLK-1 around a large target",
        ),
        pytest.param(
            [tok("A", 0, 0, 2), tok("T", 200, 100), tok("B", 300, 100)],
            True,
            id="SF-FLK-1 a large attacker flanks with one of its squares",
        ),
    ],
)
def test_flanking(tokens, expected):
    assert flank(tokens) is expected


# GEO-8 / SF-FLK-1: a tiny target (half a square) counts from the square that holds its
# centre, the square at (100, 100): each layout's answer is the medium target's there.
FLANK_LAYOUTS = [
    pytest.param((0, 100), (200, 100), True, id="SF-FLK-1 opposite edges"),
    pytest.param((0, 0), (200, 200), True, id="SF-FLK-1 opposite corners"),
    pytest.param((100, 0), (100, 200), True, id="SF-FLK-1 top and bottom"),
    pytest.param((0, 100), (100, 0), False, id="SF-FLK-1 adjacent edges"),
    pytest.param((0, 100), (200, 0), False, id="SF-FLK-1 edge and corner"),
]
TINY_OFFSETS = [(dx, dy) for dx in (0, 25, 50) for dy in (0, 25, 50)]


@pytest.mark.parametrize(("a", "b", "expected"), FLANK_LAYOUTS)
def test_flanking_a_tiny_target_anywhere_in_its_square(a, b, expected):
    """GEO-8: every position of a tiny target inside its square gives the same answer."""
    medium = [tok("A", *a), tok("T", 100, 100), tok("B", *b)]
    assert flank(medium) is expected
    for dx, dy in TINY_OFFSETS:
        tiny = tok("T", 100 + dx, 100 + dy, 0.5, size="tiny")
        assert flank([tok("A", *a), tiny, tok("B", *b)]) is expected, (dx, dy)


@pytest.mark.parametrize(
    ("reach", "expected"),
    [
        pytest.param(None, False, id="SF-FLK-1 tiny without reach: 0 ft, cannot flank"),
        pytest.param(0, False, id="SF-FLK-1 tiny with reach 0 cannot flank"),
        pytest.param(5, True, id="SF-FLK-1 tiny with an explicit 5-ft reach flanks"),
    ],
)
def test_tiny_attacker_reach(reach, expected):
    """SF-FLK-1 / docs/decisions.md: a tiny creature's natural reach is 0 ft in Starfinder."""
    extra = {} if reach is None else {"reach": reach}
    for dx, dy in TINY_OFFSETS:
        a = tok("A", dx, 100 + dy, 0.5, size="tiny", **extra)
        assert flank([a, tok("T", 100, 100), tok("B", 200, 100)]) is expected, (dx, dy)


def test_medium_creature_without_reach_keeps_5_ft():
    """SF-FLK-1: the 0-ft natural reach is the tiny size's only (GEO-8's 5 ft otherwise)."""
    assert flank([tok("A", 0, 100, size="small"), tok("T", 100, 100), tok("B", 200, 100)])
