"""Validators read from ``service.model``'s annotations: the model is the one source of bounds.

``service.model`` declares every bound of the canonical scene once, as msgspec ``Meta``
(``ge``/``gt``/``le``/``lt``, ``min_length``/``max_length``) and ``Literal`` choices. The
marshmallow schemas, which give the API its error messages and its OpenAPI document, take
their validators from there instead of repeating the numbers::

    size = Number(validate=number_range(model.Grid, "size"))
    x = Number(validate=number_range(model.Coord))

``tests/schemas/test_model_bounds.py`` walks every bounded model field and checks that the schema's
validator and its OpenAPI entry say the same.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

import msgspec
from marshmallow import validate

_NUMBERS = (msgspec.inspect.FloatType, msgspec.inspect.IntType)
_SIZED = (
    msgspec.inspect.StrType,
    msgspec.inspect.VarTupleType,
    msgspec.inspect.ListType,
)


def model_type(owner: Any, name: str | None = None) -> msgspec.inspect.Type:
    """The msgspec description of a model type, ``None`` taken out of an optional.

    Parameters
    ----------
    owner : type
        A ``service.model`` Struct (with ``name``), or an annotation such as ``model.Coord``.
    name : str, optional
        A field of the Struct ``owner``.
    """
    if name is None:
        info = msgspec.inspect.type_info(owner)
    else:
        struct = msgspec.inspect.type_info(owner)
        assert isinstance(struct, msgspec.inspect.StructType)
        (info,) = (f.type for f in struct.fields if f.name == name)
    if isinstance(info, msgspec.inspect.UnionType):
        (info,) = (t for t in info.types if not isinstance(t, msgspec.inspect.NoneType))
    return info


def number_range(owner: Any, name: str | None = None) -> validate.Range:
    """The ``Range`` of a numeric model type: its ``ge``/``gt`` and ``le``/``lt``."""
    return _range(model_type(owner, name))


def item_range(owner: Any, name: str | None = None) -> validate.Range:
    """The ``Range`` of the numbers in a model tuple (``Wall.c``, a point of ``Shape.points``)."""
    info = model_type(owner, name)
    while isinstance(info, msgspec.inspect.VarTupleType | msgspec.inspect.ListType):
        info = info.item_type
    if not isinstance(info, msgspec.inspect.TupleType):
        raise TypeError(f"{owner!r} {name or ''} is not a tuple: {info!r}")
    first, *others = info.item_types
    if any(other != first for other in others):
        raise TypeError(f"{owner!r} {name or ''} has items of different bounds: {info!r}")
    return _range(first)


def length(owner: Any, name: str | None = None) -> validate.Length:
    """The ``Length`` of a model string or array (``min_length``, ``max_length``) or tuple."""
    info = model_type(owner, name)
    if isinstance(info, msgspec.inspect.TupleType):
        return validate.Length(equal=len(info.item_types))
    if not isinstance(info, _SIZED):
        raise TypeError(f"{owner!r} {name or ''} has no length: {info!r}")
    return validate.Length(min=info.min_length, max=info.max_length)


def choices(owner: Any, name: str | None = None) -> validate.OneOf:
    """The ``OneOf`` of a model ``Literal``, in the order the model declares them."""
    annotation = owner if name is None else typing.get_type_hints(owner)[name]
    options = typing.get_args(annotation) if _is_union(annotation) else (annotation,)
    literals = [arg for arg in options if typing.get_origin(arg) is Literal]
    if len(literals) != 1:
        raise TypeError(f"{owner!r} {name or ''} is not a Literal: {annotation!r}")
    return validate.OneOf(typing.get_args(literals[0]))


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _range(info: msgspec.inspect.Type) -> validate.Range:
    if not isinstance(info, _NUMBERS):
        raise TypeError(f"not a number: {info!r}")
    low = info.ge if info.gt is None else info.gt
    high = info.le if info.lt is None else info.lt
    return validate.Range(low, high, min_inclusive=info.gt is None, max_inclusive=info.lt is None)


__all__ = ["choices", "item_range", "length", "model_type", "number_range"]
