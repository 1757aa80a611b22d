"""Token spaces and their sample points, in px (GEO-6, GEO-8)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from service.engine.tolerances import SQUARE_COUNT_TOL

FloatArray = NDArray[np.float64]


def inset_corners(box: Sequence[float], inset_px: float) -> FloatArray:
    """Corners A (top-left), B (top-right), C (bottom-right), D (bottom-left) of a box.

    Parameters
    ----------
    box : sequence of 4 floats
        ``x0, y0, x1, y1`` in px.
    inset_px : float
        Each corner is moved this far toward the centre along both axes (GEO-6), at most to
        the centre.

    Returns
    -------
    ndarray of shape (4, 2)
    """
    x0, y0, x1, y1 = box
    ix = min(inset_px, (x1 - x0) / 2)
    iy = min(inset_px, (y1 - y0) / 2)
    return np.array(
        [[x0 + ix, y0 + iy], [x1 - ix, y0 + iy], [x1 - ix, y1 - iy], [x0 + ix, y1 - iy]],
        dtype=np.float64,
    )


def inset_box(box: Sequence[float], inset_px: float) -> tuple[float, float, float, float]:
    """``box`` shrunk by ``inset_px`` on every side (never past its centre)."""
    x0, y0, x1, y1 = box
    ix = min(inset_px, (x1 - x0) / 2)
    iy = min(inset_px, (y1 - y0) / 2)
    return (x0 + ix, y0 + iy, x1 - ix, y1 - iy)


def box_centre(box: Sequence[float]) -> tuple[float, float]:
    """Centre of a box ``x0, y0, x1, y1`` in px."""
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def boxes_overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two boxes ``x0, y0, x1, y1`` (px) share interior area (5E-COV-7, GEO-7).

    A degenerate box (an area effect's point of origin) overlaps a space that holds it,
    edges included: the creature at the origin gives no cover from its own effect.
    """
    if a[0] == a[2] or a[1] == a[3] or b[0] == b[2] or b[1] == b[3]:
        return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def space_distance(
    box_a: tuple[float, float, float, float],
    box_b: tuple[float, float, float, float],
    grid_size_px: float,
    grid_distance: float,
    diagonals: str,
) -> float:
    """Distance in grid units between two spaces (GEO-8).

    Counted between the nearest squares of the two spaces, as a move would count them:
    adjacent spaces are one square (e.g. 5 ft) apart, overlapping spaces 0. Diagonals:
    ``equidistant`` (5-5-5), ``alternating`` (5-10-5: every second diagonal costs two
    squares) or ``euclidean``.

    Parameters
    ----------
    box_a, box_b : (x0, y0, x1, y1) px
    grid_size_px : float
        Pixels per square.
    grid_distance : float
        Grid units per square.
    diagonals : str
    """

    def squares(lo_a: float, hi_a: float, lo_b: float, hi_b: float) -> float:
        gap = max(lo_b - hi_a, lo_a - hi_b)
        if gap < 0:
            return 0.0
        return math.ceil(gap / grid_size_px - SQUARE_COUNT_TOL) + 1.0

    dx = squares(box_a[0], box_a[2], box_b[0], box_b[2])
    dy = squares(box_a[1], box_a[3], box_b[1], box_b[3])
    if diagonals == "euclidean":
        return math.hypot(dx, dy) * grid_distance
    diag, straight = min(dx, dy), abs(dx - dy)
    if diagonals == "alternating":
        return (straight + diag + math.floor(diag / 2)) * grid_distance
    return (straight + diag) * grid_distance
