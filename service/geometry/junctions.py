"""Where walls meet on a traced segment: the GEO-6 junction rule.

A segment passing through a point where walls meet is blocked when the walls there lie on
both sides of it, so splitting a wall or reordering walls never changes an answer.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from service.engine.tolerances import ON_LINE_TOL_PX
from service.engine.walls import FloatArray


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
