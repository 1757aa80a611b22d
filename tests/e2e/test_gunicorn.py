"""End to end: real gunicorn on 127.0.0.1, real Foundry export, requests as the client."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import requests

from tests.conftest import SHARED, load_real

pytestmark = pytest.mark.e2e


def test_health_and_openapi(server_url):
    assert requests.get(server_url + "/healthz", timeout=5).json()["status"] == "ok"
    spec = requests.get(server_url + "/openapi.json", timeout=5).json()
    assert "/v1/cover" in spec["paths"]


def test_delian_tomb_import_then_dnd5e_cover_to_every_token(server_url):
    export = load_real("foundry", "foundry-v10-delian-tomb.json")
    imported = requests.post(server_url + "/v1/import/foundry", json=export, timeout=30)
    assert imported.status_code == 200, imported.text[:500]
    scene = imported.json()["scene"]
    assert len(scene["walls"]) == len(export["walls"]) == 43
    assert len(scene["tokens"]) == len(export["tokens"]) == 14

    up = requests.post(server_url + "/v1/scenes", json={"scene": scene}, timeout=30).json()
    tokens = [t["id"] for t in scene["tokens"]]
    attacker, targets = tokens[0], tokens[1:]
    resp = requests.post(
        server_url + "/v1/cover",
        timeout=30,
        json={
            "ruleset": "dnd5e",
            "scene_id": up["scene_id"],
            "attacker": attacker,
            "targets": targets,
        },
    )
    if resp.status_code == 404:  # the other worker answered: resend inline (DESIGN "Scene cache")
        resp = requests.post(
            server_url + "/v1/cover",
            timeout=30,
            json={"ruleset": "dnd5e", "scene": scene, "attacker": attacker, "targets": targets},
        )
    assert resp.status_code == 200, resp.text[:500]
    results = resp.json()["results"]
    assert [r["target"] for r in results] == targets
    degrees = {r["cover"] for r in results}
    assert degrees <= {"none", "half", "three-quarters", "total"}
    for r in results:
        assert len(r["lines"]) == 4
        assert r["can_target"] is (r["cover"] != "total")
        blocked = sum(line["blocked"] for line in r["lines"])
        if r["cover"] == "total":
            assert blocked == 4
        for line in r["lines"]:
            assert line["blocked"] is bool(line["blockers"])
    # Walls and tokens of a real dungeon: the answers are not all the same.
    assert len(degrees) >= 2, degrees


def test_import_foundry_scene_in_one_request(server_url):
    export = load_real("foundry", "foundry-v13-fa-butcher-shop.json")
    up = requests.post(
        server_url + "/v1/scenes", json={"format": "foundry", "export": export}, timeout=30
    )
    assert up.status_code == 200, up.text[:500]
    assert up.json()["stats"]["walls"] == 81
    assert up.json()["stats"]["regions"] >= 1
    assert any("sounds" in w for w in up.json()["warnings"])


@pytest.mark.parametrize(
    ("headers", "data", "code"),
    [
        pytest.param({"Content-Type": "application/json"}, b"{oops", 400, id="malformed"),
        pytest.param(
            {"Content-Type": "application/json"}, b"x" * (11 * 1024 * 1024), 413, id="11 MiB body"
        ),
        pytest.param({"Content-Type": "text/plain"}, b"hi", 415, id="text body"),
    ],
)
def test_bad_bodies_get_json_errors(server_url, headers, data, code):
    resp = requests.post(server_url + "/v1/cover", data=data, headers=headers, timeout=30)
    assert resp.status_code == code
    assert resp.json()["code"] == code


#: Endpoints this build answers; handed cases for others (vision, gravity, underwater,
#: range) belong to later issues and are listed by the test below as not yet run.
IMPLEMENTED = {
    "/v1/cover",
    "/v1/line-of-effect",
    "/v1/line-of-sight",
    "/v1/modifiers/flanking",
    "/v1/vision",
    "/v1/lighting",
    "/v1/modifiers/gravity",
    "/v1/modifiers/underwater",
    "/v1/modifiers/range",
}


def test_handed_cases_pass(server_url, tmp_path):
    """shared/tools/run-cases.py passes every handed case of the implemented endpoints."""
    tool = SHARED / "tools" / "run-cases.py"
    cases_file = SHARED / "cases" / "handed.json"
    if not tool.exists() or not cases_file.exists():
        pytest.skip("../shared/tools/run-cases.py or cases/handed.json is absent")
    cases = json.loads(cases_file.read_text(encoding="utf-8"))
    mine = [c for c in cases if c["endpoint"] in IMPLEMENTED]
    assert {c["id"][:3] for c in mine} >= {
        "5e-",
        "sf-",
        "pv-",
        "loe",
        "bre",
        "bad",
        "gra",
        "uw-",
        "ran",
    }
    assert len(mine) == len(cases)  # every handed case is answered
    subset = tmp_path / "implemented.json"
    subset.write_text(json.dumps(mine), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(tool), "--url", server_url, str(subset)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip().splitlines()[-1] == f"{len(mine)} passed, 0 failed"


def test_delian_tomb_lighting_and_vision_matrix(server_url):
    """Issue 4: lighting at every token and the vision matrix of the real Delian Tomb."""
    export = load_real("foundry", "foundry-v10-delian-tomb.json")
    scene = requests.post(server_url + "/v1/import/foundry", json=export, timeout=30).json()[
        "scene"
    ]
    ids = [t["id"] for t in scene["tokens"]]
    lit = requests.post(
        server_url + "/v1/lighting", json={"scene": scene, "tokens": ids}, timeout=60
    )
    assert lit.status_code == 200, lit.text[:300]
    levels = [r["level"] for r in lit.json()["results"]]
    assert len(levels) == len(ids)
    assert set(levels) <= {"bright", "dim", "dark"}
    # No global illumination (Foundry): unlit places are dark; the two torches light some.
    assert scene["environment"]["light"] == "dark"
    assert "dark" in levels and {"bright", "dim"} & set(levels)
    seen = 0
    for observer in ids:
        targets = [t for t in ids if t != observer]
        resp = requests.post(
            server_url + "/v1/vision",
            timeout=60,
            json={"ruleset": "dnd5e", "scene": scene, "observer": observer, "targets": targets},
        )
        assert resp.status_code == 200, resp.text[:300]
        results = resp.json()["results"]
        assert [r["target"] for r in results] == targets
        for r in results:
            assert r["sense"] in {
                "sight",
                "darkvision",
                "devils_sight",
                "truesight",
                "blindsight",
                "tremorsense",
                "xray",
                "hearing",
                None,
            }
            assert r["can_see"] is (r["sense"] not in ("hearing", None))
            seen += r["can_see"]
    pairs = len(ids) * (len(ids) - 1)
    assert 0 < seen < pairs  # a dungeon: some pairs see each other, walls hide others
