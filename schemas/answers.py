"""The ``POST /v1/cover`` answer written as JSON in C: msgspec mirrors of its response schemas.

Marshmallow's ``CoverResponseSchema().dump`` walks every field of every traced
line in Python, and Flask's ``jsonify`` walks the result again; for one target that was as
much as a third of the request's time outside the rules. Here the answer (``{"ruleset",
"attacker", "results": [CoverResult]}``, ``service.operations.cover``) is converted by
``msgspec.convert`` into Structs that declare the same fields and types as
``schemas.responses`` (checked in C: a value of another type is refused, not coerced), then
encoded by msgspec with sorted keys.

:func:`cover_json` promises bytes equal to
``json.dumps(CoverResponseSchema().dump(answer), sort_keys=True, separators=(",", ":"))``
(Python's ``ensure_ascii`` default), which is Flask's JSON answer without its final newline.
Where it cannot promise that, it answers ``None`` and the caller dumps with marshmallow:

- a value of another type than the schema's (a ``None`` where a string is due, a numpy
  number, a missing attribute): marshmallow would coerce or omit it;
- a number written in exponent form by Python (magnitude under 1e-4 or from 1e16, and NaN
  or infinities): msgspec writes ``1e16`` where Python writes ``1e+16``;
- any string that needs an escape (a backslash in the output) or that is not ASCII
  (``ensure_ascii``), or holds DEL (0x7f, escaped by Python only).

References
----------
shared/API.md "Cover" (the answer's fields); ``schemas.responses.CoverResponseSchema`` and
its ``TracedLineSchema.mark_low`` (``"low": true`` on low obstacles, GEO-5a).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

#: Float magnitudes that Python's ``repr`` writes without an exponent (and so as msgspec
#: does: the same shortest digits, the same form): ``[1e-4, 1e16)``, and 0.
_PLAIN_LOW, _PLAIN_HIGH = 1e-4, 1e16


class BlockerJSON(msgspec.Struct, omit_defaults=True):
    """``BlockerSchema``: ``low`` only when true, ``level`` only when known.

    As ``TracedLineSchema.mark_low`` and ``BlockerSchema.level_when_known`` write them.
    """

    kind: str
    id: str
    level: str | None = None
    low: bool = False


class TracedLineJSON(msgspec.Struct):
    """``TracedLineSchema``: ``from``/``to`` ``[x, y]`` px, read from ``start``/``end``."""

    start: list[float] = msgspec.field(name="from")
    end: list[float] = msgspec.field(name="to")
    blocked: bool
    blockers: list[BlockerJSON]


class ModifierJSON(msgspec.Struct):
    """``ModifierSchema``."""

    rule: str
    applies_to: str
    value: int
    reason: str


class CoverResultJSON(msgspec.Struct):
    """``CoverResultSchema``: one target's cover (``service.rules.base.CoverResult``)."""

    target: str
    cover: str
    ac_bonus: int | None
    save_bonus: int | None
    advantage_levels: int
    can_target: bool
    line_of_effect: bool
    rules: list[str]
    lines: list[TracedLineJSON]
    notes: list[str]
    concealment: str
    miss_chance: int
    can_hide: bool | None
    modifiers: list[ModifierJSON]
    #: GEO-13, written only for a spread's answers (``rules.spread.SpreadCoverResult``).
    reached_around_corners: bool | None | msgspec.UnsetType = msgspec.UNSET
    path_length: float | None | msgspec.UnsetType = msgspec.UNSET


class CoverResponseJSON(msgspec.Struct):
    """``CoverResponseSchema``."""

    ruleset: str
    attacker: str | None
    results: list[CoverResultJSON]


#: Each mirror and the marshmallow schema (by name in ``schemas.responses``) it mirrors;
#: tests/schemas/test_fast_answers.py holds their fields equal.
MIRRORS: dict[type[msgspec.Struct], str] = {
    BlockerJSON: "BlockerSchema",
    TracedLineJSON: "TracedLineSchema",
    ModifierJSON: "ModifierSchema",
    CoverResultJSON: "CoverResultSchema",
    CoverResponseJSON: "CoverResponseSchema",
}

_ENCODER = msgspec.json.Encoder(order="sorted")


def _plain(value: float) -> bool:
    """Whether Python and msgspec write ``value`` alike (no exponent; finite)."""
    size = abs(value)
    return size == 0.0 or _PLAIN_LOW <= size < _PLAIN_HIGH


def _mark_low(out: CoverResponseJSON, answer: Mapping[str, Any]) -> bool:
    """``"low": true`` on the blockers in each line's ``low`` (GEO-5a), as ``mark_low`` does.

    Returns False when a point has a coordinate that msgspec would write otherwise than
    Python (``_plain``).
    """
    for result, original in zip(out.results, answer["results"], strict=True):
        for line, traced in zip(result.lines, original.lines, strict=True):
            for value in (*line.start, *line.end):
                if not _plain(value):
                    return False
            low = traced.low
            if low:
                keys = {(b.kind, b.id) for b in low}
                for blocker in line.blockers:
                    if (blocker.kind, blocker.id) in keys:
                        blocker.low = True
    return True


def cover_json(answer: Mapping[str, Any]) -> bytes | None:
    """The cover answer as JSON bytes, or ``None`` when marshmallow must write it.

    Parameters
    ----------
    answer : mapping
        ``service.operations.cover``'s answer: ``{"ruleset", "attacker", "results"}``, the
        results ``CoverResult`` objects (their lines ``TracedLine`` objects, points in px).

    Returns
    -------
    bytes or None
        Equal to ``json.dumps(CoverResponseSchema().dump(answer), sort_keys=True,
        separators=(",", ":"))`` encoded; ``None`` in the cases the module docstring lists.
        Never raises for an answer of another shape: it answers ``None``.
    """
    try:
        out = msgspec.convert(answer, CoverResponseJSON, from_attributes=True)
        if not _mark_low(out, answer):
            return None
    except (msgspec.ValidationError, AttributeError, TypeError, ValueError):
        return None
    try:
        body = _ENCODER.encode(out)
    except (UnicodeEncodeError, msgspec.EncodeError):  # a lone surrogate in an id
        return None
    if not body.isascii() or b"\\" in body or b"\x7f" in body:
        return None
    return body


__all__ = [
    "MIRRORS",
    "BlockerJSON",
    "CoverResponseJSON",
    "CoverResultJSON",
    "ModifierJSON",
    "TracedLineJSON",
    "cover_json",
]
