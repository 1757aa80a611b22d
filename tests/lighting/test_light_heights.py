"""A light's radii are measured in 3-D (GEO-5a, 5E-VIS-3).

A light is a point at its ``elevation``; a point is lit by distance to its own elevation, a
token by distance to the nearest height of its vertical extent. The lamp has bright 5 ft,
dim 10 ft (outer radius, 5E-VIS-3) and stands over the point (50, 50) px, in a dark scene.
"""

from __future__ import annotations

import pytest

from service.app import create_app


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


CASES = [
    # lamp elevation, token elevation, level at the ground point below, level over the token
    pytest.param(0, 0, "bright", "bright", id="on the ground"),
    pytest.param(100, 0, "dark", "dark", id="100 ft up: nothing below is lit"),
    pytest.param(100, 95, "dark", "bright", id="a flier at 95-100 ft is lit"),
    pytest.param(12, 0, "dark", "dim", id="12 ft up: 7 ft over a 5-ft creature's head"),
    pytest.param(7, 0, "dim", "bright", id="7 ft up: dim on the ground, bright at head height"),
    pytest.param(-20, 0, "dark", "dark", id="20 ft below the floor"),
]


@pytest.mark.parametrize(("lamp", "token", "ground", "over_token"), CASES)
def test_light_radius_is_measured_in_three_dimensions(client, lamp, token, ground, over_token):
    scene = {
        "grid": {"size": 100},
        "environment": {"light": "dark"},
        "lights": [{"id": "lamp", "x": 50, "y": 50, "bright": 5, "dim": 10, "elevation": lamp}],
        "tokens": [{"id": "T", "x": 0, "y": 0, "elevation": token}],
    }
    resp = client.post("/v1/lighting", json={"scene": scene, "points": [[50, 50]], "tokens": ["T"]})
    assert resp.status_code == 200, resp.get_json()
    assert [r["level"] for r in resp.get_json()["results"]] == [ground, over_token]
