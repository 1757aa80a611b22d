"""The shortest path around walls that block movement, from a point to a space (GEO-13).

An area that spreads (SF-COV-3 spreads; 5E-LOE-3 "fireball can go around corners") reaches
a space when the shortest path around the walls restricting movement, from its point of
origin to the nearest point of the space, is within its radius. The shortest path in the
plane around segments bends only at their ends, so it is found on the visibility graph of
the origin, the walls' ends near enough, and the space: every edge a segment that ``trace``
finds clear (GEO-1..6: a path may pass a wall's free tip, never through a junction that
separates its sides), Dijkstra's search over it (``heapq``).

Units: px. Cost: one vectorised trace of at most ``MAX_PATH_NODES`` squared / 2 segments.
"""

from __future__ import annotations

import heapq

import numpy as np

from service.engine.budget import WorkBudget
from service.engine.walls import FloatArray, WallIndex
from service.geometry.trace import TraceSpec, trace

#: At most this many wall ends take part in one path (the nearest the origin): the graph's
#: segments grow with the square of it.
MAX_PATH_NODES = 160


#: px from a wall end at which a path bends round it: off the walls (well above the tracer's
#: tolerances), so a path never passes through a point where walls meet (GEO-6).
BEND_PX = 1e-2


def _corner_points(index: WallIndex) -> FloatArray:
    """The points a shortest path may bend at, (k, 2) px.

    By each end of a movement-blocking wall, one point in each gap between the walls
    leaving it, ``BEND_PX`` out along the gap's bisector (a free tip has one gap, behind it;
    an L corner two; a T three).
    """
    if not index.size:
        return np.empty((0, 2))
    blocks = index.restriction["move"] != 0
    seg = index.coords[blocks].reshape(-1, 2, 2)
    ends = seg.reshape(-1, 2)
    away = (seg[:, ::-1] - seg).reshape(-1, 2)  # from each end along its wall
    angle = np.arctan2(away[:, 1], away[:, 0])
    keys, owner = np.unique(ends, axis=0, return_inverse=True)
    owner = owner.reshape(-1)
    order = np.lexsort((angle, owner))
    owner, angle = owner[order], angle[order]
    first = np.r_[True, owner[1:] != owner[:-1]]
    nxt = np.roll(np.arange(len(owner)), -1)
    last = np.r_[owner[1:] != owner[:-1], True]
    starts = np.flatnonzero(first)
    nxt[last] = starts[np.cumsum(first) - 1][last]  # the last ray wraps to its point's first
    gap = np.mod(angle[nxt] - angle, 2 * np.pi)
    gap[gap == 0] = 2 * np.pi  # a lone ray (a free tip): the whole turn
    mid = angle + gap / 2
    return keys[owner] + BEND_PX * np.column_stack([np.cos(mid), np.sin(mid)])


def _nearest_in_box(points: FloatArray, box: tuple[float, float, float, float]) -> FloatArray:
    """The point of ``box`` nearest each of ``points`` (k, 2) px."""
    return np.column_stack(
        [np.clip(points[:, 0], box[0], box[2]), np.clip(points[:, 1], box[1], box[3])]
    )


def shortest_path(
    index: WallIndex,
    origin: tuple[float, float],
    box: tuple[float, float, float, float],
    limit: float,
    *,
    budget: WorkBudget | None = None,
) -> float | None:
    """The shortest path around movement-blocking walls from ``origin`` to ``box``.

    Its length in px, to the nearest point of ``box`` reached, or None when none is within
    ``limit`` px. Walls have no height here (every wall blocks the whole path).

    Parameters
    ----------
    index : WallIndex
        The scene's walls; those restricting ``move`` are the obstacles (open doors none).
    origin : (float, float)
        px, the area's point of origin.
    box : (x0, y0, x1, y1)
        px, the target's space.
    limit : float
        px, the spread's radius: wall ends farther than it from the origin are left out.
    budget : WorkBudget, optional
        Every line-wall test counts in it (``trace``).
    """
    start = np.array([origin], dtype=np.float64)
    ends = _corner_points(index)
    if len(ends):
        far = np.hypot(ends[:, 0] - origin[0], ends[:, 1] - origin[1])
        ends = ends[far <= limit]
        ends = ends[np.argsort(far[far <= limit], kind="stable")[:MAX_PATH_NODES]]
    nodes = np.concatenate([start, ends])  # node 0: the origin
    goals = _nearest_in_box(nodes, box)  # each node's nearest point of the space
    n = len(nodes)
    i, j = np.triu_indices(n, k=1)
    segs = np.concatenate([np.column_stack([nodes[i], nodes[j]]), np.column_stack([nodes, goals])])
    clear = ~trace(index, segs, TraceSpec("move", with_blockers=False), budget=budget).wall_blocked
    between, to_goal = clear[: len(i)], clear[len(i) :]
    edges: list[list[tuple[float, int]]] = [[] for _ in range(n + 1)]  # node n: the space
    length = np.hypot(*(nodes[j] - nodes[i]).T)
    for a, b, d in zip(
        i[between].tolist(), j[between].tolist(), length[between].tolist(), strict=True
    ):
        edges[a].append((d, b))
        edges[b].append((d, a))
    last = np.hypot(*(goals - nodes).T)
    for a in np.flatnonzero(to_goal).tolist():
        edges[a].append((float(last[a]), n))
    return _dijkstra(edges, 0, n, limit)


def _dijkstra(
    edges: list[list[tuple[float, int]]], src: int, dst: int, limit: float
) -> float | None:
    """The shortest distance from ``src`` to ``dst`` over ``edges``, None past ``limit``."""
    best = {src: 0.0}
    heap = [(0.0, src)]
    while heap:
        d, a = heapq.heappop(heap)
        if a == dst:
            return d if d <= limit else None
        if d > best.get(a, np.inf) or d > limit:
            continue
        for step, b in edges[a]:
            nd = d + step
            if nd < best.get(b, np.inf):
                best[b] = nd
                heapq.heappush(heap, (nd, b))
    return None
