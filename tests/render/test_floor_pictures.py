"""Pictures of one floor of a building (``POST /v1/render`` ``level``; RULES GEO-10, GEO-5).

On the real v14 Eastgate outpost (``../shared/scenes/real/foundry/``, FORMATS pitfall 15):
the picture of a level draws as usual only the walls, lights and creatures of that level
(counted here from the raw export's ``levels: [id]``), the other floors' walls faded in
``<g id="other-levels">``, the level's surfaces filled and labelled, its stairs labelled,
and the caption names the level. Without ``level`` the picture is the viewer's floor, else
the asking token's.
"""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET

import pytest

from adapters.foundry import to_scene
from service.app import create_app
from tests.conftest import load_real

NS = {"svg": "http://www.w3.org/2000/svg"}
EASTGATE = "foundry-v14-fa-eastgate-guard-outpost-levels.json"
GROUND, FIRST = "defaultLevel0000", "hjgQ4DFtFHjVqvoC"


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


@pytest.fixture(scope="module")
def raw():
    return load_real("foundry", EASTGATE)


@pytest.fixture(scope="module")
def scene(raw):
    out = copy.deepcopy(to_scene(raw)["scene"])
    out["tokens"] = [
        {"id": "down", "x": 1300, "y": 2300, "elevation": 0},
        {"id": "up", "x": 1500, "y": 2300, "elevation": 20},
    ]
    return out


def _svg(client, body: dict) -> ET.Element:
    resp = client.post("/v1/render", json=body)
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    return ET.fromstring(resp.get_data(as_text=True))


def _ids(root: ET.Element, group: str) -> set[str]:
    g = root.find(f".//svg:g[@id='{group}']", NS)
    assert g is not None, group
    return {e.get("data-id") for e in g if e.get("data-id") is not None}


def _on(raw: dict, kind: str, level: str) -> set[str]:
    """Ids of the export's ``kind`` on ``level`` (or on every level: ``levels []``)."""
    return {x["_id"] for x in raw[kind] if x["levels"] in ([level], [])}


@pytest.mark.parametrize(("level", "name"), [(GROUND, "1 lvl"), (FIRST, "2 lvl")])
def test_a_level_picture_draws_that_floor_and_fades_the_others(client, raw, scene, level, name):
    root = _svg(client, {"scene": scene, "level": level})
    assert root.get("data-level") == level
    walls = _ids(root, "walls")
    assert walls == _on(raw, "walls", level)  # 152 + 6 on the ground, 48 + 6 above
    faded = _ids(root, "walls-other-levels")
    assert faded == {w["_id"] for w in raw["walls"]} - walls
    assert root.find(".//svg:g[@id='other-levels']", NS).get("opacity") == "0.22"
    assert _ids(root, "lights") == _on(raw, "lights", level)
    own = "down" if level == GROUND else "up"
    assert _ids(root, "tokens") == {own}
    assert _ids(root, "tokens-other-levels") == {"down", "up"} - {own}
    bottom = {GROUND: 0, FIRST: 20}[level]
    assert f"level {name} ({bottom}–{bottom + 20} ft)" in root.find("svg:title", NS).text


def test_the_level_s_surfaces_and_stairs_are_labelled(client, scene):
    root = _svg(client, {"scene": scene, "level": FIRST})
    floors = _ids(root, "surfaces")
    # the 2nd floor's surface and the "Hole" surface sit at 20 ft; both stairs reach 20-40 ft
    assert floors == {
        "bOE4C7cAt5gIFlBi",
        "IjuasCX64q5aioMv",
        "PLrkucQFZLCogmSl",
        "PLrkucQFZLCogmSl-1",
        "iHgft5qkeY4IETPk",
    }
    texts = [t.text for t in root.find(".//svg:g[@id='surfaces']", NS).iter(f"{{{NS['svg']}}}text")]
    assert "bOE4C7cAt5gIFlBi · floor at 20 ft" in texts
    assert texts.count("stairs 0–40 ft") == 2 and texts.count("stairs 20–60 ft") == 1


def test_the_picture_is_of_the_viewer_s_floor_else_the_asker_s(client, scene):
    query = {"type": "cover", "ruleset": "dnd5e", "attacker": "up", "target": "down"}
    asked = _svg(client, {"scene": scene, "query": query})
    assert asked.get("data-level") == FIRST  # the attacker stands at 20 ft
    viewer = _svg(client, {"scene": scene, "viewer": "down"})
    assert viewer.get("data-level") == GROUND
    bare = _svg(client, {"scene": scene})  # the GM's whole building: every wall as before
    assert bare.get("data-level") is None and len(_ids(bare, "walls")) == 237


def test_an_unknown_level_is_a_422_naming_the_levels(client, scene):
    resp = client.post("/v1/render", json={"scene": scene, "level": "attic"})
    assert resp.status_code == 422
    body = resp.get_json()
    assert "Unknown level 'attic'" in str(body) and "'hjgQ4DFtFHjVqvoC'" in str(body)


def test_a_scene_without_levels_has_no_level_to_ask():
    """No levels: ``level`` is refused (422) and the picture is the whole scene as before."""
    client = create_app().test_client()
    flat = {"grid": {"size": 100}, "walls": [{"id": "w", "c": [0, 0, 100, 0]}]}
    assert client.post("/v1/render", json={"scene": flat, "level": "x"}).status_code == 422
    root = _svg(client, {"scene": flat})
    assert _ids(root, "walls") == {"w"}
