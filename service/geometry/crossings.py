"""Crossings of segments, counted up to a limit: how much noding a set of lines would need.

Closed rooms (``service.geometry.rooms``) node and polygonize the firm walls, and a region
outline or a floor's ring that crosses itself is repaired by GEOS (``make_valid``, which
nodes and polygonizes it): both cost grows with the crossings (a 101-point star outline,
4,949 crossings, takes 13.6 s to repair), so each is counted first, compiled, and the work is
refused or skipped past a limit (``docs/decisions.md`` "Bounded work").
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.walls import FloatArray, WallIndex
from service.geometry.cells import build_segment_grid
from service.geometry.compiled import append_pair, njit, sign


def crossing_count(
    coords: FloatArray,
    limit: int,
    firm: NDArray[np.bool_] | None = None,
    lines: NDArray[np.object_] | None = None,
) -> int:
    """How many times the segments ``coords`` (n, 4) px cross one another, up to ``limit``.

    The count when it is at most ``limit``, else ``limit + 1``.

    Only those of ``firm`` (n,) when given. Counts crossing pairs (interiors meeting at a
    point: segments meeting at an end or in a T are not counted, they add at most 2n
    pieces to a noding), so GEOS's own noding is never started on an unbounded input; the
    answer of an ``STRtree`` ``crosses`` query (the oracle in ``tests/reference/trace.py``).
    ``lines``: the segments as shapely lines when the caller holds them (else the few GEOS
    is asked about are made).

    The segments listed together in a cell of the segment grid (``cells``) are tested with
    orientation signs that are certain (each sign's float error bound is exceeded); the few
    pairs it cannot settle (touching, collinear, zero-length, or too close to call) are
    asked of GEOS (``shapely.crosses``), and only when they could change the verdict. Stops
    as soon as the certain crossings pass ``limit``, or the pairs it cannot settle pass
    ``MAX_UNSURE`` (segments on one line overlapping by the thousand: every pair is unsure;
    answered as past ``limit``). Cost: O(entries of the segments' cells + pairs listed
    together, up to ``MAX_UNSURE`` unsure ones), compiled, plus GEOS on at most
    ``MAX_UNSURE`` pairs.
    """
    n = len(coords)
    mask = np.ones(n, dtype=np.bool_) if firm is None else firm
    if not n or not mask.any():
        return 0
    coords = np.ascontiguousarray(coords, dtype=np.float64)
    grid = build_segment_grid(coords)
    count, ui, uj = _count_crossings(
        coords,
        np.ascontiguousarray(mask, dtype=np.bool_),
        grid.wall_start,
        grid.wall_cells,
        grid.cell_start,
        grid.cell_walls,
        limit,
        MAX_UNSURE,
    )
    if count > limit or not len(ui):
        return min(count, limit + 1)
    if lines is None:
        a = shapely.linestrings(coords[ui].reshape(-1, 2, 2))
        b = shapely.linestrings(coords[uj].reshape(-1, 2, 2))
    else:
        a, b = lines[ui], lines[uj]
    return min(count + int(np.count_nonzero(shapely.crosses(a, b))), limit + 1)


def firm_crossings_within(index: WallIndex, firm: NDArray[np.bool_], limit: int) -> bool:
    """Whether the walls ``firm`` (n,) of ``index`` cross one another at most ``limit`` times.

    ``crossing_count`` of the index's segments. The most crossings the rooms step nodes
    is the setting ``SIGHTLINE_MAX_ROOM_CROSSINGS`` (``core_limit``, 50,000): noding n walls
    with k crossings makes n + 2k pieces and polygonizing them costs about that again, so
    past it the step is skipped (rooms are only a shortcut: ``sealed_apart`` may say "not
    known", and every pair then takes the plain path). Measured: 57,000 crossings (700
    random long walls) node and polygonize in 2.3 s and 140 MB.
    """
    return crossing_count(index.coords, limit, firm, index.tree.geometries) <= limit


def ring_crossings(points: FloatArray, limit: int) -> int:
    """How many times the closed ring through ``points`` (m, 2) px crosses itself, up to ``limit``.

    ``crossing_count`` of its edges, the last point joined to the first (edges meeting at
    a vertex do not count; zero-length edges are left out): O(edges in the grid's cells),
    compiled; ``limit + 1`` past the limit.
    """
    xy = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(xy) < 4:
        return 0  # three edges cross nothing but at their vertices
    edges = np.concatenate([xy, np.roll(xy, -1, axis=0)], axis=1)
    return crossing_count(edges[np.any(edges[:, :2] != edges[:, 2:], axis=1)], limit)


#: Most pairs ``crossing_count`` asks GEOS about (``shapely.crosses``: about 0.15 s); past
#: it the count answers as past its limit.
MAX_UNSURE = 50_000

#: Relative float error bound of an orientation (a 2 x 2 determinant of differences) under
#: which its sign is not certain: far above the ~3.3e-16 proved for it (Shewchuk's
#: ``orient2d``).
_ORIENT_ERR = 1e-14

#: How far (relative to the lengths, plus a few thousand float epsilons of the coordinates)
#: each wall's ends must lie from the other's line to call a crossing certain. GEOS rounds
#: the crossing point and, when it lands on a wall's end, calls the walls touching (not
#: crossing) even where exact arithmetic says they cross: such near misses go to GEOS.
_CROSS_REL = 1e-9
_CROSS_ABS = 1e-12


@njit(cache=True, nogil=True)
def _orient(
    px: float, py: float, qx: float, qy: float, rx: float, ry: float, rel: float, margin: float
) -> int:  # pragma: no cover - compiled
    """Sign of the turn p -> q -> r: +1, -1, or 0 when it is within the error band.

    The band is ``rel`` times the two products' magnitudes plus ``margin``.
    """
    t1 = (qx - px) * (ry - py)
    t2 = (qy - py) * (rx - px)
    return sign(t1 - t2, rel * (abs(t1) + abs(t2)) + margin)


@njit(cache=True, nogil=True)
def _crossing(a: NDArray[np.float64], b: NDArray[np.float64]) -> int:  # pragma: no cover
    """Whether walls ``a`` and ``b`` cross in both interiors: 1 yes, 0 no, -1 not sure.

    "No" needs certain signs (``_ORIENT_ERR``) showing one wall wholly on one side of the
    other's line, or disjoint boxes, or a shared end; "yes" needs every end clear of the
    other's line by the wider band (``_CROSS_REL``, ``_CROSS_ABS``).
    """
    ax, ay, bx, by = a[0], a[1], a[2], a[3]
    cx, cy, dx, dy = b[0], b[1], b[2], b[3]
    if max(ax, bx) < min(cx, dx) or max(cx, dx) < min(ax, bx):
        return 0
    if max(ay, by) < min(cy, dy) or max(cy, dy) < min(ay, by):
        return 0
    if (ax == bx and ay == by) or (cx == dx and cy == dy):
        return -1  # a zero-length wall: GEOS decides
    if (ax == cx and ay == cy) or (ax == dx and ay == dy):
        return 0  # a shared end: they meet there or run along each other, never cross
    if (bx == cx and by == cy) or (bx == dx and by == dy):
        return 0
    o1 = _orient(ax, ay, bx, by, cx, cy, _ORIENT_ERR, 0.0)
    o2 = _orient(ax, ay, bx, by, dx, dy, _ORIENT_ERR, 0.0)
    if o1 * o2 > 0:
        return 0
    o3 = _orient(cx, cy, dx, dy, ax, ay, _ORIENT_ERR, 0.0)
    o4 = _orient(cx, cy, dx, dy, bx, by, _ORIENT_ERR, 0.0)
    if o3 * o4 > 0:
        return 0
    size = max(abs(ax), abs(ay), abs(bx), abs(by), abs(cx), abs(cy), abs(dx), abs(dy))
    far_ab = _CROSS_ABS * size * math.hypot(bx - ax, by - ay)
    far_cd = _CROSS_ABS * size * math.hypot(dx - cx, dy - cy)
    if (
        _orient(ax, ay, bx, by, cx, cy, _CROSS_REL, far_ab) != 0
        and _orient(ax, ay, bx, by, dx, dy, _CROSS_REL, far_ab) != 0
        and _orient(cx, cy, dx, dy, ax, ay, _CROSS_REL, far_cd) != 0
        and _orient(cx, cy, dx, dy, bx, by, _CROSS_REL, far_cd) != 0
    ):
        return 1  # the signs are those of o1..o4: opposite on both lines
    return -1


@njit(cache=True, nogil=True)
def _count_crossings(
    coords: NDArray[np.float64],
    firm: NDArray[np.bool_],
    wall_start: NDArray[np.int64],
    wall_cells: NDArray[np.int64],
    cell_start: NDArray[np.int64],
    cell_walls: NDArray[np.int64],
    limit: int,
    max_unsure: int,
) -> tuple[int, NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover - compiled
    """Certain crossings of ``firm`` walls (stopping past ``limit``), and the unsure pairs.

    More than ``max_unsure`` unsure pairs answer ``limit + 1`` crossings (GEOS is not asked).
    """
    n = coords.shape[0]
    stamp = np.full(n, -1, dtype=np.int64)
    cap = 64
    out_i = np.empty(cap, dtype=np.int64)
    out_j = np.empty(cap, dtype=np.int64)
    unsure = 0
    count = 0
    for w in range(n):
        if not firm[w]:
            continue
        for k in range(wall_start[w], wall_start[w + 1]):
            c = wall_cells[k]
            for jj in range(cell_start[c], cell_start[c + 1]):
                j = cell_walls[jj]
                if j <= w or not firm[j] or stamp[j] == w:
                    continue
                stamp[j] = w
                verdict = _crossing(coords[w], coords[j])
                if verdict == 1:
                    count += 1
                    if count > limit:
                        return count, out_i[:unsure], out_j[:unsure]
                elif verdict == -1:
                    if unsure == max_unsure:  # too many to ask GEOS: as over the limit
                        return limit + 1, out_i[:unsure], out_j[:unsure]
                    out_i, out_j = append_pair(out_i, out_j, unsure, w, j)
                    unsure += 1
    return count, out_i[:unsure], out_j[:unsure]
