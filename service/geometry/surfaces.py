"""Traced lines against the floors of a building, in 3-D (RULES GEO-10, GEO-5, GEO-5a).

A surface (a floor, a roof, a bridge: ``service.engine.levels.Surfaces``) is a horizontal
outline at one elevation ``e``. A traced line is a vertical band (``service.geometry.bands``):
at its parameter ``t`` it spans from its bottom line to its top line. Heights are half-open
(GEO-5): a point at ``e`` or above is above the surface, and the top of a creature's band is
not part of it (``[bottom, top)``), so a creature standing on a floor is above it and one
whose head just reaches it is below.

**Decision (a band through a floor):** the surface blocks the line when every line of the
band crosses its plane inside the outline, as a wall blocks a band it covers whole (GEO-5a):
the bottom and the top lines each go from one side of the plane to the other, the same way,
and the stretch of the 2-D segment between their two crossings lies inside the outline (on
its edge counts as inside). A band only part of which goes through the floor (a creature
reaching through a hole, a line down the edge of a stairwell) is not blocked: a creature
sees down an open stairwell. Surfaces at one elevation that block the sense are taken as
one (their union): a line crossing where two floor pieces meet is blocked.

``surface_blocked`` is called by the one tracer (``service.geometry.trace``) for every trace
over a scene's wall index, so cover, line of effect and sight, vision, light and matrices
all meet the floors.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.levels import Surfaces

FloatArray = NDArray[np.float64]

#: Sub-segments shorter than this (px) are tested as the point they start at.
POINT_PX = 1e-9


def surface_blocked(
    surfaces: Surfaces, seg: FloatArray, bands: FloatArray, sense: str
) -> NDArray[np.bool_]:
    """Which segments a surface blocking ``sense`` blocks (GEO-10), shape (m,) bool.

    Parameters
    ----------
    surfaces : Surfaces
        The scene's surfaces (``service.engine.levels.build_surfaces``).
    seg : ndarray of shape (m, 4)
        ``x0, y0, x1, y1`` px.
    bands : ndarray of shape (m, 4)
        ``bottom0, bottom1, top0, top1`` grid units (``bands.as_bands``).
    sense : {"move", "sight", "light", "sound"}

    Cost: per distinct elevation of the surfaces blocking ``sense``, O(m) in numpy and one
    vectorised shapely ``covers`` of the lines crossing that plane.
    """
    out = np.zeros(len(seg), dtype=bool)
    for _, shape, rows, pieces in _stretches(surfaces, seg, bands, sense):
        out[rows] = shapely.covers(shape, pieces)
    return out


def surfaces_met(
    surfaces: Surfaces, seg: FloatArray, bands: FloatArray, sense: str
) -> list[list[int]]:
    """Per segment, the surfaces (indices into ``surfaces``) that block it for ``sense``.

    The segments ``surface_blocked`` blocks, each naming the surfaces at the plane it goes
    through whose outline meets its stretch across that plane (where two pieces of a floor
    meet under the stretch, both). Shapes as ``surface_blocked``'s; for the blockers an
    answer names (GEO-10), so only for the few lines an answer lists. O(m x surfaces).
    """
    out: list[list[int]] = [[] for _ in range(len(seg))]
    on = surfaces.blocks[sense]
    for elevation, shape, rows, pieces in _stretches(surfaces, seg, bands, sense):
        covered = shapely.covers(shape, pieces)
        rows, pieces = rows[covered], pieces[covered]
        for k in np.flatnonzero(on & (surfaces.elevation == elevation)).tolist():
            for r in rows[shapely.intersects(surfaces.shapes[k], pieces)].tolist():
                out[r].append(k)
    return out


def _stretches(
    surfaces: Surfaces, seg: FloatArray, bands: FloatArray, sense: str
) -> Iterator[tuple[float, shapely.Geometry, NDArray[np.intp], NDArray[np.object_]]]:
    """Per plane of the surfaces blocking ``sense``: ``(elevation, its union, rows, pieces)``.

    ``rows`` are the segments crossing that plane and ``pieces`` their stretches across it
    (shapely lines, px), the stretch a surface must cover to stop the segment.
    """
    for elevation, shape in planes(surfaces, sense):
        rows, start, end = crossings(bands, elevation)
        if not len(rows):
            continue
        a = seg[rows, 0:2] + start[:, None] * (seg[rows, 2:4] - seg[rows, 0:2])
        b = seg[rows, 0:2] + end[:, None] * (seg[rows, 2:4] - seg[rows, 0:2])
        yield elevation, shape, rows, _pieces(a, b)


def planes(surfaces: Surfaces, sense: str) -> list[tuple[float, shapely.Geometry]]:
    """``(elevation, prepared union)`` of the surfaces blocking ``sense``, per elevation.

    Made once per ``Surfaces`` and sense (kept on the object).
    """
    memo = surfaces.memo
    found = memo.get(sense)
    if found is None:
        on = surfaces.blocks[sense]
        found = []
        for elevation in np.unique(surfaces.elevation[on]).tolist():
            union = shapely.union_all(surfaces.shapes[on & (surfaces.elevation == elevation)])
            shapely.prepare(union)
            found.append((float(elevation), union))
        memo[sense] = found
    return found  # type: ignore[no-any-return]


def crossings(
    bands: FloatArray, elevation: float
) -> tuple[NDArray[np.intp], FloatArray, FloatArray]:
    """The bands that go wholly through the plane at ``elevation``, and where.

    Returns ``rows`` (r,), and each one's stretch ``start``, ``end`` (r,) of the segment's
    parameter ``t`` between the crossings of its bottom and top lines (``start <= end``).
    A point at the plane or above is above it; the top of a band with thickness is not
    part of the band (GEO-5's half-open ranges).
    """
    b0, b1, t0, t1 = (bands[:, k] for k in range(4))
    above_b0, above_b1 = b0 >= elevation, b1 >= elevation
    above_t0 = np.where(t0 > b0, t0 > elevation, t0 >= elevation)
    above_t1 = np.where(t1 > b1, t1 > elevation, t1 >= elevation)
    whole = (above_b0 != above_b1) & (above_t0 == above_b0) & (above_t1 == above_b1)
    rows = np.flatnonzero(whole)
    if not len(rows):
        return rows, np.empty(0), np.empty(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        tb = (elevation - b0[rows]) / (b1[rows] - b0[rows])
        dt = t1[rows] - t0[rows]
        tt = np.where(dt != 0, (elevation - t0[rows]) / dt, tb)
    tb, tt = np.clip(tb, 0.0, 1.0), np.clip(np.nan_to_num(tt, nan=0.0), 0.0, 1.0)
    return rows, np.minimum(tb, tt), np.maximum(tb, tt)


def _pieces(a: FloatArray, b: FloatArray) -> NDArray[np.object_]:
    """Shapely segments ``a`` → ``b`` (r, 2) px; a point where they (nearly) coincide."""
    out = np.empty(len(a), dtype=object)
    short = np.hypot(*(b - a).T) < POINT_PX
    if short.any():
        out[short] = shapely.points(a[short])
    if (~short).any():
        out[~short] = shapely.linestrings(np.stack([a[~short], b[~short]], axis=1))
    return out
