"""Foundry v12+ regions -> canonical regions, one per shape (FORMATS.md A.7).

Shapes in canvas px; elevations in grid units.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from adapters._common import entries, fallback_id, finite_number, kind_name
from adapters.foundry import shapes
from adapters.foundry._context import Context, as_list, assign_ids, elevation_range, one_level
from adapters.foundry.grid import GlobalLight
from adapters.foundry.shapes import ELLIPSE_VERTICES

#: Region behaviours read elsewhere: floors (``adapters.foundry.levels``) and stairs.
LEVEL_BEHAVIORS = ("defineSurface", "changeLevel")


#: Foundry AdjustDarknessLevelRegionBehaviorType.MODES -> how the region's darkness level
#: follows from the scene's ``d`` and the behaviour's ``modifier`` ``m`` (0 to 1).
DARKNESS_MODES: dict[int, tuple[str, Callable[[float, float], float]]] = {
    0: ("override", lambda d, m: m),
    1: ("brighten", lambda d, m: d * (1 - m)),
    2: ("darken", lambda d, m: 1 - (1 - d) * (1 - m)),
}


def read_regions(
    doc: Mapping,
    ctx: Context,
    darkness: float | None = None,
    global_light: GlobalLight | None = None,
) -> list[dict]:
    """Canonical regions (v12+, FORMATS.md A.7): one canonical region per shape.

    Parameters
    ----------
    doc : Mapping
        The Foundry scene document.
    ctx : Context
        Per-call state; every warning goes to ``ctx.warnings``.
    darkness : float, optional
        The scene's darkness level (0 day .. 1 night; None: 0).
    global_light : GlobalLight, optional
        The scene's global illumination; None: none.

    Returns
    -------
    list of dict
        Canonical regions: shapes in canvas px, ``elevation`` in grid units; the first
        shape of a region keeps its id, the others get ``<id>-<k>``. ``light`` (GEO-9) is
        set on the shapes of a region with an enabled "Adjust Darkness Level" behaviour: the
        ambient light at the region's darkness level (:func:`region_light`); other
        behaviours are warned about as not mapped.
    """
    regions: list[dict] = []
    scene_darkness = 0.0 if darkness is None else float(darkness)
    glight = GlobalLight() if global_light is None else global_light
    split: list[tuple[str, int]] = []  # (region id, shapes) of regions of several shapes
    for i, raw in entries(doc, "regions", ctx.warn):
        shapes = _region_shapes(raw, i, ctx)
        if not shapes:
            ctx.warn(f"regions[{i}].shapes: no usable shape, region skipped")
        if len(shapes) > 1:
            split.append((shapes[0]["id"], len(shapes)))
        if shapes and shapes[0]["elevation"] is not None:
            ctx.count("region elevations: elevation.bottom/top", len(shapes))
        light = region_light(raw, i, scene_darkness, glight, ctx)
        if shapes and light is not None:
            for region in shapes:
                region["light"] = light
            ctx.count("region light: behaviors adjustDarknessLevel", len(shapes))
        regions += shapes
    _warn_split(split, ctx)
    assign_ids(regions, "regions", "region", ctx)
    return regions


def _region_shapes(raw: Mapping, i: int, ctx: Context) -> list[dict]:
    """One canonical region per usable shape of ``regions[i]``, ``light`` unset.

    The first keeps the region's ``_id`` (``region-<i>`` when missing, warned), the others
    get ``<_id>-<k>``; all share the region's ``elevation {bottom, top}`` (grid units).
    """
    base_id = fallback_id(raw.get("_id"), f"regions[{i}]._id", "region", i, ctx.warn)
    elevation = raw.get("elevation")
    if isinstance(elevation, Mapping):
        where = f"regions[{i}].elevation"
        elevation = elevation_range(elevation.get("bottom"), elevation.get("top"), where, ctx)
    else:
        elevation = None
    regions: list[dict] = []
    level = one_level(raw, f"regions[{i}]", ctx)
    if level is not None:
        ctx.count("region levels: levels[]")
    for j, shape in enumerate(as_list(raw.get("shapes"))):
        for canonical in _shape(shape, f"regions[{i}].shapes[{j}]", ctx):
            regions.append(_region(base_id, len(regions), canonical, elevation, level, i))
    return regions


def _region(
    base_id: str, k: int, shape: dict, elevation: dict | None, level: str | None, i: int
) -> dict:
    """Canonical region ``k`` of Foundry region ``i`` (``light`` unset).

    ``level`` only on a region of one level: other scenes import as before.
    """
    region = {
        "id": base_id if not k else f"{base_id}-{k}",
        "shape": shape,
        "obscurement": None,
        "concealment": False,
        "magical_darkness": False,
        "water": False,
        "gravity": None,
        "light": None,
        "elevation": elevation,
        "_index": i,
    }
    if level is not None:
        region["level"] = level
    return region


def _warn_split(split: list[tuple[str, int]], ctx: Context) -> None:
    """One warning naming the regions of several shapes (``(id, shapes)``) that were split."""
    if not split:
        return
    named = ", ".join(f"{rid} ({n}: {rid}, {rid}-1 ...)" for rid, n in split[:5])
    more = f" and {len(split) - 5} more" if len(split) > 5 else ""
    kind = "region" if len(split) == 1 else "regions"
    ctx.warn(
        f"regions: {len(split)} {kind} of several shapes became "
        f"{sum(n for _, n in split)} canonical regions, one per shape: {named}{more}"
    )


def region_light(
    raw: Mapping, i: int, darkness: float, global_light: GlobalLight, ctx: Context
) -> str | None:
    """Light level inside a region (GEO-9) from its "Adjust Darkness Level" behaviours.

    Foundry v12/v13 ``adjustDarknessLevel``: ``system.mode`` 0 overrides the darkness level
    with ``system.modifier``, 1 brightens it (``d * (1 - m)``), 2 darkens it
    (``1 - (1 - d) * (1 - m)``). Enabled behaviours apply in order, from the scene's
    darkness. Inside, the global light shines as it would at that darkness level (it goes
    out above its ``darkness.max``): ``"bright"``/``"dim"`` when it shines, else
    ``"dark"``. Returns None when the region has no enabled such behaviour. Every other
    behaviour type is warned about once per region as not mapped; disabled ones are not.
    """
    level: float | None = None
    seen: set[str] = set()
    for j, behavior in enumerate(as_list(raw.get("behaviors"))):
        where = f"regions[{i}].behaviors[{j}]"
        btype = behavior.get("type") if isinstance(behavior, Mapping) else None
        if not isinstance(behavior, Mapping) or behavior.get("disabled") is True:
            continue
        if btype in LEVEL_BEHAVIORS:
            continue
        if btype != "adjustDarknessLevel":
            label = btype if isinstance(btype, str) else repr(behavior)
            if label not in seen:
                seen.add(label)
                ctx.warn(f"regions[{i}].behaviors: {label} not mapped")
            continue
        system = behavior.get("system")
        system = system if isinstance(system, Mapping) else {}
        mode = system.get("mode", 0)
        entry = DARKNESS_MODES.get(int(mode)) if finite_number(mode) in (0, 1, 2) else None
        modifier = finite_number(system.get("modifier"))
        if entry is None or modifier is None or not 0 <= modifier <= 1:
            ctx.warn(
                f"{where}.system: adjustDarknessLevel with mode {mode!r} and modifier "
                f"{system.get('modifier')!r} not understood, behaviour ignored"
            )
            continue
        level = entry[1](darkness if level is None else level, modifier)
    if level is None:
        return None
    return global_light.light_at(level)


def _shape(shape: object, where: str, ctx: Context) -> list[dict]:
    """One Foundry region shape -> canonical polygon/rect/circle shapes (px); [] if unusable.

    Every v12-v14 shape type (``adapters.foundry.shapes``): a rectangle without rotation
    stays a ``rect``, a circle a ``circle``; a ring becomes its two halves; a grid shape its
    runs of squares; the others one polygon. Holes are dropped with a warning (a canonical
    region has none).
    """
    if not isinstance(shape, Mapping):
        ctx.warn(f"{where}: {kind_name(shape)} entry skipped")
        return []
    if shape.get("hole") is True:
        ctx.warn(f"{where}: hole dropped (holes are not supported)")
        return []
    kind = shape.get("type")
    if kind in _NEW_SHAPES:
        ctx.count(f"region shapes: {kind}")
    if shape.get("gridBased") is True and kind not in ("grid", "token", "polygon"):
        ctx.warn(f"{where}: grid-based {kind} read as its gridless outline")
    if kind == "rectangle":
        found = shapes.rectangle(shape)
        if found is not None and found[1] % 360 == 0:
            x, y, w, h = found[0]
            return [{"type": "rect", "x": x, "y": y, "width": w, "height": h}]
    if kind == "circle":
        disc = shapes.numbers(shape, "x", "y", "radius")
        if disc is not None and disc[2] > 0:
            return [{"type": "circle", "x": disc[0], "y": disc[1], "radius": disc[2]}]
    if kind == "ellipse":
        oval = shapes.numbers(shape, "x", "y", "radiusX", "radiusY")
        if oval is not None and min(oval[2:]) > 0:
            x, y, rx, ry = oval
            if rx == ry:
                return [{"type": "circle", "x": x, "y": y, "radius": rx}]
            ctx.warn(f"{where}: ellipse approximated by a {ELLIPSE_VERTICES}-vertex polygon")
            rotation = finite_number(shape.get("rotation")) or 0
            return [_polygon(shapes.ellipse(x, y, rx, ry, rotation))]
    if kind == "grid":
        boxes = shapes.grid_cells(shape, ctx.cell_px)
        if boxes:
            return [
                {"type": "rect", "x": x, "y": y, "width": w, "height": h} for x, y, w, h in boxes
            ]
    rings = outline_rings(shape, where, ctx)
    if rings:
        return [_polygon(ring) for ring in rings]
    if kind == "polygon":
        pass  # outline_rings said what is wrong with its points
    elif kind in _KNOWN_SHAPES:
        ctx.warn(f"{where}: {kind} without the numbers it needs, shape skipped")
    else:
        ctx.warn(f"{where}.type: shape type {kind!r} not mapped, shape skipped")
    return []


#: The shape types v14 added (FORMATS.md pitfall 15).
_NEW_SHAPES = ("emanation", "cone", "ring", "line", "token", "grid")
_KNOWN_SHAPES = ("polygon", "rectangle", "circle", "ellipse", *_NEW_SHAPES)


def _polygon(ring: list[list[float]]) -> dict:
    return {"type": "polygon", "points": ring}


def outline_rings(shape: Mapping, where: str, ctx: Context) -> list[list[list[float]]]:
    """The rings (px) of any Foundry shape, each a simple polygon; [] when unusable.

    A ring shape gives two (its halves), a grid shape one per run of squares, the others
    one. Used for region polygons and for surfaces (``adapters.foundry.levels``).
    """
    kind = shape.get("type")
    cell = ctx.cell_px
    warn = lambda message: ctx.warn(f"{where}: {message}")  # noqa: E731
    if kind == "polygon":
        pts = shape.get("points")
        if (
            not isinstance(pts, list)
            or len(pts) < 6
            or len(pts) % 2
            or any(finite_number(v) is None for v in pts)
        ):
            ctx.warn(f"{where}.points: not a flat list of at least 3 x,y pairs, shape skipped")
            return []
        return [[[pts[k], pts[k + 1]] for k in range(0, len(pts), 2)]]
    if kind == "rectangle":
        found = shapes.rectangle_ring(shape)
    elif kind in ("circle", "ellipse"):
        values = [finite_number(shape.get(k)) for k in ("x", "y")]
        rx = finite_number(shape.get("radius" if kind == "circle" else "radiusX"))
        ry = rx if kind == "circle" else finite_number(shape.get("radiusY"))
        if None in values or rx is None or ry is None or rx <= 0 or ry <= 0:
            return []
        rotation = finite_number(shape.get("rotation")) or 0
        found = shapes.ellipse(values[0], values[1], rx, ry, rotation)  # type: ignore[arg-type]
    elif kind == "ring":
        return shapes.ring(shape) or []
    elif kind == "grid":
        boxes = shapes.grid_cells(shape, cell) or []
        return [[[x, y], [x + w, y], [x + w, y + h], [x, y + h]] for x, y, w, h in boxes]
    elif kind == "cone":
        found = shapes.cone(shape)
    elif kind == "line":
        found = shapes.line(shape)
    elif kind == "token":
        found = shapes.token(shape, cell, warn)
    elif kind == "emanation":
        found = shapes.emanation(shape, cell, warn)
    else:
        return []
    return [] if found is None else [found]
