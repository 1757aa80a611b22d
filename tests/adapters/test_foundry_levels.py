"""Foundry floors and v14 shapes on import (FORMATS.md pitfall 15, RULES GEO-5, GEO-10).

Counts are taken from the real exports themselves (read here as JSON) and compared with the
import's ``stats``; the v14 region shapes are checked against outlines worked by hand.
"""

from __future__ import annotations

import math

import pytest
import shapely

from adapters.foundry import to_scene
from schemas.scene import SceneSchema
from tests.conftest import load_real

EASTGATE = "foundry-v14-fa-eastgate-guard-outpost-levels.json"
SLUMS = "foundry-v14-fa-desert-slums-levels.json"
TOWER = "foundry-v9-vttom-tower-levels.json"


def _behaviours(region: dict, kind: str) -> int:
    return sum(
        1 for b in region.get("behaviors", []) if b.get("type") == kind and not b.get("disabled")
    )


@pytest.mark.parametrize("name", [EASTGATE, SLUMS])
def test_v14_counts_in_stats_equal_the_counts_of_the_file(name):
    doc = load_real("foundry", name)
    out = to_scene(doc)
    stats, scene = out["stats"], out["scene"]
    assert stats["levels"] == len(doc["levels"]) == 3
    assert stats["surfaces"] == sum(_behaviours(r, "defineSurface") for r in doc["regions"])
    assert stats["stairs"] == sum(1 for r in doc["regions"] if _behaviours(r, "changeLevel"))
    assert stats["walls_on_levels"] == sum(1 for w in doc["walls"] if len(w["levels"]) == 1)
    assert stats["lights_on_levels"] == sum(1 for li in doc["lights"] if len(li["levels"]) == 1)
    one_level_shapes = sum(
        sum(1 for s in r["shapes"] if not s.get("hole"))
        for r in doc["regions"]
        if len(r["levels"]) == 1
    )
    assert stats["regions_on_levels"] == one_level_shapes
    assert stats["read"]["levels: levels[].elevation"] == len(doc["levels"])
    assert stats["read"]["surfaces: regions[].behaviors defineSurface"] == stats["surfaces"]
    # every wall of one level, without a Wall Height flag, takes that level's range
    ranges = {lv["_id"]: lv["elevation"] for lv in doc["levels"]}
    for raw, wall in zip(doc["walls"], scene["walls"], strict=True):
        if len(raw["levels"]) == 1:
            span = ranges[raw["levels"][0]]
            assert wall["height"] == {"bottom": span["bottom"], "top": span["top"]}
            assert wall["level"] == raw["levels"][0]
        else:
            assert wall["height"] is None and "level" not in wall
    assert stats["read"]["walls on every level: levels []"] == sum(
        1 for w in doc["walls"] if w["levels"] == []
    )
    SceneSchema().load(scene)  # the canonical scene is valid as imported


def test_eastgate_surfaces_sit_at_their_regions_bottoms():
    doc = load_real("foundry", EASTGATE)
    surfaces = {s["id"]: s for s in to_scene(doc)["scene"]["surfaces"]}
    for region in doc["regions"]:
        if not _behaviours(region, "defineSurface"):
            continue
        surface = surfaces[region["_id"]]
        assert surface["elevation"] == region["elevation"]["bottom"]  # placement: bottom
        exteriors = sum(1 for s in region["shapes"] if not s.get("hole"))
        assert len(surface["outline"]) == exteriors
        holes = sum(1 for s in region["shapes"] if s.get("hole"))
        assert sum(len(p) - 1 for p in surface["outline"]) == holes


def test_the_slums_bridge_keeps_its_holes_in_its_surface():
    doc = load_real("foundry", SLUMS)
    bridge = next(r for r in doc["regions"] if r["name"] == "Bridge")
    surface = next(s for s in to_scene(doc)["scene"]["surfaces"] if s["id"] == bridge["_id"])
    assert len(surface["outline"]) == 2  # two rectangles
    assert len(surface["outline"][0]) == 1 + 3  # the first carries the three hole shapes


def test_the_levels_tower_reads_inclusive_ranges_without_a_gap():
    """GEO-5: sceneLevels 0-9 ... 30-39 become [0, 10) ... [30, 40); floor tiles, surfaces."""
    doc = load_real("foundry", TOWER)
    out = to_scene(doc)
    scene, stats = out["scene"], out["stats"]
    scene_levels = doc["flags"]["levels"]["sceneLevels"]
    assert stats["levels"] == len(scene_levels) == 4
    assert sorted((lv["bottom"], lv["top"]) for lv in scene["levels"]) == [
        (0, 10),
        (10, 20),
        (20, 30),
        (30, 40),
    ]
    floors = [t for t in doc["tiles"] if t["flags"]["levels"].get("rangeBottom") is not None]
    assert stats["surfaces"] == len(floors) == 4
    assert sorted(s["elevation"] for s in scene["surfaces"]) == [10, 20, 30, 40]
    stairs = [d for d in doc["drawings"] if d["flags"].get("levels", {}).get("drawingMode") == 2]
    assert stats["stairs"] == len(stairs) == 4
    with_height = [w for w in doc["walls"] if (w.get("flags") or {}).get("wall-height")]
    assert stats["walls_with_height"] == stats["walls_on_levels"] == len(with_height)
    assert stats["read"]["inclusive tops read as top + 1 (GEO-5)"] > 0
    assert not any("Levels floor tiles" in w for w in out["warnings"])
    SceneSchema().load(scene)


# --------------------------------------------------------------------------- v14 shapes


def _v14(*shapes: dict, **region: object) -> dict:
    return {
        "grid": {"type": 1, "size": 100, "distance": 5},
        "width": 1000,
        "height": 1000,
        "padding": 0,
        "_stats": {"coreVersion": "14.364"},
        "walls": [],
        "regions": [{"_id": "r", "shapes": list(shapes), "elevation": {}, **region}],
    }


def _outline(shape: dict) -> shapely.Geometry:
    out = to_scene(_v14(shape))
    geoms = []
    for region in out["scene"]["regions"]:
        s = region["shape"]
        if s["type"] == "rect":
            geoms.append(shapely.box(s["x"], s["y"], s["x"] + s["width"], s["y"] + s["height"]))
        elif s["type"] == "circle":
            geoms.append(shapely.Point(s["x"], s["y"]).buffer(s["radius"], quad_segs=64))
        else:
            geoms.append(shapely.Polygon(s["points"]))
    return shapely.union_all(geoms)


#: A regular 64-gon's share of its circle's area: (64 / 2) sin(2 pi / 64) / pi.
GON = 32 * math.sin(2 * math.pi / 64) / math.pi


def test_emanation_around_a_token_is_its_square_grown_with_round_corners():
    """Token 1x1 at (100, 200), radius 50 px: bounds 50..250 x 150..350; area 100^2 + 4 *
    100 * 50 + the quarter circles' 64-gon (pi 50^2 * GON)."""
    shape = {
        "type": "emanation",
        "radius": 50,
        "base": {"type": "token", "x": 100, "y": 200, "width": 1, "height": 1, "shape": 4},
    }
    geom = _outline(shape)
    assert geom.bounds == pytest.approx((50, 150, 250, 350))
    assert geom.area == pytest.approx(10000 + 20000 + math.pi * 2500 * GON, rel=1e-9)
    assert not geom.contains(shapely.Point(240, 340))  # 56.6 px from the corner (200, 300)
    assert geom.contains(shapely.Point(230, 330))  # 42.4 px from it


def test_cone_round_and_flat():
    """Origin (0, 0), 100 px, 90 degrees facing +x: a quarter disc (16 arc steps), or the
    flat triangle whose far edge is 100 px out: corners (100, -100), (100, 100)."""
    round_cone = _outline({"type": "cone", "x": 0, "y": 0, "radius": 100, "angle": 90})
    assert round_cone.area == pytest.approx(16 * 0.5 * 100**2 * math.sin(math.radians(90 / 16)))
    assert round_cone.bounds == pytest.approx((0, -100 * math.sqrt(0.5), 100, 100 * math.sqrt(0.5)))
    flat = _outline(
        {"type": "cone", "x": 0, "y": 0, "radius": 100, "angle": 90, "curvature": "flat"}
    )
    assert flat.area == pytest.approx(10000)
    assert flat.bounds == pytest.approx((0, -100, 100, 100))


def test_ring_is_the_annulus_from_radius_minus_inner_to_radius_plus_outer():
    """Radius 100, innerWidth 20, outerWidth 30: between 80 and 130 px of (0, 0)."""
    geom = _outline(
        {"type": "ring", "x": 0, "y": 0, "radius": 100, "innerWidth": 20, "outerWidth": 30}
    )
    assert geom.area == pytest.approx(math.pi * (130**2 - 80**2) * GON, rel=1e-6)
    assert not geom.contains(shapely.Point(0, 0)) and not geom.contains(shapely.Point(75, 0))
    assert geom.contains(shapely.Point(105, 0)) and geom.contains(shapely.Point(0, -105))
    assert geom.bounds == pytest.approx((-130, -130, 130, 130))


def test_line_runs_from_its_origin_along_its_rotation():
    """(10, 20), 300 px long, 50 wide, rotation 90 (down the screen): x -15..35, y 20..320."""
    geom = _outline({"type": "line", "x": 10, "y": 20, "length": 300, "width": 50, "rotation": 90})
    assert geom.bounds == pytest.approx((-15, 20, 35, 320))
    assert geom.area == pytest.approx(15000)


def test_token_shape_is_its_rectangle_or_the_ellipse_inside():
    """2x1 spaces at (200, 100) on a 100 px grid: 200..400 x 100..200."""
    rect = _outline({"type": "token", "x": 200, "y": 100, "width": 2, "height": 1, "shape": 4})
    assert rect.bounds == pytest.approx((200, 100, 400, 200)) and rect.area == pytest.approx(2e4)
    oval = _outline({"type": "token", "x": 200, "y": 100, "width": 2, "height": 1, "shape": 0})
    assert oval.bounds == pytest.approx((200, 100, 400, 200))
    # the 32-gon inside the ellipse of radii 100 and 50: rx ry (32 / 2) sin(2 pi / 32)
    assert oval.area == pytest.approx(100 * 50 * 16 * math.sin(2 * math.pi / 32), rel=1e-7)


def test_grid_shape_is_its_squares_row_runs_joined():
    """Offsets (1, 2), (1, 3), (2, 2) on a 100 px grid: 200..400 x 100..200 and a square."""
    out = to_scene(
        _v14({"type": "grid", "offsets": [{"i": 1, "j": 2}, {"i": 1, "j": 3}, {"i": 2, "j": 2}]})
    )
    shapes = [r["shape"] for r in out["scene"]["regions"]]
    assert shapes == [
        {"type": "rect", "x": 200, "y": 100, "width": 200, "height": 100},
        {"type": "rect", "x": 200, "y": 200, "width": 100, "height": 100},
    ]


def test_anchored_rectangles_are_placed_at_their_anchor():
    """v14: (x, y) is the anchor at (anchorX, anchorY) of the size; rotation about it."""
    centred = _outline(
        {
            "type": "rectangle",
            "x": 500,
            "y": 500,
            "width": 200,
            "height": 100,
            "anchorX": 0.5,
            "anchorY": 0.5,
        }
    )
    assert centred.bounds == pytest.approx((400, 450, 600, 550))
    turned = _outline(
        {
            "type": "rectangle",
            "x": 500,
            "y": 500,
            "width": 200,
            "height": 100,
            "anchorX": 0,
            "anchorY": 0,
            "rotation": 90,
        }
    )
    assert turned.bounds == pytest.approx((400, 500, 500, 700))
    # v12/v13 (no anchor): top-left (x, y), turned about its centre (600, 550)
    old = _outline(
        {"type": "rectangle", "x": 500, "y": 500, "width": 200, "height": 100, "rotation": 90}
    )
    assert old.bounds == pytest.approx((550, 450, 650, 650))


def test_token_depth_is_its_height_in_grid_units():
    doc = _v14()
    doc["tokens"] = [{"_id": "t", "x": 0, "y": 0, "width": 1, "height": 1, "depth": 2}]
    out = to_scene(doc)
    assert out["scene"]["tokens"][0]["vertical_extent"] == 10  # 2 spaces x 5 ft
    assert out["stats"]["read"]["token heights: depth (grid spaces x grid.distance)"] == 1


def test_an_unknown_level_id_is_warned_and_the_wall_kept():
    doc = _v14()
    doc["levels"] = [{"_id": "L", "name": "one", "elevation": {"bottom": 0, "top": 10}}]
    doc["walls"] = [{"_id": "w", "c": [0, 0, 100, 0], "levels": ["nope"]}]
    out = to_scene(doc)
    assert out["scene"]["walls"][0]["height"] is None
    assert any(
        "walls[0].levels: ['nope'] not among the scene's levels" in w for w in out["warnings"]
    )


def test_a_surface_without_its_elevation_is_warned():
    doc = _v14(
        {"type": "rectangle", "x": 0, "y": 0, "width": 100, "height": 100},
        behaviors=[{"type": "defineSurface", "system": {"placement": "top"}}],
    )
    doc["regions"][0]["elevation"] = {"bottom": 0, "top": None}
    out = to_scene(doc)
    assert out["scene"]["surfaces"] == []
    assert any("no number for the surface (top), surface skipped" in w for w in out["warnings"])
