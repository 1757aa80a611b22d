"""The model declares every bound; the schemas and the OpenAPI document say the same.

``service.model`` is the one source of the canonical scene's bounds. These tests walk every
field of every model Struct reachable from ``Scene`` next to the ``SceneSchema`` field of the
same name and check that the schema's validator and its OpenAPI property carry the model's
range, length and choices: a bound changed in one place only fails here. They also check
that wherever a schema's range excludes a bound, OpenAPI says so (``exclusiveMinimum``).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterator
from typing import Annotated, Any

import msgspec
import pytest
from marshmallow import Schema, ValidationError, fields, validate

import schemas.common
import schemas.modifiers
import schemas.requests
import schemas.responses
import schemas.scene
from schemas.bounds import choices, item_range, length, number_range
from service import model
from service.app import create_app

MI = msgspec.inspect


@pytest.fixture(scope="module")
def spec() -> dict:
    return create_app({"PRELOAD_SAMPLE": False}).test_client().get("/openapi.json").get_json()


def _component(schema: Schema) -> str:
    """The OpenAPI component name flask-smorest gives a schema (class name less ``Schema``)."""
    return type(schema).__name__.removesuffix("Schema")


def _unwrap(info: MI.Type) -> MI.Type:
    if isinstance(info, MI.UnionType):
        (info,) = (t for t in info.types if not isinstance(t, MI.NoneType))
    return info


def _pairs(
    struct: type, schema: Schema, where: str = "scene"
) -> Iterator[tuple[str, type, str, MI.Type, fields.Field, Schema]]:
    """``(path, struct, name, model type, schema field, schema)`` of every scene field."""
    info = MI.type_info(struct)
    assert isinstance(info, MI.StructType)
    assert {f.name for f in info.fields} == set(schema.fields), (where, struct)
    for f in info.fields:
        field = schema.fields[f.name]
        kind = _unwrap(f.type)
        yield f"{where}.{f.name}", struct, f.name, kind, field, schema
        if isinstance(kind, MI.StructType):
            assert isinstance(field, fields.Nested), f"{where}.{f.name}"
            yield from _pairs(kind.cls, field.schema, f"{where}.{f.name}")
        elif isinstance(kind, MI.VarTupleType) and isinstance(kind.item_type, MI.StructType):
            assert isinstance(field, fields.List) and isinstance(field.inner, fields.Nested)
            yield from _pairs(kind.item_type.cls, field.inner.schema, f"{where}.{f.name}[]")


PAIRS = list(_pairs(model.Scene, schemas.scene.SceneSchema()))


def _bounded(info: MI.Type) -> bool:
    if isinstance(info, MI.FloatType | MI.IntType):
        return (info.ge, info.gt, info.le, info.lt) != (None,) * 4
    if isinstance(info, MI.StrType | MI.VarTupleType):
        return (info.min_length, info.max_length) != (None, None)
    return isinstance(info, MI.LiteralType | MI.TupleType)


BOUNDED = [p for p in PAIRS if _bounded(p[3])]
NUMBERS = [p for p in BOUNDED if isinstance(p[3], MI.FloatType | MI.IntType)]


def test_the_walk_reaches_every_kind_of_bound():
    kinds = {type(p[3]).__name__ for p in BOUNDED}
    assert kinds >= {"FloatType", "IntType", "StrType", "LiteralType", "TupleType", "VarTupleType"}
    assert len(BOUNDED) > 50


def _one(field: fields.Field, kind: type) -> Any:
    found = [v for v in field.validators if isinstance(v, kind)]
    assert len(found) == 1, (field, field.validators)
    return found[0]


def _range_of(info: MI.Type) -> tuple[Any, Any, bool, bool]:
    low = info.ge if info.gt is None else info.gt
    high = info.le if info.lt is None else info.lt
    return low, high, info.gt is None, info.lt is None


def _range(v: validate.Range) -> tuple[Any, Any, bool, bool]:
    return v.min, v.max, v.min_inclusive, v.max_inclusive


def _documented_range(prop: dict) -> tuple[Any, Any, bool, bool]:
    """``(min, max, min inclusive, max inclusive)`` of an OpenAPI 3.0 property."""
    return (
        prop.get("minimum"),
        prop.get("maximum"),
        not prop.get("exclusiveMinimum", False),
        not prop.get("exclusiveMaximum", False),
    )


@pytest.mark.parametrize(("path", "struct", "name", "info", "field", "schema"), BOUNDED,
                         ids=[p[0] for p in BOUNDED])  # fmt: skip
def test_schema_and_openapi_bound_equal_the_model(spec, path, struct, name, info, field, schema):
    prop = spec["components"]["schemas"][_component(schema)]["properties"][name]
    if isinstance(info, MI.FloatType | MI.IntType):
        assert _range(_one(field, validate.Range)) == _range_of(info)
        assert _documented_range(prop) == _range_of(info)
    elif isinstance(info, MI.LiteralType):
        assert set(_one(field, validate.OneOf).choices) == set(info.values)
        assert set(prop["enum"]) - {None} == set(info.values)
    elif isinstance(info, MI.StrType):
        v = _one(field, validate.Length)
        assert (v.min, v.max) == (info.min_length, info.max_length)
        assert (prop.get("minLength"), prop.get("maxLength")) == (v.min, v.max)
    elif isinstance(info, MI.TupleType):  # Wall.c: a fixed number of coordinates
        assert _one(field, validate.Length).equal == len(info.item_types)
        assert prop["minItems"] == prop["maxItems"] == len(info.item_types)
        for item in info.item_types:
            assert _range(_one(field.inner, validate.Range)) == _range_of(item)
            assert _documented_range(prop["items"]) == _range_of(item)
    else:  # Shape.points: a bounded array of points
        assert isinstance(info, MI.VarTupleType)
        v = _one(field, validate.Length)
        assert (v.min, v.max) == (info.min_length, info.max_length)
        assert (prop.get("minItems"), prop.get("maxItems")) == (v.min, v.max)
        point = info.item_type
        assert _one(field.inner, validate.Length).equal == len(point.item_types)
        for item in point.item_types:
            assert _range(_one(field.inner.inner, validate.Range)) == _range_of(item)
            assert _documented_range(prop["items"]["items"]) == _range_of(item)


def _nudge(value: float, direction: int, info: MI.Type) -> float:
    """The next representable value of the field's type from ``value`` towards ``direction``."""
    if isinstance(info, MI.IntType):
        return int(value) + direction
    return math.nextafter(value, direction * math.inf)


@pytest.mark.parametrize(("path", "struct", "name", "info", "field", "schema"), NUMBERS,
                         ids=[p[0] for p in NUMBERS])  # fmt: skip
def test_the_schema_and_msgspec_agree_at_each_numeric_bound(
    path, struct, name, info, field, schema
):
    """Both accept the last value inside each bound and refuse the first one outside."""
    kind = int if isinstance(info, MI.IntType) else float
    meta = msgspec.Meta(ge=info.ge, gt=info.gt, le=info.le, lt=info.lt)
    decoder = msgspec.json.Decoder(Annotated[kind, meta])  # type: ignore[valid-type]
    low, high, low_in, high_in = _range_of(info)
    probes = []
    if low is not None:
        inside = low if low_in else _nudge(low, 1, info)
        probes += [(kind(inside), True), (kind(_nudge(inside, -1, info)), False)]
    if high is not None:
        inside = high if high_in else _nudge(high, -1, info)
        probes += [(kind(inside), True), (kind(_nudge(inside, 1, info)), False)]
    for value, ok in probes:
        assert _accepts(field, value) is ok, (path, value)
        assert _decodes(decoder, value) is ok, (path, value)


def _accepts(field: fields.Field, value: Any) -> bool:
    try:
        field.deserialize(value)
    except ValidationError:
        return False
    return True


def _decodes(decoder: msgspec.json.Decoder, value: Any) -> bool:
    try:
        decoder.decode(msgspec.json.encode(value))
    except msgspec.ValidationError:
        return False
    return True


#: Request fields that take a model quantity: (schema class, field name, model annotation).
MIRRORS = [
    (schemas.requests.PointRefSchema, "elevation", model.Elevation),
    (schemas.modifiers.GravityRequestSchema, "gravity", model.Gravity),
    (schemas.modifiers.GravityCreatureSchema, "str", model.Ability),
    (schemas.modifiers.GravityCreatureSchema, "speed", model.Units),
    (schemas.modifiers.UnderwaterEffectSchema, "con", model.Ability),
    (schemas.modifiers.UnderwaterEffectSchema, "size", model.Units),
    (schemas.modifiers.RangeRequestSchema, "distance", model.Units),
]


@pytest.mark.parametrize(("cls", "name", "annotation"), MIRRORS)
def test_request_fields_take_the_models_bounds(cls, name, annotation):
    assert _range(_one(cls().fields[name], validate.Range)) == _range(number_range(annotation))


def test_points_take_the_models_bounds():
    field = schemas.common.point_field()
    assert _one(field, validate.Length).equal == length(model.Point).equal == 2
    assert _range(_one(field.inner, validate.Range)) == _range(item_range(model.Point))


def test_model_constants_and_literals_agree():
    assert model.RESTRICTIONS == choices(model.Restriction).choices
    assert model.SIZES == choices(model.Size).choices
    assert model.LIGHT_LEVELS == choices(model.LightLevel).choices
    assert _range(number_range(model.Coord)) == (
        -model.MAX_COORD_PX,
        model.MAX_COORD_PX,
        True,
        True,
    )


def _all_schemas() -> Iterator[type[Schema]]:
    for module in (
        schemas.scene,
        schemas.common,
        schemas.requests,
        schemas.responses,
        schemas.modifiers,
    ):
        for cls in vars(module).values():
            if (
                inspect.isclass(cls)
                and issubclass(cls, Schema)
                and cls.__module__ == module.__name__
            ):
                yield cls


def _documented_properties(spec: dict, cls: type[Schema]) -> dict[str, dict]:
    """OpenAPI properties of a schema: its component, or the query parameters it describes."""
    name = cls.__name__.removesuffix("Schema")
    if name in spec["components"]["schemas"]:
        return spec["components"]["schemas"][name]["properties"]  # type: ignore[no-any-return]
    found: dict[str, dict] = {}
    for item in spec["paths"].values():
        for op in item.values():
            for param in op.get("parameters", []) if isinstance(op, dict) else []:
                if param.get("in") == "query" and param["name"] in cls().fields:
                    found[param["name"]] = param["schema"]
    return found


def test_openapi_says_which_bounds_are_exclusive(spec):
    """Every ``Range`` of every schema, inclusive or not, as the server applies it."""
    checked = exclusive = 0
    for cls in _all_schemas():
        props = _documented_properties(spec, cls)
        for name, field in cls().fields.items():
            ranges = [v for v in field.validators if isinstance(v, validate.Range)]
            if not ranges or (field.data_key or name) not in props:
                continue
            (v,) = ranges
            assert _documented_range(props[field.data_key or name]) == _range(v), (cls, name)
            checked += 1
            exclusive += not v.min_inclusive
    assert checked > 40 and exclusive >= 1  # range_increment (grid_distance is >= 0.001)


def test_range_increment_is_documented_exclusive(spec):
    prop = spec["components"]["schemas"]["RangeRequest"]["properties"]["range_increment"]
    assert prop["minimum"] == 0 and prop["exclusiveMinimum"] is True
