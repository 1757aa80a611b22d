"""Schemas of ``PATCH /v1/scenes/{scene_id}``: a change to a stored scene, and its answer.

The body is a JSON merge patch (RFC 7386) per collection, by id: ``{"tokens": {"goblin":
{"x": 700}}, "walls": {"door-3": {"door_state": "open"}}, "lights": {"torch-2": {"on":
false}}, "regions": {...}, "environment": {...}}``. For an id the scene holds, the object's
fields replace the item's (nested objects such as ``senses`` or ``threshold`` merge the same
way, ``null`` restores a field's default); an id it does not hold adds the object as a whole
new item (appended after the others, in the body's order); ``null`` for an id removes it.
This module checks the body's shape and bounds; each changed item is then loaded by its own
schema (``schemas.scene``: ``TokenSchema`` ...), which names every error with its path.
"""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validates_schema

from schemas.scene import LightSchema, RegionSchema, TokenSchema, WallSchema

#: Most items one change may name, over all its collections (the environment counts one):
#: a table's burst of moves is a few; a change that rewrites more is a new scene
#: (``POST /v1/scenes``), whose own limits apply.
MAX_CHANGE_ITEMS = 1000

#: The item schema of each collection a change edits by id, in ``model.Scene`` order.
ITEM_SCHEMAS: dict[str, type[Schema]] = {
    "walls": WallSchema,
    "tokens": TokenSchema,
    "lights": LightSchema,
    "regions": RegionSchema,
}


class _Edits(fields.Dict):
    """A collection's edits: item id to an object (merge patch or new item) or ``null``."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(
            keys=fields.String(validate=lambda s: len(s) >= 1),
            # OpenAPI: each value is an object or null, as ``_deserialize`` checks.
            values=fields.Raw(allow_none=True, metadata={"type": "object"}),
            load_default=dict,
            **kw,
        )

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        out = super()._deserialize(value, attr, data, **kwargs)
        wrong = {
            k: ["Must be an object (the item's changed fields) or null (remove it)."]
            for k, v in out.items()
            if v is not None and not isinstance(v, dict)
        }
        if wrong:
            raise ValidationError(wrong)
        return out


class ScenePatchSchema(Schema):
    """The body of ``PATCH /v1/scenes/{scene_id}`` (module docstring)."""

    class Meta:
        unknown = RAISE

    walls = _Edits(metadata={"description": "Wall id to its changed fields, a new wall, or null."})
    tokens = _Edits(
        metadata={"description": "Token id to its changed fields, a new token, or null."}
    )
    lights = _Edits(
        metadata={"description": "Light id to its changed fields, a new light, or null."}
    )
    regions = _Edits(
        metadata={"description": "Region id to its changed fields, a new region, or null."}
    )
    environment = fields.Dict(
        load_default=None,
        metadata={"description": "Changed fields of the environment (light, gravity, underwater)."},
    )

    @validates_schema
    def bounded(self, data: dict[str, Any], **_: Any) -> None:
        count = sum(len(data.get(k) or {}) for k in ITEM_SCHEMAS) + (
            data.get("environment") is not None
        )
        if count > MAX_CHANGE_ITEMS:
            raise ValidationError(
                f"A change may name at most {MAX_CHANGE_ITEMS} items; this one names {count}: "
                "upload the whole scene instead (POST /v1/scenes).",
                "_schema",
            )


class ScenePatchStatsSchema(Schema):
    walls = fields.Integer()
    doors = fields.Integer()
    tokens = fields.Integer()
    lights = fields.Integer()
    regions = fields.Integer()
    changed = fields.Integer(metadata={"description": "Items the change named."})


class ScenePatchResponseSchema(Schema):
    scene_id = fields.String(
        required=True,
        metadata={"description": "Id of the changed scene: the id a whole upload of it gets."},
    )
    parent = fields.String(
        required=True, metadata={"description": "The scene changed (kept as it was)."}
    )
    stats = fields.Nested(ScenePatchStatsSchema, required=True)
    warnings = fields.List(fields.String(), required=True)


def merged(old: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """``old`` with the JSON merge patch ``patch`` applied (RFC 7386): a new dict.

    ``null`` removes a field (its default applies again); objects merge field by field.
    O(fields of ``patch``).
    """
    out = dict(old)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


__all__ = [
    "ITEM_SCHEMAS",
    "MAX_CHANGE_ITEMS",
    "ScenePatchResponseSchema",
    "ScenePatchSchema",
    "merged",
]
