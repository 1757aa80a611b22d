"""Firm walls, and the segments that cross one outright: blocked with no exact trace (GEO-1).

A **firm** wall blocks a sense whatever the source and whatever the heights: two-way (GEO-3),
normal (no proximity or distance threshold, GEO-4) and full height (GEO-5). A segment that
crosses a firm wall at interior points of both is blocked whatever else it meets (nothing in
GEO-3..6 unblocks it), so the exact search (``service.geometry.search``, 5E-LOE-2) sets such
candidate lines aside before its exact trace, and its early refusal counts what they cost.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import WorkBudget
from service.engine.tolerances import QUERY_TOL_PX, TOUCH_TOL_PX
from service.engine.walls import FloatArray, WallIndex
from service.geometry.compiled import cell_of, njit
from service.geometry.trace import MAX_QUERY_PIECES, QUERY_PIECE_PX
from service.geometry.walk import piece_box, pieces


def firm_walls(
    index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None
) -> NDArray[np.bool_]:
    """Walls that block ``sense`` whatever the source and the heights: two-way, normal, full.

    Returns a mask of shape (n,) over ``index``'s walls, within ``wall_mask`` when given.
    """
    firm = (
        (index.restriction[sense] == 2)
        & (index.direction == 0)
        & np.isinf(index.bottom)
        & np.isinf(index.top)
    )
    return firm if wall_mask is None else firm & wall_mask


@njit(cache=True, nogil=True)
def _crossed(
    seg: NDArray[np.float64],
    gx0: float,
    gy0: float,
    cell: float,
    nx: int,
    ny: int,
    start: NDArray[np.int64],
    cwalls: NDArray[np.int64],
    boxes: NDArray[np.float64],
    coords: NDArray[np.float64],
    firm: NDArray[np.bool_],
    piece_px: float,
    max_pieces: int,
    qtol: float,
    band: float,
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:  # pragma: no cover - compiled
    """``surely_blocked``'s walk, per segment: blocked, and the pairs looked at.

    ``walk._search``'s pieces, cells and boxes, stopping a segment at its first firm wall
    crossed in both interiors.
    """
    m = seg.shape[0]
    out = np.zeros(m, dtype=np.bool_)
    stamp = np.full(boxes.shape[0], -1, dtype=np.int64)
    count = np.zeros(m, dtype=np.int64)
    for s in range(m):
        x0, y0, x1, y1 = seg[s, 0], seg[s, 1], seg[s, 2], seg[s, 3]
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy)
        if length != length or length <= 2 * band:
            continue
        k = pieces(length, piece_px, max_pieces)
        for q in range(k):
            if out[s]:
                break
            lx, ly, hx, hy = piece_box(seg[s], q, k, qtol)
            ix0, ix1 = cell_of(lx, gx0, cell, nx), cell_of(hx, gx0, cell, nx)
            iy0, iy1 = cell_of(ly, gy0, cell, ny), cell_of(hy, gy0, cell, ny)
            for iy in range(iy0, iy1 + 1):
                if out[s]:
                    break
                for ix in range(ix0, ix1 + 1):
                    if out[s]:
                        break
                    c = iy * nx + ix
                    for j in range(start[c], start[c + 1]):
                        w = cwalls[j]
                        if stamp[w] == s:
                            continue
                        if boxes[w, 0] > hx or boxes[w, 2] < lx:
                            continue
                        if boxes[w, 1] > hy or boxes[w, 3] < ly:
                            continue
                        stamp[w] = s
                        count[s] += 1
                        if not firm[w]:
                            continue
                        ax, ay, bx, by = coords[w, 0], coords[w, 1], coords[w, 2], coords[w, 3]
                        wx, wy = bx - ax, by - ay
                        len_e = math.hypot(wx, wy)
                        if len_e <= 2 * band:
                            continue
                        s_a = (dx * (ay - y0) - dy * (ax - x0)) / length
                        s_b = (dx * (by - y0) - dy * (bx - x0)) / length
                        if not ((s_a < -band and s_b > band) or (s_a > band and s_b < -band)):
                            continue
                        s_p = (wx * (y0 - ay) - wy * (x0 - ax)) / len_e
                        s_q = (wx * (y1 - ay) - wy * (x1 - ax)) / len_e
                        if (s_p < -band and s_q > band) or (s_p > band and s_q < -band):
                            out[s] = True
                            break
    return out, count


def surely_blocked(
    index: WallIndex, seg: FloatArray, firm: NDArray[np.bool_], budget: WorkBudget | None
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """Segments (m, 4) px that cross a ``firm`` wall, both at interior points.

    Such a crossing blocks whatever else the segment meets (GEO-1: nothing in GEO-3..6
    unblocks it), so these segments need no exact trace. The test is ``trace``'s own sign
    test with the dead band ``TOUCH_TOL_PX``, ten times wider than the exact tests':
    a segment counted here is blocked there too. The walk is ``walk.search``'s (same
    pieces, cells and boxes) but stops each segment at its first such wall.

    Parameters
    ----------
    index : WallIndex
    seg : ndarray of shape (m, 4)
        ``x0, y0, x1, y1`` px.
    firm : ndarray of shape (n,), bool
        ``firm_walls`` of the sense asked.
    budget : WorkBudget, optional
        Spent the (segment, wall) pairs looked at of the blocked segments (the others are
        traced, and spent, in full).

    Returns
    -------
    blocked : ndarray of shape (m,), bool
    looked : ndarray of shape (m,), int64
        The (segment, wall) pairs looked at per segment.
    """
    out = np.zeros(len(seg), dtype=bool)
    count = np.zeros(len(seg), dtype=np.int64)
    if not index.size or not len(seg) or not firm.any():
        return out, count
    grid = index.wall_grid()
    out, count = _crossed(
        np.ascontiguousarray(seg, dtype=np.float64),
        grid.x0,
        grid.y0,
        grid.cell,
        grid.nx,
        grid.ny,
        grid.start,
        grid.walls,
        grid.boxes,
        index.coords,
        np.ascontiguousarray(firm, dtype=np.bool_),
        float(QUERY_PIECE_PX),
        int(MAX_QUERY_PIECES),
        QUERY_TOL_PX,
        TOUCH_TOL_PX,
    )
    if budget is not None:
        budget.spend(int(count[out].sum()))
    return out, count
