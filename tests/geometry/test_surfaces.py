"""Traced lines against floors in 3-D (RULES GEO-10 with GEO-5's half-open heights).

A floor at 10 ft over the square 0..1000 px; creatures 5 ft tall. Numbers worked by hand:
a band from the ground (0..5) to a creature on the floor (10..15) has its bottom line cross
10 ft at t = 1 and its top line (5 -> 15) at t = 0.5.
"""

from __future__ import annotations

import numpy as np
import pytest

from schemas.scene import SceneSchema
from service.app import create_app
from service.engine.scene import build_scene
from service.geometry.surfaces import crossings, surface_blocked
from service.geometry.trace import TraceSpec, trace

SQUARE = [[[[0, 0], [1000, 0], [1000, 1000], [0, 1000]]]]


def built(surfaces=None, levels=None, **extra):
    scene = {"grid": {"size": 100}, "surfaces": surfaces or [], "levels": levels or [], **extra}
    return build_scene(SceneSchema().load(scene))


def test_crossings_of_bands_worked_by_hand():
    bands = np.array(
        [
            [0, 10, 5, 15],  # ground to the floor: bottom crosses at 1, top at 0.5
            [10, 10, 15, 15],  # both on the floor: above it all along
            [0, 0, 5, 5],  # both on the ground: below it all along
            [0, 20, 0, 20],  # a light at 0 to a point at 20: crosses at 0.5
            [0, 5, 5, 10],  # a head reaching 10 ft ([5, 10)) stays below the floor (GEO-5)
            [5, 10, 12, 15],  # a creature reaching through the floor at the start: not whole
        ],
        dtype=float,
    )
    rows, start, end = crossings(bands, 10.0)
    assert rows.tolist() == [0, 3]
    assert start.tolist() == [0.5, 0.5] and end.tolist() == [1.0, 0.5]


def test_a_floor_blocks_the_band_only_where_it_lies():
    scene = built([{"id": "f", "outline": SQUARE, "elevation": 10}])
    seg = np.array([[100, 100, 900, 100], [100, 100, 1900, 100], [1100, 100, 1900, 100]], float)
    bands = np.array([[0, 10, 5, 15]] * 3, float)
    # the stretch t in [0.5, 1]: 500..900 px (inside), 1000..1900 px (outside), 1500..1900
    assert surface_blocked(scene.surfaces, seg, bands, "sight").tolist() == [True, False, False]


def test_what_a_surface_blocks_follows_its_flags():
    scene = built([{"id": "f", "outline": SQUARE, "elevation": 10, "blocks": {"sight": False}}])
    seg, bands = np.array([[100, 100, 900, 100]], float), np.array([[0, 10, 5, 15]], float)
    assert trace(scene.walls, seg, TraceSpec(sense="sight"), elevations=bands).blocked.tolist() == [
        False
    ]
    moved = trace(scene.walls, seg, TraceSpec(sense="move"), elevations=bands)
    assert moved.wall_blocked.tolist() == [True] and moved.floor_blocked.tolist() == [True]


def test_a_hole_lets_the_line_through():
    holed = [
        [
            [[0, 0], [1000, 0], [1000, 1000], [0, 1000]],
            [[400, 0], [1000, 0], [1000, 200], [400, 200]],
        ]
    ]
    scene = built([{"id": "f", "outline": holed, "elevation": 10}])
    seg, bands = np.array([[100, 100, 900, 100]], float), np.array([[0, 10, 5, 15]], float)
    assert surface_blocked(scene.surfaces, seg, bands, "move").tolist() == [False]


def test_two_floor_pieces_at_one_height_block_as_one():
    left = [[[[0, 0], [500, 0], [500, 1000], [0, 1000]]]]
    right = [[[[500, 0], [1000, 0], [1000, 1000], [500, 1000]]]]
    scene = built(
        [
            {"id": "a", "outline": left, "elevation": 10},
            {"id": "b", "outline": right, "elevation": 10},
        ]
    )
    seg, bands = np.array([[0, 100, 800, 100]], float), np.array([[0, 10, 5, 15]], float)
    assert surface_blocked(scene.surfaces, seg, bands, "move").tolist() == [True]  # 400..800


def test_levels_without_a_surface_between_them_imply_a_floor_everywhere():
    levels = [{"id": "g", "bottom": 0, "top": 10}, {"id": "u", "bottom": 10, "top": 20}]
    scene = built(levels=levels)
    assert scene.surfaces is not None and scene.surfaces.elevation.tolist() == [10.0]
    assert built().surfaces is None  # a scene without levels: no floor, as before


def test_a_light_does_not_shine_through_a_floor_even_when_it_ignores_walls():
    client = create_app().test_client()
    scene = {
        "grid": {"size": 100},
        "environment": {"light": "dark"},
        "surfaces": [{"id": "f", "outline": SQUARE, "elevation": 10}],
        "lights": [{"id": "lamp", "x": 450, "y": 450, "dim": 30, "walls": False}],
        "tokens": [
            {"id": "up", "x": 400, "y": 400, "elevation": 10},
            {"id": "down", "x": 400, "y": 400},
        ],
    }
    results = client.post("/v1/lighting", json={"scene": scene, "tokens": ["up", "down"]})
    assert [r["lights"] for r in results.get_json()["results"]] == [[], ["lamp"]]


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
def test_every_ruleset_meets_the_floor(ruleset):
    """One hook in the tracer: cover, vision and the matrices of every ruleset see it."""
    client = create_app().test_client()
    scene = {
        "grid": {"size": 100},
        "surfaces": [{"id": "f", "outline": SQUARE, "elevation": 10}],
        "tokens": [
            {"id": "A", "x": 100, "y": 100},
            {"id": "B", "x": 500, "y": 100, "elevation": 10},
        ],
    }
    cover = client.post(
        "/v1/cover", json={"ruleset": ruleset, "scene": scene, "attacker": "A", "targets": ["B"]}
    ).get_json()
    assert cover["results"][0]["cover"] == "total", cover
    seen = client.post(
        "/v1/vision", json={"ruleset": ruleset, "scene": scene, "observer": "A", "targets": ["B"]}
    ).get_json()
    assert seen["results"][0]["line_of_sight"] is False, seen
    matrix = client.post("/v1/matrix", json={"ruleset": ruleset, "scene": scene, "kind": "vision"})
    assert matrix.status_code == 200
    body = client.post("/v1/line-of-sight", json={"scene": scene, "from": "A", "to": "B"})
    assert body.get_json()["clear"] is False
    open_scene = {**scene, "surfaces": []}
    body = client.post("/v1/line-of-sight", json={"scene": open_scene, "from": "A", "to": "B"})
    assert body.get_json()["clear"] is True


def test_a_creature_right_above_another_on_the_floor_over_it_is_not_seen():
    """Spaces that overlap on the map are not joined through a floor between them (GEO-10)."""
    client = create_app().test_client()
    scene = {
        "grid": {"size": 100},
        "surfaces": [{"id": "f", "outline": SQUARE, "elevation": 10}],
        "tokens": [
            {"id": "A", "x": 100, "y": 100},
            {"id": "B", "x": 100, "y": 100, "elevation": 10},
        ],
    }
    body = {"scene": scene, "from": "A", "to": "B"}
    assert client.post("/v1/line-of-sight", json=body).get_json()["clear"] is False
    body["scene"] = {**scene, "surfaces": []}
    assert client.post("/v1/line-of-sight", json=body).get_json()["clear"] is True
