"""Overlapping regions with different light: the darkest wins (GEO-9 "overlapping regions").

Where regions with different ``light`` overlap, ``dark`` wins over ``dim`` over ``bright``,
whatever their order in the scene; a region out of the point's height range (GEO-5) takes no
part; lights still add. Each row is run in both orders of its regions. Grid 100 px = 5 ft.
"""

from __future__ import annotations

import numpy as np
import pytest

from service import rules
from service.engine.scene import build_scene
from service.lighting import light_at_points, light_over_token
from service.rules.ask import vision_one
from tests.scenes import load, tok

WEST = {"type": "rect", "x": -1000, "y": -1000, "width": 1600, "height": 3000}  # x < 600
EAST = {"type": "rect", "x": 400, "y": -1000, "width": 2000, "height": 3000}  # x >= 400
POINT = (500.0, 50.0)  # in both


UPSTAIRS = {"bottom": 10, "top": 20}


def _region(rid, light, shape=EAST, **kw):
    return {"id": rid, "shape": shape, "light": light, **kw}


def _level(env, regions, elevation=0.0, lights=()):
    scene = load([], [], environment={"light": env}, regions=regions, lights=list(lights))
    built = build_scene(scene)
    (sample,) = light_at_points(built, np.array([POINT]), elevations=elevation)
    return sample.level


# (ambient, regions, elevation, light at the point)
OVERLAPS = [
    pytest.param("bright", [_region("a", "dim", WEST), _region("b", "dark")], 0, "dark",
                 id="dim and dark: dark"),
    pytest.param("dark", [_region("a", "bright", WEST), _region("b", "dim")], 0, "dim",
                 id="bright and dim in a dark scene: dim"),
    pytest.param("dim", [_region("a", "bright", WEST), _region("b", "bright")], 0, "bright",
                 id="two bright in a dim scene: bright"),
    pytest.param("bright",
                 [_region("a", "bright", WEST), _region("b", "dark"), _region("c", "dim", WEST)],
                 0, "dark", id="three: dark"),
    pytest.param("bright",
                 [_region("a", "dim", WEST), _region("b", "dark", elevation=UPSTAIRS)],
                 0, "dim", id="the dark one on the floor above takes no part (GEO-5)"),
    pytest.param("bright",
                 [_region("a", "dim", WEST), _region("b", "dark", elevation=UPSTAIRS)],
                 10, "dark", id="on the floor above: dark"),
]  # fmt: skip


@pytest.mark.parametrize("env, regions, elevation, level", OVERLAPS)
@pytest.mark.parametrize("order", ["as given", "reversed"])
def test_the_darkest_region_wins(env, regions, elevation, level, order):
    """GEO-9: where regions of different light overlap, the darkest wins, in any order."""
    ordered = regions if order == "as given" else regions[::-1]
    assert _level(env, ordered, elevation) == level


def test_lights_still_add_over_the_darkest():
    """GEO-9: a region's light replaces the ambient light; lights still add."""
    torch = {"id": "torch", "x": 500, "y": 50, "bright": 10, "dim": 20}
    regions = [_region("a", "bright", WEST), _region("b", "dark")]
    for ordered in (regions, regions[::-1]):
        assert _level("bright", ordered, lights=[torch]) == "bright"


@pytest.mark.parametrize("order", ["as given", "reversed"])
def test_a_token_in_the_overlap_and_starfinder_concealment(order):
    """GEO-9 with SF-CON-6: a target standing in dim and dark regions is in darkness, total
    concealment (50 %) for an observer without darkvision, whatever the regions' order."""
    regions = [_region("a", "dim", WEST), _region("b", "dark")]
    regions = regions if order == "as given" else regions[::-1]
    scene = load([], [tok("O", 0, 0), tok("T", 450, 0)], regions=regions)
    built = build_scene(scene)
    assert light_over_token(built, scene.token("T")).level == "dark"
    seen = vision_one(rules.get("starfinder"), built, scene.token("O"), scene.token("T"), {})
    assert (seen.light, seen.concealment, seen.miss_chance) == ("dark", "total", 50)
