"""The OpenAPI document says the bounds the server refuses past (issue 32, schemathesis ST202).

Each test names one kind of body the document accepted and the server refused with a 422,
and checks that the document now says the bound, from the schema the server loads with
(``tests/fuzz/test_schemathesis.py`` runs ST202 over every operation).
"""

from __future__ import annotations

import typing

import jsonschema
import pytest
from marshmallow import ValidationError

from schemas.modifiers import EFFECT_FIELDS, UnderwaterEffectSchema
from schemas.requests import (
    FLANKING_RULESETS,
    QUERY_FIELDS,
    CoverOptionsSchema,
    VisionOptionsSchema,
)
from schemas.scene import ShapeSchema
from service import model, rules
from service.app import create_app
from service.body_rules import SHAPE_NEEDS


@pytest.fixture(scope="module")
def spec():
    return create_app().test_client().get("/openapi.json").get_json()


@pytest.fixture
def client():
    return create_app({"TESTING": False}).test_client()


def _schemas(spec):
    return spec["components"]["schemas"]


def test_a_patch_edit_is_documented_an_object_or_null(spec, client):
    """``{"regions": {"x": [null]}}``: each collection's values are an object or null."""
    for name in ("walls", "tokens", "lights", "regions"):
        prop = _schemas(spec)["ScenePatch"]["properties"][name]
        assert prop["additionalProperties"] == {"type": "object", "nullable": True}, name
    resp = client.patch("/v1/scenes/sample", json={"regions": {"x": [None]}})
    assert resp.status_code == 422
    assert resp.get_json()["errors"]["json"]["regions"]["x"] == [
        "Must be an object (the item's changed fields) or null (remove it)."
    ]


def test_advantage_levels_are_documented_by_their_keys(spec, client):
    """``options.advantage_levels`` takes the keys lesser, standard, greater and no other."""
    prop = _schemas(spec)["CoverOptions"]["properties"]["advantage_levels"]
    assert set(prop["properties"]) == {"lesser", "standard", "greater"}
    assert prop["additionalProperties"] is False
    assert prop["properties"]["lesser"] == {"type": "integer", "minimum": 0, "maximum": 10}
    body = {
        "ruleset": "starfinder",
        "scene_id": "sample",
        "attacker": "archer",
        "targets": ["goblin"],
        "options": {"advantage_levels": {"huge": 1}},
    }
    resp = client.post("/v1/cover", json=body)
    assert resp.status_code == 422
    assert "huge" in resp.get_json()["errors"]["json"]["options"]["advantage_levels"]


@pytest.mark.parametrize(
    ("schema", "kinds"),
    [
        ("MatrixRequest", ["CoverOptions", "VisionOptions"]),
        ("RenderQuery", ["CoverOptions", "VisionOptions", "LineOptions"]),
    ],
)
def test_nested_options_are_documented_as_their_kinds_options(spec, schema, kinds):
    """``options`` of /v1/matrix and of /v1/render's query: one kind's options, no other key."""
    prop = _schemas(spec)[schema]["properties"]["options"]
    assert prop["anyOf"] == [{"$ref": f"#/components/schemas/{kind}"} for kind in kinds]
    for kind in kinds:
        assert _schemas(spec)[kind]["additionalProperties"] is False


def test_matrix_options_name_the_fields_of_cover_and_vision_options(spec, client):
    documented = set(_schemas(spec)["CoverOptions"]["properties"]) | set(
        _schemas(spec)["VisionOptions"]["properties"]
    )
    assert documented == set(CoverOptionsSchema().fields) | set(VisionOptionsSchema().fields)
    body = {"ruleset": "dnd5e", "scene_id": "sample", "options": {"no_such_option": 1}}
    resp = client.post("/v1/matrix", json=body)
    assert resp.status_code == 422
    assert "no_such_option" in resp.get_json()["errors"]["json"]["options"]


def test_flanking_documents_the_rulesets_with_a_flanking_rule(spec, client):
    """``ruleset`` pf2e-variant was documented and answered "has no flanking rule" (422)."""
    having = sorted(
        r for r, sys in rules.REGISTRY.items() if "modifiers/flanking" in sys.extra_capabilities
    )
    assert list(FLANKING_RULESETS) == having
    assert _schemas(spec)["FlankingRequest"]["properties"]["ruleset"]["enum"] == having
    body = {
        "ruleset": "pf2e-variant",
        "scene_id": "sample",
        "attacker": "fighter",
        "ally": "archer",
        "target": "ogre",
    }
    resp = client.post("/v1/modifiers/flanking", json=body)
    assert resp.status_code == 422
    assert resp.get_json()["message"] == "Ruleset 'pf2e-variant' has no flanking rule."


def test_grid_distance_is_documented_with_the_grids_bounds(spec, client):
    """``?grid_distance=1e-05`` was documented (> 0) and refused by the importer (>= 0.001)."""
    (param,) = (
        p
        for p in spec["paths"]["/v1/import/{fmt}"]["post"]["parameters"]
        if p["name"] == "grid_distance"
    )
    assert param["schema"]["minimum"] == model.MIN_GRID_DISTANCE
    assert param["schema"]["maximum"] == model.MAX_UNITS
    resp = client.post("/v1/import/uvtt?grid_distance=1e-05", json={})
    assert resp.status_code == 422
    assert list(resp.get_json()["errors"]) == ["query"]  # refused as the document says


@pytest.mark.parametrize("schema", ["LineRequest", "SightRequest", "RenderQuery"])
def test_an_endpoint_is_documented_with_the_models_bounds(spec, schema):
    """``from``/``to``: ``""`` and points or elevations past the model's bounds were documented."""
    props = _schemas(spec)[schema]["properties"]
    for name in ("from", "to"):
        token, point = props[name]["oneOf"]
        assert token == {"type": "string", "minLength": 1}
        items = point["properties"]["point"]["items"]
        assert (items["minimum"], items["maximum"]) == (-model.MAX_COORD_PX, model.MAX_COORD_PX)
        elevation = point["properties"]["elevation"]
        assert (elevation["minimum"], elevation["maximum"]) == (-model.MAX_UNITS, model.MAX_UNITS)


@pytest.mark.parametrize(
    ("endpoint", "code"),
    [("", 422), ({"point": [0, 1e8]}, 422), ({"point": [0, 0], "elevation": 2e6}, 422)],
)
def test_an_endpoint_past_the_documented_bounds_is_refused(client, endpoint, code):
    body = {"scene_id": "sample", "from": "archer", "to": endpoint}
    assert client.post("/v1/line-of-effect", json=body).status_code == code


def test_line_of_sight_documents_no_breakthrough_damage(spec, client):
    """``effect.damage`` 3 was documented for /v1/line-of-sight and refused (5E-LOE-4)."""
    assert spec["paths"]["/v1/line-of-sight"]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ] == {"$ref": "#/components/schemas/SightRequest"}
    damage = _schemas(spec)["SightEffect"]["properties"]["damage"]
    assert damage["enum"] == [None] and damage["nullable"] is True
    body = {"scene_id": "sample", "from": "archer", "to": "goblin", "effect": {"damage": 3}}
    resp = client.post("/v1/line-of-sight", json=body)
    assert resp.status_code == 422
    assert resp.get_json()["errors"]["json"]["effect"]["damage"] == [
        "Breakthrough applies to line of effect only."
    ]
    body["effect"] = {"damage": None}
    assert client.post("/v1/line-of-sight", json=body).status_code == 200
    body["effect"] = {"damage": 3}
    assert client.post("/v1/line-of-effect", json=body).status_code == 200


def test_underwater_damage_types_are_documented(spec):
    """``attack.damage_types`` ``["0"]`` was documented (any string) and refused."""
    items = _schemas(spec)["UnderwaterAttack"]["properties"]["damage_types"]["items"]
    assert items["enum"] == list(model.DAMAGE_TYPES)


SHAPES = [
    ({"type": "polygon", "points": [[0, 0], [10, 0], [0, 10]]}, {"points": [[0, 0], [10, 0]]}),
    ({"type": "rect", "width": 10, "height": 5}, {"height": 0}),
    ({"type": "circle", "radius": 5}, {"radius": 0}),
]


def test_shape_needs_name_every_shape_type():
    assert list(SHAPE_NEEDS) == list(typing.get_args(typing.get_type_hints(model.Shape)["type"]))


@pytest.mark.parametrize(("shape", "short"), SHAPES, ids=lambda v: str(v.get("type", v)))
def test_a_shape_is_documented_with_what_its_type_needs(spec, shape, short):
    """A rect of width 0, a circle of radius 0, a polygon of 2 points: documented, refused."""
    validator = jsonschema.Draft4Validator(_schemas(spec)["Shape"])
    assert validator.is_valid(shape)
    ShapeSchema().load(shape)
    wrong = {**shape, **short}
    assert not validator.is_valid(wrong)
    with pytest.raises(ValidationError):
        ShapeSchema().load(wrong)
    assert not validator.is_valid({"type": shape["type"]})  # the defaults (0, no points)


@pytest.mark.parametrize(
    ("body", "valid"),
    [
        ({"points": [[1, 1]]}, True),
        ({"tokens": ["goblin"]}, True),
        ({"points": [], "tokens": ["goblin"]}, True),
        ({}, False),
        ({"points": [], "tokens": []}, False),
    ],
)
def test_lighting_documents_at_least_one_point_or_token(spec, client, body, valid):
    """``{"scene_id": "sample"}`` was documented and refused: "Give at least one point or token"."""
    rule = {"anyOf": _schemas(spec)["LightingRequest"]["anyOf"]}
    assert jsonschema.Draft4Validator(rule).is_valid(body) is valid
    resp = client.post("/v1/lighting", json={"scene_id": "sample", **body})
    assert resp.status_code == (200 if valid else 422), resp.get_json()


#: A value for each field an underwater effect kind requires.
EFFECT_VALUES = {"timing": "other", "size": 10, "cold_damage": 5, "con": 1}


@pytest.mark.parametrize("kind", list(EFFECT_FIELDS))
def test_an_underwater_effect_is_documented_with_its_kinds_fields(spec, kind):
    """``{"kind": "acid", "con": 0}`` was documented and refused: "Not a field of effect kind"."""
    rule = jsonschema.Draft4Validator({"oneOf": _schemas(spec)["UnderwaterEffect"]["oneOf"]})
    required, optional = EFFECT_FIELDS[kind]
    effect = {"kind": kind, **{name: EFFECT_VALUES[name] for name in required}}
    assert rule.is_valid(effect)
    UnderwaterEffectSchema().load(effect)
    for name in required:  # without one of its own
        short = {k: v for k, v in effect.items() if k != name}
        assert not rule.is_valid(short)
        with pytest.raises(ValidationError):
            UnderwaterEffectSchema().load(short)
    other = next(n for n in sorted(EFFECT_VALUES) if n not in required | optional)
    wrong = {**effect, other: EFFECT_VALUES[other]}  # with another kind's
    assert not rule.is_valid(wrong)
    with pytest.raises(ValidationError):
        UnderwaterEffectSchema().load(wrong)


QUERIES = {
    "cover": {"ruleset": "dnd5e", "attacker": "archer", "target": "goblin"},
    "vision": {"ruleset": "dnd5e", "observer": "goblin", "target": "archer"},
    "line-of-effect": {"from": "archer", "to": "goblin"},
    "line-of-sight": {"from": "archer", "to": "goblin"},
}


@pytest.mark.parametrize("kind", list(QUERY_FIELDS))
def test_a_render_query_is_documented_with_its_types_fields(spec, client, kind):
    """``{"type": "cover"}`` was documented and refused: "Required for a cover query"."""
    rule = jsonschema.Draft4Validator({"oneOf": _schemas(spec)["RenderQuery"]["oneOf"]})
    query = {"type": kind, **QUERIES[kind]}
    assert set(QUERIES[kind]) == set(QUERY_FIELDS[kind])
    assert rule.is_valid(query)
    assert client.post("/v1/render", json={"scene_id": "sample", "query": query}).status_code == 200
    for name in QUERY_FIELDS[kind]:
        for short in ({k: v for k, v in query.items() if k != name}, {**query, name: None}):
            assert not rule.is_valid(short), short
            resp = client.post("/v1/render", json={"scene_id": "sample", "query": short})
            assert resp.status_code == 422, short


def test_a_render_cover_query_of_an_area_needs_no_attacker(spec, client):
    rule = jsonschema.Draft4Validator({"oneOf": _schemas(spec)["RenderQuery"]["oneOf"]})
    query = {
        "type": "cover",
        "ruleset": "dnd5e",
        "target": "goblin",
        "attack": {"kind": "area", "origin": [150, 150]},
    }
    assert rule.is_valid(query)
    assert client.post("/v1/render", json={"scene_id": "sample", "query": query}).status_code == 200
    ranged = {**query, "attack": {"kind": "ranged"}}
    assert not rule.is_valid(ranged)
    assert (
        client.post("/v1/render", json={"scene_id": "sample", "query": ranged}).status_code == 422
    )


@pytest.mark.parametrize(
    ("weapon", "valid"),
    [
        ({"normal_range": 30}, True),
        ({"long_range": 120}, True),
        ({"normal_range": 30, "long_range": None}, True),
        ({}, False),
        ({"normal_range": None, "long_range": None}, False),
    ],
)
def test_a_gravity_weapon_is_documented_with_one_range_or_both(spec, client, weapon, valid):
    """``"weapon": {}`` was documented and refused: "Give normal_range and/or long_range"."""
    rule = jsonschema.Draft4Validator({"anyOf": _schemas(spec)["GravityWeapon"]["anyOf"]})
    assert rule.is_valid(weapon) is valid
    body = {
        "ruleset": "dnd5e",
        "gravity": 2,
        "creature": {"str": 1, "dex": 2, "con": 3, "speed": 30},
        "weapon": weapon,
    }
    resp = client.post("/v1/modifiers/gravity", json=body)
    assert resp.status_code == (200 if valid else 422), resp.get_json()


def test_a_render_cover_query_without_attacker_or_area_is_documented_refused(spec):
    """``"attacker": null`` with ``"attack": null`` (null holds ``required``), or an area
    without an origin ("An area attack needs attack.origin or an attacker."), was documented.
    """
    rule = jsonschema.Draft4Validator({"oneOf": _schemas(spec)["RenderQuery"]["oneOf"]})
    query = {"type": "cover", "ruleset": "dnd5e", "target": "goblin"}
    attacks = ({"attack": None}, {}, {"attack": {"kind": "melee"}}, {"attack": {"kind": "area"}})
    for attack in attacks:
        assert not rule.is_valid({**query, "attacker": None, **attack})


def test_an_underwater_attacker_is_documented_only_with_an_attack(spec, client):
    """``attacker`` beside an ``effect`` was documented and refused: "Only with `attack`"."""
    rule = jsonschema.Draft4Validator({"oneOf": _schemas(spec)["UnderwaterRequest"]["oneOf"]})
    effect = {"kind": "freeze", "cold_damage": 0}
    body = {"ruleset": "dnd5e", "effect": effect, "attacker": {"swim_speed": 0}}
    assert not rule.is_valid(body)
    assert client.post("/v1/modifiers/underwater", json=body).status_code == 422
    del body["attacker"]
    assert rule.is_valid(body)
    assert client.post("/v1/modifiers/underwater", json=body).status_code == 200
    attack = {"kind": "melee", "weapon": "longsword"}
    with_attack = {"ruleset": "dnd5e", "attack": attack, "attacker": {"swim_speed": 0}}
    assert rule.is_valid(with_attack)
    assert client.post("/v1/modifiers/underwater", json=with_attack).status_code == 200
