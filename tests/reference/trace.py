"""The numpy oracle of the compiled trace (GEO-1..7): what the properties hold it equal to.

The product measures only compiled (``service.geometry.walk``, ``wall_tests``,
``junctions``, ``creature_tests``, ``obstacles``, ``rooms``). This module keeps the numpy and
GEOS reference of each compiled step, with the compiled step's signature, and
``reference_paths()`` puts them in place of the compiled ones for a block
(``tests/kernel_paths.py``): the walls near a segment from an ``STRtree`` envelope query
(no filter, no settling), the exact tests in numpy arithmetic, the junction rules as Python
loops over the rare touches, the creature spaces tested pair by pair, the density estimate
from ``WallDensity.walls_at``, the points on walls from a GEOS ``dwithin`` query and the
crossing count from a GEOS ``crosses`` query.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.density import WallDensity
from service.engine.tolerances import ON_LINE_TOL_PX, QUERY_TOL_PX
from service.engine.walls import FloatArray, WallIndex
from service.geometry import creature_tests, obstacles, rooms, walk, wall_tests
from service.geometry.bands import band_at, meets, overlaps_between
from service.geometry.creature_tests import _slab
from service.geometry.junctions import RunEvents
from service.geometry.obstacles import wall_components
from service.geometry.walk import MAX_QUERY_PIECES, QUERY_PIECE_PX
from service.geometry.wall_tests import PairTests
from tests.reference.rooms import crossings_within


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


def candidate_pairs(index: WallIndex, seg: FloatArray) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(segment, wall) pairs whose envelopes meet, from the walls' ``STRtree``."""
    if not index.size or not len(seg):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
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


def search(
    index: WallIndex,
    seg: FloatArray,
    eligible: NDArray[np.bool_],
    keep_all: bool = False,
    plain: Any = None,
    corners: Any = None,
    listing: bool = False,
    only: Any = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp], int, NDArray[np.int8]]:
    """``walk.search`` without its filter and its settling: every eligible candidate."""
    si, wi = candidate_pairs(index, np.asarray(seg, dtype=np.float64).reshape(-1, 4))
    count = len(si)
    if not keep_all:
        keep = eligible[wi]
        si, wi = si[keep], wi[keep]
    return si, wi, count, np.zeros(len(seg), dtype=np.int8)


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
    comps: Any,
    only: tuple[NDArray[np.int64], bool] | None,
    corners: FloatArray | None,
    corner_comp: NDArray[np.int64] | None,
) -> PairTests:
    """``wall_tests.exact_tests`` in numpy: the per-pair tests of GEO-1..6."""
    si, wi, code = pairs
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
    thr = threshold
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
    if only is not None:
        comps_of, inside = only
        comp = wall_components(index)[wi]
        member = (comp == comps_of[si, 0]) | (comp == comps_of[si, 1])
        active &= member if inside else ~member

    # Parameter along the segment where it meets the wall's line, for heights (GEO-5).
    denom = d[:, 0] * e[:, 1] - d[:, 1] * e[:, 0]
    ap = a - p0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # nearly parallel
        t_cross = np.where(denom != 0, (ap[:, 0] * e[:, 1] - ap[:, 1] * e[:, 0]) / denom, 0.0)
    partial = np.zeros(len(si), dtype=bool)
    if bands is not None:  # GEO-5, GEO-5a: the band at the crossing
        low, high, thin = band_at(bands[si], t_cross)
        covers, partly = meets(low, high, thin, index.bottom[wi], index.top[wi])
        allowed = low_obstacles
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

    if corner_comp is not None and corners is not None:
        # GEO-6: walls with an end on the exact corner that cross or touch the inset line.
        ex = corners[si]
        touching = proper | collinear | ev_a | ev_b | (active & ((s_a == 0) | (s_b == 0)))
        comp = wall_components(index)[wi]
        for c in (0, 1):
            on_corner = np.zeros(len(si), dtype=bool)
            for end in (a, b):
                on_corner |= (np.abs(end[:, 0] - ex[:, 2 * c]) <= QUERY_TOL_PX) & (
                    np.abs(end[:, 1] - ex[:, 2 * c + 1]) <= QUERY_TOL_PX
                )
            hit = on_corner & touching
            corner_comp[si[hit], c] = comp[hit]
    return PairTests(
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


def junctions(
    index: WallIndex,
    m: int,
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    events: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    proj: tuple[FloatArray, FloatArray],
    sides: tuple[NDArray[np.int8], NDArray[np.int8]],
    limited: NDArray[np.bool_],
    runs: dict[int, list[tuple[float, float]]],
    listing: bool,
) -> tuple[NDArray[np.int64], ...]:
    """``junctions.junctions``' answer from the Python loops of ``_junction_loops``."""
    blocked = np.zeros(m, dtype=bool)
    blockers: list[list[int]] | None = [[] for _ in range(m)] if listing else None
    count = np.zeros(m, dtype=np.int64)
    hits: dict[int, list[int]] = {}
    a, b = index.coords[wi, 0:2], index.coords[wi, 2:4]
    _junction_loops(
        si,
        wi,
        a,
        b,
        events,
        proj,
        sides[0],
        sides[1],
        limited,
        runs,
        blocked,
        blockers,
        count,
        hits,
    )
    return (
        _rows(blocked, blockers),
        np.repeat(np.arange(m), count).astype(np.int64),
        _rows(np.zeros(m, dtype=bool), None, hits),
    )


def _rows(
    blocked: NDArray[np.bool_],
    blockers: list[list[int]] | None,
    hits: dict[int, list[int]] | None = None,
) -> NDArray[np.int64]:
    """(segment, wall) rows: of ``hits``, of ``blockers``, or (segment, -1) per blocked one."""
    if hits is not None:
        rows = [(s, w) for s in sorted(hits) for w in hits[s]]
    elif blockers is not None:
        rows = [(s, w) for s in range(len(blockers)) for w in blockers[s]]
    else:
        rows = [(s, -1) for s in np.flatnonzero(blocked).tolist()]
    return np.asarray(rows, dtype=np.int64).reshape(-1, 2)


def end_junctions(
    seg: FloatArray,
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    coords: FloatArray,
    active: NDArray[np.bool_],
    inward: FloatArray,
    along: RunEvents,
    listing: bool,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``junctions.end_junctions``' answer from the numpy steps of ``_end_junction_steps``."""
    m = len(seg)
    blocked = np.zeros(m, dtype=bool)
    blockers: list[list[int]] | None = [[] for _ in range(m)] if listing else None
    a, b = coords[wi, 0:2], coords[wi, 2:4]
    _end_junction_steps(seg, si, wi, a, b, active, inward, along, blocked, blockers)
    rows = _rows(blocked, blockers) if listing else np.zeros((0, 2), dtype=np.int64)
    return np.flatnonzero(blocked).astype(np.int64), rows


def creature_pairs(
    seg: FloatArray,
    boxes: FloatArray,
    exact: FloatArray | None,
    grid: Any = None,
    heights: tuple[FloatArray, FloatArray] | None = None,
    mask: Any = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``creature_tests.creature_pairs`` in numpy: every (segment, space) pair tested."""
    bands, spans = heights if heights is not None else (None, None)
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
    return rows, cols


def _box_corner_on(boxes: FloatArray, points: FloatArray) -> NDArray[np.bool_]:
    """Whether a corner of box ``boxes[i]`` (p, 4) lies on point ``points[i]`` (p, 2)."""
    px, py = points[:, 0], points[:, 1]
    on_x = (np.abs(boxes[:, 0] - px) <= QUERY_TOL_PX) | (np.abs(boxes[:, 2] - px) <= QUERY_TOL_PX)
    on_y = (np.abs(boxes[:, 1] - py) <= QUERY_TOL_PX) | (np.abs(boxes[:, 3] - py) <= QUERY_TOL_PX)
    return on_x & on_y


def sampled_density(
    seg: FloatArray, t: FloatArray, x0: float, y0: float, cell_w: float, cell_h: float, cover: Any
) -> FloatArray:
    """``walk.sampled_density`` from ``WallDensity.walls_at`` in numpy."""
    density = WallDensity(x0, y0, cell_w, cell_h, cover)
    xs = seg[:, 0, None] + (seg[:, 2] - seg[:, 0])[:, None] * t
    ys = seg[:, 1, None] + (seg[:, 3] - seg[:, 1])[:, None] * t
    per_piece = density.walls_at(np.column_stack([xs.ravel(), ys.ravel()]))
    return per_piece.reshape(len(seg), len(t)).mean(axis=1)


def points_on_walls(
    index: WallIndex, points: FloatArray
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``obstacles.points_on_walls`` from GEOS's ``dwithin`` query of the walls' tree."""
    points = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 2)
    e, w = index.tree.query(shapely.points(points), predicate="dwithin", distance=QUERY_TOL_PX)
    order = np.lexsort((w, e))
    return e[order].astype(np.int64), w[order].astype(np.int64)


def firm_crossings_within(index: WallIndex, firm: NDArray[np.bool_], limit: int) -> bool:
    """``rooms.firm_crossings_within`` from GEOS's ``crosses`` query (``crossings_within``)."""
    return crossings_within(shapely.linestrings(index.coords[firm].reshape(-1, 2, 2)), limit)


@contextmanager
def reference_paths() -> Iterator[None]:
    """Every compiled step replaced by its oracle in this module, for the block."""
    swaps = [
        (walk, "search", search),
        (walk, "sampled_density", sampled_density),
        (wall_tests, "exact_tests", exact_tests),
        (wall_tests, "junctions", junctions),
        (wall_tests, "end_junctions", end_junctions),
        (creature_tests, "creature_pairs", creature_pairs),
        (obstacles, "points_on_walls", points_on_walls),
        (rooms, "firm_crossings_within", firm_crossings_within),
    ]
    with ExitStack() as stack:
        for module, name, value in swaps:
            stack.enter_context(mock.patch.object(module, name, value))
        yield


def _junction_loops(
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


def _end_junction_steps(
    seg: FloatArray,
    si: NDArray[np.intp],
    wi: NDArray[np.intp],
    a: FloatArray,
    b: FloatArray,
    active: NDArray[np.bool_],
    inward: FloatArray,
    along: RunEvents,
    wall_blocked: NDArray[np.bool_],
    wall_blockers: list[list[int]] | None,
) -> None:
    """GEO-6 at an exact corner line's own ends: the token's space is the line's far side.

    A line leaving a token's corner comes, as it were, from inside the token's space: the
    walls meeting at that corner block it when they separate the direction into the space
    (``inward``, (m, 4): start then end, zero for a point) from the line's direction, as
    the junction rule does for a line passing through a point where walls meet. A room
    corner wrapped around the token blocks a line leaving the room there; a pillar the token
    stands flush against blocks only lines going into it. Walls whose interior holds the
    corner count as two rays. Where the line runs along walls from its end, the wall ends
    on that stretch count with the corner (as ``junctions`` counts a stretch as one point):
    a line leaving a corner along a wall, between a wall on the token's side and walls on
    the other, is blocked. These touches are rare, so a Python loop over them is fine.
    """
    e = b - a
    wall_len = np.hypot(e[:, 0], e[:, 1])
    safe = np.where(wall_len > 0, wall_len, 1.0)
    picked: list[tuple[NDArray[np.intp], FloatArray, int]] = []  # (k, rays, end)
    for end in (0, 1):  # the candidates are many, the touches few: all found at once
        v = inward[si, 2 * end : 2 * end + 2]
        pt = seg[si, 2 * end : 2 * end + 2]
        da = np.hypot(*(a - pt).T)
        db = np.hypot(*(b - pt).T)
        off = np.abs(e[:, 0] * (pt[:, 1] - a[:, 1]) - e[:, 1] * (pt[:, 0] - a[:, 0])) / safe
        at = np.einsum("ij,ij->i", pt - a, e) / safe
        at_a = da <= QUERY_TOL_PX
        at_b = ~at_a & (db <= QUERY_TOL_PX)
        inner = ~at_a & ~at_b & (off <= ON_LINE_TOL_PX) & (at > 0) & (at < wall_len)
        eligible = active & ((v[:, 0] != 0) | (v[:, 1] != 0)) & (wall_len > ON_LINE_TOL_PX)
        ks = np.flatnonzero(eligible & (at_a | at_b | inner))
        # One ray along the wall from the corner, or two where the corner lies inside it.
        first = np.where(at_a[ks, None], e[ks], np.where(at_b[ks, None], -e[ks], a[ks] - pt[ks]))
        two = ks[inner[ks]]
        k_all = np.concatenate([ks, two])
        order = np.lexsort((np.repeat([0, 1], [len(ks), len(two)]), k_all))
        picked.append((k_all[order], np.concatenate([first, b[two] - pt[two]])[order], end))
    k_all = np.concatenate([k for k, _, _ in picked])
    ray = np.concatenate([r for _, r, _ in picked])
    ends = np.concatenate([np.full(len(k), end) for k, _, end in picked])
    seg_of = si[k_all]
    start, finish = seg[seg_of, 0:2], seg[seg_of, 2:4]
    pt = np.where(ends[:, None] == 0, start, finish)
    line = np.where(ends[:, None] == 0, finish, start) - pt
    way_in = np.where(ends[:, None] == 0, inward[seg_of, 0:2], inward[seg_of, 2:4])
    alpha = _angles(line, way_in)
    ang = _angles(line, ray)
    tol = 1e-9
    aside = (ang <= tol) | (ang >= 2 * np.pi - tol) | (np.abs(ang - alpha) <= tol)
    # From the start, the sector between the line and the way in holds the line's left;
    # from the end (looking back), it holds its right.
    left = (ang < alpha) == (ends == 0)
    # Each end's walls, as the left (True) or right side of the path that comes out of the
    # token's space, follows the line and goes into the other token's space.
    groups: dict[tuple[int, int], dict[bool, list[int]]] = {}
    rows = zip(
        seg_of.tolist(),
        ends.tolist(),
        wi[k_all].tolist(),
        aside.tolist(),
        left.tolist(),
        strict=True,
    )
    for s, end, w, skip, is_left in rows:
        sides = groups.setdefault((s, end), {})
        if not skip:  # along the line or along the way in: on neither side
            sides.setdefault(is_left, []).append(w)
    lengths = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1]).tolist()
    for s in sorted({k for k, _ in groups}):
        length = lengths[s]
        for end in (0, 1):
            group = groups.get((s, end))
            if group is None:
                continue
            # Wall ends along a stretch run from this end belong to the same junction.
            events, reaches = along.on_run_from(s, end, length)
            for k, side in events:
                group.setdefault(side > 0, []).append(int(wi[k]))
            if end == 0 and reaches and (s, 1) in groups:
                for key, ws in group.items():  # one stretch from end to end: one junction
                    groups[(s, 1)].setdefault(key, []).extend(ws)
                continue
            if len(group) == 2:
                wall_blocked[s] = True
                if wall_blockers is not None:
                    wall_blockers[s].extend(group[True] + group[False])


def _angles(u: FloatArray, v: FloatArray) -> FloatArray:
    """Angles in [0, 2 pi) from directions ``u`` (p, 2) to directions ``v`` (p, 2), by row.

    Screen frame (y down), as the walls' coordinates.
    """
    ang = np.arctan2(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0], u[:, 0] * v[:, 0] + u[:, 1] * v[:, 1])
    return np.where(ang >= 0, ang, ang + 2 * np.pi)
