"""A player's picture (``POST /v1/render`` ``viewer``, ``crop``): nothing the GM hides.

shared/API.md "Batch and pictures": for a token viewer, only what it may know is drawn — no
hidden creature (name, shape, or id among a line's blockers), secret doors as plain walls,
one-way walls from its side (GEO-3), no switched-off or private light, nothing outside the
frame around the asked tokens; ``crop`` frames them at a chat card's size. Each kind of
secret is checked in the GM's picture too, so that a test that passes by drawing nothing
cannot pass.
"""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET

import pytest

from adapters import foundry
from schemas.scene import SceneSchema
from service.app import create_app
from service.engine.scene import build_scene
from service.operations import OPERATIONS
from service.render import BLOCKED_COLOUR, CAPTIONS
from service.render.frame import CHAT_PX
from service.render.viewpoint import (
    FRAME_MARGIN_SQUARES,
    frame,
    plain_id,
    redact_answer,
    redact_lines,
    seen_by,
)
from tests.conftest import real_file

NS = {"svg": "http://www.w3.org/2000/svg"}

#: Delian Tomb tokens (shared/scenes/real/foundry/foundry-v10-delian-tomb.json).
ARCHER, TARGET, COMMONER = "vTb2FbAEQ4QQcZAA", "bNmhsTCeyRtXVwRs", "ELt6Aqh9kaJg7pao"
SECRET_DOOR = "uVf480tXSVggzMR1"

#: Words that tell a player of something the GM hides, in any text of the picture.
SECRET_WORDS = ("secret", "hidden", "one-way", "private", "switched off")


@pytest.fixture(scope="module")
def tomb_export() -> dict:
    path = real_file("foundry", "foundry-v10-delian-tomb.json")
    return json.loads(path.read_text("utf-8"))


@pytest.fixture(scope="module")
def tomb(tomb_export) -> dict:
    """The Delian Tomb, imported through the Foundry adapter."""
    return foundry.to_scene(tomb_export)["scene"]


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": False}).test_client()


def post(client, scene: dict, query: dict | None, **args) -> str:
    resp = client.post("/v1/render", json={"scene": scene, "query": query, **args})
    assert resp.status_code == 200, resp.get_json()
    assert resp.mimetype == "image/svg+xml"
    return resp.get_data(as_text=True)


def texts(svg: str) -> str:
    """Every text and attribute value of the picture, lower-cased."""
    root = ET.fromstring(svg)
    parts = []
    for el in root.iter():
        parts += [el.text or "", el.tail or "", *el.attrib.values()]
    return " ".join(parts).lower()


def view_box(svg: str) -> tuple[float, float, float, float]:
    x, y, w, h = (float(v) for v in ET.fromstring(svg).get("viewBox", "").split())
    return x, y, x + w, y + h


def token_ids(svg: str) -> set[str]:
    root = ET.fromstring(svg)
    return {g.get("data-id") for g in root.findall("./svg:g[@id='tokens']/svg:g", NS)}


def wall_classes(svg: str) -> dict[str, str]:
    root = ET.fromstring(svg)
    return {
        p.get("data-id"): p.get("class") for p in root.findall("./svg:g[@id='walls']/svg:path", NS)
    }


def _hidden(scene: dict) -> list[dict]:
    return [t for t in scene["tokens"] if t.get("hidden")]


# --------------------------------------------------------------------------- the Delian Tomb

#: A burst above the commoner: its frame holds the seven hidden skeletons and the secret door.
AREA_NEAR_THE_SKELETONS = {
    "type": "cover",
    "ruleset": "dnd5e",
    "target": COMMONER,
    "attack": {"kind": "area", "origin": [3400, 1400]},
}


def test_tomb_gm_picture_holds_the_secrets(client, tomb):
    """The GM's picture of the same frame: the test below could fail."""
    svg = post(client, tomb, AREA_NEAR_THE_SKELETONS, crop=True)
    assert "Skeleton" in svg
    assert {t["id"] for t in _hidden(tomb)} <= token_ids(svg)
    assert "wall-secret" in wall_classes(svg)[SECRET_DOOR]
    assert "secret door" in texts(svg)


def test_tomb_player_picture_has_no_hidden_token_and_no_secret_door(client, tomb):
    svg = post(client, tomb, AREA_NEAR_THE_SKELETONS, viewer=COMMONER)
    assert len(_hidden(tomb)) == 7
    for tok in _hidden(tomb):
        assert tok["id"] not in svg
    assert "Skeleton" not in svg
    # the secret door (closed) is a plain wall, under an id that does not name it
    assert SECRET_DOOR not in svg
    assert wall_classes(svg)[plain_id(SECRET_DOOR)].split()[1] == "wall-normal"
    assert not any(word in texts(svg) for word in SECRET_WORDS)


def test_tomb_cropped_card_picture_is_small_and_frames_both_tokens(client, tomb):
    query = {"type": "cover", "ruleset": "dnd5e", "attacker": ARCHER, "target": TARGET}
    whole = post(client, tomb, query, viewer=ARCHER)
    svg = post(client, tomb, query, viewer=ARCHER, crop=True)
    assert len(svg.encode("utf-8")) < 100_000
    x0, y0, x1, y1 = view_box(svg)
    size = tomb["grid"]["size"]
    margin = FRAME_MARGIN_SQUARES * size
    for tok in (t for t in tomb["tokens"] if t["id"] in (ARCHER, TARGET)):
        assert x0 <= tok["x"] - margin and tok["x"] + size + margin <= x1
        assert y0 <= tok["y"] - margin and tok["y"] + size + margin <= y1
    assert (x1 - x0) < tomb["width"] / 4  # a frame, not the map
    assert float(ET.fromstring(svg).get("width")) <= CHAT_PX
    assert float(ET.fromstring(svg).get("height")) <= 2 * CHAT_PX
    # the uncropped player picture keeps the map's frame, and draws nothing outside the crop
    assert view_box(whole)[2] == tomb["width"]
    assert token_ids(whole) == token_ids(svg)


def test_tomb_map_notes_reach_no_picture(client, tomb_export):
    """GM notes (Foundry map notes) are not mapped (the adapter warns), so no picture has them."""
    export = copy.deepcopy(tomb_export)
    export["notes"][0]["text"] = "GM: the lich waits behind the altar"
    imported = foundry.to_scene(export)
    assert any("map notes" in w for w in imported["warnings"])
    for viewer in ("gm", ARCHER):
        svg = post(client, imported["scene"], None, viewer=viewer)
        assert "lich" not in texts(svg)


# --------------------------------------------------------------------------- each kind of secret


def small(**extra) -> dict:
    """An archer and a goblin four squares apart on a 100 px grid."""
    scene = {
        "grid": {"size": 100, "distance": 5},
        "width": 3000,
        "height": 3000,
        "tokens": [
            {"id": "archer", "name": "Archer", "x": 1000, "y": 1000},
            {"id": "goblin", "name": "Goblin", "x": 1500, "y": 1000},
        ],
    }
    for key, items in extra.items():
        scene[key] = scene.get(key, []) + items
    return scene


COVER = {"type": "cover", "ruleset": "dnd5e", "attacker": "archer", "target": "goblin"}


def both(client, scene: dict, query: dict | None = COVER, **args) -> tuple[str, str]:
    """The GM's and the archer's picture of ``query``."""
    return post(client, scene, query, **args), post(client, scene, query, viewer="archer", **args)


def test_hidden_blocker_leaves_no_name_shape_or_id(client):
    """A hidden creature between them still gives cover (the answer applies to the roll)."""
    lurker = {"id": "lurk-1", "name": "Invisible Stalker", "x": 1250, "y": 1000, "hidden": True}
    gm, player = both(client, small(tokens=[lurker]))
    assert "Invisible Stalker" in gm and 'data-blockers="lurk-1"' in gm
    assert "lurk-1" not in player and "stalker" not in texts(player)
    root = ET.fromstring(player)
    lines = root.findall("./svg:g[@id='traced']/svg:line", NS)
    assert any(line.get("stroke") == BLOCKED_COLOUR for line in lines)


def test_hidden_token_asked_about_is_drawn(client):
    """The query names it: the viewer's own hidden token, or a target it was told of."""
    scene = small()
    scene["tokens"][0]["hidden"] = True
    _, player = both(client, scene)
    assert {"archer", "goblin"} <= token_ids(player)


@pytest.mark.parametrize(
    ("state", "drawn"), [("closed", "wall-normal"), ("locked", "wall-normal"), ("open", None)]
)
def test_secret_door_is_a_plain_wall_or_the_gap_it_leaves(client, state, drawn):
    door = {"id": "sd", "c": [1300, 700, 1300, 1400], "door": "secret", "door_state": state}
    gm, player = both(client, small(walls=[door]))
    assert "wall-secret" in wall_classes(gm)["sd"]
    classes = wall_classes(player)
    assert "sd" not in classes
    assert (classes[plain_id("sd")].split()[1] if plain_id("sd") in classes else None) == drawn
    assert "secret" not in texts(player)


def test_a_line_blocked_by_a_secret_door_names_it_as_the_wall_drawn():
    door = {"id": "sd", "c": [1300, 700, 1300, 1400], "door": "secret"}
    scene = SceneSchema().load(small(walls=[door]))
    seen = seen_by(scene, "archer", ["archer", "goblin"], frame(scene, ["archer", "goblin"]))
    line = {"from": [1050, 1050], "to": [1550, 1050], "blocked": True}
    (redacted,) = redact_lines([{**line, "blockers": [{"kind": "wall", "id": "sd"}]}], seen)
    assert redacted["blockers"] == [{"kind": "wall", "id": plain_id("sd")}]


@pytest.mark.parametrize(
    ("direction", "drawn"),
    # A = (1300, 1400), B = (1300, 700): the archer's centre (1050, 1050) is on the side
    # LEFT blocks from, (A.y−P.y)(B.x−P.x) − (A.x−P.x)(B.y−P.y) = 175000 > 0
    [("left", True), ("right", False)],
    ids=["GEO-3 blocks the viewer's side", "GEO-3 the viewer sees through"],
)
def test_one_way_wall_as_seen_from_the_viewer_side(client, direction, drawn):
    wall = {"id": "ow", "c": [1300, 1400, 1300, 700], "direction": direction}
    gm, player = both(client, small(walls=[wall]))
    assert 'data-direction="' in gm and "one-way" in texts(gm)
    assert ("ow" in wall_classes(player)) is drawn
    assert "data-direction" not in player and "one-way" not in texts(player)


def test_switched_off_and_private_lights_are_left_out(client):
    lights = [
        {"id": "off-1", "x": 1200, "y": 1200, "dim": 10, "on": False},
        {"id": "priv-1", "x": 1300, "y": 1200, "dim": 10, "seen_by": "controllers"},
        {"id": "lamp-1", "x": 1400, "y": 1200, "dim": 10},
    ]
    scene = small(lights=lights)
    scene["tokens"][1]["light"] = {"dim": 6, "seen_by": "controllers"}
    gm, player = both(client, scene)
    assert {"off-1", "priv-1", "lamp-1"} <= set(texts(gm).split())
    assert "off-1" not in player and "priv-1" not in player and "lamp-1" in player
    assert "token-light" in gm and "token-light" not in player
    assert not any(word in texts(player) for word in SECRET_WORDS)


def test_nothing_outside_the_frame(client):
    far = [
        {"id": "far-wall", "c": [2500, 2500, 2900, 2500]},
        {"id": "long-wall", "c": [0, 1250, 3000, 1250]},
    ]
    other = {"id": "bystander", "name": "Bystander", "x": 2600, "y": 2600}
    gm, player = both(client, small(walls=far, tokens=[other]))
    assert "far-wall" in gm and "Bystander" in gm
    assert "far-wall" not in player and "Bystander" not in player
    # the long wall is cut at the frame: two squares beyond the tokens
    root = ET.fromstring(player)
    (path,) = root.findall("./svg:g[@id='walls']/svg:path[@data-id='long-wall']", NS)
    assert path.get("d").startswith("M800 1250") and "1800 1250" in path.get("d")


def test_line_caption_names_no_hidden_blocker():
    """A line answer's blockers, which its caption names (``render.answers``), redacted too."""
    lurker = {"id": "lurk-1", "name": "Invisible Stalker", "x": 1250, "y": 1000, "hidden": True}
    scene = SceneSchema().load(small(tokens=[lurker]))
    seen = seen_by(scene, "archer", ["archer", "goblin"], frame(scene, ["archer", "goblin"]))
    blockers = [{"kind": "token", "id": "lurk-1"}, {"kind": "wall", "id": "w1"}]
    answer = {"clear": False, "blockers": blockers, "rules": []}
    query = {"type": "line-of-effect", "from": {"token": "archer"}, "to": {"token": "goblin"}}
    gm_caption = CAPTIONS["line-of-effect"](scene, query, answer)[0]
    caption = CAPTIONS["line-of-effect"](seen, query, redact_answer(answer, seen))[0]
    assert "Invisible Stalker" in gm_caption
    assert caption == "line of effect from Archer to Goblin: blocked by wall w1"


def test_bare_scene_for_a_viewer_is_framed_around_it(client):
    lurker = {"id": "lurk-1", "name": "Invisible Stalker", "x": 1100, "y": 1100, "hidden": True}
    gm, player = both(client, small(tokens=[lurker]), None)
    assert "Invisible Stalker" in gm and "lurk-1" not in player
    assert token_ids(player) == {"archer"}  # the goblin is five squares away


def test_gm_crop_keeps_the_secrets_inside_the_frame(client):
    lurker = {"id": "lurk-1", "name": "Invisible Stalker", "x": 1250, "y": 1000, "hidden": True}
    svg = post(client, small(tokens=[lurker]), COVER, crop=True)
    assert "Invisible Stalker" in svg
    assert float(ET.fromstring(svg).get("width")) == CHAT_PX


# --------------------------------------------------------------------------- errors


def test_unknown_viewer_is_404_at_viewer(client):
    resp = client.post("/v1/render", json={"scene": small(), "query": COVER, "viewer": "nobody"})
    assert resp.status_code == 404
    assert "nobody" in resp.get_json()["message"]


@pytest.mark.parametrize("body", [{"crop": "yes"}, {"viewer": ""}, {"viewer": 3}])
def test_bad_viewer_or_crop_is_422(client, body):
    resp = client.post("/v1/render", json={"scene": small(), "query": COVER, **body})
    assert resp.status_code == 422
    assert set(resp.get_json()["errors"]["json"]) == set(body)


def test_operation_table_takes_the_viewer():
    """``sightline render`` and the batch go through the same table as the HTTP API."""
    geo = build_scene(SceneSchema().load(small()))
    svg = OPERATIONS["render"].run(geo, {"query": COVER, "viewer": "archer", "crop": True})
    assert float(ET.fromstring(svg).get("width")) == CHAT_PX
