"""HTTP: /v1/vision and /v1/lighting (shared/API.md "Vision and detection", "Lighting")."""

from __future__ import annotations

import pytest

from tests.api.test_api import assert_error
from tests.scenes import scene_dict, tok

SCENE = scene_dict(
    [],
    [tok("O", 0, 0, senses={"darkvision": 60}), tok("T", 400, 0)],
    environment={"light": "dark"},
    lights=[{"id": "l1", "x": 450, "y": 50, "bright": 5, "dim": 10}],
)

FIELDS = {
    "target",
    "can_see",
    "sense",
    "light",
    "obscurement",
    "perception_disadvantage",
    "detection",
    "concealed",
    "flat_check_dc",
    "concealment",
    "miss_chance",
    "rules",
}


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
def test_vision_answer_has_every_field(client, ruleset):
    resp = client.post(
        "/v1/vision", json={"ruleset": ruleset, "scene": SCENE, "observer": "O", "targets": ["T"]}
    )
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["observer"] == "O"
    (res,) = body["results"]
    assert FIELDS <= set(res)
    assert res["can_see"] is True and res["sense"] == "sight" and res["light"] == "bright"


def test_lighting_points_and_tokens(client):
    body = client.post(
        "/v1/lighting",
        json={"scene": SCENE, "points": [[450, 50], [2000, 50]], "tokens": ["T", "O"]},
    ).get_json()
    got = [(r["point"], r["token"], r["level"], r["lights"]) for r in body["results"]]
    assert got == [
        ([450.0, 50.0], None, "bright", ["l1"]),
        ([2000.0, 50.0], None, "dark", []),
        (None, "T", "bright", ["l1"]),
        (None, "O", "dark", []),
    ]
    assert all("5E-VIS-3" in r["rules"] for r in body["results"])


@pytest.mark.parametrize(
    ("url", "body", "code", "path"),
    [
        pytest.param(
            "/v1/vision",
            {"ruleset": "dnd5e", "observer": "X", "targets": ["T"]},
            404,
            "observer",
            id="unknown observer",
        ),
        pytest.param(
            "/v1/vision",
            {"ruleset": "dnd5e", "observer": "O", "targets": ["O"]},
            422,
            "targets",
            id="observer is its own target",
        ),
        pytest.param(
            "/v1/vision",
            {
                "ruleset": "dnd5e",
                "observer": "O",
                "targets": ["T"],
                "options": {"unnoticed": ["T"]},
            },
            422,
            "options",
            id="pf2e option sent to dnd5e",
        ),
        pytest.param(
            "/v1/vision",
            {
                "ruleset": "pf2e-variant",
                "observer": "O",
                "targets": ["T"],
                "options": {"unnoticed": ["Z"]},
            },
            404,
            "options",
            id="unnoticed names no token",
        ),
        pytest.param("/v1/lighting", {}, 422, "points", id="nothing to light"),
        pytest.param("/v1/lighting", {"points": [[1]]}, 422, "points", id="short point"),
        pytest.param("/v1/lighting", {"tokens": ["Z"]}, 404, "tokens", id="unknown token"),
    ],
)
def test_errors(client, url, body, code, path):
    err = assert_error(client.post(url, json={"scene": SCENE, **body}), code)
    assert path in err["errors"]["json"]
