"""Lighting properties (issue 8): brute-force reference; adding a wall never raises light."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from service.engine.scene import build_scene
from service.lighting import light_at_points
from tests.property.test_geometry_properties import proper_cross, walls_st
from tests.scenes import load, wall

RANK = {"dark": 0, "dim": 1, "bright": 2}
light_st = st.fixed_dictionaries(
    {
        "x": st.integers(0, 1000),
        "y": st.integers(0, 1000),
        "bright": st.integers(0, 30),
        "dim": st.integers(0, 50),
    }
)
points_st = st.lists(st.tuples(st.integers(0, 1000), st.integers(0, 1000)), min_size=1, max_size=8)


def scene_of(walls, lights, env="dark"):
    return load(
        [wall(f"w{i}", *w) for i, w in enumerate(walls)],
        [],
        lights=[{"id": f"l{i}", **li} for i, li in enumerate(lights)],
        environment={"light": env},
    )


def reference(walls, lights, point) -> str:
    """Slow reference: 20 px per ft; a light reaches a point unless a wall properly crosses."""
    best = 0
    for li in lights:
        d = math.hypot(point[0] - li["x"], point[1] - li["y"]) / 20
        if d > max(li["bright"], li["dim"]) or max(li["bright"], li["dim"]) == 0:
            continue
        seg = (li["x"], li["y"], *point)
        if any(proper_cross(seg, w) for w in walls):
            continue
        best = max(best, 2 if li["bright"] > 0 and d <= li["bright"] else 1)
    return ["dark", "dim", "bright"][best]


def levels(walls, lights, points):
    geo = build_scene(scene_of(walls, lights))
    return [s.level for s in light_at_points(geo, np.array(points, dtype=float))]


@given(walls=walls_st, lights=st.lists(light_st, min_size=1, max_size=3), points=points_st)
def test_matches_reference_when_nothing_touches(walls, lights, points):
    from hypothesis import assume

    from tests.property.test_geometry_properties import general_position

    for li in lights:
        for p in points:
            seg = (li["x"], li["y"], *p)
            assume(all(general_position(seg, w) for w in walls))
    assert levels(walls, lights, points) == [reference(walls, lights, p) for p in points]


@given(
    walls=walls_st,
    extra=walls_st,
    lights=st.lists(light_st, min_size=1, max_size=3),
    points=points_st,
)
def test_adding_walls_never_raises_light(walls, extra, lights, points):
    before = levels(walls, lights, points)
    after = levels(walls + extra, lights, points)
    assert all(RANK[a] <= RANK[b] for a, b in zip(after, before, strict=True))
