"""Three-dimensional lines and obstacles for every ruleset (GEO-5, GEO-5a, GEO-6, GEO-7).

Layout (grid 100 px = 5 ft): attacker A at (0, 0), target T four squares east; a wall across
the row at x = 250 with a height range, or a creature between them. Each row gives the degree
per ruleset: ``dnd5e`` (5E-COV-5/6), ``starfinder`` (SF-COV-1/5/6), ``pf2e-variant``
(PV-COV-2).
"""

from __future__ import annotations

import pytest

from schemas.responses import TracedLineSchema
from service import rules
from service.app import create_app
from service.engine.scene import build_scene
from service.line_of_effect import Endpoint, line_between
from service.rules.ask import cover_one
from service.rules.base import Attack
from service.rules.planning import attack_source, shared_space
from tests.scenes import load, scene_dict, tok, wall

SYSTEMS = ("dnd5e", "starfinder", "pf2e-variant")


def cover(system, walls, tokens, attack=None, grid=None, **options):
    scene = load(walls, tokens, **({"grid": grid} if grid else {}))
    geo = build_scene(scene)
    return cover_one(
        rules.get(system),
        geo,
        scene.token("A"),
        scene.token("T"),
        attack or Attack(),
        options,
    )


def across(bottom, top, **kw):
    """A wall across the row at x = 250 with the height range [bottom, top)."""
    return wall("W", 250, -1000, 250, 1000, height={"bottom": bottom, "top": top}, **kw)


# (walls, elevations of A and T, degrees per ruleset, line of effect)
WALLS = [
    pytest.param(
        [across(0, 10)],
        (10, 10),
        ("none", "none", "none"),
        True,
        id="GEO-5 lower floor's wall under creatures on the upper floor: nothing",
    ),
    pytest.param(
        [across(10, 20)],
        (10, 10),
        ("total", "total", "total"),
        False,
        id="GEO-5 the upper floor's own wall: blocks",
    ),
    pytest.param(
        [across(0, 10)],
        (0, 0),
        ("total", "total", "total"),
        False,
        id="GEO-5a a wall taller than both creatures: blocks",
    ),
    pytest.param(
        [across(0, 3)],
        (0, 0),
        ("half", "cover", "standard"),
        True,
        id="GEO-5a a 3-ft wall between 5-ft creatures: low obstacle",
    ),
    pytest.param(
        [across(5, 10)],
        (0, 0),
        ("none", "none", "none"),
        True,
        id="GEO-5 half-open: a wall starting at the creatures' tops",
    ),
    pytest.param(
        [across(3, 3)],
        (0, 0),
        ("none", "none", "none"),
        True,
        id="GEO-5 a wall with bottom = top blocks nothing",
    ),
    pytest.param(
        [wall("W", 350, -1000, 350, 1000, height={"bottom": 0, "top": 10})],
        (20, 0),
        ("half", "cover", "standard"),
        True,
        id="GEO-5a sloped band: the wall holds only part of it",
    ),
    pytest.param(
        [across(0, 10, cover="low")],
        (0, 0),
        ("half", "cover", "standard"),
        True,
        id="GEO-5a a low wall covering the band stays low",
    ),
]


@pytest.mark.parametrize("k", range(3), ids=SYSTEMS)
@pytest.mark.parametrize(("walls", "elev", "degrees", "loe"), WALLS)
def test_wall_heights_per_ruleset(walls, elev, degrees, loe, k):
    tokens = [tok("A", 0, 0, elevation=elev[0]), tok("T", 400, 0, elevation=elev[1])]
    res = cover(SYSTEMS[k], walls, tokens)
    assert res.cover == degrees[k]
    assert res.line_of_effect is loe


def test_low_lines_name_the_partial_wall_and_band():
    """GEO-5a: the answer's lines carry the band and which blockers were low (pictures)."""
    tokens = [tok("A", 0, 0), tok("T", 400, 0)]
    res = cover("dnd5e", [across(0, 3)], tokens)
    for line in res.lines:
        assert line.band == (0.0, 0.0, 5.0, 5.0)
        assert [b.id for b in line.low] == ["W"]
    res = cover("dnd5e", [across(0, 10)], tokens)
    assert all(line.low == () for line in res.lines)


# (creature C between A and T, degrees per ruleset)
CREATURES = [
    pytest.param(
        tok("C", 200, 0, elevation=30),
        ("none", "none", "none"),
        id="GEO-7 a creature flying 30 ft above the line blocks nothing",
    ),
    pytest.param(
        tok("C", 200, 0, size="tiny"),
        ("half", "soft", "lesser"),
        id="GEO-7 a tiny creature between two medium ones still blocks",
    ),
    pytest.param(
        tok("C", 200, 0, elevation=5),
        ("none", "none", "none"),
        id="GEO-5 half-open: a creature standing at the band's top",
    ),
    pytest.param(
        tok("C", 200, 0, elevation=4, vertical_extent=0.5),
        ("half", "soft", "lesser"),
        id="GEO-5a vertical_extent: a thin creature inside the band blocks",
    ),
    pytest.param(
        tok("C", 210, -50, 2, size="large"),
        ("half", "soft", "lesser"),
        id="GEO-7 a creature overlapping the target's space only partly blocks",
    ),
    pytest.param(
        tok("C", 400, 0),
        ("none", "none", "none"),
        id="5E-COV-7 a creature in the target's own space: none",
    ),
]


@pytest.mark.parametrize("k", range(3), ids=SYSTEMS)
@pytest.mark.parametrize(("creature", "degrees"), CREATURES)
def test_creatures_per_ruleset(creature, degrees, k):
    res = cover(SYSTEMS[k], [], [tok("A", 0, 0), tok("T", 400, 0), creature])
    assert res.cover == degrees[k]


def test_creature_on_the_upper_floor_between_flyers():
    """GEO-7: creatures at elevation 10 are blocked by a creature at 10, not one at 0."""
    up = [tok("A", 0, 0, elevation=10), tok("T", 400, 0, elevation=10)]
    assert cover("dnd5e", [], [*up, tok("C", 200, 0, elevation=10)]).cover == "half"
    assert cover("dnd5e", [], [*up, tok("C", 200, 0)]).cover == "none"


def test_metric_scene_heights():
    """GEO-5a in metres: a 2-m wall covers a medium creature (1.5 m), not a large one (3 m)."""
    grid = {"size": 100, "distance": 1.5, "units": "m"}
    walls = [across(0, 2)]
    medium = [tok("A", 0, 0), tok("T", 400, 0)]
    large = [tok("A", 0, 0, size="large"), tok("T", 400, 0, size="large")]
    assert cover("dnd5e", walls, medium, grid=grid).cover == "total"
    assert cover("dnd5e", walls, large, grid=grid).cover == "half"


def test_sf_cov_5_applies_to_a_partial_wall():
    """SF-COV-5 for a wall covering part of the band: ignored when the attacker is nearer."""
    near_attacker = wall("W", 150, -1000, 150, 1000, height={"bottom": 0, "top": 3})
    tokens = [tok("A", 0, 0), tok("T", 400, 0)]
    assert cover("starfinder", [near_attacker], tokens).cover == "none"
    near_target = wall("W", 350, -1000, 350, 1000, height={"bottom": 0, "top": 3})
    assert cover("starfinder", [near_target], tokens).cover == "cover"
    # Where it covers the whole band it is a wall, whoever is nearer.
    full = wall("W", 150, -1000, 150, 1000, height={"bottom": 0, "top": 10})
    assert cover("starfinder", [full], tokens).cover == "total"


def test_pf2e_ignore_small_terrain_sets_partial_walls_aside():
    """PV-COV-8: low obstacles (a wall covering part of the band too) give Large targets none."""
    tokens = [tok("A", 0, 0), tok("T", 400, 0, 2, size="large")]
    assert cover("pf2e-variant", [across(0, 3)], tokens).cover == "standard"
    assert cover("pf2e-variant", [across(0, 3)], tokens, ignore_small_terrain=True).cover == "none"


@pytest.mark.parametrize(
    ("elevation", "clear"),
    [
        pytest.param(20, True, id="GEO-5 a point above the wall sees over it"),
        pytest.param(10, True, id="GEO-5 a point at the wall's top passes over"),
        pytest.param(9, False, id="GEO-5a a point below the top: the wall covers the band"),
    ],
)
def test_line_from_a_point_with_elevation(elevation, clear):
    """GEO-5a: ``from: {"point", "elevation"}`` is a band of no thickness."""
    geo = build_scene(load([across(0, 10)], []))
    for sense in ("move", "sight"):
        got = line_between(
            geo,
            Endpoint(point=(50.0, 50.0), elevation=elevation),
            Endpoint(point=(450.0, 50.0), elevation=elevation),
            sense,
        )
        assert got.clear is clear


@pytest.mark.parametrize(
    ("elevation", "clear"),
    [
        pytest.param(20, True, id="GEO-5a from above the wall to a creature behind it"),
        pytest.param(16, True, id="GEO-5a the wall holds part of the band: low, never blocks"),
        pytest.param(0, False, id="GEO-5a the wall holds the whole band: blocks"),
    ],
)
def test_line_from_a_point_to_a_creature(elevation, clear):
    """GEO-5a: from a point (no thickness) to a creature's vertical extent."""
    scene = load([across(0, 10)], [tok("T", 400, 0)])
    geo = build_scene(scene)
    got = line_between(
        geo, Endpoint(point=(50.0, 50.0), elevation=elevation), Endpoint(token=scene.token("T"))
    )
    assert got.clear is clear


# GEO-6: the inset only ever removes false blocks. A pillar (one square of four walls) east
# of A, flush against A's corner B/C; T is four squares east, one down.
PILLAR = [
    wall("p0", 100, 0, 200, 0),
    wall("p1", 200, 0, 200, 100),
    wall("p2", 200, 100, 100, 100),
    wall("p3", 100, 100, 100, 0),
]


@pytest.mark.parametrize(
    ("walls", "tokens", "method", "degree"),
    [
        pytest.param(
            PILLAR,
            [tok("A", 0, 0), tok("T", 500, 100)],
            "paired-corners",
            "half",
            id="GEO-6 flush pillar, paired corners: half (as the exact corners)",
        ),
        pytest.param(
            PILLAR,
            [tok("A", 0, 0), tok("T", 500, 100)],
            "dmg-corner",
            "none",
            id="GEO-6 flush pillar, dmg corner: the line along the pillar's face is clear",
        ),
        pytest.param(
            [wall("n", 0, 0, 300, 0), wall("w", 0, 0, 0, 300)],
            [tok("A", 0, 0), tok("T", -400, 0)],
            "paired-corners",
            "total",
            id="GEO-6 a room corner wrapped around the token still blocks lines out of it",
        ),
        pytest.param(
            [wall("w", 100, -1000, 100, 1000)],
            [tok("A", 0, 0), tok("T", 200, 0)],
            "paired-corners",
            "total",
            id="GEO-6 flush against a long wall: the wall it touches blocks lines across it",
        ),
        pytest.param(
            [wall("top", 700, 1100, 1000, 1100), wall("side", 700, 1100, 700, 1500)],
            [tok("A", 600, 1100), tok("T", 800, 1100)],
            "paired-corners",
            "total",
            id="GEO-6 a line along a room's wall from its outer corner does not get in",
        ),
    ],
)
def test_corner_inset_never_adds_a_block(walls, tokens, method, degree):
    assert cover("dnd5e", walls, tokens, cover_method=method).cover == degree


def test_inset_against_a_creature_flush_beside():
    """GEO-6: a creature's square with a corner on the token's corner blocks the inset line
    only if it blocks the exact corner line (the line leaving B upward is clear)."""
    tokens = [tok("A", 0, 0), tok("T", 500, -100), tok("C", 100, 0)]
    res = cover("dnd5e", [], tokens)
    assert [line.blocked for line in res.lines] == [False, False, True, True]


@pytest.mark.parametrize(
    ("light_z", "token_z", "wall", "lit"),
    [
        pytest.param(10, 10, (0, 10), True, id="GEO-5 a lamp on the upper floor over a lower wall"),
        pytest.param(0, 0, (0, 10), False, id="GEO-5a a wall holding the whole band: dark"),
        pytest.param(0, 0, (0, 3), False, id="GEO-5a a lamp on the ground behind a low wall"),
        pytest.param(4, 0, (0, 3), True, id="GEO-5a a raised lamp lights the creature's top"),
        pytest.param(20, 0, (0, 10), True, id="GEO-5a a lamp high above shines over the wall"),
    ],
)
def test_light_bands(light_z, token_z, wall, lit):
    """GEO-5a for light: a band of no thickness at the light's elevation to the token's extent."""
    from service.lighting import light_over_token

    scene = load(
        [across(*wall)],
        [tok("T", 400, 0, elevation=token_z)],
        lights=[{"id": "l", "x": 50, "y": 50, "bright": 40, "elevation": light_z}],
        environment={"light": "dark"},
    )
    geo = build_scene(scene)
    assert (light_over_token(geo, scene.token("T")).level == "bright") is lit


@pytest.mark.parametrize(
    ("fog", "elev", "can_see", "obscurement"),
    [
        pytest.param((0, 10), 0, False, "none", id="5E-VIS-2 fog holding the whole band: unseen"),
        pytest.param((0, 3), 0, True, "light", id="GEO-5a fog holding part of the band: light"),
        pytest.param((0, 10), 20, True, "none", id="GEO-5 fog below both creatures: nothing"),
        pytest.param((0, 10), 10, True, "none", id="GEO-5 half-open: fog up to their feet"),
    ],
)
def test_fog_layers_along_the_line(fog, elev, can_see, obscurement):
    """GEO-5, GEO-5a: a heavy fog layer between two creatures, by its height range."""
    scene = load(
        [],
        [tok("A", 0, 0, elevation=elev), tok("T", 400, 0, elevation=elev)],
        regions=[
            {
                "id": "fog",
                "shape": {"type": "rect", "x": 200, "y": -500, "width": 100, "height": 1000},
                "obscurement": "heavy",
                "elevation": {"bottom": fog[0], "top": fog[1]},
            }
        ],
        environment={"light": "bright"},
    )
    geo = build_scene(scene)
    from service.rules.ask import vision_one

    res = vision_one(rules.get("dnd5e"), geo, scene.token("A"), scene.token("T"), {})
    assert res.can_see is can_see
    assert res.obscurement == obscurement


@pytest.mark.parametrize("inset", [0.0, 0.5, 3.0])
def test_starfinder_inset_corners_keep_the_exact_answer(inset):
    """GEO-6 with SF-COV-1: inset square corners are judged as their exact corners."""
    tokens = [tok("A", 0, 0), tok("T", 500, 100)]
    assert cover("starfinder", PILLAR, tokens, corner_inset=inset).cover == "cover"
    room = [wall("n", 0, 0, 300, 0), wall("w", 0, 0, 0, 300)]
    out = [tok("A", 0, 0, 2), tok("T", -400, 0)]
    assert cover("starfinder", room, out, corner_inset=inset).cover == "total"


# 5E-COV-7 / GEO-7 with heights (GEO-5a): on a metric scene (medium 1.5 m tall), creature C on
# the target's (or the attacker's) squares at an elevation; shared when the half-open extents
# [elevation, elevation + 1.5) overlap.
METRIC = {"size": 100, "distance": 1.5, "units": "m"}
SHARING = [
    pytest.param("T", 0, True, id="5E-COV-7 same squares, same elevation: shared"),
    pytest.param("T", 1, True, id="5E-COV-7 extents overlap (1-2.5 over 0-1.5): shared"),
    pytest.param("T", 1.5, False, id="GEO-5 C's bottom at T's top: not shared"),
    pytest.param("T", 12, False, id="GEO-7 12 m above the target's square: not shared"),
    pytest.param("A", 12, False, id="GEO-7 12 m above the attacker's square: not shared"),
    pytest.param("A", -1.5, False, id="GEO-5 C's top at A's bottom: not shared"),
    pytest.param("A", -1, True, id="5E-COV-7 under and overlapping the attacker: shared"),
]


@pytest.mark.parametrize("k", range(3), ids=SYSTEMS)
@pytest.mark.parametrize(("whose", "elevation", "shared"), SHARING)
def test_sharing_a_space_needs_overlapping_heights(whose, elevation, shared, k):
    """GEO-7/5E-COV-7: only a creature in the same space (squares and heights) is left out."""
    x = 0 if whose == "A" else 400
    tokens = [tok("A", 0, 0), tok("T", 400, 0), tok("C", x, 0, elevation=elevation)]
    scene = load([], tokens, grid=METRIC)
    geo = build_scene(scene)
    a, t = scene.token("A"), scene.token("T")
    assert (geo.sharing[whose] == ("C",)) is shared
    source_box, span, origin = attack_source(geo, a, t, Attack())
    found, excluded = shared_space(geo, a, t, source_box, origin, span)
    assert (found == ("C",)) is shared
    assert ("C" in excluded) is shared
    res = cover(SYSTEMS[k], [], tokens, grid=METRIC)
    noted = any(n.startswith("Sharing a space") for n in res.notes)
    assert noted is (shared and SYSTEMS[k] == "dnd5e")


@pytest.mark.parametrize(
    ("elevation", "shared"),
    [
        pytest.param(0, True, id="5E-COV-7 origin at 0 inside C's extent: shared"),
        pytest.param(12, False, id="GEO-5a C 12 m above the point of origin: not shared"),
    ],
)
def test_point_of_origin_shares_only_at_its_height(elevation, shared):
    """5E-COV-7: a creature whose space holds an area's origin, at the origin's elevation."""
    tokens = [tok("T", 400, 0), tok("C", 100, 0, elevation=elevation)]
    scene = load([], tokens, grid=METRIC)
    geo = build_scene(scene)
    t = scene.token("T")
    attack = Attack(kind="area", origin=(150.0, 50.0))
    source_box, span, origin = attack_source(geo, None, t, attack)
    found, _ = shared_space(geo, None, t, source_box, origin, span)
    assert (found == ("C",)) is shared


# The low-obstacle rule of each ruleset (5E-COV-6, SF-COV-5, PV-COV-8) is cited, and the
# answer marks the wall `"low": true`, whenever a low obstacle (a wall covering part of the
# band, GEO-5a, or a `cover: "low"` wall) decided; a full wall cites none of them. Expected:
# the low flags on the deciding lines' wall blockers, "all", "some" or "none" (per ruleset).
LOW_RULE = ("5E-COV-6", "SF-COV-5", "PV-COV-8")
LOW_CASES = [
    pytest.param([across(0, 3)], (0, 0), "all", id="GEO-5a a 3-ft wall between 5-ft creatures"),
    pytest.param(
        [wall("W", 350, -1000, 350, 1000, height={"bottom": 0, "top": 10})],
        (20, 0),
        ("some", "some", "none"),
        id="GEO-5a sloped band: the wall holds all of some lines' band (pf2e's centre line)",
    ),
    pytest.param([across(0, 10, cover="low")], (0, 0), "all", id="cover low over the band"),
    pytest.param([across(0, 10)], (0, 0), "none", id="GEO-5a a full wall: not low"),
    pytest.param([across(0, 3)], (10, 10), "none", id="GEO-5 a wall under the band: nothing"),
]


@pytest.mark.parametrize("k", range(3), ids=SYSTEMS)
@pytest.mark.parametrize(("walls", "elev", "low"), LOW_CASES)
def test_low_obstacles_explain_themselves(walls, elev, low, k):
    """GEO-5a: the ruleset's low-obstacle rule is cited and the blocker says `low`."""
    tokens = [tok("A", 0, 0, elevation=elev[0]), tok("T", 400, 0, elevation=elev[1])]
    res = cover(SYSTEMS[k], walls, tokens)
    low = low if isinstance(low, str) else low[k]
    assert (LOW_RULE[k] in res.rules) is (low != "none")
    dumped = TracedLineSchema(many=True).dump(res.lines)
    flags = [b.get("low", False) for line in dumped for b in line["blockers"]]
    seen = "all" if flags and all(flags) else "some" if any(flags) else "none"
    assert seen == low


def test_low_flag_over_http():
    """GEO-5a through `/v1/cover`: the partial wall is marked:
    `{"kind": "wall", "id": "W", "low": true}`.

    The starfinder answer cites SF-COV-5 (the 3-ft wall between 5-ft creatures).
    """
    client = create_app({"TESTING": False}).test_client()
    body = {
        "ruleset": "starfinder",
        "scene": scene_dict([across(0, 3)], [tok("A", 0, 0), tok("T", 400, 0)]),
        "attacker": "A",
        "targets": ["T"],
    }
    res = client.post("/v1/cover", json=body).get_json()["results"][0]
    assert res["cover"] == "cover"
    assert "SF-COV-5" in res["rules"]
    assert {"kind": "wall", "id": "W", "low": True} in res["lines"][0]["blockers"]


def test_openapi_shows_the_low_flag():
    """API.md: the added `low` field of a blocker is in the OpenAPI document."""
    spec = create_app({"TESTING": False}).test_client().get("/openapi.json").get_json()
    assert spec["components"]["schemas"]["Blocker"]["properties"]["low"]["type"] == "boolean"
