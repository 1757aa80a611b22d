"""Segments against creature spaces and region outlines (GEO-7, GEO-5a, SF-CON-1).

``creature_pairs`` looks the spaces near each segment up in a uniform grid over them
(``walls.build_grid``), along the segment's pieces and around its exact corner points, and
decides them compiled (``_crosses_space``): the slab test, GEO-6's exact corner line for a
space with a corner on it, and GEO-5a's overlap of the creature's height with the line's band
inside the space. ``creature_hits`` is what ``trace`` reads (sorted pairs);
``segments_cross_boxes`` and ``segments_touch_regions`` serve callers with few boxes or
regions (concealment, lighting), in numpy and shapely.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.tolerances import ON_LINE_TOL_PX, QUERY_TOL_PX, TOUCH_TOL_PX
from service.engine.walls import FloatArray, WallGrid, build_grid
from service.geometry.compiled import append_pair, cell_of, fmax, fmin, njit, piece_box, pieces


@njit(cache=True, nogil=True)
def _slab_keep(
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    box: NDArray[np.float64],
    ex: NDArray[np.float64],
    band: float,
    tol: float,
) -> bool:  # pragma: no cover - compiled
    """``_slab`` with a dead band, or a corner of ``box`` near an exact point ``ex``.

    ``ex`` holds the segment's exact corner points ``x0, y0, x1, y1`` (empty: none).
    """
    bx0, by0, bx1, by1 = box[0], box[1], box[2], box[3]
    dx, dy = x1 - x0, y1 - y0
    slack = band / max(math.hypot(dx, dy), band)  # the dead band, as a parameter
    keep = True
    t_enter, t_exit = 0.0, 1.0
    if dx == 0.0:
        keep = bx0 - band < x0 < bx1 + band
    else:
        t1, t2 = (bx0 - x0) / dx, (bx1 - x0) / dx
        t_enter, t_exit = max(t_enter, min(t1, t2)), min(t_exit, max(t1, t2))
    if keep and dy == 0.0:
        keep = by0 - band < y0 < by1 + band
    elif keep:
        t1, t2 = (by0 - y0) / dy, (by1 - y0) / dy
        t_enter, t_exit = max(t_enter, min(t1, t2)), min(t_exit, max(t1, t2))
    if keep and t_exit - t_enter > -slack:
        return True
    for c in range(0, ex.shape[0], 2):  # GEO-6: a space with a corner on an exact point
        px, py = ex[c], ex[c + 1]
        near_x = abs(bx0 - px) <= tol or abs(bx1 - px) <= tol
        if near_x and (abs(by0 - py) <= tol or abs(by1 - py) <= tol):
            return True
    return False


@njit(cache=True, nogil=True)
def _crosses_space(
    seg: NDArray[np.float64],
    ex: NDArray[np.float64],
    box: NDArray[np.float64],
    band: NDArray[np.float64],
    span: NDArray[np.float64],
    tol: float,
    on_line: float,
) -> bool:  # pragma: no cover - compiled
    """``creature_hits``' exact test of one (segment, space) pair.

    In the same arithmetic: the exact segment ``ex`` when a corner of the space lies on one
    of its points (GEO-6), the slab test (``_slab``) and, with a band and a span,
    GEO-5a's overlap inside the space (``bands.overlaps_between``).
    """
    px, py, qx, qy = seg[0], seg[1], seg[2], seg[3]
    if ex.shape[0] == 4:
        for c in range(0, 4, 2):
            on_x = abs(box[0] - ex[c]) <= tol or abs(box[2] - ex[c]) <= tol
            if on_x and (abs(box[1] - ex[c + 1]) <= tol or abs(box[3] - ex[c + 1]) <= tol):
                px, py, qx, qy = ex[0], ex[1], ex[2], ex[3]
    dx, dy = qx - px, qy - py
    t_enter, t_exit = 0.0, 1.0
    inside = True
    for axis in range(2):
        dp = dx if axis == 0 else dy
        pp = px if axis == 0 else py
        lo_a, hi_a = box[axis], box[axis + 2]
        if dp != 0:
            t1 = (lo_a - pp) / dp
            t2 = (hi_a - pp) / dp
            t_lo, t_hi = fmin(t1, t2), fmax(t1, t2)
        else:
            t_lo, t_hi = -math.inf, math.inf
            inside = inside and pp > lo_a and pp < hi_a
        t_enter = fmax(t_enter, t_lo)
        t_exit = fmin(t_exit, t_hi)
    if not (inside and (t_exit - t_enter) * math.hypot(dx, dy) > on_line):
        return False
    if band.shape[0] != 4 or span.shape[0] != 2:
        return True
    b0, b1, h0, h1 = band[0], band[1], band[2], band[3]
    bottom, top = span[0], span[1]
    thin = b0 == h0 and b1 == h1
    lo, hi = t_enter, t_exit
    ok = bottom < top
    for which in range(2):
        if which == 0:  # low(t) = b0 + (b1 - b0) t < top
            c0, c1, closed = top - b0, -(b1 - b0), False
        else:  # high(t) = h0 + (h1 - h0) t > bottom (>= when thin)
            c0, c1, closed = h0 - bottom, h1 - h0, thin
        root = -c0 / c1 if c1 != 0 else 0.0
        if c1 > 0:
            lo = fmax(lo, root)
        if c1 < 0:
            hi = fmin(hi, root)
        if c1 == 0:
            ok = ok and (c0 > 0 or (closed and c0 >= 0))
    return ok and hi > lo


@njit(cache=True, nogil=True)
def _creature_pairs(
    seg: NDArray[np.float64],
    exact: NDArray[np.float64],
    gx0: float,
    gy0: float,
    cell: float,
    nx: int,
    ny: int,
    start: NDArray[np.int64],
    cboxes: NDArray[np.int64],
    boxes: NDArray[np.float64],
    band: float,
    tol: float,
    bands: NDArray[np.float64],
    spans: NDArray[np.float64],
    on_line: float,
    mask: NDArray[np.bool_],
    mask_rows: NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover - compiled
    m, k = seg.shape[0], boxes.shape[0]
    with_mask = mask_rows.shape[0] == m and mask.shape[1] == k
    with_heights = bands.shape[0] == m and spans.shape[0] == k
    no_row = np.empty(0, dtype=np.float64)
    with_exact = exact.shape[0] == m
    no_exact = np.empty(0, dtype=np.float64)
    stamp = np.full(k, -1, dtype=np.int64)
    cap = max(16, m)
    rows = np.empty(cap, dtype=np.int64)
    cols = np.empty(cap, dtype=np.int64)
    kept = 0
    grow = 4.0 * band + tol  # a kept space meets the segment's box grown by the dead band
    for i in range(m):
        x0, y0, x1, y1 = seg[i, 0], seg[i, 1], seg[i, 2], seg[i, 3]
        ex = exact[i] if with_exact else no_exact
        length = math.hypot(x1 - x0, y1 - y0)
        k_pieces = 0 if length != length else pieces(length, cell, 1 << 20)
        # Cells met by the segment's pieces (about a cell long), then by the tol-squares
        # around its exact corner points.
        for q in range(k_pieces + ex.shape[0] // 2):
            if q < k_pieces:
                lx, ly, hx, hy = piece_box(seg[i], q, k_pieces, grow)
            else:
                c = 2 * (q - k_pieces)
                lx, ly, hx, hy = ex[c] - tol, ex[c + 1] - tol, ex[c] + tol, ex[c + 1] + tol
                if not (lx == lx and ly == ly):
                    continue
            ix0, ix1 = cell_of(lx, gx0, cell, nx), cell_of(hx, gx0, cell, nx)
            iy0, iy1 = cell_of(ly, gy0, cell, ny), cell_of(hy, gy0, cell, ny)
            for iy in range(iy0, iy1 + 1):
                for ix in range(ix0, ix1 + 1):
                    cid = iy * nx + ix
                    for jj in range(start[cid], start[cid + 1]):
                        j = cboxes[jj]
                        if stamp[j] == i:
                            continue
                        stamp[j] = i
                        if with_mask and not mask[mask_rows[i], j]:
                            continue
                        if not _slab_keep(x0, y0, x1, y1, boxes[j], ex, band, tol):
                            continue
                        if not _crosses_space(
                            seg[i],
                            ex,
                            boxes[j],
                            bands[i] if with_heights else no_row,
                            spans[j] if with_heights else no_row,
                            tol / 2,
                            on_line,
                        ):
                            continue
                        rows, cols = append_pair(rows, cols, kept, i, j)
                        kept += 1
    return rows[:kept], cols[:kept]


def creature_pairs(
    seg: FloatArray,
    boxes: FloatArray,
    exact: FloatArray | None,
    grid: WallGrid | None = None,
    heights: tuple[FloatArray, FloatArray] | None = None,
    mask: tuple[NDArray[np.bool_], NDArray[np.intp]] | None = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(segment, creature space) pairs where the segment crosses the space, compiled.

    ``creature_hits``' answer in the same arithmetic (``_crosses_space``), found by
    looking the spaces up in a uniform grid (``walls.build_grid`` over the boxes) along each
    segment's pieces and around its exact points, and passing only those that a loosened
    slab test (dead band ``TOUCH_TOL_PX``) says it crosses or that have a corner near an
    exact point to the exact test: O(m x spaces near each segment).

    Parameters
    ----------
    seg : ndarray of shape (m, 4)
        Traced segments in px.
    boxes : ndarray of shape (k, 4)
        Creature spaces ``x0, y0, x1, y1`` in px, k >= 1.
    exact : ndarray of shape (m, 4) or None
        The segments' exact corner points (GEO-6): a space with a corner on one is tested
        on the exact segment.
    grid : WallGrid, optional
        ``build_grid(boxes)``, when the caller keeps one for many calls.
    heights : (ndarray (m, 4), ndarray (k, 2)), optional
        The segments' bands and the spaces' vertical extents (GEO-5a).
    mask : (ndarray (g, k) bool, ndarray (m,) int), optional
        Which spaces count for each segment's row: the others are skipped untested.

    Returns
    -------
    rows, cols : ndarray of int
        The crossing pairs, by segment (any order within a segment).
    """
    boxes = np.ascontiguousarray(boxes, dtype=np.float64)
    grid = grid if grid is not None else build_grid(boxes)
    rows, cols = _creature_pairs(
        np.ascontiguousarray(seg, dtype=np.float64),
        np.ascontiguousarray(exact if exact is not None else np.empty((0, 4)), dtype=np.float64),
        grid.x0,
        grid.y0,
        grid.cell,
        grid.nx,
        grid.ny,
        grid.start,
        grid.walls,
        boxes,
        TOUCH_TOL_PX,
        2 * QUERY_TOL_PX,
        np.ascontiguousarray(heights[0] if heights else np.empty((0, 4)), dtype=np.float64),
        np.ascontiguousarray(heights[1] if heights else np.empty((0, 2)), dtype=np.float64),
        ON_LINE_TOL_PX,
        np.ascontiguousarray(mask[0] if mask else np.empty((0, 0)), dtype=np.bool_),
        np.ascontiguousarray(mask[1] if mask else np.empty(0), dtype=np.int64),
    )
    return rows.astype(np.intp), cols.astype(np.intp)


def creature_hits(
    seg: FloatArray,
    boxes: FloatArray,
    bands: FloatArray | None,
    spans: FloatArray | None,
    exact: FloatArray | None,
    grid: WallGrid | None = None,
    mask: tuple[NDArray[np.bool_], NDArray[np.intp]] | None = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Which of segments (m, 4) pass through which creature spaces (k, 4), as pairs.

    ``mask``: ``(creature_mask (g, k), row of each segment (m,))``: the look-up leaves out
    the spaces a segment's row masks before testing them (a stack of creatures sharing the
    attacker's square costs a look-up each, not a test); ``trace`` applies the mask after
    too (the oracle in ``tests/reference`` tests every pair).

    GEO-7 with GEO-5a: where ``spans`` (k, 2) are given, only where the creature's vertical
    extent overlaps the segment's band (m, 4) inside the space. GEO-6: a space with a corner
    on a segment's exact corner point (``exact`` (m, 4)) is tested on the exact segment.
    ``grid``: ``build_grid(boxes)`` for the look-up (built here when not given).

    Returns
    -------
    rows, cols : ndarray of int
        (segment, space) pairs that cross, sorted by segment then space.
    """
    heights = (bands, spans) if spans is not None and bands is not None else None
    rows, cols = creature_pairs(seg, boxes, exact, grid, heights, mask)
    order = np.lexsort((cols, rows))
    return rows[order], cols[order]


def segments_cross_own_boxes(seg: FloatArray, boxes: FloatArray) -> NDArray[np.bool_]:
    """Whether segment ``seg[i]`` passes through the open interior of ``boxes[i]``.

    Both (p, 4) px, row by row: ``segments_cross_boxes`` without the all-pairs table.
    """
    return _slab(seg, boxes)[0]


def segments_cross_boxes(seg: FloatArray, boxes: FloatArray) -> NDArray[np.bool_]:
    """Whether each segment passes through the open interior of each axis-aligned box.

    Parameters
    ----------
    seg : ndarray of shape (m, 4)
        ``x0, y0, x1, y1`` in px.
    boxes : ndarray of shape (k, 4)
        ``x0, y0, x1, y1`` in px with ``x0 < x1``, ``y0 < y1``.

    Returns
    -------
    ndarray of shape (m, k), bool
        A segment that only touches a box's boundary (an edge or a corner) does not cross it.
    """
    rows, cols = np.indices((len(seg), len(boxes)))
    return _slab(seg[rows.ravel()], boxes[cols.ravel()])[0].reshape(rows.shape)


def _slab(seg: FloatArray, boxes: FloatArray) -> tuple[NDArray[np.bool_], FloatArray, FloatArray]:
    """The slab test of segment ``seg[i]`` against box ``boxes[i]`` (both (p, 4)), row by row."""
    p = seg[:, 0:2]
    d = seg[:, 2:4] - seg[:, 0:2]
    lo = boxes[:, 0:2]
    hi = boxes[:, 2:4]
    t_enter = np.zeros(len(seg))
    t_exit = np.ones(len(seg))
    inside = np.ones(len(seg), dtype=bool)
    for axis in (0, 1):
        dp = d[:, axis]
        pp = p[:, axis]
        lo_a = lo[:, axis]
        hi_a = hi[:, axis]
        moving = dp != 0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            t1 = (lo_a - pp) / dp
            t2 = (hi_a - pp) / dp
        t_lo = np.where(moving, np.minimum(t1, t2), -np.inf)
        t_hi = np.where(moving, np.maximum(t1, t2), np.inf)
        # A segment parallel to this axis must lie strictly between the box's sides.
        inside &= moving | ((pp > lo_a) & (pp < hi_a))
        t_enter = np.maximum(t_enter, t_lo)
        t_exit = np.minimum(t_exit, t_hi)
    length = np.hypot(d[:, 0], d[:, 1])
    with np.errstate(over="ignore", invalid="ignore"):  # near-parallel sides: infinite t
        crossed = inside & ((t_exit - t_enter) * length > ON_LINE_TOL_PX)
    return crossed, t_enter, t_exit


def segments_touch_regions(
    seg: FloatArray, polygons: Sequence[shapely.Geometry]
) -> NDArray[np.bool_]:
    """Whether each segment crosses or runs along the edge of each region (SF-CON-1).

    Parameters
    ----------
    seg : ndarray of shape (m, 4)
        Segments in px.
    polygons : sequence of k shapely geometries
        Region outlines in px.

    Returns
    -------
    ndarray of shape (m, k), bool
        True where the segment's intersection with the closed region has positive length
        (touching at a single point does not count).
    """
    if not len(polygons) or not len(seg):
        return np.zeros((len(seg), len(polygons)), dtype=bool)
    lines = shapely.linestrings(np.asarray(seg, dtype=np.float64).reshape(-1, 2, 2))
    polys = np.asarray(polygons, dtype=object)
    li, pi = np.meshgrid(np.arange(len(lines)), np.arange(len(polys)), indexing="ij")
    inter = shapely.intersection(lines[li.ravel()], polys[pi.ravel()])
    return (shapely.length(inter) > ON_LINE_TOL_PX).reshape(len(lines), len(polys))
