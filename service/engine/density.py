"""How many walls lie in a box, in O(1) per box: the cost model's view of a scene.

A coarse grid over the walls' extent counts, for each cell, the walls whose bounding box
covers it: about how many walls a short piece of line there is tested against. It is an
estimate, used only to refuse a request before doing its work, never to answer it.
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
    """Walls covering each cell of a grid of ``CELLS`` x ``CELLS`` cells.

    Attributes
    ----------
    x0, y0 : float
        px of the grid's top-left corner.
    cell_w, cell_h : float
        px per cell.
    cover : ndarray of shape (CELLS, CELLS), int64
        ``cover[i, j]``: walls whose bounding box covers cell ``(i, j)`` (x first).
    """

    x0: float
    y0: float
    cell_w: float
    cell_h: float
    cover: NDArray[np.int64]

    def walls_at(self, points: FloatArray) -> FloatArray:
        """About how many walls a short line piece at each point meets, (k, 2) -> (k,)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        n = self.cover.shape[0] - 1
        i = np.clip(np.floor((p[:, 0] - self.x0) / self.cell_w), 0, n).astype(np.intp)
        j = np.clip(np.floor((p[:, 1] - self.y0) / self.cell_h), 0, n).astype(np.intp)
        return self.cover[i, j].astype(np.float64)


def wall_density(coords: FloatArray) -> WallDensity:
    """The ``WallDensity`` of walls ``coords`` (n, 4) px. Cost: O(n + CELLS^2)."""
    if not len(coords):
        return WallDensity(0.0, 0.0, 1.0, 1.0, np.zeros((CELLS, CELLS), dtype=np.int64))
    lo = np.minimum(coords[:, 0:2], coords[:, 2:4])
    hi = np.maximum(coords[:, 0:2], coords[:, 2:4])
    origin = lo.min(axis=0)
    size = np.maximum(hi.max(axis=0) - origin, 1.0) * (1 + 1e-9)
    cell = size / CELLS
    i0 = np.floor((lo - origin) / cell).astype(np.intp)
    i1 = np.minimum(np.floor((hi - origin) / cell).astype(np.intp), CELLS - 1) + 1
    # Each wall adds 1 over its cells: a difference array, then two cumulative sums.
    diff = np.zeros((CELLS + 1, CELLS + 1), dtype=np.int64)
    np.add.at(diff, (i0[:, 0], i0[:, 1]), 1)
    np.add.at(diff, (i1[:, 0], i0[:, 1]), -1)
    np.add.at(diff, (i0[:, 0], i1[:, 1]), -1)
    np.add.at(diff, (i1[:, 0], i1[:, 1]), 1)
    cover = diff.cumsum(axis=0).cumsum(axis=1)[:CELLS, :CELLS]
    return WallDensity(float(origin[0]), float(origin[1]), cell[0], cell[1], cover)
