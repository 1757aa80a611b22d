"""Page settings of a Roll20 page: grid, page size and ambient light.

The grid square is the snapping cell (70 x ``snapping_increment`` px), distances are in
page scale units, sizes in px (FORMATS.md B.1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from adapters._common import (
    canonical_environment,
    canonical_grid,
    clean,
    diagonal_rule,
    grid_units,
)
from adapters.roll20._context import UNIT_PX, Context, Page, parse_number, read_number, truthy
from service.model import (
    MAX_EXTENT_PX,
    MAX_GRID_SIZE_PX,
    MAX_UNITS,
    MIN_GRID_DISTANCE,
    MIN_GRID_SIZE_PX,
    Grid,
)

#: Roll20 ``grid_type`` -> canonical grid type. Roll20's "Hex (V)" (``hex``) draws pointy-topped
#: hexagons in rows, every odd row (0-based) pushed half a hexagon to the right; "Hex (H)"
#: (``hexr``) draws flat-topped hexagons in columns, every odd column pushed half a hexagon
#: down (Roll20/roll20-api-scripts ``Hexploration/src/HexagonTile.js``, which aligns hexagons
#: to the page grid: vertices from 30 deg and a row shift for ``hex``, from 0 deg and a column
#: shift for ``hexr``; help.roll20.net "Page Settings": the cell is sized by its width on
#: Hex (V), by its height on Hex (H)). Canonical ``hex-row`` is the row-wise, pointy-topped
#: grid and ``hex-col`` the column-wise, flat-topped one (Foundry HEXODDR/HEXODDQ).
_GRID_TYPES = {"square": "square", "hex": "hex-row", "hexr": "hex-col"}
#: ``Grid.hex_offset`` of both Roll20 hex grids. The canonical lattice (Foundry's) starts at
#: the scene's (0, 0): with "odd", row (column) 0 has its hexagons centred on the edge, cut in
#: half, and the odd rows (columns) are the shifted ones; with "even" row (column) 0 starts
#: with a whole hexagon against the edge ("start at a full grid space", Foundry's
#: ``HexagonalGrid``). Roll20 draws a whole hexagon in the page's top-left corner (the first
#: centre half a hexagon from each edge, HexagonTile.js) and pushes its odd rows (columns)
#: further in: the canonical "even" lattice.
HEX_OFFSET = "even"
#: Px between the centres of neighbouring hexagons along Roll20's straight lines of them
#: (rows of ``hex``, columns of ``hexr``), per 70 px page unit of ``snapping_increment``: the
#: canonical hex ``size`` (HexagonTile.js; a Roll20 forum thread on hex maths,
#: app.roll20.net/forum/post/2882234, notes the same: centres are not 70 px apart).
HEX_SIZE_PER_UNIT = {"hex-row": 75.1986, "hex-col": 79.6888}
#: Px between Roll20's rows (``hex``) or columns (``hexr``) per page unit. Regular hexagons
#: ``size`` apart would have them ``size * sqrt(3) / 2`` apart (65.12 and 69.01): Roll20's
#: hexagons are slightly stretched, so the regular canonical lattice drifts from Roll20's
#: across the page (warned with the drift at the page's far edge).
HEX_STRIDE_PER_UNIT = {"hex-row": 66.9658, "hex-col": 69.5851}
#: Roll20 ``diagonaltype`` -> (canonical rule, note warned about). "Manhattan" counts a
#: diagonal step as two; no canonical rule does, and ``alternating`` (1.5 a step on average)
#: is the nearest, so the measure errs short by a quarter at most.
_DIAGONALS = {
    "foure": ("equidistant", None),
    "pythagorean": ("euclidean", None),
    "threefive": ("alternating", None),
    "manhattan": (
        "alternating",
        "manhattan (a diagonal step counts two squares) has no canonical rule; "
        "alternating (5-10-5), the nearest, used",
    ),
}


def read_grid(attrs: Mapping, page: Page, ctx: Context) -> dict:
    """Canonical grid from the page settings (FORMATS.md B.1, pitfall 12; RULES.md GEO-8).

    ``size`` = 70 x ``snapping_increment`` px on a square page; on a hex page the px between
    neighbouring hexagon centres (:data:`HEX_SIZE_PER_UNIT` x ``snapping_increment``, with a
    warning saying how far Roll20's stretched hexagons drift from regular ones);
    ``distance`` = ``scale_number`` grid units of ``scale_units`` ("ft" or "m") per cell;
    ``type`` from ``grid_type`` (``hex`` -> "hex-row", ``hexr`` -> "hex-col", see
    :data:`_GRID_TYPES`; ``hex_offset`` :data:`HEX_OFFSET` when the model has that field);
    ``diagonals`` from ``diagonaltype``, None (unset: each ruleset's default) when the page
    does not say or says something unknown (warned).
    """
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
    ctx.cell_px = size

    distance = read_number(attrs.get("scale_number"), at("scale_number"), ctx)
    if distance is None:
        distance = 5
    elif not MIN_GRID_DISTANCE <= distance <= MAX_UNITS:
        ctx.warn(f"{at('scale_number')}: {distance!r} is not a usable distance, 5 used")
        distance = 5

    units_raw = attrs.get("scale_units")
    units = "ft" if units_raw is None else grid_units(units_raw, at("scale_units"), ctx.warn)

    gtype = _grid_type(attrs.get("grid_type"), at("grid_type"), ctx)
    diagonals = _diagonals(attrs.get("diagonaltype"), at("diagonaltype"), ctx)
    grid = canonical_grid(size, distance, units, gtype, diagonals)
    if gtype in HEX_SIZE_PER_UNIT:
        grid["size"] = clean(round(HEX_SIZE_PER_UNIT[gtype] * snapping, 6))
        _warn_hex_drift(gtype, snapping, attrs, at("grid_type"), ctx)
        if "hex_offset" in Grid.__struct_fields__:
            grid["hex_offset"] = HEX_OFFSET
    return grid


def _grid_type(value: object, where: str, ctx: Context) -> str:
    """Canonical grid type of a ``grid_type`` (:data:`_GRID_TYPES`); absent or blank: square."""
    key = value.strip().lower() if isinstance(value, str) else None
    if value is None or key == "":
        return "square"
    if key is not None and key in _GRID_TYPES:
        return _GRID_TYPES[key]
    ctx.warn(f"{where}: unknown grid type {value!r}, square used")
    return "square"


def _diagonals(value: object, where: str, ctx: Context) -> str | None:
    """Canonical rule of a ``diagonaltype`` (:data:`_DIAGONALS`).

    None (unset: each ruleset's own default, GEO-8) when absent, blank or unknown (warned).
    """
    key = value.strip().lower() if isinstance(value, str) else None
    if value is None or key == "":
        return None
    rule = _DIAGONALS.get(key) if key is not None else None
    if rule is None:
        ctx.warn(f"{where}: unknown value {value!r}, left unset (each ruleset's default)")
        return None
    return diagonal_rule(rule, value, where, ctx.warn)


def _warn_hex_drift(gtype: str, snapping: float, attrs: Mapping, where: str, ctx: Context) -> None:
    """Warn how far the regular canonical hexagons drift from Roll20's stretched ones."""
    size = HEX_SIZE_PER_UNIT[gtype] * snapping
    stride = HEX_STRIDE_PER_UNIT[gtype] * snapping
    regular = size * math.sqrt(3) / 2
    lines, line, key, edge = (
        ("rows", "row", "height", "bottom")
        if gtype == "hex-row"
        else ("columns", "column", "width", "right")
    )
    pages, _ = parse_number(attrs.get(key))
    drift = ""
    if pages is not None and 0 < pages * UNIT_PX <= MAX_EXTENT_PX:
        far = pages * UNIT_PX * (stride - regular) / stride
        drift = f", by up to {far:.0f} px at the {edge} of the page"
    ctx.warn(
        f"{where}: Roll20 draws its {lines} of hexagons {stride:.2f} px apart, where regular "
        f"hexagons {clean(round(size, 6))} px apart along a {line} would be {regular:.2f} px "
        f"apart: the canonical (regular) lattice drifts from Roll20's{drift}"
    )


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
    return canonical_environment(light)
