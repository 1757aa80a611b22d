"""The OpenAPI document says what the server refuses (schemathesis' ``positive_data_acceptance``,
ST202: a body the document accepts must not be refused for a documented reason).

Kinds found by schemathesis and closed in the document (``service.http_errors.ContractPlugin``):

- the scene limits (``SIGHTLINE_MAX_WALLS`` ... and ``SIGHTLINE_MAX_TARGETS``) as ``maxItems``
  of this server's values;
- a nested object that may be null (``scene``, ``effect`` ...) accepted *any* object (apispec's
  ``{"type": "object", "nullable": true}`` branch): now the nested schema or null;
- "exactly one of ``scene`` or ``scene_id``" (and ``scene`` or ``format`` + ``export``,
  ``attack`` or ``effect``) as a ``oneOf``;
- ``ruleset`` as the known rulesets (or the one a modifier answers for).
"""

from __future__ import annotations

import pytest

from service.app import create_app
from service.http_errors import SCENE_LIST_LIMITS
from service.model import MAX_POLYGON_POINTS, RULESET_IDS


@pytest.fixture(scope="module")
def schemas():
    app = create_app({"MAX_WALLS": 777, "MAX_TARGETS": 33, "MAX_REGION_POINTS": 4321})
    return app.test_client().get("/openapi.json").get_json()["components"]["schemas"]


def _walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def test_the_scene_limits_of_this_server_are_max_items(schemas):
    props = schemas["Scene"]["properties"]
    assert props["walls"]["maxItems"] == 777
    assert "SIGHTLINE_MAX_WALLS" in props["walls"]["description"]
    for prop, key in SCENE_LIST_LIMITS:
        assert f"SIGHTLINE_{key}" in props[prop]["description"], prop
    assert schemas["Shape"]["properties"]["points"]["maxItems"] == 4321
    loose = create_app({"MAX_REGION_POINTS": 10**6}).test_client().get("/openapi.json")
    points = loose.get_json()["components"]["schemas"]["Shape"]["properties"]["points"]
    assert points["maxItems"] == MAX_POLYGON_POINTS  # the schema's own bound, lower
    for name in ("CoverRequest", "VisionRequest"):
        assert schemas[name]["properties"]["targets"]["maxItems"] == 33, name


def test_no_branch_accepts_any_object(schemas):
    for node in _walk(schemas):
        for branch in node.get("anyOf", ()):
            if branch.get("type") == "object" and "properties" not in branch:
                assert branch.get("enum") == [None], node


def _given(name):
    return {"required": [name], "properties": {name: {"not": {"nullable": True, "enum": [None]}}}}


@pytest.mark.parametrize(
    ("name", "left", "right", "only"),
    [
        ("CoverRequest", ["scene"], ["scene_id"], []),
        ("LineRequest", ["scene"], ["scene_id"], []),
        ("MatrixRequest", ["scene"], ["scene_id"], []),
        ("SceneUpload", ["scene"], ["export", "format"], ["page"]),
        ("UnderwaterRequest", ["effect"], ["attack"], ["attacker"]),  # attacker: with attack
    ],
)
def test_exactly_one_side_is_a_one_of(schemas, name, left, right, only):
    one_of = schemas[name]["oneOf"]
    assert one_of[0]["allOf"] == [_given(n) for n in left]
    assert one_of[0]["not"] == {"anyOf": [_given(n) for n in [right[0], *only]]}
    assert one_of[1]["allOf"] == [_given(n) for n in right]
    assert one_of[1]["not"] == {"anyOf": [_given(left[0])]}


def test_ruleset_lists_the_rulesets(schemas):
    assert schemas["CoverRequest"]["properties"]["ruleset"]["enum"] == sorted(RULESET_IDS)
    assert schemas["UnderwaterRequest"]["properties"]["ruleset"]["enum"] == ["dnd5e"]
    assert schemas["RangeRequest"]["properties"]["ruleset"]["enum"] == ["pf2e-variant"]


def test_the_document_is_still_valid_openapi():
    validator = pytest.importorskip("openapi_spec_validator")
    spec = create_app().test_client().get("/openapi.json").get_json()
    validator.validate(spec)
