"""Small fields and limits shared by the request and response schemas."""

from __future__ import annotations

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


__all__ = ["MAX_CORNER_INSET", "MAX_DAMAGE", "Number", "StrictSchema", "point_field"]
