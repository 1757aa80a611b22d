"""An area's point of origin has a height (GEO-5a): ``attack.elevation`` on ``/v1/cover``.

A wall 0-10 ft stands at x = 200 px between the origin (50, 50) and B (a medium creature at
x = 400, standing 0-5 ft). The origin is a band of no thickness; at the wall the line's band
runs from the origin's height toward B's extent, and the wall blocks only where its range
holds the whole band (GEO-5: half-open ``[bottom, top)``).
"""

from __future__ import annotations

import pytest

SCENE = {
    "grid": {"size": 100},
    "walls": [{"id": "w", "c": [200, -200, 200, 300], "height": {"bottom": 0, "top": 10}}],
    "tokens": [{"id": "A", "x": 0, "y": 300, "elevation": 30}, {"id": "B", "x": 400, "y": 0}],
}


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize(
    ("attack", "reaches"),
    [
        pytest.param({"kind": "area", "origin": [50, 50]}, False, id="no attacker: at 0"),
        pytest.param({"kind": "area", "origin": [50, 50], "elevation": 5}, False, id="at 5 ft"),
        pytest.param({"kind": "area", "origin": [50, 50], "elevation": 10}, False, id="at 10"),
        pytest.param({"kind": "area", "origin": [50, 50], "elevation": 20}, True, id="at 20"),
    ],
)
def test_area_origin_height_decides_line_of_effect(client, ruleset, attack, reaches):
    """5E-LOE-1 / SF-COV-9 / PV-COV-6 with GEO-5a: a burst above the wall reaches B."""
    body = {"ruleset": ruleset, "scene": SCENE, "targets": ["B"], "attack": attack}
    resp = client.post("/v1/cover", json=body)
    assert resp.status_code == 200, resp.get_json()
    result = resp.get_json()["results"][0]
    assert result["line_of_effect"] is reaches
    assert (result["cover"] == "total") is not reaches


def test_area_origin_defaults_to_the_attackers_elevation(client):
    """Without ``attack.elevation`` the effect leaves from the attacker's height (30 ft)."""
    body = {
        "ruleset": "dnd5e",
        "scene": SCENE,
        "attacker": "A",
        "targets": ["B"],
        "attack": {"kind": "area", "origin": [50, 50]},
    }
    result = client.post("/v1/cover", json=body).get_json()["results"][0]
    assert result["line_of_effect"] is True


@pytest.mark.parametrize("elevation", ["high", True, 1e7, float("nan")])
def test_bad_area_elevation_is_a_422_naming_it(client, elevation):
    body = {
        "ruleset": "dnd5e",
        "scene": SCENE,
        "targets": ["B"],
        "attack": {"kind": "area", "origin": [50, 50], "elevation": elevation},
    }
    resp = client.post("/v1/cover", json=body)
    assert resp.status_code in (400, 422)
    if resp.status_code == 422:
        assert "elevation" in resp.get_json()["errors"]["json"]["attack"]
