"""docs/api.md's reference part, written from the service's own ``/openapi.json``.

``python -m tests.project.api_doc`` rewrites the part of ``docs/api.md`` between
:data:`BEGIN` and :data:`END` (every operation, then every schema with its fields);
``tests/project/test_api_doc.py`` fails while the page and the document differ. The part
above the markers is written by hand (concepts, errors, scenes) and is left as it is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "api.md"
BEGIN = "<!-- reference: written by `python -m tests.project.api_doc` from /openapi.json -->"
END = "<!-- end of reference -->"
METHODS = ("get", "post", "put", "patch", "delete")


def openapi() -> dict[str, Any]:
    """The app's OpenAPI document, as ``GET /openapi.json`` answers it (default settings)."""
    from service.app import create_app

    return create_app().test_client().get("/openapi.json").get_json()  # type: ignore[no-any-return]


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(METHOD, path, operation)`` of every operation, in the document's order."""
    return [
        (method.upper(), path, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in METHODS
    ]


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _type(schema: dict[str, Any]) -> str:
    """A schema's type in a few words: ``string``, ``array of [Wall](#wall)``, ``one of a|b``."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in schema or "oneOf" in schema:
        kinds = [_type(s) for s in schema.get("anyOf", schema.get("oneOf", []))]
        return " or ".join(k for k in kinds if k != "object") or "object"
    kind = schema.get("type", "any")
    if kind == "array":
        kind = f"array of {_type(schema.get('items', {}))}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        kind = f"object of {_type(schema['additionalProperties'])}"
    elif kind == "object" and schema.get("properties"):  # inline: its keys (and their type)
        props = schema["properties"]
        kind = "object with " + ", ".join(f"`{name}`" for name in props)
        values = {_type(prop) for prop in props.values()}
        kind += f": {values.pop()}" if len(values) == 1 else ""
    if "enum" in schema:
        kind += ": " + ", ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    return kind


def _facts(schema: dict[str, Any], required: bool) -> str:
    """Required, nullable, default and bounds of a field, in a few words."""
    facts = ["**required**"] if required else []
    if schema.get("nullable"):
        facts.append("may be null")
    if "default" in schema and schema["default"] is not None:
        facts.append(f"default `{json.dumps(schema['default'])}`")
    for key, word in (("minimum", "≥"), ("maximum", "≤"), ("minItems", "items ≥")):
        if key in schema:
            exclusive = schema.get("exclusive" + key[0].upper() + key[1:]) is True
            facts.append(f"{'>' if exclusive and word == '≥' else word} {schema[key]}")
    if "maxItems" in schema:
        facts.append(f"items ≤ {schema['maxItems']}")
    return "; ".join(facts)


def _fields(schema: dict[str, Any]) -> list[str]:
    props = schema.get("properties") or {}
    if not props:
        return []
    required = set(schema.get("required", ()))
    rows = ["| field | type | notes |", "| --- | --- | --- |"]
    for name, prop in props.items():
        notes = " — ".join(
            p for p in (_facts(prop, name in required), _cell(prop.get("description", ""))) if p
        )
        rows.append(f"| `{name}` | {_cell(_type(prop))} | {notes} |")
    return rows


def _parameters(op: dict[str, Any], item: dict[str, Any]) -> list[str]:
    params = [*item.get("parameters", ()), *op.get("parameters", ())]
    if not params:
        return []
    rows = ["| parameter | in | type | notes |", "| --- | --- | --- | --- |"]
    for p in params:
        schema = p.get("schema", {})
        notes = " — ".join(
            x
            for x in (_facts(schema, p.get("required", False)), _cell(p.get("description", "")))
            if x
        )
        rows.append(f"| `{p['name']}` | {p['in']} | {_cell(_type(schema))} | {notes} |")
    return rows


def _body(op: dict[str, Any]) -> list[str]:
    body = op.get("requestBody")
    if not body:
        return []
    out = []
    for media, content in body.get("content", {}).items():
        schema = content.get("schema") or {}
        kind = _type(schema) if schema else "the file as it is"
        out.append(f"Body ({media}): {kind}.")
    return [" ".join(out)]


def _responses(op: dict[str, Any]) -> list[str]:
    rows = ["| status | body | when |", "| --- | --- | --- |"]
    for code, response in sorted(op["responses"].items()):
        if code == "default":
            continue
        content = response.get("content", {})
        kinds = [
            f"{_type(c['schema'])}" if c.get("schema", {}).get("$ref") else media
            for media, c in content.items()
        ]
        rows.append(f"| {code} | {', '.join(kinds) or '—'} | {_cell(response['description'])} |")
    return rows


def reference(spec: dict[str, Any]) -> str:
    """The reference part of docs/api.md for ``spec``: operations, then schemas."""
    lines = ["## Operations", ""]
    lines += ["| operation | operationId | summary |", "| --- | --- | --- |"]
    for method, path, op in operations(spec):
        anchor = f"{method} {path}".lower().replace(" ", "-")
        anchor = "".join(c for c in anchor if c.isalnum() or c in "-_")
        lines.append(
            f"| [`{method} {path}`](#{anchor}) | `{op['operationId']}` | {_cell(op['summary'])} |"
        )
    for method, path, op in operations(spec):
        lines += ["", f"### {method} {path}", ""]
        lines += [f"`{op['operationId']}` — {op['summary']}"]
        if op.get("description"):
            lines += ["", op["description"].strip()]
        security = "none (always open)" if op.get("security") == [] else "optional API key"
        lines += ["", f"Security: {security}."]
        for block in (_parameters(op, spec["paths"][path]), _body(op), _responses(op)):
            if block:
                lines += ["", *block]
    lines += ["", "## Schemas"]
    for name, schema in spec["components"]["schemas"].items():
        lines += ["", f"### {name}", ""]
        if schema.get("description"):
            lines += [_cell(schema["description"]), ""]
        rows = _fields(schema)
        lines += rows or [f"Type: {_type(schema)}."]
        if schema.get("additionalProperties") is False and rows:
            lines += ["", "No other field is accepted (422 naming it)."]
    return "\n".join(lines) + "\n"


def page_with(reference_text: str, page: str) -> str:
    """``page`` with the part between the markers replaced by ``reference_text``."""
    head, sep, rest = page.partition(BEGIN)
    if not sep or END not in rest:
        raise ValueError(f"docs/api.md lacks the markers {BEGIN!r} ... {END!r}")
    tail = rest.split(END, 1)[1]
    return f"{head}{BEGIN}\n\n{reference_text}\n{END}{tail}"


if __name__ == "__main__":
    text = page_with(reference(openapi()), PAGE.read_text("utf-8"))
    PAGE.write_text(text, "utf-8")
    print(f"wrote {PAGE} ({len(text.splitlines())} lines)", file=sys.stderr)
