"""GEO-6's obstacles: walls joined end to end or in a T, judged as one at a token's corner.

GEO-6's corner sentence ("a wall whose end lies on the token's own corner") reads the whole
obstacle the wall belongs to.

``wall_components`` labels every wall with its obstacle, once per wall index; ``points_on_walls``
finds which points (wall ends) lie on which walls, compiled over the walls' cell grid with
GEOS's point-segment distance in the same arithmetic.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.tolerances import QUERY_TOL_PX
from service.engine.walls import FloatArray, WallIndex
from service.geometry.cells import segment_grid
from service.geometry.compiled import cell_of, grown_bool, grown_int, njit


def wall_components(index: WallIndex) -> NDArray[np.int64]:
    """The obstacle of each wall: walls joined end to end share one label, shape (n,).

    GEO-6's "a wall whose end lies on the token's own corner" is read as the whole
    obstacle it belongs to (the four sides of a pillar, and the wall a T-junction's stem
    ends on: a room's wall ending on the building's outer wall). Ends join when they agree
    to ``QUERY_TOL_PX``; an end joins a wall whose interior it lies on within that
    tolerance (``ends_on_walls``). A label is the smallest end-point node of its obstacle
    (nodes numbered in ``np.unique`` order of the rounded ends), whatever the order of the
    joins. Computed once per index (``WallIndex.memo``); O(n log n) plus the (distinct end
    point, wall) pairs whose boxes meet, in a compiled union-find.
    """
    found = index.memo.get("components")
    if found is not None:
        return found  # type: ignore[no-any-return]
    n = index.size
    ends = np.round(index.coords.reshape(-1, 2) / QUERY_TOL_PX)
    _, node = np.unique(ends, axis=0, return_inverse=True)
    node = node.ravel().reshape(n, 2).astype(np.int64)
    if n:
        # Each distinct end point once (walls through one point share it): the pairs of
        # ``ends_on_walls`` with a point for all its ends, so a thousand walls ending at one
        # point cost a thousand pairs there, not a million.
        flat = index.coords.reshape(-1, 2)
        points, first, at = np.unique(flat, axis=0, return_index=True, return_inverse=True)
        at = at.ravel()
        p, w = points_on_walls(index, points)
        # An end lying on its own wall joins nothing: the pair counts when some end at the
        # point belongs to another wall.
        ends_here = np.bincount(at, minlength=len(points))[p]
        own = (at[2 * w] == p).astype(np.int64) + (at[2 * w + 1] == p)
        keep = ends_here > own
        p, w = p[keep], w[keep]
        end_node = node.ravel()
        u = np.concatenate([node[:, 0], end_node[first[p]]])
        v = np.concatenate([node[:, 1], node[w, 0]])
        root = _union_find(u, v, int(node.max()) + 1)
        labels = root[node[:, 0]]
    else:
        labels = np.empty(0, dtype=np.int64)
    index.memo["components"] = labels
    return labels


def ends_on_walls(index: WallIndex) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(end, wall) pairs, sorted: end ``e`` lies within ``QUERY_TOL_PX`` of wall ``w``.

    End ``e`` is end ``e % 2`` of wall ``e // 2`` (its own wall is among the pairs).
    ``points_on_walls`` of every end.
    """
    return points_on_walls(index, index.coords.reshape(-1, 2))


def points_on_walls(
    index: WallIndex, points: FloatArray
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(point, wall) pairs, sorted: point ``p`` (k, 2) px lies within ``QUERY_TOL_PX`` of ``w``.

    Exactly the pairs of the ``STRtree`` query ``dwithin`` of the points against the walls
    (``index.tree``, the oracle in ``tests/reference``): the walls' cell grid
    (``cells.segment_grid``) lists the walls near each point and GEOS's point-segment
    distance decides, compiled in the same arithmetic; only the pairs within a rounding
    margin of the tolerance are asked of GEOS. Cost: O(pairs whose boxes meet).
    """
    points = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 2)
    grid = segment_grid(index)
    e, w, sure = _near_ends(
        points,
        np.ascontiguousarray(index.coords, dtype=np.float64),
        grid.x0,
        grid.y0,
        grid.cell,
        grid.nx,
        grid.ny,
        grid.cell_start,
        grid.cell_walls,
        QUERY_TOL_PX,
    )
    unsure = np.flatnonzero(~sure)
    if len(unsure):  # within a rounding margin of the tolerance: GEOS's own query decides
        asked = np.unique(e[unsure])
        qe, qw = index.tree.query(
            shapely.points(points[asked]), predicate="dwithin", distance=QUERY_TOL_PX
        )
        found = set(zip(asked[qe].tolist(), qw.tolist(), strict=True))
        keep = sure.copy()
        keep[unsure] = [
            (a, b) in found for a, b in zip(e[unsure].tolist(), w[unsure].tolist(), strict=True)
        ]
        e, w = e[keep], w[keep]
    return _sorted_pairs(e, w)


def _sorted_pairs(
    e: NDArray[np.int64], w: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Pairs ``(e, w)`` sorted by ``e`` then ``w``."""
    order = np.lexsort((w, e))
    return e[order], w[order]


#: Relative rounding margin of ``_near_ends``' distances (about 450 float epsilons of the
#: lengths involved): a distance this close to the tolerance is asked of GEOS.
_NEAR_SLACK = 1e-13


@njit(cache=True, nogil=True)
def _near_ends(
    points: NDArray[np.float64],
    coords: NDArray[np.float64],
    gx0: float,
    gy0: float,
    cell: float,
    nx: int,
    ny: int,
    cell_start: NDArray[np.int64],
    cell_walls: NDArray[np.int64],
    tol: float,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:  # pragma: no cover
    """(end, wall) pairs within ``tol`` px, and whether each is sure (see ``ends_on_walls``).

    The walls near an end are those listed in its cell (``cells.SegmentGrid``). Pairs
    whose distance is within ``_NEAR_SLACK`` of ``tol`` (relative to the lengths) are
    returned unsure, for GEOS; pairs surely farther are left out.
    """
    k = points.shape[0]
    cap = max(64, 2 * k)
    out_e = np.empty(cap, dtype=np.int64)
    out_w = np.empty(cap, dtype=np.int64)
    out_s = np.empty(cap, dtype=np.bool_)
    kept = 0
    for e in range(k):
        px, py = points[e, 0], points[e, 1]
        c = cell_of(py, gy0, cell, ny) * nx + cell_of(px, gx0, cell, nx)
        for j in range(cell_start[c], cell_start[c + 1]):
            w = cell_walls[j]
            ax, ay, bx, by = coords[w, 0], coords[w, 1], coords[w, 2], coords[w, 3]
            # GEOS's Distance::pointToSegment, operation for operation.
            if ax == bx and ay == by:
                d = math.sqrt((px - ax) * (px - ax) + (py - ay) * (py - ay))
                size = 0.0
            else:
                len2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay)
                r = ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / len2
                if r <= 0.0:
                    d = math.sqrt((px - ax) * (px - ax) + (py - ay) * (py - ay))
                elif r >= 1.0:
                    d = math.sqrt((px - bx) * (px - bx) + (py - by) * (py - by))
                else:
                    s = ((ay - py) * (bx - ax) - (ax - px) * (by - ay)) / len2
                    d = abs(s) * math.sqrt(len2)
                size = math.sqrt(len2)
            slack = _NEAR_SLACK * (1.0 + size + abs(px - ax) + abs(py - ay))
            if d > tol + slack:
                continue
            if kept == cap:
                cap *= 2
                out_e = grown_int(out_e, kept, cap)
                out_w = grown_int(out_w, kept, cap)
                out_s = grown_bool(out_s, kept, cap)
            out_e[kept] = e
            out_w[kept] = w
            out_s[kept] = d <= tol - slack
            kept += 1
    return out_e[:kept], out_w[:kept], out_s[:kept]


@njit(cache=True, nogil=True)
def _union_find(
    u: NDArray[np.int64], v: NDArray[np.int64], nodes: int
) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """The smallest node of each node's component, shape (nodes,), joining ``u[k]``, ``v[k]``.

    Union by smallest root (a root is always its set's smallest node), path halving.
    """
    parent = np.arange(nodes)
    for k in range(u.shape[0]):
        a, b = u[k], v[k]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a < b:
            parent[b] = a
        elif b < a:
            parent[a] = b
    for x in range(nodes):
        r = x
        while parent[r] != r:
            r = parent[r]
        parent[x] = r
    return parent
