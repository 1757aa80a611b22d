"""Answers that mislead: what a field claims must be what was measured (API.md).

* ``detection`` and ``flat_check_dc`` are ``null`` outside pf2e-variant (API.md "Vision and
  detection": a neutral "observed" would claim what was not seen), also in ``/openapi.json``.
* Starfinder notes a low obstacle it sets aside (SF-COV-5) only when the attacker's chosen
  lines meet it, not one note per ``cover: "low"`` wall anywhere in the scene.
"""

from __future__ import annotations

import pytest

from service import rules
from service.app import create_app
from service.engine.scene import build_scene
from service.rules.ask import cover_one
from service.rules.base import Attack
from tests.scenes import load, scene_dict, tok, wall


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": False}).test_client()


# (ruleset, environment light, detection, flat_check_dc, can_see)
DETECTION = [
    pytest.param("dnd5e", "bright", None, None, True, id="dnd5e seen (handed-3)"),
    pytest.param("dnd5e", "dark", None, None, False, id="dnd5e unseen in darkness"),
    pytest.param("starfinder", "bright", None, None, True, id="starfinder seen"),
    pytest.param("starfinder", "dark", None, None, None, id="starfinder total concealment"),
    pytest.param("pf2e-variant", "bright", "observed", None, True, id="pf2e observed"),
    pytest.param("pf2e-variant", "dark", "hidden", 11, False, id="pf2e hidden by hearing"),
]


@pytest.mark.parametrize("ruleset, light, detection, dc, can_see", DETECTION)
def test_detection_is_null_outside_pf2e(client, ruleset, light, detection, dc, can_see):
    """API.md: ``detection``/``flat_check_dc`` are pf2e-variant's; null in the others, seen
    or not (dnd5e and Starfinder said "observed" for targets they did not see)."""
    scene = scene_dict([], [tok("O", 0, 0), tok("T", 300, 0)], environment={"light": light})
    body = {"ruleset": ruleset, "scene": scene, "observer": "O", "targets": ["T"]}
    resp = client.post("/v1/vision", json=body)
    assert resp.status_code == 200, resp.get_json()
    got = resp.get_json()["results"][0]
    assert "detection" in got and "flat_check_dc" in got
    assert (got["detection"], got["flat_check_dc"]) == (detection, dc)
    if can_see is not None:
        assert got["can_see"] is can_see


def test_openapi_says_detection_may_be_null(client):
    """``/openapi.json`` (API.md changes with this): both fields are nullable."""
    spec = client.get("/openapi.json").get_json()
    props = spec["components"]["schemas"]["VisionResult"]["properties"]
    for field in ("detection", "flat_check_dc"):
        assert props[field].get("nullable") is True or "null" in str(props[field].get("type"))
        assert "null" in props[field]["description"]


def _low(wid: str, x: float, y0: float, y1: float) -> dict:
    return wall(wid, x, y0, x, y1, cover="low")


def _sf_cover(walls, attack=None):
    scene = load(walls, [tok("A", 0, 0), tok("T", 1200, 0)])
    system = rules.get("starfinder")
    return cover_one(
        system, build_scene(scene), scene.token("A"), scene.token("T"), attack or Attack(), {}
    )


def _low_notes(result) -> list[str]:
    return [n for n in result.notes if n.startswith("SF-COV-5")]


# (walls, SF-COV-5 notes expected) -- A at (0, 0), T 12 squares east (60 ft)
LOW_NOTES = [
    pytest.param(
        [_low(f"far{k}", 50 + 10 * k, 2000, 2100) for k in range(200)],
        [],
        id="200 low walls off the lines: no note (handed-3: one per wall)",
    ),
    pytest.param(
        [_low("mid", 300, -100, 200)],
        ["SF-COV-5: low obstacle mid is over 30 ft from the target: no cover from it."],
        id="a low wall across the lines, 45 ft from the target: one note",
    ),
    pytest.param(
        [_low("mid", 300, -100, 200), _low("aside", 300, 400, 700)],
        ["SF-COV-5: low obstacle mid is over 30 ft from the target: no cover from it."],
        id="the low wall beside the lines says nothing",
    ),
    pytest.param(
        [_low("nearA", 150, -100, 200)]
        + [_low(f"far{k}", 50 + 10 * k, -2000, -1900) for k in range(50)],
        ["SF-COV-5: low obstacle nearA is over 30 ft from the target: no cover from it."],
        id="one met among 51",
    ),
    pytest.param([_low("nearT", 1150, -100, 200)], [], id="a low wall near T: cover, no note"),
]


@pytest.mark.parametrize("walls, notes", LOW_NOTES)
def test_starfinder_notes_only_the_low_walls_its_lines_meet(walls, notes):
    """SF-COV-5: a note per low obstacle set aside that the chosen lines cross, no other."""
    assert _low_notes(_sf_cover(walls)) == notes


def test_starfinder_area_notes_the_low_wall_nearer_the_origin():
    """SF-COV-5 with an area's point of origin: the low wall nearer the origin than the
    target is set aside and noted; one beside the lines is not."""
    walls = [_low("byorigin", 1000, -100, 200), _low("aside", 1000, 400, 700)]
    scene = load(walls, [tok("T", 1200, 0)])
    attack = Attack("area", (950.0, 50.0), None)
    result = cover_one(
        rules.get("starfinder"), build_scene(scene), None, scene.token("T"), attack, {}
    )
    assert _low_notes(result) == [
        "SF-COV-5: the attacker is closer to low obstacle byorigin than the target: ignored."
    ]
