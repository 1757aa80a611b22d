"""Tracing many segments at once against walls and creatures (GEO-1..7).

See ``service.geometry`` for the crossing rule (GEO-6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.budget import WorkBudget
from service.engine.density import WallDensity
from service.engine.tolerances import ON_LINE_TOL_PX, QUERY_TOL_PX
from service.engine.walls import FloatArray, WallIndex, index_walls
from service.geometry import kernel
from service.geometry.junctions import collinear_runs, junctions
from service.geometry.kernel import kernel_enabled
from service.model import Wall

#: Segments traced against the walls at once (memory bound for matrices).
SEGMENT_BATCH = 2048

#: Segment x creature cells computed at once when testing creatures (memory bound).
CHUNK_CELLS = 2_000_000

#: Longest piece (px) in which a traced segment is looked up in the wall tree.
QUERY_PIECE_PX = 256.0

#: Most pieces one segment is cut into (65,536 px at full resolution): a line across a
#: 20,000,000-px map stays 256 lookups (longer pieces, more candidates for the exact
#: tests), not 110,000, which took seconds and gigabytes per request.
MAX_QUERY_PIECES = 256

#: Points sampled along a segment to estimate its cost (``estimate_tests``).
ESTIMATE_SAMPLES = 8


@dataclass
class TraceResult:
    """What blocked each of m traced segments.

    Attributes
    ----------
    segments : ndarray of shape (m, 4)
        The traced segments ``x0, y0, x1, y1`` in px.
    wall_blocked : ndarray of shape (m,), bool
        Blocked by walls (GEO-1..6).
    creature_blocked : ndarray of shape (m,), bool
        Passes through the interior of a creature's space (GEO-7).
    wall_blockers : list of list of int
        Per segment, indices (into ``WallIndex.ids``) of the walls that block it, sorted.
    creature_blockers : list of list of str
        Per segment, ids of the creatures whose space it crosses.
    """

    segments: FloatArray
    wall_blocked: NDArray[np.bool_]
    creature_blocked: NDArray[np.bool_]
    wall_blockers: list[list[int]]
    creature_blockers: list[list[str]] = field(default_factory=list)

    @property
    def blocked(self) -> NDArray[np.bool_]:
        """Blocked by anything, shape (m,)."""
        return self.wall_blocked | self.creature_blocked


def _sign(values: FloatArray) -> NDArray[np.int8]:
    """Sign with a dead band of ``ON_LINE_TOL_PX`` (values are signed distances in px)."""
    out = np.zeros(values.shape, dtype=np.int8)
    out[values > ON_LINE_TOL_PX] = 1
    out[values < -ON_LINE_TOL_PX] = -1
    return out


def _point_segment_distance(points: FloatArray, seg: FloatArray) -> FloatArray:
    """Distance in px from points (k, 2) to segments (k, 4), row by row."""
    a = seg[:, 0:2]
    ab = seg[:, 2:4] - a
    ap = points - a
    denom = np.einsum("ij,ij->i", ab, ab)
    t = np.where(denom > 0, np.einsum("ij,ij->i", ap, ab) / np.where(denom > 0, denom, 1), 0.0)
    t = np.clip(t, 0.0, 1.0)
    nearest = a + ab * t[:, None]
    return np.hypot(*(points - nearest).T)


def trace(
    index: WallIndex,
    segments: FloatArray | Sequence[Sequence[float]],
    sense: str = "move",
    *,
    origins: FloatArray | None = None,
    elevations: FloatArray | None = None,
    creature_boxes: FloatArray | None = None,
    creature_ids: Sequence[str] = (),
    creature_mask: NDArray[np.bool_] | None = None,
    wall_mask: NDArray[np.bool_] | None = None,
    edge_blocks: bool = False,
    with_blockers: bool = True,
    budget: WorkBudget | None = None,
) -> TraceResult:
    """Trace m segments against the walls (and optionally creatures) in one vectorised pass.

    Parameters
    ----------
    index : WallIndex
        Walls of the scene.
    segments : array_like of shape (m, 4)
        ``x0, y0, x1, y1`` in px; the segment runs from its first point.
    sense : {"move", "sight", "light", "sound"}
        Which wall restriction applies (GEO-1): ``move`` for line of effect and cover.
    origins : ndarray of shape (m, 2), optional
        Source point of each segment (the observer, light or attacker) for one-way walls
        (GEO-3) and proximity/distance thresholds (GEO-4); default the segment's first point.
    elevations : ndarray of shape (m, 2), optional
        Elevation in grid units at the segment's two ends; walls with a height range block
        only where the segment's elevation at the crossing is inside it (GEO-5).
    creature_boxes : ndarray of shape (k, 4), optional
        Creature spaces ``x0, y0, x1, y1`` in px (GEO-7); a segment is blocked by one when it
        passes through the open interior of the space.
    creature_ids : sequence of str, length k
    creature_mask : ndarray of shape (m, k), bool, optional
        Which creatures count for which segment (e.g. not the attacker and target).
    wall_mask : ndarray of shape (n,), bool, optional
        Walls to consider (default all); a ruleset uses it to set aside walls that do not
        apply to this attack (e.g. a low obstacle too far from the target, SF-COV-5).
    edge_blocks : bool
        Starfinder's exception to GEO-6 (SF-COV-1): a segment running along a wall
        (collinear, overlapping it over a positive length) is blocked by it.
    with_blockers : bool
        Also list what blocks each segment (``False`` for bulk work such as matrices: the
        blocker lists stay empty and only the boolean arrays are filled).
    budget : WorkBudget, optional
        Spends one unit per (segment, candidate wall) pair before the exact tests.

    Raises
    ------
    OverBudget
        When ``budget`` runs out (issue 16).

    Returns
    -------
    TraceResult
    """
    seg = np.asarray(segments, dtype=np.float64).reshape(-1, 4)
    m = len(seg)
    wall_blocked = np.zeros(m, dtype=bool)
    wall_blockers: list[list[int]] = [[] for _ in range(m)] if with_blockers else []
    if origins is None:
        origins = seg[:, 0:2]
    # Bounded memory: long segments are looked up in pieces, so trace in batches.
    for lo in range(0, m if index.size else 0, SEGMENT_BATCH):
        hi = min(m, lo + SEGMENT_BATCH)
        part = wall_blockers[lo:hi] if with_blockers else None
        _trace_walls(
            index,
            seg[lo:hi],
            sense,
            origins[lo:hi],
            None if elevations is None else elevations[lo:hi],
            wall_blocked[lo:hi],
            part,
            wall_mask,
            edge_blocks,
            budget,
        )
        if part is not None:
            wall_blockers[lo:hi] = part
    creature_blocked = np.zeros(m, dtype=bool)
    creature_blockers: list[list[str]] = [[] for _ in range(m)] if with_blockers else []
    if creature_boxes is not None and len(creature_boxes) and m:
        boxes = np.asarray(creature_boxes, dtype=np.float64)
        step = max(1, CHUNK_CELLS // len(boxes))
        for lo in range(0, m, step):  # bounded memory: (step, k) arrays at a time
            hits = segments_cross_boxes(seg[lo : lo + step], boxes)
            if creature_mask is not None:
                hits &= creature_mask[lo : lo + step]
            creature_blocked[lo : lo + step] = hits.any(axis=1)
            if with_blockers:
                for i, j in zip(*np.nonzero(hits), strict=True):
                    creature_blockers[lo + i].append(creature_ids[j])
    return TraceResult(seg, wall_blocked, creature_blocked, wall_blockers, creature_blockers)


def estimate_tests(density: WallDensity, seg: FloatArray) -> float:
    """About how many line-wall tests tracing ``seg`` (m, 4) px would cost (issue 16).

    Each segment is looked up in pieces of ``QUERY_PIECE_PX``; a piece meets about the walls
    covering its cell (``WallDensity``), sampled at up to ``ESTIMATE_SAMPLES`` points along
    the segment. O(m), no tree query.
    """
    seg = np.asarray(seg, dtype=np.float64).reshape(-1, 4)
    if not len(seg):
        return 0.0
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    pieces = np.clip(np.ceil(length / QUERY_PIECE_PX), 1, MAX_QUERY_PIECES)
    t = (np.arange(ESTIMATE_SAMPLES) + 0.5) / ESTIMATE_SAMPLES
    xs = seg[:, 0, None] + (seg[:, 2] - seg[:, 0])[:, None] * t
    ys = seg[:, 1, None] + (seg[:, 3] - seg[:, 1])[:, None] * t
    per_piece = density.walls_at(np.column_stack([xs.ravel(), ys.ravel()]))
    mean = per_piece.reshape(len(seg), ESTIMATE_SAMPLES).mean(axis=1)
    return float((mean * pieces + 1).sum())


def candidate_pairs(index: WallIndex, seg: FloatArray) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(segment, wall) index pairs whose envelopes meet, grown by ``QUERY_TOL_PX``.

    Candidates within a hair of each segment: the tolerant tests of ``_trace_walls`` decide,
    so a wall end point lying on the segment up to float error is never missed (GEO-6
    junctions). Long segments are looked up in pieces of ``QUERY_PIECE_PX`` (at most
    ``MAX_QUERY_PIECES`` of them) so
    that a diagonal across a large map does not make every wall a candidate.

    With the compiled kernel (``kernel_enabled()``) the same pairs come from the wall grid,
    sorted by segment then wall.
    """
    if kernel_enabled() and index.size and len(seg):
        everything = np.ones(index.size, dtype=bool)
        si, wi, _ = kernel.search(index, seg, everything, QUERY_PIECE_PX, MAX_QUERY_PIECES, True)
        order = np.lexsort((wi, si))
        return si[order], wi[order]
    m = len(seg)
    d = seg[:, 2:4] - seg[:, 0:2]
    pieces = np.ceil(np.hypot(d[:, 0], d[:, 1]) / QUERY_PIECE_PX)
    pieces = np.clip(pieces, 1, MAX_QUERY_PIECES).astype(np.intp)
    owner = np.repeat(np.arange(m), pieces)
    first = np.cumsum(pieces) - pieces
    q = np.arange(len(owner)) - np.repeat(first, pieces)
    k = pieces[owner].astype(np.float64)
    starts = seg[owner, 0:2] + d[owner] * (q / k)[:, None]
    ends = seg[owner, 0:2] + d[owner] * ((q + 1) / k)[:, None]
    ends[q == pieces[owner] - 1] = seg[owner[q == pieces[owner] - 1], 2:4]
    lo = np.minimum(starts, ends) - QUERY_TOL_PX
    hi = np.maximum(starts, ends) + QUERY_TOL_PX
    # Envelope query (no GEOS predicate): the exact tests in _trace_walls decide.
    boxes = shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1])
    pi, wi = index.tree.query(boxes)
    if len(owner) == m:
        return pi, wi
    pairs = np.unique(owner[pi].astype(np.int64) * index.size + wi)
    return (pairs // index.size).astype(np.intp), (pairs % index.size).astype(np.intp)


def _trace_walls(
    index: WallIndex,
    seg: FloatArray,
    sense: str,
    origins: FloatArray,
    elevations: FloatArray | None,
    wall_blocked: NDArray[np.bool_],
    wall_blockers: list[list[int]] | None,
    wall_mask: NDArray[np.bool_] | None = None,
    edge_blocks: bool = False,
    budget: WorkBudget | None = None,
) -> None:
    """Fill ``wall_blocked``/``wall_blockers`` in place (see ``trace``).

    The compiled kernel (``service.geometry.kernel``, when ``kernel_enabled()``) finds the
    same candidate pairs as ``candidate_pairs``, spends the same count on ``budget``, and
    hands only the pairs that cross or touch to the exact tests; otherwise the numpy
    reference path runs the exact tests on every candidate. Both end in ``_exact_walls``.
    """
    restriction = index.restriction[sense]
    if kernel_enabled():
        eligible = restriction > 0
        if wall_mask is not None:
            eligible &= wall_mask
        si, wi, count = kernel.search(index, seg, eligible, QUERY_PIECE_PX, MAX_QUERY_PIECES)
        if budget is not None:
            budget.spend(count)
        code = restriction[wi]
    else:
        si, wi = candidate_pairs(index, seg)
        if budget is not None:
            budget.spend(len(si))
        code = restriction[wi]
        keep = code > 0
        if wall_mask is not None:
            keep &= wall_mask[wi]
        si, wi, code = si[keep], wi[keep], code[keep]
    if not len(si):
        return
    _exact_walls(
        index,
        seg,
        sense,
        origins,
        elevations,
        wall_blocked,
        wall_blockers,
        edge_blocks,
        si,
        wi,
        code,
    )


def _exact_walls(
    index: WallIndex,
    seg: FloatArray,
    sense: str,
    origins: FloatArray,
    elevations: FloatArray | None,
    wall_blocked: NDArray[np.bool_],
    wall_blockers: list[list[int]] | None,
    edge_blocks: bool,
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    code: NDArray[np.int8],
) -> None:
    """The exact tests (GEO-1..6) on candidate pairs ``(si, wi)`` of eligible walls."""
    p0 = seg[si, 0:2]
    d = seg[si, 2:4] - p0
    a = index.coords[wi, 0:2]
    b = index.coords[wi, 2:4]
    e = b - a
    len_d = np.hypot(d[:, 0], d[:, 1])
    len_e = np.hypot(e[:, 0], e[:, 1])
    safe_d = np.where(len_d > 0, len_d, 1.0)
    safe_e = np.where(len_e > 0, len_e, 1.0)
    # Signed distances (px) of the wall's ends from the segment's line, and of the segment's
    # ends from the wall's line; positive = left of the direction of travel on screen.
    s_a = _sign((d[:, 0] * (a[:, 1] - p0[:, 1]) - d[:, 1] * (a[:, 0] - p0[:, 0])) / safe_d)
    s_b = _sign((d[:, 0] * (b[:, 1] - p0[:, 1]) - d[:, 1] * (b[:, 0] - p0[:, 0])) / safe_d)
    q = seg[si, 2:4]
    s_p = _sign((e[:, 0] * (p0[:, 1] - a[:, 1]) - e[:, 1] * (p0[:, 0] - a[:, 0])) / safe_e)
    s_q = _sign((e[:, 0] * (q[:, 1] - a[:, 1]) - e[:, 1] * (q[:, 0] - a[:, 0])) / safe_e)
    degenerate = (len_d <= ON_LINE_TOL_PX) | (len_e <= ON_LINE_TOL_PX)

    # GEO-3: one-way walls block only sources on their blocking side.
    o = origins[si]
    side = (a[:, 1] - o[:, 1]) * (b[:, 0] - o[:, 0]) - (a[:, 0] - o[:, 0]) * (b[:, 1] - o[:, 1])
    direction = index.direction[wi]
    active = (direction == 0) | ((direction == 1) & (side > 0)) | ((direction == 2) & (side < 0))
    # GEO-4: proximity walls block sources farther than the threshold, distance walls closer.
    thr = index.threshold.get(sense)
    if thr is not None:
        t_units = thr[wi]
        has_thr = ~np.isnan(t_units) & (t_units > 0)  # Foundry: a 0 threshold is none
        if np.any(has_thr & (code >= 3)):
            dist_units = _point_segment_distance(o, index.coords[wi]) / index.px_per_unit
            prox = (code == 3) & has_thr
            dist = (code == 4) & has_thr
            # Foundry compares strictly: at exactly the threshold both kinds block.
            active &= ~(prox & (dist_units < t_units))
            active &= ~(dist & (dist_units > t_units))
    active &= ~degenerate

    # Parameter along the segment where it meets the wall's line, for heights (GEO-5).
    denom = d[:, 0] * e[:, 1] - d[:, 1] * e[:, 0]
    ap = a - p0
    with np.errstate(divide="ignore", invalid="ignore"):
        t_cross = np.where(denom != 0, (ap[:, 0] * e[:, 1] - ap[:, 1] * e[:, 0]) / denom, 0.0)
    if elevations is not None:
        z = elevations[si, 0] + np.clip(t_cross, 0, 1) * (elevations[si, 1] - elevations[si, 0])
        active &= (z >= index.bottom[wi]) & (z <= index.top[wi])

    limited = code == 1  # "limited"; proximity/distance walls that are active block as normal
    proper = active & (s_a * s_b < 0) & (s_p * s_q < 0)
    proj_a = np.einsum("ij,ij->i", a - p0, d) / safe_d
    proj_b = np.einsum("ij,ij->i", b - p0, d) / safe_d
    proj_lo = np.minimum(proj_a, proj_b)
    proj_hi = np.maximum(proj_a, proj_b)
    overlap = np.minimum(proj_hi, len_d) - np.maximum(proj_lo, 0.0)
    collinear = active & (s_a == 0) & (s_b == 0) & (overlap > ON_LINE_TOL_PX)
    if edge_blocks:  # SF-COV-1: running along a wall blocks
        proper |= collinear

    # Wall end points lying on the segment's open interior: junction events (GEO-6).
    inside_a = (proj_a > ON_LINE_TOL_PX) & (proj_a < len_d - ON_LINE_TOL_PX)
    inside_b = (proj_b > ON_LINE_TOL_PX) & (proj_b < len_d - ON_LINE_TOL_PX)
    ev_a = active & (s_a == 0) & (s_b != 0) & inside_a
    ev_b = active & (s_b == 0) & (s_a != 0) & inside_b

    limited_count = np.zeros(len(seg), dtype=np.int64)
    np.add.at(limited_count, si[proper & limited], 1)
    wall_blocked[si[proper & ~limited]] = True
    limited_hits: dict[int, list[int]] = {}
    if wall_blockers is not None:
        for k, ws in _by_segment(si[proper & limited], wi[proper & limited]):
            limited_hits.setdefault(k, []).extend(ws)
        for k, ws in _by_segment(si[proper & ~limited], wi[proper & ~limited]):
            wall_blockers[k].extend(ws)

    if np.any(ev_a) or np.any(ev_b):
        runs = collinear_runs(si[collinear], proj_lo[collinear], proj_hi[collinear])
        junctions(
            si,
            wi,
            a,
            b,
            (ev_a, ev_b),
            (proj_a, proj_b),
            s_a,
            s_b,
            limited,
            runs,
            wall_blocked,
            wall_blockers,
            limited_count,
            limited_hits,
        )
    wall_blocked |= limited_count >= 2  # GEO-4: two or more limited walls block
    if wall_blockers is None:
        return
    for s, hits in limited_hits.items():
        if limited_count[s] >= 2:
            wall_blockers[s].extend(hits)
    for s in np.nonzero(wall_blocked)[0].tolist():
        wall_blockers[s] = sorted(set(wall_blockers[s]))


def _by_segment(si: NDArray[np.intp], wi: NDArray[np.intp]) -> list[tuple[int, list[int]]]:
    """Pairs grouped by segment: ``(segment, walls in their order in wi)``, by segment."""
    if not len(si):
        return []
    order = np.argsort(si, kind="stable")
    s_sorted = si[order]
    first = np.flatnonzero(np.r_[True, s_sorted[1:] != s_sorted[:-1]])
    groups = np.split(wi[order], first[1:])
    return list(zip(s_sorted[first].tolist(), (g.tolist() for g in groups), strict=True))


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
    p = seg[:, None, 0:2]
    d = seg[:, None, 2:4] - seg[:, None, 0:2]
    lo = boxes[None, :, 0:2]
    hi = boxes[None, :, 2:4]
    shape = (len(seg), len(boxes))
    t_enter = np.zeros(shape)
    t_exit = np.ones(shape)
    inside = np.ones(shape, dtype=bool)
    for axis in (0, 1):
        dp = d[..., axis]
        pp = p[..., axis]
        lo_a = lo[..., axis]
        hi_a = hi[..., axis]
        moving = dp != 0
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = (lo_a - pp) / dp
            t2 = (hi_a - pp) / dp
        t_lo = np.where(moving, np.minimum(t1, t2), -np.inf)
        t_hi = np.where(moving, np.maximum(t1, t2), np.inf)
        # A segment parallel to this axis must lie strictly between the box's sides.
        inside &= moving | ((pp > lo_a) & (pp < hi_a))
        t_enter = np.maximum(t_enter, t_lo)
        t_exit = np.minimum(t_exit, t_hi)
    length = np.hypot(d[..., 0], d[..., 1])
    return inside & ((t_exit - t_enter) * length > ON_LINE_TOL_PX)


def crossing_order(
    index: WallIndex, segment: Sequence[float], walls: Sequence[int]
) -> list[tuple[int, float]]:
    """Walls crossed by ``segment``, ordered from its start (for breakthrough, 5E-LOE-4).

    Parameters
    ----------
    index : WallIndex
    segment : sequence of 4 floats
        ``x0, y0, x1, y1`` in px.
    walls : sequence of int
        Indices of walls that block the segment (``TraceResult.wall_blockers``).

    Returns
    -------
    list of (int, float)
        ``(wall index, distance in px from the segment's start)``, nearest first; ties keep
        the wall order of the scene.
    """
    p0 = np.asarray(segment[:2], dtype=np.float64)
    d = np.asarray(segment[2:4], dtype=np.float64) - p0
    out = []
    for w in walls:
        a = index.coords[w, 0:2]
        e = index.coords[w, 2:4] - a
        denom = d[0] * e[1] - d[1] * e[0]
        if denom == 0:  # collinear: the nearest point of the wall along the segment
            t = min(float(np.dot(a - p0, d)), float(np.dot(a + e - p0, d))) / float(np.dot(d, d))
        else:
            ap = a - p0
            t = float((ap[0] * e[1] - ap[1] * e[0]) / denom)
        out.append((int(w), max(t, 0.0) * float(np.hypot(*d))))
    out.sort(key=lambda item: (item[1], item[0]))
    return out


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


def warm_up() -> None:
    """Compile (or load from numba's cache) the measurement kernel now, on a two-wall scene.

    gunicorn calls it in the master before forking (``gunicorn.conf.py``), so no worker's
    first request pays the compilation (about 5 s on a fresh install). Does nothing when the
    kernel is off.
    """
    if not kernel_enabled():
        return
    index = index_walls(
        [Wall("a", (0.0, 0.0, 100.0, 0.0)), Wall("b", (50.0, -50.0, 50.0, 50.0))], 20.0
    )
    trace(index, np.array([[0.0, 10.0, 100.0, -10.0]]))
