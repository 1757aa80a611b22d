"""``PATCH /v1/scenes/{scene_id}`` through the Flask app: answers, bad input (each a clear 4xx,
nothing lost: the parent keeps answering as it did), limits and the OpenAPI example.
"""

from __future__ import annotations

import copy

import pytest

from service.app import create_app, sample_scene

EXAMPLE = {
    "tokens": {"goblin": {"x": 700, "y": 300}, "bat": None},
    "walls": {"inner-door": {"door_state": "open"}},
    "lights": {"torch": {"on": False}},
}


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


@pytest.fixture(scope="module")
def base(client) -> str:
    return client.post("/v1/scenes", json={"scene": sample_scene()}).get_json()["scene_id"]


def cover(client, sid: str) -> dict:
    body = {
        "ruleset": "dnd5e",
        "scene_id": sid,
        "attacker": "archer",
        "targets": ["goblin", "ogre"],
    }
    resp = client.post("/v1/cover", json=body)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def whole(scene: dict, change: dict) -> dict:
    """``scene`` with a merge patch applied as a client would (new items appended)."""
    out = copy.deepcopy(scene)
    for kind, edits in change.items():
        items = out.setdefault(kind, [])
        for item_id, fields in edits.items():
            found = next((x for x in items if x["id"] == item_id), None)
            if fields is None:
                items.remove(found)
            elif found is None:
                items.append({"id": item_id, **fields})
            else:  # merge patch: a null field restores its default (the key goes)
                found.update({k: v for k, v in fields.items() if v is not None})
                for key in [k for k, v in fields.items() if v is None]:
                    found.pop(key, None)
    return out


def test_the_example_answers_the_id_of_a_whole_upload(client, base):
    resp = client.patch(f"/v1/scenes/{base}", json=EXAMPLE)
    assert resp.status_code == 200, resp.get_json()
    got = resp.get_json()
    assert got["parent"] == base and got["warnings"] == []
    assert (
        got["stats"]["tokens"] == len(sample_scene()["tokens"]) - 1 and got["stats"]["changed"] == 4
    )
    upload = client.post("/v1/scenes", json={"scene": whole(sample_scene(), EXAMPLE)}).get_json()
    assert upload["scene_id"] == got["scene_id"]
    assert cover(client, got["scene_id"]) == cover(client, upload["scene_id"])


def test_the_openapi_document_has_the_endpoint_and_its_example(client):
    spec = client.get("/openapi.json").get_json()
    op = spec["paths"]["/v1/scenes/{scene_id}"]["patch"]
    example = op["requestBody"]["content"]["application/json"]["example"]
    assert example == EXAMPLE
    assert {"200", "404", "422"} <= set(op["responses"])
    assert client.patch("/v1/scenes/sample", json=example).status_code == 200


def test_a_new_item_and_a_merge_of_nested_fields(client, base):
    change = {
        "tokens": {"orc": {"x": 100, "y": 100, "senses": {"darkvision": 60}}},
        "environment": {"light": "dim"},
    }
    got = client.patch(f"/v1/scenes/{base}", json=change).get_json()
    assert got["stats"]["tokens"] == len(sample_scene()["tokens"]) + 1
    again = client.patch(
        f"/v1/scenes/{got['scene_id']}", json={"tokens": {"orc": {"senses": {"blindsight": 10}}}}
    )
    scene = whole(
        sample_scene(),
        {"tokens": {"orc": {"x": 100, "y": 100, "senses": {"darkvision": 60, "blindsight": 10}}}},
    )
    scene["environment"] = {"light": "dim"}
    upload = client.post("/v1/scenes", json={"scene": scene}).get_json()
    assert again.get_json()["scene_id"] == upload["scene_id"]


@pytest.mark.parametrize(
    ("change", "status", "path"),
    [
        # a door state on a wall that is no door (FORMATS: doors are walls with door != none)
        ({"walls": {"north": {"door_state": "open"}}}, 422, ["walls", "north", "door_state"]),
        # a token moved outside the coordinate bounds (model.MAX_COORD_PX)
        ({"tokens": {"goblin": {"x": 2e7}}}, 422, ["tokens", "goblin", "x"]),
        ({"tokens": {"goblin": {"x": "far"}}}, 422, ["tokens", "goblin", "x"]),
        ({"tokens": {"nobody": None}}, 404, ["tokens", "nobody"]),
        ({"lights": {"torch": {"id": "lamp"}}}, 422, ["lights", "torch", "id"]),
        ({"tokens": {"orc": {"y": 3}}}, 422, ["tokens", "orc", "x"]),  # a new item is whole
        ({"walls": {"north": {"c": [0, 0, 1]}}}, 422, ["walls", "north", "c"]),
        ({"doors": {}}, 422, ["doors"]),
        ({"tokens": {"goblin": 3}}, 422, ["tokens", "goblin"]),
    ],
)
def test_bad_changes_are_clear_4xx_and_lose_nothing(client, base, change, status, path):
    before = cover(client, base)
    resp = client.patch(f"/v1/scenes/{base}", json=change)
    assert resp.status_code == status, resp.get_json()
    node = resp.get_json()["errors"]["json"]
    for key in path:
        node = node[key]
    assert node
    assert cover(client, base) == before  # the parent answers as it did


def test_an_unknown_or_expired_parent_is_a_404_saying_to_send_the_scene(client):
    resp = client.patch("/v1/scenes/sha256:" + "0" * 64, json={"tokens": {"goblin": {"x": 1}}})
    assert resp.status_code == 404
    assert "Send the scene itself" in resp.get_json()["message"]


def test_limits_are_counted_before_the_change(base):
    app = create_app({"MAX_TOKENS": len(sample_scene()["tokens"])})
    client = app.test_client()
    sid = client.post("/v1/scenes", json={"scene": sample_scene()}).get_json()["scene_id"]
    resp = client.patch(f"/v1/scenes/{sid}", json={"tokens": {"orc": {"x": 1, "y": 1}}})
    assert resp.status_code == 422 and "SIGHTLINE_MAX_TOKENS" in resp.get_json()["message"]
    swap = {"tokens": {"orc": {"x": 1, "y": 1}, "bat": None}}  # one out, one in: fits
    assert client.patch(f"/v1/scenes/{sid}", json=swap).status_code == 200


def test_too_many_items_in_one_change(client, base):
    from schemas.patch import MAX_CHANGE_ITEMS

    change = {"tokens": {f"t{i}": {"x": 1, "y": 1} for i in range(MAX_CHANGE_ITEMS + 1)}}
    resp = client.patch(f"/v1/scenes/{base}", json=change)
    assert resp.status_code == 422 and "at most" in resp.get_data(as_text=True)


def test_a_change_over_the_work_budget(base):
    client = create_app({"WORK_BUDGET": 150}).test_client()
    sid = client.post("/v1/scenes", json={"scene": sample_scene()}).get_json()["scene_id"]
    resp = client.patch(f"/v1/scenes/{sid}", json={"walls": {"north": None}})
    assert resp.status_code == 422 and "SIGHTLINE_WORK_BUDGET" in resp.get_json()["message"]


def test_a_wall_of_a_level_is_patched_as_stored_not_as_its_level_resolves(client):
    """A level's wall takes the level's range when built (GEO-10), not in the stored scene:
    the patched id is a whole upload's, and the wall keeps following its level."""
    scene = sample_scene()
    scene["levels"] = [{"id": "ground", "bottom": 0, "top": 10}, {"id": "upper", "bottom": 10}]
    door = next(w for w in scene["walls"] if w["id"] == "inner-door")
    door["level"] = "ground"
    sid = client.post("/v1/scenes", json={"scene": scene}).get_json()["scene_id"]
    change = {"walls": {"inner-door": {"door_state": "open"}}}
    resp = client.patch(f"/v1/scenes/{sid}", json=change)
    assert resp.status_code == 200, resp.get_json()
    upload = client.post("/v1/scenes", json={"scene": whole(scene, change)}).get_json()
    assert resp.get_json()["scene_id"] == upload["scene_id"]
    again = client.patch(f"/v1/scenes/{sid}", json={"walls": {"inner-door": {"level": "upper"}}})
    moved = whole(scene, {"walls": {"inner-door": {"level": "upper"}}})
    expected = client.post("/v1/scenes", json={"scene": moved}).get_json()["scene_id"]
    assert again.get_json()["scene_id"] == expected


def test_patch_stats_count_the_doors_after_the_change(client, base):
    """``stats.doors`` follows doors added and removed (carried by the cache, not recounted)."""
    scene = sample_scene()
    doors = sum(1 for w in scene["walls"] if w.get("door", "none") != "none")
    first = client.patch(
        f"/v1/scenes/{base}", json={"walls": {"new-door": {"c": [0, 0, 50, 0], "door": "door"}}}
    ).get_json()
    assert first["stats"]["doors"] == doors + 1
    second = client.patch(
        f"/v1/scenes/{first['scene_id']}", json={"walls": {"inner-door": None}}
    ).get_json()
    assert second["stats"]["doors"] == doors


@pytest.mark.parametrize("with_levels", [True, False])
@pytest.mark.parametrize(
    "change",
    [
        {"walls": {"north": {"level": "nope"}}},
        {"lights": {"torch": {"level": "nope"}}},
        {"walls": {"w-new": {"c": [0, 0, 100, 100], "level": "nope"}}},
        {
            "regions": {
                "r-new": {"shape": {"type": "rect", "width": 100, "height": 100}, "level": "nope"}
            }
        },  # fmt: skip
    ],
)
def test_an_item_moved_to_a_level_the_scene_lacks_is_a_422(client, with_levels, change):
    """GEO-10: a whole upload's schema refuses an item naming an unknown level; a change
    names no levels of its own, so it is held to the parent's (it was a 500, or a 200 whose
    pictures answered 500). The parent answers as before."""
    scene = sample_scene()
    if with_levels:
        scene["levels"] = [{"id": "ground", "bottom": 0, "top": 10}]
        scene["walls"][0]["level"] = "ground"
        scene["regions"] = [*scene.get("regions", []), {
            "id": "r-on", "shape": {"type": "rect", "width": 100, "height": 100},
            "level": "ground"}]  # fmt: skip
    sid = client.post("/v1/scenes", json={"scene": scene}).get_json()["scene_id"]
    resp = client.patch(f"/v1/scenes/{sid}", json=change)
    assert resp.status_code == 422, resp.get_json()
    ((name, items),) = change.items()
    ((item_id, _),) = items.items()
    body = resp.get_json()
    assert body["errors"]["json"][name][item_id]["level"]
    assert "No level with id 'nope'" in body["message"]
    assert ("'ground'" in body["message"]) is with_levels
    render = client.post("/v1/render", json={"scene_id": sid})
    assert render.status_code == 200


@pytest.mark.parametrize(
    "change",
    [{"walls": {"north": 5}}, {"walls": {"north": {"c": [0, 0, 1, 1]}}, "bogus": 1}],
)
def test_a_bad_change_of_walls_is_not_taken_for_a_foundry_export(client, base, change):
    resp = client.patch(f"/v1/scenes/{base}", json=change)
    assert resp.status_code == 422
    assert "Foundry" not in resp.get_json()["message"]


def test_a_question_with_a_stray_walls_key_is_not_taken_for_an_export(client):
    body = {"scene_id": "sample", "from": "archer", "to": "goblin", "walls": {}}
    resp = client.post("/v1/line-of-effect", json=body)
    assert resp.status_code == 422
    assert "Foundry" not in resp.get_json()["message"]
    assert "walls" in resp.get_json()["errors"]["json"]


@pytest.mark.parametrize(
    ("change", "path", "hint"),
    [
        ({"tokens": {"gobln": {"x": 700}}}, ("tokens", "gobln"), "Did you mean 'goblin'?"),
        ({"lights": {"trch": {"on": False}}}, ("lights", "trch"), "Did you mean 'torch'?"),
        (
            {"walls": {"inner-dor": {"door_state": "open"}}},
            ("walls", "inner-dor"),
            "Did you mean 'inner-door'?",
        ),  # fmt: skip
        ({"tokens": {"dragon": {"x": 700}}}, ("tokens", "dragon"), None),
    ],
)
def test_a_partial_item_under_a_new_id_says_it_would_add_one(client, base, change, path, hint):
    """A typo of a held id reads as a new item, which must be whole: the 422 says so and
    names the nearest held id (nothing near: no suggestion)."""
    resp = client.patch(f"/v1/scenes/{base}", json=change)
    assert resp.status_code == 422, resp.get_json()
    message = resp.get_json()["message"]
    assert f"holds no {path[0][:-1]} '{path[1]}', so this adds one" in message
    assert (hint in message) if hint else ("Did you mean" not in message)


def test_a_typo_never_suggests_a_hidden_token(client):
    scene = sample_scene()
    scene["tokens"].append({"id": "assassin-7", "x": 700, "y": 700, "hidden": True})
    sid = client.post("/v1/scenes", json={"scene": scene}).get_json()["scene_id"]
    resp = client.patch(f"/v1/scenes/{sid}", json={"tokens": {"assasin-7": {"x": 1}}})
    assert resp.status_code == 422
    assert "assassin-7" not in resp.get_json()["message"]


@pytest.mark.parametrize(
    "change",
    [
        # a door made a plain wall, its state reset to the default in the same change
        {"walls": {"inner-door": {"door": "none", "door_state": None}}},
        # a wall made a door and opened in one change
        {"walls": {"north": {"door": "door", "door_state": "open"}}},
        # a door's state reset to the default
        {"walls": {"inner-door": {"door_state": None}}},
    ],
)
def test_a_change_a_whole_upload_accepts_gets_its_id(client, base, change):
    """A PATCH refuses a door_state only on a wall that stays no door (FORMATS: doors are
    walls with door != none); what a whole upload of the merged scene accepts, it takes."""
    resp = client.patch(f"/v1/scenes/{base}", json=change)
    assert resp.status_code == 200, resp.get_json()
    upload = client.post("/v1/scenes", json={"scene": whole(sample_scene(), change)})
    assert upload.status_code == 200
    assert resp.get_json()["scene_id"] == upload.get_json()["scene_id"]


def test_a_mistyped_id_of_a_move_adds_an_item_and_says_so(client, base):
    """``{"x", "y"}`` is a whole token: a move under a mistyped id adds one (as a whole upload
    of that scene would hold it), and the answer warns, naming the held id; never a hidden
    token's."""
    resp = client.patch(f"/v1/scenes/{base}", json={"tokens": {"gobiln": {"x": 700, "y": 300}}})
    assert resp.status_code == 200, resp.get_json()
    warnings = resp.get_json()["warnings"]
    assert any("'gobiln'" in w and "did you mean 'goblin'" in w for w in warnings), warnings
    fresh = client.patch(f"/v1/scenes/{base}", json={"tokens": {"wyvern": {"x": 7, "y": 3}}})
    # A new id near none is still said: a typo of a move is seen whatever the id.
    assert fresh.get_json()["warnings"] == [
        "tokens: 'wyvern' is not in the scene, so it was added as a new token."
    ]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"tokens": {"goblin": {"x": None}}}, "tokens.goblin.x"),
        ({"walls": {"inner-door": {"c": None}}}, "walls.inner-door.c"),
    ],
)
def test_null_on_a_required_field_says_it_has_no_default(client, base, change, field):
    """``null`` restores a field's default (JSON merge patch); a required field has none, so
    the 422 says that, not a bare "Missing data", and the parent answers as before."""
    before = cover(client, base)
    resp = client.patch(f"/v1/scenes/{base}", json=change)
    assert resp.status_code == 422
    message = resp.get_json()["message"]
    assert message.startswith(f"The change is invalid at {field}: null restores a field's default")
    assert "(it is required): give it a value." in message
    assert cover(client, base) == before


def test_null_on_a_field_with_a_default_restores_it(client, base):
    resp = client.patch(f"/v1/scenes/{base}", json={"tokens": {"goblin": {"name": None}}})
    assert resp.status_code == 200


LOW_WALL_SCENE = {
    "grid": {"size": 100, "distance": 5},
    "walls": [{"id": "low", "c": [300, -500, 300, 1000], "height": {"top": 6}}],
    "tokens": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 500, "y": 0}],
}


@pytest.mark.parametrize("width", [0.5, 1, 2, 3, 4])
@pytest.mark.parametrize("ruleset", ["dnd5e", "pf2e-variant", "starfinder"])
def test_a_resized_token_takes_the_size_its_width_gives_as_a_whole_upload(client, width, ruleset):
    """A token sent without ``size`` has the one its width gives (DESIGN.md); a PATCH of its
    ``width``/``height`` gives it the size of the new width, as a whole upload of the changed
    scene does: the same id and the same cover over a low wall (its height follows the size,
    GEO-5a)."""
    sid = client.post("/v1/scenes", json={"scene": LOW_WALL_SCENE}).get_json()["scene_id"]
    change = {"tokens": {"b": {"width": width, "height": width}}}
    patched = client.patch(f"/v1/scenes/{sid}", json=change).get_json()["scene_id"]
    upload = client.post("/v1/scenes", json={"scene": whole(LOW_WALL_SCENE, change)})
    assert patched == upload.get_json()["scene_id"]
    ask = {"ruleset": ruleset, "attacker": "a", "targets": ["b"]}
    by_id = client.post("/v1/cover", json={**ask, "scene_id": patched}).get_json()
    inline = client.post("/v1/cover", json={**ask, "scene": whole(LOW_WALL_SCENE, change)})
    assert by_id["results"][0]["cover"] == inline.get_json()["results"][0]["cover"]


def test_a_size_given_stays_when_the_width_changes(client):
    """A ``size`` other than the one the width gives was given: a PATCH of the width keeps
    it (only a derived default follows what it derives from)."""
    scene = copy.deepcopy(LOW_WALL_SCENE)
    scene["tokens"][1]["size"] = "tiny"
    sid = client.post("/v1/scenes", json={"scene": scene}).get_json()["scene_id"]
    change = {"tokens": {"b": {"width": 3, "height": 3}}}
    patched = client.patch(f"/v1/scenes/{sid}", json=change).get_json()["scene_id"]
    upload = client.post("/v1/scenes", json={"scene": whole(scene, change)}).get_json()
    assert patched == upload["scene_id"]


def test_a_token_too_big_for_the_hex_grid_is_refused_at_the_patch(client):
    """SIGHTLINE_MAX_HEX_FOOTPRINT after the change: 422 at ``tokens.<id>``, as a whole
    upload of the changed scene is refused, and the parent stays as it was."""
    scene = {
        "grid": {"size": 100, "distance": 5, "type": "hex-row"},
        "walls": [{"id": "w", "c": [300, 0, 300, 500]}],
        "tokens": [{"id": "a", "x": 0, "y": 0}, {"id": "c", "x": 400, "y": 300}],
    }
    sid = client.post("/v1/scenes", json={"scene": scene}).get_json()["scene_id"]
    change = {"tokens": {"c": {"width": 500, "height": 500}}}
    resp = client.patch(f"/v1/scenes/{sid}", json=change)
    assert resp.status_code == 422, resp.get_json()
    assert "SIGHTLINE_MAX_HEX_FOOTPRINT" in resp.get_json()["message"]
    assert "c" in resp.get_json()["errors"]["json"]["tokens"]
    upload = client.post("/v1/scenes", json={"scene": whole(scene, change)})
    assert upload.status_code == 422
    ask = {"ruleset": "dnd5e", "scene_id": sid, "attacker": "a", "targets": ["c"]}
    assert client.post("/v1/cover", json=ask).status_code == 200
