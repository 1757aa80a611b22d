"""Lighting tables: 5E-VIS-3..6, GEO-1 light restriction (shared/RULES.md)."""

from __future__ import annotations

import numpy as np
import pytest

from service.engine.scene import build_scene
from service.lighting import light_at_points, light_over_token
from tests.scenes import load, tok, wall

TORCH = {"id": "torch", "x": 50, "y": 50, "bright": 20, "dim": 40}  # 20 ft = 400 px


def levels(points, lights=(TORCH,), walls=(), regions=(), env="dark", tokens=()):
    scene = load(
        list(walls),
        list(tokens),
        lights=list(lights),
        regions=list(regions),
        environment={"light": env},
    )
    return light_at_points(build_scene(scene), np.array(points, dtype=float))


@pytest.mark.parametrize(
    ("point", "env", "level"),
    [
        pytest.param((50, 50), "dark", "bright", id="5E-VIS-3 at the light: bright"),
        pytest.param((450, 50), "dark", "bright", id="5E-VIS-3 bright radius edge (20 ft)"),
        pytest.param((451, 50), "dark", "dim", id="5E-VIS-3 just past bright: dim"),
        pytest.param((850, 50), "dark", "dim", id="5E-VIS-3 dim radius edge (40 ft)"),
        pytest.param((851, 50), "dark", "dark", id="5E-VIS-3 past the dim radius: dark"),
        pytest.param((851, 50), "dim", "dim", id="5E-VIS-3 ambient dim outside the light"),
        pytest.param((851, 50), "bright", "bright", id="5E-VIS-3 ambient bright"),
    ],
)
def test_radii_and_ambient(point, env, level):
    (sample,) = levels([point], env=env)
    assert sample.level == level


def test_walls_that_restrict_light_shadow_it():
    """GEO-1: a wall restricting light casts a shadow; a light-transparent one does not."""
    stone = wall("stone", 200, -1000, 200, 1000)
    glass = wall("glass", 200, -1000, 200, 1000, light="none", sight="none")
    assert levels([(300, 50)], walls=[stone])[0].level == "dark"
    assert levels([(300, 50)], walls=[glass])[0].level == "bright"
    unconstrained = {**TORCH, "walls": False}
    assert levels([(300, 50)], lights=[unconstrained], walls=[stone])[0].level == "bright"


def test_cone():
    """A 90-degree cone facing down the screen (rotation 0) lights below, not above."""
    cone = {**TORCH, "x": 500, "y": 500, "angle": 90, "rotation": 0}
    below, above, side = levels([(500, 700), (500, 300), (700, 500)], lights=[cone])
    assert (below.level, above.level, side.level) == ("bright", "dark", "dark")
    east = {**cone, "rotation": -90}  # clockwise from down: -90 faces +x
    assert levels([(700, 500)], lights=[east])[0].level == "bright"


def test_magical_darkness_region_and_darkness_light():
    """5E-VIS-5: magical darkness; no light shines in it."""
    region = {
        "id": "md",
        "shape": {"type": "rect", "x": 0, "y": 0, "width": 200, "height": 200},
        "magical_darkness": True,
    }
    inside, outside = levels([(100, 100), (300, 100)], regions=[region], env="bright")
    assert (inside.level, inside.magical_darkness) == ("dark", True)
    assert "md" in inside.lights
    assert (outside.level, outside.magical_darkness) == ("bright", False)
    spell = {"id": "darkness", "x": 1000, "y": 1000, "dim": 15, "darkness": True}
    near, far = levels([(1100, 1000), (1400, 1000)], lights=[spell], env="bright")
    assert near.magical_darkness and near.level == "dark"
    assert not far.magical_darkness and far.level == "bright"


def test_token_level_is_the_brightest_over_its_space():
    """API.md: a token with a 10-px sliver in the torch's dim light is in dim light."""
    scene = load([], [tok("T", 840, 0, 1)], lights=[TORCH], environment={"light": "dark"})
    geo = build_scene(scene)
    assert light_over_token(geo, scene.token("T")).level == "dim"
    far = load([], [tok("T", 860, 0, 1)], lights=[TORCH], environment={"light": "dark"})
    assert light_over_token(build_scene(far), far.token("T")).level == "dark"


def test_carried_light():
    """A token's own light: bright 0, dim 10 ft lights its space dim (the candle, 5E-VIS-4)."""
    scene = load(
        [], [tok("T", 0, 0, light={"bright": 0, "dim": 10})], environment={"light": "dark"}
    )
    sample = light_over_token(build_scene(scene), scene.token("T"))
    assert (sample.level, sample.lights) == ("dim", ("T",))
