"""Starfinder cover's concealment agrees with vision's (SF-CON-8 Decision).

``/v1/cover`` answers the same concealment and miss chance as ``/v1/vision`` for the same
pair: light (SF-CON-6: dim 20 %, darkness 50 %, none against darkvision or low-light vision
in dim light), regions (GEO-9: heavy fog that blocks sight, 50 %), invisibility (SF-CON-5)
and senses that need no sight (SF-CON-6 Decision). Layout (100 px = 5 ft): Gun at (0, 200),
Mark six squares east at (600, 200).
"""

from __future__ import annotations

import pytest

from service.app import create_app
from tests.scenes import scene_dict, tok, wall

AROUND_MARK = {"type": "rect", "x": 500, "y": 100, "width": 300, "height": 300}
BETWEEN = {"type": "rect", "x": 250, "y": -500, "width": 200, "height": 1500}


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": False}).test_client()


# (environment light, regions, walls, Gun's senses, Mark's conditions, concealment, miss)
CASES = [
    pytest.param("bright", [{"id": "Shadow", "shape": AROUND_MARK, "light": "dark"}], [], {}, [],
                 "total", 50, id="dark region around the target (handed-3)"),
    pytest.param("dim", [], [], {}, [], "concealment", 20, id="dim light: 20 %"),
    pytest.param("dark", [], [], {}, [], "total", 50, id="darkness: 50 %"),
    pytest.param("dark", [], [], {"darkvision": 60}, [], "none", 0, id="darkvision in darkness"),
    pytest.param("dim", [], [], {"low_light_vision": True}, [], "none", 0, id="low-light, dim"),
    pytest.param("bright", [{"id": "fog", "shape": BETWEEN, "obscurement": "heavy"}], [], {}, [],
                 "total", 50, id="heavy fog blocking sight: 50 %"),
    pytest.param("bright", [], [], {}, ["invisible"], "total", 50, id="invisible: 50 %"),
    pytest.param("bright", [], [wall("glass", 300, -500, 300, 900, move="none")],
                 {"blindsight": 60}, [], "none", 0, id="blindsight through a sight-only wall"),
]  # fmt: skip


def _body(endpoint, env, regions, walls, senses, conditions):
    tokens = [tok("Gun", 0, 200, senses=senses), tok("Mark", 600, 200, conditions=conditions)]
    scene = scene_dict(walls, tokens, regions=regions, environment={"light": env})
    who = {"/v1/cover": "attacker", "/v1/vision": "observer"}[endpoint]
    return {"ruleset": "starfinder", "scene": scene, who: "Gun", "targets": ["Mark"]}


@pytest.mark.parametrize("env, regions, walls, senses, conditions, degree, miss", CASES)
def test_cover_concealment_is_vision_concealment(
    client, env, regions, walls, senses, conditions, degree, miss
):
    """SF-CON-8: a cover answer never says "no concealment" where vision says 20 or 50 %."""
    got = {}
    for endpoint in ("/v1/cover", "/v1/vision"):
        resp = client.post(endpoint, json=_body(endpoint, env, regions, walls, senses, conditions))
        assert resp.status_code == 200, resp.get_json()
        result = resp.get_json()["results"][0]
        got[endpoint] = (result["concealment"], result["miss_chance"])
    assert got["/v1/cover"] == got["/v1/vision"] == (degree, miss)
