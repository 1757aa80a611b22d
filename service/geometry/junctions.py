"""Where walls meet on a traced segment: the GEO-6 junction rule.

A segment passing through a point where walls meet is blocked when the walls there lie on
both sides of it, so splitting a wall or reordering walls never changes an answer. The same
rule at an exact corner line's own ends (``end_junctions``: the token's space is the far
side), and the obstacles that GEO-6's corner sentence judges as one (``wall_components``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.tolerances import ON_LINE_TOL_PX, QUERY_TOL_PX
from service.engine.walls import FloatArray, WallIndex
from service.geometry import kernel
from service.geometry.cells import segment_grid


def collinear_runs(
    seg_idx: NDArray[np.intp], lo: FloatArray, hi: FloatArray
) -> dict[int, list[tuple[float, float]]]:
    """Per segment, the merged stretches (px along it) where it runs along walls."""
    runs: dict[int, list[tuple[float, float]]] = {}
    order = np.lexsort((lo, seg_idx))
    for k in order:
        s, a, b = int(seg_idx[k]), float(lo[k]), float(hi[k])
        mine = runs.setdefault(s, [])
        if mine and a <= mine[-1][1] + ON_LINE_TOL_PX:
            mine[-1] = (mine[-1][0], max(mine[-1][1], b))
        else:
            mine.append((a, b))
    return runs


def junctions(
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    a: FloatArray,
    b: FloatArray,
    events: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    proj: tuple[FloatArray, FloatArray],
    s_a: NDArray[np.int8],
    s_b: NDArray[np.int8],
    limited: NDArray[np.bool_],
    runs: dict[int, list[tuple[float, float]]],
    wall_blocked: NDArray[np.bool_],
    wall_blockers: list[list[int]] | None,
    limited_count: NDArray[np.int64],
    limited_hits: dict[int, list[int]],
) -> None:
    """Resolve segments passing exactly through wall end points (GEO-6).

    At each such point, the walls meeting there block the segment when some lie strictly on
    its left and some strictly on its right. Where the segment runs along walls for a
    stretch, the end points on that stretch count as one junction: a wall chain that comes
    from the left, runs along the segment and leaves to the right still separates it.
    Limited walls separating it count as one limited crossing (GEO-4). These touches are
    rare, so a Python loop over them is fine.
    """
    groups: dict[tuple[int, int, float, float], list[tuple[int, int, bool]]] = {}
    directions: dict[tuple[int, int], FloatArray] = {}  # (segment, wall) -> ray
    ends = ((events[0], a, b, s_b, proj[0]), (events[1], b, a, s_a, proj[1]))
    for mask, pts, other, other_side, along in ends:
        for k in np.nonzero(mask)[0]:
            s = int(si[k])
            key = (s, 0, round(float(pts[k, 0]), 6), round(float(pts[k, 1]), 6))
            for r, (lo, hi) in enumerate(runs.get(s, ())):
                if lo - ON_LINE_TOL_PX <= along[k] <= hi + ON_LINE_TOL_PX:
                    key = (s, 1, float(r), 0.0)
                    break
            groups.setdefault(key, []).append((int(wi[k]), int(other_side[k]), bool(limited[k])))
            directions[(s, int(wi[k]))] = other[k] - pts[k]
    for (s, _, _, _), rays in groups.items():
        normal = [(w, side) for w, side, lim in rays if not lim]
        if {side for _, side in normal} == {-1, 1}:
            wall_blocked[s] = True
            if wall_blockers is not None:
                wall_blockers[s].extend(separating(normal, directions, s))
        elif {side for _, side, _ in rays} == {-1, 1}:
            limited_count[s] += 1
            if wall_blockers is not None:
                limited_hits.setdefault(s, []).extend(
                    separating([(w, side) for w, side, _ in rays], directions, s)
                )


def junction_nodes(index: WallIndex) -> NDArray[np.int64]:
    """Each wall end's point, numbered, shape (n, 2): ``junctions``' grouping key.

    Two ends get one number when their coordinates round alike to 6 decimals (Python's
    ``round``, as ``junctions`` keys its groups). Computed once per index (``memo``), O(n).
    """
    found = index.memo.get("junction_nodes")
    if found is not None:
        return found  # type: ignore[no-any-return]
    numbers: dict[tuple[float, float], int] = {}
    flat = [
        numbers.setdefault((round(x, 6), round(y, 6)), len(numbers))
        for x, y in index.coords.reshape(-1, 2).tolist()
    ]
    nodes = np.asarray(flat, dtype=np.int64).reshape(index.size, 2)
    index.memo["junction_nodes"] = nodes
    return nodes


def junctions_compiled(
    index: WallIndex,
    m: int,
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    events: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    proj: tuple[FloatArray, FloatArray],
    sides: tuple[NDArray[np.int8], NDArray[np.int8]],
    limited: NDArray[np.bool_],
    runs: dict[int, list[tuple[float, float]]],
    listing: bool,
) -> tuple[NDArray[np.int64], ...]:
    """``junctions``' answer, compiled: the same groups, sides and named walls.

    ``m`` segments; ``sides``: ``s_a, s_b``. Returns, as int64 arrays:

    - ``blocked`` (q, 2): (segment, wall) rows of the groups that block, their named walls
      when ``listing``, else one row per group with wall -1;
    - ``limited_groups`` (r,): the segment of each group that counts as one limited
      crossing (GEO-4);
    - ``limited_hits`` (t, 2): (segment, wall) rows naming those groups' walls (``listing``).

    O(events log events).
    """
    run_start, run_lo, run_hi = _run_arrays(runs, m)
    return _resolve_junctions(  # type: ignore[no-any-return]
        si.astype(np.int64, copy=False),
        wi.astype(np.int64, copy=False),
        events[0],
        events[1],
        proj[0],
        proj[1],
        sides[0],
        sides[1],
        limited,
        junction_nodes(index),
        run_start,
        run_lo,
        run_hi,
        index.coords,
        listing,
        ON_LINE_TOL_PX,
    )


def _run_arrays(
    runs: dict[int, list[tuple[float, float]]], m: int
) -> tuple[NDArray[np.int64], FloatArray, FloatArray]:
    """``collinear_runs`` of ``m`` segments as arrays for the compiled rules.

    ``run_start`` (m + 1,): segment s's stretches are rows ``run_start[s]:run_start[s + 1]``
    of ``run_lo`` and ``run_hi`` (px along it), in ``runs``' order.
    """
    counts = np.zeros(m + 1, dtype=np.int64)
    lows: list[float] = []
    highs: list[float] = []
    for s in sorted(runs):
        counts[s + 1] = len(runs[s])
        for lo, hi in runs[s]:
            lows.append(lo)
            highs.append(hi)
    return (
        np.cumsum(counts),
        np.asarray(lows, dtype=np.float64),
        np.asarray(highs, dtype=np.float64),
    )


@kernel.njit(cache=True, nogil=True)
def _resolve_junctions(
    si: NDArray[np.int64],
    wi: NDArray[np.int64],
    ev_a: NDArray[np.bool_],
    ev_b: NDArray[np.bool_],
    proj_a: NDArray[np.float64],
    proj_b: NDArray[np.float64],
    s_a: NDArray[np.int8],
    s_b: NDArray[np.int8],
    limited: NDArray[np.bool_],
    nodes: NDArray[np.int64],
    run_start: NDArray[np.int64],
    run_lo: NDArray[np.float64],
    run_hi: NDArray[np.float64],
    coords: NDArray[np.float64],
    listing: bool,
    tol: float,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover
    """See ``junctions_compiled``; ``junctions``' loops in the same arithmetic."""
    p = si.shape[0]
    count = 0
    for k in range(p):
        count += int(ev_a[k]) + int(ev_b[k])
    key = np.empty(count, dtype=np.int64)
    pair = np.empty(count, dtype=np.int64)
    side = np.empty(count, dtype=np.int64)
    dirx = np.empty(count, dtype=np.float64)
    diry = np.empty(count, dtype=np.float64)
    span = 2 * nodes.shape[0] + run_lo.shape[0] + 1
    j = 0
    for which in range(2):  # first ends, then second ends, as ``junctions``
        for k in range(p):
            if not (ev_a[k] if which == 0 else ev_b[k]):
                continue
            s, w = si[k], wi[k]
            along = proj_a[k] if which == 0 else proj_b[k]
            group = nodes[w, which]
            for r in range(run_start[s], run_start[s + 1]):
                if run_lo[r] - tol <= along and along <= run_hi[r] + tol:
                    group = 2 * nodes.shape[0] + r  # a stretch along walls: one junction
                    break
            key[j] = s * span + group
            pair[j] = k
            side[j] = s_b[k] if which == 0 else s_a[k]
            sgn = 1.0 if which == 0 else -1.0  # the wall's other end, from the event point
            dirx[j] = sgn * (coords[w, 2] - coords[w, 0])
            diry[j] = sgn * (coords[w, 3] - coords[w, 1])
            j += 1
    order = np.argsort(key, kind="mergesort")
    out_b = np.empty((max(count, 1), 2), dtype=np.int64)
    out_l = np.empty((max(count, 1), 2), dtype=np.int64)
    groups_l = np.empty(count, dtype=np.int64)
    nb = 0
    nl = 0
    ng = 0
    g = 0
    while g < count:
        h = g
        while h < count and key[order[h]] == key[order[g]]:
            h += 1
        s = si[pair[order[g]]]
        left_n = right_n = left_all = right_all = False
        for q in range(g, h):
            e = order[q]
            lim = limited[pair[e]]
            if side[e] > 0:
                left_all = True
                left_n = left_n or not lim
            elif side[e] < 0:
                right_all = True
                right_n = right_n or not lim
        normal = left_n and right_n
        if not normal and left_all and right_all:  # one limited crossing (GEO-4)
            groups_l[ng] = s
            ng += 1
        if normal or (left_all and right_all):
            if not listing:
                if normal:
                    out_b, nb = _put(out_b, nb, s, -1)
            else:  # ``separating``: a straight wall split here, else every wall meeting
                straight = 0
                for q in range(g, h):
                    e1 = order[q]
                    if side[e1] <= 0 or (normal and limited[pair[e1]]):
                        continue
                    for q2 in range(g, h):
                        e2 = order[q2]
                        if side[e2] >= 0 or (normal and limited[pair[e2]]):
                            continue
                        cross = dirx[e1] * diry[e2] - diry[e1] * dirx[e2]
                        size = tol * math.hypot(dirx[e1], diry[e1]) * math.hypot(dirx[e2], diry[e2])
                        if abs(cross) <= size and dirx[e1] * dirx[e2] + diry[e1] * diry[e2] < 0:
                            straight += 1
                            for e in (e1, e2):
                                if normal:
                                    out_b, nb = _put(out_b, nb, s, wi[pair[e]])
                                else:
                                    out_l, nl = _put(out_l, nl, s, wi[pair[e]])
                if straight == 0:
                    for q in range(g, h):
                        e = order[q]
                        if normal and limited[pair[e]]:
                            continue
                        if normal:
                            out_b, nb = _put(out_b, nb, s, wi[pair[e]])
                        else:
                            out_l, nl = _put(out_l, nl, s, wi[pair[e]])
        g = h
    return out_b[:nb], groups_l[:ng], out_l[:nl]


@kernel.njit(cache=True, nogil=True)
def _put(
    out: NDArray[np.int64], n: int, s: int, w: int
) -> tuple[NDArray[np.int64], int]:  # pragma: no cover - compiled
    """Append the row ``(s, w)`` to ``out`` holding ``n`` rows, growing it when full."""
    if n == out.shape[0]:
        grown = np.empty((2 * n, 2), dtype=np.int64)
        grown[:n] = out[:n]
        out = grown
    out[n, 0], out[n, 1] = s, w
    return out, n + 1


def separating(
    rays: list[tuple[int, int]], directions: dict[tuple[int, int], FloatArray], seg: int
) -> list[int]:
    """Walls to name as blockers at a junction: a straight wall split there if there is one.

    So that splitting a wall never changes what an answer names: where walls pass straight
    through the point (two pieces in opposite directions on opposite sides), name those
    pieces, as the unsplit walls would be named; otherwise every wall meeting there.
    """
    left = [w for w, side in rays if side > 0]
    right = [w for w, side in rays if side < 0]
    straight: list[int] = []
    for a in left:
        for b in right:
            da, db = directions[(seg, a)], directions[(seg, b)]
            cross = da[0] * db[1] - da[1] * db[0]
            if abs(cross) <= ON_LINE_TOL_PX * np.hypot(*da) * np.hypot(*db) and da @ db < 0:
                straight += [a, b]
    if straight:
        return straight
    return [w for w, _ in rays]


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
    (``index.tree``). With the compiled kernel, the walls' grid (``wall_grid``) lists the
    walls near each point and GEOS's point-segment distance decides, in the same
    arithmetic; only the pairs within a rounding margin of the tolerance are asked of GEOS.
    Cost: O(pairs whose boxes meet) compiled, instead of a GEOS distance for each.
    """
    n = index.size
    points = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 2)
    if not kernel.kernel_enabled():
        e, w = index.tree.query(shapely.points(points), predicate="dwithin", distance=QUERY_TOL_PX)
        return _sorted_pairs(e.astype(np.int64), w.astype(np.int64), n)
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
    return _sorted_pairs(e, w, n)


def _sorted_pairs(
    e: NDArray[np.int64], w: NDArray[np.int64], n: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Pairs ``(e, w)`` sorted by ``e`` then ``w``."""
    order = np.lexsort((w, e))
    return e[order], w[order]


#: Relative rounding margin of ``_near_ends``' distances (about 450 float epsilons of the
#: lengths involved): a distance this close to the tolerance is asked of GEOS.
_NEAR_SLACK = 1e-13


@kernel.njit(cache=True, nogil=True)
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
        c = kernel._cell(py, gy0, cell, ny) * nx + kernel._cell(px, gx0, cell, nx)
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
                grown_e = np.empty(cap, dtype=np.int64)
                grown_w = np.empty(cap, dtype=np.int64)
                grown_s = np.empty(cap, dtype=np.bool_)
                grown_e[:kept] = out_e[:kept]
                grown_w[:kept] = out_w[:kept]
                grown_s[:kept] = out_s[:kept]
                out_e, out_w, out_s = grown_e, grown_w, grown_s
            out_e[kept] = e
            out_w[kept] = w
            out_s[kept] = d <= tol - slack
            kept += 1
    return out_e[:kept], out_w[:kept], out_s[:kept]


@kernel.njit(cache=True, nogil=True)
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


@dataclass
class RunEvents:
    """Wall ends lying on traced segments, for ``end_junctions`` (see ``_exact_walls``).

    ``runs``: per segment, stretches (px along it) where it runs along walls; ``events``:
    pairs whose wall's first / second end lies on the segment's open interior; ``proj``:
    where along it (px); ``sides``: the side (+1 left, -1 right) of the wall's other end.
    """

    runs: dict[int, list[tuple[float, float]]]
    events: tuple[NDArray[np.bool_], NDArray[np.bool_]]
    proj: tuple[FloatArray, FloatArray]
    sides: tuple[NDArray[np.int8], NDArray[np.int8]]
    seg_of: NDArray[np.intp]
    by_segment: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Each segment's events, ``(which end of the wall, pair)``, first ends first."""
        for which in (0, 1):
            ks = np.flatnonzero(self.events[which])
            for s, k in zip(self.seg_of[ks].tolist(), ks.tolist(), strict=True):
                if s in self.runs:
                    self.by_segment.setdefault(s, []).append((which, k))
        for lst in self.by_segment.values():
            lst.sort()

    def on_run_from(self, s: int, end: int, length: float) -> tuple[list[tuple[int, int]], bool]:
        """Wall ends on the stretch that starts at end ``end`` of segment ``s``.

        Returns ``(pair, side)`` of each (pairs of segment ``s`` only), and whether the
        stretch reaches the other end.
        """
        stretch = None
        for lo, hi in self.runs.get(s, ()):
            if (end == 0 and lo <= ON_LINE_TOL_PX) or (end == 1 and hi >= length - ON_LINE_TOL_PX):
                stretch = (lo, hi)
        if stretch is None:
            return [], False
        out = []
        for which, k in self.by_segment.get(s, ()):
            pos = float(self.proj[which][k])
            if stretch[0] - ON_LINE_TOL_PX <= pos <= stretch[1] + ON_LINE_TOL_PX:
                out.append((k, int(self.sides[which][k])))
        reaches = stretch[0] <= ON_LINE_TOL_PX and stretch[1] >= length - ON_LINE_TOL_PX
        return out, reaches


def end_junctions(
    seg: FloatArray,
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    a: FloatArray,
    b: FloatArray,
    active: NDArray[np.bool_],
    inward: FloatArray,
    along: RunEvents,
    wall_blocked: NDArray[np.bool_],
    wall_blockers: list[list[int]] | None,
) -> None:
    """GEO-6 at an exact corner line's own ends: the token's space is the line's far side.

    A line leaving a token's corner comes, as it were, from inside the token's space: the
    walls meeting at that corner block it when they separate the direction into the space
    (``inward``, (m, 4): start then end, zero for a point) from the line's direction, as
    the junction rule does for a line passing through a point where walls meet. A room
    corner wrapped around the token blocks a line leaving the room there; a pillar the token
    stands flush against blocks only lines going into it. Walls whose interior holds the
    corner count as two rays. Where the line runs along walls from its end, the wall ends
    on that stretch count with the corner (as ``junctions`` counts a stretch as one point):
    a line leaving a corner along a wall, between a wall on the token's side and walls on
    the other, is blocked. These touches are rare, so a Python loop over them is fine.
    """
    e = b - a
    wall_len = np.hypot(e[:, 0], e[:, 1])
    safe = np.where(wall_len > 0, wall_len, 1.0)
    picked: list[tuple[NDArray[np.intp], FloatArray, int]] = []  # (k, rays, end)
    for end in (0, 1):  # the candidates are many, the touches few: all found at once
        v = inward[si, 2 * end : 2 * end + 2]
        pt = seg[si, 2 * end : 2 * end + 2]
        da = np.hypot(*(a - pt).T)
        db = np.hypot(*(b - pt).T)
        off = np.abs(e[:, 0] * (pt[:, 1] - a[:, 1]) - e[:, 1] * (pt[:, 0] - a[:, 0])) / safe
        at = np.einsum("ij,ij->i", pt - a, e) / safe
        at_a = da <= QUERY_TOL_PX
        at_b = ~at_a & (db <= QUERY_TOL_PX)
        inner = ~at_a & ~at_b & (off <= ON_LINE_TOL_PX) & (at > 0) & (at < wall_len)
        eligible = active & ((v[:, 0] != 0) | (v[:, 1] != 0)) & (wall_len > ON_LINE_TOL_PX)
        ks = np.flatnonzero(eligible & (at_a | at_b | inner))
        # One ray along the wall from the corner, or two where the corner lies inside it.
        first = np.where(at_a[ks, None], e[ks], np.where(at_b[ks, None], -e[ks], a[ks] - pt[ks]))
        two = ks[inner[ks]]
        k_all = np.concatenate([ks, two])
        order = np.lexsort((np.repeat([0, 1], [len(ks), len(two)]), k_all))
        picked.append((k_all[order], np.concatenate([first, b[two] - pt[two]])[order], end))
    k_all = np.concatenate([k for k, _, _ in picked])
    ray = np.concatenate([r for _, r, _ in picked])
    ends = np.concatenate([np.full(len(k), end) for k, _, end in picked])
    seg_of = si[k_all]
    start, finish = seg[seg_of, 0:2], seg[seg_of, 2:4]
    pt = np.where(ends[:, None] == 0, start, finish)
    line = np.where(ends[:, None] == 0, finish, start) - pt
    way_in = np.where(ends[:, None] == 0, inward[seg_of, 0:2], inward[seg_of, 2:4])
    alpha = _angles(line, way_in)
    ang = _angles(line, ray)
    tol = 1e-9
    aside = (ang <= tol) | (ang >= 2 * np.pi - tol) | (np.abs(ang - alpha) <= tol)
    # From the start, the sector between the line and the way in holds the line's left;
    # from the end (looking back), it holds its right.
    left = (ang < alpha) == (ends == 0)
    # Each end's walls, as the left (True) or right side of the path that comes out of the
    # token's space, follows the line and goes into the other token's space.
    groups: dict[tuple[int, int], dict[bool, list[int]]] = {}
    rows = zip(
        seg_of.tolist(),
        ends.tolist(),
        wi[k_all].tolist(),
        aside.tolist(),
        left.tolist(),
        strict=True,
    )
    for s, end, w, skip, is_left in rows:
        sides = groups.setdefault((s, end), {})
        if not skip:  # along the line or along the way in: on neither side
            sides.setdefault(is_left, []).append(w)
    lengths = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1]).tolist()
    for s in sorted({k for k, _ in groups}):
        length = lengths[s]
        for end in (0, 1):
            group = groups.get((s, end))
            if group is None:
                continue
            # Wall ends along a stretch run from this end belong to the same junction.
            events, reaches = along.on_run_from(s, end, length)
            for k, side in events:
                group.setdefault(side > 0, []).append(int(wi[k]))
            if end == 0 and reaches and (s, 1) in groups:
                for key, ws in group.items():  # one stretch from end to end: one junction
                    groups[(s, 1)].setdefault(key, []).extend(ws)
                continue
            if len(group) == 2:
                wall_blocked[s] = True
                if wall_blockers is not None:
                    wall_blockers[s].extend(group[True] + group[False])


def end_junctions_compiled(
    seg: FloatArray,
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    coords: FloatArray,
    active: NDArray[np.bool_],
    inward: FloatArray,
    along: RunEvents,
    listing: bool,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``end_junctions``' answer, compiled: the same rays, sides, stretches and names.

    Returns the segments it blocks (int64, sorted, unique) and, when ``listing``, the
    (segment, wall) rows naming the walls of each blocking junction (else empty (0, 2)).
    O(pairs log pairs).
    """
    run_start, run_lo, run_hi = _run_arrays(along.runs, len(seg))
    return _end_junctions(  # type: ignore[no-any-return]
        np.ascontiguousarray(seg, dtype=np.float64),
        si.astype(np.int64, copy=False),
        wi.astype(np.int64, copy=False),
        coords,
        active,
        np.ascontiguousarray(inward, dtype=np.float64),
        along.events[0],
        along.events[1],
        along.proj[0],
        along.proj[1],
        along.sides[0],
        along.sides[1],
        run_start,
        run_lo,
        run_hi,
        listing,
        ON_LINE_TOL_PX,
        QUERY_TOL_PX,
    )


@kernel.njit(cache=True, nogil=True)
def _angle(ux: float, uy: float, vx: float, vy: float) -> float:  # pragma: no cover
    """``_angles`` of one pair of directions."""
    ang = math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)
    return ang if ang >= 0 else ang + 2 * math.pi


@kernel.njit(cache=True, nogil=True)
def _end_junctions(
    seg: NDArray[np.float64],
    si: NDArray[np.int64],
    wi: NDArray[np.int64],
    coords: NDArray[np.float64],
    active: NDArray[np.bool_],
    inward: NDArray[np.float64],
    ev0: NDArray[np.bool_],
    ev1: NDArray[np.bool_],
    proj0: NDArray[np.float64],
    proj1: NDArray[np.float64],
    side0: NDArray[np.int8],
    side1: NDArray[np.int8],
    run_start: NDArray[np.int64],
    run_lo: NDArray[np.float64],
    run_hi: NDArray[np.float64],
    listing: bool,
    tol: float,
    query_tol: float,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover - compiled
    """See ``end_junctions_compiled``; ``end_junctions``' steps in the same arithmetic."""
    m, p = seg.shape[0], si.shape[0]
    # The rays at each line's ends: (segment, end, wall, aside, left), end 0 first, then
    # by pair, a wall's first ray before its second (as ``end_junctions`` orders them).
    cap = max(16, p)
    r_s = np.empty(cap, dtype=np.int64)
    r_end = np.empty(cap, dtype=np.int64)
    r_w = np.empty(cap, dtype=np.int64)
    r_skip = np.empty(cap, dtype=np.bool_)
    r_left = np.empty(cap, dtype=np.bool_)
    n = 0
    for end in range(2):
        for k in range(p):
            s, w = si[k], wi[k]
            vx, vy = inward[s, 2 * end], inward[s, 2 * end + 1]
            ax, ay, bx, by = coords[w, 0], coords[w, 1], coords[w, 2], coords[w, 3]
            ex, ey = bx - ax, by - ay
            wall_len = math.hypot(ex, ey)
            if not (active[k] and (vx != 0 or vy != 0) and wall_len > tol):
                continue
            safe = wall_len if wall_len > 0 else 1.0
            px, py = seg[s, 2 * end], seg[s, 2 * end + 1]
            at_a = math.hypot(ax - px, ay - py) <= query_tol
            at_b = (not at_a) and math.hypot(bx - px, by - py) <= query_tol
            off = abs(ex * (py - ay) - ey * (px - ax)) / safe
            at = ((px - ax) * ex + (py - ay) * ey) / safe
            inner = (not at_a) and (not at_b) and off <= tol and at > 0 and at < wall_len
            if not (at_a or at_b or inner):
                continue
            ox, oy = seg[s, 2 - 2 * end], seg[s, 3 - 2 * end]  # the line's other end
            lx, ly = ox - px, oy - py
            alpha = _angle(lx, ly, vx, vy)
            for second in range(2 if inner else 1):
                if at_a:
                    rx, ry = ex, ey
                elif at_b:
                    rx, ry = -ex, -ey
                elif second == 0:
                    rx, ry = ax - px, ay - py
                else:
                    rx, ry = bx - px, by - py
                ang = _angle(lx, ly, rx, ry)
                if n == cap:
                    cap *= 2
                    r_s = _grown_int(r_s, n, cap)
                    r_end = _grown_int(r_end, n, cap)
                    r_w = _grown_int(r_w, n, cap)
                    r_skip = _grown_bool(r_skip, n, cap)
                    r_left = _grown_bool(r_left, n, cap)
                r_s[n], r_end[n], r_w[n] = s, end, w
                t = 1e-9
                r_skip[n] = ang <= t or ang >= 2 * math.pi - t or abs(ang - alpha) <= t
                r_left[n] = (ang < alpha) == (end == 0)
                n += 1
    # Each (segment, end)'s group: which sides hold walls, and its rows.
    key = r_s[:n] * 2 + r_end[:n]
    order = np.argsort(key, kind="mergesort")
    first = np.full(2 * m + 1, -1, dtype=np.int64)  # first sorted row of each group
    last = np.full(2 * m + 1, -1, dtype=np.int64)
    for q in range(n):
        g = key[order[q]]
        if first[g] < 0:
            first[g] = q
        last[g] = q + 1
    # The pairs of each segment, by pair (``RunEvents.by_segment`` reads them in order).
    by_seg = np.argsort(si, kind="mergesort")
    seg_start = np.zeros(m + 1, dtype=np.int64)
    for k in range(p):
        seg_start[si[k] + 1] += 1
    for s in range(m):
        seg_start[s + 1] += seg_start[s]
    left = np.zeros(2 * m, dtype=np.bool_)
    right = np.zeros(2 * m, dtype=np.bool_)
    blocked = np.zeros(m, dtype=np.bool_)
    rows = np.empty((16, 2), dtype=np.int64)
    nr = 0
    merged_into = np.full(2 * m, -1, dtype=np.int64)  # end 0's group joined to end 1's
    for s in range(m):
        length = math.hypot(seg[s, 2] - seg[s, 0], seg[s, 3] - seg[s, 1])
        for end in range(2):
            g = 2 * s + end
            if first[g] < 0:
                continue
            for q in range(first[g], last[g]):
                e = order[q]
                if not r_skip[e]:
                    if r_left[e]:
                        left[g] = True
                    else:
                        right[g] = True
            # Wall ends along a stretch run from this end belong to the same junction.
            lo, hi, found = 0.0, 0.0, False
            for r in range(run_start[s], run_start[s + 1]):
                if (end == 0 and run_lo[r] <= tol) or (end == 1 and run_hi[r] >= length - tol):
                    lo, hi, found = run_lo[r], run_hi[r], True
            on_run = np.empty((0, 2), dtype=np.int64)
            if found:
                on_run = _on_stretch(s, lo, hi, seg_start, by_seg, ev0, ev1, proj0, proj1, tol)
                for q in range(on_run.shape[0]):
                    k = on_run[q, 0]
                    if (side0[k] if on_run[q, 1] == 0 else side1[k]) > 0:
                        left[g] = True
                    else:
                        right[g] = True
            reaches = found and lo <= tol and hi >= length - tol
            if end == 0 and reaches and first[2 * s + 1] >= 0:
                left[g + 1] |= left[g]  # one stretch from end to end: one junction
                right[g + 1] |= right[g]
                merged_into[g] = g + 1
                continue
            if not (left[g] and right[g]):
                continue
            blocked[s] = True
            if not listing:
                continue
            for gg in range(2 * s, g + 1):  # this group's walls, and end 0's if merged
                if gg != g and merged_into[gg] != g:
                    continue
                for q in range(first[gg], last[gg]):
                    e = order[q]
                    if not r_skip[e]:
                        rows, nr = _put(rows, nr, s, r_w[e])
                for q in range(on_run.shape[0]):
                    rows, nr = _put(rows, nr, s, wi[on_run[q, 0]])
    return np.flatnonzero(blocked).astype(np.int64), rows[:nr]


@kernel.njit(cache=True, nogil=True)
def _on_stretch(
    s: int,
    lo: float,
    hi: float,
    seg_start: NDArray[np.int64],
    by_seg: NDArray[np.int64],
    ev0: NDArray[np.bool_],
    ev1: NDArray[np.bool_],
    proj0: NDArray[np.float64],
    proj1: NDArray[np.float64],
    tol: float,
) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """Segment ``s``'s wall-end events on its stretch ``lo..hi`` px: rows ``(pair, which end)``.

    First ends first, then second ends, each by pair (``RunEvents.on_run_from``'s order).
    """
    out = np.empty((2 * (seg_start[s + 1] - seg_start[s]), 2), dtype=np.int64)
    n = 0
    for which in range(2):
        for j in range(seg_start[s], seg_start[s + 1]):
            k = by_seg[j]
            if not (ev0[k] if which == 0 else ev1[k]):
                continue
            pos = proj0[k] if which == 0 else proj1[k]
            if lo - tol <= pos and pos <= hi + tol:
                out[n, 0], out[n, 1] = k, which
                n += 1
    return out[:n]


@kernel.njit(cache=True, nogil=True)
def _grown_int(a: NDArray[np.int64], n: int, cap: int) -> NDArray[np.int64]:  # pragma: no cover
    out = np.empty(cap, dtype=np.int64)
    out[:n] = a[:n]
    return out


@kernel.njit(cache=True, nogil=True)
def _grown_bool(a: NDArray[np.bool_], n: int, cap: int) -> NDArray[np.bool_]:  # pragma: no cover
    out = np.empty(cap, dtype=np.bool_)
    out[:n] = a[:n]
    return out


def _angles(u: FloatArray, v: FloatArray) -> FloatArray:
    """Angles in [0, 2 pi) from directions ``u`` (p, 2) to directions ``v`` (p, 2), by row.

    Screen frame (y down), as the walls' coordinates.
    """
    ang = np.arctan2(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0], u[:, 0] * v[:, 0] + u[:, 1] * v[:, 1])
    return np.where(ang >= 0, ang, ang + 2 * np.pi)
