"""Marshmallow schema of the canonical scene (``docs/api.md``, "Scene").

``SceneSchema().load(data)`` validates a scene dict (JSON values: dicts, lists, strings,
numbers, booleans, null) and returns a ``service.model.Scene``; it also takes the scene that
``decode_json_body`` decoded from a request's bytes. Unknown fields are rejected with their
path; NaN and infinities are rejected everywhere; booleans are ``true``/``false`` only; grid
ids must be unique per kind. Every bound (ranges, lengths, choices) is read from the
annotations of ``service.model`` (``schemas.bounds``), which declares them once; every other
field has the default documented on ``service.model``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from itertools import chain
from typing import Any

import msgspec
from marshmallow import (
    RAISE,
    Schema,
    ValidationError,
    fields,
    post_load,
    pre_load,
    validate,
    validates_schema,
)

from schemas.bounds import choices, item_range, length, number_range
from schemas.size import SceneSize, size_of_body
from service import model


class Number(fields.Float):
    """A finite JSON number: strings, booleans, NaN and infinities are rejected."""

    default_error_messages = {"invalid": "Not a valid number."}

    def _validated(self, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid")
        return super()._validated(value)


class Flag(fields.Boolean):
    """A JSON boolean: ``true``/``false`` only (not ``1``, ``"yes"``)."""

    default_error_messages = {"invalid": "Not a valid boolean (true or false)."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


def _num(**kw: Any) -> Number:
    """A finite number field (NaN, infinities and numbers in strings rejected)."""
    return Number(allow_nan=False, **kw)


def _bounded(owner: Any, name: str, **kw: Any) -> Number:
    """A finite number field with the range of field ``name`` of the model Struct ``owner``."""
    return _num(validate=number_range(owner, name), **kw)


def _int(owner: Any, name: str, **kw: Any) -> fields.Integer:
    """A JSON integer field with the range of field ``name`` of the model Struct ``owner``."""
    return fields.Integer(strict=True, validate=number_range(owner, name), **kw)


def _choice(owner: Any, name: str, **kw: Any) -> fields.String:
    """A string field holding one of the ``Literal`` values of the model field."""
    return fields.String(validate=choices(owner, name), **kw)


def _id() -> fields.String:
    return fields.String(required=True, validate=length(model.Wall, "id"))


def _level() -> fields.String:
    """The id of the level an item belongs to (GEO-10), or null."""
    return fields.String(load_default=None, allow_none=True, validate=length(model.Wall, "level"))


def _restriction() -> fields.String:
    return fields.String(load_default="normal", validate=choices(model.Restriction))


class StrictSchema(Schema):
    """Base: unknown fields raise, so typos fail loudly."""

    class Meta:
        unknown = RAISE


class GridSchema(StrictSchema):
    size = _bounded(model.Grid, "size", required=True)
    distance = _bounded(model.Grid, "distance", load_default=5.0)
    units = _choice(model.Grid, "units", load_default="ft")
    type = _choice(model.Grid, "type", load_default="square")
    diagonals = _choice(model.Grid, "diagonals", load_default=None, allow_none=True)
    hex_offset = _choice(model.Grid, "hex_offset", load_default="odd")

    @pre_load
    def spaces(self, data: Any, **_: Any) -> Any:
        """A blank unit or a count of spaces (``""``, ``hexes`` ...) is ``squares`` (GEO-8)."""
        units = data.get("units") if isinstance(data, dict) else None
        if isinstance(units, str) and units.strip().lower() in model.SPACE_UNIT_NAMES:
            return {**data, "units": "squares"}
        return data

    @post_load
    def make(self, data: dict, **_: Any) -> model.Grid:
        return model.Grid(**data)


class EnvironmentSchema(StrictSchema):
    light = _choice(model.Environment, "light", load_default="bright")
    gravity = _bounded(model.Environment, "gravity", load_default=1.0)
    underwater = Flag(load_default=False)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Environment:
        return model.Environment(**data)


class ThresholdSchema(StrictSchema):
    sight = _bounded(model.Threshold, "sight", load_default=None, allow_none=True)
    light = _bounded(model.Threshold, "light", load_default=None, allow_none=True)
    sound = _bounded(model.Threshold, "sound", load_default=None, allow_none=True)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Threshold:
        return model.Threshold(**data)


class SpanSchema(StrictSchema):
    bottom = _bounded(model.Span, "bottom", load_default=None, allow_none=True)
    top = _bounded(model.Span, "top", load_default=None, allow_none=True)

    @validates_schema
    def ordered(self, data: dict, **_: Any) -> None:
        if data.get("bottom") is not None and data.get("top") is not None:
            if data["bottom"] > data["top"]:
                raise ValidationError("Must not be above top.", "bottom")

    @post_load
    def make(self, data: dict, **_: Any) -> model.Span:
        return model.Span(**data)


#: Wall fields holding one of a few strings (``Literal`` in ``model.Wall``).
_WALL_ENUMS = ("move", "sight", "light", "sound", "direction", "door", "door_state", "cover")


class WallSchema(StrictSchema):
    id = _id()
    c = fields.List(
        _num(validate=item_range(model.Wall, "c")),
        required=True,
        validate=length(model.Wall, "c"),
    )
    move = _restriction()
    sight = _restriction()
    light = _restriction()
    sound = _restriction()
    threshold = fields.Nested(ThresholdSchema, load_default=None, allow_none=True)
    direction = _choice(model.Wall, "direction", load_default="both")
    door = _choice(model.Wall, "door", load_default="none")
    door_state = _choice(model.Wall, "door_state", load_default="closed")
    height = fields.Nested(SpanSchema, load_default=None, allow_none=True)
    cover = _choice(model.Wall, "cover", load_default="normal")
    hp = _int(model.Wall, "hp", load_default=None, allow_none=True)
    ac = _int(model.Wall, "ac", load_default=None, allow_none=True)
    level = _level()

    @post_load
    def make(self, data: dict, **_: Any) -> model.Wall:
        data["c"] = tuple(data["c"])
        for key in _WALL_ENUMS:  # the model's own string objects, as msgspec decodes them
            data[key] = sys.intern(data[key])
        return model.Wall(**data)


#: Decoders of the bulk paths: whole scenes from JSON bytes, and walls.
_SCENE_FROM_JSON = msgspec.json.Decoder(model.Scene)
_RAW_OBJECT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_WALLS = list[model.Wall]


def decode_json_body(data: bytes, check: Callable[[SceneSize], None] | None = None) -> Any:
    """Parse a JSON body, decoding a top-level ``scene`` straight to a ``model.Scene``.

    ``json.loads`` of a 5,000-wall scene builds 5,000 dicts that then have to be checked one
    by one; msgspec decodes and checks the scene in C instead, against the types and bounds
    that ``service.model`` declares (``docs/decisions.md``, "The scene model is msgspec
    Structs"). Every other part of the body is parsed with ``json.loads``, as the ordinary
    path does.

    With ``check``, the scene's counts are read from the bytes first
    (``schemas.size.size_of_body``, nothing built) and given to ``check``, which refuses a
    scene over the limits by raising, before the scene is decoded.

    Parameters
    ----------
    data : bytes
        The request body.
    check : callable, optional
        Called with the scene's ``SceneSize`` when the bytes could be counted
        (``service.limits.check_size`` with the app's limits).

    Returns
    -------
    dict or None
        The body as ``json.loads`` would return it, except that ``body["scene"]`` is a
        ``DecodedScene`` (which ``SceneSchema.load`` takes as it is). ``None`` when the body
        has no ``scene`` object, or msgspec refuses the JSON or the scene: the caller then
        parses the body the ordinary way, and ``SceneSchema`` reports the exact errors.

    Raises
    ------
    Exception
        Whatever ``check`` raises.
    """
    if b'"scene"' not in data:  # most bodies (scene_id, exports): no second parse
        return None
    if check is not None:
        size = size_of_body(data)
        if size is not None:
            check(size)
    try:
        top = _RAW_OBJECT.decode(data)
        raw = top.get("scene")
        if raw is None:
            return None
        scene = _SCENE_FROM_JSON.decode(raw)
        body = {key: _json(value) for key, value in top.items() if key != "scene"}
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, RecursionError):
        return None
    body["scene"] = DecodedScene(scene)
    return body


class DecodedScene:
    """A scene that ``decode_json_body`` decoded and checked from JSON bytes.

    Only that function makes them (JSON cannot), and ``SceneSchema.load`` takes them as they
    are; any other object goes through the checks.
    """

    __slots__ = ("scene",)

    def __init__(self, scene: model.Scene) -> None:
        self.scene = scene


_PLAIN = frozenset({dict, list, str, int, float, bool, type(None)})


def _json_like(scene: dict[str, Any]) -> bool:
    """Whether a scene dict holds only JSON values where msgspec could meet a model object.

    msgspec takes an instance of a model type as it is, unchecked, so a dict holding one
    (say a ``model.Wall`` built in Python) goes through marshmallow, which refuses it. Checked:
    the scene's values, and the values of every wall, token, light and region (deeper
    values must be numbers, strings or lists, which msgspec checks). C-level passes.
    """
    for value in scene.values():
        if type(value) is list:
            if not _plain_objects(value):
                return False
        elif type(value) is dict:
            if not set(map(type, value.values())) <= _PLAIN:
                return False
        elif type(value) not in _PLAIN:
            return False
    return True


def _plain_objects(items: list[Any]) -> bool:
    """Whether ``items`` are dicts whose values are all JSON values."""
    return (
        set(map(type, items)) <= {dict}
        and set(map(type, chain.from_iterable(map(dict.values, items)))) <= _PLAIN
    )


def _json(raw: msgspec.Raw) -> Any:
    """``json.loads`` of one raw JSON value, exactly as the ordinary path parses it."""
    return json.loads(bytes(raw).decode("utf-8"))


class WallList(fields.List):
    """The ``walls`` array, converted in bulk by msgspec.

    Used when some other part of the scene sends it down the field-by-field path: the walls
    are still converted by msgspec against ``model.Wall``'s own types and bounds, and only
    when msgspec refuses them go through ``List(Nested(WallSchema))``, which reports the
    exact errors at the same paths.
    """

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if type(value) is not list or not _plain_objects(value):
            return super()._deserialize(value, attr, data, **kwargs)
        try:
            walls = msgspec.convert(value, _WALLS)
        except (msgspec.ValidationError, UnicodeError):  # UnicodeError: a lone surrogate
            return super()._deserialize(value, attr, data, **kwargs)
        if self.validators:
            self._validate(walls)
        return walls


class SensesSchema(StrictSchema):
    darkvision = _bounded(model.Senses, "darkvision", load_default=0.0)
    devils_sight = _bounded(model.Senses, "devils_sight", load_default=0.0)
    truesight = _bounded(model.Senses, "truesight", load_default=0.0)
    blindsight = _bounded(model.Senses, "blindsight", load_default=0.0)
    tremorsense = _bounded(model.Senses, "tremorsense", load_default=0.0)
    xray = _bounded(model.Senses, "xray", load_default=0.0)
    low_light_vision = Flag(load_default=False)
    see_invisibility = _bounded(model.Senses, "see_invisibility", load_default=0.0)
    hearing = _bounded(model.Senses, "hearing", load_default=None, allow_none=True)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Senses:
        return model.Senses(**data)


class AbilitiesSchema(StrictSchema):
    str = _int(model.Abilities, "str", load_default=0)
    dex = _int(model.Abilities, "dex", load_default=0)
    con = _int(model.Abilities, "con", load_default=0)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Abilities:
        return model.Abilities(**data)


class CarriedLightSchema(StrictSchema):
    bright = _bounded(model.CarriedLight, "bright", load_default=0.0)
    dim = _bounded(model.CarriedLight, "dim", load_default=0.0)
    seen_by = _choice(model.CarriedLight, "seen_by", load_default="everyone")

    @post_load
    def make(self, data: dict, **_: Any) -> model.CarriedLight:
        return model.CarriedLight(**data)


class TokenSchema(StrictSchema):
    id = _id()
    name = fields.String(load_default=None, allow_none=True)
    x = _bounded(model.Token, "x", required=True)
    y = _bounded(model.Token, "y", required=True)
    width = _bounded(model.Token, "width", load_default=1.0)
    height = _bounded(model.Token, "height", load_default=1.0)
    elevation = _bounded(model.Token, "elevation", load_default=0.0)
    vertical_extent = _bounded(model.Token, "vertical_extent", load_default=None, allow_none=True)
    size = _choice(model.Token, "size", load_default=None, allow_none=True)
    reach = _bounded(model.Token, "reach", load_default=None, allow_none=True)
    senses = fields.Nested(SensesSchema, load_default=model.Senses)
    conditions = fields.List(fields.String(), load_default=list)
    swim_speed = _bounded(model.Token, "swim_speed", load_default=0.0)
    abilities = fields.Nested(AbilitiesSchema, load_default=model.Abilities)
    light = fields.Nested(CarriedLightSchema, load_default=model.CarriedLight)
    hidden = Flag(load_default=False)

    @post_load
    def make(self, data: dict, **_: Any) -> model.Token:
        data["conditions"] = tuple(data["conditions"])
        return model.Token(**data)  # name and size default in Token.__post_init__


class LightSchema(StrictSchema):
    id = _id()
    x = _bounded(model.Light, "x", required=True)
    y = _bounded(model.Light, "y", required=True)
    bright = _bounded(model.Light, "bright", load_default=0.0)
    dim = _bounded(model.Light, "dim", load_default=0.0)
    angle = _bounded(model.Light, "angle", load_default=360.0)
    rotation = _bounded(model.Light, "rotation", load_default=0.0)
    darkness = Flag(load_default=False)
    walls = Flag(load_default=True)
    elevation = _bounded(model.Light, "elevation", load_default=0.0)
    on = Flag(load_default=True)
    seen_by = _choice(model.Light, "seen_by", load_default="everyone")
    level = _level()

    @post_load
    def make(self, data: dict, **_: Any) -> model.Light:
        return model.Light(**data)


class ShapeSchema(StrictSchema):
    type = _choice(model.Shape, "type", required=True)
    points = fields.List(
        fields.List(_num(validate=item_range(model.Point)), validate=length(model.Point)),
        load_default=list,
        validate=length(model.Shape, "points"),
    )
    x = _bounded(model.Shape, "x", load_default=0.0)
    y = _bounded(model.Shape, "y", load_default=0.0)
    width = _bounded(model.Shape, "width", load_default=0.0)
    height = _bounded(model.Shape, "height", load_default=0.0)
    radius = _bounded(model.Shape, "radius", load_default=0.0)

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
    id = _id()
    shape = fields.Nested(ShapeSchema, required=True)
    obscurement = _choice(model.Region, "obscurement", load_default=None, allow_none=True)
    concealment = Flag(load_default=False)
    magical_darkness = Flag(load_default=False)
    water = Flag(load_default=False)
    gravity = _bounded(model.Region, "gravity", load_default=None, allow_none=True)
    light = _choice(model.Region, "light", load_default=None, allow_none=True)
    elevation = fields.Nested(SpanSchema, load_default=None, allow_none=True)
    level = _level()

    @post_load
    def make(self, data: dict, **_: Any) -> model.Region:
        return model.Region(**data)


class LevelSchema(StrictSchema):
    id = _id()
    name = fields.String(load_default="")
    bottom = _bounded(model.Level, "bottom", load_default=None, allow_none=True)
    top = _bounded(model.Level, "top", load_default=None, allow_none=True)

    @validates_schema
    def ordered(self, data: dict, **_: Any) -> None:
        if data.get("bottom") is not None and data.get("top") is not None:
            if data["bottom"] > data["top"]:
                raise ValidationError("Must not be above top.", "bottom")

    @post_load
    def make(self, data: dict, **_: Any) -> model.Level:
        return model.Level(**data)


class SurfaceBlocksSchema(StrictSchema):
    move = Flag(load_default=True)
    sight = Flag(load_default=True)
    light = Flag(load_default=True)
    sound = Flag(load_default=True)

    @post_load
    def make(self, data: dict, **_: Any) -> model.SurfaceBlocks:
        return model.SurfaceBlocks(**data)


def _ring() -> fields.List:
    """A ring of at least 3 points ``[x, y]`` px."""
    point = fields.List(_num(validate=item_range(model.Point)), validate=length(model.Point))
    return fields.List(point, validate=length(model.Ring))


class SurfaceSchema(StrictSchema):
    id = _id()
    outline = fields.List(
        fields.List(_ring(), validate=validate.Length(min=1)),
        required=True,
        validate=validate.Length(min=1),
    )
    elevation = _bounded(model.Surface, "elevation", required=True)
    blocks = fields.Nested(SurfaceBlocksSchema, load_default=model.SurfaceBlocks)
    level = _level()

    @post_load
    def make(self, data: dict, **_: Any) -> model.Surface:
        data["outline"] = tuple(
            tuple(tuple((p[0], p[1]) for p in ring) for ring in polygon)
            for polygon in data["outline"]
        )
        return model.Surface(**data)


class SceneSchema(StrictSchema):
    """The canonical scene; ``load`` returns a ``service.model.Scene``.

    ``load`` first lets msgspec convert the whole scene against ``service.model``;
    only when msgspec refuses it are the fields loaded one by one, which names every error
    with its path. A ``DecodedScene`` (from ``decode_json_body``) is returned as it is. Tests
    check that whatever msgspec accepts, the field-by-field path accepts equally.
    """

    grid = fields.Nested(GridSchema, required=True)
    width = _bounded(model.Scene, "width", load_default=None, allow_none=True)
    height = _bounded(model.Scene, "height", load_default=None, allow_none=True)
    environment = fields.Nested(EnvironmentSchema, load_default=model.Environment)
    walls = WallList(fields.Nested(WallSchema), load_default=list)
    tokens = fields.List(fields.Nested(TokenSchema), load_default=list)
    lights = fields.List(fields.Nested(LightSchema), load_default=list)
    regions = fields.List(fields.Nested(RegionSchema), load_default=list)
    levels = fields.List(
        fields.Nested(LevelSchema),
        load_default=list,
        validate=validate.Length(max=model.MAX_LEVELS),
    )
    surfaces = fields.List(
        fields.Nested(SurfaceSchema),
        load_default=list,
        validate=validate.Length(max=model.MAX_SURFACES),
    )

    def load(self, data: Any, *, many: Any = None, partial: Any = None, unknown: Any = None) -> Any:
        if type(data) is DecodedScene:
            return data.scene
        plain = type(data) is dict and not many and not partial and unknown is None
        if plain and _json_like(data):
            try:
                return msgspec.convert(data, model.Scene)
            except (msgspec.ValidationError, UnicodeError):  # UnicodeError: a lone surrogate
                pass
        return self.reference_load(data, many=many, partial=partial, unknown=unknown)

    def reference_load(self, data: Any, **kwargs: Any) -> Any:
        """The field-by-field ``load`` of marshmallow (the reference for errors)."""
        return super().load(data, **kwargs)

    @validates_schema
    def unique_ids(self, data: dict, **_: Any) -> None:
        errors: dict[str, dict[int, dict[str, list[str]]]] = {}
        for kind in model.SCENE_COLLECTIONS:
            items = data.get(kind, [])
            if len({item.id for item in items}) == len(items):
                continue
            seen: set[str] = set()
            for i, item in enumerate(items):
                if item.id in seen:
                    errors.setdefault(kind, {})[i] = {"id": [f"Duplicate id {item.id!r}."]}
                seen.add(item.id)
        if errors:
            raise ValidationError(errors)

    @validates_schema
    def known_levels(self, data: dict, **_: Any) -> None:
        """Every ``level`` an item names is one of the scene's levels (GEO-10)."""
        known = {level.id for level in data.get("levels", [])}
        errors: dict[str, dict[int, dict[str, list[str]]]] = {}
        for kind in model.LEVEL_MEMBERS:
            for i, item in enumerate(data.get(kind, [])):
                if item.level is not None and item.level not in known:
                    errors.setdefault(kind, {})[i] = {
                        "level": [f"No level with id {item.level!r} in the scene's levels."]
                    }
        if errors:
            raise ValidationError(errors)
        points = sum(s.points for s in data.get("surfaces", []))
        if points > model.MAX_SURFACE_POINTS:
            raise ValidationError(
                f"The surfaces' outlines may hold at most {model.MAX_SURFACE_POINTS:,} points "
                f"in all; these hold {points:,}: simplify them.",
                "surfaces",
            )

    @post_load
    def make(self, data: dict, **_: Any) -> model.Scene:
        for kind in model.SCENE_COLLECTIONS:
            data[kind] = tuple(data[kind])
        return model.Scene(**data)
