"""Scene-wide settings of a Foundry scene: grid, canvas size and ambient light.

Grid distances are in grid units, sizes in px (FORMATS.md A.1, A.2, A.6).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from adapters._common import diagonal_rule, finite_number, grid_units
from adapters.foundry._context import Context, enum_value, positive_number
from service.model import MAX_UNITS, MIN_GRID_DISTANCE

_GRID_TYPES = {0: "gridless", 1: "square", 2: "hex-row", 3: "hex-row", 4: "hex-col", 5: "hex-col"}
# Foundry v12+ CONST.GRID_DIAGONALS -> (canonical rule, warning or None)
_DIAGONALS = {
    0: ("equidistant", None),
    1: ("euclidean", None),
    2: ("euclidean", None),
    3: ("equidistant", "RECTILINEAR (3) has no canonical rule, equidistant used"),
    4: ("alternating", None),
    5: ("alternating", None),
    6: ("equidistant", "ILLEGAL (6) has no canonical rule, equidistant used"),
}


def read_grid(doc: Mapping, ctx: Context) -> dict:
    """Canonical grid from the flat (<= v9) or object (v10+) grid fields (FORMATS.md A.2).

    Parameters
    ----------
    doc : Mapping
        The Foundry scene document.
    ctx : Context
        Per-call state; every warning goes to ``ctx.warnings``.

    Returns
    -------
    dict
        ``{"size"`` (px), ``"distance"`` (units per square), ``"units"``, ``"type"``,
        ``"diagonals"}``.

    Raises
    ------
    AdapterError
        When the grid size is not a positive number (path ``grid`` or ``grid.size``).
    """
    raw = doc.get("grid")
    size_path: tuple[str, ...]
    if isinstance(raw, Mapping):
        size, size_path = raw.get("size"), ("grid", "size")
        gtype, distance, units = raw.get("type"), raw.get("distance"), raw.get("units")
        diagonals = raw.get("diagonals")
        paths = {"distance": "grid.distance", "units": "grid.units", "type": "grid.type"}
    else:
        size, size_path = raw, ("grid",)
        gtype, distance = doc.get("gridType"), doc.get("gridDistance")
        units, diagonals = doc.get("gridUnits"), None
        paths = {"distance": "gridDistance", "units": "gridUnits", "type": "gridType"}
    size_px = positive_number(size)
    if size_px is None:
        raise ctx.error(f"grid size must be a positive number of pixels, got {size!r}", *size_path)
    distance_units = positive_number(distance)
    if distance_units is None or not MIN_GRID_DISTANCE <= distance_units <= MAX_UNITS:
        ctx.warn(f"{paths['distance']}: {distance!r} is not a usable distance, 5 used")
        distance_units = 5
    units_out = grid_units(units, paths["units"], ctx.warn)

    gtype_out = "square" if gtype is None else enum_value(_GRID_TYPES, gtype)
    if gtype_out is None:
        ctx.warn(f"{paths['type']}: unknown grid type {gtype!r}, square used")
        gtype_out = "square"
    elif gtype_out.startswith("hex"):
        ctx.warn(
            f"{paths['type']}: hex grid ({gtype}) geometry is approximated "
            "(padding and cells computed as for a square grid)"
        )

    diag_out = "equidistant"
    if diagonals is not None:
        rule = enum_value(_DIAGONALS, diagonals)
        diag_out = diagonal_rule(rule, diagonals, "grid.diagonals", ctx.warn)
    return {
        "size": size_px,
        "distance": distance_units,
        "units": units_out,
        "type": gtype_out,
        "diagonals": diag_out,
    }


def canvas_size(doc: Mapping, size: float, ctx: Context) -> dict:
    """Full canvas ``width``/``height`` in px, padding included (FORMATS.md A.1)."""
    width, height = positive_number(doc.get("width")), positive_number(doc.get("height"))
    if width is None or height is None:
        ctx.warn(
            f"width/height: {doc.get('width')!r} x {doc.get('height')!r} is not a "
            "picture size in px, canvas size unknown (null)"
        )
        return {"width": None, "height": None}
    raw_padding = doc.get("padding")
    padding = 0 if raw_padding is None else finite_number(raw_padding)
    if padding is None or not 0 <= padding <= 0.5:
        ctx.warn(f"padding: {raw_padding!r} is not a fraction between 0 and 0.5, 0 used")
        padding = 0
    pad_x = math.ceil(width * padding / size) * size
    pad_y = math.ceil(height * padding / size) * size
    return {"width": width + 2 * pad_x, "height": height + 2 * pad_y}


def read_environment(doc: Mapping, ctx: Context) -> tuple[dict, float | None]:
    """Canonical ambient light level and the raw scene darkness (FORMATS.md A.6).

    Foundry's rule: with global illumination active (enabled, and the darkness level within
    its range or under its threshold) the whole scene is lit — bright, or dim when a v12+
    global light is not in bright mode; without it, every place no light reaches is dark
    (the darkness level only tints the canvas). The raw darkness goes into ``stats``.
    """
    env = doc.get("environment")
    bright_mode = True
    if isinstance(env, Mapping):
        darkness, path = env.get("darknessLevel"), "environment.darknessLevel"
        glight = env.get("globalLight")
        glight = glight if isinstance(glight, Mapping) else {}
        enabled = glight.get("enabled") is True
        bright_mode = glight.get("bright") is not False
        limits = glight.get("darkness")
        threshold = limits.get("max") if isinstance(limits, Mapping) else None
    else:
        darkness, path = doc.get("darkness"), "darkness"
        enabled = doc.get("globalLight") is True
        threshold = doc.get("globalLightThreshold")
    if darkness is not None and finite_number(darkness) is None:
        ctx.warn(f"{path}: {darkness!r} is not a number, 0 used")
        darkness = None
    level = 0 if darkness is None else darkness
    threshold = finite_number(threshold)
    if enabled and (threshold is None or level <= threshold):
        light = "bright" if bright_mode else "dim"
    else:
        light = "dark"
    return {"light": light, "gravity": 1, "underwater": False}, darkness
