"""Page settings of a Roll20 page: grid, page size and ambient light.

The grid square is the snapping cell (70 x ``snapping_increment`` px), distances are in
page scale units, sizes in px (FORMATS.md B.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters._common import clean, diagonal_rule, grid_units
from adapters.roll20._context import UNIT_PX, Context, Page, parse_number, read_number, truthy
from service.model import (
    MAX_EXTENT_PX,
    MAX_GRID_SIZE_PX,
    MAX_UNITS,
    MIN_GRID_DISTANCE,
    MIN_GRID_SIZE_PX,
)

_GRID_TYPES = {"square": "square", "hex": "hex-col", "hexr": "hex-row"}
_DIAGONALS = {
    "foure": ("equidistant", None),
    "pythagorean": ("euclidean", None),
    "threefive": ("alternating", None),
    "manhattan": ("equidistant", "manhattan has no canonical rule, equidistant used"),
}


def read_grid(attrs: Mapping, page: Page, ctx: Context) -> dict:
    """Canonical grid: size = 70 x snapping_increment px, distance = scale_number."""
    where = page.attr_prefix

    def at(key: str) -> str:
        return ctx.where(*where, key)

    snapping = read_number(attrs.get("snapping_increment"), at("snapping_increment"), ctx)
    if snapping is None:
        snapping = 1
    elif not MIN_GRID_SIZE_PX <= snapping * UNIT_PX <= MAX_GRID_SIZE_PX:
        ctx.warn(
            f"{at('snapping_increment')}: {snapping!r} gives no usable cell size "
            "(0 = snapping off), 1 used (70 px squares)"
        )
        snapping = 1
    size = clean(snapping * UNIT_PX)

    distance = read_number(attrs.get("scale_number"), at("scale_number"), ctx)
    if distance is None:
        distance = 5
    elif not MIN_GRID_DISTANCE <= distance <= MAX_UNITS:
        ctx.warn(f"{at('scale_number')}: {distance!r} is not a usable distance, 5 used")
        distance = 5

    units_raw = attrs.get("scale_units")
    units = "ft" if units_raw is None else grid_units(units_raw, at("scale_units"), ctx.warn)

    gtype_raw = attrs.get("grid_type")
    gkey = gtype_raw.strip().lower() if isinstance(gtype_raw, str) else None
    if gtype_raw is None or gkey == "":
        gtype = "square"
    elif gkey is not None and gkey in _GRID_TYPES:
        gtype = _GRID_TYPES[gkey]
        if gtype != "square":
            ctx.warn(
                f"{at('grid_type')}: hex grid ({gtype_raw}) read as {gtype}; hex geometry "
                "is approximated (cell size taken as the snapping width)"
            )
    else:
        ctx.warn(f"{at('grid_type')}: unknown grid type {gtype_raw!r}, square used")
        gtype = "square"

    diag_raw = attrs.get("diagonaltype")
    dkey = diag_raw.strip().lower() if isinstance(diag_raw, str) else None
    diagonals = "equidistant"
    if diag_raw is not None and dkey != "":
        rule = _DIAGONALS.get(dkey) if dkey is not None else None
        diagonals = diagonal_rule(rule, diag_raw, at("diagonaltype"), ctx.warn)
    return {
        "size": size,
        "distance": distance,
        "units": units,
        "type": gtype,
        "diagonals": diagonals,
    }


def page_size(attrs: Mapping, page: Page, ctx: Context) -> dict:
    """Page ``width``/``height`` in px: page units x 70 (FORMATS.md B.1)."""
    out: dict[str, Any] = {}
    for key in ("width", "height"):
        where = ctx.where(*page.attr_prefix, key)
        value, _ = parse_number(attrs.get(key))
        if value is None or not 0 < value * UNIT_PX <= MAX_EXTENT_PX:
            ctx.warn(f"{where}: {attrs.get(key)!r} is not a page size, size unknown (null)")
            out[key] = None
        else:
            out[key] = clean(value * UNIT_PX)
    return out


def lighting_mode(attrs: Mapping) -> str:
    """The page's dynamic lighting: ``"updated"`` (UDL), ``"legacy"`` or ``"off"``."""
    if truthy(attrs.get("dynamic_lighting_enabled")):
        return "updated"
    if truthy(attrs.get("showlighting")):
        return "legacy"
    return "off"


def read_environment(attrs: Mapping, page: Page, ctx: Context) -> dict:
    """Ambient light level from the page's lighting settings (rules in ``adapters.roll20``).

    Returns
    -------
    dict
        ``{"light": "bright" | "dim" | "dark", "gravity": 1, "underwater": False}``.
    """
    light = "bright"
    if ctx.lighting == "legacy":
        light = "bright" if truthy(attrs.get("lightglobalillum")) else "dark"
    elif ctx.lighting == "updated":
        if truthy(attrs.get("daylight_mode_enabled")):
            where = ctx.where(*page.attr_prefix, "daylightModeOpacity")
            opacity = read_number(attrs.get("daylightModeOpacity"), where, ctx)
            if opacity is None:
                opacity = 1
            if opacity > 1:
                opacity = opacity / 100
            if not 0 <= opacity <= 1:
                ctx.warn(f"{where}: {opacity!r} is not a fraction, 1 used")
                opacity = 1
            light = "bright" if opacity >= 0.75 else "dim" if opacity >= 0.25 else "dark"
        else:
            light = "dark"
    return {"light": light, "gravity": 1, "underwater": False}
