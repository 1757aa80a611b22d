"""Floors of a Foundry building -> canonical levels and surfaces (RULES GEO-5, GEO-10).

Foundry v14 (FORMATS.md pitfall 15): ``scene.levels[] {_id, name, elevation: {bottom,
top}}``; walls, lights, tiles and regions list the levels they are on (``levels: [id, …]``);
floors are regions with a "Define Surface" behaviour (``defineSurface``: ``system.placement``
``bottom``/``top``, ``move``/``sight``/``light``/``sound``); stairs are regions with a
"Change Level" behaviour (``changeLevel``).

Foundry v9 to v13 with the Levels module: ``flags.levels.sceneLevels`` (``[[bottom, top,
name], …]``, inclusive whole numbers), floor tiles (``flags.levels.rangeBottom``: the tile's
rectangle is a floor at that elevation), hole drawings (``flags.levels.drawingMode`` 1) and
stair drawings (2, 3). Its inclusive ranges (0–9, 10–19) are read as GEO-5 says: a whole top
followed by a range starting at top + 1 is read as ``[bottom, top + 1)``.

Standard library only; every level, surface and stair read is counted in ``stats["read"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters._common import entries, finite_number
from adapters.foundry._context import Context, as_list, elevation_range
from adapters.foundry.regions import outline_rings
from adapters.foundry.shapes import rectangle_ring

#: Levels-module ``drawingMode`` values: a hole in the floors, stairs, an elevator.
LEVELS_HOLE, LEVELS_STAIRS = 1, (2, 3)


def read_levels(doc: Mapping, ctx: Context) -> list[dict]:
    """Canonical levels ``{id, name, bottom, top}`` (grid units); sets ``ctx.levels``.

    v14 ``levels[]`` first, else the Levels module's ``flags.levels.sceneLevels`` (ids
    ``sceneLevels-<k>``, ranges read as inclusive, ``inclusive_tops``).
    """
    levels: list[dict] = []
    for i, raw in entries(doc, "levels", ctx.warn):
        where = f"levels[{i}]"
        elevation = raw.get("elevation")
        span = None
        if isinstance(elevation, Mapping):
            span = elevation_range(elevation.get("bottom"), elevation.get("top"), where, ctx)
        if not isinstance(raw.get("_id"), str) or not raw["_id"]:
            ctx.warn(f"{where}._id: {raw.get('_id')!r} is not an id, level skipped")
            continue
        span = span or {"bottom": None, "top": None}
        levels.append({"id": raw["_id"], "name": str(raw.get("name") or ""), **span})
    if levels:
        ctx.count("levels: levels[].elevation", len(levels))
    else:
        levels = _scene_levels(doc, ctx)
    ctx.levels = {lv["id"]: (lv["bottom"], lv["top"]) for lv in levels}
    return levels


def _scene_levels(doc: Mapping, ctx: Context) -> list[dict]:
    """The Levels module's ``flags.levels.sceneLevels`` as canonical levels (inclusive)."""
    flags = doc.get("flags")
    data = flags.get("levels") if isinstance(flags, Mapping) else None
    raw = data.get("sceneLevels") if isinstance(data, Mapping) else None
    levels = []
    for k, entry in enumerate(as_list(raw)):
        where = f"flags.levels.sceneLevels[{k}]"
        if not isinstance(entry, list) or len(entry) < 2:
            ctx.warn(f"{where}: {entry!r} is not [bottom, top, name], level skipped")
            continue
        span = elevation_range(entry[0], entry[1], where, ctx)
        if span is None:
            ctx.warn(f"{where}: no bounds, level skipped")
            continue
        name = str(entry[2]) if len(entry) > 2 and entry[2] is not None else ""
        levels.append({"id": f"sceneLevels-{k}", "name": name, **span})
    if levels:
        ctx.count("levels: flags.levels.sceneLevels", len(levels))
        ctx.inclusive = True
    return levels


def read_surfaces(doc: Mapping, ctx: Context) -> list[dict]:
    """Canonical surfaces: v14 ``defineSurface`` regions, else Levels floor tiles.

    A ``defineSurface`` behaviour puts the region's shapes (holes kept as holes) at the
    region's ``elevation.bottom`` (``placement`` ``bottom``) or ``top``, blocking what its
    ``move``/``sight``/``light``/``sound`` flags say. A region without that elevation, or
    without a usable shape, is skipped with a warning.
    """
    surfaces: list[dict] = []
    for i, raw in entries(doc, "regions", lambda _: None):  # read_regions warned of them
        for j, behavior in enumerate(as_list(raw.get("behaviors"))):
            if not isinstance(behavior, Mapping) or behavior.get("type") != "defineSurface":
                continue
            if behavior.get("disabled") is True:
                continue
            surface = _surface(raw, behavior, f"regions[{i}]", f"behaviors[{j}]", ctx)
            if surface is not None:
                if any(s["id"] == surface["id"] for s in surfaces):
                    surface["id"] = f"{surface['id']}-{j}"
                surfaces.append(surface)
    if surfaces:
        ctx.count("surfaces: regions[].behaviors defineSurface", len(surfaces))
        return surfaces
    return _floor_tiles(doc, ctx)


def _surface(raw: Mapping, behavior: Mapping, where: str, bwhere: str, ctx: Context) -> dict | None:
    """One ``defineSurface`` behaviour of region ``where`` as a canonical surface, or None."""
    system = behavior.get("system")
    system = system if isinstance(system, Mapping) else {}
    placement = system.get("placement", "bottom")
    key = "top" if placement == "top" else "bottom"
    elevation = raw.get("elevation")
    height = finite_number(elevation.get(key)) if isinstance(elevation, Mapping) else None
    if height is None:
        ctx.warn(
            f"{where}.elevation.{key}: no number for the surface ({placement}), surface skipped"
        )
        return None
    outline = _outline(as_list(raw.get("shapes")), where, ctx)
    if not outline:
        ctx.warn(f"{where}.shapes: no usable shape for the surface, surface skipped")
        return None
    blocks = {s: system.get(s) is not False for s in ("move", "sight", "light", "sound")}
    return {
        "id": str(raw.get("_id") or f"surface-{where}"),
        "outline": outline,
        "elevation": height,
        "blocks": blocks,
        "level": _level_at(height, ctx),
    }


def _outline(shapes: list[Any], where: str, ctx: Context) -> list[list[list[list[float]]]]:
    """Polygons ``[exterior, *holes]`` of a region's shapes: holes joined to the first."""
    exteriors: list[list[list[float]]] = []
    holes: list[list[list[float]]] = []
    for j, shape in enumerate(shapes):
        if not isinstance(shape, Mapping):
            ctx.warn(f"{where}.shapes[{j}]: not a shape, skipped")
            continue
        rings = outline_rings(shape, f"{where}.shapes[{j}]", ctx)
        (holes if shape.get("hole") is True else exteriors).extend(rings)
    if not exteriors:
        return []
    polygons = [[ring] for ring in exteriors]
    polygons[0].extend(holes)
    return polygons


def _level_at(elevation: float, ctx: Context) -> str | None:
    """The level whose ``[bottom, top)`` holds ``elevation``, if any (GEO-10)."""
    for level_id, (bottom, top) in ctx.levels.items():
        if (bottom is None or bottom <= elevation) and (top is None or elevation < top):
            return level_id
    return None


def _floor_tiles(doc: Mapping, ctx: Context) -> list[dict]:
    """The Levels module's floor tiles as surfaces: each tile's rectangle at its bottom.

    Hole drawings (``drawingMode`` 1, rectangles) cut the floors whose elevation lies in
    their ``(rangeBottom, rangeTop + 1]``.
    """
    holes = _hole_drawings(doc, ctx)
    surfaces = []
    for i, raw in entries(doc, "tiles", lambda _: None):  # _unmapped counts the tiles
        flags = raw.get("flags")
        data = flags.get("levels") if isinstance(flags, Mapping) else None
        bottom = finite_number(data.get("rangeBottom")) if isinstance(data, Mapping) else None
        if bottom is None:
            continue
        ring = rectangle_ring(raw)
        if ring is None:
            ctx.warn(f"tiles[{i}]: Levels floor tile without a rectangle, floor skipped")
            continue
        cut = [
            h
            for h, (lo, hi) in holes
            if (lo is None or lo < bottom) and (hi is None or bottom <= hi)
        ]
        surfaces.append(
            {
                "id": str(raw.get("_id") or f"tile-{i}"),
                "outline": [[ring, *cut]],
                "elevation": bottom,
                "blocks": {"move": True, "sight": True, "light": True, "sound": True},
                "level": _level_at(bottom, ctx),
            }
        )
    if surfaces:
        ctx.count("surfaces: tiles[].flags.levels.rangeBottom (Levels floor tiles)", len(surfaces))
    return surfaces


def _hole_drawings(doc: Mapping, ctx: Context) -> list[tuple[list[list[float]], tuple[Any, Any]]]:
    """Levels hole drawings: ``(rectangle ring, (rangeBottom, rangeTop + 1))``."""
    out = []
    for _, raw in entries(doc, "drawings", lambda _: None):
        data = (
            (raw.get("flags") or {}).get("levels")
            if isinstance(raw.get("flags"), Mapping)
            else None
        )
        if not isinstance(data, Mapping) or data.get("drawingMode") != LEVELS_HOLE:
            continue
        ring = rectangle_ring(raw)
        if ring is not None:
            top = finite_number(data.get("rangeTop"))
            out.append(
                (ring, (finite_number(data.get("rangeBottom")), None if top is None else top + 1))
            )
    if out:
        ctx.count("surface holes: drawings[].flags.levels.drawingMode 1", len(out))
    return out


def count_stairs(doc: Mapping, ctx: Context) -> int:
    """Stairs: v14 regions with an enabled ``changeLevel`` behaviour, else Levels stair drawings."""
    stairs = 0
    for _, raw in entries(doc, "regions", lambda _: None):
        kinds = [
            b.get("type")
            for b in as_list(raw.get("behaviors"))
            if isinstance(b, Mapping) and b.get("disabled") is not True
        ]
        stairs += "changeLevel" in kinds
    if stairs:
        ctx.count("stairs: regions[].behaviors changeLevel", stairs)
        return stairs
    for _, raw in entries(doc, "drawings", lambda _: None):
        flags = raw.get("flags")
        data = flags.get("levels") if isinstance(flags, Mapping) else None
        if isinstance(data, Mapping) and data.get("drawingMode") in LEVELS_STAIRS:
            stairs += 1
    if stairs:
        ctx.count("stairs: drawings[].flags.levels.drawingMode 2/3", stairs)
    return stairs


def read_inclusive(canonical: dict, ctx: Context) -> None:
    """GEO-5's reading of the Levels module's inclusive ranges, in place (v9 to v13).

    Where a range's top is a whole number and another range of the scene (a level, a wall's
    height, a region's elevation, a surface) starts at top + 1, the top becomes top + 1. A
    wall or light whose range is then a level's gets that level (membership, GEO-10).
    """
    if not ctx.inclusive:
        return
    spans = [lv for lv in canonical["levels"]]
    spans += [w["height"] for w in canonical["walls"] if w.get("height")]
    spans += [r["elevation"] for r in canonical["regions"] if r.get("elevation")]
    starts = {s["bottom"] for s in spans if s["bottom"] is not None}
    starts |= {s["elevation"] for s in canonical["surfaces"]}
    widened = 0
    for span in spans:
        top = span["top"]
        if top is not None and float(top).is_integer() and top + 1 in starts:
            span["top"] = top + 1
            widened += 1
    if widened:
        ctx.count("inclusive tops read as top + 1 (GEO-5)", widened)
    ctx.levels = {lv["id"]: (lv["bottom"], lv["top"]) for lv in canonical["levels"]}
    by_range = {v: k for k, v in ctx.levels.items()}
    for wall in canonical["walls"]:
        if wall.get("height") and wall.get("level") is None:
            level = by_range.get((wall["height"]["bottom"], wall["height"]["top"]))
            if level is not None:
                wall["level"] = level
    for surface in canonical["surfaces"]:
        surface["level"] = _level_at(surface["elevation"], ctx)
    for light in canonical["lights"]:
        level = _level_at(light["elevation"], ctx)
        if light.get("level") is None and level is not None:
            light["level"] = level
