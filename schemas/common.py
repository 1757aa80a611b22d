"""Small fields and limits shared by the request and response schemas."""

from __future__ import annotations

from typing import Any

import msgspec
from marshmallow import fields

from schemas.bounds import item_range, length
from schemas.scene import Number, StrictSchema
from service import model

#: Largest damage accepted in a request (breakthrough, underwater effects).
MAX_DAMAGE = 10**9
#: Largest corner inset accepted in options, in px.
MAX_CORNER_INSET = 1e4


def point_field(**kw: object) -> fields.List:
    """An ``[x, y]`` point in scene px: ``service.model.Point``'s bounds."""
    return fields.List(
        Number(allow_nan=False, validate=item_range(model.Point)),
        validate=length(model.Point),
        **kw,  # type: ignore[arg-type]
    )


_POINTS = list[model.Point]


class PointList(fields.List):
    """A list of ``point_field`` points (``[[x, y], ...]`` px), converted in bulk by msgspec.

    Loads as ``List(point_field())`` does (lists of two floats), checked by msgspec against
    ``service.model.Point`` in one C pass (10,000 points cost marshmallow about a
    third of a second); a list msgspec refuses goes through the field-by-field path, which
    reports the exact errors at the same paths.
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(point_field(), **kw)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if type(value) is list:
            try:
                return [list(p) for p in msgspec.convert(value, _POINTS)]
            except msgspec.ValidationError:
                pass
        return super()._deserialize(value, attr, data, **kwargs)


__all__ = ["MAX_CORNER_INSET", "MAX_DAMAGE", "Number", "PointList", "StrictSchema", "point_field"]
