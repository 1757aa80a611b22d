"""Walls listed in the grid cells their segments pass through (compiled).

``WallIndex.wall_grid`` lists each wall in every cell of its bounding box, which for long
diagonal walls is most of the map: a point or a wall looked up there meets most walls. Here
each wall is listed only in the cells that its segment, grown by ``reach``, passes through
(walked in pieces one cell long), so a long wall costs its length in cells, not its box's
area. Two questions on walls are answered through it:

- which wall ends lie on which walls (``obstacles.ends_on_walls``, GEO-6's obstacles);
- how many times walls cross (``crossings.crossing_count``, before noding the rooms).

Both only need candidates: every wall within ``reach`` of a point is listed in that point's
cell, and two walls that meet share the cell of a point where they meet (the cell of a
coordinate is the same monotone formula for points and for the walls' pieces).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from service.engine.walls import FloatArray, WallIndex
from service.geometry.compiled import append_pair, cell_of, njit, piece_box, pieces

#: Growth (px) of every wall's pieces, beyond the float noise of the pieces' end points: a
#: point within this distance of a wall is listed with it (``QUERY_TOL_PX`` is 1e-6).
REACH_PX = 1e-5

#: Entries aimed at per wall on average: the cell side is at least the mean wall length
#: over this (and at least the side that gives about one cell per wall).
ENTRIES_PER_WALL = 32


@dataclass(frozen=True)
class SegmentGrid:
    """Walls by cell and cells by wall (CSR), over a uniform grid.

    Attributes
    ----------
    x0, y0 : float
        Origin (px) of cell (0, 0).
    cell : float
        Side of a cell in px.
    nx, ny : int
        Cells along x and y (the cell of a coordinate is clamped to the grid).
    cell_start, cell_walls : ndarray of int64
        Walls of cell ``c = iy * nx + ix``: ``cell_walls[cell_start[c]:cell_start[c + 1]]``,
        in wall order.
    wall_start, wall_cells : ndarray of int64
        Cells of wall ``w``: ``wall_cells[wall_start[w]:wall_start[w + 1]]``.
    """

    x0: float
    y0: float
    cell: float
    nx: int
    ny: int
    cell_start: NDArray[np.int64]
    cell_walls: NDArray[np.int64]
    wall_start: NDArray[np.int64]
    wall_cells: NDArray[np.int64]


@njit(cache=True, nogil=True)
def _walk(
    coords: NDArray[np.float64],
    x0: float,
    y0: float,
    cell: float,
    nx: int,
    ny: int,
    reach: float,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover - compiled
    """(wall, cell) entries: each wall's pieces, one cell long, grown by ``reach``."""
    n = coords.shape[0]
    stamp = np.full(nx * ny, -1, dtype=np.int64)
    cap = max(1024, 4 * n)
    out_w = np.empty(cap, dtype=np.int64)
    out_c = np.empty(cap, dtype=np.int64)
    kept = 0
    max_pieces = nx + ny + 2
    for w in range(n):
        ax, ay, bx, by = coords[w, 0], coords[w, 1], coords[w, 2], coords[w, 3]
        dx, dy = bx - ax, by - ay
        grow = reach + 1e-12 * (abs(ax) + abs(ay) + abs(bx) + abs(by))
        length = math.hypot(dx, dy)
        # NaN: one box (the clamp puts it somewhere)
        k = 1 if length != length else pieces(length, cell, max_pieces)
        for q in range(k):
            lx, ly, hx, hy = piece_box(coords[w], q, k, grow)
            ix0, ix1 = cell_of(lx, x0, cell, nx), cell_of(hx, x0, cell, nx)
            iy0, iy1 = cell_of(ly, y0, cell, ny), cell_of(hy, y0, cell, ny)
            for iy in range(iy0, iy1 + 1):
                for ix in range(ix0, ix1 + 1):
                    c = iy * nx + ix
                    if stamp[c] == w:
                        continue
                    stamp[c] = w
                    out_w, out_c = append_pair(out_w, out_c, kept, w, c)
                    kept += 1
    return out_w[:kept], out_c[:kept]


def build_segment_grid(coords: FloatArray) -> SegmentGrid:
    """The ``SegmentGrid`` of walls ``coords`` (n, 4) px, n >= 1.

    O(n + total length / cell) entries, about ``ENTRIES_PER_WALL`` per wall or fewer.
    """
    n = len(coords)
    xy = coords.reshape(-1, 2)
    finite = np.isfinite(xy).all(axis=1)
    lo = xy[finite].min(axis=0) if finite.any() else np.zeros(2)
    hi = xy[finite].max(axis=0) if finite.any() else np.ones(2)
    w = max(float(hi[0] - lo[0]), 1.0)
    h = max(float(hi[1] - lo[1]), 1.0)
    lengths = np.hypot(coords[:, 2] - coords[:, 0], coords[:, 3] - coords[:, 1])
    total = float(lengths[np.isfinite(lengths)].sum())
    cell = max(math.sqrt(w * h / n), total / (ENTRIES_PER_WALL * n), max(w, h) / (4 * n))
    nx = min(max(1, math.ceil(w / cell)), 1 << 14)
    ny = min(max(1, math.ceil(h / cell)), 1 << 14)
    walls, cells = _walk(
        np.ascontiguousarray(coords, dtype=np.float64),
        float(lo[0]),
        float(lo[1]),
        cell,
        nx,
        ny,
        REACH_PX,
    )
    cell_start, cell_walls = _by_cell(walls, cells, nx * ny)
    wall_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(walls, minlength=n), out=wall_start[1:])
    return SegmentGrid(
        float(lo[0]), float(lo[1]), cell, nx, ny, cell_start, cell_walls, wall_start, cells
    )


@njit(cache=True, nogil=True)
def _by_cell(
    walls: NDArray[np.int64], cells: NDArray[np.int64], count: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover - compiled
    """The entries by cell (a counting sort, stable: walls in order within a cell)."""
    start = np.zeros(count + 1, dtype=np.int64)
    for c in cells:
        start[c + 1] += 1
    for c in range(count):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    out = np.empty(walls.shape[0], dtype=np.int64)
    for k in range(walls.shape[0]):
        c = cells[k]
        out[fill[c]] = walls[k]
        fill[c] += 1
    return start, out


def segment_grid(index: WallIndex) -> SegmentGrid:
    """The ``SegmentGrid`` of ``index``'s walls (at least one).

    Not kept on the index: its two users keep their own results (the obstacles in
    ``WallIndex.memo``, the crossing count inside the memoised rooms), so a cached scene
    holds none of its entries (up to about 50 per wall for long walls).
    """
    return build_segment_grid(index.coords)
