"""Tracing many segments at once against walls and creatures (GEO-1..7).

See ``service.geometry`` for the crossing rule (GEO-6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.budget import WorkBudget
from service.engine.density import WallDensity, wall_density
from service.engine.tolerances import ON_LINE_TOL_PX, QUERY_TOL_PX
from service.engine.walls import FloatArray, WallGrid, WallIndex, build_grid, index_walls
from service.geometry import kernel
from service.geometry.bands import as_bands, band_at, meets, overlaps_between
from service.geometry.junctions import (
    RunEvents,
    collinear_runs,
    end_junctions,
    end_junctions_compiled,
    junctions,
    junctions_compiled,
    wall_components,
)
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
    low_blockers : list of list of int
        Per segment, the walls of ``wall_blockers`` that block it as low obstacles: they
        cover only part of the segment's band at the crossing (GEO-5a).
    corner_cleared : ndarray of shape (m,), bool, optional
        Segments whose inset line walls block but that GEO-6's corner sentence clears (the
        obstacle at the corner does not block the exact corner line). Such a line does not
        show that a line of effect exists between the inset spaces: callers that infer line
        of effect from a clear line must not count it (``service.geometry.measure``).
    """

    segments: FloatArray
    wall_blocked: NDArray[np.bool_]
    creature_blocked: NDArray[np.bool_]
    wall_blockers: list[list[int]]
    creature_blockers: list[list[str]] = field(default_factory=list)
    low_blockers: list[list[int]] = field(default_factory=list)
    corner_cleared: NDArray[np.bool_] | None = None

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
    creature_mask_rows: NDArray[np.intp] | None = None,
    creature_spans: FloatArray | None = None,
    creature_grid: WallGrid | None = None,
    wall_mask: NDArray[np.bool_] | None = None,
    low_obstacles: bool | NDArray[np.bool_] = True,
    corners: FloatArray | None = None,
    edge_blocks: bool = False,
    with_blockers: bool = True,
    budget: WorkBudget | None = None,
    creatures_where_clear: bool = False,
    _inward: FloatArray | None = None,
    _only: tuple[NDArray[np.int64], bool] | None = None,
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
    elevations : ndarray of shape (m, 2) or (m, 4), optional
        Each segment's band in grid units (``service.geometry.bands``): ``(m, 2)`` the
        elevations of its two ends (a band of no thickness), ``(m, 4)`` ``bottom0, bottom1,
        top0, top1``. At a crossing, a wall whose half-open height range ``[bottom, top)``
        covers the whole band blocks; one that covers part of it is a low obstacle for that
        segment (``low_obstacles``); one that misses it does nothing (GEO-5, GEO-5a).
        ``None``: every wall is infinitely tall.
    creature_boxes : ndarray of shape (k, 4), optional
        Creature spaces ``x0, y0, x1, y1`` in px (GEO-7); a segment is blocked by one when it
        passes through the open interior of the space.
    creature_ids : sequence of str, length k
    creature_mask : ndarray of shape (m, k), bool, optional
        Which creatures count for which segment (e.g. not the attacker and target).
    creature_mask_rows : ndarray of shape (m,), int, optional
        With it, ``creature_mask`` has shape (g, k) and segment i reads its row
        ``creature_mask_rows[i]`` (one row per pair, not per line).
    creature_spans : ndarray of shape (k, 2), optional
        Each creature's vertical extent ``[bottom, top)`` in grid units (GEO-5a); with
        ``elevations``, a creature blocks only where it overlaps the band inside its space
        (GEO-7). ``None``: creatures are infinitely tall.
    creature_grid : WallGrid, optional
        ``build_grid(creature_boxes)``, kept by the caller (``BuiltScene.creatures``).
    wall_mask : ndarray of shape (n,), bool, optional
        Walls to consider (default all); a ruleset uses it to set aside walls that do not
        apply to this attack (e.g. a low obstacle too far from the target, SF-COV-5).
    low_obstacles : bool or ndarray of shape (n,), bool
        Whether a wall covering only part of a segment's band blocks it (as a low obstacle,
        GEO-5a): ``True`` (cover lines), ``False`` (line of effect or sight, light), or per
        wall (SF-COV-5 per pair).
    corners : ndarray of shape (m, 4), optional
        The exact corner points ``x0, y0, x1, y1`` px that each segment's ends were inset
        from (GEO-6). A wall with an end, or a creature's space with a corner, on one of
        them blocks the segment only if it blocks the exact corner line: the inset only
        ever removes false blocks. A segment blocked where such a wall crosses or touches
        it is judged on the exact corner line, on which the walls meeting at a corner block
        it when they separate the token's space from the line's direction
        (``end_junctions``).
    edge_blocks : bool
        Starfinder's exception to GEO-6 (SF-COV-1): a segment running along a wall
        (collinear, overlapping it over a positive length) is blocked by it.
    with_blockers : bool
        Also list what blocks each segment (``False`` for bulk work such as matrices: the
        blocker lists stay empty and only the boolean arrays are filled).
    budget : WorkBudget, optional
        Spends one unit per (segment, candidate wall) pair before the exact tests.
    creatures_where_clear : bool
        Test the creatures only on the segments that walls leave clear
        (``creature_blocked`` reads ``False`` on the others): for rulings that read a
        creature only where no wall blocks (cover in bulk: 5E-COV-6, SF-COV-6, PV-COV-3).

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
    bands = as_bands(elevations, m)
    exact = None if corners is None else np.asarray(corners, dtype=np.float64).reshape(-1, 4)
    corner_comp = None
    if exact is not None and not np.any(exact != seg):
        exact = None  # no inset: the segments are the exact corner lines
    if exact is not None and index.size:
        corner_comp = np.full((m, 2), -1, dtype=np.int64)
    inward = None if _inward is None else np.asarray(_inward, dtype=np.float64)
    wall_blocked = np.zeros(m, dtype=bool)
    wall_blockers: list[list[int]] = [[] for _ in range(m)] if with_blockers else []
    low_blockers: list[list[int]] = [[] for _ in range(m)] if with_blockers else []
    if origins is None:
        origins = seg[:, 0:2]
    # Bounded memory: long segments are looked up in pieces, so trace in batches.
    for lo in range(0, m if index.size else 0, SEGMENT_BATCH):
        hi = min(m, lo + SEGMENT_BATCH)
        part = wall_blockers[lo:hi] if with_blockers else None
        low_part = low_blockers[lo:hi] if with_blockers else None
        _trace_walls(
            index,
            seg[lo:hi],
            sense,
            origins[lo:hi],
            None if bands is None else bands[lo:hi],
            wall_blocked[lo:hi],
            part,
            wall_mask,
            edge_blocks,
            budget,
            _Heights(
                low_obstacles,
                None if exact is None else exact[lo:hi],
                low_part,
                None if corner_comp is None else corner_comp[lo:hi],
                None if inward is None else inward[lo:hi],
                None if _only is None else (_only[0][lo:hi], _only[1]),
            ),
        )
        if part is not None and low_part is not None:
            wall_blockers[lo:hi] = part
            low_blockers[lo:hi] = low_part
    corner_cleared = None
    if corner_comp is not None and exact is not None:
        # GEO-6: where an obstacle (walls joined end to end) has a wall ending on the line's
        # exact corner, its walls are judged on the exact corner line and the other walls on
        # the inset line: the inset only ever removes false blocks, never adds one.
        again = np.flatnonzero((corner_comp >= 0).any(axis=1) & wall_blocked)
        if len(again):
            comps = corner_comp[again]
            common: dict[str, Any] = {
                "elevations": None if bands is None else bands[again],
                "wall_mask": wall_mask,
                "low_obstacles": low_obstacles,
                "edge_blocks": edge_blocks,
                "with_blockers": False,
                "budget": budget,
            }
            judged = np.zeros(len(again), dtype=bool)
            # Lines whose obstacles hold every wall (one dungeon of walls joined end to end)
            # meet no other wall: they are not traced with the others.
            sizes = np.bincount(wall_components(index), minlength=index.size)
            first, second = comps[:, 0], comps[:, 1]
            held = np.where(first >= 0, sizes[np.maximum(first, 0)], 0)
            held += np.where((second >= 0) & (second != first), sizes[np.maximum(second, 0)], 0)
            others = np.flatnonzero(held < index.size)
            if len(others):
                if common["elevations"] is not None:
                    common["elevations"] = bands[again[others]]  # type: ignore[index]
                judged[others] = trace(
                    index,
                    seg[again[others]],
                    sense,
                    origins=origins[again[others]],
                    _only=(comps[others], False),
                    **common,
                ).wall_blocked
            # Blocked by the other walls: blocked, whatever the obstacle does on the exact
            # corner line, which is traced only for the lines they leave clear.
            left = np.flatnonzero(~judged)
            if len(left):
                if common["elevations"] is not None:
                    common["elevations"] = bands[again[left]]  # type: ignore[index]
                judged[left] = trace(
                    index,
                    exact[again[left]],
                    sense,
                    origins=exact[again[left], 0:2],
                    _inward=(seg - exact)[again[left]],
                    _only=(comps[left], True),
                    **common,
                ).wall_blocked
            wall_blocked[again] = judged
            corner_cleared = np.zeros(m, dtype=bool)
            corner_cleared[again[~judged]] = True
            if with_blockers:  # still blocked: the inset line names what it meets
                for i in again[~judged].tolist():
                    wall_blockers[i] = []
                    low_blockers[i] = []
    creature_blocked = np.zeros(m, dtype=bool)
    creature_blockers: list[list[str]] = [[] for _ in range(m)] if with_blockers else []
    live = np.flatnonzero(~wall_blocked) if creatures_where_clear else np.arange(m)
    if creature_boxes is not None and len(creature_boxes) and len(live):
        boxes = np.asarray(creature_boxes, dtype=np.float64)
        spans = None
        if creature_spans is not None and bands is not None:
            spans = np.asarray(creature_spans, dtype=np.float64).reshape(-1, 2)
        grid = None
        if kernel_enabled():
            grid = creature_grid if creature_grid is not None else build_grid(boxes)
        # The segments tested (``live``) and, per segment, its row of ``creature_mask``.
        mask_rows = None
        if creature_mask is not None:
            mask_rows = (creature_mask_rows if creature_mask_rows is not None else np.arange(m))[
                live
            ]
        c_seg = seg[live]
        c_bands = None if bands is None else bands[live]
        c_exact = None if exact is None else exact[live]
        step = max(1, CHUNK_CELLS // len(boxes))
        for lo in range(0, len(live), step):  # bounded memory: at most (step, k) pairs at once
            at_rows = None if mask_rows is None else mask_rows[lo : lo + step]
            rows, cols = _creature_hits(
                c_seg[lo : lo + step],
                boxes,
                None if c_bands is None else c_bands[lo : lo + step],
                spans,
                None if c_exact is None else c_exact[lo : lo + step],
                grid,
                None if creature_mask is None else (creature_mask, at_rows),  # type: ignore[arg-type]
            )
            if creature_mask is not None and at_rows is not None:
                keep = creature_mask[at_rows[rows], cols]
                rows, cols = rows[keep], cols[keep]
            hit = live[lo + rows]
            creature_blocked[hit] = True
            if with_blockers:
                for i, j in zip(hit.tolist(), cols.tolist(), strict=True):
                    creature_blockers[i].append(creature_ids[j])
    return TraceResult(
        seg,
        wall_blocked,
        creature_blocked,
        wall_blockers,
        creature_blockers,
        low_blockers,
        corner_cleared,
    )


def _creature_hits(
    seg: FloatArray,
    boxes: FloatArray,
    bands: FloatArray | None,
    spans: FloatArray | None,
    exact: FloatArray | None,
    grid: WallGrid | None = None,
    mask: tuple[NDArray[np.bool_], NDArray[np.intp]] | None = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Which of segments (m, 4) pass through which creature spaces (k, 4), as pairs.

    ``mask``: ``(creature_mask (g, k), row of each segment (m,))``: the compiled look-up
    leaves out the spaces a segment's row masks before testing them (a stack of creatures
    sharing the attacker's square costs a look-up each, not a test); the numpy path tests
    every pair (``trace`` applies the mask after, on both paths).

    GEO-7 with GEO-5a: where ``spans`` (k, 2) are given, only where the creature's vertical
    extent overlaps the segment's band (m, 4) inside the space. GEO-6: a space with a corner
    on a segment's exact corner point (``exact`` (m, 4)) is tested on the exact segment.
    ``grid``: ``build_grid(boxes)`` for the kernel's look-up (built here when not given).

    Returns
    -------
    rows, cols : ndarray of int
        (segment, space) pairs that cross, sorted by segment then space.
    """
    heights = (bands, spans) if spans is not None and bands is not None else None
    if kernel_enabled():  # the kernel finds and decides the pairs (the same arithmetic)
        rows, cols = kernel.creature_pairs(seg, boxes, exact, grid, heights, mask)
        order = np.lexsort((cols, rows))
        return rows[order], cols[order]
    rows, cols = (a.ravel() for a in np.indices((len(seg), len(boxes))))  # every pair
    pairs = seg[rows]
    if exact is not None and len(rows):
        on = _box_corner_on(boxes[cols], exact[rows, 0:2])
        on |= _box_corner_on(boxes[cols], exact[rows, 2:4])
        pairs = np.where(on[:, None], exact[rows], pairs)
    crossed, t_in, t_out = _slab(pairs, boxes[cols])
    if spans is not None and bands is not None:
        crossed &= overlaps_between(bands[rows], t_in, t_out, spans[cols, 0], spans[cols, 1])
    rows, cols = rows[crossed], cols[crossed]
    order = np.lexsort((cols, rows))
    return rows[order], cols[order]


def _box_corner_on(boxes: FloatArray, points: FloatArray) -> NDArray[np.bool_]:
    """Whether a corner of box ``boxes[i]`` (p, 4) lies on point ``points[i]`` (p, 2)."""
    px, py = points[:, 0], points[:, 1]
    on_x = (np.abs(boxes[:, 0] - px) <= QUERY_TOL_PX) | (np.abs(boxes[:, 2] - px) <= QUERY_TOL_PX)
    on_y = (np.abs(boxes[:, 1] - py) <= QUERY_TOL_PX) | (np.abs(boxes[:, 3] - py) <= QUERY_TOL_PX)
    return on_x & on_y


@dataclass(frozen=True)
class _Heights:
    """What ``_exact_walls`` needs beyond GEO-1..6 (see ``trace``'s parameters).

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
    if kernel_enabled():  # the same samples and cells, without (m, samples) arrays
        mean = kernel.sampled_density(
            np.ascontiguousarray(seg),
            t,
            density.x0,
            density.y0,
            density.cell_w,
            density.cell_h,
            density.cover,
        )
    else:
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
        si, wi, _, _ = kernel.search(index, seg, everything, QUERY_PIECE_PX, MAX_QUERY_PIECES, True)
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
    heights: _Heights | None = None,
) -> None:
    """Fill ``wall_blocked``/``wall_blockers`` in place (see ``trace``).

    The compiled kernel (``service.geometry.kernel``, when ``kernel_enabled()``) finds the
    same candidate pairs as ``candidate_pairs`` and spends their count on ``budget`` (in
    bulk tracing, only up to a line's first plain crossing, where it stops). It settles the
    lines that plain walls cross outright (``kernel.search``'s ``plain``: blocked in bulk;
    listing blockers, those whose every pair is such a crossing) and hands the pairs of the
    other lines that cross or touch to the exact tests; otherwise the numpy reference path
    runs the exact tests on every candidate. Both end in ``_exact_walls``.
    """
    restriction = index.restriction[sense]
    heights = heights or _Heights()
    if kernel_enabled():
        eligible, plain_walls = _sense_walls(index, sense, elevations is not None)
        if wall_mask is not None:
            eligible = eligible & wall_mask
        only = None
        if heights.only is not None:
            only = (wall_components(index), heights.only[0], heights.only[1])
        # A line that a plain wall properly crosses is blocked whatever else it meets
        # (junctions and limited walls only add blocks, GEO-4, GEO-6), an exact corner line
        # judged on its obstacle's walls too: in bulk tracing the kernel settles it; listing
        # blockers, it settles a line that meets nothing but such crossings (GEO-1: those
        # walls are what blocks it).
        plain = plain_walls if wall_mask is None else plain_walls & wall_mask
        si, wi, count, state = kernel.search(
            index,
            seg,
            eligible,
            QUERY_PIECE_PX,
            MAX_QUERY_PIECES,
            plain=plain,
            corners=heights.corners if heights.corner_comp is not None else None,
            listing=wall_blockers is not None,
            only=only,
        )
        if budget is not None:
            budget.spend(count)
        wall_blocked |= state == 1
        settled = state[si] == 2
        if settled.any():
            wall_blocked[si[settled]] = True
            assert wall_blockers is not None
            found: dict[int, set[int]] = {}
            for k, w in zip(si[settled].tolist(), wi[settled].tolist(), strict=True):
                found.setdefault(k, set()).add(w)
            for k, ws in found.items():
                wall_blockers[k] = sorted(ws)
            si, wi = si[~settled], wi[~settled]
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
        heights,
    )


def _sense_walls(
    index: WallIndex, sense: str, heights: bool
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """The walls restricting ``sense``, and the plain ones among them, each (n,) bool.

    Plain: ``normal`` for the sense, both ways and, when the lines have heights, as tall as
    any band (``_trace_walls``). Computed once per index, sense and ``heights`` (``memo``).
    """
    key = ("sense_walls", sense, heights)
    found = index.memo.get(key)
    if found is None:
        restriction = index.restriction[sense]
        eligible = restriction > 0
        plain = eligible & (restriction == 2) & (index.direction == 0)
        if heights:
            plain &= np.isneginf(index.bottom) & np.isposinf(index.top)
        found = index.memo[key] = (eligible, plain)
    return found  # type: ignore[no-any-return]


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
    heights: _Heights,
) -> None:
    """The exact tests (GEO-1..6) on candidate pairs ``(si, wi)`` of eligible walls.

    ``elevations`` are bands (m, 4) (``service.geometry.bands``) or ``None``. The per-pair
    tests run compiled (``kernel.exact_tests``) or in numpy (``_classify``), in the same
    arithmetic; the junction rule and the blocker lists follow here.
    """
    if kernel_enabled():
        with_comps = heights.only is not None or heights.corner_comp is not None
        tests = kernel.exact_tests(
            index,
            seg,
            origins,
            (si, wi, code),
            threshold=index.threshold.get(sense),
            bands=elevations,
            low_obstacles=heights.low_obstacles,
            edge_blocks=edge_blocks,
            comps=wall_components(index) if with_comps else None,
            only=heights.only,
            corners=heights.corners if heights.corner_comp is not None else None,
            corner_comp=heights.corner_comp,
        )
    else:
        tests = _classify(
            index, seg, sense, origins, elevations, edge_blocks, si, wi, code, heights
        )
    active, proper, collinear, ev_a, ev_b, partial, s_a, s_b, proj_a, proj_b, proj_lo, proj_hi = (
        tests
    )
    compiled = kernel_enabled()
    if not compiled:  # the wall ends of each pair, for the reference junction loops
        a = index.coords[wi, 0:2]
        b = index.coords[wi, 2:4]
    limited = code == 1  # "limited"; proximity/distance walls that are active block as normal
    listing = wall_blockers is not None
    events = bool(np.any(ev_a) or np.any(ev_b))
    runs = (
        collinear_runs(si[collinear], proj_lo[collinear], proj_hi[collinear])
        if heights.inward is not None or events
        else {}
    )
    if heights.inward is not None:
        along = RunEvents(
            runs, (ev_a & ~limited, ev_b & ~limited), (proj_a, proj_b), (s_b, s_a), si
        )
        if compiled:
            ends_blocked, rows = end_junctions_compiled(
                seg, si, wi, index.coords, active & ~limited, heights.inward, along, listing
            )
            wall_blocked[ends_blocked] = True
            if wall_blockers is not None:
                for k, ws in _by_segment(rows[:, 0], rows[:, 1]):
                    wall_blockers[k].extend(ws)
        else:
            end_junctions(
                seg,
                si,
                wi,
                a,
                b,
                active & ~limited,
                heights.inward,
                along,
                wall_blocked,
                wall_blockers,
            )

    limited_count = np.zeros(len(seg), dtype=np.int64)
    np.add.at(limited_count, si[proper & limited], 1)
    wall_blocked[si[proper & ~limited]] = True
    limited_hits: dict[int, list[int]] = {}
    if wall_blockers is not None:
        for k, ws in _by_segment(si[proper & limited], wi[proper & limited]):
            limited_hits.setdefault(k, []).extend(ws)
        for k, ws in _by_segment(si[proper & ~limited], wi[proper & ~limited]):
            wall_blockers[k].extend(ws)

    if events and compiled:
        blocked, groups, limited_rows = junctions_compiled(
            index,
            len(seg),
            si,
            wi,
            (ev_a, ev_b),
            (proj_a, proj_b),
            (s_a, s_b),
            limited,
            runs,
            wall_blockers is not None,
        )
        wall_blocked[blocked[:, 0]] = True
        np.add.at(limited_count, groups, 1)
        if wall_blockers is not None:
            for k, ws in _by_segment(blocked[:, 0], blocked[:, 1]):
                wall_blockers[k].extend(ws)
            for k, ws in _by_segment(limited_rows[:, 0], limited_rows[:, 1]):
                limited_hits.setdefault(k, []).extend(ws)
    elif events:
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
    if heights.low_blockers is not None and np.any(partial):
        low_pairs = set(zip(si[partial].tolist(), wi[partial].tolist(), strict=True))
        for s in {k for k, _ in low_pairs}:
            if wall_blocked[s]:
                heights.low_blockers[s] = [w for w in wall_blockers[s] if (s, w) in low_pairs]


def _classify(
    index: WallIndex,
    seg: FloatArray,
    sense: str,
    origins: FloatArray,
    elevations: FloatArray | None,
    edge_blocks: bool,
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    code: NDArray[np.int8],
    heights: _Heights,
) -> tuple[NDArray[Any], ...]:
    """The per-pair exact tests of ``_exact_walls`` in numpy (the reference path).

    Returns ``active, proper, collinear, ev_a, ev_b, partial`` (bool), ``s_a, s_b`` (int8:
    the sides of the wall's ends from the segment), ``proj_a, proj_b, proj_lo, proj_hi``
    (px along the segment), each of shape (p,); fills ``heights.corner_comp``.
    """
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
    if heights.only is not None:
        comps, inside = heights.only
        comp = wall_components(index)[wi]
        member = (comp == comps[si, 0]) | (comp == comps[si, 1])
        active &= member if inside else ~member

    # Parameter along the segment where it meets the wall's line, for heights (GEO-5).
    denom = d[:, 0] * e[:, 1] - d[:, 1] * e[:, 0]
    ap = a - p0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # nearly parallel
        t_cross = np.where(denom != 0, (ap[:, 0] * e[:, 1] - ap[:, 1] * e[:, 0]) / denom, 0.0)
    partial = np.zeros(len(si), dtype=bool)
    if elevations is not None:  # GEO-5, GEO-5a: the band at the crossing
        low, high, thin = band_at(elevations[si], t_cross)
        covers, partly = meets(low, high, thin, index.bottom[wi], index.top[wi])
        allowed = heights.low_obstacles
        if not isinstance(allowed, bool):
            partly_ok = partly & allowed[wi]
        else:
            partly_ok = partly if allowed else np.zeros(len(si), dtype=bool)
        active &= covers | partly_ok
        partial = partly_ok & active

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

    if heights.corner_comp is not None and heights.corners is not None:
        # GEO-6: walls with an end on the exact corner that cross or touch the inset line.
        ex = heights.corners[si]
        touching = proper | collinear | ev_a | ev_b | (active & ((s_a == 0) | (s_b == 0)))
        comp = wall_components(index)[wi]
        for c in (0, 1):
            on_corner = np.zeros(len(si), dtype=bool)
            for end in (a, b):
                on_corner |= (np.abs(end[:, 0] - ex[:, 2 * c]) <= QUERY_TOL_PX) & (
                    np.abs(end[:, 1] - ex[:, 2 * c + 1]) <= QUERY_TOL_PX
                )
            hit = on_corner & touching
            heights.corner_comp[si[hit], c] = comp[hit]
    return (
        active,
        proper,
        collinear,
        ev_a,
        ev_b,
        partial,
        s_a,
        s_b,
        proj_a,
        proj_b,
        proj_lo,
        proj_hi,
    )


def _by_segment(si: NDArray[np.intp], wi: NDArray[np.intp]) -> list[tuple[int, list[int]]]:
    """Pairs grouped by segment: ``(segment, walls in their order in wi)``, by segment."""
    groups: dict[int, list[int]] = {}
    for s, w in zip(si.tolist(), wi.tolist(), strict=True):
        groups.setdefault(s, []).append(w)
    return sorted(groups.items())


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
    """Compile (or load from numba's cache) the measurement kernel now, on small scenes.

    Every compiled step a trace can take, each once: the wall walk and the creature look-up
    (with bands and a creature mask), the exact tests with an exact corner and GEO-6's
    corner re-check at the line's own ends (``end_junctions_compiled``), a line through a
    point where walls meet (``junctions_compiled``, listing and bulk), and the budget's
    density estimate. gunicorn calls it in the master before forking
    (``gunicorn.conf.py``), so no worker's first request pays a compilation (seconds each,
    and memory kept by every worker). Does nothing when the kernel is off.
    """
    if not kernel_enabled():
        return
    index = index_walls(
        [Wall("a", (0.0, 0.0, 100.0, 0.0)), Wall("b", (50.0, -50.0, 50.0, 50.0))], 20.0
    )
    trace(  # the wall walk and the creature look-up (with bands and a mask)
        index,
        np.array([[0.0, 10.0, 100.0, -10.0]]),
        elevations=np.array([[0.0, 0.0, 1.0, 1.0]]),
        creature_boxes=np.array([[20.0, -5.0, 30.0, 5.0]]),
        creature_ids=["c"],
        creature_spans=np.array([[0.0, 1.0]]),
        creature_mask=np.ones((1, 1), dtype=bool),
        creature_mask_rows=np.zeros(1, dtype=np.intp),
    )
    # A wall leaving the exact corner across the inset line: the corner re-check (GEO-6).
    corner = index_walls([Wall("c", (0.0, 0.0, 100.0, 10.0))], 20.0)
    for listing in (True, False):
        trace(
            corner,
            np.array([[0.5, 0.5, 299.5, 0.5]]),
            corners=np.array([[0.0, 0.0, 300.0, 0.0]]),
            elevations=np.array([[0.0, 0.0, 1.0, 1.0]]),
            with_blockers=listing,
        )
    # Walls meeting on a line, a limited one among them (GEO-6, GEO-4), with thresholds.
    meeting = index_walls(
        [
            Wall("u", (100.0, 0.0, 100.0, 100.0)),
            Wall("d", (100.0, 100.0, 100.0, 200.0), move="limited"),
        ],
        20.0,
    )
    for listing in (True, False):
        trace(meeting, np.array([[0.0, 100.0, 300.0, 100.0]]), with_blockers=listing)
    estimate_tests(wall_density(meeting.coords), np.array([[0.0, 100.0, 300.0, 100.0]]))
