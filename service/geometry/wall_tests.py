"""The exact tests of (segment, wall) pairs, GEO-1..6, compiled.

``exact_tests`` decides, for each candidate pair the walk kept (``geometry.walk``), whether
the wall is active for the segment (GEO-1 restriction, GEO-3 one-way side, GEO-4 proximity
and distance thresholds, GEO-5 heights at the crossing, GEO-5a low obstacles), whether it
properly crosses it, runs along it (SF-COV-1's edge rule), or ends on its open interior (a
junction event for ``geometry.junctions``), and where along the segment its ends project.
Where an exact corner line is traced, it also notes the obstacle of a wall ending on the
line's exact corner (GEO-6's corner sentence, ``trace``'s re-check).

Distances are px, heights grid units; the dead band is ``ON_LINE_TOL_PX``. The numpy oracle
of these tests is ``tests/reference/trace.py``; Hypothesis properties hold them equal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.tolerances import ON_LINE_TOL_PX, QUERY_TOL_PX
from service.engine.walls import FloatArray, WallIndex
from service.geometry.compiled import band_verdict, crossing_t, fmax, fmin, njit, sign
from service.geometry.junctions import (
    RunEvents,
    collinear_runs,
    end_junctions,
    junctions,
)
from service.geometry.obstacles import wall_components


@njit(cache=True, nogil=True)
def _one_way_active(
    ox: float, oy: float, c: NDArray[np.float64], way: int
) -> bool:  # pragma: no cover - compiled
    """GEO-3: a one-way wall (``way`` 1 left, 2 right) blocks only sources on its side."""
    ax, ay, bx, by = c[0], c[1], c[2], c[3]
    side = (ay - oy) * (bx - ox) - (ax - ox) * (by - oy)
    return way == 0 or (way == 1 and side > 0) or (way == 2 and side < 0)


@njit(cache=True, nogil=True)
def _threshold_active(
    ox: float, oy: float, c: NDArray[np.float64], code: int, t_units: float, px_per_unit: float
) -> bool:  # pragma: no cover - compiled
    """GEO-4: whether a proximity (``code`` 3) or distance (4) wall is active for a source.

    A proximity wall blocks sources farther than its threshold, a distance wall sources
    closer; Foundry compares strictly, and a 0 threshold is none.
    """
    if code < 3 or not (t_units == t_units and t_units > 0):
        return True
    ax, ay = c[0], c[1]
    ex, ey = c[2] - ax, c[3] - ay
    denom_e = ex * ex + ey * ey
    t = ((ox - ax) * ex + (oy - ay) * ey) / denom_e if denom_e > 0 else 0.0
    t = fmin(fmax(t, 0.0), 1.0)
    dist_units = math.hypot(ox - (ax + ex * t), oy - (ay + ey * t)) / px_per_unit
    if code == 3 and dist_units < t_units:
        return False
    return not (code == 4 and dist_units > t_units)


@njit(cache=True, nogil=True)
def _corner_obstacle(
    c: NDArray[np.float64], corners: NDArray[np.float64], comp: int, out: NDArray[np.int64]
) -> None:  # pragma: no cover - compiled
    """GEO-6: note ``comp`` in ``out`` (2,) for each exact corner point a wall end is on."""
    for cc in range(2):
        cx, cy = corners[2 * cc], corners[2 * cc + 1]
        at_a = abs(c[0] - cx) <= QUERY_TOL_PX and abs(c[1] - cy) <= QUERY_TOL_PX
        at_b = abs(c[2] - cx) <= QUERY_TOL_PX and abs(c[3] - cy) <= QUERY_TOL_PX
        if at_a or at_b:
            out[cc] = comp


@njit(cache=True, nogil=True)
def _sides(
    seg: NDArray[np.float64], c: NDArray[np.float64], on_line: float
) -> tuple[int, int, int, int, float, float]:  # pragma: no cover - compiled
    """Sides of the wall's ends from the segment and of the segment's ends from the wall.

    ``s_a, s_b, s_p, s_q`` (1 left, -1 right, 0 on the line within ``on_line`` px; screen
    frame) and the lengths of the segment and the wall, px.
    """
    p0x, p0y, qx, qy = seg[0], seg[1], seg[2], seg[3]
    dx, dy = qx - p0x, qy - p0y
    ax, ay, bx, by = c[0], c[1], c[2], c[3]
    ex, ey = bx - ax, by - ay
    len_d = math.hypot(dx, dy)
    len_e = math.hypot(ex, ey)
    safe_d = len_d if len_d > 0 else 1.0
    safe_e = len_e if len_e > 0 else 1.0
    s_a = sign((dx * (ay - p0y) - dy * (ax - p0x)) / safe_d, on_line)
    s_b = sign((dx * (by - p0y) - dy * (bx - p0x)) / safe_d, on_line)
    s_p = sign((ex * (p0y - ay) - ey * (p0x - ax)) / safe_e, on_line)
    s_q = sign((ex * (qy - ay) - ey * (qx - ax)) / safe_e, on_line)
    return s_a, s_b, s_p, s_q, len_d, len_e


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
    heights: tuple[NDArray[np.float64], NDArray[np.float64]],
    low_mode: int,
    low_ok: NDArray[np.bool_],
    edge_blocks: bool,
    comps: NDArray[np.int64],
    only_mode: int,
    only: NDArray[np.int64],
    corners: NDArray[np.float64],
    corner_comp: NDArray[np.int64],
    on_line: float,
) -> tuple[NDArray[Any], ...]:  # pragma: no cover - compiled
    """``exact_tests``' pair loop. Empty ``threshold`` / ``bands`` / ``corners``: none.

    ``heights``: the walls' ``bottom, top``. ``low_mode``: 0 no low obstacles, 1 every
    wall, 2 per wall (``low_ok``). ``only_mode``: 0 every wall, 1 only the obstacles
    ``only`` (m, 2), 2 every wall but them. Fills ``corner_comp`` in place.
    """
    p = si.shape[0]
    flags = np.zeros((6, p), dtype=np.bool_)  # active, proper, collinear, ev_a, ev_b, partial
    sides = np.zeros((2, p), dtype=np.int8)
    proj = np.empty((4, p), dtype=np.float64)  # proj_a, proj_b, proj_lo, proj_hi
    with_thr = threshold.shape[0] > 0
    for k in range(p):
        s, w = si[k], wi[k]
        c = coords[w]
        s_a, s_b, s_p, s_q, len_d, len_e = _sides(seg[s], c, on_line)
        sides[0, k], sides[1, k] = s_a, s_b
        ox, oy = origins[s, 0], origins[s, 1]
        on = _one_way_active(ox, oy, c, direction[w])
        if with_thr:
            on = on and _threshold_active(ox, oy, c, code[k], threshold[w], px_per_unit)
        on = on and not (len_d <= on_line or len_e <= on_line)  # degenerate
        if only_mode != 0:
            member = comps[w] == only[s, 0] or comps[w] == only[s, 1]
            on = on and (member if only_mode == 1 else not member)
        p0x, p0y = seg[s, 0], seg[s, 1]
        dx, dy = seg[s, 2] - p0x, seg[s, 3] - p0y
        if bands.shape[0] > 0:  # GEO-5, GEO-5a: the band at the crossing
            t_cross = crossing_t(p0x, p0y, seg[s, 2], seg[s, 3], c)
            ok = low_mode == 1 or (low_mode == 2 and low_ok[w])
            counts, part = band_verdict(t_cross, bands[s], heights[0][w], heights[1][w], ok)
            on = on and counts
            flags[5, k] = part and on
        flags[0, k] = on
        crosses = on and s_a * s_b < 0 and s_p * s_q < 0
        safe_d = len_d if len_d > 0 else 1.0
        pa = ((c[0] - p0x) * dx + (c[1] - p0y) * dy) / safe_d
        pb = ((c[2] - p0x) * dx + (c[3] - p0y) * dy) / safe_d
        proj[0, k], proj[1, k], proj[2, k], proj[3, k] = pa, pb, fmin(pa, pb), fmax(pa, pb)
        overlap = fmin(proj[3, k], len_d) - fmax(proj[2, k], 0.0)
        along = on and s_a == 0 and s_b == 0 and overlap > on_line
        flags[2, k] = along
        flags[1, k] = crosses or (edge_blocks and along)  # SF-COV-1: running along blocks
        flags[3, k] = on and s_a == 0 and s_b != 0 and on_line < pa < len_d - on_line
        flags[4, k] = on and s_b == 0 and s_a != 0 and on_line < pb < len_d - on_line
        touching = crosses or along or flags[3, k] or flags[4, k] or (on and s_a * s_b == 0)
        if corners.shape[0] > 0 and touching:  # GEO-6: walls ending on the exact corner
            _corner_obstacle(c, corners[s], comps[w], corner_comp[s])
    return (
        flags[0],
        flags[1],
        flags[2],
        flags[3],
        flags[4],
        flags[5],
        sides[0],
        sides[1],
        proj[0],
        proj[1],
        proj[2],
        proj[3],
    )


@dataclass(frozen=True)
class PairTests:
    """The exact tests of p candidate (segment, wall) pairs, each array of shape (p,).

    ``active`` (the wall counts for the segment), ``proper`` (crosses it, or runs along it
    where SF-COV-1's edge rule applies), ``collinear`` (runs along it), ``ev_a`` / ``ev_b``
    (the wall's first / second end lies on its open interior: a junction event),
    ``partial`` (blocks only as a low obstacle, GEO-5a): bool; ``s_a`` / ``s_b``: int8 sides
    of the wall's ends from the segment; ``proj_a``, ``proj_b``, ``proj_lo``, ``proj_hi``:
    px along the segment of the wall's ends, and their min and max.
    """

    active: NDArray[np.bool_]
    proper: NDArray[np.bool_]
    collinear: NDArray[np.bool_]
    ev_a: NDArray[np.bool_]
    ev_b: NDArray[np.bool_]
    partial: NDArray[np.bool_]
    s_a: NDArray[np.int8]
    s_b: NDArray[np.int8]
    proj_a: FloatArray
    proj_b: FloatArray
    proj_lo: FloatArray
    proj_hi: FloatArray


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
) -> PairTests:
    """The per-pair exact tests (GEO-1..6) of candidate pairs, compiled, in one call.

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
        ``obstacles.wall_components``, needed with ``only`` or ``corners``.
    only : (ndarray (m, 2), bool) or None
        Obstacles per segment, and whether to test only their walls or all others.
    corners, corner_comp : ndarray of shape (m, 4) and (m, 2), or None
        The exact corner points; filled in place with the obstacle of a wall ending on one
        of them that crosses or touches the segment (GEO-6).

    Returns
    -------
    PairTests
        O(p).
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
    return PairTests(
        *_exact_tests(
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
            (index.bottom, index.top),
            low_mode,
            low_ok,
            edge_blocks,
            no_int if comps is None else comps,
            only_mode,
            np.empty((0, 2), dtype=np.int64) if only is None else only[0],
            np.empty((0, 4))
            if corners is None
            else np.ascontiguousarray(corners, dtype=np.float64),
            fill,
            ON_LINE_TOL_PX,
        )
    )


@dataclass(frozen=True)
class Extras:
    """What the exact tests need beyond GEO-1..6 (see ``trace``'s parameters).

    ``low_obstacles``: walls that block where they cover only part of the band;
    ``corners``: exact corner points (m, 4) of the batch; ``low_blockers``: per segment of
    the batch, filled with the walls that block as low obstacles; ``corner_comp`` (m, 2):
    filled with the obstacle (``wall_components``) of a wall that ends on the segment's
    exact start / end corner and crosses or touches it (-1: none); ``inward`` (m, 4): for
    segments that are exact corner lines, the directions from each end into its token's
    space (GEO-6 at the line's own ends, ``end_junctions``); ``only``: obstacles (m, 2)
    and whether to trace only their walls (``True``) or every other wall.
    """

    low_obstacles: bool | NDArray[np.bool_] = True
    corners: FloatArray | None = None
    low_blockers: list[list[int]] | None = None
    corner_comp: NDArray[np.int64] | None = None
    inward: FloatArray | None = None
    only: tuple[NDArray[np.int64], bool] | None = None


@dataclass
class Verdicts:
    """What blocks m segments, filled by ``decide``: the arrays of ``trace.TraceResult``.

    ``blocked`` (m,) bool; ``blockers``: per segment, the walls that block it (``None``
    when not listed); ``limited_count`` (m,): limited crossings (GEO-4: two block);
    ``limited_hits``: per segment, the limited walls crossed (listing only).
    """

    blocked: NDArray[np.bool_]
    blockers: list[list[int]] | None
    limited_count: NDArray[np.int64] = field(init=False)
    limited_hits: dict[int, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """No limited crossing counted yet."""
        self.limited_count = np.zeros(len(self.blocked), dtype=np.int64)

    def name(self, rows: NDArray[np.intp], walls: NDArray[np.intp]) -> None:
        """Add the (segment, wall) pairs ``rows, walls`` to the blockers, when listed."""
        if self.blockers is not None:
            for k, ws in by_segment(rows, walls):
                self.blockers[k].extend(ws)

    def name_limited(self, rows: NDArray[np.intp], walls: NDArray[np.intp]) -> None:
        """Add the limited walls crossed, when listed."""
        if self.blockers is not None:
            for k, ws in by_segment(rows, walls):
                self.limited_hits.setdefault(k, []).extend(ws)


def by_segment(si: NDArray[np.intp], wi: NDArray[np.intp]) -> list[tuple[int, list[int]]]:
    """Pairs grouped by segment: ``(segment, walls in their order in wi)``, by segment."""
    groups: dict[int, list[int]] = {}
    for s, w in zip(si.tolist(), wi.tolist(), strict=True):
        groups.setdefault(s, []).append(w)
    return sorted(groups.items())


def decide(
    index: WallIndex,
    seg: FloatArray,
    sense: str,
    origins: FloatArray,
    elevations: FloatArray | None,
    out: Verdicts,
    edge_blocks: bool,
    pairs: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.int8]],
    extras: Extras,
) -> None:
    """The exact tests (GEO-1..6) on candidate pairs ``(si, wi, code)`` of eligible walls.

    ``elevations`` are bands (m, 4) (``service.geometry.bands``) or ``None``. Fills ``out``:
    proper crossings block (GEO-1), two limited ones block (GEO-4), walls meeting on the
    segment block when they separate it (GEO-6, ``junctions``), and at an exact corner
    line's own ends too (``end_junctions``). O(p log p) in the p pairs.
    """
    si, wi, code = pairs
    with_comps = extras.only is not None or extras.corner_comp is not None
    tests = exact_tests(
        index,
        seg,
        origins,
        pairs,
        threshold=index.threshold.get(sense),
        bands=elevations,
        low_obstacles=extras.low_obstacles,
        edge_blocks=edge_blocks,
        comps=wall_components(index) if with_comps else None,
        only=extras.only,
        corners=extras.corners if extras.corner_comp is not None else None,
        corner_comp=extras.corner_comp,
    )
    limited = code == 1  # "limited"; proximity/distance walls that are active block as normal
    events = bool(np.any(tests.ev_a) or np.any(tests.ev_b))
    runs = {}
    if extras.inward is not None or events:
        c = tests.collinear
        runs = collinear_runs(si[c], tests.proj_lo[c], tests.proj_hi[c])
    if extras.inward is not None:
        along = RunEvents(
            runs,
            (tests.ev_a & ~limited, tests.ev_b & ~limited),
            (tests.proj_a, tests.proj_b),
            (tests.s_b, tests.s_a),
            si,
        )
        ends_blocked, rows = end_junctions(
            seg,
            si,
            wi,
            index.coords,
            tests.active & ~limited,
            extras.inward,
            along,
            out.blockers is not None,
        )
        out.blocked[ends_blocked] = True
        out.name(rows[:, 0], rows[:, 1])
    crossing = tests.proper & limited
    np.add.at(out.limited_count, si[crossing], 1)
    out.blocked[si[tests.proper & ~limited]] = True
    out.name_limited(si[crossing], wi[crossing])
    out.name(si[tests.proper & ~limited], wi[tests.proper & ~limited])
    if events:
        _junction_rule(index, seg, pairs, tests, runs, out)
    out.blocked |= out.limited_count >= 2  # GEO-4: two or more limited walls block
    if out.blockers is not None:
        _listed(si, wi, tests.partial, out, extras.low_blockers)


def _junction_rule(
    index: WallIndex,
    seg: FloatArray,
    pairs: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.int8]],
    tests: PairTests,
    runs: dict[int, list[tuple[float, float]]],
    out: Verdicts,
) -> None:
    """GEO-6 where walls meet on the segments (``junctions``), into ``out``."""
    si, wi, code = pairs
    blocked, groups, limited_rows = junctions(
        index,
        len(seg),
        si,
        wi,
        (tests.ev_a, tests.ev_b),
        (tests.proj_a, tests.proj_b),
        (tests.s_a, tests.s_b),
        code == 1,
        runs,
        out.blockers is not None,
    )
    out.blocked[blocked[:, 0]] = True
    np.add.at(out.limited_count, groups, 1)
    out.name(blocked[:, 0], blocked[:, 1])
    out.name_limited(limited_rows[:, 0], limited_rows[:, 1])


def _listed(
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    partial: NDArray[np.bool_],
    out: Verdicts,
    low_blockers: list[list[int]] | None,
) -> None:
    """Blocker lists sorted and without repeats; the low obstacles among them (GEO-5a)."""
    assert out.blockers is not None
    for s, hits in out.limited_hits.items():
        if out.limited_count[s] >= 2:
            out.blockers[s].extend(hits)
    for s in np.nonzero(out.blocked)[0].tolist():
        out.blockers[s] = sorted(set(out.blockers[s]))
    if low_blockers is not None and np.any(partial):
        low_pairs = set(zip(si[partial].tolist(), wi[partial].tolist(), strict=True))
        for s in {k for k, _ in low_pairs}:
            if out.blocked[s]:
                low_blockers[s] = [w for w in out.blockers[s] if (s, w) in low_pairs]
