"""End to end: the cut-down exports of ``shared/cases/imports-2`` give what its README says.

Each file is imported through a real gunicorn (``POST /v1/import/<format>``) and the imported
scene is then asked the README's question (``/v1/lighting``, ``/v1/vision``, ``/v1/cover``).
Rules: GEO-9 (region light), 5E-VIS-1/3 (light levels), 5E-COV-5 (cover); formats:
``shared/FORMATS.md`` (Foundry A.5–A.7 lights, scene darkness, regions; Roll20 graphics;
NeDB append-only files).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from tests.conftest import SHARED

pytestmark = pytest.mark.e2e

FOLDER = SHARED / "cases" / "imports-2"


def _file(name: str) -> Path:
    path = FOLDER / name
    if not path.exists():
        pytest.skip(f"../shared/cases/imports-2/{name} is absent")
    return path


def _import(server_url: str, fmt: str, name: str, **params: str) -> dict:
    resp = requests.post(
        f"{server_url}/v1/import/{fmt}",
        data=_file(name).read_bytes(),
        headers={"Content-Type": "application/json"},
        params=params,
        timeout=30,
    )
    assert resp.status_code == 200, resp.text[:500]
    return resp.json()


def _token_id(scene: dict, name: str) -> str:
    return next(t["id"] for t in scene["tokens"] if t.get("name") == name)


def _levels(server_url: str, scene: dict, points: list[list[float]]) -> list[str]:
    resp = requests.post(
        server_url + "/v1/lighting", json={"scene": scene, "points": points}, timeout=30
    )
    assert resp.status_code == 200, resp.text[:500]
    return [r["level"] for r in resp.json()["results"]]


def _vision(server_url: str, scene: dict, observer: str, target: str) -> dict:
    resp = requests.post(
        server_url + "/v1/vision",
        json={
            "ruleset": "dnd5e",
            "scene": scene,
            "observer": _token_id(scene, observer),
            "targets": [_token_id(scene, target)],
        },
        timeout=30,
    )
    assert resp.status_code == 200, resp.text[:500]
    return resp.json()["results"][0]


def test_v13_darken_region_keeps_global_light_out(server_url):
    """GEO-9: the "Cave" region darkens past the global light's threshold: dark inside."""
    scene = _import(server_url, "foundry", "foundry-v13-region-darken.json")["scene"]
    assert _levels(server_url, scene, [[250, 500], [750, 500], [520, 500]]) == [
        "dim",
        "dark",
        "dark",
    ]


def test_v12_override_region_is_dark_inside_and_bright_outside(server_url):
    """GEO-9, 5E-VIS-1: T stands in a region overridden to darkness 1.0: A cannot see it."""
    scene = _import(server_url, "foundry", "foundry-v12-region-override-darkness.json")["scene"]
    result = _vision(server_url, scene, "A", "T")
    assert (result["can_see"], result["light"]) == (False, "dark")
    a = next(t for t in scene["tokens"] if t["name"] == "A")
    assert _levels(server_url, scene, [[a["x"] + 1, a["y"] + 1]]) == ["bright"]


def test_v10_hidden_light_is_off(server_url):
    """A Foundry light with ``hidden: true`` is switched off: it lights nothing, and says so."""
    body = _import(server_url, "foundry", "foundry-v10-hidden-light.json")
    assert _levels(server_url, body["scene"], [[500, 500], [550, 500]]) == ["dark", "dark"]
    assert any(" off" in w for w in body["warnings"]), body["warnings"]


def test_roll20_private_token_light_lights_nothing_for_others(server_url):
    """A Roll20 token light other players do not see lights nothing for the Fighter."""
    scene = _import(server_url, "roll20", "roll20-private-token-light.json")["scene"]
    assert _vision(server_url, scene, "Fighter", "Goblin")["can_see"] is False
    public = [light for light in scene["lights"] if light.get("seen_by", "everyone") == "everyone"]
    public += [
        t["light"]
        for t in scene["tokens"]
        if t.get("light", {}).get("seen_by", "everyone") == "everyone"
        and (t.get("light", {}).get("bright", 0) or t.get("light", {}).get("dim", 0))
    ]
    assert public == []


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
def test_roll20_gm_layer_marker_is_not_a_creature(server_url, ruleset):
    """An unnamed GM-layer graphic with no character is skipped (and said): no cover."""
    body = _import(server_url, "roll20", "roll20-gm-layer-marker.json")
    scene = body["scene"]
    assert sorted(t["name"] for t in scene["tokens"]) == ["Archer", "Orc"]
    assert any("room-marker-7" in w for w in body["warnings"]), body["warnings"]
    resp = requests.post(
        server_url + "/v1/cover",
        json={
            "ruleset": ruleset,
            "scene": scene,
            "attacker": _token_id(scene, "Archer"),
            "targets": [_token_id(scene, "Orc")],
        },
        timeout=30,
    )
    assert resp.status_code == 200, resp.text[:500]
    assert resp.json()["results"][0]["cover"] == "none"


def test_nedb_file_picks_a_scene_by_name(server_url):
    """NeDB (FORMATS.md pitfall 10): the last line per ``_id`` wins; no ``scene`` lists both.

    The folder's README says Room A has one wall; its last revision (the file's third line)
    has two, and FORMATS.md says the last line per ``_id`` is the document.
    """
    room_a = _import(server_url, "auto", "nedb-two-scenes.db", scene="Room A")
    assert [w["id"] for w in room_a["scene"]["walls"]] == ["w1", "w2"]
    room_b = _import(server_url, "auto", "nedb-two-scenes.db", scene="Room B")
    assert room_b["scene"]["walls"] == []
    resp = requests.post(
        server_url + "/v1/import/auto",
        data=_file("nedb-two-scenes.db").read_bytes(),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert resp.status_code == 422
    assert "Room A" in resp.text and "Room B" in resp.text
