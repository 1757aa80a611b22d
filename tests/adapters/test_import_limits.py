"""Exports are counted from their own structure and refused past the scene limits before they
are translated (``adapters.limits``; docs/operations.md "Limits"): a 422 naming the count, the
limit and its setting, for ``POST /v1/import/<format>`` and ``POST /v1/scenes`` alike.

Each format gets a body just over and just under each limit it can pass, hand-made here
(small limits, small bodies); the refusal is shown to come before any translation (the
format's readers are replaced by ones that fail the test when called). Outside a request
(the CLI, ``adapters.detect`` called directly) nothing is counted.
"""

from __future__ import annotations

import json

import pytest

import adapters.foundry as foundry_adapter
import adapters.roll20 as roll20_adapter
import adapters.uvtt as uvtt_adapter
from adapters import detect
from adapters.limits import ExportOverLimits, check_counts, use_limits
from service.app import create_app

LIMITS = {
    "MAX_WALLS": 6,
    "MAX_TOKENS": 3,
    "MAX_LIGHTS": 2,
    "MAX_REGIONS": 2,
    "MAX_REGION_POINTS": 12,
}


@pytest.fixture(scope="module")
def client():
    return create_app(LIMITS).test_client()


# --- hand-made exports -------------------------------------------------------------------------


def foundry(walls=0, tokens=0, lights=0, regions=0, points=3):
    """A Foundry v12 scene document: walls, tokens with actors, lights, polygon regions."""
    polygon = [coord for k in range(points) for coord in (100 * k, 100 * (k % 2))]
    return {
        "_id": "s1",
        "name": "Limits",
        "width": 2000,
        "height": 2000,
        "padding": 0,
        "grid": {"size": 100, "distance": 5, "units": "ft", "type": 1},
        "walls": [{"_id": f"w{k}", "c": [0, 100 * k, 50, 100 * k]} for k in range(walls)],
        "tokens": [
            {"_id": f"t{k}", "name": f"T{k}", "actorId": f"a{k}", "x": 100 * k, "y": 0,
             "width": 1, "height": 1}
            for k in range(tokens)
        ],
        "lights": [
            {"_id": f"l{k}", "x": 100 * k, "y": 500, "config": {"bright": 5, "dim": 10}}
            for k in range(lights)
        ],
        "regions": [
            {"_id": f"r{k}", "name": f"R{k}", "shapes": [{"type": "polygon", "points": polygon}]}
            for k in range(regions)
        ],
    }  # fmt: skip


def roll20(segments=0, curves=0, tokens=0, lights=0, as_string=True):
    """A betteR20 module export of one page: one walls-layer path, token-layer graphics."""
    cmds = [["M", 0, 0]] + [["L", 10 * (k + 1), 0] for k in range(segments)]
    cmds += [["Q", 5, 5, 10 * (k + 1), 10] for k in range(curves)]
    path = {"id": "p1", "layer": "walls", "left": 100, "top": 100, "width": 200, "height": 200,
            "path": json.dumps(cmds) if as_string else cmds}  # fmt: skip
    graphics = [
        {
            "id": f"g{k}",
            "layer": "objects",
            "left": 35 + 70 * k,
            "top": 35,
            "width": 70,
            "height": 70,
            "represents": f"c{k}",
            "name": f"G{k}",
        }
        for k in range(tokens)
    ]
    graphics += [
        {"id": f"l{k}", "layer": "map", "left": 35, "top": 35 + 70 * k, "width": 70,
         "height": 70, "light_radius": 20}
        for k in range(lights)
    ]  # fmt: skip
    attributes = {"name": "Limits", "width": 20, "height": 20, "snapping_increment": 1,
                  "scale_number": 5, "scale_units": "ft", "grid_type": "square",
                  "showlighting": True}  # fmt: skip
    return {"schema_version": 1, "maps": [{"attributes": attributes, "paths": [path],
                                           "graphics": graphics}]}  # fmt: skip


def uvtt(segments=0, portals=0, lights=0, lines=1):
    """A Universal VTT file: ``lines`` polylines sharing ``segments`` segments, portals, lights."""
    per = [segments // lines + (k < segments % lines) for k in range(lines)]
    los = [[{"x": k, "y": j} for j in range(n + 1)] for k, n in enumerate(per) if n]
    return {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 20, "y": 20},
                       "pixels_per_grid": 100},
        "line_of_sight": los,
        "portals": [
            {"bounds": [{"x": 10, "y": k}, {"x": 11, "y": k}], "closed": True}
            for k in range(portals)
        ],
        "lights": [
            {"position": {"x": k, "y": 5}, "range": 2, "intensity": 1, "color": "ffffffff"}
            for k in range(lights)
        ],
    }  # fmt: skip


# --- the cases ---------------------------------------------------------------------------------

#: (format, export over a limit, export just under it, count, limit, field, setting).
CASES = [
    pytest.param("foundry", foundry(walls=7), foundry(walls=6), 7, 6, "walls", "MAX_WALLS",
                 id="foundry walls"),
    pytest.param("foundry", foundry(tokens=4), foundry(tokens=3), 4, 3, "tokens", "MAX_TOKENS",
                 id="foundry tokens"),
    pytest.param("foundry", foundry(lights=3), foundry(lights=2), 3, 2, "lights", "MAX_LIGHTS",
                 id="foundry lights"),
    pytest.param("foundry", foundry(regions=3), foundry(regions=2), 3, 2, "regions",
                 "MAX_REGIONS", id="foundry regions"),
    pytest.param("foundry", foundry(regions=2, points=7), foundry(regions=2, points=6), 14, 12,
                 "regions", "MAX_REGION_POINTS", id="foundry region points"),
    pytest.param("roll20", roll20(segments=7), roll20(segments=6), 7, 6, "walls", "MAX_WALLS",
                 id="roll20 path commands"),
    pytest.param("roll20", roll20(segments=7, as_string=False),
                 roll20(segments=6, as_string=False), 7, 6, "walls", "MAX_WALLS",
                 id="roll20 path commands as a list"),
    pytest.param("roll20", roll20(segments=3, curves=1), roll20(segments=2, curves=1), 7, 6,
                 "walls", "MAX_WALLS", id="roll20 curves count 4"),
    pytest.param("roll20", roll20(tokens=4), roll20(tokens=3), 4, 3, "tokens", "MAX_TOKENS",
                 id="roll20 tokens"),
    pytest.param("roll20", roll20(lights=3), roll20(lights=2), 3, 2, "lights", "MAX_LIGHTS",
                 id="roll20 lights"),
    pytest.param("uvtt", uvtt(segments=7, lines=3), uvtt(segments=6, lines=3), 7, 6, "walls",
                 "MAX_WALLS", id="uvtt line_of_sight"),
    pytest.param("uvtt", uvtt(segments=4, portals=3), uvtt(segments=4, portals=2), 7, 6,
                 "walls", "MAX_WALLS", id="uvtt portals"),
    pytest.param("uvtt", uvtt(lights=3), uvtt(lights=2), 3, 2, "lights", "MAX_LIGHTS",
                 id="uvtt lights"),
]  # fmt: skip


@pytest.mark.parametrize(("fmt", "over", "under", "count", "limit", "field", "setting"), CASES)
def test_an_export_just_over_a_limit_is_refused_naming_count_and_limit(
    client, fmt, over, under, count, limit, field, setting
):
    for path, body in ((f"/v1/import/{fmt}", over), ("/v1/import/auto", over),
                       ("/v1/scenes", {"format": fmt, "export": over})):  # fmt: skip
        resp = client.post(path, json=body)
        assert resp.status_code == 422, (path, resp.get_json())
        payload = resp.get_json()
        message = payload["message"]
        assert f"holds {count:,} " in message and f"over the {limit:,} " in message, message
        assert f"SIGHTLINE_{setting}" in message, message
        assert field in json.dumps(payload["errors"]), payload["errors"]
    ok = client.post(f"/v1/import/{fmt}", json=under)
    assert ok.status_code == 200, ok.get_json()
    stored = client.post("/v1/scenes", json={"format": fmt, "export": under})
    assert stored.status_code == 200, stored.get_json()


@pytest.mark.parametrize(("fmt", "over", "under", "count", "limit", "field", "setting"), CASES)
def test_the_refusal_comes_before_any_translation(
    monkeypatch, fmt, over, under, count, limit, field, setting
):
    module = {"foundry": foundry_adapter, "roll20": roll20_adapter, "uvtt": uvtt_adapter}[fmt]
    readers = {
        "foundry": ("read_walls", "read_tokens", "read_lights", "read_regions", "read_grid"),
        "roll20": ("_walls", "_graphics", "read_grid"),
        "uvtt": ("_walls", "_lights", "_frame"),
    }[fmt]

    def translated(*args, **kwargs):
        raise AssertionError("the export was translated before it was counted")

    for name in readers:
        monkeypatch.setattr(module, name, translated)
    use_limits(LIMITS)  # what the app does for each request
    try:
        with pytest.raises(ExportOverLimits) as err:
            detect.to_scene(over, format=fmt)
    finally:
        use_limits(None)
    assert (err.value.count, err.value.limit, err.value.path) == (count, limit, (field,))
    with pytest.raises(AssertionError, match="translated before it was counted"):
        detect.to_scene(under, format=fmt)  # under the limits: translated (the stubs fail)


def test_no_limits_no_refusal(client):
    assert client.post("/v1/import/foundry", json=foundry(walls=7)).status_code == 422
    # Outside a request (the CLI's imports, another app): the app's limits do not apply.
    assert detect.to_scene(foundry(walls=7))["stats"]["walls"] == 7
    assert foundry_adapter.to_scene(foundry(walls=7))["stats"]["walls"] == 7
    check_counts({"walls": 10**9}, {}, None)
    check_counts({"walls": 10**9}, {}, {"MAX_TOKENS": 1})


def test_the_server_limits_are_the_ones_counted_against():
    loose = create_app({"MAX_WALLS": 100}).test_client()
    assert loose.post("/v1/import/uvtt", json=uvtt(segments=50)).status_code == 200
    tight = create_app({"MAX_WALLS": 49}).test_client()
    resp = tight.post("/v1/import/uvtt", json=uvtt(segments=50))
    assert resp.status_code == 422 and "SIGHTLINE_MAX_WALLS" in resp.get_json()["message"]
