"""Rules across a request body's fields that the OpenAPI document says (``oneOf``, ``anyOf``).

The marshmallow schemas check these rules in ``validates_schema`` or ``pre_load`` methods,
which apispec cannot read: :func:`body_rules` writes them into a schema's OpenAPI definition
(called by ``service.http_errors.ContractPlugin``), from the schemas' own tables where they
have one (``EFFECT_FIELDS``, ``QUERY_FIELDS``). A request valid per the document is then not
refused for them (schemathesis' ST202 in ``tests/fuzz``). Rules OpenAPI 3.0 cannot say (ids
unique in a list, a level that must exist, an option of another ruleset) stay 422 answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.modifiers import EFFECT_FIELDS
from schemas.requests import QUERY_FIELDS

#: Fields of which a body gives exactly one side (the schemas' ``validates_schema`` rules:
#: "Give exactly one of ..."): (one side, the other side, fields only the other side may
#: give). A side is given when its first field is present and not null; its other fields
#: are required with it. Each side is one branch of a ``oneOf``.
EXCLUSIVE: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    (("scene",), ("scene_id",), ()),
    (("scene",), ("export", "format"), ("page",)),
    (("effect",), ("attack",), ("attacker",)),  # an attacker only with an attack
)


#: Not 0: above 0 beside the property's own ``minimum: 0`` (``model.Extent``). Not
#: ``exclusiveMinimum: true``, which JSON Schema validators past draft 4 refuse to compile
#: (schemathesis then checks no example of a body that holds a scene).
_POSITIVE = {"not": {"enum": [0]}}
#: What a region's ``Shape`` of each type needs (``service.model.Shape``, checked by
#: ``schemas.scene.ShapeSchema.complete``): a polygon three points or more, a rect a positive
#: width and height, a circle a positive radius. Each type is one branch of a ``oneOf``.
SHAPE_NEEDS: dict[str, dict[str, dict[str, Any]]] = {
    "polygon": {"points": {"minItems": 3}},
    "rect": {"width": _POSITIVE, "height": _POSITIVE},
    "circle": {"radius": _POSITIVE},
}


#: Fields of which a body gives at least one, not null (a list: not empty): the schemas'
#: "Give at least one point or token." and "Give normal_range and/or long_range.", by
#: schema. Each field is one branch of an ``anyOf``.
AT_LEAST_ONE: dict[str, tuple[str, ...]] = {
    "LightingRequest": ("points", "tokens"),
    "GravityWeapon": ("normal_range", "long_range"),
}


def _at_least_one(name: str, definition: dict) -> None:
    """The :data:`AT_LEAST_ONE` rule of schema ``name``, as ``anyOf``."""
    props = definition.get("properties") or {}
    branches = []
    for field in AT_LEAST_ONE.get(name, ()):
        branch = _given(field)
        if props.get(field, {}).get("type") == "array":
            branch["properties"][field]["minItems"] = 1
        branches.append(branch)
    if branches:
        definition["anyOf"] = branches


#: Schemas whose ``kind`` decides which fields they take: (required, optional) by kind
#: (``schemas.modifiers.EFFECT_FIELDS``, checked by ``UnderwaterEffectSchema``). Each kind is
#: one branch of a ``oneOf``: its required fields, and none of another kind's.
KIND_FIELDS: dict[str, Mapping[str, tuple[frozenset[str], frozenset[str]]]] = {
    "UnderwaterEffect": EFFECT_FIELDS,
}


def _kind_fields(name: str, definition: dict) -> None:
    """The :data:`KIND_FIELDS` of schema ``name``, as ``oneOf``."""
    if name not in KIND_FIELDS:
        return
    props = definition.get("properties") or {}
    branches = []
    for kind, (required, optional) in KIND_FIELDS[name].items():
        branch: dict[str, Any] = {
            "properties": {"kind": {"enum": [kind]}},
            "required": ["kind", *sorted(required)],
        }
        others = sorted(set(props) - required - optional - {"kind"})
        if others:
            branch["not"] = {"anyOf": [{"required": [other]} for other in others]}
        branches.append(branch)
    definition["oneOf"] = branches


#: Schemas whose ``type`` names the fields a body gives (present, not null): by schema, the
#: table ``RenderQuerySchema.fields_of_type`` checks (``QUERY_FIELDS``). Each type is one
#: branch of a ``oneOf``; ``attacker`` is not needed with an area attack with an origin.
TYPE_FIELDS: dict[str, Mapping[str, tuple[str, ...]]] = {"RenderQuery": QUERY_FIELDS}
#: "``attack`` is an area with an ``origin``", which needs no attacker (an object:
#: ``required`` holds of null too). Without either: "An area attack needs attack.origin or
#: an attacker." (``service.rules.planning``).
_AREA_ATTACK = {
    "required": ["attack"],
    "properties": {
        "attack": {
            "type": "object",
            "required": ["kind", "origin"],
            "properties": {"kind": {"enum": ["area"]}, "origin": {"type": "array"}},
        }
    },
}


def _type_fields(name: str, definition: dict) -> None:
    """The :data:`TYPE_FIELDS` of schema ``name``, as ``oneOf``."""
    if name not in TYPE_FIELDS:
        return
    branches = []
    for kind, needed in TYPE_FIELDS[name].items():
        needs = [
            {"anyOf": [_given(n), _AREA_ATTACK]} if n == "attacker" else _given(n) for n in needed
        ]
        branches.append({"properties": {"type": {"enum": [kind]}}, "allOf": needs})
    definition["oneOf"] = branches


def _shape_types(definition: dict) -> None:
    """The :data:`SHAPE_NEEDS` of each shape type in ``definition`` (``Shape``), as ``oneOf``."""
    definition["oneOf"] = [
        {
            "properties": {"type": {"enum": [kind]}, **needs},
            "required": ["type", *needs],
        }
        for kind, needs in SHAPE_NEEDS.items()
    ]


def _given(name: str) -> dict[str, Any]:
    """The schema of "``name`` is present and not null"."""
    return {"required": [name], "properties": {name: {"not": {"nullable": True, "enum": [None]}}}}


def _exclusive(definition: dict) -> None:
    """The :data:`EXCLUSIVE` rules that ``definition``'s properties hold, as ``oneOf``."""
    props = definition.get("properties") or {}
    for left, right, right_only in EXCLUSIVE:
        names = (*left, *right, *right_only)
        if not all(name in props for name in names) or "oneOf" in definition:
            continue
        definition["oneOf"] = [
            {
                "allOf": [_given(n) for n in one],
                "not": {"anyOf": [_given(n) for n in (other[0], *only)]},
            }
            for one, other, only in ((left, right, right_only), (right, left, ()))
        ]


def body_rules(name: str, definition: dict) -> None:
    """Every rule of this module that holds of schema ``name``, in ``definition``, in place."""
    _exclusive(definition)
    _at_least_one(name, definition)
    _kind_fields(name, definition)
    _type_fields(name, definition)
    if name == "Shape":
        _shape_types(definition)


__all__ = ["AT_LEAST_ONE", "EXCLUSIVE", "KIND_FIELDS", "SHAPE_NEEDS", "TYPE_FIELDS", "body_rules"]
