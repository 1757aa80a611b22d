"""Areas around corners (GEO-13): ``attack.spread`` with a ``radius``, every ruleset.

An area's point of origin with ``spread: true`` and a ``radius`` reaches a target that no
straight line reaches when the shortest path around walls that block movement, from the
origin to the target's space, is within the radius (SF-COV-3 spreads; 5E-LOE-3); the answer
says ``reached_around_corners`` with ``path_length`` (grid units, Euclidean round the wall
ends to the nearest point of the space), and cover bonuses do not apply (SF-COV-3). Without
``spread`` the answer for a target the area cannot reach notes that a spread might.
Grid 100 px = 5 ft unless said.
"""

from __future__ import annotations

import math

import pytest

from service.app import create_app

SYSTEMS = ("dnd5e", "starfinder", "pf2e-variant")
WH = {"id": "Wh", "c": [0, 300, 700, 300]}


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": False}).test_client()


def _cover(client, ruleset, walls, targets, attack, size=100, status=200):
    tokens = [
        {"id": "Hid", "x": 500, "y": 400, "width": 1, "height": 1},
        {"id": "Deep", "x": 100, "y": 600, "width": 1, "height": 1},
        {"id": "Open", "x": 600, "y": 0, "width": 1, "height": 1},
    ]
    scale = size / 100
    for t in tokens:
        t["x"], t["y"] = t["x"] * scale, t["y"] * scale
    walls = [dict(w, c=[v * scale for v in w["c"]]) for w in walls]
    if attack.get("origin") is not None:
        attack = dict(attack, origin=[v * scale for v in attack["origin"]])
    scene = {"grid": {"size": size, "distance": 5, "units": "ft"}, "walls": walls,
             "tokens": tokens}  # fmt: skip
    body = {"ruleset": ruleset, "scene": scene, "targets": targets, "attack": attack}
    resp = client.post("/v1/cover", json=body)
    assert resp.status_code == status, resp.get_json()
    return resp.get_json()


def _spread(radius):
    return {"kind": "area", "origin": [650, 200], "spread": True, "radius": radius}


AROUND = (math.hypot(50, 100) + math.hypot(100, 100)) / 20  # via (700, 300): 12.66 ft


# (ruleset, target, radius, grid size, reached, path length ft or None, cover)
CASES = [
    pytest.param("dnd5e", "Hid", 20, 100, True, AROUND, "none", id="dnd5e around (handed-3)"),
    pytest.param("dnd5e", "Deep", 20, 100, False, None, "total", id="dnd5e beyond (handed-3)"),
    pytest.param("starfinder", "Hid", 20, 100, True, AROUND, "none", id="sf around: no SF-COV-9"),
    pytest.param("pf2e-variant", "Hid", 20, 100, True, AROUND, "none", id="pf2e around"),
    pytest.param("dnd5e", "Hid", 12, 100, False, None, "total", id="radius 12 < 12.66"),
    pytest.param("dnd5e", "Hid", 20, 70, True, AROUND, "none", id="a 70 px grid: the same feet"),
    pytest.param("dnd5e", "Open", 20, 100, False, 5.0, "none", id="straight line: not around"),
]  # fmt: skip


@pytest.mark.parametrize("ruleset, target, radius, size, reached, length, cover", CASES)
def test_a_spread_goes_around_corners(
    client, ruleset, target, radius, size, reached, length, cover
):
    """GEO-13: the shortest path around movement-blocking walls decides; no cover bonus."""
    got = _cover(client, ruleset, [WH], [target], _spread(radius), size)["results"][0]
    assert got["reached_around_corners"] is reached
    if length is None:
        assert got["path_length"] is None
    else:
        assert got["path_length"] == pytest.approx(length, abs=0.1)
    assert got["cover"] == cover
    if cover == "none":
        assert (got["ac_bonus"], got["save_bonus"], got["can_target"]) == (0, 0, True)
    assert "GEO-13" in got["rules"]


def test_a_closed_door_stops_a_spread_an_open_one_does_not(client):
    """GEO-13 with GEO-2: only walls that block movement bend the path."""
    box = [{"id": "e", "c": [700, 300, 900, 300]}, {"id": "d", "c": [700, 300, 700, -100],
           "door": "door", "door_state": "closed"}]  # fmt: skip
    shut = _cover(client, "dnd5e", [WH, *box], ["Hid"], _spread(30))["results"][0]
    assert shut["reached_around_corners"] is False  # not through the corner the walls meet at
    box[1]["door_state"] = "open"
    opened = _cover(client, "dnd5e", [WH, *box], ["Hid"], _spread(30))["results"][0]
    assert opened["reached_around_corners"] is True


@pytest.mark.parametrize("ruleset", SYSTEMS)
def test_without_spread_the_answer_notes_a_spread_might(client, ruleset):
    """GEO-13: an area needs line of effect from its origin; the note says a spread might."""
    attack = {"kind": "area", "origin": [650, 200]}
    got = _cover(client, ruleset, [WH], ["Hid"], attack)["results"][0]
    assert got["line_of_effect"] is False
    assert any(n.startswith("GEO-13") and "might" in n for n in got["notes"])
    assert "reached_around_corners" not in got and "path_length" not in got


@pytest.mark.parametrize(
    "attack",
    [
        {"kind": "area", "origin": [650, 200], "spread": True},
        {"kind": "area", "origin": [650, 200], "spread": True, "radius": 0},
        {"kind": "ranged", "origin": None, "spread": True, "radius": 20},
    ],
    ids=["no radius", "radius 0", "not an area"],
)
def test_a_spread_needs_an_area_origin_and_radius(client, attack):
    """GEO-13: ``spread`` with an area's ``origin`` and a ``radius`` above 0; else a 422."""
    got = _cover(client, "dnd5e", [WH], ["Hid"], attack, status=422)
    assert got["code"] == 422
