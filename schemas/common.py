"""Small fields and limits shared by the request and response schemas."""

from __future__ import annotations

from typing import Any

import msgspec
from marshmallow import ValidationError, fields

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


def shown(value: object, limit: int = 60) -> str:
    """``repr`` of a client's value cut to ``limit`` characters.

    ``service.errors.shown``'s rule; schemas import nothing of the service but the model.
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def known_ruleset(value: str) -> None:
    """Validate a ruleset id (``service.model.RULESET_IDS``), in the words of ``rules.get``."""
    if value not in model.RULESET_IDS:
        known = ", ".join(sorted(model.RULESET_IDS))
        raise ValidationError(f"Unknown ruleset {shown(value)}; known: {known}.")


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


__all__ = [
    "MAX_CORNER_INSET",
    "MAX_DAMAGE",
    "Number",
    "PointList",
    "StrictSchema",
    "known_ruleset",
    "point_field",
    "shown",
]
