"""Token spaces and their sample points, in px (GEO-6); distances are ``grids`` (GEO-8)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

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
