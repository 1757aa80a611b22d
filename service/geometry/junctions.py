"""Where walls meet on a traced segment: the GEO-6 junction rule.

A segment passing through a point where walls meet is blocked when the walls there lie on
both sides of it, so splitting a wall or reordering walls never changes an answer. The same
rule at an exact corner line's own ends (``end_junctions``: the token's space is the far
side), and the obstacles that GEO-6's corner sentence judges as one (``wall_components``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.tolerances import ON_LINE_TOL_PX, QUERY_TOL_PX
from service.engine.walls import FloatArray, WallIndex


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
    tolerance. Computed once per index (``WallIndex.memo``); O(n log n) plus the ends
    that lie on other walls.
    """
    found = index.memo.get("components")
    if found is not None:
        return found  # type: ignore[no-any-return]
    n = index.size
    ends = np.round(index.coords.reshape(-1, 2) / QUERY_TOL_PX)
    _, node = np.unique(ends, axis=0, return_inverse=True)
    node = node.ravel().reshape(n, 2)
    parent = list(range(int(node.max()) + 1 if n else 0))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(u: int, v: int) -> None:
        ru, rv = root(u), root(v)
        if ru != rv:
            parent[max(ru, rv)] = min(ru, rv)

    for u, v in node.tolist():
        join(u, v)
    if n:  # T-junctions: an end lying on another wall's interior joins that wall
        lines = shapely.linestrings(index.coords.reshape(n, 2, 2))
        points = shapely.points(index.coords.reshape(-1, 2))
        ends, walls = shapely.STRtree(lines).query(
            points, predicate="dwithin", distance=QUERY_TOL_PX
        )
        for e, w in zip(ends.tolist(), walls.tolist(), strict=True):
            if e // 2 != w:
                join(int(node[e // 2, e % 2]), int(node[w, 0]))
    labels = np.array([root(int(u)) for u in node[:, 0]], dtype=np.int64)
    index.memo["components"] = labels
    return labels


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


def _angles(u: FloatArray, v: FloatArray) -> FloatArray:
    """Angles in [0, 2 pi) from directions ``u`` (p, 2) to directions ``v`` (p, 2), by row.

    Screen frame (y down), as the walls' coordinates.
    """
    ang = np.arctan2(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0], u[:, 0] * v[:, 0] + u[:, 1] * v[:, 1])
    return np.where(ang >= 0, ang, ang + 2 * np.pi)
