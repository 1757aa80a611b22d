"""Scene-wide settings of a Foundry scene: grid, canvas size and ambient light.

Grid distances are in grid units, sizes in px (FORMATS.md A.1, A.2, A.6).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adapters._common import (
    UNITS,
    canonical_environment,
    canonical_grid,
    clean,
    diagonal_rule,
    finite_number,
    grid_units,
)
from adapters.foundry._context import Context, enum_value, positive_number
from service.model import MAX_UNITS, MIN_GRID_DISTANCE

#: Foundry CONST.GRID_TYPES -> canonical grid type (FORMATS.md A.2 pitfall: R = rows offset,
#: pointy-topped; Q = columns offset, flat-topped).
GRID_TYPES = {0: "gridless", 1: "square", 2: "hex-row", 3: "hex-row", 4: "hex-col", 5: "hex-col"}
#: Foundry CONST.GRID_TYPES names, for the stats and warnings.
GRID_TYPE_NAMES = {
    0: "GRIDLESS",
    1: "SQUARE",
    2: "HEXODDR",
    3: "HEXEVENR",
    4: "HEXODDQ",
    5: "HEXEVENQ",
}
#: Which rows (HEX*R) or columns (HEX*Q) of a Foundry hex grid are shifted by half a cell.
#: The canonical ``Grid`` has no field for it yet; see :func:`read_grid`.
HEX_OFFSETS = {2: "odd", 3: "even", 4: "odd", 5: "even"}

#: Canonical hex size (between adjacent centres) per px of a legacy (<= v9, or
#: ``flags.core.legacyHex``) Foundry hex size (across the corners): sqrt(3) / 2.
LEGACY_HEX_FACTOR = math.sqrt(3) / 2

#: Foundry v12+ CONST.GRID_DIAGONALS (world setting ``core.gridDiagonals``; a ``grid.diagonals``
#: when a scene carries one) -> (canonical rule, note warned about or None).
DIAGONALS = {
    0: ("equidistant", None),
    1: ("euclidean", None),
    2: ("euclidean", "APPROXIMATE (2, 1.5 per diagonal) read as euclidean (about 1.41)"),
    3: ("alternating", "RECTILINEAR (3, 2 per diagonal) has no canonical rule, alternating used"),
    4: ("alternating", None),
    5: ("alternating", "ALTERNATING_2 (5, 2-1-2) read as alternating 1-2-1"),
    6: ("alternating", "ILLEGAL (6, no diagonal moves) has no canonical rule, alternating used"),
}
#: The dnd5e system's diagonal setting before Foundry v12 (``dnd5e.diagonalMovement``).
LEGACY_DIAGONALS = {
    "555": ("equidistant", None),
    "5105": ("alternating", None),
    "EUCL": ("euclidean", None),
}
#: Settings keys of a world export that hold a diagonal rule, newest first.
_DIAGONAL_SETTINGS = ("core.gridDiagonals", "dnd5e.diagonalMovement", "dnd5e.diagonalRule")

#: Foundry grid unit spellings that ``adapters._common.UNITS`` does not know, with the
#: canonical unit assumed (each use is warned about).
ASSUMED_UNITS = {
    "schritt": ("m", "Schritt (The Dark Eye's pace) is one metre"),
    "fuss": ("ft", "Fuss is the German foot"),
    "fuß": ("ft", "Fuß is the German foot"),
    "pies": ("ft", "pies is the Spanish foot"),
    "pieds": ("ft", "pieds is the French foot"),
    "mètres": ("m", "mètres are metres"),
    "metros": ("m", "metros are metres"),
    "metri": ("m", "metri are metres"),
    "meter": ("m", "Meter are metres"),
}


def read_grid(doc: Mapping, ctx: Context, settings: object = None) -> tuple[dict, dict]:
    """Canonical grid from the flat (<= v9) or object (v10+) grid fields (FORMATS.md A.2).

    Parameters
    ----------
    doc : Mapping
        The Foundry scene document.
    ctx : Context
        Per-call state; every warning goes to ``ctx.warnings``.
    settings : object, optional
        A world export's ``settings`` list (``[{key, value}, ...]``), read for the diagonal
        rule (``core.gridDiagonals`` from v12, ``dnd5e.diagonalMovement`` before).

    Returns
    -------
    tuple of (dict, dict)
        The canonical grid ``{"size"`` (px), ``"distance"`` (units per square), ``"units"``,
        ``"type"``, ``"diagonals"}`` (None when the export sets no rule: each ruleset's
        default, GEO-8), and where each of type, diagonals and units was read, for the stats.
        A legacy hex grid (<= v9, or ``flags.core.legacyHex``) has its size scaled by
        :data:`LEGACY_HEX_FACTOR` (``ctx.cell_px`` keeps the exported size, which the canvas
        padding is counted in).

    Raises
    ------
    AdapterError
        When the grid size is not a positive number (path ``grid`` or ``grid.size``).
    """
    raw = doc.get("grid")
    fields = _grid_fields(doc)
    size_px = positive_number(fields.size)
    if size_px is None:
        raise ctx.error(
            f"grid size must be a positive number of pixels, got {fields.size!r}", *fields.size_at
        )
    ctx.cell_px = size_px
    distance = positive_number(fields.distance)
    if distance is None or not MIN_GRID_DISTANCE <= distance <= MAX_UNITS:
        ctx.warn(f"{fields.distance_at}: {fields.distance!r} is not a usable distance, 5 used")
        distance = 5
    units = _units(fields.units, fields.units_at, ctx)
    read: dict[str, str] = {}
    gtype, read["grid.type"] = _grid_type(fields.type, fields.type_at, ctx)
    if gtype.startswith("hex"):
        size_px = _hex_size(doc, size_px, isinstance(raw, Mapping), read)
    diagonals, read["grid.diagonals"] = _diagonals(doc, raw, settings, ctx)
    read["grid.units"] = f"{fields.units_at} {fields.units!r}: {units}"
    grid = canonical_grid(size_px, distance, units, gtype, diagonals)
    if fields.type is not None and gtype.startswith("hex"):
        grid["hex_offset"] = HEX_OFFSETS.get(int(fields.type), "odd")
    return grid, read


@dataclass(frozen=True)
class _GridFields:
    """A scene's grid fields as exported, and the path of each in warnings."""

    size: Any
    size_at: tuple[str, ...]
    type: Any
    type_at: str
    distance: Any
    distance_at: str
    units: Any
    units_at: str


def _grid_fields(doc: Mapping) -> _GridFields:
    """The v10+ ``grid {size, type, distance, units}`` object, or the <= v9 flat fields.

    Up to v9 ``grid`` is the size in px and ``gridType``, ``gridDistance`` and ``gridUnits``
    sit on the scene (FORMATS.md A.2).
    """
    raw = doc.get("grid")
    if isinstance(raw, Mapping):
        return _GridFields(
            raw.get("size"),
            ("grid", "size"),
            raw.get("type"),
            "grid.type",
            raw.get("distance"),
            "grid.distance",
            raw.get("units"),
            "grid.units",
        )
    return _GridFields(
        raw,
        ("grid",),
        doc.get("gridType"),
        "gridType",
        doc.get("gridDistance"),
        "gridDistance",
        doc.get("gridUnits"),
        "gridUnits",
    )


def _grid_type(value: Any, where: str, ctx: Context) -> tuple[str, str]:
    """Canonical grid type of a CONST.GRID_TYPES value (absent: square), and how it was read."""
    if value is None:
        return "square", f"{where} absent: square"
    gtype = enum_value(GRID_TYPES, value)
    if gtype is None:
        ctx.warn(f"{where}: unknown grid type {value!r}, square used")
        return "square", f"{where} {value!r} unknown: square"
    offset = HEX_OFFSETS.get(int(value))
    shifted = f", {offset} {'rows' if gtype == 'hex-row' else 'columns'} shifted"
    read = f"{where} {GRID_TYPE_NAMES[int(value)]} ({value}): {gtype}"
    return gtype, read + (shifted if offset else "")


def _hex_size(doc: Mapping, size_px: float, object_grid: bool, read: dict[str, str]) -> float:
    """Canonical hex size: a legacy hex size (<= v9, or ``flags.core.legacyHex``) scaled.

    Before v10 a hex grid's size was measured across the hex's corners; the canonical size is
    the distance between adjacent hex centres (across the flat sides):
    :data:`LEGACY_HEX_FACTOR` times it. A scaled size is noted in ``read["grid.size"]``.
    """
    flags = doc.get("flags")
    core = flags.get("core") if isinstance(flags, Mapping) else None
    legacy_flag = isinstance(core, Mapping) and core.get("legacyHex") is True
    if not legacy_flag and object_grid:
        return size_px
    why = "flags.core.legacyHex" if legacy_flag else "a <= v9 hex grid"
    scaled = clean(size_px * LEGACY_HEX_FACTOR)
    read["grid.size"] = f"{why}: {size_px} px across the corners, {scaled} px between hex centres"
    return scaled


def _units(value: object, where: str, ctx: Context) -> str:
    """Canonical unit; foreign spellings assumed with a warning.

    A blank unit or a count of spaces (Lancer: blank, 1 unit a hex) counts in spaces (GEO-8,
    FORMATS.md pitfall 17).
    """
    key = value.strip().lower() if isinstance(value, str) else None
    if key in UNITS and UNITS[key] != "squares":
        return UNITS[key]
    if key in ASSUMED_UNITS:
        unit, why = ASSUMED_UNITS[key]
        ctx.warn(f"{where}: {value!r} read as {unit!r} ({why})")
        return unit
    if value is None:
        ctx.warn(f"{where}: no unit given, 'ft' assumed (distances stay in grid units)")
        return "ft"
    return grid_units(value, where, ctx.warn)  # blank or spaces: counted in spaces (GEO-8)


def _diagonals(
    doc: Mapping, grid: object, settings: object, ctx: Context
) -> tuple[str | None, str]:
    """The scene's diagonal rule and where it was read; ``(None, ...)`` when none is set."""
    candidates: list[tuple[str, object, bool]] = []  # (where, value, legacy dnd5e values?)
    if isinstance(grid, Mapping) and grid.get("diagonals") is not None:
        candidates.append(("grid.diagonals", grid.get("diagonals"), False))
    if doc.get("diagonalRule") is not None:
        candidates.append(("diagonalRule", doc.get("diagonalRule"), True))
    for i, entry in enumerate(settings if isinstance(settings, list) else []):
        if not isinstance(entry, Mapping) or entry.get("key") not in _DIAGONAL_SETTINGS:
            continue
        value = entry.get("value")
        if isinstance(value, str):  # world settings store JSON text
            try:
                value = json.loads(value)
            except ValueError:
                pass
        legacy = entry["key"] != "core.gridDiagonals"
        candidates.append((f"settings[{i}] {entry['key']}", value, legacy))
    if not candidates:
        return None, "not set in the export: each ruleset's default (GEO-8)"
    where, value, legacy = candidates[0]
    if legacy:
        rule = LEGACY_DIAGONALS.get(value.strip().upper()) if isinstance(value, str) else None
    else:
        rule = enum_value(DIAGONALS, value)
    if rule is None:
        ctx.warn(f"{where}: unknown diagonal rule {value!r}, left unset (each ruleset's default)")
        return None, f"{where} {value!r} unknown: unset"
    out = diagonal_rule(rule, value, where, ctx.warn)
    return out, f"{where} {value!r}: {out}"


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


#: Darkness levels (0 to 1) closer than this to a global light's threshold count as at it.
DARKNESS_TOLERANCE = 1e-9


@dataclass(frozen=True)
class GlobalLight:
    """A scene's global illumination (FORMATS.md A.6): what lights places no light reaches.

    ``threshold``: the darkness level above which it goes out (v12+
    ``environment.globalLight.darkness.max``, <= v11 ``globalLightThreshold``; None: never).
    ``bright``: v12+ ``globalLight.bright`` (false: the global light is dim).
    """

    enabled: bool = False
    threshold: float | None = None
    bright: bool = True

    def light_at(self, darkness: float) -> str:
        """Ambient light level where the darkness level is ``darkness`` (0 day .. 1 night).

        A level within :data:`DARKNESS_TOLERANCE` above the threshold counts as at it: the
        region formulas' float noise (darkening 0.1 by 0 gives 0.09999999999999998) must not
        decide whether the global light shines.
        """
        limit = None if self.threshold is None else self.threshold + DARKNESS_TOLERANCE
        if self.enabled and (limit is None or darkness <= limit):
            return "bright" if self.bright else "dim"
        return "dark"


def read_environment(doc: Mapping, ctx: Context) -> tuple[dict, float | None, GlobalLight]:
    """Canonical ambient light level, the raw scene darkness and the global light (A.6).

    Foundry's rule: with global illumination active (enabled, and the darkness level within
    its range or under its threshold) the whole scene is lit — bright, or dim when a v12+
    global light is not in bright mode; without it, every place no light reaches is dark
    (the darkness level only tints the canvas). The raw darkness goes into ``stats``.
    A scene with ``tokenVision: false`` restricts no vision: it is ambient ``bright``, with a
    warning (FORMATS.md pitfall 14).
    """
    env = doc.get("environment")
    bright_mode = True
    if isinstance(env, Mapping):
        darkness, path = env.get("darknessLevel"), "environment.darknessLevel"
        glight = env.get("globalLight")
        glight = glight if isinstance(glight, Mapping) else {}
        enabled = glight.get("enabled") is True
        bright_mode = glight.get("bright") is True  # v12's field starts false (dim)
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
    global_light = GlobalLight(enabled, finite_number(threshold), bright_mode)
    if doc.get("tokenVision") is False:
        ctx.warn(
            "tokenVision: false (the scene restricts no vision: players see everything), "
            "imported as ambient bright light"
        )
        return canonical_environment("bright"), darkness, global_light
    return canonical_environment(global_light.light_at(level)), darkness, global_light
