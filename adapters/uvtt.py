"""Universal VTT files (``.dd2vtt``/``.uvtt``/``.df2vtt``, format 0.2 and 0.3) -> canonical scene.

A Universal VTT file (FORMATS.md (c)) holds a map picture and its geometry in **grid cells**:
``resolution {map_origin, map_size, pixels_per_grid}``, ``line_of_sight`` and (0.3)
``objects_line_of_sight`` polylines, ``portals`` (doors), ``lights`` and ``environment``.

Frames and units
----------------
* Positions become pixels of the map picture, top-left at (0, 0), y down:
  ``px = (p - map_origin) * pixels_per_grid``. Canonical ``width``/``height`` are
  ``map_size * pixels_per_grid``.
* Grid: ``size`` = ``pixels_per_grid`` px, ``distance`` = ``grid_distance`` (5 unless
  told) ``grid_units`` ("ft" unless told) per square, square grid; ``diagonals`` unset
  (None): a UVTT file does not say how diagonals count, so each ruleset's default applies
  (RULES.md GEO-8).
* Light ranges (cells) become grid units: ``range * grid_distance``.
* The ``image`` (base64 picture) is never copied into the scene.

Decisions taken where UVTT data has no direct canonical meaning
---------------------------------------------------------------
* Every consecutive pair of points of a ``line_of_sight`` polyline is one wall
  (ids ``los-<i>-<k>``), of an ``objects_line_of_sight`` polyline one wall
  (``olos-<i>-<k>``); both block everything (objects that cast shadows are read as solid).
  Zero-length segments (repeated points) are skipped with one warning.
* Each portal is a door wall on its ``bounds`` segment (id ``portal-<i>``), ``door_state``
  ``"closed"`` when ``closed`` is true, else ``"open"``. UVTT does not tell doors from
  windows, so every portal is a door. ``position``, ``rotation`` and ``freestanding`` are
  not needed and not read.
* Cropped exports (``map_origin`` not (0, 0)) still carry the geometry of the whole
  uncropped map (FORMATS.md pitfall 8). Walls and portals lying entirely outside the map
  rectangle are **kept** (they may still block a line that leaves the map) with one warning
  per collection that counts them.
* Lights: ``dim`` (outer radius) = ``range * grid_distance``, ``bright`` = half of it (the
  torch convention: the outer half is dim), omnidirectional, ``walls`` = ``shadows``
  (default true). ``color`` and ``intensity`` only affect how the picture is tinted and
  are ignored without a warning; a light with ``intensity`` <= 0 is off and skipped with
  a warning.
* Environment: ``ambient_light`` (ARGB hex) is read as a brightness
  ``L = alpha/255 * (0.2126 R + 0.7152 G + 0.0722 B)/255`` and mapped like the Foundry
  adapter maps darkness ``1 - L``: ``L > 0.75`` -> ``"bright"``, ``L > 0.25`` -> ``"dim"``,
  else ``"dark"``. No ``ambient_light`` -> ``"bright"``. ``baked_lighting`` (lights painted
  into the picture) does not change the level; it is reported in ``stats``.
* Values the canonical schema would reject (coordinates beyond +-:data:`MAX_COORD_PX`) are
  dropped with a warning so that every result loads.

References
----------
shared/FORMATS.md (c) and its "Pitfalls" 8, 9, 11; shared/DESIGN.md "Canonical scene",
"Frames".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters._common import (
    BEYOND_LIMITS,
    canonical_grid,
    canonical_light,
    canonical_wall,
    clean,
    entries,
    finite_number,
    in_range,
    kind_name,
    point,
    read_bool,
    scene_stats,
    short_list,
    warn_zero_length,
)
from adapters.errors import AdapterError
from adapters.sniff import format_hint
from service.model import (
    MAX_COORD_PX,
    MAX_EXTENT_PX,
    MAX_GRID_SIZE_PX,
    MAX_UNITS,
    MIN_GRID_DISTANCE,
    MIN_GRID_SIZE_PX,
)

__all__ = ["KNOWN_FORMATS", "MAX_COORD_PX", "count_export", "to_scene"]

#: UVTT ``format`` values this adapter was written against.
KNOWN_FORMATS = (0.2, 0.3)

_HEX = re.compile(r"^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")


@dataclass
class _Ctx:
    """Per-call state: warnings, frame (origin, px per cell, map size in cells)."""

    origin: tuple[float, float]
    ppg: float
    size: tuple[float, float] | None
    distance: float
    warnings: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def px(self, x: float, y: float) -> tuple[float, float]:
        return (
            clean((x - self.origin[0]) * self.ppg),
            clean((y - self.origin[1]) * self.ppg),
        )

    def outside(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Whether the segment a-b (cells) misses the map rectangle entirely."""
        if self.size is None:
            return False
        x0, y0 = self.origin
        return not _segment_meets_box(a, b, (x0, y0, x0 + self.size[0], y0 + self.size[1]))


# --------------------------------------------------------------------------- public API


def to_scene(export: Mapping | list, *, grid_distance: float = 5.0, grid_units: str = "ft") -> dict:
    """Translate a Universal VTT file into the canonical scene.

    Parameters
    ----------
    export : Mapping
        The parsed JSON of a ``.dd2vtt``/``.uvtt``/``.df2vtt`` file (format 0.2 or 0.3).
    grid_distance : float
        Distance units per grid square (UVTT files do not say); 5 by default.
    grid_units : {"ft", "m"}
        Unit of ``grid_distance``; "ft" by default.

    Returns
    -------
    dict
        ``{"scene": canonical scene, "stats": {...}, "warnings": [str, ...]}``. ``scene``
        is in map-picture px (top-left (0, 0), y down; ``map_origin`` subtracted), walls
        from ``line_of_sight``/``objects_line_of_sight``/``portals``, no tokens, lights with
        radii in grid units. ``stats`` counts ``walls``, ``doors``, ``tokens`` (0),
        ``lights``, ``regions`` (0) and adds ``uvtt_format`` (the file's ``format``),
        ``baked_lighting`` (bool or None), ``ambient_light`` (the raw ARGB string or None),
        ``walls_outside_map`` (walls and portals lying entirely outside the map rectangle,
        kept). ``warnings`` name the source path of everything skipped, defaulted or kept
        despite lying outside the map.

    Raises
    ------
    AdapterError
        When the export is not a UVTT file (with a hint when it looks like another supported
        format), ``resolution`` or ``resolution.pixels_per_grid`` is missing or unusable,
        ``line_of_sight``/``objects_line_of_sight``/``portals`` is present but not a list, or
        ``grid_distance``/``grid_units`` are invalid. Nothing else is raised.

    References
    ----------
    shared/FORMATS.md (c); shared/DESIGN.md "Canonical scene", "Frames".
    """
    distance = _checked_grid(grid_distance, grid_units)
    export = _checked_export(export)
    warnings: list[str] = []
    version = _format(export.get("format"), warnings)
    ctx = _frame(export.get("resolution"), distance, warnings)
    if "line_of_sight" not in export:
        ctx.warn("line_of_sight: missing, the map has no walls from it")
    width, height = _map_px(ctx)
    environment, baked, ambient = _environment(export.get("environment"), ctx)
    walls, outside = _walls(export, ctx)
    canonical: dict[str, Any] = {
        # UVTT does not say how diagonals count: each ruleset's default (GEO-8)
        "grid": canonical_grid(ctx.ppg, distance, grid_units, "square", None),
        "width": width,
        "height": height,
        "environment": environment,
        "walls": walls,
        "tokens": [],
        "lights": _lights(export, ctx),
        "regions": [],
    }
    stats: dict[str, Any] = scene_stats(canonical, token_lights=False)
    stats.update(
        {
            "uvtt_format": version,
            "baked_lighting": baked,
            "ambient_light": ambient,
            "walls_outside_map": outside,
        }
    )
    return {"scene": canonical, "stats": stats, "warnings": ctx.warnings}


def count_export(export: Mapping) -> tuple[dict[str, int], dict[str, str]]:
    """What a Universal VTT file holds, from its arrays alone; and where it was read.

    ``walls``: a segment per consecutive point pair of each ``line_of_sight`` and
    ``objects_line_of_sight`` polyline, and one per ``portals`` entry; ``lights``: the
    ``lights`` entries. Nothing is translated. Cost: O(polylines).
    """
    segments = sum(
        max(len(line) - 1, 0)
        for key in ("line_of_sight", "objects_line_of_sight")
        if isinstance(export.get(key), list)
        for line in export[key]
        if isinstance(line, list)
    )
    portals = export.get("portals")
    lights = export.get("lights")
    counts = {
        "walls": segments + (len(portals) if isinstance(portals, list) else 0),
        "lights": len(lights) if isinstance(lights, list) else 0,
    }
    where = {
        "walls": "segments of line_of_sight and objects_line_of_sight, and portals",
        "lights": "lights",
    }
    return counts, where


def _checked_grid(grid_distance: float, grid_units: str) -> int | float:
    """The caller's ``grid_distance`` (units per square), checked with ``grid_units``."""
    distance = finite_number(grid_distance)
    if distance is None or not MIN_GRID_DISTANCE <= distance <= MAX_UNITS:
        raise AdapterError(
            "grid_distance must be a number of units per square from "
            f"{MIN_GRID_DISTANCE:g} to {MAX_UNITS:.0f}, got {grid_distance!r}",
            (),
        )
    if grid_units not in ("ft", "m"):
        raise AdapterError(f"grid_units must be 'ft' or 'm', got {grid_units!r}", ())
    return distance


def _checked_export(export: object) -> Mapping:
    """``export``, checked: a UVTT object whose wall collections are lists (else raise)."""
    if not isinstance(export, Mapping):
        raise AdapterError(
            f"a Universal VTT file must be a JSON object, got {kind_name(export)}"
            + format_hint(export, "uvtt"),
            (),
        )
    if "resolution" not in export:
        raise AdapterError(
            "not a Universal VTT file: expected 'resolution' {map_origin, map_size, "
            "pixels_per_grid} and 'line_of_sight'" + format_hint(export, "uvtt"),
            (),
        )
    for key in ("line_of_sight", "objects_line_of_sight", "portals"):
        if export.get(key) is not None and not isinstance(export[key], list):
            raise AdapterError(f"'{key}' must be a list, got {kind_name(export[key])}", (key,))
    return export


def _map_px(ctx: _Ctx) -> tuple[float | None, float | None]:
    """Canonical ``width``/``height``: ``map_size * pixels_per_grid`` px, None when unknown."""
    if ctx.size is None:
        return None, None
    width, height = clean(ctx.size[0] * ctx.ppg), clean(ctx.size[1] * ctx.ppg)
    if 0 < width <= MAX_EXTENT_PX and 0 < height <= MAX_EXTENT_PX:
        return width, height
    ctx.warn("resolution.map_size: picture size beyond the schema's limits, unknown")
    return None, None


# --------------------------------------------------------------------------- header


def _format(value: object, warnings: list[str]) -> float | None:
    """The file's ``format`` number (0.2/0.3 known; others read as 0.3 with a warning)."""
    number = finite_number(value)
    if value is None:
        warnings.append("format: missing, read as 0.3")
        return None
    if number is None:
        warnings.append(f"format: {value!r} is not a number, read as 0.3")
        return None
    if number not in KNOWN_FORMATS:
        warnings.append(f"format: {value!r} is not a known version (0.2, 0.3), read as 0.3")
    return number


def _frame(resolution: object, distance: float, warnings: list[str]) -> _Ctx:
    """Origin, px per cell and map size (cells) from ``resolution``."""
    if not isinstance(resolution, Mapping):
        raise AdapterError(
            f"'resolution' must be an object {{map_origin, map_size, pixels_per_grid}}, "
            f"got {kind_name(resolution)}",
            ("resolution",),
        )
    ppg = finite_number(resolution.get("pixels_per_grid"))
    if ppg is None or not MIN_GRID_SIZE_PX <= ppg <= MAX_GRID_SIZE_PX:
        raise AdapterError(
            "resolution.pixels_per_grid must be a number of pixels from "
            f"{MIN_GRID_SIZE_PX:g} to {MAX_GRID_SIZE_PX:.0f}, got "
            f"{resolution.get('pixels_per_grid')!r}",
            ("resolution", "pixels_per_grid"),
        )
    origin = point(resolution.get("map_origin"))
    if origin is None:
        if resolution.get("map_origin") is not None:
            warnings.append(
                f"resolution.map_origin: {resolution.get('map_origin')!r} is not {{x, y}}, "
                "(0, 0) used"
            )
        origin = (0, 0)
    elif max(abs(origin[0]), abs(origin[1])) * ppg > MAX_COORD_PX:
        warnings.append("resolution.map_origin: beyond the schema's limits, (0, 0) used")
        origin = (0, 0)
    size = point(resolution.get("map_size"))
    if size is None or size[0] <= 0 or size[1] <= 0:
        warnings.append(
            f"resolution.map_size: {resolution.get('map_size')!r} is not a positive "
            "{x, y}, map size unknown (null)"
        )
        size = None
    return _Ctx(origin=origin, ppg=ppg, size=size, distance=distance, warnings=warnings)


def _environment(env: object, ctx: _Ctx) -> tuple[dict, bool | None, str | None]:
    """Canonical ambient light level, ``baked_lighting`` and raw ``ambient_light``."""
    out = {"light": "bright", "gravity": 1, "underwater": False}
    if env is None:
        return out, None, None
    if not isinstance(env, Mapping):
        ctx.warn(f"environment: {kind_name(env)} is not an object, bright used")
        return out, None, None
    baked = env.get("baked_lighting")
    if baked is not None and not isinstance(baked, bool):
        ctx.warn(f"environment.baked_lighting: {baked!r} is not true/false, ignored")
        baked = None
    ambient = env.get("ambient_light")
    if ambient is None:
        return out, baked, None
    level = _brightness(ambient)
    if level is None:
        ctx.warn(f"environment.ambient_light: {ambient!r} is not an ARGB colour, bright used")
        return out, baked, None
    out["light"] = "bright" if level > 0.75 else "dim" if level > 0.25 else "dark"
    return out, baked, str(ambient)


def _brightness(colour: object) -> float | None:
    """Brightness 0-1 of an ``AARRGGBB`` (or ``RRGGBB``) hex colour, or None."""
    if not isinstance(colour, str) or not _HEX.match(colour.strip()):
        return None
    text = colour.strip().lstrip("#")
    if len(text) == 6:
        text = "ff" + text
    a, r, g, b = (int(text[k : k + 2], 16) / 255 for k in range(0, 8, 2))
    return a * (0.2126 * r + 0.7152 * g + 0.0722 * b)


# --------------------------------------------------------------------------- walls


def _walls(export: Mapping, ctx: _Ctx) -> tuple[list[dict], int]:
    """Walls of ``line_of_sight``, ``objects_line_of_sight`` and ``portals``, in that order.

    Returns the walls and how many of them lie entirely outside the map rectangle (kept).
    """
    walls: list[dict] = []
    outside = 0
    for key, stem in (("line_of_sight", "los"), ("objects_line_of_sight", "olos")):
        found, out = _polyline_walls(export, key, stem, ctx)
        walls += found
        outside += out
    portals, out = _portals(export, ctx)
    return walls + portals, outside + out


def _polyline_walls(export: Mapping, key: str, stem: str, ctx: _Ctx) -> tuple[list[dict], int]:
    """One wall per consecutive point pair of each polyline; and how many lie off the map."""
    walls: list[dict] = []
    outside = far = 0
    zero: list[tuple[str, int]] = []
    for i, line in entries(export, key, ctx.warn, kind=list):
        points = _line_points(line, f"{key}[{i}]", ctx)
        repeated = 0
        for k, (a, b) in enumerate(zip(points, points[1:], strict=False)):
            if a is None or b is None:
                continue
            if a == b:
                repeated += 1
                continue
            c = [*ctx.px(*a), *ctx.px(*b)]
            if not in_range(*c):
                far += 1
                continue
            outside += ctx.outside(a, b)
            walls.append(canonical_wall(f"{stem}-{i}-{k}", c))
        if repeated:
            zero.append((f"{key}[{i}]", repeated))
    warn_zero_length(key, zero, ctx.warn)
    if far:
        ctx.warn(f"{key}: {far} segments {BEYOND_LIMITS} skipped")
    if outside:
        ctx.warn(f"{key}: {outside} of {len(walls)} segments {_outside_note(ctx)}; kept")
    return walls, outside


def _line_points(line: list, where: str, ctx: _Ctx) -> list[tuple[float, float] | None]:
    """The ``{x, y}`` points (cells) of one polyline; None for each unreadable one (warned)."""
    points = [point(raw) for raw in line]
    bad = [j for j, p in enumerate(points) if p is None]
    if bad:
        ctx.warn(
            f"{where}: points {short_list(bad)} are not {{x, y}} numbers, "
            "segments touching them skipped"
        )
    if len(line) < 2 and not bad:
        ctx.warn(f"{where}: fewer than 2 points, no wall")
    return points


def _portals(export: Mapping, ctx: _Ctx) -> tuple[list[dict], int]:
    """Door walls on each portal's ``bounds`` segment."""
    walls: list[dict] = []
    outside = 0
    for i, raw in entries(export, "portals", ctx.warn):
        bounds = raw.get("bounds")
        ends = [point(b) for b in bounds] if isinstance(bounds, list) else []
        a = ends[0] if len(ends) == 2 else None
        b = ends[1] if len(ends) == 2 else None
        if a is None or b is None:
            ctx.warn(f"portals[{i}].bounds: {bounds!r} is not two {{x, y}} points, portal skipped")
            continue
        if a == b:
            ctx.warn(f"portals[{i}].bounds: zero-length portal skipped")
            continue
        c = [*ctx.px(*a), *ctx.px(*b)]
        if not in_range(*c):
            ctx.warn(f"portals[{i}]: {BEYOND_LIMITS}, portal skipped")
            continue
        closed = read_bool(raw, "closed", f"portals[{i}]", ctx.warn, used="closed")
        outside += ctx.outside(a, b)
        walls.append(
            canonical_wall(f"portal-{i}", c, door="door", state="closed" if closed else "open")
        )
    if outside:
        ctx.warn(f"portals: {outside} of {len(walls)} portals {_outside_note(ctx)}; kept")
    return walls, outside


def _outside_note(ctx: _Ctx) -> str:
    assert ctx.size is not None
    size = f"{clean(ctx.size[0])}x{clean(ctx.size[1])}"
    origin = f"{clean(ctx.origin[0])},{clean(ctx.origin[1])}"
    return f"lie outside the {size} map (map_origin {origin})"


# --------------------------------------------------------------------------- lights


def _lights(export: Mapping, ctx: _Ctx) -> list[dict]:
    """Canonical lights: radii in grid units, position in map px."""
    lights: list[dict] = []
    outside = 0
    for i, raw in entries(export, "lights", ctx.warn):
        where = f"lights[{i}]"
        pos = point(raw.get("position"))
        if pos is None:
            ctx.warn(f"{where}.position: {raw.get('position')!r} is not {{x, y}}, light skipped")
            continue
        x, y = ctx.px(*pos)
        if not in_range(x, y):
            ctx.warn(f"{where}: {BEYOND_LIMITS}, light skipped")
            continue
        rng = finite_number(raw.get("range"))
        if rng is None or rng <= 0 or rng * ctx.distance > MAX_UNITS:
            ctx.warn(f"{where}.range: {raw.get('range')!r} is not a positive range, light skipped")
            continue
        intensity = raw.get("intensity")
        if intensity is not None and finite_number(intensity) is not None and intensity <= 0:
            ctx.warn(f"{where}.intensity: {intensity!r}, the light is off, skipped")
            continue
        shadows = read_bool(raw, "shadows", where, ctx.warn)
        if ctx.outside(pos, pos):
            outside += 1
        dim = clean(rng * ctx.distance)
        lights.append(canonical_light(f"light-{i}", x, y, clean(dim / 2), dim, walls=shadows))
    if outside:
        ctx.warn(f"lights: {outside} of {len(lights)} lights {_outside_note(ctx)}; kept")
    return lights


# --------------------------------------------------------------------------- helpers


def _segment_meets_box(
    a: tuple[float, float], b: tuple[float, float], box: tuple[float, float, float, float]
) -> bool:
    """Whether segment a-b touches the closed box (x0, y0, x1, y1) (Liang-Barsky)."""
    x0, y0, x1, y1 = box
    dx, dy = b[0] - a[0], b[1] - a[1]
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True
