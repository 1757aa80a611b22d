"""Walls, regions and surfaces of levels, built (RULES GEO-10, GEO-5)."""

from __future__ import annotations

import pytest

from schemas.scene import SceneSchema
from service.engine.levels import implied_floors, level_of, resolve_levels
from service.engine.scene import build_scene
from service.model import MAX_SURFACE_POINTS, Level, Scene

LEVELS = [
    {"id": "b", "name": "basement", "bottom": -10, "top": 0},
    {"id": "g", "name": "ground", "bottom": 0, "top": 10},
]


def load(**scene):
    return SceneSchema().load({"grid": {"size": 100}, "levels": LEVELS, **scene})


def test_walls_and_regions_of_a_level_take_its_range_unless_they_give_their_own():
    scene = load(
        walls=[
            {"id": "w1", "c": [0, 0, 100, 0], "level": "b"},
            {"id": "w2", "c": [0, 0, 100, 0], "level": "b", "height": {"bottom": -10, "top": -5}},
            {"id": "w3", "c": [0, 0, 100, 0]},
        ],
        regions=[{"id": "r", "shape": {"type": "rect", "width": 10, "height": 10}, "level": "g"}],
    )
    resolved = resolve_levels(scene)
    heights = [(w.height.bottom, w.height.top) if w.height else None for w in resolved.walls]
    assert heights == [(-10, 0), (-10, -5), None]
    assert (resolved.regions[0].elevation.bottom, resolved.regions[0].elevation.top) == (0, 10)
    walls = build_scene(scene).walls
    assert walls.bottom.tolist()[:1] == [-10] and walls.top.tolist()[:1] == [0]


def test_a_scene_without_levels_is_built_as_before():
    scene = SceneSchema().load({"grid": {"size": 100}, "walls": [{"id": "w", "c": [0, 0, 1, 1]}]})
    assert resolve_levels(scene) is scene
    assert build_scene(scene).surfaces is None and build_scene(scene).walls.surfaces is None


def test_an_implied_floor_only_where_no_surface_lies_between_two_levels():
    levels = tuple(Level(**lv) for lv in LEVELS)
    assert [lv.id for lv in implied_floors(levels, ())] == ["g"]
    scene = load(surfaces=[{"id": "s", "elevation": 0, "outline": [[[[0, 0], [1, 0], [1, 1]]]]}])
    assert implied_floors(scene.levels, scene.surfaces) == []


def test_the_level_of_an_elevation_is_half_open():
    levels = tuple(Level(**lv) for lv in LEVELS)
    assert [getattr(level_of(levels, z), "id", None) for z in (-10, -0.1, 0, 9.9, 10)] == [
        "b",
        "b",
        "g",
        "g",
        None,
    ]


@pytest.mark.parametrize(
    "scene",
    [
        {"walls": [{"id": "w", "c": [0, 0, 1, 1], "level": "nope"}]},
        {"levels": [{"id": "x", "bottom": 0}, {"id": "x", "bottom": 1}]},
        {
            "surfaces": [
                {
                    "id": "s",
                    "elevation": 0,
                    "outline": [[[[0, 0], [1, 0], [1, 1]] * (MAX_SURFACE_POINTS // 3 + 1)]],
                }
            ]
        },
    ],
    ids=["unknown level", "two levels share an id", "too many outline points"],
)
def test_bad_levels_are_refused_by_both_loaders(scene):
    import marshmallow
    import msgspec

    data = {"grid": {"size": 100}, **scene}
    with pytest.raises(marshmallow.ValidationError):
        SceneSchema().load(data)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(data, Scene)


def _surface(outline):
    import msgspec

    from service.model import Surface

    return msgspec.convert({"id": "s", "outline": outline, "elevation": 0}, Surface)


def test_a_surface_with_subnormal_coordinates_builds_without_dividing_by_zero():
    """A fuzzed floor (ST101): GEOS's union divided by zero on subnormal coordinates.

    Under ``filterwarnings = error`` the old build raised; the shape is now polygonal.
    """
    import json
    from pathlib import Path

    from service.engine.levels import surface_shape

    outline = json.loads((Path(__file__).parent / "surface_subnormal_outline.json").read_text())
    shape = surface_shape(_surface(outline))
    assert shape.geom_type in ("Polygon", "MultiPolygon")
    assert shape.is_valid and shape.area > 0


def test_a_hole_of_no_area_next_to_a_real_one_is_no_mixed_dimension_error():
    """A collinear hole makes a line under make_valid: the floor keeps only polygons (GEO-10)."""
    from service.engine.levels import surface_shape

    square = [[0, 0], [10, 0], [10, 10], [0, 10]]
    outline = [[square, [[1, 1], [2, 1], [3, 1]], [[5, 5], [6, 5], [6, 6], [5, 6]]]]
    shape = surface_shape(_surface(outline))
    assert shape.geom_type == "Polygon"
    assert shape.area == 100 - 1  # the square less the real hole; the line cuts nothing
