"""Issue 16: every string field of every request body, given an object or a list, is a 4xx.

Each string property of the OpenAPI document's request bodies is reached from the body's
root (through nested objects and arrays) in a body holding that one field; it is sent as
``{}`` and as ``[]``. The answer is a JSON error below 500 (a 500 here was
``effect.kind: {}`` of ``/v1/modifiers/underwater``). A component schema's field is tried
once, in the first operation that reaches it.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.app import create_app
from tests.api.test_api import assert_error

APP = create_app()
SPEC = APP.test_client().get("/openapi.json").get_json()


def _resolve(schema: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    ref = schema.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        return SPEC["components"]["schemas"][name], name
    for key in ("allOf", "oneOf", "anyOf"):
        if schema.get(key):
            return _resolve(schema[key][0])
    return schema, None


def _string_paths(
    schema: dict[str, Any], path: tuple[Any, ...], owner: str, seen: set[tuple[str, str]]
) -> list[tuple[tuple[Any, ...], str]]:
    schema, name = _resolve(schema)
    owner = name or owner
    found = []
    if schema.get("type") == "array" and "items" in schema:
        return _string_paths(schema["items"], (*path, 0), owner, seen)
    for prop, sub in (schema.get("properties") or {}).items():
        resolved, sub_name = _resolve(sub)
        key = (owner, prop)
        if key in seen:
            continue
        seen.add(key)
        kind = resolved.get("type")
        if kind == "string" or (kind is None and "enum" in resolved):
            found.append(((*path, prop), f"{owner}.{prop}"))
        found += _string_paths(sub, (*path, prop), sub_name or owner, seen)
    return found


def _cases() -> list[Any]:
    seen: set[tuple[str, str]] = set()
    cases = []
    for url, ops in SPEC["paths"].items():
        for op in ops.values():
            if not isinstance(op, dict) or "requestBody" not in op:
                continue
            body = op["requestBody"]["content"].get("application/json", {}).get("schema")
            if not body:
                continue
            url_filled = url.replace("{fmt}", "foundry")
            for path, label in _string_paths(body, (), url, seen):
                cases.append(pytest.param(url_filled, path, id=f"{url_filled} {label}"))
    return cases


CASES = _cases()


def _body(path: tuple[Any, ...], value: Any) -> Any:
    node = value
    for key in reversed(path):
        node = [node] if isinstance(key, int) else {key: node}
    return node


def test_the_walk_finds_the_fields_that_failed():
    labels = {c.id for c in CASES}
    assert any(label.endswith(".kind") and "underwater" in label for label in labels)
    assert len(CASES) > 50


@pytest.mark.parametrize(("url", "path"), CASES)
def test_a_string_field_given_an_object_or_a_list_is_a_4xx(url, path):
    client = APP.test_client()
    for value in ({}, []):
        resp = client.post(url, json=_body(path, value))
        assert 400 <= resp.status_code < 500, (value, resp.get_data(as_text=True)[:300])
        assert_error(resp, resp.status_code)
