"""Three-dimensional lines (GEO-5, GEO-5a, GEO-7): invariances and obstacles out of the band.

For the three rulesets' cover and for vision, on every grid type (square, gridless, hex-row,
hex-col; translation and scaling on squares): translating the scene by whole squares,
scaling pixels and grid size together, or raising every elevation (tokens, walls, regions,
lights) by the same amount changes no answer; a wall or a creature entirely above both
creatures' tops never blocks; a wall as tall as both creatures blocks exactly as a wall
without heights.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from schemas.scene import SceneSchema
from service import rules
from service.engine.scene import build_scene
from service.rules.ask import cover_one, vision_all
from service.rules.base import Attack

SYSTEMS = ("dnd5e", "starfinder", "pf2e-variant")
SIZES = ("tiny", "small", "medium", "large")
#: Every grid type (GEO-8): heights are grid-independent, the corner sets are not.
GRID_TYPES = ("square", "gridless", "hex-row", "hex-col")

cell = st.tuples(st.integers(0, 7), st.integers(0, 7))
elevation = st.integers(0, 6).map(lambda v: 5.0 * v)
lattice = st.integers(0, 16).map(lambda v: 50.0 * v)
height = st.one_of(
    st.none(), st.tuples(st.integers(0, 30), st.integers(0, 15)).map(lambda p: (p[0], p[0] + p[1]))
)


@st.composite
def scenes(draw: st.DrawFn, grid_types: tuple[str, ...] = ("square",)) -> dict[str, Any]:
    """Two creatures A and T, a third C, walls with and without heights, a fog region.

    ``grid_types``: the grid types drawn from (whole-square translation needs squares).
    """
    a, t, c = draw(cell), draw(cell), draw(cell)
    assume(a != t)
    tokens = []
    for tid, (x, y) in (("A", a), ("T", t), ("C", c)):
        tokens.append(
            {
                "id": tid,
                "x": x * 100.0,
                "y": y * 100.0,
                "elevation": draw(elevation),
                "size": draw(st.sampled_from(SIZES)),
            }
        )
    walls = []
    for i in range(draw(st.integers(0, 5))):
        c0 = [draw(lattice) for _ in range(4)]
        assume(c0[:2] != c0[2:])
        w: dict[str, Any] = {"id": f"w{i}", "c": c0}
        h = draw(height)
        if h is not None:
            w["height"] = {"bottom": float(h[0]), "top": float(h[1])}
        if draw(st.integers(0, 4)) == 0:
            w["cover"] = "low"
        walls.append(w)
    regions = []
    if draw(st.booleans()):
        h = draw(height)
        region: dict[str, Any] = {
            "id": "fog",
            "shape": {"type": "rect", "x": 250.0, "y": 0.0, "width": 200.0, "height": 800.0},
            "obscurement": "heavy",
        }
        if h is not None:
            region["elevation"] = {"bottom": float(h[0]), "top": float(h[1])}
        regions.append(region)
    lights = [{"id": "l", "x": 400.0, "y": 400.0, "bright": 20, "dim": 40}]
    return {
        "grid": {
            "size": 100,
            "distance": 5,
            "type": draw(st.sampled_from(grid_types)),
            "hex_offset": draw(st.sampled_from(("odd", "even"))),
        },
        "environment": {"light": "dark"},
        "walls": walls,
        "tokens": tokens,
        "regions": regions,
        "lights": lights,
    }


def answers(scene: dict[str, Any], **options: Any) -> list[Any]:
    """Cover of T from A in every ruleset, and A's vision of T (the fields that matter)."""
    loaded = SceneSchema().load(scene)
    geo = build_scene(loaded)
    a, t = loaded.token("A"), loaded.token("T")
    out: list[Any] = []
    for system in SYSTEMS:
        res = cover_one(rules.get(system), geo, a, t, Attack(), dict(options))
        out.append((res.cover, res.line_of_effect))
    seen = vision_all(rules.get("dnd5e"), geo, [(a, t)], dict(options))[0]
    out.append((seen.can_see, seen.line_of_sight, seen.obscurement))
    return out


def moved(scene: dict[str, Any], dx: float = 0, dy: float = 0, k: float = 1, dz: float = 0):
    """``scene`` translated by (dx, dy) px, scaled by k (px and grid size), raised by dz."""
    out = {**scene, "grid": {**scene["grid"], "size": scene["grid"]["size"] * k}}
    out["tokens"] = [
        {**t, "x": t["x"] * k + dx, "y": t["y"] * k + dy, "elevation": t["elevation"] + dz}
        for t in scene["tokens"]
    ]
    out["walls"] = []
    for w in scene["walls"]:
        c = w["c"]
        nw = {**w, "c": [c[0] * k + dx, c[1] * k + dy, c[2] * k + dx, c[3] * k + dy]}
        if "height" in w:
            nw["height"] = {key: v + dz for key, v in w["height"].items()}
        out["walls"].append(nw)
    out["regions"] = []
    for r in scene["regions"]:
        s = r["shape"]
        nr = {
            **r,
            "shape": {
                **s,
                "x": s["x"] * k + dx,
                "y": s["y"] * k + dy,
                "width": s["width"] * k,
                "height": s["height"] * k,
            },
        }
        if "elevation" in r:
            nr["elevation"] = {key: v + dz for key, v in r["elevation"].items()}
        out["regions"].append(nr)
    out["lights"] = [
        {
            **li,
            "x": li["x"] * k + dx,
            "y": li["y"] * k + dy,
            "elevation": li.get("elevation", 0) + dz,
        }
        for li in scene["lights"]
    ]
    return out


@settings(max_examples=60, deadline=None)
@given(scene=scenes(), dx=st.integers(-4, 4), dy=st.integers(-4, 4), k=st.sampled_from([2, 3]))
def test_translation_and_scale_in_3d(scene, dx, dy, k):
    """GEO-5a: whole-square translation, and px with grid size scaled together (the corner
    inset scaled too), change nothing."""
    want = answers(scene, corner_inset=0.5)
    assert answers(moved(scene, dx * 100.0, dy * 100.0), corner_inset=0.5) == want
    assert answers(moved(scene, k=k), corner_inset=0.5 * k) == want


@settings(max_examples=60, deadline=None)
@given(scene=scenes(GRID_TYPES), dz=st.integers(-6, 6).map(lambda v: 5.0 * v))
def test_raising_every_elevation_changes_nothing(scene, dz):
    """GEO-5, GEO-5a: tokens, walls, regions and lights raised together."""
    assert answers(moved(scene, dz=dz)) == answers(scene)


def _tops(scene: dict[str, Any]) -> float:
    geo = build_scene(SceneSchema().load(scene))
    return max(geo.token_spans["A"][1], geo.token_spans["T"][1])


@settings(max_examples=60, deadline=None)
@given(
    scene=scenes(GRID_TYPES),
    wall=st.tuples(lattice, lattice, lattice, lattice),
    gap=st.integers(0, 20),
)
def test_obstacles_above_both_creatures_never_block(scene, wall, gap):
    """GEO-5 / GEO-7: a wall or a creature entirely above both creatures' tops blocks nothing."""
    assume(wall[:2] != wall[2:])
    top = _tops(scene)
    base = {**scene, "regions": []}
    above = {"bottom": top + gap, "top": top + gap + 10}
    with_wall = {**base, "walls": [*base["walls"], {"id": "hi", "c": list(wall), "height": above}]}
    assert answers(with_wall) == answers(base)
    flyer = {"id": "F", "x": 300.0, "y": 300.0, "elevation": top + gap, "size": "huge"}
    assert answers({**base, "tokens": [*base["tokens"], flyer]}) == answers(base)


@settings(max_examples=60, deadline=None)
@given(
    scene=scenes(GRID_TYPES),
    wall=st.tuples(lattice, lattice, lattice, lattice),
    more=st.integers(0, 10),
)
def test_a_wall_as_tall_as_both_creatures_is_a_wall_without_heights(scene, wall, more):
    """GEO-5a: a wall whose range holds both creatures' extents blocks as an infinite one
    (and holding the light's elevation too, for the light on the target)."""
    assume(wall[:2] != wall[2:])
    geo = build_scene(SceneSchema().load(scene))
    (a0, a1), (t0, t1) = geo.token_spans["A"], geo.token_spans["T"]
    span = {"bottom": min(a0, t0, 0.0) - more, "top": max(a1, t1) + more}
    plain = {"id": "x", "c": list(wall)}
    tall = {**plain, "height": span}
    base = {**scene, "regions": []}
    got = answers({**base, "walls": [*base["walls"], tall]})
    assert got == answers({**base, "walls": [*base["walls"], plain]})
