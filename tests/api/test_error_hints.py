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
