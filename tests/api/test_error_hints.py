"""Error answers that say what to do: the nearest field name, the import formats."""

from __future__ import annotations

import pytest

from schemas import requests as rq
from schemas.suggest import suggest_fields


def test_an_unknown_field_names_the_nearest(client):
    body = {"ruleset": "dnd5e", "scene_id": "sample", "attaker": "archer", "targets": ["goblin"]}
    resp = client.post("/v1/cover", json=body)
    assert resp.status_code == 422
    answer = resp.get_json()
    assert "did you mean attacker?" in answer["message"]
    assert answer["errors"]["json"]["attaker"] == ["Unknown field. Did you mean 'attacker'?"]


def test_nested_unknown_fields_name_the_nearest_at_their_level(client):
    body = {
        "scene": {
            "grid": {"size": 100},
            "walls": [{"id": "w", "c": [0, 0, 1, 1], "doorr": "door"}],
            "tokens": [{"id": "a", "x": 0, "y": 0, "sise": 1}],
        }
    }
    answer = client.post("/v1/scenes", json=body).get_json()
    scene = answer["errors"]["json"]["scene"]
    assert scene["walls"]["0"]["doorr"] == ["Unknown field. Did you mean 'door'?"]
    assert scene["tokens"]["0"]["sise"] == ["Unknown field. Did you mean 'size'?"]


def test_a_name_far_from_every_field_gets_no_guess(client):
    body = {"ruleset": "dnd5e", "scene_id": "sample", "targets": ["goblin"], "zzzz": 1}
    answer = client.post("/v1/cover", json=body).get_json()
    assert answer["errors"]["json"]["zzzz"] == ["Unknown field."]
    assert answer["message"] == "Request body is invalid at zzzz: Unknown field."


def test_suggestions_leave_other_messages_alone():
    messages = {"targets": ["Missing data for required field."], "optoins": ["Unknown field."]}
    out, found = suggest_fields(messages, rq.CoverRequestSchema)
    assert out["targets"] == messages["targets"]
    assert found == [(("optoins",), "options")]


@pytest.mark.parametrize("fmt", ["fvtt", "dd2vtt", "foundryvtt"])
def test_an_unknown_import_format_lists_the_formats(client, fmt):
    resp = client.post(f"/v1/import/{fmt}", json={})
    assert resp.status_code == 404
    message = resp.get_json()["message"]
    assert f"'{fmt}'" in message
    for known in ("foundry", "roll20", "uvtt", "auto"):
        assert known in message


@pytest.mark.parametrize(
    ("field", "named"),
    [("doorr", "door"), ("sise", None), ("colour", None), ("speed", None), ("hieght", "height")],
)
def test_only_a_near_typo_is_named(field, named):
    """An unknown field is named only when it is a near typo (``schemas.suggest.NEAR``)."""
    from schemas.scene import SceneSchema

    messages = {field: ["Unknown field."]}
    found, near = suggest_fields(messages, SceneSchema().fields["walls"].inner.schema)
    want = ["Unknown field."] if named is None else [f"Unknown field. Did you mean {named!r}?"]
    assert found[field] == want


def test_the_message_names_the_first_cause_and_its_place(client):
    """A client that shows only ``message`` (Foundry's notifications) shows what is wrong and
    where: an option a ruleset loads itself, and a scene field."""
    body = {"ruleset": "dnd5e", "scene_id": "sample", "attacker": "archer", "targets": ["ogre"],
            "options": {"cover_method": "dmg"}}  # fmt: skip
    answer = client.post("/v1/cover", json=body).get_json()
    assert answer["message"].startswith("Request body is invalid at "), answer
    assert "cover_method: Must be one of:" in answer["message"]
    scene = {"grid": {"size": 0}, "walls": [{"id": "w", "c": [0, 0, 1]}]}
    answer = client.post("/v1/scenes", json={"scene": scene}).get_json()
    assert answer["message"].startswith("Request body is invalid at scene.")
    assert answer["message"].endswith("(and 1 more in errors)")


def _sample() -> dict:
    import json
    from importlib import resources

    return json.loads(resources.files("service").joinpath("data/sample-scene.json").read_text())


@pytest.mark.parametrize(
    ("body", "told"),
    [
        (_sample(), '{"scene": <the scene>}'),  # a canonical scene sent bare
        (  # a Foundry scene export
            {"_id": "x1", "name": "Room", "grid": 100, "walls": [{"c": [0, 0, 1, 1]}]},
            '{"format": "foundry", "export": <the',
        ),
        ({"resolution": {"pixels_per_grid": 70}, "line_of_sight": []}, '"export": <the'),  # UVTT
    ],
)
def test_a_scene_sent_bare_is_told_how_to_wrap_it(client, body, told):
    """A scene or export posted as the body itself gets one 422 saying how to send it
    (``{"scene": ...}``, or ``{"format": ..., "export": ...}``), not an "Unknown field" per
    field (API.md errors)."""
    resp = client.post("/v1/scenes", json=body)
    assert resp.status_code == 422
    answer = resp.get_json()
    assert told in answer["message"]
    assert "Unknown field" not in answer["message"]
    assert client.post("/v1/scenes", json={"scene": _sample()}).status_code == 200


def test_a_body_with_upload_fields_is_not_taken_for_a_bare_scene(client):
    body = {"scene": _sample(), "walls": []}
    answer = client.post("/v1/scenes", json=body).get_json()
    assert answer["errors"]["json"]["walls"] == ["Unknown field."]


@pytest.mark.parametrize("path", ["/v1/scenes", "/v1/cover"])
def test_a_canonical_scene_without_its_grid_is_not_taken_for_an_export(client, path):
    """A canonical scene that forgot ``grid`` is told so at ``scene.grid``, not sent off to
    the Foundry importer (its walls and tokens carry canonical ids, no Foundry codes)."""
    bare = {"walls": [{"id": "w", "c": [0, 0, 100, 0]}], "tokens": [{"id": "a", "x": 0, "y": 50}]}
    body = {"scene": bare, "ruleset": "dnd5e", "attacker": "a", "targets": ["a"]}
    if path == "/v1/scenes":
        body = {"scene": bare}
    answer = client.post(path, json=body).get_json()
    assert (
        answer["message"]
        == "Request body is invalid at scene.grid: Missing data for required field."
    )
    foundry = {"walls": [{"_id": "w", "c": [0, 0, 100, 0], "move": 20}], "grid": 100}
    hinted = client.post("/v1/scenes", json={"scene": foundry}).get_json()["message"]
    assert hinted.startswith("`scene` looks like a Foundry VTT export")


@pytest.mark.parametrize("body", [[1, 2], "x", 5])
@pytest.mark.parametrize("method,path", [("patch", "/v1/scenes/sample"), ("post", "/v1/cover")])
def test_a_body_that_is_no_object_is_told_so_without_internal_names(client, body, method, path):
    """marshmallow's ``_schema`` key never reaches the message: the body is at ``(top)``."""
    answer = getattr(client, method)(path, json=body).get_json()
    assert answer["message"] == (
        "Request body is invalid at (top): Invalid input type: a JSON object is expected."
    )
