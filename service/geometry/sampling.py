"""Sample points of a space that rulesets trace lines between (GEO-6, SF-COV-1, PV-COV-2).

Each function takes a space ``(x0, y0, x1, y1)`` in px and returns points of shape (k, 2)
in px: the four corners inset toward the centre (dnd5e's paired corners and the DMG's
corner to corners), every square corner of a multi-square space (Starfinder), the centre
(pf2e-variant), or an area's point of origin. On hex grids a token's corners are its
hexes' vertices (``space_corners``, ``every_corner``: ``service.engine.grids``).
"""

from __future__ import annotations

import math

import numpy as np

from service.engine.grids import footprint, hex_every_corner, hex_space_corners, lattice
from service.engine.scene import BuiltScene
from service.engine.spaces import box_centre, inset_corners
from service.engine.tolerances import SQUARE_COUNT_TOL
from service.engine.walls import FloatArray
from service.model import Token

Box = tuple[float, float, float, float]

#: Most corners of an attacker's squares tried (SF-COV-1); more are cut to the nearest.
MAX_SOURCE_CORNERS = 256


def corners(box: Box, inset: float) -> FloatArray:
    """The space's four corners inset by ``inset`` px, clockwise from top-left, (4, 2)."""
    return inset_corners(box, inset)


def centre(box: Box) -> FloatArray:
    """The space's centre, shape (1, 2)."""
    return np.array([box_centre(box)], dtype=np.float64)


def origin(point: tuple[float, float], count: int = 1) -> FloatArray:
    """An area's point of origin repeated ``count`` times, shape (count, 2)."""
    return np.array([point] * count, dtype=np.float64)


def square_corners(
    box: Box, size_px: float, inset: float, toward: tuple[float, float] | None = None
) -> tuple[FloatArray, int]:
    """Corners of every square of a space (SF-COV-1 multi-square attackers).

    Each square's corners are inset by ``inset`` px (GEO-6). A space with more than
    ``MAX_SOURCE_CORNERS`` distinct corners (larger than 8 by 8 squares) keeps the ones
    nearest to the point ``toward`` (the target's centre): the cost stays bounded however
    large the creature, and the nearest corners are the ones with the shortest lines.

    Returns
    -------
    corners : ndarray of shape (k, 2)
        px, sorted by x then y.
    total : int
        Distinct corners of the space before any cut.
    """
    x0, y0, x1, y1 = box
    xs = _square_edges(x0, x1, size_px, inset)
    ys = _square_edges(y0, y1, size_px, inset)
    total = len(xs) * len(ys)
    if total > MAX_SOURCE_CORNERS and toward is not None:
        # The k nearest points of a grid use only the k nearest values on each axis.
        xs = xs[np.argsort(np.abs(xs - toward[0]), kind="stable")[:MAX_SOURCE_CORNERS]]
        ys = ys[np.argsort(np.abs(ys - toward[1]), kind="stable")[:MAX_SOURCE_CORNERS]]
    grid = np.array(np.meshgrid(xs, ys, indexing="ij"), dtype=np.float64).reshape(2, -1).T
    if len(grid) > MAX_SOURCE_CORNERS and toward is not None:
        d2 = (grid[:, 0] - toward[0]) ** 2 + (grid[:, 1] - toward[1]) ** 2
        grid = grid[np.lexsort((grid[:, 1], grid[:, 0], d2))[:MAX_SOURCE_CORNERS]]
    return np.unique(grid, axis=0), total


def _square_edges(lo: float, hi: float, size_px: float, inset: float) -> FloatArray:
    """Distinct inset corner coordinates along one axis of the squares of ``[lo, hi]``."""
    n = max(1, math.ceil((hi - lo) / size_px - SQUARE_COUNT_TOL))
    out: set[float] = set()
    for i in range(n):
        a, b = lo + i * size_px, min(hi, lo + (i + 1) * size_px)
        d = min(inset, (b - a) / 2)
        out.update((a + d, b - d))
    return np.array(sorted(out), dtype=np.float64)


def space_corners(built: BuiltScene, token: Token | None, box: Box, inset: float) -> FloatArray:
    """The corners of a token's space that the corner rules trace from (GEO-6, 5E-COV-5).

    Squares and gridless: the box's four corners (``corners``). Hex grids: the six outer
    corners of the token's hexes, clockwise (``service.engine.grids.hex_space_corners``),
    each inset toward its hex's centre. ``token`` ``None`` (a point of origin): the box's.
    """
    grid = built.scene.grid
    lat = lattice(grid)
    if lat is None or token is None:
        return corners(box, inset)
    return hex_space_corners(footprint(token, grid), lat, inset)


def every_corner(
    built: BuiltScene,
    token: Token | None,
    box: Box,
    inset: float,
    toward: tuple[float, float] | None = None,
) -> tuple[FloatArray, int]:
    """Every corner of every square (hex) of a token's space (SF-COV-1), as ``square_corners``.

    On hex grids the vertices of its hexes, each inset toward its hex's centre; more than
    ``MAX_SOURCE_CORNERS`` keep those nearest ``toward``. Returns the corners and how many
    there were before any cut.
    """
    grid = built.scene.grid
    lat = lattice(grid)
    if lat is None or token is None:
        return square_corners(box, grid.size, inset, toward)
    pts = hex_every_corner(footprint(token, grid), lat, inset)
    total = len(pts)
    if total > MAX_SOURCE_CORNERS and toward is not None:
        d2 = (pts[:, 0] - toward[0]) ** 2 + (pts[:, 1] - toward[1]) ** 2
        pts = pts[np.sort(np.argsort(d2, kind="stable")[:MAX_SOURCE_CORNERS])]
    return pts, total


def exact_points(points: FloatArray, exact: FloatArray) -> FloatArray:
    """For each inset corner ``points`` (k, 2) px, the exact corner it came from (GEO-6).

    The nearest of ``exact`` (n, 2) px: the same space's corners without inset
    (``space_corners`` or ``every_corner`` with ``inset`` 0). Cost: O(k n).
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    ex = np.asarray(exact, dtype=np.float64).reshape(-1, 2)
    d2 = ((pts[:, None, :] - ex[None, :, :]) ** 2).sum(axis=2)
    return ex[d2.argmin(axis=1)]
