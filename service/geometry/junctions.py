"""Where walls meet on a traced segment: the GEO-6 junction rule, compiled.

A segment passing through a point where walls meet is blocked when the walls there lie on
both sides of it, so splitting a wall or reordering walls never changes an answer
(``junctions``). The same rule at an exact corner line's own ends, where the token's space
is the far side (``end_junctions``). The obstacles GEO-6's corner sentence judges as one are
``geometry.obstacles``. The numpy oracle of both rules is ``tests/reference/junctions.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from service.engine.tolerances import ON_LINE_TOL_PX, QUERY_TOL_PX
from service.engine.walls import FloatArray, WallIndex
from service.geometry.compiled import grown_bool, grown_int, njit


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


def junctions(
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
    """Resolve segments passing exactly through wall end points (GEO-6).

    At each such point, the walls meeting there block the segment when some lie strictly on
    its left and some strictly on its right. Where the segment runs along walls for a
    stretch, the end points on that stretch count as one junction: a wall chain that comes
    from the left, runs along the segment and leaves to the right still separates it.
    Limited walls separating it count as one limited crossing (GEO-4).

    ``m`` segments; (p,) pairs ``si, wi`` with their events (a wall's first / second end on
    the segment's interior), ``proj`` (px along it) and ``sides`` (``s_a, s_b``: of the
    wall's ends); ``runs``: ``collinear_runs``. Returns, as int64 arrays:

    - ``blocked`` (q, 2): (segment, wall) rows of the junctions that block, their named
      walls when ``listing`` (a straight wall split there if there is one, so splitting a
      wall never changes what an answer names), else one row per junction with wall -1;
    - ``limited_groups`` (r,): the segment of each junction that counts as one limited
      crossing (GEO-4);
    - ``limited_hits`` (t, 2): (segment, wall) rows naming those junctions' walls
      (``listing``).

    O(events log events).
    """
    return _resolve_junctions(  # type: ignore[no-any-return]
        si.astype(np.int64, copy=False),
        wi.astype(np.int64, copy=False),
        _pair_of(events, np.bool_),
        _pair_of(proj, np.float64),
        _pair_of(sides, np.int8),
        limited,
        junction_nodes(index),
        _run_arrays(runs, m),
        index.coords,
        listing,
        ON_LINE_TOL_PX,
    )


def _pair_of(arrays: tuple[NDArray, NDArray], dtype: type) -> tuple[NDArray, NDArray]:  # type: ignore[type-arg]
    """Two arrays of one dtype, contiguous: a tuple the compiled rules index by a variable."""
    return np.ascontiguousarray(arrays[0], dtype=dtype), np.ascontiguousarray(
        arrays[1], dtype=dtype
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


@njit(cache=True, nogil=True)
def _junction_events(
    si: NDArray[np.int64],
    wi: NDArray[np.int64],
    events: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    proj: tuple[NDArray[np.float64], NDArray[np.float64]],
    sides: tuple[NDArray[np.int8], NDArray[np.int8]],
    nodes: NDArray[np.int64],
    runs: tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]],
    coords: NDArray[np.float64],
    tol: float,
) -> tuple[
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.float64],
]:  # pragma: no cover - compiled
    """Every wall end on a segment's interior: its junction's key, pair, side and ray.

    First ends, then second ends, each by pair. A junction is the point where the end lies
    (``nodes``), or the whole stretch along walls that holds it (``runs``: ``run_start,
    run_lo, run_hi``). The side is the wall's other end's (+1 left, -1 right) and the ray
    points from the end to the wall's other end.
    """
    run_start, run_lo, run_hi = runs
    p = si.shape[0]
    count = 0
    for k in range(p):
        count += int(events[0][k]) + int(events[1][k])
    key = np.empty(count, dtype=np.int64)
    pair = np.empty(count, dtype=np.int64)
    side = np.empty(count, dtype=np.int64)
    dirx = np.empty(count, dtype=np.float64)
    diry = np.empty(count, dtype=np.float64)
    span = 2 * nodes.shape[0] + run_lo.shape[0] + 1
    j = 0
    for which in range(2):
        for k in range(p):
            if not events[which][k]:
                continue
            s, w = si[k], wi[k]
            along = proj[which][k]
            group = nodes[w, which]
            for r in range(run_start[s], run_start[s + 1]):
                if run_lo[r] - tol <= along and along <= run_hi[r] + tol:
                    group = 2 * nodes.shape[0] + r  # a stretch along walls: one junction
                    break
            key[j] = s * span + group
            pair[j] = k
            side[j] = sides[1][k] if which == 0 else sides[0][k]
            sgn = 1.0 if which == 0 else -1.0  # the wall's other end, from the event point
            dirx[j] = sgn * (coords[w, 2] - coords[w, 0])
            diry[j] = sgn * (coords[w, 3] - coords[w, 1])
            j += 1
    return key, pair, side, dirx, diry


@njit(cache=True, nogil=True)
def _group_sides(
    pairs: NDArray[np.int64], side: NDArray[np.int64], limited: NDArray[np.bool_]
) -> tuple[bool, bool, bool, bool]:  # pragma: no cover - compiled
    """Walls on the left and right of one junction: normal ones, and any (limited too).

    ``pairs`` and ``side``: the junction's events' pairs and sides, each (g,).
    """
    left_n = right_n = left_all = right_all = False
    for q in range(pairs.shape[0]):
        lim = limited[pairs[q]]
        if side[q] > 0:
            left_all = True
            left_n = left_n or not lim
        elif side[q] < 0:
            right_all = True
            right_n = right_n or not lim
    return left_n, right_n, left_all, right_all


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _straight(ux: float, uy: float, vx: float, vy: float, tol: float) -> bool:  # pragma: no cover
    """Whether two rays from one point run in opposite directions (a wall split there)."""
    cross = ux * vy - uy * vx
    size = tol * math.hypot(ux, uy) * math.hypot(vx, vy)
    return abs(cross) <= size and ux * vx + uy * vy < 0


@njit(cache=True, nogil=True)
def _separating(
    side: NDArray[np.int64], rays: NDArray[np.float64], skip: NDArray[np.bool_], tol: float
) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """The events to name at a junction: a straight wall split there if there is one.

    So that splitting a wall never changes what an answer names: where walls pass straight
    through the point (two pieces in opposite directions on opposite sides), those pieces,
    as the unsplit walls would be named; otherwise every event. ``side`` (g,), ``rays``
    (2, g) and ``skip`` (g,: on neither side) are the junction's events'; returns indices
    into them, each left piece followed by its right piece.
    """
    g = side.shape[0]
    out = np.empty(2 * g * g + g, dtype=np.int64)
    n = 0
    for e1 in range(g):
        if side[e1] <= 0 or skip[e1]:
            continue
        for e2 in range(g):
            if side[e2] >= 0 or skip[e2]:
                continue
            if _straight(rays[0, e1], rays[1, e1], rays[0, e2], rays[1, e2], tol):
                out[n], out[n + 1] = e1, e2
                n += 2
    if n:
        return out[:n]
    for e in range(g):
        if not skip[e]:
            out[n] = e
            n += 1
    return out[:n]


@njit(cache=True, nogil=True)
def _resolve_junctions(
    si: NDArray[np.int64],
    wi: NDArray[np.int64],
    events: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    proj: tuple[NDArray[np.float64], NDArray[np.float64]],
    sides: tuple[NDArray[np.int8], NDArray[np.int8]],
    limited: NDArray[np.bool_],
    nodes: NDArray[np.int64],
    runs: tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]],
    coords: NDArray[np.float64],
    listing: bool,
    tol: float,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover
    """See ``junctions``: each junction's sides, then the walls it names."""
    key, pair, side, dirx, diry = _junction_events(
        si, wi, events, proj, sides, nodes, runs, coords, tol
    )
    count = key.shape[0]
    order = np.argsort(key, kind="mergesort")
    out_b = np.empty((max(count, 1), 2), dtype=np.int64)
    out_l = np.empty((max(count, 1), 2), dtype=np.int64)
    groups_l = np.empty(count, dtype=np.int64)
    nb = nl = ng = 0
    g = 0
    while g < count:
        h = g
        while h < count and key[order[h]] == key[order[g]]:
            h += 1
        here = order[g:h]
        s = si[pair[here[0]]]
        pairs_h, side_h = pair[here], side[here]
        left_n, right_n, left_all, right_all = _group_sides(pairs_h, side_h, limited)
        normal = left_n and right_n
        if not normal and left_all and right_all:  # one limited crossing (GEO-4)
            groups_l[ng] = s
            ng += 1
        if normal and not listing:
            out_b, nb = _put(out_b, nb, s, -1)
        elif listing and (normal or (left_all and right_all)):
            # Where normal walls block, the limited ones there are not named.
            skip = limited[pairs_h] if normal else np.zeros(h - g, dtype=np.bool_)
            rays_h = np.empty((2, h - g), dtype=np.float64)
            rays_h[0], rays_h[1] = dirx[here], diry[here]
            for e in _separating(side_h, rays_h, skip, tol):
                if normal:
                    out_b, nb = _put(out_b, nb, s, wi[pairs_h[e]])
                else:
                    out_l, nl = _put(out_l, nl, s, wi[pairs_h[e]])
        g = h
    return out_b[:nb], groups_l[:ng], out_l[:nl]


@dataclass
class RunEvents:
    """Wall ends lying on traced segments, for ``end_junctions`` (``geometry.wall_tests.decide``).

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
    coords: FloatArray,
    active: NDArray[np.bool_],
    inward: FloatArray,
    along: RunEvents,
    listing: bool,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
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
    the other, is blocked.

    Returns the segments it blocks (int64, sorted, unique) and, when ``listing``, the
    (segment, wall) rows naming the walls of each blocking junction (else empty (0, 2)).
    O(pairs log pairs).
    """
    return _end_junctions(  # type: ignore[no-any-return]
        np.ascontiguousarray(seg, dtype=np.float64),
        si.astype(np.int64, copy=False),
        wi.astype(np.int64, copy=False),
        coords,
        active,
        np.ascontiguousarray(inward, dtype=np.float64),
        _pair_of(along.events, np.bool_),
        _pair_of(along.proj, np.float64),
        _pair_of(along.sides, np.int8),
        _run_arrays(along.runs, len(seg)),
        listing,
        ON_LINE_TOL_PX,
        QUERY_TOL_PX,
    )


@njit(cache=True, nogil=True)
def _angle(ux: float, uy: float, vx: float, vy: float) -> float:  # pragma: no cover
    """The angle in [0, 2 pi) from direction ``u`` to direction ``v`` (screen frame, y down)."""
    ang = math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)
    return ang if ang >= 0 else ang + 2 * math.pi


@njit(cache=True, nogil=True)
def _corner_touch(
    px: float, py: float, c: NDArray[np.float64], tol: float, query_tol: float
) -> tuple[bool, bool, bool]:  # pragma: no cover - compiled
    """Where the point ``(px, py)`` lies on wall ``c``: at its first end, second end, inside."""
    ax, ay, bx, by = c[0], c[1], c[2], c[3]
    ex, ey = bx - ax, by - ay
    wall_len = math.hypot(ex, ey)
    safe = wall_len if wall_len > 0 else 1.0
    at_a = math.hypot(ax - px, ay - py) <= query_tol
    at_b = (not at_a) and math.hypot(bx - px, by - py) <= query_tol
    off = abs(ex * (py - ay) - ey * (px - ax)) / safe
    at = ((px - ax) * ex + (py - ay) * ey) / safe
    inner = (not at_a) and (not at_b) and off <= tol and at > 0 and at < wall_len
    return at_a, at_b, inner


@njit(cache=True, nogil=True)
def _end_rays(
    seg: NDArray[np.float64],
    si: NDArray[np.int64],
    wi: NDArray[np.int64],
    coords: NDArray[np.float64],
    active: NDArray[np.bool_],
    inward: NDArray[np.float64],
    tol: float,
    query_tol: float,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_], NDArray[np.bool_]]:
    """The rays of the walls at each line's ends: ``(key, wall, aside, left)`` per ray.

    ``key`` is ``2 * segment + end``; end 0 first, then by pair, a wall's first ray before
    its second (a wall whose interior holds the corner is two rays). ``aside``: along the
    line or along the way in (on neither side); ``left``: on the path's left.
    """  # pragma: no cover - compiled
    p = si.shape[0]
    cap = max(16, p)
    r_key = np.empty(cap, dtype=np.int64)
    r_w = np.empty(cap, dtype=np.int64)
    r_skip = np.empty(cap, dtype=np.bool_)
    r_left = np.empty(cap, dtype=np.bool_)
    n = 0
    for end in range(2):
        for k in range(p):
            s, w = si[k], wi[k]
            vx, vy = inward[s, 2 * end], inward[s, 2 * end + 1]
            c = coords[w]
            ex, ey = c[2] - c[0], c[3] - c[1]
            if not (active[k] and (vx != 0 or vy != 0) and math.hypot(ex, ey) > tol):
                continue
            px, py = seg[s, 2 * end], seg[s, 2 * end + 1]
            at_a, at_b, inner = _corner_touch(px, py, c, tol, query_tol)
            if not (at_a or at_b or inner):
                continue
            lx, ly = seg[s, 2 - 2 * end] - px, seg[s, 3 - 2 * end] - py  # to the other end
            alpha = _angle(lx, ly, vx, vy)
            for second in range(2 if inner else 1):
                if at_a or at_b:
                    rx, ry = (ex, ey) if at_a else (-ex, -ey)
                else:
                    rx, ry = c[2 * second] - px, c[2 * second + 1] - py
                ang = _angle(lx, ly, rx, ry)
                if n == cap:
                    cap *= 2
                    r_key, r_w = grown_int(r_key, n, cap), grown_int(r_w, n, cap)
                    r_skip, r_left = grown_bool(r_skip, n, cap), grown_bool(r_left, n, cap)
                r_key[n], r_w[n] = 2 * s + end, w
                t = 1e-9
                r_skip[n] = ang <= t or ang >= 2 * math.pi - t or abs(ang - alpha) <= t
                r_left[n] = (ang < alpha) == (end == 0)
                n += 1
    return r_key[:n], r_w[:n], r_skip[:n], r_left[:n]


@njit(cache=True, nogil=True)
def _group_bounds(
    key: NDArray[np.int64], order: NDArray[np.int64], groups: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover - compiled
    """First and end sorted row of each key 0..groups-1 (-1: none), keys sorted by ``order``."""
    first = np.full(groups, -1, dtype=np.int64)
    last = np.full(groups, -1, dtype=np.int64)
    for q in range(key.shape[0]):
        g = key[order[q]]
        if first[g] < 0:
            first[g] = q
        last[g] = q + 1
    return first, last


@njit(cache=True, nogil=True)
def _stretch_from(
    s: int,
    end: int,
    length: float,
    runs: tuple[NDArray[np.int64], FloatArray, FloatArray],
    tol: float,
) -> tuple[float, float, bool]:  # pragma: no cover - compiled
    """The stretch along walls that starts at end ``end`` of segment ``s`` (lo, hi px, found)."""
    run_start, run_lo, run_hi = runs
    lo, hi, found = 0.0, 0.0, False
    for r in range(run_start[s], run_start[s + 1]):
        if (end == 0 and run_lo[r] <= tol) or (end == 1 and run_hi[r] >= length - tol):
            lo, hi, found = run_lo[r], run_hi[r], True
    return lo, hi, found


@njit(cache=True, nogil=True)
def _end_junctions(
    seg: NDArray[np.float64],
    si: NDArray[np.int64],
    wi: NDArray[np.int64],
    coords: NDArray[np.float64],
    active: NDArray[np.bool_],
    inward: NDArray[np.float64],
    events: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    proj: tuple[NDArray[np.float64], NDArray[np.float64]],
    sides: tuple[NDArray[np.int8], NDArray[np.int8]],
    runs: tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]],
    listing: bool,
    tol: float,
    query_tol: float,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover - compiled
    """See ``end_junctions``: each (segment, end)'s sides, stretches and named walls."""
    m = seg.shape[0]
    r_key, r_w, r_skip, r_left = _end_rays(seg, si, wi, coords, active, inward, tol, query_tol)
    order = np.argsort(r_key, kind="mergesort")
    first, last = _group_bounds(r_key, order, 2 * m + 1)
    # The pairs of each segment, by pair (``RunEvents.by_segment`` reads them in order).
    by_seg = np.argsort(si, kind="mergesort")
    seg_start = np.zeros(m + 1, dtype=np.int64)
    for k in range(si.shape[0]):
        seg_start[si[k] + 1] += 1
    seg_start = np.cumsum(seg_start)
    left = np.zeros(2 * m, dtype=np.bool_)
    right = np.zeros(2 * m, dtype=np.bool_)
    blocked = np.zeros(m, dtype=np.bool_)
    rows = np.empty((16, 2), dtype=np.int64)
    nr = 0
    merged_into = np.full(2 * m, -1, dtype=np.int64)  # end 0's group joined to end 1's
    for g in range(2 * m):
        s, end = g // 2, g % 2
        if first[g] < 0:
            continue
        for e in order[first[g] : last[g]]:
            if not r_skip[e]:
                left[g] |= r_left[e]
                right[g] |= not r_left[e]
        # Wall ends along a stretch run from this end belong to the same junction.
        length = math.hypot(seg[s, 2] - seg[s, 0], seg[s, 3] - seg[s, 1])
        lo, hi, found = _stretch_from(s, end, length, runs, tol)
        on_run = np.empty((0, 2), dtype=np.int64)
        if found:
            on_run = _on_stretch(s, lo, hi, seg_start, by_seg, events, proj, tol)
            for q in range(on_run.shape[0]):
                k, which = on_run[q, 0], on_run[q, 1]
                if sides[which][k] > 0:
                    left[g] = True
                else:
                    right[g] = True
        if end == 0 and found and lo <= tol and hi >= length - tol and first[g + 1] >= 0:
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
            for e in order[first[gg] : last[gg]]:
                if not r_skip[e]:
                    rows, nr = _put(rows, nr, s, r_w[e])
            for q in range(on_run.shape[0]):
                rows, nr = _put(rows, nr, s, wi[on_run[q, 0]])
    return np.flatnonzero(blocked).astype(np.int64), rows[:nr]


@njit(cache=True, nogil=True)
def _on_stretch(
    s: int,
    lo: float,
    hi: float,
    seg_start: NDArray[np.int64],
    by_seg: NDArray[np.int64],
    events: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    proj: tuple[NDArray[np.float64], NDArray[np.float64]],
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
            if not events[which][k]:
                continue
            pos = proj[which][k]
            if lo - tol <= pos and pos <= hi + tol:
                out[n, 0], out[n, 1] = k, which
                n += 1
    return out[:n]
