"""Levels and surfaces of a building, built once per scene (RULES GEO-10).

A scene's ``levels`` are floors, each a half-open elevation range ``[bottom, top)``; its
``surfaces`` are horizontal outlines (floors, roofs, bridges) that block the lines crossing
their plane inside them. Building a scene here:

- gives each wall and region that names a level, and has no height range of its own, that
  level's range (``resolve_levels``): the walls of the basement never block creatures on
  the ground floor (GEO-5);
- turns the surfaces into shapely geometries with their elevations and what they block
  (``build_surfaces``), adding a floor over the whole scene at an upper level's bottom
  where no surface lies between two levels (GEO-10).

The 3-D test of lines against these surfaces is ``service.geometry.surfaces``. Frames:
scene pixels, y down; elevations in grid units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.tolerances import TINY_PX
from service.model import MAX_COORD_PX, SENSE_TYPES, Level, Scene, Surface

#: Id prefix of the floors a scene's levels imply where no surface lies between two of them.
LEVEL_FLOOR_PREFIX = "\x00floor:"


@dataclass(frozen=True)
class Surfaces:
    """The surfaces of one scene as arrays, for ``service.geometry.surfaces``.

    Attributes
    ----------
    ids : tuple of str, length k
        Surface ids; an implied floor is ``LEVEL_FLOOR_PREFIX`` + the upper level's id.
    shapes : ndarray of shape (k,), object
        Prepared shapely (multi)polygons in px: the union of each outline's exteriors less
        its holes.
    boxes : ndarray of shape (k, 4)
        Each shape's bounds ``x0, y0, x1, y1`` px.
    elevation : ndarray of shape (k,)
        Grid units.
    blocks : dict of str to ndarray of shape (k,), bool
        Per sense (``move``, ``sight``, ``light``, ``sound``), whether each surface blocks it.
    levels : tuple of str or None, length k
        The level each surface is the floor of: its own ``level``, else the level whose
        range holds its elevation, else ``None``; an implied floor's upper level (for the
        blockers an answer names, ``service.geometry.surfaces.surfaces_met``).
    memo : dict
        What ``service.geometry.surfaces`` makes once per scene (each sense's planes).
    """

    ids: tuple[str, ...]
    shapes: NDArray[np.object_]
    boxes: NDArray[np.float64]
    elevation: NDArray[np.float64]
    blocks: dict[str, NDArray[np.bool_]]
    levels: tuple[str | None, ...] = ()
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        """Number of surfaces."""
        return len(self.ids)


def resolve_levels(scene: Scene) -> Scene:
    """``scene`` with each wall and region of a level given that level's range (GEO-10).

    A wall naming a ``level`` without a ``height`` gets ``height`` = the level's
    ``[bottom, top)``; a region naming one without an ``elevation`` gets it as its
    ``elevation``. Lights keep their own elevation. The scene itself when nothing changes.
    O(walls + regions).
    """
    if not scene.levels:
        return scene
    spans = {level.id: level.span for level in scene.levels}
    walls = tuple(
        msgspec.structs.replace(w, height=spans[w.level])
        if w.level is not None and w.height is None
        else w
        for w in scene.walls
    )
    regions = tuple(
        msgspec.structs.replace(r, elevation=spans[r.level])
        if r.level is not None and r.elevation is None
        else r
        for r in scene.regions
    )
    changed = any(a is not b for a, b in zip(walls, scene.walls, strict=True)) or any(
        a is not b for a, b in zip(regions, scene.regions, strict=True)
    )
    return msgspec.structs.replace(scene, walls=walls, regions=regions) if changed else scene


def surface_shape(surface: Surface) -> shapely.Geometry:
    """The area a surface covers: the union of its exteriors less every hole, px.

    A polygon or (multi)polygon, possibly empty. Each ring is made valid on its own
    (``_ring_area``): a self-intersecting ring covers the faces ``shapely.make_valid``
    keeps, and a ring of no area (collinear or repeated points) covers nothing, so the
    overlays never meet a line or a point (GEOS refuses mixed-dimension inputs).
    """
    exteriors, holes = [], []
    for polygon in surface.outline:
        exteriors.append(_ring_area(polygon[0]))
        holes += [_ring_area(r) for r in polygon[1:]]
    shape = shapely.union_all(exteriors)
    if holes:
        shape = shapely.difference(shape, shapely.union_all(holes))
    return _polygonal(shape)


def _ring_area(ring: tuple[tuple[float, float], ...]) -> shapely.Geometry:
    """The valid (multi)polygon a ring bounds (possibly empty), px. O(points log points)."""
    xy = np.asarray(ring, dtype=np.float64)
    xy[np.abs(xy) < TINY_PX] = 0.0
    polygon = shapely.polygons(xy)
    if shapely.is_valid(polygon):
        return polygon
    return _polygonal(shapely.make_valid(polygon))


def _polygonal(shape: shapely.Geometry) -> shapely.Geometry:
    """The polygonal parts of ``shape`` (a collection's lines and points dropped)."""
    if shape.geom_type in ("Polygon", "MultiPolygon"):
        return shape
    parts = shapely.get_parts(shape)
    kept = [g for g in parts if g.geom_type in ("Polygon", "MultiPolygon")]
    return shapely.union_all(kept) if kept else shapely.Polygon()


def implied_floors(levels: tuple[Level, ...], surfaces: tuple[Surface, ...]) -> list[Level]:
    """The upper levels whose bottom is a floor over the whole scene (GEO-10).

    Levels in order of their bottoms: where no surface's elevation lies in
    ``(lower bottom, upper bottom]`` between two successive levels, the upper level's
    bottom is a floor everywhere.
    """
    ordered = sorted((lv for lv in levels if lv.bottom is not None), key=lambda lv: lv.span.low)
    heights = [s.elevation for s in surfaces]
    out = []
    for lower, upper in zip(ordered, ordered[1:], strict=False):
        assert lower.bottom is not None and upper.bottom is not None
        if upper.bottom > lower.bottom and not any(
            lower.bottom < e <= upper.bottom for e in heights
        ):
            out.append(upper)
    return out


def build_surfaces(scene: Scene) -> Surfaces | None:
    """The ``Surfaces`` of ``scene``, or ``None`` when it has no surface and no level floor.

    Cost: one shapely union per surface (O(points log points)).
    """
    floors = implied_floors(scene.levels, scene.surfaces)
    if not scene.surfaces and not floors:
        return None
    ids = [s.id for s in scene.surfaces] + [LEVEL_FLOOR_PREFIX + lv.id for lv in floors]
    shapes = [surface_shape(s) for s in scene.surfaces]
    shapes += [shapely.box(-MAX_COORD_PX, -MAX_COORD_PX, MAX_COORD_PX, MAX_COORD_PX)] * len(floors)
    elevation = [s.elevation for s in scene.surfaces] + [float(lv.bottom) for lv in floors]  # type: ignore[arg-type]
    blocks = {
        sense: np.array(
            [getattr(s.blocks, sense) for s in scene.surfaces] + [True] * len(floors), dtype=bool
        )
        for sense in SENSE_TYPES
    }
    array = np.empty(len(shapes), dtype=object)
    array[:] = shapes
    shapely.prepare(array)
    boxes = shapely.bounds(array).reshape(-1, 4)
    levels = tuple(_surface_level(scene.levels, s) for s in scene.surfaces)
    levels += tuple(lv.id for lv in floors)
    heights = np.asarray(elevation, dtype=np.float64)
    return Surfaces(tuple(ids), array, boxes, heights, blocks, levels)


def _surface_level(levels: tuple[Level, ...], surface: Surface) -> str | None:
    """The level ``surface`` is the floor of: its own, else the one holding its elevation."""
    if surface.level is not None:
        return surface.level
    found = level_of(levels, surface.elevation)
    return None if found is None else found.id


def level_of(levels: tuple[Level, ...], elevation: float) -> Level | None:
    """The level whose range ``[bottom, top)`` holds ``elevation`` (GEO-10), or ``None``."""
    for level in levels:
        span = level.span
        if span.low <= elevation < span.high:
            return level
    return None
