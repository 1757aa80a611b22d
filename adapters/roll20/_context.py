"""What every part of the Roll20 adapter shares: context, chosen page, value readers.

The per-call context, the chosen page and readers of Roll20's loosely typed values (numbers
as strings, booleans as "true"/1).

The readers warn (through :class:`Context`) and return None or a default rather than raise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from adapters._common import finite_number, json_path
from adapters.errors import AdapterError
from service.model import MAX_UNITS

#: Pixels in one Roll20 page unit (page ``width``/``height`` are counted in these).
UNIT_PX = 70
#: Roll20 layer names as warnings show them.
LAYER_LABELS = {
    "map": "map layer (map images)",
    "walls": "dynamic lighting layer",
    "foreground": "foreground layer",
    "objects": "token layer",
    "gmlayer": "GM layer",
}


def layer_label(layer: object) -> str:
    """How warnings name a Roll20 layer: :data:`LAYER_LABELS`, or ``unknown layer '<name>'``."""
    return LAYER_LABELS.get(str(layer), f"unknown layer {layer!r}")


@dataclass
class Context:
    """Per-call state: warnings, JSON path prefix of the page, grid (sizes in px)."""

    prefix: str
    error_prefix: tuple[str | int, ...]
    warnings: list[str] = field(default_factory=list)
    grid_size: float = UNIT_PX
    #: Px of one grid cell as Roll20 sizes graphics (70 x snapping_increment): the grid size
    #: on a square page; on a hex page the grid size is the hexagons' centre spacing.
    cell_px: float = UNIT_PX
    grid_type: str = "square"
    distance: float = 5
    lighting: str = "off"

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def where(self, *parts: str | int) -> str:
        return json_path((self.prefix, *parts))

    def error(self, message: str, *path: str | int) -> AdapterError:
        return AdapterError(message, self.error_prefix + path)


@dataclass
class Page:
    """The chosen page: its attributes, its content, where it sits, which layout."""

    attributes: Mapping
    content: Mapping
    prefix: str
    error_prefix: tuple[str | int, ...]
    attr_prefix: tuple[str | int, ...]
    index: int | None
    layout: str


def parse_number(value: object) -> tuple[float | None, bool]:
    """Parse a Roll20 number field, which may be a number or a string.

    Returns ``(number, True)`` for a finite number or numeric string, ``(None, True)`` for
    None or "" (unset) and ``(None, False)`` for anything else.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, True
    number = finite_number(value)
    if number is not None:
        return number, True
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text), True
        except ValueError:
            pass
        try:
            parsed = float(text)
        except ValueError:
            parsed = math.nan
        if math.isfinite(parsed):
            return parsed, True
    return None, False


def read_number(value: object, where: str, ctx: Context) -> float | None:
    """A finite number or numeric string; None (silently) for None/"", else None + warning."""
    number, ok = parse_number(value)
    if not ok:
        ctx.warn(f"{where}: {value!r} is not a number, ignored")
    return number


def read_distance(value: object, where: str, ctx: Context) -> float | None:
    """A radius/range in page units: a non-negative number <= MAX_UNITS, else None."""
    number = read_number(value, where, ctx)
    if number is None:
        return None
    if not 0 <= number <= MAX_UNITS:
        ctx.warn(f"{where}: {number!r} is not a distance, ignored")
        return None
    return number


def truthy(value: object) -> bool:
    """Roll20 booleans: ``true``, also the strings "true"/"1" and the number 1."""
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1")
    if isinstance(value, bool):
        return value
    return isinstance(value, int | float) and value == 1


def falsy(value: object) -> bool:
    """Roll20 booleans set to false: ``false``, also the strings "false"/"0" and the number 0.

    None and "" (unset) are not false: the caller chooses what an unset flag means.
    """
    if isinstance(value, str):
        return value.strip().lower() in ("false", "0")
    if isinstance(value, bool):
        return not value
    return isinstance(value, int | float) and value == 0


def left_top(raw: Mapping, where: str, what: str, ctx: Context) -> tuple[float, float] | None:
    """Page-px ``left``/``top`` of a path or graphic, or None (``what`` skipped, warned)."""
    left = read_number(raw.get("left"), f"{where}.left", ctx)
    top = read_number(raw.get("top"), f"{where}.top", ctx)
    if left is None or top is None:
        ctx.warn(
            f"{where}.left/top: ({raw.get('left')!r}, {raw.get('top')!r}) is not a "
            f"position, {what} skipped"
        )
        return None
    return left, top
