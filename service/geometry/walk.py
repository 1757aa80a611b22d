"""The grid walk: the walls near each traced segment, from the walls' uniform grid.

Every segment is looked up in pieces of about ``QUERY_PIECE_PX`` (at most
``MAX_QUERY_PIECES`` of them, so a diagonal across a huge map stays a few hundred look-ups);
each piece's box, grown by ``QUERY_TOL_PX``, is walked over the cells of
``WallIndex.wall_grid()`` and meets the walls whose bounding boxes it meets (the closed box
test of an ``STRtree`` envelope query). ``search`` counts those (segment, wall) pairs (what
the work budget spends) and returns only the ones that can matter to GEO-1..6: eligible walls
(a restriction for the sense, in the wall mask) that cross the segment or touch its line,
decided with the dead band ``TOUCH_TOL_PX``, ten times the exact tests' ``ON_LINE_TOL_PX``,
so a pair dropped here is one the exact tests (``geometry.wall_tests``) would drop too.

A segment that a plain wall (normal, two-way, full height) crosses beyond that band, with no
wall ending on its exact corners, is settled here: blocked in bulk tracing (the walk stops
there), and, when the blockers are listed, blocked by exactly those walls if they are all it
meets. A normal two-way wall of limited height blocks so a segment whose band
(``service.geometry.bands``) its height range covers where it crosses it (GEO-5a: as a full
wall does there), decided by the exact tests' own arithmetic (``compiled.crossing_t``,
``compiled.band_verdict``); in bulk tracing two such crossings of two-way limited walls
block too (GEO-4). What each wall settles is the caller's ``settles`` (``settling``).
``candidate_pairs`` is the walk without filter; ``estimate_tests`` foresees its count from
the walls' density (the work budget's estimate, ``service.engine.budget``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from service.engine.density import WallDensity
from service.engine.tolerances import QUERY_TOL_PX, TOUCH_TOL_PX
from service.engine.walls import FloatArray, WallIndex
from service.geometry.compiled import (
    append_pair,
    band_verdict,
    cell_of,
    crossing_t,
    fmax,
    fmin,
    njit,
    piece_box,
    pieces,
    sign,
)

#: Longest piece (px) in which a traced segment is looked up in the wall grid.
QUERY_PIECE_PX = 256.0

#: Most pieces one segment is cut into (65,536 px at full resolution): a line across a
#: 20,000,000-px map stays 256 lookups (longer pieces, more candidates for the exact
#: tests), not 110,000, which took seconds and gigabytes per request.
MAX_QUERY_PIECES = 256

#: Points sampled along a segment to estimate its cost (``estimate_tests``).
ESTIMATE_SAMPLES = 8

#: What a wall settles of a segment it properly crosses beyond the dead band (``search``'s
#: ``settles``): nothing (the exact tests decide); it blocks (a plain wall); it blocks where
#: its height range covers the segment's band there (GEO-5a); one of two such crossings
#: that block (a two-way limited wall, GEO-4), at full height or where it covers the band.
OPEN, BLOCKS, BLOCKS_WHERE_COVERED, ONE_OF_TWO, ONE_OF_TWO_WHERE_COVERED = range(5)


@njit(cache=True, nogil=True)
def _crossing(
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    c: NDArray[np.float64],
    band: float,
    lengths: tuple[float, float],
) -> int:  # pragma: no cover - compiled
    """How the wall ``c`` meets the segment, loosely (see module): 0, 1 or 2.

    ``lengths``: the segment's and the wall's, px (``math.hypot``, computed once each).

    0: it surely misses it (drop the pair); 1: it crosses it or touches its line (an end on
    it: a junction or a collinear run, GEO-6), or either is degenerate (the exact tests
    decide); 2: it properly crosses it with every end beyond ``band``, so the exact tests
    (whose tolerance is smaller) find the same proper crossing.
    """
    dx, dy = x1 - x0, y1 - y0
    ax, ay, bx, by = c[0], c[1], c[2], c[3]
    ex, ey = bx - ax, by - ay
    len_d, len_e = lengths
    if len_d <= 2 * band or len_e <= 2 * band:
        return 1  # degenerate: the exact tests decide (they set it aside)
    s_a = sign((dx * (ay - y0) - dy * (ax - x0)) / len_d, band)
    s_b = sign((dx * (by - y0) - dy * (bx - x0)) / len_d, band)
    if s_a * s_b > 0:
        return 0
    if s_a == 0 or s_b == 0:
        return 1  # an end on the segment's line: junction or collinear (GEO-6)
    s_p = sign((ex * (y0 - ay) - ey * (x0 - ax)) / len_e, band)
    s_q = sign((ex * (y1 - ay) - ey * (x1 - ax)) / len_e, band)
    if s_p * s_q > 0:
        return 0
    return 2 if s_p * s_q < 0 else 1


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
    seg: NDArray[np.float64],
    ex: NDArray[np.float64],
    grid: tuple[float, float, float, int, int],
    start: NDArray[np.int64],
    cwalls: NDArray[np.int64],
    coords: NDArray[np.float64],
    eligible: NDArray[np.bool_],
    band: float,
    ctol: float,
    lengths: tuple[float, NDArray[np.float64]],
) -> bool:  # pragma: no cover - compiled
    """Whether a wall ends on an exact corner point and crosses or touches the segment.

    An eligible wall with an end within ``ctol`` of a point of ``ex`` (x, y pairs) that
    ``_crossing`` keeps, looked up in the cells around those points. ``grid``: ``x0, y0,
    cell, nx, ny`` of the wall grid.
    """
    gx0, gy0, cell, nx, ny = grid
    x0, y0, x1, y1 = seg[0], seg[1], seg[2], seg[3]
    for e in range(0, ex.shape[0], 2):
        px, py = ex[e], ex[e + 1]
        if not (px == px and py == py):
            continue
        ix0, ix1 = cell_of(px - ctol, gx0, cell, nx), cell_of(px + ctol, gx0, cell, nx)
        iy0, iy1 = cell_of(py - ctol, gy0, cell, ny), cell_of(py + ctol, gy0, cell, ny)
        for iy in range(iy0, iy1 + 1):
            for ix in range(ix0, ix1 + 1):
                c = iy * nx + ix
                for j in range(start[c], start[c + 1]):
                    w = cwalls[j]
                    if eligible[w] and _near_end(coords[w], ex, ctol):
                        at = (lengths[0], lengths[1][w])
                        if _crossing(x0, y0, x1, y1, coords[w], band, at) > 0:
                            return True
    return False


@njit(cache=True, nogil=True)
def _verdict(
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    c: NDArray[np.float64],
    member: int,
    band: float,
    strict: bool,
    heights: tuple[NDArray[np.float64], float, float],
    lengths: tuple[float, float],
) -> int:  # pragma: no cover - compiled
    """What the walk does with a candidate wall ``c`` of the segment ``x0, y0, x1, y1``.

    ``member`` is ``_member``'s; ``heights``: the segment's band (4,) and the wall's
    ``bottom, top`` (the test of a wall that settles where it covers the band). Returns -1:
    drop it (not a candidate, or it meets nothing); when ``strict`` is asked and it crosses
    beyond the band, what it settles: ``BLOCKS`` or ``ONE_OF_TWO``; else 0: keep it.
    """
    if member < 0:
        return -1
    kind = _crossing(x0, y0, x1, y1, c, band, lengths)
    if kind == 0:
        return -1
    if not strict or kind != 2 or member == OPEN:
        return OPEN
    if member == BLOCKS_WHERE_COVERED or member == ONE_OF_TWO_WHERE_COVERED:
        if heights[0].shape[0] == 0:
            return OPEN  # no band known: nothing is covered
        t = crossing_t(x0, y0, x1, y1, c)
        if not band_verdict(t, heights[0], heights[1], heights[2], False)[0]:
            return OPEN  # a part of the band passes over or under it there
    return BLOCKS if member <= BLOCKS_WHERE_COVERED else ONE_OF_TWO


@njit(cache=True, nogil=True)
def _member(
    w: int,
    eligible: NDArray[np.bool_],
    settles: NDArray[np.int8],
    comp: NDArray[np.int64],
    obstacles: tuple[int, int],
    only: int,
) -> int:  # pragma: no cover - compiled
    """Whether wall ``w`` is a candidate: -1 no, else its ``settles`` code (``OPEN``: none).

    Not eligible, or (``only`` 1) outside or (``only`` 2) among the segment's two
    ``obstacles``: not a candidate.
    """
    if not eligible[w]:
        return -1
    if only != 0:  # the obstacles' walls only (1), or all others (2)
        inside = comp[w] == obstacles[0] or comp[w] == obstacles[1]
        if inside != (only == 1):
            return -1
    return settles[w] if settles.shape[0] > 0 else OPEN


@njit(cache=True, nogil=True)
def _search(
    seg: NDArray[np.float64],
    grid: tuple[float, float, float, int, int],
    start: NDArray[np.int64],
    cwalls: NDArray[np.int64],
    boxes: NDArray[np.float64],
    coords: NDArray[np.float64],
    eligible: NDArray[np.bool_],
    walk: tuple[float, int, float, float],
    keep_all: bool,
    settles: NDArray[np.int8],
    exact: NDArray[np.float64],
    listing: bool,
    comp: NDArray[np.int64],
    only: NDArray[np.int64],
    only_inside: bool,
    bands: NDArray[np.float64],
    heights: tuple[NDArray[np.float64], NDArray[np.float64]],
    wall_len: NDArray[np.float64],
) -> tuple[
    NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int8]
]:  # pragma: no cover - compiled
    """``search``'s walk; ``walk``: ``piece_px, max_pieces, qtol, band``; counts per segment.

    ``settles`` (n,) int8 or empty (none settles); ``bands`` (m, 4) and the walls'
    ``heights`` (bottom, top), for the walls that settle where they cover the band;
    ``wall_len`` (n,) the walls' lengths (``wall_lengths``).
    """
    gx0, gy0, cell, nx, ny = grid
    piece_px, max_pieces, qtol, band = walk
    m = seg.shape[0]
    with_only = only.shape[0] == m and comp.shape[0] == boxes.shape[0]
    stamp = np.full(boxes.shape[0], -1, dtype=np.int64)
    cap = max(1024, 4 * m)
    out_s = np.empty(cap, dtype=np.int64)
    out_w = np.empty(cap, dtype=np.int64)
    state = np.zeros(m, dtype=np.int8)
    shortcut = settles.shape[0] == boxes.shape[0]
    with_exact = exact.shape[0] == m
    no_exact = np.empty(0, dtype=np.float64)
    lows, highs = heights
    count = np.zeros(m, dtype=np.int64)  # candidate pairs per segment
    kept = 0
    which = (1 if only_inside else 2) if with_only else 0
    for s in range(m):
        x0, y0, x1, y1 = seg[s, 0], seg[s, 1], seg[s, 2], seg[s, 3]
        length = math.hypot(x1 - x0, y1 - y0)
        if length != length:
            continue  # NaN: no box to look up
        ex = exact[s] if with_exact else no_exact
        seg_band = bands[s] if bands.shape[0] == m else no_exact
        pair = (only[s, 0], only[s, 1]) if with_only else (-1, -1)
        first = kept  # this segment's pairs start here
        # A wall that crosses or touches the segment with an end on an exact corner point
        # (GEO-6: its obstacle is judged on the exact corner line): looked for first, in
        # the cells around those points, so the walk can stop at the first plain crossing.
        corner = (
            shortcut
            and with_exact
            and _corner_wall(
                seg[s],
                ex,
                grid,
                start,
                cwalls,
                coords,
                eligible,
                band,
                4 * qtol,
                (length, wall_len),
            )
        )
        strict = shortcut and not corner and not keep_all
        crossed = False  # blocked for good by the crossings beyond the dead band
        clean = True  # every pair kept blocks it (``listing``)
        limited = 0  # ``ONE_OF_TWO`` crossings (GEO-4), in bulk tracing
        k = pieces(length, piece_px, max_pieces)
        for q in range(k):
            if crossed:
                break
            lx, ly, hx, hy = piece_box(seg[s], q, k, qtol)
            ix0, ix1 = cell_of(lx, gx0, cell, nx), cell_of(hx, gx0, cell, nx)
            iy0, iy1 = cell_of(ly, gy0, cell, ny), cell_of(hy, gy0, cell, ny)
            for iy in range(iy0, iy1 + 1):
                for c in range(iy * nx + ix0, iy * nx + ix1 + 1):
                    if crossed:
                        break
                    for j in range(start[c], start[c + 1]):
                        w = cwalls[j]
                        if stamp[w] == s or boxes[w, 0] > hx or boxes[w, 2] < lx:
                            continue
                        if boxes[w, 1] > hy or boxes[w, 3] < ly:
                            continue
                        stamp[w] = s
                        count[s] += 1
                        v = 0
                        if not keep_all:
                            member = _member(w, eligible, settles, comp, pair, which)
                            tall = member == BLOCKS_WHERE_COVERED
                            tall = tall or member == ONE_OF_TWO_WHERE_COVERED
                            lo_w, hi_w = (lows[w], highs[w]) if tall else (0.0, 0.0)
                            at = (seg_band, lo_w, hi_w)
                            lens = (length, wall_len[w])
                            v = _verdict(x0, y0, x1, y1, coords[w], member, band, strict, at, lens)
                        if v < 0:
                            continue
                        if strict and listing:
                            clean = clean and v == BLOCKS
                        elif v == BLOCKS or (v == ONE_OF_TWO and limited > 0):
                            crossed = True  # blocked for good: stop looking
                            break
                        elif v == ONE_OF_TWO:
                            limited += 1
                        out_s, out_w = append_pair(out_s, out_w, kept, s, w)
                        kept += 1
        if crossed:
            state[s] = 1  # blocked whatever else it meets: drop its pairs
            kept = first
        elif listing and strict and clean:
            state[s] = 2  # its pairs are exactly what blocks it
    return out_s[:kept], out_w[:kept], count, state


def settling(
    index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None, heights: bool
) -> NDArray[np.int8]:
    """What each wall settles of a line it properly crosses (``search``'s ``settles``).

    Two-way walls only (GEO-3 asks for the line's origin): a ``normal`` one blocks
    (``BLOCKS``; with ``heights``, the lines' bands known, one of limited height where
    it covers the band, ``BLOCKS_WHERE_COVERED``, GEO-5a); a ``limited`` one is one of
    two crossings that block (``ONE_OF_TWO``, or ``..._WHERE_COVERED``, GEO-4).
    Without ``heights`` every wall is infinitely tall (GEO-5). Outside ``wall_mask``,
    ``OPEN``. Shape (n,) int8, O(n).
    """
    restriction = index.restriction[sense]
    two_way = index.direction == 0
    if wall_mask is not None:
        two_way = two_way & wall_mask
    full = np.isinf(index.bottom) & np.isinf(index.top)
    if not heights:
        full = np.ones(index.size, dtype=bool)
    out = np.full(index.size, OPEN, dtype=np.int8)
    for code, full_code, covered_code in (
        (2, BLOCKS, BLOCKS_WHERE_COVERED),
        (1, ONE_OF_TWO, ONE_OF_TWO_WHERE_COVERED),
    ):
        these = two_way & (restriction == code)
        out[these & full] = full_code
        out[these & ~full] = covered_code
    return out


def search(
    index: WallIndex,
    seg: FloatArray,
    eligible: NDArray[np.bool_],
    keep_all: bool = False,
    settles: NDArray[np.int8] | NDArray[np.bool_] | None = None,
    corners: FloatArray | None = None,
    listing: bool = False,
    only: tuple[NDArray[np.int64], NDArray[np.int64], bool] | None = None,
    bands: FloatArray | None = None,
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
    keep_all : bool
        Return every candidate pair (``eligible`` and the crossing filter unused).
    settles : ndarray of shape (n,), int8 or bool, optional
        What each eligible wall settles of a segment it properly crosses beyond the dead
        band, whatever else the segment meets (the caller decides; ``settling``):
        ``OPEN`` nothing, ``BLOCKS`` (a bool mask's ``True``) or ``BLOCKS_WHERE_COVERED``
        (it blocks; the second where its height range covers the segment's band there),
        ``ONE_OF_TWO`` or ``ONE_OF_TWO_WHERE_COVERED`` (two such crossings block, GEO-4;
        counted in bulk tracing only). None of this applies to a segment where a wall
        crossing or touching it has an end on one of its ``corners`` (GEO-6's corner
        sentence may judge that wall again).
        Without ``listing`` (bulk tracing), a segment so settled is blocked for good
        (``state`` 1): the walk along it stops there, and its pairs are neither returned
        nor counted beyond that point.
    corners : ndarray of shape (m, 4), optional
        The segments' exact corner points (GEO-6), with ``settles``.
    listing : bool
        The blockers are listed: a segment whose every pair is a ``BLOCKS`` crossing is
        settled (``state`` 2): it is blocked by exactly those walls (none: clear).
    only : (ndarray (n,), ndarray (m, 2), bool), optional
        Each wall's obstacle (``obstacles.wall_components``), each segment's two obstacles
        and whether to keep only their walls (``True``) or only the others: the pairs the
        exact tests would set aside for ``trace``'s ``_only`` are not returned (they are
        counted).
    bands : ndarray of shape (m, 4), optional
        The segments' bands (``bands.as_bands``, grid units), for the ``..._WHERE_COVERED``
        walls (without them, those settle nothing).

    Returns
    -------
    si, wi : ndarray of int
        (segment, wall) pairs, eligible, crossing or touching (module docstring), by segment
        (every candidate pair with ``keep_all``).
    count : int
        Every candidate pair (the pairs of ``candidate_pairs``), eligible or not.
    state : ndarray of shape (m,), int8
        0: the exact tests decide; 1: blocked for good, no pairs returned; 2: settled, its
        pairs are its blockers (all 0 without ``settles``).
    """
    si, wi, count, state = _walk(
        index, seg, eligible, keep_all, settles, corners, listing, only, bands
    )
    return si.astype(np.intp), wi.astype(np.intp), int(count.sum()), state


def _walk(
    index: WallIndex,
    seg: FloatArray,
    eligible: NDArray[np.bool_],
    keep_all: bool,
    settles: NDArray[np.int8] | NDArray[np.bool_] | None,
    corners: FloatArray | None,
    listing: bool,
    only: tuple[NDArray[np.int64], NDArray[np.int64], bool] | None,
    bands: FloatArray | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int8]]:
    """``_search`` over ``index``'s wall grid (see ``search``), counts per segment."""
    grid = index.wall_grid()
    codes = np.empty(0, dtype=np.int8) if settles is None else settles.astype(np.int8, copy=False)
    return _search(  # type: ignore[no-any-return]
        np.ascontiguousarray(seg, dtype=np.float64),
        (grid.x0, grid.y0, grid.cell, grid.nx, grid.ny),
        grid.start,
        grid.walls,
        grid.boxes,
        index.coords,
        np.ascontiguousarray(eligible, dtype=np.bool_),
        (QUERY_PIECE_PX, MAX_QUERY_PIECES, QUERY_TOL_PX, TOUCH_TOL_PX),
        keep_all,
        np.ascontiguousarray(codes),
        np.ascontiguousarray(
            corners if corners is not None else np.empty((0, 4)), dtype=np.float64
        ),
        listing,
        np.ascontiguousarray(only[0] if only else np.empty(0), dtype=np.int64),
        np.ascontiguousarray(only[1] if only else np.empty((0, 2)), dtype=np.int64),
        bool(only[2]) if only else False,
        np.ascontiguousarray(bands if bands is not None else np.empty((0, 4)), dtype=np.float64),
        (index.bottom, index.top),
        wall_lengths(index),
    )


@njit(cache=True, nogil=True)
def _lengths(coords: NDArray[np.float64]) -> NDArray[np.float64]:  # pragma: no cover
    """Each wall's length (n,) px, ``math.hypot`` as the walk's segments'."""
    out = np.empty(coords.shape[0], dtype=np.float64)
    for w in range(coords.shape[0]):
        out[w] = math.hypot(coords[w, 2] - coords[w, 0], coords[w, 3] - coords[w, 1])
    return out


def wall_lengths(index: WallIndex) -> NDArray[np.float64]:
    """The walls' lengths (n,) px, computed once per index (``memo``)."""
    found = index.memo.get("wall_lengths")
    if found is None:
        found = index.memo["wall_lengths"] = _lengths(np.ascontiguousarray(index.coords))
    return found  # type: ignore[no-any-return]


def first_crossings(
    index: WallIndex,
    seg: FloatArray,
    settles: NDArray[np.int8] | NDArray[np.bool_],
    bands: FloatArray | None = None,
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """The segments (m, 4) px that the walls ``settles`` (n,) block beyond the dead band.

    The walk of ``search`` in bulk with ``settles`` (a bool mask: the walls that block
    outright) and the segments' ``bands`` (m, 4): each segment stops where it is blocked
    for good. Returns whether each segment is so blocked (m,) and the candidate pairs
    looked at per segment (m,) (up to there). O(pairs looked at).
    """
    _, _, count, state = _walk(index, seg, settles > 0, False, settles, None, False, None, bands)
    return state == 1, count


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

    ``estimate_tests``' samples, read from ``density.WallDensity.walls_at``'s cells
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
            ci = int(fmin(fmax(fx, 0.0), float(n)))
            cj = int(fmin(fmax(fy, 0.0), float(n)))
            total += cover[ci, cj]
        out[i] = total / k
    return out


def candidate_pairs(index: WallIndex, seg: FloatArray) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(segment, wall) index pairs whose envelopes meet, grown by ``QUERY_TOL_PX``.

    Every candidate within a hair of each segment, without filter (``search`` with
    ``keep_all``), sorted by segment then wall: the pairs the work budget counts. Long
    segments are looked up in pieces of ``QUERY_PIECE_PX`` (at most ``MAX_QUERY_PIECES``),
    so a diagonal across a large map does not make every wall a candidate.
    """
    if not index.size or not len(seg):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    everything = np.ones(index.size, dtype=bool)
    si, wi, _, _ = search(index, seg, everything, True)
    order = np.lexsort((wi, si))
    return si[order], wi[order]


def estimate_tests(density: WallDensity, seg: FloatArray) -> float:
    """About how many line-wall tests tracing ``seg`` (m, 4) px would cost.

    Each segment is looked up in pieces of ``QUERY_PIECE_PX``; a piece meets about the walls
    covering its cell (``WallDensity``), sampled at ``ESTIMATE_SAMPLES`` points along the
    segment (``sampled_density``). O(m), no walk.
    """
    seg = np.asarray(seg, dtype=np.float64).reshape(-1, 4)
    if not len(seg):
        return 0.0
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    count = np.clip(np.ceil(length / QUERY_PIECE_PX), 1, MAX_QUERY_PIECES)
    t = (np.arange(ESTIMATE_SAMPLES) + 0.5) / ESTIMATE_SAMPLES
    mean = sampled_density(
        np.ascontiguousarray(seg),
        t,
        density.x0,
        density.y0,
        density.cell_w,
        density.cell_h,
        density.cover,
    )
    return float((mean * count + 1).sum())
