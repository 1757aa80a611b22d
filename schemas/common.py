"""Small shared fields and the error-body schema (``shared/DESIGN.md`` "Errors")."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from schemas.scene import MAX_COORD_PX, Number, StrictSchema


def point_field(**kw: object) -> fields.List:
    """An ``[x, y]`` point in scene px (finite numbers, |value| <= MAX_COORD_PX)."""
    return fields.List(
        Number(allow_nan=False, validate=validate.Range(-MAX_COORD_PX, MAX_COORD_PX)),
        validate=validate.Length(equal=2),
        **kw,  # type: ignore[arg-type]
    )


class ErrorSchema(Schema):
    """Every non-2xx answer."""

    code = fields.Integer(required=True, metadata={"example": 422})
    status = fields.String(required=True, metadata={"example": "Unprocessable Entity"})
    message = fields.String(metadata={"example": "Request body is invalid."})
    errors = fields.Dict(metadata={"description": "Offending field paths -> messages."})


__all__ = ["ErrorSchema", "Number", "StrictSchema", "point_field"]
