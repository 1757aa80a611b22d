"""OpenAPI (issue 9): complete, with an example per endpoint that really works; docs page."""

from __future__ import annotations

import re

import pytest

from service import model
from service.app import create_app

OPERATIONS = [
    ("/v1/scenes", 200),
    ("/v1/cover", 200),
    ("/v1/line-of-effect", 200),
    ("/v1/line-of-sight", 200),
    ("/v1/modifiers/flanking", 200),
    ("/v1/vision", 200),
    ("/v1/lighting", 200),
    ("/v1/matrix", 200),
    ("/v1/modifiers/gravity", 200),
    ("/v1/modifiers/underwater", 200),
    ("/v1/modifiers/range", 200),
]


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


@pytest.fixture(scope="module")
def spec(client):
    return client.get("/openapi.json").get_json()


@pytest.mark.parametrize(("path", "status"), OPERATIONS)
def test_every_post_has_a_working_example(client, spec, path, status):
    body = spec["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    example = body["example"]
    resp = client.post(path, json=example)
    assert resp.status_code == status, resp.get_data(as_text=True)[:300]


def test_every_operation_documents_its_answer(spec):
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method == "parameters":
                continue
            assert "200" in op["responses"], (method, path)
            assert op.get("summary") or op.get("description"), (method, path)


def test_docs_page_serves_its_assets_locally(client):
    page = client.get("/docs")
    assert page.status_code == 200
    urls = re.findall(rb'(?:src|href)="([^"]+)"', page.data)
    assert urls and all(u.startswith(b"/docs/assets/") for u in urls)  # no CDN
    for url in urls:
        resp = client.get(url.decode())
        assert resp.status_code == 200
        resp.close()


@pytest.mark.parametrize(
    ("query", "code", "path"),
    [
        pytest.param(None, 200, None, id="scene only"),
        pytest.param(
            {"type": "cover", "ruleset": "dnd5e", "attacker": "archer", "target": "goblin"},
            200,
            None,
            id="cover",
        ),
        pytest.param(
            {"type": "vision", "ruleset": "pf2e-variant", "observer": "goblin", "target": "archer"},
            200,
            None,
            id="vision",
        ),
        pytest.param(
            {"type": "line-of-effect", "from": "archer", "to": {"point": [950, 100]}},
            200,
            None,
            id="line of effect",
        ),
        pytest.param(
            {"type": "cover", "ruleset": "dnd5e", "attacker": "archer"},
            422,
            ["query", "target"],
            id="missing target",
        ),
        pytest.param(
            {"type": "cover", "ruleset": "gurps", "attacker": "archer", "target": "goblin"},
            422,
            ["query", "ruleset"],
            id="unknown ruleset",
        ),
        pytest.param(
            {
                "type": "cover",
                "ruleset": "dnd5e",
                "attacker": "archer",
                "target": "goblin",
                "options": {"measure_from": "center"},
            },
            422,
            ["query", "options", "measure_from"],
            id="option of another ruleset",
        ),
        pytest.param(
            {"type": "cover", "ruleset": "dnd5e", "attacker": "nobody", "target": "goblin"},
            404,
            None,
            id="unknown token",
        ),
    ],
)
def test_render(client, query, code, path):
    body = {"scene_id": "sample"} if query is None else {"scene_id": "sample", "query": query}
    resp = client.post("/v1/render", json=body)
    assert resp.status_code == code, resp.get_data(as_text=True)[:300]
    if code == 200:
        assert resp.mimetype == "image/svg+xml"
        import xml.etree.ElementTree as ET

        root = ET.fromstring(resp.get_data(as_text=True))
        assert root.tag.endswith("svg")
    elif path:
        node = resp.get_json()["errors"]["json"]
        for key in path:
            node = node[key]


def test_only_our_schemas_and_the_error_shape_are_documented(spec):
    """No schema the API does not use (flask-smorest's pagination metadata) shows in /docs."""
    components = spec["components"]["schemas"]
    assert "PaginationMetadata" not in components
    assert set(components["Error"]["properties"]) == {"code", "status", "message", "errors"}
    assert "PAGINATION" not in spec["components"].get("headers", {})


def test_exclusive_bounds_are_documented_exclusive(spec):
    """The server refuses range_increment 0: OpenAPI says > 0; grid_distance is >= 0.001.

    grid_distance has the scene grid's bounds (``model.MIN_GRID_DISTANCE``), which the
    importers check: 1e-5 was documented (> 0) and refused by the Universal VTT importer.
    """
    props = spec["components"]["schemas"]["RangeRequest"]["properties"]
    assert props["range_increment"]["minimum"] == 0
    assert props["range_increment"]["exclusiveMinimum"] is True
    assert "exclusiveMinimum" not in props["distance"]  # distance 0 is accepted
    (param,) = (
        p
        for p in spec["paths"]["/v1/import/{fmt}"]["post"]["parameters"]
        if p["name"] == "grid_distance"
    )
    assert param["schema"]["minimum"] == model.MIN_GRID_DISTANCE
    assert "exclusiveMinimum" not in param["schema"]
