"""Blockers name their floor (RULES GEO-10; FORMATS pitfall 15; API.md blockers).

On the real v14 buildings and the Levels tower: every wall among an answer's blockers says
the level it belongs to, read here from the raw export (``walls[].levels``, or the Levels
module's Wall Height range, independently of the adapter); a line stopped by a floor names
that surface (``kind: "surface"``) and its level, in cover, vision and line-of-sight answers
alike; blockers of no level carry no ``level``.
"""

from __future__ import annotations

import itertools

import pytest
import shapely

from service.app import create_app
from tests.conftest import load_real
from tests.geometry.test_floors_real import (
    EASTGATE,
    SLUMS,
    TOWER,
    _stacked_pairs,
    floor_planes,
    floors_of,
    imported,
    probe,
    squares,
    with_tokens,
)


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


def raw_wall_levels(name: str) -> dict[str, str | None]:
    """Each wall's level in the raw export: v14 ``levels: [id]``; the tower's by its range."""
    doc = load_real("foundry", name)
    if "levels" in doc:
        return {w["_id"]: w["levels"][0] if len(w["levels"]) == 1 else None for w in doc["walls"]}
    by_bottom = {}
    for k, lv in enumerate(doc["flags"]["levels"]["sceneLevels"]):
        by_bottom[float(lv[0])] = f"sceneLevels-{k}"
    out = {}
    for w in doc["walls"]:
        height = (w.get("flags") or {}).get("wall-height") or {}
        bottom = height.get("bottom")
        out[w["_id"]] = None if bottom is None else by_bottom[float(bottom)]
    return out


def level_at(scene: dict, elevation: float) -> str:
    return next(lv["id"] for lv in scene["levels"] if lv["bottom"] <= elevation < lv["top"])


@pytest.mark.parametrize("name", [EASTGATE, SLUMS, TOWER])
def test_wall_blockers_of_one_floor_name_that_floor(client, name):
    """Pairs on one floor: each wall blocker is of that level (or of every level, no field)."""
    scene = imported(name)
    levels = raw_wall_levels(name)
    floors = floor_planes(scene)
    named = 0
    for bottom, _top in floors_of(scene):
        if bottom not in floors:
            continue
        here = level_at(scene, bottom)
        tokens = [
            probe(x, y, bottom, f"p{k}")
            for k, (x, y) in enumerate(squares(scene, floors[bottom], None, 6))
        ]
        for a, b in itertools.combinations(tokens, 2):
            body = {"ruleset": "dnd5e", "scene": with_tokens(scene, tokens)}
            answer = client.post(
                "/v1/cover", json={**body, "attacker": a["id"], "targets": [b["id"]]}
            )
            for line in answer.get_json()["results"][0]["lines"]:
                for blocker in line["blockers"]:
                    if blocker["kind"] != "wall":
                        continue
                    assert blocker.get("level") == levels[blocker["id"]], blocker
                    assert blocker.get("level") in (here, None), (blocker, here)
                    named += blocker.get("level") == here
    assert named >= 1  # some line meets a wall of its own floor, named so


@pytest.mark.parametrize("name", [EASTGATE, SLUMS, TOWER])
def test_a_floor_between_two_levels_is_named_with_its_level(client, name):
    """Stacked pairs: each blocked line names a surface at the upper floor's bottom, and the
    level it is the floor of; vision and line of sight name it as well."""
    scene = imported(name)
    surfaces = {s["id"]: s for s in scene["surfaces"]}
    checked = 0
    size = scene["grid"]["size"]
    for low, up, both in _stacked_pairs(scene, 4):
        if not both.contains(shapely.box(up["x"], up["y"], up["x"] + size, up["y"] + size)):
            continue  # both probes over the floor between them
        body = {"scene": with_tokens(scene, [low, up])}
        upper = level_at(scene, up["elevation"])
        cover = client.post(
            "/v1/cover",
            json={**body, "ruleset": "dnd5e", "attacker": up["id"], "targets": [low["id"]]},
        ).get_json()["results"][0]
        floors = [b for line in cover["lines"] for b in line["blockers"] if b["kind"] == "surface"]
        assert floors, cover["lines"][:2]
        for b in floors:
            assert surfaces[b["id"]]["elevation"] == up["elevation"]
            assert b["level"] == upper
        vision = client.post(
            "/v1/vision",
            json={**body, "ruleset": "dnd5e", "observer": low["id"], "targets": [up["id"]]},
        ).get_json()["results"][0]
        assert any(b["kind"] == "surface" and b["level"] == upper for b in vision["blockers"])
        sight = client.post(
            "/v1/line-of-sight",
            json={**body, "from": low["id"], "to": up["id"]},
        ).get_json()
        assert sight["clear"] is False
        assert any(b["kind"] == "surface" and b["level"] == upper for b in sight["blockers"])
        # the answers cite the rule of floors, which docs/rules.md explains (GEO-10)
        assert all("GEO-10" in a["rules"] for a in (cover, vision, sight))
        checked += 1
    assert checked >= 2


def test_blockers_of_a_scene_without_levels_have_no_level(client):
    scene = {
        "grid": {"size": 100},
        "walls": [{"id": "w", "c": [150, -100, 150, 300]}],
        "tokens": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 200, "y": 0}],
    }
    answer = client.post(
        "/v1/cover", json={"ruleset": "dnd5e", "scene": scene, "attacker": "a", "targets": ["b"]}
    ).get_json()["results"][0]
    blockers = [b for line in answer["lines"] for b in line["blockers"]]
    assert blockers and all(b == {"kind": "wall", "id": "w"} for b in blockers)


def test_an_implied_floor_is_named_by_its_level(client):
    """GEO-10: two levels and no surface between them: a floor over the scene at 10."""
    scene = {
        "grid": {"size": 100},
        "levels": [{"id": "g", "bottom": 0, "top": 10}, {"id": "u", "bottom": 10, "top": 20}],
        "tokens": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 300, "y": 0, "elevation": 10}],
    }
    answer = client.post(
        "/v1/cover", json={"ruleset": "dnd5e", "scene": scene, "attacker": "a", "targets": ["b"]}
    ).get_json()["results"][0]
    assert answer["cover"] == "total"
    blockers = {
        (b["kind"], b["id"], b.get("level")) for ln in answer["lines"] for b in ln["blockers"]
    }
    assert blockers == {("surface", "floor:u", "u")}
