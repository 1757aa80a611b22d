"""The numpy floor (issue 20): every corner line against every wall, in chunks, no index.

The brute force a vectorising programmer writes first: for each chunk of lines, the boxes of
the lines against the boxes of all the walls (4 comparisons per line-wall couple), then the
exact test of closed segments on the couples whose boxes meet (each segment's ends on both
sides of, or on, the other's line). The same predicate as the other peers: a free wall tip,
a junction or a wall run along counts as a crossing. Cost: lines × walls comparisons, so it
is measured only where that product stays under the bench's cap.

``contacts`` says how one line meets the walls it touches, for the agreement report.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.peers.corners import blocking_walls, corner_segments, matrix_of

#: Line-wall couples compared per chunk (memory: a few bytes each, several arrays).
CHUNK_CELLS = 500_000


def _orient(ax: Any, ay: Any, bx: Any, by: Any, px: Any, py: Any) -> Any:
    """Twice the signed area of (a, b, p): > 0 with p left of a→b (y up), 0 on its line."""
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


def _straddles(o1: Any, o2: Any) -> Any:
    """Not both strictly on one side."""
    return ~(((o1 > 0) & (o2 > 0)) | ((o1 < 0) & (o2 < 0)))


def crosses(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether segments ``p[i]`` and ``q[i]`` (each (m, 4) px) share a point (closed segments).

    Only the sides: the caller has checked that their boxes meet (which the collinear case
    needs).
    """
    o1 = _orient(p[:, 0], p[:, 1], p[:, 2], p[:, 3], q[:, 0], q[:, 1])
    o2 = _orient(p[:, 0], p[:, 1], p[:, 2], p[:, 3], q[:, 2], q[:, 3])
    o3 = _orient(q[:, 0], q[:, 1], q[:, 2], q[:, 3], p[:, 0], p[:, 1])
    o4 = _orient(q[:, 0], q[:, 1], q[:, 2], q[:, 3], p[:, 2], p[:, 3])
    result: NDArray[np.bool_] = _straddles(o1, o2) & _straddles(o3, o4)
    return result


def _boxes(seg: NDArray[np.float64]) -> tuple[Any, Any, Any, Any]:
    return (
        np.minimum(seg[:, 0], seg[:, 2]),
        np.minimum(seg[:, 1], seg[:, 3]),
        np.maximum(seg[:, 0], seg[:, 2]),
        np.maximum(seg[:, 1], seg[:, 3]),
    )


def blocked_lines(
    segments: NDArray[np.float64], walls: NDArray[np.float64], cells: int = CHUNK_CELLS
) -> NDArray[np.bool_]:
    """Whether each segment (s, 4) px meets any wall (w, 4) px, shape (s,) bool."""
    blocked = np.zeros(len(segments), dtype=bool)
    if len(walls) == 0 or len(segments) == 0:
        return blocked
    wx0, wy0, wx1, wy1 = _boxes(walls)
    sx0, sy0, sx1, sy1 = _boxes(segments)
    rows = max(1, cells // len(walls))
    for start in range(0, len(segments), rows):
        part = slice(start, start + rows)
        near = sx0[part, None] <= wx1
        near &= wx0 <= sx1[part, None]
        near &= sy0[part, None] <= wy1
        near &= wy0 <= sy1[part, None]
        i, j = np.nonzero(near)
        hit = crosses(segments[start + i], walls[j])
        blocked[start + i[hit]] = True
    return blocked


def cover_matrix(scene: dict[str, Any], cells: int = CHUNK_CELLS) -> dict[str, Any]:
    """``{"tokens", "cover"}``: the floor's dnd5e cover degree of every ordered pair."""
    ids, segments = corner_segments(scene)
    return matrix_of(ids, blocked_lines(segments, blocking_walls(scene), cells))


def contacts(segment: NDArray[np.float64], walls: NDArray[np.float64]) -> list[tuple[int, str]]:
    """How one segment (4,) px meets the walls (w, 4) px it shares a point with.

    ``(wall index, kind)`` per wall met, kind:

    - ``"crossing"``: through the wall's interior, each strictly across the other's line;
    - ``"edge-on"``: along the wall (collinear, overlapping);
    - ``"wall tip"``: one of the wall's ends lies on the segment (GEO-6 free tip or junction);
    - ``"line end"``: one of the segment's ends lies on the wall.
    """
    seg = np.asarray(segment, dtype=np.float64).reshape(1, 4)
    wx0, wy0, wx1, wy1 = _boxes(walls)
    sx0, sy0, sx1, sy1 = (float(v[0]) for v in _boxes(seg))
    near = np.nonzero((sx0 <= wx1) & (wx0 <= sx1) & (sy0 <= wy1) & (wy0 <= sy1))[0]
    out = []
    for j in near.tolist():
        w = walls[j].tolist()
        p = seg[0].tolist()
        o1 = _orient(p[0], p[1], p[2], p[3], w[0], w[1])
        o2 = _orient(p[0], p[1], p[2], p[3], w[2], w[3])
        o3 = _orient(w[0], w[1], w[2], w[3], p[0], p[1])
        o4 = _orient(w[0], w[1], w[2], w[3], p[2], p[3])
        if (o1 > 0 and o2 > 0) or (o1 < 0 and o2 < 0) or (o3 > 0 and o4 > 0) or (o3 < 0 and o4 < 0):
            continue
        if o1 == 0 and o2 == 0:
            kind = "edge-on"
        elif o1 == 0 or o2 == 0:
            kind = "wall tip"
        elif o3 == 0 or o4 == 0:
            kind = "line end"
        else:
            kind = "crossing"
        out.append((j, kind))
    return out
