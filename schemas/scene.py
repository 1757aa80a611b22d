"""Marshmallow schema of the canonical scene (``shared/DESIGN.md``, "Canonical scene").

``SceneSchema().load(data)`` validates a scene dict and returns a ``service.model.Scene``.
Unknown fields are rejected with their path; NaN and infinities are rejected everywhere;
grid size and distance must be positive; ids must be unique per kind. Every other field has
the default documented on ``service.model``.
"""

from __future__ import annotations

from typing import Any

from marshmallow import (
    RAISE,
    Schema,
    ValidationError,
    fields,
    post_load,
    validate,
    validates_schema,
)

from service import model


def _num(**kw: Any) -> fields.Float:
    """A finite float field (NaN and infinities rejected)."""
    return fields.Float(allow_nan=False, **kw)


def _restriction() -> fields.String:
    return fields.String(load_default="normal", validate=validate.OneOf(model.RESTRICTIONS))


class StrictSchema(Schema):
    """Base: unknown fields raise, so typos fail loudly."""

    class Meta:
        unknown = RAISE


class GridSchema(StrictSchema):
    size = _num(required=True, validate=validate.Range(min=0, min_inclusive=False))
    distance = _num(load_default=5.0, validate=validate.Range(min=0, min_inclusive=False))
    units = fields.String(load_default="ft", validate=validate.OneOf(["ft", "m"]))
    type = fields.String(
        load_default="square", validate=validate.OneOf(["square", "gridless", "hex-row", "hex-col"])
    )
    diagonals = fields.String(
        load_default="equidistant",
        validate=validate.OneOf(["equidistant", "alternating", "euclidean"]),
    )

    @post_load
    def make(self, data: dict, **_: Any) -> model.Grid:
        return model.Grid(**data)


class EnvironmentSchema(StrictSchema):
    light = fields.String(load_default="bright", validate=validate.OneOf(model.LIGHT_LEVELS))
    gravity = _num(load_default=1.0, validate=validate.Range(min=0))
    underwater = fields.Boolean(load_default=False)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Environment:
        return model.Environment(**data)


class ThresholdSchema(StrictSchema):
    sight = _num(load_default=None, allow_none=True, validate=validate.Range(min=0))
    light = _num(load_default=None, allow_none=True, validate=validate.Range(min=0))
    sound = _num(load_default=None, allow_none=True, validate=validate.Range(min=0))

    @post_load
    def make(self, data: dict, **_: Any) -> model.Threshold:
        return model.Threshold(**data)


class SpanSchema(StrictSchema):
    bottom = _num(load_default=None, allow_none=True)
    top = _num(load_default=None, allow_none=True)

    @validates_schema
    def ordered(self, data: dict, **_: Any) -> None:
        if data.get("bottom") is not None and data.get("top") is not None:
            if data["bottom"] > data["top"]:
                raise ValidationError("Must not be above top.", "bottom")

    @post_load
    def make(self, data: dict, **_: Any) -> model.Span:
        return model.Span(**data)


class WallSchema(StrictSchema):
    id = fields.String(required=True, validate=validate.Length(min=1))
    c = fields.List(_num(), required=True, validate=validate.Length(equal=4))
    move = _restriction()
    sight = _restriction()
    light = _restriction()
    sound = _restriction()
    threshold = fields.Nested(ThresholdSchema, load_default=None, allow_none=True)
    direction = fields.String(
        load_default="both", validate=validate.OneOf(["both", "left", "right"])
    )
    door = fields.String(load_default="none", validate=validate.OneOf(["none", "door", "secret"]))
    door_state = fields.String(
        load_default="closed", validate=validate.OneOf(["closed", "open", "locked"])
    )
    height = fields.Nested(SpanSchema, load_default=None, allow_none=True)
    cover = fields.String(
        load_default="normal", validate=validate.OneOf(["normal", "low", "improved", "extreme"])
    )
    hp = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=0))
    ac = fields.Integer(load_default=None, allow_none=True)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Wall:
        data["c"] = tuple(data["c"])
        return model.Wall(**data)


class SensesSchema(StrictSchema):
    darkvision = _num(load_default=0.0, validate=validate.Range(min=0))
    devils_sight = _num(load_default=0.0, validate=validate.Range(min=0))
    truesight = _num(load_default=0.0, validate=validate.Range(min=0))
    blindsight = _num(load_default=0.0, validate=validate.Range(min=0))
    tremorsense = _num(load_default=0.0, validate=validate.Range(min=0))
    xray = _num(load_default=0.0, validate=validate.Range(min=0))
    low_light_vision = fields.Boolean(load_default=False)
    see_invisibility = _num(load_default=0.0, validate=validate.Range(min=0))
    hearing = _num(load_default=None, allow_none=True, validate=validate.Range(min=0))

    @post_load
    def make(self, data: dict, **_: Any) -> model.Senses:
        return model.Senses(**data)


class AbilitiesSchema(StrictSchema):
    str = fields.Integer(load_default=0)
    dex = fields.Integer(load_default=0)
    con = fields.Integer(load_default=0)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Abilities:
        return model.Abilities(**data)


class CarriedLightSchema(StrictSchema):
    bright = _num(load_default=0.0, validate=validate.Range(min=0))
    dim = _num(load_default=0.0, validate=validate.Range(min=0))

    @post_load
    def make(self, data: dict, **_: Any) -> model.CarriedLight:
        return model.CarriedLight(**data)


class TokenSchema(StrictSchema):
    id = fields.String(required=True, validate=validate.Length(min=1))
    name = fields.String(load_default=None, allow_none=True)
    x = _num(required=True)
    y = _num(required=True)
    width = _num(load_default=1.0, validate=validate.Range(min=0, min_inclusive=False))
    height = _num(load_default=1.0, validate=validate.Range(min=0, min_inclusive=False))
    elevation = _num(load_default=0.0)
    size = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(model.SIZES))
    reach = _num(load_default=5.0, validate=validate.Range(min=0))
    senses = fields.Nested(SensesSchema, load_default=model.Senses)
    conditions = fields.List(fields.String(), load_default=list)
    swim_speed = _num(load_default=0.0, validate=validate.Range(min=0))
    abilities = fields.Nested(AbilitiesSchema, load_default=model.Abilities)
    light = fields.Nested(CarriedLightSchema, load_default=model.CarriedLight)
    hidden = fields.Boolean(load_default=False)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Token:
        if data["name"] is None:
            data["name"] = data["id"]
        if data["size"] is None:
            data["size"] = model.size_from_width(data["width"])
        data["conditions"] = tuple(data["conditions"])
        return model.Token(**data)


class LightSchema(StrictSchema):
    id = fields.String(required=True, validate=validate.Length(min=1))
    x = _num(required=True)
    y = _num(required=True)
    bright = _num(load_default=0.0, validate=validate.Range(min=0))
    dim = _num(load_default=0.0, validate=validate.Range(min=0))
    angle = _num(load_default=360.0, validate=validate.Range(min=0, max=360))
    rotation = _num(load_default=0.0)
    darkness = fields.Boolean(load_default=False)
    walls = fields.Boolean(load_default=True)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Light:
        return model.Light(**data)


class ShapeSchema(StrictSchema):
    type = fields.String(required=True, validate=validate.OneOf(["polygon", "rect", "circle"]))
    points = fields.List(fields.List(_num(), validate=validate.Length(equal=2)), load_default=list)
    x = _num(load_default=0.0)
    y = _num(load_default=0.0)
    width = _num(load_default=0.0, validate=validate.Range(min=0))
    height = _num(load_default=0.0, validate=validate.Range(min=0))
    radius = _num(load_default=0.0, validate=validate.Range(min=0))

    @validates_schema
    def complete(self, data: dict, **_: Any) -> None:
        kind = data.get("type")
        if kind == "polygon" and len(data.get("points", [])) < 3:
            raise ValidationError("A polygon needs at least 3 points.", "points")
        if kind == "rect" and (data.get("width", 0) <= 0 or data.get("height", 0) <= 0):
            raise ValidationError("A rect needs a positive width and height.", "width")
        if kind == "circle" and data.get("radius", 0) <= 0:
            raise ValidationError("A circle needs a positive radius.", "radius")

    @post_load
    def make(self, data: dict, **_: Any) -> model.Shape:
        data["points"] = tuple((p[0], p[1]) for p in data["points"])
        return model.Shape(**data)


class RegionSchema(StrictSchema):
    id = fields.String(required=True, validate=validate.Length(min=1))
    shape = fields.Nested(ShapeSchema, required=True)
    obscurement = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf(["light", "heavy"])
    )
    concealment = fields.Boolean(load_default=False)
    magical_darkness = fields.Boolean(load_default=False)
    water = fields.Boolean(load_default=False)
    gravity = _num(load_default=None, allow_none=True, validate=validate.Range(min=0))
    elevation = fields.Nested(SpanSchema, load_default=None, allow_none=True)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Region:
        return model.Region(**data)


class SceneSchema(StrictSchema):
    """The canonical scene; ``load`` returns a ``service.model.Scene``."""

    grid = fields.Nested(GridSchema, required=True)
    width = _num(load_default=None, allow_none=True, validate=validate.Range(min=0))
    height = _num(load_default=None, allow_none=True, validate=validate.Range(min=0))
    environment = fields.Nested(EnvironmentSchema, load_default=model.Environment)
    walls = fields.List(fields.Nested(WallSchema), load_default=list)
    tokens = fields.List(fields.Nested(TokenSchema), load_default=list)
    lights = fields.List(fields.Nested(LightSchema), load_default=list)
    regions = fields.List(fields.Nested(RegionSchema), load_default=list)

    @validates_schema
    def unique_ids(self, data: dict, **_: Any) -> None:
        errors: dict[str, dict[int, dict[str, list[str]]]] = {}
        for kind in ("walls", "tokens", "lights", "regions"):
            seen: set[str] = set()
            for i, item in enumerate(data.get(kind, [])):
                if item.id in seen:
                    errors.setdefault(kind, {})[i] = {"id": [f"Duplicate id {item.id!r}."]}
                seen.add(item.id)
        if errors:
            raise ValidationError(errors)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Scene:
        for kind in ("walls", "tokens", "lights", "regions"):
            data[kind] = tuple(data[kind])
        return model.Scene(**data)
