"""System-neutral geometry: which traced segments are blocked, and by which walls or creatures.

Pure numpy/shapely; no Flask, no rules. Frames: scene pixels, y down; elevations, heights and
thresholds in grid units. The rule systems (``service.rules``) turn these measurements into
degrees of cover.

The crossing rule is GEO-6 of ``shared/RULES.md``: a segment is blocked by a wall when it
crosses the wall's interior; touching at the segment's own end point, meeting a wall's free
tip, or running along a wall (collinear) does not block. Where walls meet at a point that the
segment passes through, the segment is blocked when the walls meeting there lie on both sides
of it (they separate its incoming side from its outgoing side), so splitting a wall into
pieces or reordering walls never changes an answer.

References
----------
shared/RULES.md GEO-1 .. GEO-7, 5E-LOE-2; shared/DESIGN.md "Principles" 5.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from service.model import Scene, Shape, Wall

#: Distance in px under which a point counts as lying on a line (float noise only; scene
#: coordinates are normally whole or half pixels, for which the arithmetic is exact).
ON_LINE_TOL_PX = 1e-7

#: Search radius in px around a traced segment for candidate walls (above ON_LINE_TOL_PX).
QUERY_TOL_PX = 1e-6

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

#: Default inset of traced corner points toward the square's centre, in px (GEO-6).
DEFAULT_CORNER_INSET_PX = 0.5

RESTRICTION_CODE = {"none": 0, "limited": 1, "normal": 2, "proximity": 3, "distance": 4}
DIRECTION_CODE = {"both": 0, "left": 1, "right": 2}
SENSES = ("move", "sight", "light", "sound")

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class WallIndex:
    """Walls of one scene as arrays plus one shapely ``STRtree``.

    Attributes
    ----------
    ids : tuple of str, length n
    coords : ndarray of shape (n, 4)
        ``x0, y0, x1, y1`` in px, endpoint order as given (GEO-3 depends on it).
    restriction : dict of str to ndarray of shape (n,), int8
        Per sense type (``move``, ``sight``, ``light``, ``sound``) the code of
        ``RESTRICTION_CODE``; open doors are stored as 0 (GEO-2).
    threshold : dict of str to ndarray of shape (n,)
        Per sense (``sight``, ``light``, ``sound``) the threshold in grid units, NaN if none.
    direction : ndarray of shape (n,), int8
        ``DIRECTION_CODE`` of each wall.
    bottom, top : ndarray of shape (n,)
        Height range in grid units, ``-inf``/``+inf`` when unbounded (GEO-5).
    px_per_unit : float
        Pixels per grid unit, for thresholds.
    tree : shapely.STRtree
        Over the wall segments, in the same order.
    """

    ids: tuple[str, ...]
    walls: tuple[Wall, ...]
    coords: FloatArray
    restriction: dict[str, NDArray[np.int8]]
    threshold: dict[str, FloatArray]
    direction: NDArray[np.int8]
    bottom: FloatArray
    top: FloatArray
    px_per_unit: float
    tree: shapely.STRtree
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        """Number of walls."""
        return len(self.ids)


def build_wall_index(scene: Scene) -> WallIndex:
    """Build the ``WallIndex`` of ``scene`` (arrays and ``STRtree``), once per scene."""
    return index_walls(scene.walls, scene.grid.px_per_unit)


def _column(walls: tuple[Wall, ...], name: str, code: dict[str, int]) -> NDArray[np.int8]:
    """``code`` of attribute ``name`` of every wall, as int8 of shape (n,).

    Most scenes use one or two values per field, so a field with a single value costs one
    C-level pass and no per-wall objects (issue 7, ingestion).
    """
    get = operator.attrgetter(name)
    values = set(map(get, walls))
    if len(values) <= 1:
        return np.full(len(walls), code[values.pop()] if values else 0, dtype=np.int8)
    return np.fromiter(map(code.__getitem__, map(get, walls)), dtype=np.int8, count=len(walls))


def index_walls(walls: Sequence[Wall], px_per_unit: float) -> WallIndex:
    """Build a ``WallIndex`` over ``walls``; ``px_per_unit`` converts thresholds (GEO-4)."""
    walls = tuple(walls)
    n = len(walls)
    coords = np.fromiter(chain.from_iterable(map(_C, walls)), dtype=np.float64, count=4 * n)
    coords = coords.reshape(n, 4)
    is_open = np.fromiter(map(_is_open, walls), dtype=bool, count=n) if _any_door(walls) else None
    restriction = {}
    for sense in SENSES:
        codes = _column(walls, sense, RESTRICTION_CODE)
        if is_open is not None:
            codes[is_open] = 0  # GEO-2: an open door restricts nothing
        restriction[sense] = codes
    threshold = {sense: np.full(n, math.nan) for sense in ("sight", "light", "sound")}
    bottom, top = np.full(n, -math.inf), np.full(n, math.inf)
    if any(map(_THRESHOLD, walls)) or any(map(_HEIGHT, walls)):  # Structs are truthy
        for i, w in enumerate(walls):
            if w.threshold is not None:
                for sense in threshold:
                    value = getattr(w.threshold, sense)
                    if value is not None:
                        threshold[sense][i] = value
            if w.height is not None:
                bottom[i], top[i] = w.height.low, w.height.high
    lines = shapely.linestrings(coords.reshape(n, 2, 2)) if n else np.empty(0, dtype=object)
    return WallIndex(
        ids=tuple(map(_ID, walls)),
        walls=walls,
        coords=coords,
        restriction=restriction,
        threshold=threshold,
        direction=_column(walls, "direction", DIRECTION_CODE),
        bottom=bottom,
        top=top,
        px_per_unit=px_per_unit,
        tree=shapely.STRtree(lines),
    )


_C = operator.attrgetter("c")
_ID = operator.attrgetter("id")
_DOOR = operator.attrgetter("door")


def _any_door(walls: tuple[Wall, ...]) -> bool:
    return set(map(_DOOR, walls)) != {"none"}


def _is_open(wall: Wall) -> bool:
    """An open door (GEO-2)."""
    return wall.door != "none" and wall.door_state == "open"


_THRESHOLD = operator.attrgetter("threshold")
_HEIGHT = operator.attrgetter("height")


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

    Returns
    -------
    TraceResult
    """
    seg = np.asarray(segments, dtype=np.float64).reshape(-1, 4)
    memo = _AHEAD.get()
    if memo and origins is None and creature_mask is None and with_blockers:
        ahead = memo.get(
            _trace_key(
                index, seg, sense, elevations, creature_boxes, creature_ids, wall_mask, edge_blocks
            )
        )
        if ahead is not None:  # traced ahead with other pairs (prefetch_traces)
            return ahead  # type: ignore[no-any-return]
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


def _candidate_pairs(
    index: WallIndex, seg: FloatArray
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(segment, wall) index pairs whose envelopes meet, grown by ``QUERY_TOL_PX``.

    Candidates within a hair of each segment: the tolerant tests of ``_trace_walls`` decide,
    so a wall end point lying on the segment up to float error is never missed (GEO-6
    junctions). Long segments are looked up in pieces of ``QUERY_PIECE_PX`` (at most
    ``MAX_QUERY_PIECES`` of them) so
    that a diagonal across a large map does not make every wall a candidate.
    """
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
) -> None:
    """Fill ``wall_blocked``/``wall_blockers`` in place (see ``trace``)."""
    si, wi = _candidate_pairs(index, seg)
    code = index.restriction[sense][wi]
    keep = code > 0
    if wall_mask is not None:
        keep &= wall_mask[wi]
    si, wi, code = si[keep], wi[keep], code[keep]
    if not len(si):
        return
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
        for s, w in zip(si[proper & limited], wi[proper & limited], strict=True):
            limited_hits.setdefault(int(s), []).append(int(w))
        for s, w in zip(si[proper & ~limited], wi[proper & ~limited], strict=True):
            wall_blockers[s].append(int(w))

    if np.any(ev_a) or np.any(ev_b):
        runs = _collinear_runs(si[collinear], proj_lo[collinear], proj_hi[collinear])
        _junctions(
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
    for s in np.nonzero(wall_blocked)[0]:
        wall_blockers[s] = sorted(set(wall_blockers[s]))


def _collinear_runs(
    seg_idx: NDArray[np.intp], lo: FloatArray, hi: FloatArray
) -> dict[int, list[tuple[float, float]]]:
    """Per segment, the merged stretches (px along it) where it runs along walls."""
    runs: dict[int, list[tuple[float, float]]] = {}
    order = np.lexsort((lo, seg_idx))
    for k in order:
        s, a, b = int(seg_idx[k]), float(lo[k]), float(hi[k])
        mine = runs.setdefault(s, [])
        if mine and a <= mine[-1][1] + ON_LINE_TOL_PX:
            mine[-1] = (mine[-1][0], max(mine[-1][1], b))
        else:
            mine.append((a, b))
    return runs


def _junctions(
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    a: FloatArray,
    b: FloatArray,
    events: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    proj: tuple[FloatArray, FloatArray],
    s_a: NDArray[np.int8],
    s_b: NDArray[np.int8],
    limited: NDArray[np.bool_],
    runs: dict[int, list[tuple[float, float]]],
    wall_blocked: NDArray[np.bool_],
    wall_blockers: list[list[int]] | None,
    limited_count: NDArray[np.int64],
    limited_hits: dict[int, list[int]],
) -> None:
    """Resolve segments passing exactly through wall end points (GEO-6).

    At each such point, the walls meeting there block the segment when some lie strictly on
    its left and some strictly on its right. Where the segment runs along walls for a
    stretch, the end points on that stretch count as one junction: a wall chain that comes
    from the left, runs along the segment and leaves to the right still separates it.
    Limited walls separating it count as one limited crossing (GEO-4). These touches are
    rare, so a Python loop over them is fine.
    """
    groups: dict[tuple[int, int, float, float], list[tuple[int, int, bool]]] = {}
    directions: dict[tuple[int, int], FloatArray] = {}  # (segment, wall) -> ray
    ends = ((events[0], a, b, s_b, proj[0]), (events[1], b, a, s_a, proj[1]))
    for mask, pts, other, other_side, along in ends:
        for k in np.nonzero(mask)[0]:
            s = int(si[k])
            key = (s, 0, round(float(pts[k, 0]), 6), round(float(pts[k, 1]), 6))
            for r, (lo, hi) in enumerate(runs.get(s, ())):
                if lo - ON_LINE_TOL_PX <= along[k] <= hi + ON_LINE_TOL_PX:
                    key = (s, 1, float(r), 0.0)
                    break
            groups.setdefault(key, []).append((int(wi[k]), int(other_side[k]), bool(limited[k])))
            directions[(s, int(wi[k]))] = other[k] - pts[k]
    for (s, _, _, _), rays in groups.items():
        normal = [(w, side) for w, side, lim in rays if not lim]
        if {side for _, side in normal} == {-1, 1}:
            wall_blocked[s] = True
            if wall_blockers is not None:
                wall_blockers[s].extend(_separating(normal, directions, s))
        elif {side for _, side, _ in rays} == {-1, 1}:
            limited_count[s] += 1
            if wall_blockers is not None:
                limited_hits.setdefault(s, []).extend(
                    _separating([(w, side) for w, side, _ in rays], directions, s)
                )


def _separating(
    rays: list[tuple[int, int]], directions: dict[tuple[int, int], FloatArray], seg: int
) -> list[int]:
    """Walls to name as blockers at a junction: a straight wall split there if there is one.

    So that splitting a wall never changes what an answer names: where walls pass straight
    through the point (two pieces in opposite directions on opposite sides), name those
    pieces, as the unsplit walls would be named; otherwise every wall meeting there.
    """
    left = [w for w, side in rays if side > 0]
    right = [w for w, side in rays if side < 0]
    straight: list[int] = []
    for a in left:
        for b in right:
            da, db = directions[(seg, a)], directions[(seg, b)]
            cross = da[0] * db[1] - da[1] * db[0]
            if abs(cross) <= ON_LINE_TOL_PX * np.hypot(*da) * np.hypot(*db) and da @ db < 0:
                straight += [a, b]
    if straight:
        return straight
    return [w for w, _ in rays]


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


def inset_corners(box: Sequence[float], inset_px: float) -> FloatArray:
    """Corners A (top-left), B (top-right), C (bottom-right), D (bottom-left) of a box.

    Parameters
    ----------
    box : sequence of 4 floats
        ``x0, y0, x1, y1`` in px.
    inset_px : float
        Each corner is moved this far toward the centre along both axes (GEO-6), at most to
        the centre.

    Returns
    -------
    ndarray of shape (4, 2)
    """
    x0, y0, x1, y1 = box
    ix = min(inset_px, (x1 - x0) / 2)
    iy = min(inset_px, (y1 - y0) / 2)
    return np.array(
        [[x0 + ix, y0 + iy], [x1 - ix, y0 + iy], [x1 - ix, y1 - iy], [x0 + ix, y1 - iy]],
        dtype=np.float64,
    )


def inset_box(box: Sequence[float], inset_px: float) -> tuple[float, float, float, float]:
    """``box`` shrunk by ``inset_px`` on every side (never past its centre)."""
    corners = inset_corners(box, inset_px)
    return (corners[0, 0], corners[0, 1], corners[2, 0], corners[2, 1])


def box_centre(box: Sequence[float]) -> tuple[float, float]:
    """Centre of a box ``x0, y0, x1, y1`` in px."""
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


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


def region_edges(region_id: str, geom: shapely.Geometry) -> list[tuple[float, float, float, float]]:
    """Boundary segments of a region polygon in px (exterior and holes), for pseudo-walls."""
    out = []
    polys = getattr(geom, "geoms", [geom])
    for poly in polys:
        if poly.is_empty or poly.geom_type != "Polygon":
            continue
        for ring in [poly.exterior, *poly.interiors]:
            xy = np.asarray(ring.coords)
            for k in range(len(xy) - 1):
                out.append(
                    (float(xy[k, 0]), float(xy[k, 1]), float(xy[k + 1, 0]), float(xy[k + 1, 1]))
                )
    return out


def region_geometry(shape: Shape) -> shapely.Geometry:
    """Shapely polygon of a region's ``Shape`` (circles as 64-gon buffers), in px."""
    if shape.type == "rect":
        return shapely.box(shape.x, shape.y, shape.x + shape.width, shape.y + shape.height)
    if shape.type == "circle":
        return shapely.buffer(shapely.Point(shape.x, shape.y), shape.radius, quad_segs=16)
    return shapely.make_valid(shapely.Polygon(shape.points))


# ---------------------------------------------------------------------------------------
# Exact line of effect between two spaces (5E-LOE-2)


@dataclass(frozen=True)
class LineOfEffect:
    """Exact answer for two spaces.

    Attributes
    ----------
    clear : bool
        Some segment from a point of the first space to a point of the second is not blocked.
    witness : tuple of 4 floats or None
        One such segment ``x0, y0, x1, y1`` in px when clear.
    blockers : list of int
        When not clear: walls blocking the centre-to-centre segment (for explanation).
    candidates : int
        Number of candidate segments traced.
    """

    clear: bool
    witness: tuple[float, float, float, float] | None
    blockers: list[int]
    candidates: int


def _line_chord(
    p: FloatArray, u: FloatArray, box: Sequence[float] | FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Parameter interval of the lines ``p + t u`` (n, 2) inside a closed box.

    Returns ``(t_lo, t_hi)``, each shape (n,); empty where ``t_lo > t_hi``.
    """
    t_lo = np.full(len(p), -np.inf)
    t_hi = np.full(len(p), np.inf)
    for axis, (lo, hi) in enumerate(((box[0], box[2]), (box[1], box[3]))):
        up = u[:, axis]
        pp = p[:, axis]
        moving = np.abs(up) > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = (lo - pp) / up
            t2 = (hi - pp) / up
        inside = (pp >= lo - ON_LINE_TOL_PX) & (pp <= hi + ON_LINE_TOL_PX)
        t_lo = np.where(
            moving, np.maximum(t_lo, np.minimum(t1, t2)), np.where(inside, t_lo, np.inf)
        )
        t_hi = np.where(
            moving, np.minimum(t_hi, np.maximum(t1, t2)), np.where(inside, t_hi, -np.inf)
        )
    return t_lo, t_hi


def _incident_rays(
    index: WallIndex, near: NDArray[np.intp], points: FloatArray, sense: str
) -> FloatArray:
    """Directions of the unconditional walls leaving each point, shape (k, r, 2), 0-padded.

    Only two-way, normal, full-height walls count: they block whatever the source.
    """
    firm = (
        (index.restriction[sense][near] == 2)
        & (index.direction[near] == 0)
        & np.isinf(index.bottom[near])
        & np.isinf(index.top[near])
    )
    coords = index.coords[near[firm]]
    starts = np.vstack([coords[:, 0:2], coords[:, 2:4]])
    others = np.vstack([coords[:, 2:4], coords[:, 0:2]])
    lookup = {(float(x), float(y)): k for k, (x, y) in enumerate(points)}
    per_point: list[list[FloatArray]] = [[] for _ in range(len(points))]
    for start, other in zip(starts, others, strict=True):
        k = lookup.get((float(start[0]), float(start[1])))
        if k is not None:
            per_point[k].append(other - start)
    width = max((len(r) for r in per_point), default=0)
    out = np.zeros((len(points), width, 2))
    for k, r in enumerate(per_point):
        if r:
            out[k, : len(r)] = r
    return out


def _separates(
    rays: FloatArray, idx: NDArray[np.intp], u: FloatArray, n_ray: int
) -> NDArray[np.bool_]:
    """Whether the walls at vertex ``idx`` (if a wall vertex) lie on both sides of ``u``."""
    out = np.zeros(len(idx), dtype=bool)
    sel = idx < n_ray
    if not np.any(sel) or rays.shape[1] == 0:
        return out
    r = rays[idx[sel]]  # (m, w, 2)
    d = u[sel][:, None, :]
    norm = np.hypot(d[..., 0], d[..., 1]) * np.hypot(r[..., 0], r[..., 1])
    cross = d[..., 0] * r[..., 1] - d[..., 1] * r[..., 0]
    tol = 1e-9 * norm
    out[sel] = np.any(cross > tol, axis=1) & np.any(cross < -tol, axis=1)
    return out


def _rooms(
    index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None
) -> tuple[shapely.STRtree, NDArray[np.object_]] | None:
    """The closed rooms formed by walls that block ``sense`` unconditionally (memoised).

    Two-way, normal, full-height walls (closed doors included) are noded and polygonized:
    the faces are regions no straight line can leave without crossing such a wall, since a
    line leaving a face crosses its boundary ring, at an interior point or at a vertex whose
    two ring edges lie on either side of it (blocked by GEO-6 either way).
    """
    key = ("rooms", sense, None if wall_mask is None else wall_mask.tobytes())
    if key in index.memo:
        return index.memo[key]  # type: ignore[no-any-return]
    firm = (
        (index.restriction[sense] == 2)
        & (index.direction == 0)
        & np.isinf(index.bottom)
        & np.isinf(index.top)
    )
    if wall_mask is not None:
        firm &= wall_mask
    rooms = None
    if firm.sum() >= 3:
        lines = shapely.linestrings(index.coords[firm].reshape(-1, 2, 2))
        noded = shapely.node(shapely.union_all(lines))
        faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(noded)))
        if len(faces):
            rooms = (shapely.STRtree(faces), faces)
    index.memo[key] = rooms
    return rooms


def _room_of(rooms: tuple[shapely.STRtree, NDArray[np.object_]], box: FloatArray) -> int | None:
    """Index of the room wholly holding ``box``; -1 outside every room; None if unsure."""
    tree, faces = rooms
    geom = (
        shapely.box(*box) if box[2] > box[0] and box[3] > box[1] else shapely.Point(box[0], box[1])
    )
    touching = tree.query(geom, predicate="intersects")
    if not len(touching):
        return -1
    holding = [int(f) for f in touching if shapely.contains_properly(faces[f], geom)]
    return holding[0] if len(holding) == 1 and len(touching) == 1 else None


def sealed_apart(
    index: WallIndex,
    box_from: Sequence[float] | FloatArray,
    box_to: Sequence[float] | FloatArray,
    sense: str = "move",
    wall_mask: NDArray[np.bool_] | None = None,
) -> bool:
    """Whether two spaces lie in different closed rooms (a quick, certain "no line").

    ``False`` means "not known to be sealed", never "clear".
    """
    rooms = _rooms(index, sense, wall_mask)
    if rooms is None:
        return False
    a = _room_of_cached(rooms, box_from)
    b = _room_of_cached(rooms, box_to)
    return a is not None and b is not None and a != b


def _room_of_cached(
    rooms: tuple[shapely.STRtree, NDArray[np.object_]], box: Sequence[float] | FloatArray
) -> int | None:
    """``_room_of``, looked up once per space within a ``batch()``."""
    memo = _AHEAD.get()
    if memo is None:
        return _room_of(rooms, np.asarray(box, dtype=np.float64))
    key = ("room", id(rooms), tuple(float(v) for v in box))
    if key not in memo:
        memo[key] = _room_of(rooms, np.asarray(box, dtype=np.float64))
    return memo[key]  # type: ignore[no-any-return]


#: Per batch (``batch()``): centre-line traces done ahead by ``prefetch_centre_lines``.
_AHEAD: ContextVar[dict[Any, Any] | None] = ContextVar("sightline_ahead", default=None)


@contextmanager
def batch() -> Iterator[dict[Any, Any]]:
    """Within the block, answers computed ahead for many pairs are reused (issue 7).

    Yields the batch's memo (a dict), which callers may also use for per-batch values. Each
    block has its own memo, dropped at its end; contexts (threads) do not share it.
    """
    token = _AHEAD.set({})
    try:
        yield _AHEAD.get()  # type: ignore[misc]
    finally:
        _AHEAD.reset(token)


def batch_memo() -> dict[Any, Any] | None:
    """The memo of the enclosing ``batch()``, or ``None`` outside one."""
    return _AHEAD.get()


def _centre_lines(boxes_from: FloatArray, boxes_to: FloatArray) -> FloatArray:
    """Centre-to-centre segments, shape (p, 4), of boxes of shape (p, 4) px."""
    return np.column_stack(
        [
            (boxes_from[:, 0] + boxes_from[:, 2]) * 0.5,
            (boxes_from[:, 1] + boxes_from[:, 3]) * 0.5,
            (boxes_to[:, 0] + boxes_to[:, 2]) * 0.5,
            (boxes_to[:, 1] + boxes_to[:, 3]) * 0.5,
        ]
    )


def _ahead_key(
    index: WallIndex,
    box_from: Sequence[float] | FloatArray,
    box_to: Sequence[float] | FloatArray,
    sense: str,
    elevations: Sequence[float] | None,
    wall_mask: NDArray[np.bool_] | None,
) -> tuple[Any, ...]:
    return (
        id(index),
        tuple(float(v) for v in box_from),
        tuple(float(v) for v in box_to),
        sense,
        None if elevations is None else (float(elevations[0]), float(elevations[1])),
        None if wall_mask is None else wall_mask.tobytes(),
    )


def _prefetched(
    index: WallIndex,
    box_from: FloatArray,
    box_to: FloatArray,
    sense: str,
    elevations: tuple[float, float] | None,
    wall_mask: NDArray[np.bool_] | None,
) -> tuple[bool, list[int]] | None:
    memo = _AHEAD.get()
    if not memo:
        return None
    return memo.get(_ahead_key(index, box_from, box_to, sense, elevations, wall_mask))  # type: ignore[no-any-return]


def prefetch_centre_lines(
    index: WallIndex,
    boxes_from: FloatArray,
    boxes_to: FloatArray,
    sense: str = "move",
    *,
    elevations: FloatArray | None = None,
    wall_mask: NDArray[np.bool_] | None = None,
) -> None:
    """Trace the centre-to-centre lines of p pairs of spaces in one vectorised call.

    Inside ``batch()``, ``line_of_effect_between`` on the same pair, sense, elevations and
    mask then answers from them without tracing: clear when the centre line is (it is the
    first candidate there too), and with its blockers when the spaces are sealed apart.
    Outside a batch this does nothing. Answers are the same as without it.

    Parameters
    ----------
    index : WallIndex
    boxes_from, boxes_to : ndarray of shape (p, 4)
        ``x0, y0, x1, y1`` px of each pair's spaces.
    sense : str
    elevations : ndarray of shape (p, 2), optional
        Grid units, as ``line_of_effect_between``'s.
    wall_mask : ndarray of shape (n,), bool, optional
    """
    memo = _AHEAD.get()
    if memo is None or not len(boxes_from):
        return
    bf = np.asarray(boxes_from, dtype=np.float64).reshape(-1, 4)
    bt = np.asarray(boxes_to, dtype=np.float64).reshape(-1, 4)
    elev = None if elevations is None else np.asarray(elevations, dtype=np.float64)
    traced = trace(index, _centre_lines(bf, bt), sense, elevations=elev, wall_mask=wall_mask)
    for p in range(len(bf)):
        key = _ahead_key(index, bf[p], bt[p], sense, None if elev is None else elev[p], wall_mask)
        memo[key] = (bool(traced.wall_blocked[p]), traced.wall_blockers[p])


@dataclass(frozen=True)
class TraceRequest:
    """The arguments of one ``trace`` call (with blockers, default origins), to batch them.

    Attributes are those of ``trace``: ``segments`` (m, 4) px, ``elevations`` (m, 2) grid
    units or None, ``creature_boxes`` (k, 4) px with their ``creature_ids``.
    """

    segments: FloatArray
    sense: str = "move"
    elevations: FloatArray | None = None
    creature_boxes: FloatArray | None = None
    creature_ids: tuple[str, ...] = ()
    wall_mask: NDArray[np.bool_] | None = None
    edge_blocks: bool = False

    def run(self, index: WallIndex) -> TraceResult:
        """``trace`` with these arguments (answered from a batch's prefetch when there)."""
        return trace(
            index,
            self.segments,
            self.sense,
            elevations=self.elevations,
            creature_boxes=self.creature_boxes,
            creature_ids=self.creature_ids,
            wall_mask=self.wall_mask,
            edge_blocks=self.edge_blocks,
        )


def _bytes(array: Any) -> bytes | None:
    return None if array is None else np.ascontiguousarray(array, dtype=np.float64).tobytes()


def _trace_key(
    index: WallIndex,
    seg: FloatArray,
    sense: str,
    elevations: Any,
    creature_boxes: Any,
    creature_ids: Sequence[str],
    wall_mask: NDArray[np.bool_] | None,
    edge_blocks: bool,
) -> tuple[Any, ...]:
    boxes = None if creature_boxes is None or not len(creature_boxes) else creature_boxes
    return (
        "trace",
        id(index),
        seg.tobytes(),
        sense,
        _bytes(elevations),
        _bytes(boxes),
        tuple(creature_ids) if boxes is not None else (),
        None if wall_mask is None else wall_mask.tobytes(),
        bool(edge_blocks),
    )


def prefetch_traces(index: WallIndex, requests: Sequence[TraceRequest]) -> None:
    """Trace the segments of many requests in one vectorised call per kind (issue 7).

    Inside ``batch()``, a later ``trace`` with a request's exact arguments (for instance
    ``TraceRequest.run``) returns its part of the result instead of tracing again; the part
    is what that call alone returns, creature blockers in the request's order. Requests are
    grouped by sense, wall mask, ``edge_blocks`` and whether they have elevations; the
    creatures of a group are the union of the requests', each request counting its own only.
    Outside a batch this does nothing.
    """
    memo = _AHEAD.get()
    if memo is None:
        return
    groups: dict[Any, list[TraceRequest]] = {}
    for req in requests:
        mask = None if req.wall_mask is None else req.wall_mask.tobytes()
        kind = (req.sense, mask, bool(req.edge_blocks), req.elevations is None)
        groups.setdefault(kind, []).append(req)
    for group in groups.values():
        first = group[0]
        column: dict[tuple[str, tuple[float, ...]], int] = {}
        for req in group:
            for cid, box in zip(req.creature_ids, _boxes(req), strict=True):
                column.setdefault((cid, tuple(box)), len(column))
        segs = [np.asarray(r.segments, dtype=np.float64).reshape(-1, 4) for r in group]
        rows = np.cumsum([0] + [len(s) for s in segs])
        creatures = np.zeros((int(rows[-1]), len(column)), dtype=bool)
        for r, req in enumerate(group):
            cols = [
                column[(cid, tuple(box))]
                for cid, box in zip(req.creature_ids, _boxes(req), strict=True)
            ]
            creatures[rows[r] : rows[r + 1], cols] = True
        traced = trace(
            index,
            np.vstack(segs),
            first.sense,
            elevations=None
            if first.elevations is None
            else np.vstack([np.asarray(r.elevations, dtype=np.float64) for r in group]),
            creature_boxes=np.array([box for _, box in column], dtype=np.float64).reshape(-1, 4),
            creature_ids=[cid for cid, _ in column],
            creature_mask=creatures,
            wall_mask=first.wall_mask,
            edge_blocks=first.edge_blocks,
        )
        for r, req in enumerate(group):
            lo, hi = int(rows[r]), int(rows[r + 1])
            order = {cid: k for k, cid in enumerate(req.creature_ids)}
            part = TraceResult(
                traced.segments[lo:hi],
                traced.wall_blocked[lo:hi],
                traced.creature_blocked[lo:hi],
                traced.wall_blockers[lo:hi],
                [sorted(ids, key=order.__getitem__) for ids in traced.creature_blockers[lo:hi]],
            )
            key = _trace_key(
                index,
                segs[r],
                req.sense,
                req.elevations,
                req.creature_boxes,
                req.creature_ids,
                req.wall_mask,
                req.edge_blocks,
            )
            memo[key] = part


def _boxes(req: TraceRequest) -> FloatArray:
    if req.creature_boxes is None:
        return np.empty((0, 4))
    return np.asarray(req.creature_boxes, dtype=np.float64).reshape(-1, 4)


def line_of_effect_between(
    index: WallIndex,
    box_from: Sequence[float],
    box_to: Sequence[float],
    sense: str = "move",
    *,
    elevations: tuple[float, float] | None = None,
    wall_mask: NDArray[np.bool_] | None = None,
) -> LineOfEffect:
    """Exact line of effect between two axis-aligned spaces (5E-LOE-2).

    Clear when **some** segment from any point of ``box_from`` to any point of ``box_to``
    is not blocked by walls restricting ``sense`` (GEO-1..6); creatures do not block line
    of effect. If such a segment exists, one can be moved, keeping it clear, until its line
    passes through two vertices among the wall end points and box corners inside the hull
    of both boxes and the points where walls cross the boxes' edges; so the lines through
    every such pair are the complete candidate set, traced in one vectorised call.

    Parameters
    ----------
    index : WallIndex
    box_from, box_to : sequence of 4 floats
        ``x0, y0, x1, y1`` in px; the first is the source for one-way walls (GEO-3).
    sense : str
        Wall restriction to use: ``move`` (line of effect) or ``sight`` (line of sight).
    elevations : (float, float), optional
        Elevation in grid units of the two spaces (GEO-5).
    wall_mask : ndarray of shape (n,), bool, optional
        Walls to consider (default all): low obstacles never block line of effect.

    Returns
    -------
    LineOfEffect
    """
    bf = np.asarray(box_from, dtype=np.float64)
    bt = np.asarray(box_to, dtype=np.float64)
    corners_f = np.array([[bf[0], bf[1]], [bf[2], bf[1]], [bf[2], bf[3]], [bf[0], bf[3]]])
    corners_t = np.array([[bt[0], bt[1]], [bt[2], bt[1]], [bt[2], bt[3]], [bt[0], bt[3]]])
    centre_line = _centre_lines(bf[None, :], bt[None, :])[0]
    overlap = bf[0] <= bt[2] and bt[0] <= bf[2] and bf[1] <= bt[3] and bt[1] <= bf[3]
    if overlap:
        point = (max(bf[0], bt[0]), max(bf[1], bt[1]))
        return LineOfEffect(True, (*point, *point), [], 0)

    ahead = _prefetched(index, bf, bt, sense, elevations, wall_mask)
    if ahead is not None and not ahead[0]:  # the centre line is clear: it is the witness
        return LineOfEffect(True, tuple(float(v) for v in centre_line), [], 1)  # type: ignore[arg-type]
    if sealed_apart(index, bf, bt, sense, wall_mask):
        if ahead is not None:
            return LineOfEffect(False, None, ahead[1], 1)
        centre = trace(
            index,
            centre_line[None, :],
            sense,
            elevations=None if elevations is None else np.array([elevations], dtype=np.float64),
            wall_mask=wall_mask,
        )
        return LineOfEffect(False, None, centre.wall_blockers[0], 1)

    first = [centre_line]
    first += [np.concatenate([cf, ct]) for cf in corners_f for ct in corners_t]
    segs = [np.array(first)]

    hull = shapely.convex_hull(shapely.multipoints(np.vstack([corners_f, corners_t])))
    verts = [corners_f, corners_t]
    ray_verts: FloatArray = np.empty((0, 2))
    rays: FloatArray = np.empty((0, 0, 2))
    if index.size:
        near = index.tree.query(hull, predicate="intersects")
        near = near[index.restriction[sense][near] > 0]
        if wall_mask is not None:
            near = near[wall_mask[near]]
        if len(near):
            ends = index.coords[near].reshape(-1, 2)
            grown = shapely.buffer(hull, 1e-6)
            ends = ends[shapely.contains_xy(grown, ends[:, 0], ends[:, 1])]
            # Where walls cross the boxes' edges are vertices of the free space too.
            edges = shapely.union(shapely.box(*bf).boundary, shapely.box(*bt).boundary)
            cuts = shapely.get_coordinates(
                shapely.intersection(
                    shapely.linestrings(index.coords[near].reshape(-1, 2, 2)), edges
                )
            )
            ray_verts = np.unique(ends, axis=0)
            rays = _incident_rays(index, near, ray_verts, sense)
            verts = [ray_verts, corners_f, corners_t, cuts]
    pts = np.vstack(verts)
    n_ray = len(ray_verts)
    i, j = np.triu_indices(len(pts), k=1)
    # A clear segment can be moved until its line rests on two vertices lying on it, where
    # the walls stay on one side; at a vertex whose unconditional walls lie on both sides of
    # the line (a straight wall split there, a T) every such line is blocked: skip those.
    u = pts[j] - pts[i]
    keep = np.hypot(u[:, 0], u[:, 1]) > ON_LINE_TOL_PX
    if n_ray:
        keep &= ~_separates(rays, i, u, n_ray) & ~_separates(rays, j, u, n_ray)
    i, j, u = i[keep], j[keep], u[keep]
    p = pts[i]
    lo_f, hi_f = _line_chord(p, u, bf)
    lo_t, hi_t = _line_chord(p, u, bt)
    ok = (lo_f <= hi_f) & (lo_t <= hi_t)
    p, u, lo_f, hi_f, lo_t, hi_t = p[ok], u[ok], lo_f[ok], hi_f[ok], lo_t[ok], hi_t[ok]
    # The boxes are disjoint, so on a line their chords are disjoint intervals: join the
    # facing ends (any clear segment between the chords contains this one).
    forward = hi_f <= lo_t
    t0 = np.where(forward, hi_f, lo_f)
    t1 = np.where(forward, lo_t, hi_t)
    # Both vertices (parameters 0 and 1 on the line) must lie on that segment.
    lo, hi = np.minimum(t0, t1) - 1e-9, np.maximum(t0, t1) + 1e-9
    on = (lo <= 0) & (0 <= hi) & (lo <= 1) & (1 <= hi)
    p, u, t0, t1 = p[on], u[on], t0[on], t1[on]
    segs.append(np.hstack([p + u * t0[:, None], p + u * t1[:, None]]))
    all_segs = np.vstack(segs)
    elev = None
    if elevations is not None:
        elev = np.tile(np.asarray(elevations, dtype=np.float64), (len(all_segs), 1))
    result = trace(index, all_segs, sense, elevations=elev, wall_mask=wall_mask)
    clear = np.nonzero(~result.wall_blocked)[0]
    if len(clear):
        k = int(clear[0])
        w = tuple(float(v) for v in all_segs[k])
        return LineOfEffect(True, w, [], len(all_segs))  # type: ignore[arg-type]
    return LineOfEffect(False, None, result.wall_blockers[0], len(all_segs))
