"""Firm walls, and the segments that cross one outright: blocked with no exact trace (GEO-1).

A **firm** wall blocks a sense whatever the source and whatever the heights: two-way (GEO-3),
normal (no proximity or distance threshold, GEO-4) and full height (GEO-5). A segment that
crosses a firm wall at interior points of both is blocked whatever else it meets (nothing in
GEO-3..6 unblocks it), so the exact search (``service.geometry.search``, 5E-LOE-2) sets such
candidate lines aside before its exact trace, and its early refusal counts what they cost.

Beside the firm walls, the walk settles crossings of walls that block only where their
height range covers the line's band (GEO-5a) and of two-way limited walls, two of which
block (GEO-4): ``settling`` says which wall does what, and the walk decides it crossing by
crossing (``walk.search``, ``walk.settling``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import WorkBudget
from service.engine.walls import FloatArray, WallIndex
from service.geometry.walk import first_crossings


def firm_walls(
    index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None
) -> NDArray[np.bool_]:
    """Walls that block ``sense`` whatever the source and the heights: two-way, normal, full.

    Returns a mask of shape (n,) over ``index``'s walls, within ``wall_mask`` when given.
    """
    firm = index.firm(sense)
    return firm if wall_mask is None else firm & wall_mask


def surely_blocked(
    index: WallIndex,
    seg: FloatArray,
    firm: NDArray[np.bool_] | NDArray[np.int8],
    budget: WorkBudget | None,
    bands: FloatArray | None = None,
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """Segments (m, 4) px that cross a ``firm`` wall, both at interior points.

    Such a crossing blocks whatever else the segment meets (GEO-1: nothing in GEO-3..6
    unblocks it), so these segments need no exact trace. The test is ``trace``'s own sign
    test with the dead band ``TOUCH_TOL_PX``, ten times wider than the exact tests':
    a segment counted here is blocked there too. The walk is ``walk.search``'s, with the
    firm walls as its plain ones (``walk.first_crossings``): each segment stops at its first
    such wall.

    Parameters
    ----------
    index : WallIndex
    seg : ndarray of shape (m, 4)
        ``x0, y0, x1, y1`` px.
    firm : ndarray of shape (n,), bool or int8
        ``firm_walls`` of the sense asked, or ``walk.settling``'s codes (the walls that
        settle more than outright blocks).
    bands : ndarray of shape (m, 4), optional
        The segments' bands (grid units), for ``walk.settling``'s walls of limited height.
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
    out, count = first_crossings(
        index, np.asarray(seg, dtype=np.float64).reshape(-1, 4), firm, bands
    )
    if budget is not None:
        budget.spend(int(count[out].sum()))
    return out, count
