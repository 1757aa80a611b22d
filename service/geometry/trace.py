"""Tracing many segments at once against walls and creatures (GEO-1..7).

``trace`` is the one tracer: the walls near each segment from the walls' grid
(``geometry.walk``), their exact tests and the junction rule (``geometry.wall_tests``,
``geometry.junctions``), GEO-6's corner re-check on the exact corner lines, then the
creature spaces (``geometry.creature_tests``). See ``service.geometry`` for the crossing
rule (GEO-6).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import WorkBudget
from service.engine.density import wall_density
from service.engine.tolerances import QUERY_TOL_PX
from service.engine.walls import FloatArray, WallGrid, WallIndex, build_grid, index_walls
from service.geometry import walk, wall_tests
from service.geometry.bands import as_bands
from service.geometry.compiled import sides_split
from service.geometry.creature_tests import creature_hits, segments_cross_own_boxes
from service.geometry.obstacles import MIN_RUN, wall_components
from service.geometry.surfaces import surface_blocked
from service.geometry.walk import estimate_tests, settling
from service.geometry.wall_tests import Extras, Verdicts
from service.model import Wall

#: Segments traced against the walls at once (memory bound for matrices).
SEGMENT_BATCH = 2048

#: Segment x creature cells computed at once when testing creatures (memory bound).
CHUNK_CELLS = 2_000_000


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
    floor_blocked : ndarray of shape (m,), bool, optional
        Segments a surface (a floor, GEO-10) blocks, counted in ``wall_blocked`` too
        (``None``: the index has no surfaces or the segments no elevations).
    """

    segments: FloatArray
    wall_blocked: NDArray[np.bool_]
    creature_blocked: NDArray[np.bool_]
    wall_blockers: list[list[int]]
    creature_blockers: list[list[str]] = field(default_factory=list)
    low_blockers: list[list[int]] = field(default_factory=list)
    corner_cleared: NDArray[np.bool_] | None = None
    floor_blocked: NDArray[np.bool_] | None = None

    @property
    def blocked(self) -> NDArray[np.bool_]:
        """Blocked by anything, shape (m,)."""
        return self.wall_blocked | self.creature_blocked


@dataclass(frozen=True)
class TraceSpec:
    """What a trace asks of the walls: everything but the segments and their own arrays.

    Attributes
    ----------
    sense : {"move", "sight", "light", "sound"}
        Which wall restriction applies (GEO-1): ``move`` for line of effect and cover.
    wall_mask : ndarray of shape (n,), bool, optional
        Walls to consider (default all); a ruleset uses it to set aside walls that do not
        apply to this attack (e.g. a low obstacle too far from the target, SF-COV-5).
    low_obstacles : bool or ndarray of shape (n,), bool
        Whether a wall covering only part of a segment's band blocks it (as a low obstacle,
        GEO-5a): ``True`` (cover lines), ``False`` (line of effect or sight, light), or per
        wall (SF-COV-5 per pair).
    edge_blocks : bool
        Starfinder's exception to GEO-6 (SF-COV-1): a segment running along a wall
        (collinear, overlapping it over a positive length) is blocked by it.
    with_blockers : bool
        Also list what blocks each segment (``False`` for bulk work such as matrices: the
        blocker lists stay empty and only the boolean arrays are filled).
    """

    sense: str = "move"
    wall_mask: NDArray[np.bool_] | None = None
    low_obstacles: bool | NDArray[np.bool_] = True
    edge_blocks: bool = False
    with_blockers: bool = True


@dataclass(frozen=True)
class Creatures:
    """The creature spaces a trace tests (GEO-7, GEO-5a).

    Attributes
    ----------
    boxes : ndarray of shape (k, 4)
        Creature spaces ``x0, y0, x1, y1`` in px; a segment is blocked by one when it
        passes through the open interior of the space.
    ids : sequence of str, length k
    mask : ndarray of shape (m, k), bool, optional
        Which creatures count for which segment (e.g. not the attacker and target).
    mask_rows : ndarray of shape (m,), int, optional
        With it, ``mask`` has shape (g, k) and segment i reads its row ``mask_rows[i]`` (one
        row per pair, not per line).
    spans : ndarray of shape (k, 2), optional
        Each creature's vertical extent ``[bottom, top)`` in grid units (GEO-5a); with the
        segments' bands, a creature blocks only where it overlaps the band inside its space
        (GEO-7). ``None``: creatures are infinitely tall.
    grid : WallGrid, optional
        ``build_grid(boxes)``, kept by the caller (``BuiltScene.creatures``).
    where_clear : bool
        Test the creatures only on the segments that walls leave clear
        (``creature_blocked`` reads ``False`` on the others): for rulings that read a
        creature only where no wall blocks (cover in bulk: 5E-COV-6, SF-COV-6, PV-COV-3).
    """

    boxes: FloatArray
    ids: Sequence[str]
    mask: NDArray[np.bool_] | None = None
    mask_rows: NDArray[np.intp] | None = None
    spans: FloatArray | None = None
    grid: WallGrid | None = None
    where_clear: bool = False

    def of_lines(self, rows: NDArray[np.intp]) -> Creatures:
        """The same creatures for the lines ``rows`` of those ``mask_rows`` indexes."""
        if self.mask_rows is None:
            return self
        return dataclasses.replace(self, mask_rows=self.mask_rows[rows])


#: Every wall restricting movement, heights counted, blockers listed.
MOVE = TraceSpec()


def trace(
    index: WallIndex,
    segments: FloatArray | Sequence[Sequence[float]],
    spec: TraceSpec = MOVE,
    *,
    origins: FloatArray | None = None,
    elevations: FloatArray | None = None,
    corners: FloatArray | None = None,
    creatures: Creatures | None = None,
    budget: WorkBudget | None = None,
    inward: FloatArray | None = None,
    spaces: FloatArray | None = None,
    spent: NDArray[np.int64] | None = None,
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
    spec : TraceSpec
        The sense, the walls that count and what is listed.
    origins : ndarray of shape (m, 2), optional
        Source point of each segment (the observer, light or attacker) for one-way walls
        (GEO-3) and proximity/distance thresholds (GEO-4); default the segment's first point.
    elevations : ndarray of shape (m, 2) or (m, 4), optional
        Each segment's band in grid units (``service.geometry.bands``): ``(m, 2)`` the
        elevations of its two ends (a band of no thickness), ``(m, 4)`` ``bottom0, bottom1,
        top0, top1``. At a crossing, a wall whose half-open height range ``[bottom, top)``
        covers the whole band blocks; one that covers part of it is a low obstacle for that
        segment (``spec.low_obstacles``); one that misses it does nothing (GEO-5, GEO-5a).
        ``None``: every wall is infinitely tall.
    corners : ndarray of shape (m, 4), optional
        The exact corner points ``x0, y0, x1, y1`` px that each segment's ends were inset
        from (GEO-6). A wall with an end, or a creature's space with a corner, on one of
        them blocks the segment only if it blocks the exact corner line: the inset only
        ever removes false blocks; the walls meeting at a corner block the exact corner
        line when they separate the token's space from its direction (``end_junctions``).
    creatures : Creatures, optional
        The creature spaces that block (GEO-7); none by default.
    inward : ndarray of shape (m, 4), optional
        For segments whose ends are exact points of token spaces (no inset: ``corners``
        absent or equal to the segments), the direction from each end into its token's
        space (toward its centre; zero for a point such as a light or an area's origin).
        GEO-6's end-point Decision: an end point lying on a wall is on its own creature's
        side, so a wall whose interior holds the end blocks a line leaving toward its other
        side, and walls meeting there block as they separate the space from the line
        (``junctions.end_junctions``). Ignored for inset segments (the corner re-check
        judges those on their exact corner lines).
    spaces : ndarray of shape (m, 8), optional
        Each segment's source and target token spaces ``x0, y0, x1, y1`` px (NaN: a point).
        With ``corners``, a creature's space with a corner on a corner of either space
        blocks the inset segment only if it blocks the exact corner line (GEO-6: "the
        token's own corner" is either end's token's; in a row of four adjacent creatures
        none gives the others cover by its edges alone).
    budget : WorkBudget, optional
        Spends one unit per (segment, candidate wall) pair before the exact tests; when
        it runs out, ``OverBudget`` (docs/decisions.md "Bounded work").
    spent : ndarray of shape (m,), int64, optional
        Each segment's (segment, candidate wall) pairs of the walk, added to it in place:
        what ``budget`` is spent, segment by segment (the exact search's own limit per
        search, ``service.geometry.search``). Not counted: GEO-6's corner re-check.

    Returns
    -------
    TraceResult
    """
    seg = np.asarray(segments, dtype=np.float64).reshape(-1, 4)
    m = len(seg)
    bands = as_bands(elevations, m)
    exact = None if corners is None else np.asarray(corners, dtype=np.float64).reshape(-1, 4)
    if exact is not None and not np.any(exact != seg):
        exact = None  # no inset: the segments are the exact corner lines
    if _inward is None and inward is not None and exact is None:
        ends_in = np.asarray(inward, dtype=np.float64).reshape(-1, 4)
        if np.any(ends_in != 0):  # GEO-6: an end point on a wall is on its creature's side
            _inward = ends_in
    corner_comp = None
    if exact is not None and index.size:
        corner_comp = np.full((m, 2), -1, dtype=np.int64)
    with_blockers = spec.with_blockers
    out = Verdicts(np.zeros(m, dtype=bool), [[] for _ in range(m)] if with_blockers else None)
    low_blockers: list[list[int]] = [[] for _ in range(m)] if with_blockers else []
    if origins is None:
        origins = seg[:, 0:2]
    walls = _WallPass(index, spec, budget, spent)
    extras = Extras(
        spec.low_obstacles,
        exact,
        low_blockers if with_blockers else None,
        corner_comp,
        None if _inward is None else np.asarray(_inward, dtype=np.float64),
        _only,
    )
    walls.batches(seg, origins, bands, out, extras)
    corner_cleared = None
    if corner_comp is not None and exact is not None:
        corner_cleared = walls.corner_recheck(seg, origins, bands, exact, corner_comp, out.blocked)
        if out.blockers is not None:  # still blocked: the inset line names what it meets
            for i in np.flatnonzero(corner_cleared).tolist():
                out.blockers[i] = []
                low_blockers[i] = []
    floors = None  # GEO-10: a floor blocks like a full wall (``service.geometry.surfaces``)
    if index.surfaces is not None and bands is not None:
        floors = surface_blocked(index.surfaces, seg, bands, spec.sense)
        out.blocked |= floors
    creature_blocked = np.zeros(m, dtype=bool)
    creature_blockers: list[list[str]] = [[] for _ in range(m)] if with_blockers else []
    if creatures is not None and len(creatures.boxes):
        live = np.flatnonzero(~out.blocked) if creatures.where_clear else np.arange(m)
        if len(live):
            _creatures_on(
                creatures,
                seg,
                bands,
                (exact, spaces),
                live,
                creature_blocked,
                creature_blockers,
            )
    return TraceResult(
        seg,
        out.blocked,
        creature_blocked,
        out.blockers if out.blockers is not None else [],
        creature_blockers,
        low_blockers,
        corner_cleared,
        floors,
    )


@dataclass(frozen=True)
class _WallPass:
    """The walls of one ``trace`` call: what every batch of its segments is traced with."""

    index: WallIndex
    spec: TraceSpec
    budget: WorkBudget | None
    spent: NDArray[np.int64] | None = None

    def batches(
        self,
        seg: FloatArray,
        origins: FloatArray,
        bands: FloatArray | None,
        out: Verdicts,
        extras: Extras,
    ) -> None:
        """Trace ``seg`` against the walls ``SEGMENT_BATCH`` at a time (bounded memory)."""
        m = len(seg)
        for lo in range(0, m if self.index.size else 0, SEGMENT_BATCH):
            hi = min(m, lo + SEGMENT_BATCH)
            blockers = None if out.blockers is None else out.blockers[lo:hi]
            part = Verdicts(out.blocked[lo:hi], blockers)
            low_part = None if extras.low_blockers is None else extras.low_blockers[lo:hi]
            _trace_walls(
                self if self.spent is None else dataclasses.replace(self, spent=self.spent[lo:hi]),
                seg[lo:hi],
                origins[lo:hi],
                None if bands is None else bands[lo:hi],
                part,
                Extras(
                    self.spec.low_obstacles,
                    _rows(extras.corners, lo, hi),
                    low_part,
                    _rows(extras.corner_comp, lo, hi),
                    _rows(extras.inward, lo, hi),
                    None if extras.only is None else (extras.only[0][lo:hi], extras.only[1]),
                ),
            )
            if out.blockers is not None and part.blockers is not None:
                out.blockers[lo:hi] = part.blockers
            if extras.low_blockers is not None and low_part is not None:
                extras.low_blockers[lo:hi] = low_part

    def corner_recheck(
        self,
        seg: FloatArray,
        origins: FloatArray,
        bands: FloatArray | None,
        exact: FloatArray,
        corner_comp: NDArray[np.int64],
        blocked: NDArray[np.bool_],
    ) -> NDArray[np.bool_]:
        """GEO-6's corner sentence on the lines an obstacle at their exact corner touches.

        Where an obstacle (walls joined end to end) has a wall ending on the line's exact
        corner, its walls are judged on the exact corner line and the other walls on the
        inset line: the inset only ever removes false blocks, never adds one. Updates
        ``blocked`` (m,) and returns the lines it cleared (m,) bool.
        """
        cleared = np.zeros(len(seg), dtype=bool)
        again = np.flatnonzero((corner_comp >= 0).any(axis=1) & blocked)
        if not len(again):
            return cleared
        comps = corner_comp[again]
        judged = np.zeros(len(again), dtype=bool)
        # Lines whose obstacles hold every wall (one dungeon of walls joined end to end)
        # meet no other wall: they are not traced with the others.
        sizes = np.bincount(wall_components(self.index), minlength=self.index.size)
        first, second = comps[:, 0], comps[:, 1]
        held = np.where(first >= 0, sizes[np.maximum(first, 0)], 0)
        held += np.where((second >= 0) & (second != first), sizes[np.maximum(second, 0)], 0)
        others = np.flatnonzero(held < self.index.size)
        if len(others):
            rows = again[others]
            judged[others] = self._again(
                seg[rows], origins[rows], bands, rows, _only=(comps[others], False)
            )
        # Blocked by the other walls: blocked, whatever the obstacle does on the exact
        # corner line, which is traced only for the lines they leave clear.
        left = np.flatnonzero(~judged)
        if len(left):
            rows = again[left]
            judged[left] = self._again(
                exact[rows],
                exact[rows, 0:2],
                bands,
                rows,
                _inward=(seg - exact)[rows],
                _only=(comps[left], True),
            )
        blocked[again] = judged
        cleared[again[~judged]] = True
        return cleared

    def _again(
        self,
        seg: FloatArray,
        origins: FloatArray,
        bands: FloatArray | None,
        rows: NDArray[np.intp],
        **private: Any,
    ) -> NDArray[np.bool_]:
        """``trace`` of some lines again, in bulk, with this pass's walls (not in ``spent``)."""
        return trace(
            self.index,
            seg,
            dataclasses.replace(self.spec, with_blockers=False),
            origins=origins,
            elevations=None if bands is None else bands[rows],
            budget=self.budget,
            **private,
        ).wall_blocked


def _rows(a: Any, lo: int, hi: int) -> Any:
    """``a[lo:hi]``, or ``None``."""
    return None if a is None else a[lo:hi]


def _creatures_on(
    creatures: Creatures,
    seg: FloatArray,
    bands: FloatArray | None,
    corners: tuple[FloatArray | None, FloatArray | None],
    live: NDArray[np.intp],
    blocked: NDArray[np.bool_],
    blockers: list[list[str]],
) -> None:
    """Fill ``blocked`` (m,) and, when listed, ``blockers`` for the segments ``live`` (GEO-7).

    ``corners``: the exact corner lines (m, 4) and the ends' token spaces (m, 8), or None
    (``trace``'s ``corners`` and ``spaces``). At most ``CHUNK_CELLS`` (segment, space) pairs
    at once (bounded memory).
    """
    exact, spaces = corners
    boxes = np.asarray(creatures.boxes, dtype=np.float64)
    spans = None
    if creatures.spans is not None and bands is not None:
        spans = np.asarray(creatures.spans, np.float64).reshape(-1, 2)
    grid = creatures.grid if creatures.grid is not None else build_grid(boxes)
    mask = creatures.mask
    # The segments tested (``live``) and, per segment, its row of ``mask``.
    mask_rows = None
    if mask is not None:
        rows_of = creatures.mask_rows if creatures.mask_rows is not None else np.arange(len(seg))
        mask_rows = rows_of[live]
    c_seg = seg[live]
    c_bands = None if bands is None else bands[live]
    c_exact = None if exact is None else exact[live]
    step = max(1, CHUNK_CELLS // len(boxes))
    for lo in range(0, len(live), step):
        at_rows = None if mask_rows is None else mask_rows[lo : lo + step]
        rows, cols = creature_hits(
            c_seg[lo : lo + step],
            boxes,
            _rows(c_bands, lo, lo + step),
            spans,
            _rows(c_exact, lo, lo + step),
            grid,
            None if mask is None or at_rows is None else (mask, at_rows),
        )
        if mask is not None and at_rows is not None:
            keep = mask[at_rows[rows], cols]
            rows, cols = rows[keep], cols[keep]
        if spaces is not None and exact is not None and len(rows):
            keep = _beside_own_corner(boxes, live[lo + rows], cols, exact, spaces)
            rows, cols = rows[keep], cols[keep]
        hit = live[lo + rows]
        blocked[hit] = True
        if blockers:
            for i, j in zip(hit.tolist(), cols.tolist(), strict=True):
                blockers[i].append(creatures.ids[j])


def _beside_own_corner(
    boxes: FloatArray,
    rows: NDArray[np.intp],
    cols: NDArray[np.intp],
    exact: FloatArray,
    spaces: FloatArray,
) -> NDArray[np.bool_]:
    """Which (segment, space) hits ``rows, cols`` stay: GEO-6 for either end's token.

    A creature's space with a corner on a corner of the segment's source or target space
    (``spaces`` (m, 8)) blocks only if the exact corner line (``exact`` (m, 4)) crosses it
    too: the inset never adds a block. The others stay (their heights were weighed on the
    inset line, GEO-5a). O(hits).
    """
    box = boxes[cols]
    xs, ys = box[:, [0, 2, 2, 0]], box[:, [1, 1, 3, 3]]
    shared = np.zeros(len(rows), dtype=bool)
    for end in (0, 4):
        own = spaces[rows, end : end + 4]
        ox, oy = own[:, [0, 2, 2, 0]], own[:, [1, 1, 3, 3]]
        same = (np.abs(xs[:, :, None] - ox[:, None, :]) <= QUERY_TOL_PX) & (
            np.abs(ys[:, :, None] - oy[:, None, :]) <= QUERY_TOL_PX
        )
        shared |= same.any(axis=(1, 2))
    return ~shared | segments_cross_own_boxes(exact[rows], box)  # type: ignore[no-any-return]


def _trace_walls(
    walls: _WallPass,
    seg: FloatArray,
    origins: FloatArray,
    elevations: FloatArray | None,
    out: Verdicts,
    extras: Extras,
) -> None:
    """Fill ``out`` for one batch of segments (see ``trace``).

    The walk (``walk.search``) finds the candidate pairs and spends their count on the
    budget (in bulk tracing, only up to a line's first plain crossing, where it stops). It
    settles the lines that plain walls cross outright (blocked in bulk; listing blockers,
    those whose every pair is such a crossing) and hands the pairs of the other lines that
    cross or touch to the exact tests (``wall_tests.decide``).
    """
    index = walls.index
    eligible, settles = _sense_walls(index, walls.spec.sense, elevations is not None)
    if walls.spec.wall_mask is not None:
        eligible = eligible & walls.spec.wall_mask
        settles = np.where(walls.spec.wall_mask, settles, walk.OPEN).astype(np.int8)
    only = None
    if extras.only is not None:
        only = (wall_components(index), extras.only[0], extras.only[1])
    # A line that a plain wall properly crosses (one of limited height covering its band
    # there, GEO-5a) is blocked whatever else it meets (junctions and other limited walls
    # only add blocks, GEO-4, GEO-6), an exact corner line judged on its obstacle's walls
    # too: in bulk tracing the walk settles it, and one crossing two two-way limited walls
    # (GEO-4); listing blockers, it settles a line that meets nothing but plain crossings
    # (GEO-1: those walls are what blocks it).
    # ``walk.search``'s walk, its count kept per segment (``trace``'s ``spent``).
    si, wi, counts, state = walk._walk(
        index,
        seg,
        eligible,
        False,
        settles,
        extras.corners if extras.corner_comp is not None else None,
        out.blockers is not None,
        only,
        elevations,
    )
    si, wi = si.astype(np.intp), wi.astype(np.intp)
    if walls.spent is not None:
        walls.spent[:] += counts  # a view of the caller's array
    if walls.budget is not None:
        walls.budget.spend(int(counts.sum()))
    out.blocked |= state == 1
    settled = state[si] == 2
    if settled.any():
        out.blocked[si[settled]] = True
        assert out.blockers is not None
        found: dict[int, set[int]] = {}
        for k, w in zip(si[settled].tolist(), wi[settled].tolist(), strict=True):
            found.setdefault(k, set()).add(w)
        for k, ws in found.items():
            out.blockers[k] = sorted(ws)
        si, wi = si[~settled], wi[~settled]
    if not len(si):
        return
    code = index.restriction[walls.spec.sense][wi]
    wall_tests.decide(
        index,
        seg,
        walls.spec.sense,
        origins,
        elevations,
        out,
        walls.spec.edge_blocks,
        (si, wi, code),
        extras,
    )


def _sense_walls(
    index: WallIndex, sense: str, heights: bool
) -> tuple[NDArray[np.bool_], NDArray[np.int8]]:
    """The walls restricting ``sense`` (n,) bool, and what each settles (n,) int8.

    ``walk.settling``'s codes for the walk (``_trace_walls``); ``heights``: the lines have
    bands. Computed once per index, sense and ``heights`` (``memo``).
    """
    key = ("sense_walls", sense, heights)
    found = index.memo.get(key)
    if found is None:
        eligible = index.restriction[sense] > 0
        found = index.memo[key] = (eligible, settling(index, sense, None, heights))
    return found  # type: ignore[no-any-return]


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


def warm_up() -> None:
    """Compile (or load from numba's cache) the measurement kernel now, on small scenes.

    Every compiled step a trace can take, each once: the wall walk and the creature look-up
    (with bands and a creature mask), the exact tests with an exact corner and GEO-6's
    corner re-check at the line's own ends (``end_junctions``), a line through a point
    where walls meet (``junctions``, listing and bulk), and the budget's density estimate.
    gunicorn calls it in the master before forking (``gunicorn.conf.py``), so no worker's
    first request pays a compilation (seconds each, and memory kept by every worker).
    """
    index = index_walls(
        [Wall("a", (0.0, 0.0, 100.0, 0.0)), Wall("b", (50.0, -50.0, 50.0, 50.0))], 20.0
    )
    # The wall walk and the creature look-up (with bands and a mask).
    trace(
        index,
        np.array([[0.0, 10.0, 100.0, -10.0]]),
        elevations=np.array([[0.0, 0.0, 1.0, 1.0]]),
        creatures=Creatures(
            boxes=np.array([[20.0, -5.0, 30.0, 5.0]]),
            ids=["c"],
            mask=np.ones((1, 1), dtype=bool),
            mask_rows=np.zeros(1, dtype=np.intp),
            spans=np.array([[0.0, 1.0]]),
        ),
    )
    # A wall leaving the exact corner across the inset line: the corner re-check (GEO-6).
    corner = index_walls([Wall("c", (0.0, 0.0, 100.0, 10.0))], 20.0)
    for listing in (True, False):
        trace(
            corner,
            np.array([[0.5, 0.5, 299.5, 0.5]]),
            TraceSpec(with_blockers=listing),
            corners=np.array([[0.0, 0.0, 300.0, 0.0]]),
            elevations=np.array([[0.0, 0.0, 1.0, 1.0]]),
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
        trace(meeting, np.array([[0.0, 100.0, 300.0, 100.0]]), TraceSpec(with_blockers=listing))
    estimate_tests(wall_density(meeting.coords), np.array([[0.0, 100.0, 300.0, 100.0]]))
    # A run of collinear walls joined as one obstacle (``obstacles.MIN_RUN``, GEO-6).
    run = [Wall(f"r{k}", (k * 0.1, 0.0, k * 0.1 + 10.0, 0.0)) for k in range(MIN_RUN)]
    wall_components(index_walls(run, 20.0))
    # The exact search's test at a vertex where firm walls meet (``compiled.sides_split``).
    sides_split(
        np.array([[0.0, 1.0], [0.0, -1.0]]),
        np.array([0, 2], dtype=np.int64),
        np.array([0, -1], dtype=np.int64),
        np.array([[1.0, 0.0], [1.0, 0.0]]),
        1e-9,
    )
