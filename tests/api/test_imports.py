"""Imports without surprises: canonical scenes, NeDB files, one scene choice, CORS origins.

- A canonical scene is recognised by ``POST /v1/import/auto`` and ``POST /v1/scenes`` with
  ``format: "auto"``: returned unchanged (doors, windows, ids), with its stats; an explicit
  format the body does not match is a 422 saying what the body looks like.
- A Foundry NeDB ``.db`` (one JSON document a line) is accepted by ``/v1/import/*`` as
  ``application/x-ndjson`` or sniffed from an ``application/json`` body, and by
  ``/v1/scenes`` as the export's text.
- One way to choose a scene or page, the same for every format and both endpoints: the
  query ``?scene=`` (``?page=`` is the same).
- ``SIGHTLINE_CORS_ORIGINS`` adds to the localhost defaults (``SIGHTLINE_CORS_REPLACE``
  replaces them); private-network preflights are allowed for allowed origins.

Contract: shared/API.md "Scenes and import"; shared/FORMATS.md (a) NeDB, Pitfall 10;
shared/cases/imports-2/README.md (nedb-two-scenes.db).
"""

from __future__ import annotations

import json

import pytest

from service.app import create_app, sample_scene
from tests.api.test_api import assert_error
from tests.conftest import SHARED

#: Two Foundry v10 scenes as NeDB lines; "A" written twice: the last line wins (Pitfall 10).
NEDB = "\n".join(
    json.dumps(doc)
    for doc in (
        {
            "_id": "s1",
            "name": "A",
            "grid": {"type": 1, "size": 100, "distance": 5},
            "walls": [{"_id": "w1", "c": [0, 0, 100, 0], "move": 20, "sight": 20}],
        },
        {"_id": "s2", "name": "B", "grid": {"type": 1, "size": 100, "distance": 5}, "walls": []},
        {
            "_id": "s1",
            "name": "A",
            "grid": {"type": 1, "size": 100, "distance": 5},
            "walls": [
                {"_id": "w1", "c": [0, 0, 100, 0], "move": 20, "sight": 20},
                {"_id": "w2", "c": [0, 200, 100, 200], "move": 20, "sight": 20},
            ],
        },
    )
)


# ------------------------------------------------------------------ 1. canonical scenes


def test_import_auto_returns_a_canonical_scene_unchanged(client):
    scene = sample_scene()
    resp = client.post("/v1/import/auto", json=scene)
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["scene"] == scene  # ids, doors, windows as they were
    assert body["stats"] == {
        "format": "canonical",
        "walls": len(scene["walls"]),
        "doors": sum(1 for w in scene["walls"] if w.get("door", "none") != "none"),
        "tokens": len(scene["tokens"]),
        "lights": len(scene["lights"]),
        "regions": len(scene.get("regions", [])),
    }
    assert body["warnings"] == []


def test_round_trip_keeps_cover(client):
    # once a bug: after one import round trip cover went from none to total
    scene = sample_scene()
    again = client.post("/v1/import/auto", json=scene).get_json()["scene"]
    body = {"ruleset": "dnd5e", "attacker": "archer", "targets": ["goblin", "kobold"]}
    first = client.post("/v1/cover", json={**body, "scene": scene}).get_json()
    second = client.post("/v1/cover", json={**body, "scene": again}).get_json()
    assert [r["cover"] for r in second["results"]] == [r["cover"] for r in first["results"]]
    assert [r["cover"] for r in first["results"]] == ["half", "total"]  # README's example


def test_scenes_auto_takes_a_canonical_scene_as_it_is(client):
    scene = sample_scene()
    up = client.post("/v1/scenes", json={"format": "auto", "export": scene})
    assert up.status_code == 200, up.get_json()
    direct = client.post("/v1/scenes", json={"scene": scene}).get_json()
    assert up.get_json()["scene_id"] == direct["scene_id"]
    assert up.get_json()["stats"]["format"] == "canonical"
    assert up.get_json()["stats"]["doors"] == direct["stats"]["doors"] == 1


def test_an_import_answer_is_recognised_too(client):
    scene = sample_scene()
    wrapped = client.post("/v1/import/auto", json=scene).get_json()
    assert client.post("/v1/import/auto", json=wrapped).get_json()["scene"] == scene


@pytest.mark.parametrize("fmt", ["foundry", "roll20", "uvtt"])
def test_explicit_format_given_a_canonical_scene_is_422_saying_so(client, fmt):
    err = assert_error(client.post(f"/v1/import/{fmt}", json=sample_scene()), 422)
    assert "this is a canonical Sightline scene" in err["message"]
    up = client.post("/v1/scenes", json={"format": fmt, "export": sample_scene()})
    assert "canonical Sightline scene" in assert_error(up, 422)["message"]


def test_explicit_format_given_another_export_says_what_it_looks_like(client):
    docs = [json.loads(line) for line in NEDB.splitlines()]
    err = assert_error(client.post("/v1/import/roll20", json=docs), 422)
    assert "this looks like a Foundry VTT export, not a Roll20 export" in err["message"]


def test_an_invalid_canonical_scene_names_its_own_field(client):
    scene = sample_scene()
    scene["walls"][0]["c"] = [0, 0, 1]
    err = assert_error(client.post("/v1/import/auto", json=scene), 422)
    assert "c" in err["errors"]["json"]["walls"]["0"]


def test_a_selector_does_not_apply_to_a_canonical_scene(client):
    err = assert_error(client.post("/v1/import/auto?scene=A", json=sample_scene()), 422)
    assert "does not apply to a canonical scene" in err["message"]


# ------------------------------------------------------------------ 9. NeDB over HTTP


@pytest.mark.parametrize("ctype", ["application/x-ndjson", "application/json"])
def test_import_nedb_by_content_type_or_sniffed(client, ctype):
    resp = client.post("/v1/import/foundry?scene=A", data=NEDB, content_type=ctype)
    assert resp.status_code == 200, resp.get_json()
    walls = resp.get_json()["scene"]["walls"]
    assert [w["id"] for w in walls] == ["w1", "w2"]  # the last revision of "A"


def test_import_nedb_auto_picks_by_name_id_or_index(client):
    for pick in ("B", "s2", "1"):
        resp = client.post(
            f"/v1/import/auto?scene={pick}", data=NEDB, content_type="application/x-ndjson"
        )
        assert resp.status_code == 200, (pick, resp.get_json())
        assert resp.get_json()["scene"]["walls"] == []


def test_import_nedb_without_a_choice_lists_the_scenes(client):
    err = assert_error(
        client.post("/v1/import/auto", data=NEDB, content_type="application/x-ndjson"), 422
    )
    assert "the export holds 2 scenes; pick one with scene=: 'A' (s1), 'B' (s2)" in err["message"]


def test_bad_nedb_says_which_line(client):
    text = NEDB + "\n{oops\n"
    err = assert_error(
        client.post("/v1/import/auto", data=text, content_type="application/x-ndjson"), 400
    )
    assert "line 4 is not valid JSON" in err["message"]
    sniffed = assert_error(
        client.post("/v1/import/auto", data=text, content_type="application/json"), 400
    )
    assert "nor a Foundry NeDB file" in sniffed["message"]


def test_other_content_types_name_both_accepted_ones(client):
    err = assert_error(client.post("/v1/import/auto", data=NEDB, content_type="text/plain"), 415)
    assert "application/x-ndjson" in err["message"]
    # other endpoints still take JSON only
    err = assert_error(
        client.post("/v1/cover", data=NEDB, content_type="application/x-ndjson"), 415
    )
    assert "application/json" in err["message"]


def test_scenes_takes_nedb_text_as_the_export(client):
    up = client.post("/v1/scenes?scene=A", json={"format": "auto", "export": NEDB})
    assert up.status_code == 200, up.get_json()
    assert up.get_json()["stats"]["walls"] == 2
    assert up.get_json()["stats"]["format"] == "foundry"


# ------------------------------------------------------------------ 10. one way to choose


def _roll20_two_pages() -> dict:
    page = {"snapping_increment": 1, "scale_number": 5, "width": 5, "height": 5}
    path = {"layer": "walls", "path": '[["M", 0, 0], ["L", 70, 0]]', "left": 35, "top": 0}
    path |= {"width": 70, "height": 0, "scaleX": 1, "scaleY": 1, "rotation": 0}
    return {
        "schema_version": 1,
        "maps": [
            {"attributes": {**page, "name": "A"}, "paths": [{**path, "id": "pa"}], "graphics": []},
            {"attributes": {**page, "name": "B"}, "paths": [], "graphics": []},
        ],
    }


FOUNDRY_WORLD = {"scenes": [json.loads(line) for line in NEDB.splitlines()[1:]]}


@pytest.mark.parametrize(
    ("fmt", "export", "walls"),
    [
        pytest.param("foundry", FOUNDRY_WORLD, 2, id="foundry"),
        pytest.param("roll20", _roll20_two_pages(), 1, id="roll20"),
        pytest.param("auto", FOUNDRY_WORLD, 2, id="auto foundry"),
        pytest.param("auto", _roll20_two_pages(), 1, id="auto roll20"),
    ],
)
@pytest.mark.parametrize("name", ["scene", "page"])
def test_scene_query_chooses_for_every_format_on_both_endpoints(client, fmt, export, walls, name):
    resp = client.post(f"/v1/import/{fmt}?{name}=A", json=export)
    assert resp.status_code == 200, resp.get_json()
    assert len(resp.get_json()["scene"]["walls"]) == walls
    up = client.post(f"/v1/scenes?{name}=A", json={"format": fmt, "export": export})
    assert up.status_code == 200, up.get_json()
    assert up.get_json()["stats"]["walls"] == walls


def test_scenes_multi_scene_foundry_without_a_choice_names_the_query(client):
    up = client.post("/v1/scenes", json={"format": "foundry", "export": FOUNDRY_WORLD})
    assert "pick one with scene=" in assert_error(up, 422)["message"]


def test_scenes_body_page_still_works_for_every_format(client):
    up = client.post("/v1/scenes", json={"format": "foundry", "export": FOUNDRY_WORLD, "page": "A"})
    assert up.status_code == 200, up.get_json()
    assert up.get_json()["stats"]["walls"] == 2


def test_disagreeing_choices_are_422(client):
    err = assert_error(client.post("/v1/import/auto?scene=A&page=B", json=FOUNDRY_WORLD), 422)
    assert set(err["errors"]["query"]) == {"scene", "page"}
    up = client.post(
        "/v1/scenes?scene=A", json={"format": "auto", "export": FOUNDRY_WORLD, "page": "B"}
    )
    assert_error(up, 422)


def test_scene_query_with_a_canonical_scene_body_is_422(client):
    up = client.post("/v1/scenes?scene=A", json={"scene": sample_scene()})
    assert "query" in assert_error(up, 422)["errors"]


def test_a_choice_for_a_single_map_format_is_422(client):
    err = assert_error(client.post("/v1/import/uvtt?scene=A", json={}), 422)
    assert "scene" in err["errors"]["query"]


# ------------------------------------------------------------------ the shared case


def _case(name: str) -> str:
    path = SHARED / "cases" / "imports-2" / name
    if not path.exists():
        pytest.skip(f"../shared is not beside this checkout ({path} missing): case skipped")
    return path.read_text(encoding="utf-8")


def test_case_nedb_two_scenes():
    """shared/cases/imports-2/README.md, row ``nedb-two-scenes.db``.

    The README says Room A comes "with its one wall"; the file writes Room A twice and its
    last line has two walls (w1, w2). FORMATS.md Pitfall 10 says readers keep the *last*
    line per ``_id``, so the import holds both walls; w1 is checked to be there.
    """
    text = _case("nedb-two-scenes.db")
    client = create_app().test_client()
    room_a = client.post(
        "/v1/import/auto?scene=Room%20A", data=text, content_type="application/x-ndjson"
    )
    assert room_a.status_code == 200, room_a.get_json()
    walls = room_a.get_json()["scene"]["walls"]
    assert [w["id"] for w in walls] == ["w1", "w2"]
    assert walls[0]["c"] == [100, 100, 400, 100]
    room_b = client.post(
        "/v1/import/auto?scene=Room%20B", data=text, content_type="application/json"
    )
    assert room_b.status_code == 200 and room_b.get_json()["scene"]["walls"] == []
    none = assert_error(
        client.post("/v1/import/auto", data=text, content_type="application/x-ndjson"), 422
    )
    assert "'Room A' (s1), 'Room B' (s2)" in none["message"]
    # "Same through /v1/scenes"
    up = client.post("/v1/scenes?scene=Room%20A", json={"format": "auto", "export": text})
    assert up.status_code == 200 and up.get_json()["stats"]["walls"] == 2
    up_b = client.post("/v1/scenes?scene=Room%20B", json={"format": "foundry", "export": text})
    assert up_b.status_code == 200 and up_b.get_json()["stats"]["walls"] == 0
    none = assert_error(client.post("/v1/scenes", json={"format": "auto", "export": text}), 422)
    assert "'Room A' (s1), 'Room B' (s2)" in none["message"]


# ------------------------------------------------------------------ 5. CORS


FOUNDRY_ORIGIN = "https://my-foundry.example:30000"


def _preflight(client, origin: str):
    return client.options(
        "/v1/cover",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
            "Access-Control-Request-Private-Network": "true",
        },
    )


def test_cors_origins_add_to_the_localhost_defaults():
    client = create_app({"CORS_ORIGINS": [FOUNDRY_ORIGIN]}).test_client()
    for origin in (FOUNDRY_ORIGIN, "http://localhost:30000", "http://127.0.0.1:8080"):
        resp = _preflight(client, origin)
        assert resp.headers.get("Access-Control-Allow-Origin") == origin
        assert resp.headers.get("Access-Control-Allow-Private-Network") == "true"
    other = _preflight(client, "https://evil.example")
    assert "Access-Control-Allow-Origin" not in other.headers
    assert "Access-Control-Allow-Private-Network" not in other.headers


def test_cors_origin_as_a_plain_string_from_the_environment(monkeypatch):
    monkeypatch.setenv("SIGHTLINE_CORS_ORIGINS", FOUNDRY_ORIGIN)  # not JSON: one origin
    client = create_app().test_client()
    assert (
        _preflight(client, FOUNDRY_ORIGIN).headers["Access-Control-Allow-Origin"] == FOUNDRY_ORIGIN
    )
    assert _preflight(client, "http://localhost:1").headers["Access-Control-Allow-Origin"]


def test_cors_replace_drops_the_defaults(monkeypatch):
    monkeypatch.setenv("SIGHTLINE_CORS_ORIGINS", json.dumps([FOUNDRY_ORIGIN]))
    monkeypatch.setenv("SIGHTLINE_CORS_REPLACE", "true")
    client = create_app().test_client()
    assert (
        _preflight(client, FOUNDRY_ORIGIN).headers["Access-Control-Allow-Origin"] == FOUNDRY_ORIGIN
    )
    assert "Access-Control-Allow-Origin" not in _preflight(client, "http://localhost:1").headers


def test_cors_replace_must_be_yes_or_no():
    with pytest.raises(ValueError, match="SIGHTLINE_CORS_REPLACE='sometimes' is invalid"):
        create_app({"CORS_REPLACE": "sometimes"})


def test_default_cors_answers_localhost_private_network_preflight(client):
    resp = _preflight(client, "http://localhost:30000")
    assert resp.headers["Access-Control-Allow-Private-Network"] == "true"
    assert resp.headers["Access-Control-Allow-Origin"] == "http://localhost:30000"
