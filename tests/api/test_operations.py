"""The operation table (service.operations) answers as the HTTP API does, operation by operation.

Each row asks one question of ``EXAMPLES``-like bodies on the bundled sample scene through
``Operation.run`` (what the command line's local mode does) and through ``POST /v1/<key>``,
and the two JSON answers must be equal; errors must name the same field.
"""

from __future__ import annotations

import pytest
from marshmallow import ValidationError

from schemas.scene import SceneSchema
from service.app import sample_scene
from service.errors import RulesError
from service.operations import OPERATIONS, build_scene


@pytest.fixture(scope="module")
def geo():
    return build_scene(SceneSchema().load(sample_scene()))


BODIES = [
    pytest.param(
        "cover",
        {
            "ruleset": "dnd5e",
            "attacker": "archer",
            "targets": ["goblin", "kobold"],
            "options": {"cover_method": "dmg-corner"},
        },
        id="cover",
    ),
    pytest.param(
        "vision",
        {"ruleset": "starfinder", "observer": "goblin", "targets": ["archer", "bat"]},
        id="vision",
    ),
    pytest.param("lighting", {"points": [[150, 150]], "tokens": ["bat"]}, id="lighting"),
    pytest.param(
        "line-of-effect",
        {"from": "archer", "to": "goblin", "effect": {"damage": 12}},
        id="line-of-effect",
    ),
    pytest.param(
        "line-of-sight", {"from": "archer", "to": {"point": [950, 100]}}, id="line-of-sight"
    ),
    pytest.param(
        "matrix",
        {"ruleset": "pf2e-variant", "kind": "cover", "tokens": ["archer", "goblin", "ogre"]},
        id="matrix",
    ),
    pytest.param(
        "modifiers/flanking",
        {"ruleset": "starfinder", "attacker": "fighter", "ally": "archer", "target": "ogre"},
        id="flanking",
    ),
    pytest.param(
        "modifiers/gravity",
        {"ruleset": "dnd5e", "gravity": 3, "creature": {"str": 1, "dex": 2, "con": 4, "speed": 30}},
        id="gravity",
    ),
    pytest.param(
        "modifiers/underwater",
        {
            "ruleset": "dnd5e",
            "attacker": {"swim_speed": 0},
            "attack": {"kind": "melee", "weapon": "dagger"},
        },
        id="underwater",
    ),
    pytest.param(
        "modifiers/range",
        {"ruleset": "pf2e-variant", "distance": 45, "range_increment": 30},
        id="range",
    ),
]


@pytest.mark.parametrize(("key", "body"), BODIES)
def test_run_is_the_http_answer(client, geo, key, body):
    op = OPERATIONS[key]
    http_body = {**body, "scene_id": "sample"} if op.scene else body
    resp = client.post(f"/v1/{key}", json=http_body)
    assert resp.status_code == 200, resp.get_json()
    assert op.run(geo if op.scene else None, body) == resp.get_json()


def test_every_json_operation_has_a_row():
    asked = {p.values[0] for p in BODIES}
    assert asked == {k for k, op in OPERATIONS.items() if op.response is not None}


def test_render_is_the_http_picture(client, geo):
    query = {"type": "cover", "ruleset": "dnd5e", "attacker": "archer", "target": "goblin"}
    resp = client.post("/v1/render", json={"scene_id": "sample", "query": query})
    assert OPERATIONS["render"].run(geo, {"query": query}) == resp.get_data(as_text=True)


ERRORS = [
    pytest.param(
        "cover",
        {"ruleset": "dnd5e", "attacker": "archer", "targets": ["goblin", "archer"]},
        RulesError,
        ["targets", "1"],
        id="own-target",
    ),
    pytest.param(
        "vision",
        {"ruleset": "dnd5e", "observer": "ghost", "targets": ["goblin"]},
        RulesError,
        ["observer"],
        id="unknown-observer",
    ),
    pytest.param(
        "matrix",
        {"ruleset": "dnd5e", "options": {"cover_method": "best"}},
        ValidationError,
        ["options", "cover_method"],
        id="matrix-options",
    ),
    pytest.param(
        "modifiers/flanking",
        {"ruleset": "dnd5e", "attacker": "fighter", "ally": "archer", "target": "ogre"},
        RulesError,
        ["ruleset"],
        id="no-flanking-rule",
    ),
    pytest.param(
        "render",
        {"query": {"type": "cover", "ruleset": "dnd5e", "attacker": "archer", "target": "archer"}},
        RulesError,
        ["query", "target"],
        id="render-own-target",
    ),
    pytest.param(
        "render",
        {
            "query": {
                "type": "vision",
                "ruleset": "dnd5e",
                "observer": "archer",
                "target": "goblin",
                "options": {"unnoticed": 3},
            }
        },
        ValidationError,
        ["query", "options", "unnoticed"],
        id="render-options",
    ),
]


@pytest.mark.parametrize(("key", "body", "error", "path"), ERRORS)
def test_errors_name_the_field_the_http_answer_names(client, geo, key, body, error, path):
    with pytest.raises(error) as info:
        OPERATIONS[key].run(geo, body)
    resp = client.post(f"/v1/{key}", json={**body, "scene_id": "sample"})
    assert resp.status_code == getattr(info.value, "status", 422)
    node = resp.get_json()["errors"]["json"]
    for key_ in path:
        node = node[key_]
    if error is RulesError:
        assert [str(p) for p in info.value.path] == path
        assert node == [info.value.message]
    else:
        mine = info.value.messages
        for key_ in path:
            mine = mine[key_]
        assert node == mine
