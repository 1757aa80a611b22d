"""GEO-8 through the HTTP API: metric range bands, hex and gridless scenes, reach defaults."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("body", "band", "rules"),
    [
        pytest.param({"distance": 9, "units": "m"}, "close", ["PV-RNG-1", "GEO-8"], id="9 m"),
        pytest.param({"distance": 10, "units": "m"}, "near", ["PV-RNG-1", "GEO-8"], id="10 m"),
        pytest.param({"distance": 10}, "close", ["PV-RNG-1"], id="feet by default"),
    ],
)
def test_range_bands_in_scene_units(client, body, band, rules):
    """PV-RNG-1's bands are in feet; a metric distance counts 1.5 m per 5 ft (GEO-8)."""
    resp = client.post("/v1/modifiers/range", json={"ruleset": "pf2e-variant", **body})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["band"] == band
    assert resp.get_json()["rules"] == rules


def test_range_units_must_be_feet_or_metres(client):
    resp = client.post(
        "/v1/modifiers/range", json={"ruleset": "pf2e-variant", "distance": 9, "units": "yd"}
    )
    assert resp.status_code == 422
    assert "units" in resp.get_json()["errors"]["json"]


@pytest.mark.parametrize(
    ("grid", "expected"),
    [
        pytest.param({"size": 100, "type": "hex-row"}, 10, id="hex-row: two hexes"),
        pytest.param({"size": 100, "type": "hex-col", "hex_offset": "even"}, 10, id="hex-col"),
        pytest.param({"size": 100, "type": "gridless"}, 10, id="gridless: 5 ft gap + 5 ft"),
        pytest.param({"size": 100, "diagonals": "alternating"}, 10, id="square"),
    ],
)
def test_vision_distance_by_grid(client, grid, expected):
    """GEO-8: the vision answer's distance follows the scene's grid type."""
    scene = {
        "grid": grid,
        "tokens": [{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 200, "y": 0}],
    }
    resp = client.post(
        "/v1/vision",
        json={"ruleset": "dnd5e", "scene": scene, "observer": "A", "targets": ["T"]},
    )
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["results"][0]["distance"] == pytest.approx(expected)


def test_hex_offset_is_checked(client):
    scene = {"grid": {"size": 100, "type": "hex-row", "hex_offset": "middle"}, "tokens": []}
    resp = client.post("/v1/scenes", json={"scene": scene})
    assert resp.status_code == 422
    assert "hex_offset" in str(resp.get_json()["errors"])
