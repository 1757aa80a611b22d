"""The OpenAPI document as a client generator reads it: valid, named, with errors and security.

A generated client names its functions by ``operationId``, parses error bodies only where a
response has a schema, and learns the API key from ``securitySchemes``; ``/docs`` shows
``info.description`` as the overview and the summaries as written (Markdown, not the
docstrings' reStructuredText).
"""

from __future__ import annotations

import pytest

from service.app import create_app
from service.http_errors import OPEN_PATHS, SECURITY_SCHEME

ERROR_REF = {"$ref": "#/components/schemas/Error"}


@pytest.fixture(scope="module")
def spec():
    return create_app().test_client().get("/openapi.json").get_json()


def operations(spec):
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method != "parameters":
                yield path, method, op


def test_the_document_validates(spec):
    validator = pytest.importorskip(
        "openapi_spec_validator", reason="openapi-spec-validator is not installed (dev extra)"
    )
    validator.validate(spec)


def test_every_operation_has_a_unique_operation_id(spec):
    ids = [op.get("operationId") for _, _, op in operations(spec)]
    assert None not in ids
    assert len(ids) == len(set(ids))


def test_every_error_answer_has_the_error_schema(spec):
    for path, method, op in operations(spec):
        for code, response in op["responses"].items():
            if code[0] in "45":
                assert response["content"]["application/json"]["schema"] == ERROR_REF, (
                    method,
                    path,
                    code,
                )


def test_every_operation_but_the_probes_names_its_4xx_and_the_api_key(spec):
    schemes = spec["components"]["securitySchemes"]
    assert schemes[SECURITY_SCHEME] == {
        **schemes[SECURITY_SCHEME],
        "type": "http",
        "scheme": "bearer",
    }
    for path, method, op in operations(spec):
        if path in OPEN_PATHS:
            assert op["security"] == [], path
            continue
        assert {SECURITY_SCHEME: []} in op["security"], (method, path)
        assert "401" in op["responses"], (method, path)
        if "requestBody" in op:
            assert {"400", "413", "415", "422"} <= set(op["responses"]), (method, path)


def test_summaries_are_markdown_and_the_overview_is_there(spec):
    assert "POST /v1/scenes" in spec["info"]["description"]
    for path, method, op in operations(spec):
        for key in ("summary", "description"):
            assert "``" not in op.get(key, ""), (method, path, key)
    assert "shared/" not in spec["info"]["description"]


def test_a_401_answers_the_documented_shape():
    locked = create_app({"API_KEYS": ["k"]}).test_client()
    resp = locked.post("/v1/cover", json={})
    assert resp.status_code == 401
    assert set(resp.get_json()) == {"code", "status", "message", "errors"}
