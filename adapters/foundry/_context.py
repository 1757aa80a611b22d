"""What every part of the Foundry adapter shares: the per-call context and value readers.

The readers warn (through :class:`Context`) and fall back to a default rather than raise;
the JSON paths in their warnings are relative to the scene document.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters._common import finite_number, point, unique_ids
from adapters.errors import AdapterError


@dataclass
class Context:
    """Per-call state: warnings, detected version, JSON path prefix of the scene.

    ``cell_px`` is the grid size as exported (px), which the canvas padding is counted in.
    ``read`` counts, per source (``"wall heights: flags.wall-height.bottom/top"``, ...),
    how many values were read from it; it becomes the warning-free ``stats["read"]``.
    ``levels`` maps each level id to its ``(bottom, top)`` in grid units
    (``adapters.foundry.levels``); ``inclusive``: the ranges are the Levels module's
    inclusive ones (GEO-5).
    """

    version: str
    prefix: tuple[str | int, ...] = ()
    warnings: list[str] = field(default_factory=list)
    distance: float = 5
    cell_px: float = 1
    read: dict[str, int] = field(default_factory=dict)
    levels: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    inclusive: bool = False

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def count(self, source: str, n: int = 1) -> None:
        """Count ``n`` values read from ``source`` (shown in ``stats["read"]``)."""
        self.read[source] = self.read.get(source, 0) + n

    def error(self, message: str, *path: str | int) -> AdapterError:
        return AdapterError(message, self.prefix + path)

    @property
    def old(self) -> bool:
        return self.version in ("0.7", "0.8")


def read_position(raw: Mapping, where: str, what: str, ctx: Context) -> tuple[float, float] | None:
    """Numeric ``x``/``y`` of a token or light, or None (``what`` skipped, with a warning)."""
    position = point(raw)
    if position is None:
        ctx.warn(
            f"{where}.x/y: ({raw.get('x')!r}, {raw.get('y')!r}) is not a position, {what} skipped"
        )
    return position


def number_or(
    value: object, default: int, where: str, ctx: Context, what: str = "a number"
) -> int | float:
    """A finite number; ``default`` when None, ``default`` with a warning when not a number."""
    if value is None:
        return default
    number = finite_number(value)
    if number is None:
        ctx.warn(f"{where}: {value!r} is not {what}, {default} used")
        return default
    return number


def positive_or(raw: Mapping, key: str, default: float, where: str, ctx: Context) -> int | float:
    value = raw.get(key)
    if value is None:
        return default
    if finite_number(value) is None or value <= 0:
        ctx.warn(f"{where}.{key}: {value!r} is not a positive number, {default} used")
        return default
    return value


def positive_number(value: object) -> int | float | None:
    number = finite_number(value)
    return number if number is not None and number > 0 else None


def enum_value(table: Mapping[int, Any], value: object) -> Any:
    """Look up an integral enum value (``20`` or ``20.0``); None when absent from the table."""
    number = finite_number(value)
    if number is None or number != int(number):
        return None
    return table.get(int(number))


def norm_name(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower())


def as_list(value: object) -> list:
    return value if isinstance(value, list) else []


def assign_ids(items: list[dict], key: str, stem: str, ctx: Context) -> None:
    """Give every item a unique string id (``<stem>-<index>`` when missing); drop ``_index``."""
    unique_ids(items, ctx.warn, lambda i: f"{key}[{i}]._id", stem)


def elevation_range(
    bottom: object, top: object, where: str, ctx: Context, keys: tuple[str, str] = ("bottom", "top")
) -> dict | None:
    """``{bottom, top}`` in grid units, ``None`` bounds for null/infinite; None if both."""
    out = {
        "bottom": _bound(bottom, f"{where}.{keys[0]}", ctx),
        "top": _bound(top, f"{where}.{keys[1]}", ctx),
    }
    if out["bottom"] is None and out["top"] is None:
        return None
    if out["bottom"] is not None and out["top"] is not None and out["bottom"] > out["top"]:
        ctx.warn(f"{where}: bottom {out['bottom']} above top {out['top']}, range dropped")
        return None
    return out


def _bound(value: object, where: str, ctx: Context) -> int | float | None:
    """Read a finite elevation bound; None for null, +-Infinity or unreadable (warned)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            ctx.warn(f"{where}: {value!r} is not a number, null used")
            return None
    if isinstance(value, float) and math.isinf(value):
        return None
    number = finite_number(value)
    if number is None:
        ctx.warn(f"{where}: {value!r} is not a number, null used")
    return number


def level_ids(raw: Mapping, where: str, ctx: Context) -> list[str]:
    """The known levels a v14 wall, light, tile or region lists (``levels: [id, …]``).

    Ids the scene's levels lack are warned about and left out.
    """
    listed = raw.get("levels")
    if not isinstance(listed, list):
        return []
    known = [i for i in listed if isinstance(i, str) and i in ctx.levels]
    if len(known) != len(listed):
        unknown = [i for i in listed if i not in known]
        ctx.warn(f"{where}.levels: {unknown!r} not among the scene's levels, ignored")
    return known


def one_level(raw: Mapping, where: str, ctx: Context) -> str | None:
    """The level of an item that lists exactly one known level (GEO-10), else None."""
    ids = level_ids(raw, where, ctx)
    return ids[0] if len(ids) == 1 else None


def level_range(ids: list[str], ctx: Context) -> dict | None:
    """``{bottom, top}`` from the lowest bottom to the highest top of the levels ``ids``."""
    spans = [ctx.levels[i] for i in ids if i in ctx.levels]
    if not spans:
        return None
    bottoms, tops = [b for b, _ in spans], [t for _, t in spans]
    return {
        "bottom": None if None in bottoms else min(bottoms),
        "top": None if None in tops else max(tops),
    }
