"""The compiled part of ``trace`` (issue 20): numba when it imports, else numpy.

``search`` finds, for every traced segment, the walls whose bounding boxes meet the boxes of
its pieces (exactly the (segment, wall) pairs of ``trace.candidate_pairs``: the same pieces
of ``QUERY_PIECE_PX``, the same ``QUERY_TOL_PX`` growth, the same closed box test as the
``STRtree`` envelope query), by walking the pieces' cells of the walls' uniform grid
(``WallIndex.wall_grid``). It counts those pairs (what the work budget spends, as on the
numpy path) and returns only the ones that can matter to GEO-1..6: eligible walls (a
restriction for the sense, in the wall mask) that cross the segment or touch its line,
decided with a dead band ``TOUCH_TOL_PX`` ten times the exact tests' ``ON_LINE_TOL_PX``, so
the pairs dropped here are ones the exact tests would drop too. A segment that a plain wall
(normal, two-way, full height) crosses beyond that band, with no wall ending on its exact
corners, is settled here: blocked in bulk tracing (the walk stops there), and, when the
blockers are listed, blocked by exactly those walls if they are all it meets. The other
segments' pairs get the exact tests (GEO-1..6: sides, one-way walls, thresholds, heights,
corner obstacles) in ``exact_tests``, pair by pair in the arithmetic of the numpy reference
(``trace._classify``); the GEO-6 junction rule then runs compiled too
(``junctions.junctions_compiled``, ``junctions.end_junctions_compiled``).

``creature_pairs`` looks up the creature spaces near each segment in a grid over them and,
for ``trace``, decides them with ``trace._creature_hits``' exact test in the same
arithmetic. Hypothesis properties (tests/property) hold both paths equal.

``SIGHTLINE_KERNEL=numpy`` forces the reference path (``kernel_enabled``).
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.tolerances import ON_LINE_TOL_PX, QUERY_TOL_PX
from service.engine.walls import FloatArray, WallGrid, WallIndex, build_grid

#: Dead band (px) of the kernel's filter: wider than the exact tests' ``ON_LINE_TOL_PX``,
#: so float differences between compiled and numpy arithmetic cannot drop a pair that the
#: exact tests would keep (a wider band only keeps more pairs for them to decide).
TOUCH_TOL_PX = 10 * ON_LINE_TOL_PX

try:  # numba is a dependency; the numpy path stays for platforms without it
    from numba import njit as _numba_njit

    HAVE_NUMBA = True

    def njit(*args: Any, **kwargs: Any) -> Any:
        """``numba.njit`` with numpy's float semantics: x / 0 is inf or NaN, never an error.

        The compiled functions mirror numpy (and GEOS) arithmetic, where a length whose
        square underflows to 0 divides to inf or NaN; Python's semantics would raise
        ``ZeroDivisionError`` there instead.
        """
        kwargs.setdefault("error_model", "numpy")
        return _numba_njit(*args, **kwargs)
except ImportError:  # pragma: no cover - exercised where numba is not installed
    HAVE_NUMBA = False

    def njit(*_args: Any, **_kwargs: Any) -> Any:  # type: ignore[no-redef]  # noqa: D103
        return lambda f: f


def kernel_enabled() -> bool:
    """Whether ``trace`` uses the compiled kernel: numba imports, ``SIGHTLINE_KERNEL`` != numpy."""
    return HAVE_NUMBA and os.environ.get("SIGHTLINE_KERNEL", "").strip().lower() != "numpy"


@njit(cache=True, nogil=True)
def _cell(v: float, origin: float, cell: float, n: int) -> int:  # pragma: no cover - compiled
    f = (v - origin) / cell
    if f < 0.0:
        return 0
    if f >= n:
        return n - 1
    return int(f)


@njit(cache=True, nogil=True)
def _sign(v: float, band: float) -> int:  # pragma: no cover - compiled
    if v > band:
        return 1
    if v < -band:
        return -1
    return 0


@njit(cache=True, nogil=True)
def pieces(length: float, piece_px: float, max_pieces: int) -> int:  # pragma: no cover
    """How many pieces of about ``piece_px`` a segment of ``length`` px is looked up in."""
    if length / piece_px >= max_pieces:
        return max_pieces
    return max(1, int(math.ceil(length / piece_px)))


@njit(cache=True, nogil=True)
def piece_box(
    seg: NDArray[np.float64], q: int, k: int, qtol: float
) -> tuple[float, float, float, float]:  # pragma: no cover - compiled
    """The box (min x, min y, max x, max y, px) of piece ``q`` of ``k`` of ``seg``.

    Grown by ``qtol``; the last piece ends exactly at the segment's end.
    """
    x0, y0, x1, y1 = seg[0], seg[1], seg[2], seg[3]
    dx, dy = x1 - x0, y1 - y0
    kf = float(k)
    t0 = q / kf
    sx, sy = x0 + dx * t0, y0 + dy * t0
    if q == k - 1:
        ex, ey = x1, y1
    else:
        t1 = (q + 1) / kf
        ex, ey = x0 + dx * t1, y0 + dy * t1
    return min(sx, ex) - qtol, min(sy, ey) - qtol, max(sx, ex) + qtol, max(sy, ey) + qtol


@njit(cache=True, nogil=True)
def append_pair(
    first: NDArray[np.int64], second: NDArray[np.int64], kept: int, u: int, v: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover - compiled
    """Put the pair ``(u, v)`` at ``kept`` in two growing arrays (doubled when full)."""
    if kept == len(first):
        grown_u = np.empty(2 * len(first), dtype=np.int64)
        grown_v = np.empty(2 * len(first), dtype=np.int64)
        grown_u[:kept] = first[:kept]
        grown_v[:kept] = second[:kept]
        first, second = grown_u, grown_v
    first[kept] = u
    second[kept] = v
    return first, second


@njit(cache=True, nogil=True)
def _keep(
    x0: float, y0: float, x1: float, y1: float, c: NDArray[np.float64], band: float
) -> bool:  # pragma: no cover - compiled
    """Whether the wall ``c`` crosses the segment or touches its line (loose: see module)."""
    dx, dy = x1 - x0, y1 - y0
    ax, ay, bx, by = c[0], c[1], c[2], c[3]
    ex, ey = bx - ax, by - ay
    len_d = math.hypot(dx, dy)
    len_e = math.hypot(ex, ey)
    if len_d <= 2 * band or len_e <= 2 * band:
        return True  # degenerate: the exact tests decide (they set it aside)
    s_a = _sign((dx * (ay - y0) - dy * (ax - x0)) / len_d, band)
    s_b = _sign((dx * (by - y0) - dy * (bx - x0)) / len_d, band)
    if s_a == 0 or s_b == 0:
        return True  # an end on the segment's line: junction or collinear (GEO-6)
    if s_a * s_b > 0:
        return False
    s_p = _sign((ex * (y0 - ay) - ey * (x0 - ax)) / len_e, band)
    s_q = _sign((ex * (y1 - ay) - ey * (x1 - ax)) / len_e, band)
    return s_p * s_q <= 0


@njit(cache=True, nogil=True)
def _strict(
    x0: float, y0: float, x1: float, y1: float, c: NDArray[np.float64], band: float
) -> bool:  # pragma: no cover - compiled
    """Whether the wall ``c`` properly crosses the segment with every end beyond ``band``.

    Then the exact tests find the same proper crossing (their tolerance is smaller).
    """
    dx, dy = x1 - x0, y1 - y0
    ax, ay, bx, by = c[0], c[1], c[2], c[3]
    ex, ey = bx - ax, by - ay
    len_d = math.hypot(dx, dy)
    len_e = math.hypot(ex, ey)
    if len_d <= 2 * band or len_e <= 2 * band:
        return False
    s_a = _sign((dx * (ay - y0) - dy * (ax - x0)) / len_d, band)
    s_b = _sign((dx * (by - y0) - dy * (bx - x0)) / len_d, band)
    if s_a * s_b >= 0:
        return False
    s_p = _sign((ex * (y0 - ay) - ey * (x0 - ax)) / len_e, band)
    s_q = _sign((ex * (y1 - ay) - ey * (x1 - ax)) / len_e, band)
    return s_p * s_q < 0


@njit(cache=True, nogil=True)
def _near_end(c: NDArray[np.float64], ex: NDArray[np.float64], tol: float) -> bool:
    """Whether an end of wall ``c`` lies within ``tol`` of an exact corner point ``ex``."""  # noqa: D401
    for e in range(0, ex.shape[0], 2):
        for w in range(0, 4, 2):
            if abs(c[w] - ex[e]) <= tol and abs(c[w + 1] - ex[e + 1]) <= tol:
                return True
    return False


@njit(cache=True, nogil=True)
def _corner_wall(
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    ex: NDArray[np.float64],
    gx0: float,
    gy0: float,
    cell: float,
    nx: int,
    ny: int,
    start: NDArray[np.int64],
    cwalls: NDArray[np.int64],
    coords: NDArray[np.float64],
    eligible: NDArray[np.bool_],
    band: float,
    ctol: float,
) -> bool:  # pragma: no cover - compiled
    """Whether a wall ends on an exact corner point and crosses or touches the segment.

    An eligible wall with an end within ``ctol`` of a point of ``ex`` (x, y pairs) that
    ``_keep`` keeps, looked up in the cells around those points.
    """
    for e in range(0, ex.shape[0], 2):
        px, py = ex[e], ex[e + 1]
        if not (px == px and py == py):
            continue
        ix0, ix1 = _cell(px - ctol, gx0, cell, nx), _cell(px + ctol, gx0, cell, nx)
        iy0, iy1 = _cell(py - ctol, gy0, cell, ny), _cell(py + ctol, gy0, cell, ny)
        for iy in range(iy0, iy1 + 1):
            for ix in range(ix0, ix1 + 1):
                c = iy * nx + ix
                for j in range(start[c], start[c + 1]):
                    w = cwalls[j]
                    if eligible[w] and _near_end(coords[w], ex, ctol):
                        if _keep(x0, y0, x1, y1, coords[w], band):
                            return True
    return False


@njit(cache=True, nogil=True)
def _search(
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
    eligible: NDArray[np.bool_],
    piece_px: float,
    max_pieces: int,
    qtol: float,
    band: float,
    keep_all: bool,
    plain: NDArray[np.bool_],
    exact: NDArray[np.float64],
    ctol: float,
    listing: bool,
    comp: NDArray[np.int64],
    only: NDArray[np.int64],
    only_inside: bool,
) -> tuple[
    NDArray[np.int64], NDArray[np.int64], int, NDArray[np.int8]
]:  # pragma: no cover - compiled
    m = seg.shape[0]
    with_only = only.shape[0] == m and comp.shape[0] == boxes.shape[0]
    stamp = np.full(boxes.shape[0], -1, dtype=np.int64)
    cap = max(1024, 4 * m)
    out_s = np.empty(cap, dtype=np.int64)
    out_w = np.empty(cap, dtype=np.int64)
    state = np.zeros(m, dtype=np.int8)
    shortcut = plain.shape[0] == boxes.shape[0]
    with_exact = exact.shape[0] == m
    no_exact = np.empty(0, dtype=np.float64)
    count = 0
    kept = 0
    for s in range(m):
        x0, y0, x1, y1 = seg[s, 0], seg[s, 1], seg[s, 2], seg[s, 3]
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy)
        if length != length:
            continue  # NaN: no box to look up
        ex = exact[s] if with_exact else no_exact
        first = kept  # this segment's pairs start here
        # A wall that crosses or touches the segment with an end on an exact corner point
        # (GEO-6: its obstacle is judged on the exact corner line): looked for first, in
        # the cells around those points, so the walk can stop at the first plain crossing.
        corner = (
            shortcut
            and with_exact
            and _corner_wall(
                x0,
                y0,
                x1,
                y1,
                ex,
                gx0,
                gy0,
                cell,
                nx,
                ny,
                start,
                cwalls,
                coords,
                eligible,
                band,
                ctol,
            )
        )
        crossed = False  # a plain wall crosses it beyond the dead band
        clean = True  # every pair kept is such a crossing (``listing``)
        k = pieces(length, piece_px, max_pieces)
        for q in range(k):
            if crossed:
                break
            lx, ly, hx, hy = piece_box(seg[s], q, k, qtol)
            ix0, ix1 = _cell(lx, gx0, cell, nx), _cell(hx, gx0, cell, nx)
            iy0, iy1 = _cell(ly, gy0, cell, ny), _cell(hy, gy0, cell, ny)
            for iy in range(iy0, iy1 + 1):
                if crossed:
                    break
                for ix in range(ix0, ix1 + 1):
                    if crossed:
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
                        count += 1
                        if not keep_all:
                            if not eligible[w]:
                                continue
                            if with_only:  # the obstacles' walls only, or all others
                                member = comp[w] == only[s, 0] or comp[w] == only[s, 1]
                                if member != only_inside:
                                    continue
                            if not _keep(x0, y0, x1, y1, coords[w], band):
                                continue
                            if shortcut and not corner:
                                strict = plain[w] and _strict(x0, y0, x1, y1, coords[w], band)
                                if listing:
                                    clean = clean and strict
                                elif strict:
                                    crossed = True  # blocked for good: stop looking
                                    break
                        out_s, out_w = append_pair(out_s, out_w, kept, s, w)
                        kept += 1
        if crossed:
            state[s] = 1  # blocked whatever else it meets: drop its pairs
            kept = first
        elif listing and shortcut and not corner and clean:
            state[s] = 2  # its pairs are exactly what blocks it
    return out_s[:kept], out_w[:kept], count, state


def search(
    index: WallIndex,
    seg: FloatArray,
    eligible: NDArray[np.bool_],
    piece_px: float,
    max_pieces: int,
    keep_all: bool = False,
    plain: NDArray[np.bool_] | None = None,
    corners: FloatArray | None = None,
    listing: bool = False,
    only: tuple[NDArray[np.int64], NDArray[np.int64], bool] | None = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp], int, NDArray[np.int8]]:
    """Candidate pairs that can matter, and how many candidate pairs there were.

    Parameters
    ----------
    index : WallIndex
        At least one wall.
    seg : ndarray of shape (m, 4)
        Traced segments in px.
    eligible : ndarray of shape (n,), bool
        Walls that restrict the sense and are in the wall mask.
    piece_px, max_pieces
        ``trace.QUERY_PIECE_PX`` and ``trace.MAX_QUERY_PIECES``.
    keep_all : bool
        Return every candidate pair (``eligible`` and the crossing filter unused).
    plain : ndarray of shape (n,), bool, optional
        Walls that block any segment they properly cross, whatever else it meets: eligible,
        ``normal`` for the sense, both ways, as tall as any band (the caller decides). None
        of this applies to a segment where a wall crossing or touching it has an end on one
        of its ``corners`` (GEO-6's corner sentence may judge that wall again).
        Without ``listing`` (bulk tracing), a segment such a wall crosses beyond the dead
        band is blocked for good (``state`` 1): the walk along it stops there, and its pairs
        are neither returned nor counted beyond that point.
    corners : ndarray of shape (m, 4), optional
        The segments' exact corner points (GEO-6), with ``plain``.
    listing : bool
        The blockers are listed: a segment whose every pair is such a crossing is settled
        (``state`` 2): it is blocked by exactly those walls (none: clear).
    only : (ndarray (n,), ndarray (m, 2), bool), optional
        Each wall's obstacle (``junctions.wall_components``), each segment's two obstacles
        and whether to keep only their walls (``True``) or only the others: the pairs the
        exact tests would set aside for ``trace``'s ``_only`` are not returned (they are
        counted).

    Returns
    -------
    si, wi : ndarray of int
        (segment, wall) pairs, eligible, crossing or touching (module docstring), by segment
        (every candidate pair with ``keep_all``).
    count : int
        Every candidate pair (the pairs of ``trace.candidate_pairs``), eligible or not.
    state : ndarray of shape (m,), int8
        0: the exact tests decide; 1: blocked for good, no pairs returned; 2: settled, its
        pairs are its blockers (all 0 without ``plain``).
    """
    grid = index.wall_grid()
    si, wi, count, state = _search(
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
        np.ascontiguousarray(eligible, dtype=np.bool_),
        float(piece_px),
        int(max_pieces),
        QUERY_TOL_PX,
        TOUCH_TOL_PX,
        keep_all,
        np.ascontiguousarray(plain if plain is not None else np.empty(0), dtype=np.bool_),
        np.ascontiguousarray(
            corners if corners is not None else np.empty((0, 4)), dtype=np.float64
        ),
        4 * QUERY_TOL_PX,
        listing,
        np.ascontiguousarray(only[0] if only else np.empty(0), dtype=np.int64),
        np.ascontiguousarray(only[1] if only else np.empty((0, 2)), dtype=np.int64),
        bool(only[2]) if only else False,
    )
    return si.astype(np.intp), wi.astype(np.intp), int(count), state


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
    """``trace._slab`` with a dead band, or a corner of ``box`` near an exact point ``ex``.

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
def _nmin(a: float, b: float) -> float:  # pragma: no cover - compiled
    """``np.minimum`` of two floats (NaN if either is)."""
    if a != a or b != b:
        return math.nan
    return a if a < b else b


@njit(cache=True, nogil=True)
def _nmax(a: float, b: float) -> float:  # pragma: no cover - compiled
    """``np.maximum`` of two floats (NaN if either is)."""
    if a != a or b != b:
        return math.nan
    return a if a > b else b


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
    """``trace._creature_hits``'s exact test of one (segment, space) pair.

    In the same arithmetic: the exact segment ``ex`` when a corner of the space lies on one
    of its points (GEO-6), the slab test (``trace._slab``) and, with a band and a span,
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
            t_lo, t_hi = _nmin(t1, t2), _nmax(t1, t2)
        else:
            t_lo, t_hi = -math.inf, math.inf
            inside = inside and pp > lo_a and pp < hi_a
        t_enter = _nmax(t_enter, t_lo)
        t_exit = _nmin(t_exit, t_hi)
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
            lo = _nmax(lo, root)
        if c1 < 0:
            hi = _nmin(hi, root)
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
            ix0, ix1 = _cell(lx, gx0, cell, nx), _cell(hx, gx0, cell, nx)
            iy0, iy1 = _cell(ly, gy0, cell, ny), _cell(hy, gy0, cell, ny)
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

    ``trace._creature_hits``' answer in the same arithmetic (``_crosses_space``), found by
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


@njit(cache=True, nogil=True)
def _exact_tests(
    seg: NDArray[np.float64],
    origins: NDArray[np.float64],
    si: NDArray[np.int64],
    wi: NDArray[np.int64],
    code: NDArray[np.int8],
    coords: NDArray[np.float64],
    direction: NDArray[np.int8],
    threshold: NDArray[np.float64],
    px_per_unit: float,
    bands: NDArray[np.float64],
    bottom: NDArray[np.float64],
    top: NDArray[np.float64],
    low_mode: int,
    low_ok: NDArray[np.bool_],
    edge_blocks: bool,
    comps: NDArray[np.int64],
    only_mode: int,
    only: NDArray[np.int64],
    corners: NDArray[np.float64],
    corner_comp: NDArray[np.int64],
    on_line: float,
    query_tol: float,
) -> tuple[NDArray[Any], ...]:  # pragma: no cover - compiled
    """``trace._classify``'s per-pair tests, pair by pair, in the same arithmetic.

    Empty ``threshold`` / ``bands`` / ``corners``: none. ``low_mode``: 0 no low obstacles,
    1 every wall, 2 per wall (``low_ok``). ``only_mode``: 0 every wall, 1 only the
    obstacles ``only`` (m, 2), 2 every wall but them. Fills ``corner_comp`` in place.
    Returns ``active, proper, collinear, ev_a, ev_b, partial`` (bool) and ``s_a, s_b``
    (int8), ``proj_a, proj_b, proj_lo, proj_hi`` (float), each of shape (p,).
    """
    p = si.shape[0]
    active = np.zeros(p, dtype=np.bool_)
    proper = np.zeros(p, dtype=np.bool_)
    collinear = np.zeros(p, dtype=np.bool_)
    ev_a = np.zeros(p, dtype=np.bool_)
    ev_b = np.zeros(p, dtype=np.bool_)
    partial = np.zeros(p, dtype=np.bool_)
    s_a_out = np.zeros(p, dtype=np.int8)
    s_b_out = np.zeros(p, dtype=np.int8)
    proj_a_out = np.empty(p, dtype=np.float64)
    proj_b_out = np.empty(p, dtype=np.float64)
    proj_lo_out = np.empty(p, dtype=np.float64)
    proj_hi_out = np.empty(p, dtype=np.float64)
    with_thr = threshold.shape[0] > 0
    with_bands = bands.shape[0] > 0
    with_corners = corners.shape[0] > 0
    for k in range(p):
        s, w = si[k], wi[k]
        p0x, p0y = seg[s, 0], seg[s, 1]
        qx, qy = seg[s, 2], seg[s, 3]
        dx, dy = qx - p0x, qy - p0y
        ax, ay, bx, by = coords[w, 0], coords[w, 1], coords[w, 2], coords[w, 3]
        ex, ey = bx - ax, by - ay
        len_d = math.hypot(dx, dy)
        len_e = math.hypot(ex, ey)
        safe_d = len_d if len_d > 0 else 1.0
        safe_e = len_e if len_e > 0 else 1.0
        s_a = _sign((dx * (ay - p0y) - dy * (ax - p0x)) / safe_d, on_line)
        s_b = _sign((dx * (by - p0y) - dy * (bx - p0x)) / safe_d, on_line)
        s_p = _sign((ex * (p0y - ay) - ey * (p0x - ax)) / safe_e, on_line)
        s_q = _sign((ex * (qy - ay) - ey * (qx - ax)) / safe_e, on_line)
        s_a_out[k], s_b_out[k] = s_a, s_b
        degenerate = len_d <= on_line or len_e <= on_line
        # GEO-3: one-way walls block only sources on their blocking side.
        ox, oy = origins[s, 0], origins[s, 1]
        side = (ay - oy) * (bx - ox) - (ax - ox) * (by - oy)
        way = direction[w]
        on = way == 0 or (way == 1 and side > 0) or (way == 2 and side < 0)
        c = code[k]
        if with_thr and c >= 3:  # GEO-4: proximity / distance thresholds
            t_units = threshold[w]
            if t_units == t_units and t_units > 0:
                # trace._point_segment_distance, operation for operation.
                denom_e = ex * ex + ey * ey
                apx, apy = ox - ax, oy - ay
                t = (apx * ex + apy * ey) / denom_e if denom_e > 0 else 0.0
                t = _nmin(_nmax(t, 0.0), 1.0)
                dist_units = math.hypot(ox - (ax + ex * t), oy - (ay + ey * t)) / px_per_unit
                if c == 3 and dist_units < t_units:
                    on = False
                if c == 4 and dist_units > t_units:
                    on = False
        on = on and not degenerate
        if only_mode != 0:
            member = comps[w] == only[s, 0] or comps[w] == only[s, 1]
            on = on and (member if only_mode == 1 else not member)
        denom = dx * ey - dy * ex
        t_cross = ((ax - p0x) * ey - (ay - p0y) * ex) / denom if denom != 0 else 0.0
        part = False
        if with_bands:  # GEO-5, GEO-5a: the band at the crossing (bands.band_at, meets)
            tc = _nmin(_nmax(t_cross, 0.0), 1.0)
            b0, b1, h0, h1 = bands[s, 0], bands[s, 1], bands[s, 2], bands[s, 3]
            low = b0 + tc * (b1 - b0)
            high = _nmax(h0 + tc * (h1 - h0), low)
            thin = b0 == h0 and b1 == h1
            lo_w, hi_w = bottom[w], top[w]
            thick = (not thin) and low < hi_w and lo_w < high and lo_w < hi_w
            covers = (thin and lo_w <= low and low < hi_w) or (
                thick and lo_w <= low and high <= hi_w
            )
            partly = thick and not covers
            ok = partly and (low_mode == 1 or (low_mode == 2 and low_ok[w]))
            on = on and (covers or ok)
            part = ok and on
        partial[k] = part
        active[k] = on
        crosses = on and s_a * s_b < 0 and s_p * s_q < 0
        pa = ((ax - p0x) * dx + (ay - p0y) * dy) / safe_d
        pb = ((bx - p0x) * dx + (by - p0y) * dy) / safe_d
        plo, phi = _nmin(pa, pb), _nmax(pa, pb)
        proj_a_out[k], proj_b_out[k], proj_lo_out[k], proj_hi_out[k] = pa, pb, plo, phi
        overlap = _nmin(phi, len_d) - _nmax(plo, 0.0)
        along = on and s_a == 0 and s_b == 0 and overlap > on_line
        collinear[k] = along
        if edge_blocks and along:  # SF-COV-1: running along a wall blocks
            crosses = True
        proper[k] = crosses
        inside_a = pa > on_line and pa < len_d - on_line
        inside_b = pb > on_line and pb < len_d - on_line
        ev_a[k] = on and s_a == 0 and s_b != 0 and inside_a
        ev_b[k] = on and s_b == 0 and s_a != 0 and inside_b
        if with_corners:  # GEO-6: walls with an end on the exact corner, crossing or touching
            touching = crosses or along or ev_a[k] or ev_b[k] or (on and (s_a == 0 or s_b == 0))
            if touching:
                for cc in range(2):
                    cx, cy = corners[s, 2 * cc], corners[s, 2 * cc + 1]
                    at_a = abs(ax - cx) <= query_tol and abs(ay - cy) <= query_tol
                    at_b = abs(bx - cx) <= query_tol and abs(by - cy) <= query_tol
                    if at_a or at_b:
                        corner_comp[s, cc] = comps[w]
    return (
        active,
        proper,
        collinear,
        ev_a,
        ev_b,
        partial,
        s_a_out,
        s_b_out,
        proj_a_out,
        proj_b_out,
        proj_lo_out,
        proj_hi_out,
    )


def exact_tests(
    index: WallIndex,
    seg: FloatArray,
    origins: FloatArray,
    pairs: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.int8]],
    *,
    threshold: FloatArray | None,
    bands: FloatArray | None,
    low_obstacles: bool | NDArray[np.bool_],
    edge_blocks: bool,
    comps: NDArray[np.int64] | None,
    only: tuple[NDArray[np.int64], bool] | None,
    corners: FloatArray | None,
    corner_comp: NDArray[np.int64] | None,
) -> tuple[NDArray[Any], ...]:
    """``trace._classify``'s per-pair exact tests (GEO-1..6), compiled, in one call.

    Parameters
    ----------
    index : WallIndex
    seg : ndarray of shape (m, 4)
        Segments in px.
    origins : ndarray of shape (m, 2)
        Each segment's source point in px (GEO-3 one-way walls, GEO-4 thresholds).
    pairs : (si, wi, code)
        The candidate pairs (p,) and each pair's wall restriction code for the sense.
    threshold : ndarray of shape (n,) or None
        The sense's proximity / distance thresholds in grid units (NaN: none).
    bands : ndarray of shape (m, 4) or None
        The segments' bands in grid units (``service.geometry.bands``).
    low_obstacles : bool or ndarray of shape (n,), bool
        Which walls block where they cover only part of the band (GEO-5a).
    edge_blocks : bool
        SF-COV-1: running along a wall blocks.
    comps : ndarray of shape (n,) or None
        ``junctions.wall_components``, needed with ``only`` or ``corners``.
    only : (ndarray (m, 2), bool) or None
        Obstacles per segment, and whether to test only their walls or all others.
    corners, corner_comp : ndarray of shape (m, 4) and (m, 2), or None
        The exact corner points; filled in place with the obstacle of a wall ending on one
        of them that crosses or touches the segment (GEO-6).

    Returns
    -------
    tuple of 12 ndarrays of shape (p,)
        As ``trace._classify``: ``active, proper, collinear, ev_a, ev_b, partial, s_a, s_b,
        proj_a, proj_b, proj_lo, proj_hi``. O(p).
    """
    si, wi, code = pairs
    no_float = np.empty(0, dtype=np.float64)
    no_int = np.empty(0, dtype=np.int64)
    if isinstance(low_obstacles, bool | np.bool_):
        low_mode, low_ok = int(bool(low_obstacles)), np.empty(0, dtype=np.bool_)
    else:
        low_mode, low_ok = 2, np.ascontiguousarray(low_obstacles, dtype=np.bool_)
    only_mode = 0 if only is None else (1 if only[1] else 2)
    fill = corner_comp if corner_comp is not None else np.empty((0, 2), dtype=np.int64)
    return _exact_tests(  # type: ignore[no-any-return]
        np.ascontiguousarray(seg, dtype=np.float64),
        np.ascontiguousarray(origins, dtype=np.float64),
        si.astype(np.int64, copy=False),
        wi.astype(np.int64, copy=False),
        code.astype(np.int8, copy=False),
        index.coords,
        index.direction,
        no_float if threshold is None else threshold,
        index.px_per_unit,
        np.empty((0, 4)) if bands is None else np.ascontiguousarray(bands, dtype=np.float64),
        index.bottom,
        index.top,
        low_mode,
        low_ok,
        edge_blocks,
        no_int if comps is None else comps,
        only_mode,
        np.empty((0, 2), dtype=np.int64) if only is None else only[0],
        np.empty((0, 4)) if corners is None else np.ascontiguousarray(corners, dtype=np.float64),
        fill,
        ON_LINE_TOL_PX,
        QUERY_TOL_PX,
    )


@njit(cache=True, nogil=True)
def sampled_density(
    seg: NDArray[np.float64],
    t: NDArray[np.float64],
    x0: float,
    y0: float,
    cell_w: float,
    cell_h: float,
    cover: NDArray[np.int64],
) -> NDArray[np.float64]:  # pragma: no cover - compiled
    """Mean walls per cell at the points ``t`` (s,) along each segment (m, 4), shape (m,).

    ``trace.estimate_tests``' samples, read from ``density.WallDensity.walls_at``'s cells
    in the same arithmetic; the counts are integers, so their mean is the numpy one. O(m s).
    """
    m, k = seg.shape[0], t.shape[0]
    n = cover.shape[0] - 1
    out = np.empty(m, dtype=np.float64)
    for i in range(m):
        total = 0.0
        dx, dy = seg[i, 2] - seg[i, 0], seg[i, 3] - seg[i, 1]
        for q in range(k):
            fx = math.floor(((seg[i, 0] + dx * t[q]) - x0) / cell_w)
            fy = math.floor(((seg[i, 1] + dy * t[q]) - y0) / cell_h)
            fx = 0.0 if fx != fx else fx  # NaN (never from finite points): the first cell
            fy = 0.0 if fy != fy else fy
            ci = int(_nmin(_nmax(fx, 0.0), float(n)))
            cj = int(_nmin(_nmax(fy, 0.0), float(n)))
            total += cover[ci, cj]
        out[i] = total / k
    return out
