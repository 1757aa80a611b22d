"""Walls of one scene as arrays plus one shapely ``STRtree`` (GEO-1..5 inputs).

Frames: scene pixels, y down; heights and thresholds in grid units.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from numpy.typing import NDArray

from service.model import Scene, Wall

if TYPE_CHECKING:
    from service.engine.levels import Surfaces

RESTRICTION_CODE = {"none": 0, "limited": 1, "normal": 2, "proximity": 3, "distance": 4}
DIRECTION_CODE = {"both": 0, "left": 1, "right": 2}
SENSES = ("move", "sight", "light", "sound")

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class WallGrid:
    """A uniform grid over the walls' bounding boxes, for the compiled walk (``geometry.walk``).

    Each wall is listed in every cell its bounding box meets (CSR: the walls of cell
    ``iy * nx + ix`` are ``walls[start[c]:start[c + 1]]``). The cell of a coordinate ``v`` is
    ``floor((v - origin) / cell)`` clamped to the grid, the same monotone formula for walls and
    queries, so a query box meets every wall whose box it meets in at least one shared cell.

    Attributes
    ----------
    x0, y0 : float
        Origin (px) of cell (0, 0).
    cell : float
        Side of a cell in px.
    nx, ny : int
        Cells along x and y.
    start : ndarray of shape (nx * ny + 1,), int64
    walls : ndarray, int64
        Wall indices, cell by cell.
    boxes : ndarray of shape (n, 4)
        Each wall's ``min x, min y, max x, max y`` in px.
    """

    x0: float
    y0: float
    cell: float
    nx: int
    ny: int
    start: NDArray[np.int64]
    walls: NDArray[np.int64]
    boxes: FloatArray


#: Walls per cell aimed at by ``build_grid`` (cell side = sqrt(area * this / n)).
GRID_WALLS_PER_CELL = 1.0

#: Most grid entries per wall on average; past it the cells double in size.
GRID_MAX_ENTRIES_PER_WALL = 8


def _cells(v: FloatArray, origin: float, cell: float, n: int) -> NDArray[np.int64]:
    """Cell of each coordinate: ``floor((v - origin) / cell)`` clamped to ``0..n-1``."""
    f = (v - origin) / cell
    return np.clip(np.floor(f), 0, n - 1).astype(np.int64)


def build_grid(coords: FloatArray) -> WallGrid:
    """The ``WallGrid`` of walls ``coords`` (n, 4), n >= 1; numpy, O(entries log entries)."""
    n = len(coords)
    boxes = np.column_stack(
        [
            np.minimum(coords[:, 0], coords[:, 2]),
            np.minimum(coords[:, 1], coords[:, 3]),
            np.maximum(coords[:, 0], coords[:, 2]),
            np.maximum(coords[:, 1], coords[:, 3]),
        ]
    )
    x0, y0 = float(boxes[:, 0].min()), float(boxes[:, 1].min())
    w = max(float(boxes[:, 2].max()) - x0, 1.0)
    h = max(float(boxes[:, 3].max()) - y0, 1.0)
    if not (math.isfinite(w) and math.isfinite(h)):
        w = h = 1.0  # non-finite walls: one cell (the clamp puts everything in it)
    cell = max(math.sqrt(w * h * GRID_WALLS_PER_CELL / n), max(w, h) / (4 * n))
    while True:
        nx = min(max(1, math.ceil(w / cell)), 1 << 14)
        ny = min(max(1, math.ceil(h / cell)), 1 << 14)
        ix0, ix1 = _cells(boxes[:, 0], x0, cell, nx), _cells(boxes[:, 2], x0, cell, nx)
        iy0, iy1 = _cells(boxes[:, 1], y0, cell, ny), _cells(boxes[:, 3], y0, cell, ny)
        span_x = ix1 - ix0 + 1
        per_wall = span_x * (iy1 - iy0 + 1)
        total = int(per_wall.sum())
        if total <= GRID_MAX_ENTRIES_PER_WALL * n + 1024:
            break
        cell *= 2.0
    owner = np.repeat(np.arange(n, dtype=np.int64), per_wall)
    r = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(per_wall) - per_wall, per_wall)
    cx = ix0[owner] + r % span_x[owner]
    cy = iy0[owner] + r // span_x[owner]
    cid = cy * nx + cx
    order = np.argsort(cid, kind="stable")
    start = np.zeros(nx * ny + 1, dtype=np.int64)
    np.cumsum(np.bincount(cid, minlength=nx * ny), out=start[1:])
    return WallGrid(x0, y0, cell, nx, ny, start, owner[order], boxes)


@dataclass(frozen=True)
class WallIndex:
    """Walls of one scene as arrays plus one shapely ``STRtree``.

    Attributes
    ----------
    ids : tuple of str, length n
    coords : ndarray of shape (n, 4)
        ``x0, y0, x1, y1`` in px, endpoint order as given (GEO-3 depends on it).
    restriction : dict of str to ndarray of shape (n,), int8
        Per sense type (``move``, ``sight``, ``light``, ``sound``) the code of
        ``RESTRICTION_CODE``; open doors are stored as 0 (GEO-2).
    threshold : dict of str to ndarray of shape (n,)
        Per sense (``sight``, ``light``, ``sound``) the threshold in grid units, NaN if none.
    direction : ndarray of shape (n,), int8
        ``DIRECTION_CODE`` of each wall.
    bottom, top : ndarray of shape (n,)
        Height range in grid units, ``-inf``/``+inf`` when unbounded (GEO-5).
    px_per_unit : float
        Pixels per grid unit, for thresholds.
    tree : shapely.STRtree
        Over the wall segments, in the same order.
    room_walls : int or None
        Only the first ``room_walls`` walls can close rooms (``service.geometry.rooms``);
        the sight index sets it to leave the outlines of heavy fog out (``None``: all).
    copies : dict of int to tuple of str
        Identical walls (same segment, restrictions, direction, height, cover; none with
        ``hp``) are indexed once, at the first one's place: its index maps to the ids of the
        others, so what blocks a line still names every wall (``names``): 5,000 copies
        of one wall cost what one costs (``docs/decisions.md`` "Bounded work").
    grid : WallGrid or None
        Uniform grid over the walls for the compiled walk (``service.geometry.walk``):
        ``None`` until the first trace asks ``wall_grid()`` for it (about 1 ms per 5,000
        walls, so ingest does not pay it; a numpy-only trace never builds it).
    surfaces : Surfaces or None
        The scene's floors (``service.engine.levels``, GEO-10): every trace over this index
        also blocks the lines that cross one (``service.geometry.surfaces``); ``None``: the
        scene has none.
    """

    ids: tuple[str, ...]
    walls: tuple[Wall, ...]
    coords: FloatArray
    restriction: dict[str, NDArray[np.int8]]
    threshold: dict[str, FloatArray]
    direction: NDArray[np.int8]
    bottom: FloatArray
    top: FloatArray
    px_per_unit: float
    tree: shapely.STRtree
    copies: dict[int, tuple[str, ...]] = field(default_factory=dict)
    room_walls: int | None = None
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    grid: WallGrid | None = field(default=None, compare=False, repr=False)
    surfaces: Surfaces | None = field(default=None, compare=False, repr=False)

    @property
    def size(self) -> int:
        """Number of walls indexed (identical copies count once)."""
        return len(self.ids)

    def wall_grid(self) -> WallGrid:
        """The ``grid`` attribute, built on first use (needs at least one wall).

        Idempotent: two threads racing here build equal grids and either one is kept.
        """
        if self.grid is None:
            object.__setattr__(self, "grid", build_grid(self.coords))  # frozen: set once
        assert self.grid is not None
        return self.grid

    def magnitude(self) -> float:
        """The largest absolute wall coordinate plus 1, in px: the scale of float noise.

        Memoised (``memo["magnitude"]``: it depends on the segments only, so a door flip
        keeps it, ``engine.live.SEGMENT_MEMO``). O(n) once.
        """
        found = self.memo.get("magnitude")
        if found is None:
            found = self.memo["magnitude"] = float(np.abs(self.coords).max(initial=0.0)) + 1.0
        return float(found)

    def firm(self, sense: str) -> NDArray[np.bool_]:
        """The walls that block ``sense`` whatever the source and the heights, a new (n,) mask.

        Two-way (GEO-3), ``normal`` (no proximity or distance threshold, GEO-4) and full
        height (GEO-5). O(n).
        """
        return (
            (self.restriction[sense] == 2)
            & (self.direction == 0)
            & np.isinf(self.bottom)
            & np.isinf(self.top)
        )

    def names(self, indices: Sequence[int]) -> list[str]:
        """Ids of the walls at ``indices`` (sorted), each followed by its identical copies."""
        if not self.copies:
            return [self.ids[w] for w in indices]
        out: list[str] = []
        for w in indices:
            out.append(self.ids[w])
            out.extend(self.copies.get(w, ()))
        return out


def build_wall_index(scene: Scene, surfaces: Surfaces | None = None) -> WallIndex:
    """Build the ``WallIndex`` of ``scene`` (arrays and ``STRtree``), once per scene.

    ``surfaces``: the scene's floors (``service.engine.levels.build_surfaces``), kept on the
    index for every trace.
    """
    return index_walls(scene.walls, scene.grid.px_per_unit, surfaces=surfaces)


def _column(walls: tuple[Wall, ...], name: str, code: dict[str, int]) -> NDArray[np.int8]:
    """``code`` of attribute ``name`` of every wall, as int8 of shape (n,).

    Most scenes use one or two values per field, so a field with a single value costs one
    C-level pass and no per-wall objects (the cost of ingesting a scene).
    """
    get = operator.attrgetter(name)
    values = set(map(get, walls))
    if len(values) <= 1:
        return np.full(len(walls), code[values.pop()] if values else 0, dtype=np.int8)
    return np.fromiter(map(code.__getitem__, map(get, walls)), dtype=np.int8, count=len(walls))


def index_walls(
    walls: Sequence[Wall],
    px_per_unit: float,
    room_walls: int | None = None,
    surfaces: Surfaces | None = None,
) -> WallIndex:
    """Build a ``WallIndex`` over ``walls``; ``px_per_unit`` converts thresholds (GEO-4).

    ``room_walls``, ``surfaces``: see ``WallIndex``.
    """
    walls = tuple(walls)
    n = len(walls)
    coords = np.fromiter(chain.from_iterable(map(_C, walls)), dtype=np.float64, count=4 * n)
    coords = coords.reshape(n, 4)
    is_open = np.fromiter(map(_is_open, walls), dtype=bool, count=n) if _any_door(walls) else None
    restriction = {}
    for sense in SENSES:
        codes = _column(walls, sense, RESTRICTION_CODE)
        if is_open is not None:
            codes[is_open] = 0  # GEO-2: an open door restricts nothing
        restriction[sense] = codes
    threshold = {sense: np.full(n, math.nan) for sense in ("sight", "light", "sound")}
    bottom, top = np.full(n, -math.inf), np.full(n, math.inf)
    if any(map(_THRESHOLD, walls)) or any(map(_HEIGHT, walls)):  # Structs are truthy
        for i, w in enumerate(walls):
            if w.threshold is not None:
                for sense in threshold:
                    value = getattr(w.threshold, sense)
                    if value is not None:
                        threshold[sense][i] = value
            if w.height is not None:
                bottom[i], top[i] = w.height.low, w.height.high
    ids = tuple(map(_ID, walls))
    direction = _column(walls, "direction", DIRECTION_CODE)
    copies: dict[int, tuple[str, ...]] = {}
    keep = _unique_walls(walls, coords, restriction, threshold, direction, bottom, top)
    if keep is not None:
        first, groups = keep
        pos = {int(k): i for i, k in enumerate(first)}
        copies = {pos[int(g[0])]: tuple(ids[int(j)] for j in g[1:]) for g in groups if len(g) > 1}
        walls = tuple(walls[int(k)] for k in first)
        ids = tuple(ids[int(k)] for k in first)
        coords = coords[first]
        restriction = {k: v[first] for k, v in restriction.items()}
        threshold = {k: v[first] for k, v in threshold.items()}
        direction, bottom, top = direction[first], bottom[first], top[first]
        n = len(first)
    lines = shapely.linestrings(coords.reshape(n, 2, 2)) if n else np.empty(0, dtype=object)
    return WallIndex(
        ids=ids,
        walls=walls,
        coords=coords,
        restriction=restriction,
        threshold=threshold,
        direction=direction,
        bottom=bottom,
        top=top,
        px_per_unit=px_per_unit,
        tree=shapely.STRtree(lines),
        copies=copies,
        room_walls=room_walls,
        surfaces=surfaces,
    )


#: Cover kinds as numbers, to compare walls (``_unique_walls``).
_COVER_CODE = {"normal": 0, "low": 1, "improved": 2, "extreme": 3}


def _unique_walls(
    walls: tuple[Wall, ...],
    coords: FloatArray,
    restriction: dict[str, NDArray[np.int8]],
    threshold: dict[str, FloatArray],
    direction: NDArray[np.int8],
    bottom: FloatArray,
    top: FloatArray,
) -> tuple[NDArray[np.intp], list[NDArray[np.intp]]] | None:
    """First occurrences of identical walls and each group's indices, or None if none repeat.

    Two walls are identical when they block the same lines the same way: the same segment
    (either endpoint order for two-way walls), restrictions (open doors as none), direction,
    thresholds, height and cover. Walls with ``hp`` are never merged (each absorbs damage,
    5E-LOE-4). Cost: one sort of the n segments; the full comparison only when some repeat.
    """
    n = len(coords)
    if n < 2:
        return None
    c = coords.copy()
    swap = (direction == 0) & ((c[:, 0] > c[:, 2]) | ((c[:, 0] == c[:, 2]) & (c[:, 1] > c[:, 3])))
    c[swap] = c[swap][:, [2, 3, 0, 1]]
    order = np.lexsort((c[:, 3], c[:, 2], c[:, 1], c[:, 0]))
    ordered = c[order]
    if not np.all(ordered[1:] == ordered[:-1], axis=1).any():
        return None
    hp = np.array([-1.0 if w.hp is None else float(i) for i, w in enumerate(walls)])
    cover = np.array([_COVER_CODE[w.cover] for w in walls], dtype=np.float64)
    key = np.column_stack(
        [
            c,
            *(restriction[s].astype(np.float64) for s in SENSES),
            *(np.nan_to_num(threshold[s], nan=-1.0) for s in ("sight", "light", "sound")),
            direction.astype(np.float64),
            bottom,
            top,
            cover,
            hp,
        ]
    )
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    if len(first) == n:
        return None
    groups_by_key: dict[int, list[int]] = {}
    for i, k in enumerate(inverse.ravel().tolist()):
        groups_by_key.setdefault(k, []).append(i)
    keep = np.sort(first)
    groups = [np.array(groups_by_key[int(inverse.ravel()[k])], dtype=np.intp) for k in keep]
    return keep, groups


_C = operator.attrgetter("c")
_ID = operator.attrgetter("id")
_DOOR = operator.attrgetter("door")


def _any_door(walls: tuple[Wall, ...]) -> bool:
    return set(map(_DOOR, walls)) != {"none"}


def _is_open(wall: Wall) -> bool:
    """An open door (GEO-2)."""
    return wall.door != "none" and wall.door_state == "open"


_THRESHOLD = operator.attrgetter("threshold")
_HEIGHT = operator.attrgetter("height")
