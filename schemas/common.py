"""Small shared fields and the error-body schema (``shared/DESIGN.md`` "Errors")."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from schemas.scene import StrictSchema


def point_field(**kw: object) -> fields.List:
    """An ``[x, y]`` point in scene px (finite numbers)."""
    return fields.List(
        fields.Float(allow_nan=False),
        validate=validate.Length(equal=2),
        **kw,  # type: ignore[arg-type]
    )


class ErrorSchema(Schema):
    """Every non-2xx answer."""

    code = fields.Integer(required=True, metadata={"example": 422})
    status = fields.String(required=True, metadata={"example": "Unprocessable Entity"})
    message = fields.String(metadata={"example": "Request body is invalid."})
    errors = fields.Dict(metadata={"description": "Offending field paths -> messages."})


__all__ = ["ErrorSchema", "StrictSchema", "point_field"]
