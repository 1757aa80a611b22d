"""Three-dimensional lines as vertical bands, and how a band meets a height range (GEO-5, GEO-5a).

A traced line between two creatures is a **band**: at each point along the 2-D segment (its
parameter ``t`` from 0 at the start to 1 at the end) it spans from the straight line joining
the two creatures' bottoms to the one joining their tops. A band is stored as four numbers in
grid units, ``bottom0, bottom1, top0, top1`` (the bottoms and tops at the two ends); a light or
an area's point of origin is a band of no thickness (bottom = top).

Every height range (a wall's, a region's, a creature's) is half-open, ``[bottom, top)``
(GEO-5): a line at exactly a wall's top passes over it, a range with bottom = top holds
nothing. At a crossing a range

- **covers** the band when it holds all of it (the wall blocks, GEO-5a);
- **meets part of** it when it holds some of it but not all (a low obstacle for that line);
- **misses** it otherwise (it does nothing).

A band of no thickness at elevation ``z`` is covered when ``bottom <= z < top`` and missed
otherwise. All functions are vectorised over numpy arrays of matching shapes.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from service.model import Region

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def as_bands(elevations: FloatArray | None, m: int) -> FloatArray | None:
    """Bands of shape (m, 4) from elevations of shape (m, 2) or (m, 4), in grid units.

    ``(m, 2)`` is ``elevation0, elevation1``: bands of no thickness; ``(m, 4)`` is already
    ``bottom0, bottom1, top0, top1``. ``None`` stays ``None`` (no heights: every wall is
    infinitely tall).

    Raises
    ------
    ValueError
        Another shape, or a top below its bottom.
    """
    if elevations is None:
        return None
    e = np.asarray(elevations, dtype=np.float64)
    if e.ndim == 1:
        e = np.broadcast_to(e, (m, len(e)))
    if e.shape == (m, 2):
        return np.column_stack([e, e])
    if e.shape != (m, 4):
        raise ValueError(f"elevations must have shape ({m}, 2) or ({m}, 4), not {e.shape}")
    if np.any(e[:, 2:4] < e[:, 0:2]):
        raise ValueError("a band's top is below its bottom")
    return e


def band(bottoms: tuple[float, float], tops: tuple[float, float] | None) -> tuple[float, ...]:
    """One band ``bottom0, bottom1, top0, top1`` from the two ends' bottoms and tops.

    ``tops`` ``None``: a band of no thickness at the bottoms.
    """
    t = bottoms if tops is None else tops
    return (float(bottoms[0]), float(bottoms[1]), float(t[0]), float(t[1]))


def band_at(bands: FloatArray, t: FloatArray) -> tuple[FloatArray, FloatArray, BoolArray]:
    """The band's ``(low, high, thin)`` at parameters ``t`` (clipped to [0, 1]), row by row.

    ``thin``: the band has no thickness (a light, an area's origin, or both ends thin).
    """
    tc = np.clip(t, 0.0, 1.0)
    low = bands[:, 0] + tc * (bands[:, 1] - bands[:, 0])
    high = bands[:, 2] + tc * (bands[:, 3] - bands[:, 2])
    thin = (bands[:, 0] == bands[:, 2]) & (bands[:, 1] == bands[:, 3])
    return low, np.maximum(high, low), thin


def meets(
    low: FloatArray, high: FloatArray, thin: BoolArray, bottom: FloatArray, top: FloatArray
) -> tuple[BoolArray, BoolArray]:
    """Whether ranges ``[bottom, top)`` cover, or meet only part of, bands ``[low, high)``.

    Returns
    -------
    covers : ndarray of bool
        The range holds the whole band (for a thin band: ``bottom <= low < top``).
    partly : ndarray of bool
        The range and the band share a positive height but the range does not hold it all
        (never for a thin band).
    """
    thick_overlap = ~thin & (low < top) & (bottom < high) & (bottom < top)
    point_inside = thin & (bottom <= low) & (low < top)
    covers = point_inside | (thick_overlap & (bottom <= low) & (high <= top))
    return covers, thick_overlap & ~covers


def band_hulls(bands: FloatArray) -> FloatArray:
    """Each band's hull and which of its sides are flat, shape (m, 5), for ``holds_hull``.

    ``low, high`` (the lowest bottom, the highest top) and ``low_flat, high_flat, thin``
    as 1.0 or 0.0: the bottom the same at both ends, the top the same at both ends, no
    thickness at either end. Rows with a NaN give NaN ``low`` or ``high``.
    """
    b = bands
    flat_low, flat_high = b[:, 0] == b[:, 1], b[:, 2] == b[:, 3]
    thin = (b[:, 0] == b[:, 2]) & (b[:, 1] == b[:, 3])
    return np.column_stack(
        [b[:, 0:2].min(axis=1), b.max(axis=1), flat_low, flat_high, thin]
    ).astype(np.float64)


def holds_hull(bottom: FloatArray, top: FloatArray, hull: tuple[float, ...]) -> BoolArray:
    """Whether ranges ``[bottom, top)`` cover a band at every crossing, from its hull.

    ``hull``: a row of ``band_hulls``. Along a line the band lies between its ends' bottoms
    and tops (``band_at``), so a range holding the hull covers it at every crossing as
    ``meets`` decides there, and blocks as a full wall does (GEO-5a). A flat side is the
    same number at every crossing (the interpolation adds nothing to it), so the range may
    reach it exactly, as ``meets`` allows: ``bottom <= low`` (a creature standing on the
    floor its walls start at, the common case of a building's levels, GEO-10), ``high <=
    top``; a sloping side keeps room against the interpolation's rounding; a thin band's
    top is never the range's (``z < top``, GEO-5). For a band flat on both sides this is
    ``meets``' ``covers`` exactly; a hull with a NaN is held by no range.
    """
    low, high, low_flat, high_flat, thin = hull
    with np.errstate(invalid="ignore"):
        above = (bottom <= low) if low_flat else (bottom < low)
        below = (high <= top) if high_flat and not thin else (high < top)
        return above & below & (bottom < top)  # type: ignore[no-any-return]


def overlaps_between(
    bands: FloatArray,
    t_enter: FloatArray,
    t_exit: FloatArray,
    bottom: FloatArray,
    top: FloatArray,
) -> BoolArray:
    """Whether ranges ``[bottom, top)`` meet the bands anywhere between ``t_enter`` and ``t_exit``.

    For a creature's space or a region crossed by a line over the parameters
    ``t_enter..t_exit`` (GEO-7: a creature blocks only where its vertical extent overlaps the
    line's band). Arrays broadcast together; ``bands[..., 0:4]`` as in ``as_bands``.

    The band's low and high edges are linear in ``t``, so the parameters where
    ``low(t) < top`` and ``high(t) > bottom`` (``>=`` for a thin band) form one interval;
    the range meets the band when that interval has positive length inside
    ``t_enter..t_exit``.
    """
    b0, b1, h0, h1 = (bands[..., k] for k in range(4))
    thin = (b0 == h0) & (b1 == h1)
    lo = np.asarray(t_enter, dtype=np.float64).copy()
    hi = np.asarray(t_exit, dtype=np.float64).copy()
    lo, hi = np.broadcast_arrays(lo, hi)
    lo, hi = lo.copy(), hi.copy()
    ok = np.ones(lo.shape, dtype=bool) & (bottom < top)
    # low(t) = b0 + (b1 - b0) t < top      i.e.  (top - b0) - (b1 - b0) t > 0
    # high(t) = h0 + (h1 - h0) t > bottom  i.e.  (h0 - bottom) + (h1 - h0) t > 0 (>= if thin)
    for c0, c1, closed in (
        (top - b0, -(b1 - b0), np.zeros_like(thin)),
        (h0 - bottom, h1 - h0, thin),
    ):
        c0, c1 = np.broadcast_arrays(c0, c1)
        rising, falling = c1 > 0, c1 < 0
        with np.errstate(divide="ignore", invalid="ignore"):
            root = np.where(c1 != 0, -c0 / np.where(c1 != 0, c1, 1.0), 0.0)
        lo = np.where(rising, np.maximum(lo, root), lo)
        hi = np.where(falling, np.minimum(hi, root), hi)
        flat = c1 == 0
        ok &= ~flat | (c0 > 0) | (closed & (c0 >= 0))
    return ok & (hi > lo)


def span_meets(extent: tuple[float, float], bottom: float | None, top: float | None) -> str:
    """How a height range ``[bottom, top)`` meets a creature's extent ``[low, high)``.

    For a region with an elevation range at a creature's space (GEO-5: a region obscures only
    the part of a line inside it; GEO-5a: one covering only part of the band obscures it at
    most lightly). ``None`` bounds are unbounded.

    Returns
    -------
    str
        ``"covers"``, ``"partly"`` or ``"misses"`` (as ``meets``; a creature of no height
        is a band of no thickness).
    """
    lo, hi = extent
    b = -np.inf if bottom is None else bottom
    t = np.inf if top is None else top
    covers, partly = meets(
        np.array([lo]), np.array([hi]), np.array([hi <= lo]), np.array([b]), np.array([t])
    )
    return "covers" if covers[0] else "partly" if partly[0] else "misses"


def region_meets(region: Region, *extents: tuple[float, float]) -> bool:
    """Whether a region's height range meets the band spanned by creatures' ``extents``.

    The band runs from the lowest ``bottom`` to the highest ``top`` of the extents (grid
    units; GEO-5a: every line between the creatures lies inside it); a region without a
    height range meets every band. Half-open ranges, GEO-5.
    """
    if region.elevation is None:
        return True
    band = (min(e[0] for e in extents), max(e[1] for e in extents))
    return span_meets(band, region.elevation.bottom, region.elevation.top) != "misses"
