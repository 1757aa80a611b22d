"""GEO-6's obstacles: walls joined end to end or in a T, judged as one at a token's corner.

GEO-6's corner sentence ("a wall whose end lies on the token's own corner") reads the whole
obstacle the wall belongs to.

``wall_components`` labels every wall with its obstacle, once per wall index; ``points_on_walls``
finds which points (wall ends) lie on which walls, compiled over the walls' cell grid with
GEOS's point-segment distance in the same arithmetic. A run of many walls on one line, each
overlapping the next (``MIN_RUN`` or more: 10,000 shifted copies of one wall), is one obstacle
by itself and is tested as one segment, so its ends cost one pair each, not one per wall of
the run.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.tolerances import QUERY_TOL_PX
from service.engine.walls import FloatArray, WallIndex
from service.geometry.cells import build_segment_grid
from service.geometry.compiled import cell_of, grown_bool, grown_int, njit

#: Walls on one line, each overlapping the run before it, from which they are joined as one
#: segment in ``wall_components`` (a run shorter than this is tested wall by wall).
MIN_RUN = 8


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
        member, head, tested, owner = _runs_as_one(index.coords)
        if len(member):  # long runs of overlapping collinear walls: one segment each
            p, s = _points_on_segments(tested, points, None)
            w = owner[s]
        else:
            p, w = points_on_walls(index, points)
        # An end lying on its own wall joins nothing: the pair counts when some end at the
        # point belongs to another wall.
        ends_here = np.bincount(at, minlength=len(points))[p]
        own = (at[2 * w] == p).astype(np.int64) + (at[2 * w + 1] == p)
        keep = ends_here > own
        p, w = p[keep], w[keep]
        end_node = node.ravel()
        u = np.concatenate([node[:, 0], end_node[first[p]], node[member, 0]])
        v = np.concatenate([node[:, 1], node[w, 0], node[head, 0]])
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
    return _points_on_segments(index.coords, points, index.tree)


def _points_on_segments(
    coords: FloatArray, points: FloatArray, tree: shapely.STRtree | None
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``points_on_walls`` against the segments ``coords`` (m, 4) px.

    ``tree``: an ``STRtree`` of those segments for the pairs within a rounding margin of the
    tolerance (``None``: made when some pair needs it).
    """
    points = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 2)
    coords = np.ascontiguousarray(coords, dtype=np.float64)
    grid = build_segment_grid(coords)
    e, w, sure = _near_ends(
        points,
        coords,
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
        if tree is None:
            tree = shapely.STRtree(shapely.linestrings(coords.reshape(-1, 2, 2)))
        asked = np.unique(e[unsure])
        qe, qw = tree.query(
            shapely.points(points[asked]), predicate="dwithin", distance=QUERY_TOL_PX
        )
        found = set(zip(asked[qe].tolist(), qw.tolist(), strict=True))
        keep = sure.copy()
        keep[unsure] = [
            (a, b) in found for a, b in zip(e[unsure].tolist(), w[unsure].tolist(), strict=True)
        ]
        e, w = e[keep], w[keep]
    return _sorted_pairs(e, w)


def _runs_as_one(
    coords: FloatArray,
) -> tuple[NDArray[np.intp], NDArray[np.intp], FloatArray, NDArray[np.intp]]:
    """The long runs of overlapping collinear walls, and the segments to test instead.

    Walls on one line (direction to 1e-14, offset to ``QUERY_TOL_PX`` / 16) sorted along it
    join a run while each starts clearly inside the run so far (by more than twice the
    tolerance): an end of each lies on a wall before it, so the run is one obstacle. A run
    of ``MIN_RUN`` walls or more is tested as one segment, from its first end to its last.

    Returns
    -------
    member, head : ndarray of shape (r,), int
        Each wall of a long run and the run's first wall (joined in the union-find).
    tested : ndarray of shape (m, 4)
        px: the walls outside long runs, then one segment per long run (empty ``member``:
        nothing to do, the walls are tested as they are).
    owner : ndarray of shape (m,), int
        The wall each tested segment stands for (a run's first wall).

    Cost: O(n log n).
    """
    n = len(coords)
    nothing = np.empty(0, dtype=np.intp)
    d = coords[:, 2:] - coords[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    live = np.flatnonzero(length > 0)
    if len(live) < MIN_RUN:
        return nothing, nothing, coords, np.arange(n)
    u = d[live] / length[live, None]
    flip = (u[:, 0] < 0) | ((u[:, 0] == 0) & (u[:, 1] < 0))
    u[flip] = -u[flip]
    c = coords[live]
    offset = c[:, 1] * u[:, 0] - c[:, 0] * u[:, 1]
    along = np.column_stack(
        [c[:, 0] * u[:, 0] + c[:, 1] * u[:, 1], c[:, 2] * u[:, 0] + c[:, 3] * u[:, 1]]
    )
    lo, hi = along.min(axis=1), along.max(axis=1)
    key = np.column_stack([np.round(u * 1e14), np.round(offset / (QUERY_TOL_PX / 16))])
    order = np.lexsort((lo, key[:, 2], key[:, 1], key[:, 0]))
    same = np.zeros(len(order), dtype=np.bool_)
    same[1:] = (key[order[1:]] == key[order[:-1]]).all(axis=1)
    start = _run_starts(same, lo[order], hi[order], 2 * QUERY_TOL_PX)
    sizes = np.bincount(start, minlength=len(order))
    long = sizes[start] >= MIN_RUN
    if not long.any():
        return nothing, nothing, coords, np.arange(n)
    at = np.flatnonzero(long)  # positions in the sorted order
    member, head = live[order[at]], live[order[start[at]]]
    heads, run_of = np.unique(head, return_inverse=True)
    # Each long run's segment: from the end farthest back to the end farthest on.
    ends, along_u = coords[member], u[order[at]]
    t0 = ends[:, 0] * along_u[:, 0] + ends[:, 1] * along_u[:, 1]
    t1 = ends[:, 2] * along_u[:, 0] + ends[:, 3] * along_u[:, 1]
    forward = (t0 <= t1)[:, None]
    back = np.where(forward, ends[:, :2], ends[:, 2:])
    on = np.where(forward, ends[:, 2:], ends[:, :2])
    runs = np.arange(len(heads))
    by_back = np.lexsort((np.minimum(t0, t1), run_of))
    by_on = np.lexsort((-np.maximum(t0, t1), run_of))
    first = by_back[np.searchsorted(run_of[by_back], runs)]
    last = by_on[np.searchsorted(run_of[by_on], runs)]
    rest = np.setdiff1d(np.arange(n), member)
    tested = np.concatenate([coords[rest], np.column_stack([back[first], on[last]])])
    return member, head, tested, np.concatenate([rest, heads])


@njit(cache=True, nogil=True)
def _run_starts(
    same: NDArray[np.bool_], lo: NDArray[np.float64], hi: NDArray[np.float64], margin: float
) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """Each sorted wall's run: the position of the run's first wall, shape (k,).

    A wall joins the run before it when it is on the same line (``same``) and starts more
    than ``margin`` inside the run's reach so far.
    """
    k = lo.shape[0]
    out = np.zeros(k, dtype=np.int64)
    reach = -np.inf
    for i in range(k):
        if i > 0 and same[i] and lo[i] < reach - margin:
            out[i] = out[i - 1]
            reach = max(reach, hi[i])
        else:
            out[i] = i
            reach = hi[i]
    return out


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
