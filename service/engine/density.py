"""How many walls lie in a box, in O(1) per box: the cost model's view of a scene (issue 16).

A coarse grid over the walls' extent counts the walls whose midpoint falls in each cell; a
summed-area table answers "about how many walls in this box" for many boxes in one
vectorised step. It is an estimate (a long wall counts in one cell), used only to refuse a
request before doing its work, never to answer it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from service.engine.walls import FloatArray

#: Cells per side of the grid.
CELLS = 128


@dataclass(frozen=True)
class WallDensity:
    """Wall counts over a grid of ``CELLS`` x ``CELLS`` cells, as a summed-area table.

    Attributes
    ----------
    x0, y0 : float
        px of the grid's top-left corner.
    cell_w, cell_h : float
        px per cell.
    sat : ndarray of shape (CELLS + 1, CELLS + 1), int64
        ``sat[i, j]``: walls in cells ``[0, i) x [0, j)`` (x first).
    """

    x0: float
    y0: float
    cell_w: float
    cell_h: float
    sat: NDArray[np.int64]

    def walls_in(self, boxes: FloatArray) -> FloatArray:
        """About how many walls lie in each box ``x0, y0, x1, y1`` px, shape (k, 4) -> (k,)."""
        b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
        n = self.sat.shape[0] - 1
        i0 = np.clip(np.floor((b[:, 0] - self.x0) / self.cell_w), 0, n).astype(np.intp)
        i1 = np.clip(np.floor((b[:, 2] - self.x0) / self.cell_w) + 1, 0, n).astype(np.intp)
        j0 = np.clip(np.floor((b[:, 1] - self.y0) / self.cell_h), 0, n).astype(np.intp)
        j1 = np.clip(np.floor((b[:, 3] - self.y0) / self.cell_h) + 1, 0, n).astype(np.intp)
        s = self.sat
        return (s[i1, j1] - s[i0, j1] - s[i1, j0] + s[i0, j0]).astype(np.float64)


def wall_density(coords: FloatArray) -> WallDensity:
    """The ``WallDensity`` of walls ``coords`` (n, 4) px. Cost: O(n + CELLS^2)."""
    if not len(coords):
        return WallDensity(0.0, 0.0, 1.0, 1.0, np.zeros((CELLS + 1, CELLS + 1), dtype=np.int64))
    mid = (coords[:, 0:2] + coords[:, 2:4]) / 2
    lo, hi = mid.min(axis=0), mid.max(axis=0)
    size = np.maximum(hi - lo, 1.0) * (1 + 1e-9)
    counts, _, _ = np.histogram2d(
        mid[:, 0], mid[:, 1], bins=CELLS, range=[[lo[0], lo[0] + size[0]], [lo[1], lo[1] + size[1]]]
    )
    sat = np.zeros((CELLS + 1, CELLS + 1), dtype=np.int64)
    sat[1:, 1:] = counts.astype(np.int64).cumsum(axis=0).cumsum(axis=1)
    return WallDensity(float(lo[0]), float(lo[1]), size[0] / CELLS, size[1] / CELLS, sat)
