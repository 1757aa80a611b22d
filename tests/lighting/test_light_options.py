"""Lighting, issue 15: region light (GEO-9), lights switched off, private lights.

Tables per kind of fault: a region's ``light`` replaces the ambient light inside it, within
its half-open height range (GEO-5), and lights still add; ``Light.on: false`` lights nothing;
``seen_by: "controllers"`` scene lights light nothing, carried ones only for their carrier.
Grid 100 px = 5 ft.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.engine.scene import build_scene
from service.lighting import light_at_points, light_over_token, shining_lights
from tests.scenes import load, tok

#: A region covering x >= 500 (the imports-2 "Cave" layout).
EAST = {"type": "rect", "x": 500, "y": -1000, "width": 2000, "height": 3000}
TORCH = {"id": "torch", "x": 550, "y": 50, "bright": 10, "dim": 20}  # 200 / 400 px


def region(light=None, elevation=None, **kw):
    out = {"id": "r", "shape": EAST, **kw}
    if light is not None:
        out["light"] = light
    if elevation is not None:
        out["elevation"] = elevation
    return out


def level_at(point, env="bright", regions=(), lights=(), elevation=0.0):
    scene = load([], [], environment={"light": env}, regions=list(regions), lights=list(lights))
    (sample,) = light_at_points(
        build_scene(scene), np.array([point], dtype=float), elevations=elevation
    )
    return sample


@pytest.mark.parametrize(
    ("env", "light", "point", "level"),
    [
        pytest.param("bright", "dark", (750, 50), "dark", id="GEO-9 dark region in a bright scene"),
        pytest.param("bright", "dark", (250, 50), "bright", id="GEO-9 outside: the scene's light"),
        pytest.param("dim", "dark", (520, 50), "dark", id="GEO-9 darken region (v13 Cave)"),
        pytest.param("dim", "dark", (250, 50), "dim", id="GEO-9 outside the darken region: dim"),
        pytest.param("dark", "bright", (750, 50), "bright", id="GEO-9 a bright region in the dark"),
        pytest.param("dark", "dim", (750, 50), "dim", id="GEO-9 a dim region in the dark"),
        pytest.param("bright", "dim", (500, 50), "dim", id="GEO-9 on the region's edge: inside"),
    ],
)
def test_region_light_replaces_ambient(env, light, point, level):
    """GEO-9: a region's light replaces the scene's ambient light inside it."""
    sample = level_at(point, env, [region(light)])
    assert sample.level == level
    inside = point[0] >= 500
    assert ("GEO-9" in sample.rules) is inside


@pytest.mark.parametrize(
    ("region_light", "point", "level"),
    [
        pytest.param("dark", (600, 50), "bright", id="GEO-9 lights still add: bright radius"),
        pytest.param("dark", (850, 50), "dim", id="GEO-9 lights still add: dim radius"),
        pytest.param("dark", (1000, 50), "dark", id="GEO-9 past the light: the region's dark"),
        pytest.param("bright", (1000, 50), "bright", id="GEO-9 a light never darkens"),
    ],
)
def test_lights_add_inside_a_light_region(region_light, point, level):
    """GEO-9: lights still add to a region's light (the brightest applies)."""
    assert level_at(point, "bright", [region(region_light)], [TORCH]).level == level


@pytest.mark.parametrize(
    ("span", "elevation", "level"),
    [
        pytest.param({"bottom": 0, "top": 10}, 0, "dark", id="GEO-5 bottom is inside"),
        pytest.param({"bottom": 0, "top": 10}, 9.9, "dark", id="GEO-5 below the top: inside"),
        pytest.param({"bottom": 0, "top": 10}, 10, "bright", id="GEO-5 at the top: outside"),
        pytest.param({"bottom": 10, "top": 20}, 5, "bright", id="GEO-5 below the bottom"),
        pytest.param({"bottom": 10}, 50, "dark", id="GEO-5 no top: unbounded above"),
        pytest.param({"bottom": 5, "top": 5}, 5, "bright", id="GEO-5 bottom = top holds nothing"),
    ],
)
def test_region_light_height_range(span, elevation, level):
    """GEO-5: a region's light applies within its half-open range [bottom, top)."""
    assert level_at((750, 50), "bright", [region("dark", span)], elevation=elevation).level == level


def test_region_light_over_a_token_uses_its_elevation():
    """GEO-5/GEO-9: a token flying above a dark region's top is in the scene's light."""
    cave = region("dark", {"bottom": 0, "top": 10})
    scene = load(
        [],
        [tok("low", 700, 0), tok("high", 700, 0, elevation=10)],
        environment={"light": "bright"},
        regions=[cave],
    )
    built = build_scene(scene)
    assert light_over_token(built, scene.token("low")).level == "dark"
    assert light_over_token(built, scene.token("high")).level == "bright"


def test_overlapping_regions_the_darkest_decides():
    """GEO-9 Decision (overlapping regions): the darkest wins, whatever the scene order
    (more in ``test_overlapping_regions``)."""
    first = {**region("dark"), "id": "a"}
    second = {**region("dim"), "id": "b"}
    assert level_at((750, 50), "bright", [first, second]).level == "dark"
    assert level_at((750, 50), "bright", [second, first]).level == "dark"


def test_magical_darkness_wins_over_a_bright_region():
    """5E-VIS-5: magical darkness darkens a point whatever the region's light."""
    sample = level_at((750, 50), "dark", [region("bright", magical_darkness=True)])
    assert (sample.level, sample.magical_darkness) == ("dark", True)


@pytest.mark.parametrize(
    ("light", "lit"),
    [
        pytest.param({}, True, id="a light that is on lights"),
        pytest.param({"on": False}, False, id="on false (Foundry hidden): lights nothing"),
        pytest.param({"seen_by": "controllers"}, False, id="private scene light: nothing"),
        pytest.param({"darkness": True, "on": False}, False, id="off darkness: no darkness"),
    ],
)
def test_scene_lights_off_and_private(light, lit):
    """Lights switched off in the VTT, or private, light nothing and are not listed."""
    source = {**TORCH, **light}
    sample = level_at((600, 50), "dark", lights=[source])
    shines = sample.level != "dark" or sample.magical_darkness
    assert shines is lit
    assert ("torch" in sample.lights) is lit


@pytest.mark.parametrize(
    ("seen_by", "observer", "lit"),
    [
        pytest.param("everyone", None, True, id="public carried light: /v1/lighting sees it"),
        pytest.param("everyone", "F", True, id="public carried light: another observer"),
        pytest.param("controllers", None, False, id="private: not in /v1/lighting"),
        pytest.param("controllers", "F", False, id="private: not for another observer"),
        pytest.param("controllers", "G", True, id="private: lights for its carrier"),
    ],
)
def test_private_carried_light(seen_by, observer, lit):
    """A carried light seen by its controllers lights only for the token carrying it."""
    goblin = tok("G", 500, 0, light={"bright": 10, "dim": 20, "seen_by": seen_by})
    scene = load([], [tok("F", 0, 0), goblin], environment={"light": "dark"})
    built = build_scene(scene)
    who = None if observer is None else scene.token(observer)
    sample = light_over_token(built, scene.token("G"), observer=who)
    assert (sample.level == "bright") is lit
    assert ("G" in sample.lights) is lit
    assert ("G" in [s.id for s in shining_lights(built, who)]) is lit


@given(
    env=st.sampled_from(["dark", "dim", "bright"]),
    region_light=st.sampled_from(["dark", "dim", "bright"]),
    x=st.floats(0, 1500),
)
def test_property_region_light_is_ambient_inside(env, region_light, x):
    """GEO-9 property: without lights, the level is the region's inside, the scene's outside."""
    sample = level_at((x, 50.0), env, [region(region_light)])
    assert sample.level == (region_light if x >= 500 else env)


@pytest.mark.parametrize(
    ("wall_height", "light_elevation", "point_elevation", "level"),
    [
        pytest.param(None, 0, 0, "dark", id="GEO-5 a wall without heights shadows"),
        pytest.param({"bottom": 0, "top": 10}, 0, 0, "dark", id="GEO-5 wall 0-10, light at 0"),
        pytest.param({"bottom": 0, "top": 10}, 12, 12, "bright", id="GEO-5 light over the top"),
        pytest.param({"bottom": 10, "top": 20}, 0, 0, "bright", id="GEO-5 upper floor's wall"),
        pytest.param({"bottom": 10, "top": 20}, 15, 15, "dark", id="GEO-5 on the upper floor"),
    ],
)
def test_light_elevation_against_wall_heights(wall_height, light_elevation, point_elevation, level):
    """GEO-5/5a: a light is a band of no thickness at its elevation; walls block in range."""
    stone = {"id": "w", "c": [300, -1000, 300, 1000]}
    if wall_height is not None:
        stone["height"] = wall_height
    light = {"id": "l", "x": 50, "y": 50, "bright": 30, "dim": 40, "elevation": light_elevation}
    scene = load([stone], [], environment={"light": "dark"}, lights=[light])
    (sample,) = light_at_points(
        build_scene(scene), np.array([(500.0, 50.0)]), elevations=point_elevation
    )
    assert sample.level == level
