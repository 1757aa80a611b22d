"""The exact search for a clear line between two spaces (5E-LOE-2, GEO-6), for many pairs.

If some segment between two disjoint spaces is clear, one can be moved, keeping it clear,
until its line passes through two **vertices**: wall ends inside the hull of both spaces,
the spaces' corners, and the points where walls cross the spaces' edges. The lines through
every pair of vertices, clipped to the facing ends of their chords of the two spaces, are
therefore the complete set of **candidates**; the first clear one in the search's order
(vertex pairs in ``np.triu_indices`` order) is the **witness**.

``search_many`` runs the searches of many pairs: every step is one array operation over all
their walls, vertices and candidates (a matrix runs hundreds of searches, each mostly fixed
cost; ``docs/architecture.md``, measure). The caller (``service.geometry.exact``) has
already traced each pair's centre line and its 16 corner-to-corner lines, all blocked.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.budget import SEARCH_UNITS, WorkBudget
from service.engine.tolerances import CHORD_TOL, ON_LINE_TOL_PX, QUERY_TOL_PX, SIDE_TOL_REL
from service.engine.walls import FloatArray, WallIndex
from service.geometry.firm import firm_walls, surely_blocked
from service.geometry.trace import TraceSpec, trace
from service.geometry.walk import first_crossings

#: Line–wall candidate tests one exact search may spend (about a second); past it the
#: request is refused with what to reduce. A search with more vertex pairs than this is
#: refused before tracing any (each pair's line costs at least one test).
MAX_SEARCH_TESTS = 400_000

#: The search is refused before it starts when a sample of lines spread over all of it
#: predicts more than this many times ``MAX_SEARCH_TESTS`` (a clear line may still be found
#: early).
EARLY_REFUSAL_FACTOR = 4

#: Candidate lines sampled for that prediction.
SAMPLE_LINES = 256

#: Vertex pairs of one search turned into candidate lines and traced at once (memory bound).
CANDIDATE_CHUNK = 32_768

#: Vertex pairs of the searches run together (memory bound).
MANY_CHUNK = 262_144

#: Lines each pair has had traced before its search: the centre line and the 16
#: corner-to-corner lines, all blocked (counted in ``Found.candidates``).
FIRST_LINES = 17


class Found(NamedTuple):
    """One pair's search.

    Attributes
    ----------
    witness : tuple of 4 floats or None
        ``x0, y0, x1, y1`` px of the first clear candidate; ``None``: every one is blocked.
    candidates : int
        Lines traced for the pair, its ``FIRST_LINES`` included.
    """

    witness: tuple[float, float, float, float] | None
    candidates: int


def _corners(boxes: FloatArray) -> FloatArray:
    """The corners (p, 4, 2) px of boxes (p, 4): ``(x0, y0), (x1, y0), (x1, y1), (x0, y1)``."""
    return np.stack(
        [boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]], boxes[:, [0, 3]]], axis=1
    )


def distinct_rows(rows: FloatArray) -> tuple[FloatArray, NDArray[np.intp]]:
    """The distinct rows of ``rows`` (n, k) in lexicographic order, and each row's index.

    ``np.unique(axis=0, return_inverse=True)``, sorting numbers rather than bytes (faster);
    the indices have shape (n,).
    """
    order = np.lexsort(rows.T[::-1])
    ranked = rows[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = np.any(ranked[1:] != ranked[:-1], axis=1)
    inverse = np.empty(len(rows), dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return ranked[new], inverse


def distinct_by_owner(
    points: FloatArray, owner: NDArray[np.intp]
) -> tuple[FloatArray, NDArray[np.intp]]:
    """Each owner's distinct points (n, 2), sorted by owner, then x, then y, and their owner.

    ``distinct_rows`` of the rows ``owner, x, y``.
    """
    found, _ = distinct_rows(np.column_stack([owner.astype(np.float64), points]))
    return np.ascontiguousarray(found[:, 1:]), found[:, 0].astype(np.intp)


def edge_cuts(
    index: WallIndex,
    pair: NDArray[np.intp],
    wall: NDArray[np.intp],
    bf: FloatArray,
    bt: FloatArray,
) -> tuple[FloatArray, NDArray[np.intp]]:
    """Where walls cross the edges of their pair's two boxes: vertices of the free space.

    ``pair`` and ``wall`` (m,): each row a wall of ``index`` near a pair of boxes ``bf``,
    ``bt`` (p, 4) px. Returns the points (c, 2) px, rows in order and each row's points in
    shapely's order (an edge the wall runs along gives its two ends), and each point's pair
    (c,). Only the rows whose wall's bounding box meets one of the boxes are intersected:
    the others cross no edge.
    """
    c = index.coords[wall]
    lo_x, hi_x = np.minimum(c[:, 0], c[:, 2]), np.maximum(c[:, 0], c[:, 2])
    lo_y, hi_y = np.minimum(c[:, 1], c[:, 3]), np.maximum(c[:, 1], c[:, 3])

    def meets(box: FloatArray) -> NDArray[np.bool_]:
        b = box[pair]
        return (lo_x <= b[:, 2]) & (b[:, 0] <= hi_x) & (lo_y <= b[:, 3]) & (b[:, 1] <= hi_y)

    rows = np.flatnonzero(meets(bf) | meets(bt))
    if not len(rows):
        return np.empty((0, 2)), np.empty(0, dtype=np.intp)
    at = pair[rows]
    edges = shapely.union(
        shapely.boundary(shapely.box(*bf[at].T)), shapely.boundary(shapely.box(*bt[at].T))
    )
    found = shapely.intersection(shapely.linestrings(c[rows].reshape(-1, 2, 2)), edges)
    cuts, of = shapely.get_coordinates(found, return_index=True)
    return cuts, at[of]


def incident_rays(
    index: WallIndex,
    qi: NDArray[np.intp],
    wi: NDArray[np.intp],
    points: FloatArray,
    point_pair: NDArray[np.intp],
    sense: str,
) -> FloatArray:
    """Directions of the firm walls leaving each search's ray vertices, (len(points), r, 2).

    0-padded. Only two-way, normal, full-height walls count: they block whatever the source
    (``firm.firm_walls``). ``qi, wi``: the (search, wall) pairs near each search;
    ``points``: each search's ray vertices, sorted by search, x, y (``point_pair``: their
    search). Each point's rays come in its search's wall order, first ends, then second.
    """
    firm = index.firm(sense)[wi]
    q, coords = qi[firm], index.coords[wi[firm]]
    starts = np.vstack([coords[:, 0:2], coords[:, 2:4]])
    others = np.vstack([coords[:, 2:4], coords[:, 0:2]])
    owner = np.concatenate([q, q])
    # Match (search, start) to (search, vertex): sort both together, vertices first.
    n = len(points)
    keys_x = np.concatenate([points[:, 0], starts[:, 0]])
    keys_y = np.concatenate([points[:, 1], starts[:, 1]])
    keys_p = np.concatenate([point_pair, owner])
    is_start = np.concatenate([np.zeros(n, bool), np.ones(len(starts), bool)])
    order = np.lexsort((is_start, keys_y, keys_x, keys_p))
    sp, sx, sy = keys_p[order], keys_x[order], keys_y[order]
    run = np.ones(len(order), dtype=bool)
    run[1:] = (sp[1:] != sp[:-1]) | (sx[1:] != sx[:-1]) | (sy[1:] != sy[:-1])
    run_id = np.cumsum(run) - 1
    head = order[run]  # each run's first row: its vertex when it has one
    vertex_of_run = np.where(head < n, head, -1)
    match = np.full(len(order), -1, dtype=np.intp)
    match[order] = vertex_of_run[run_id]
    k = match[n:]
    # Within each search, the rays in wall order: first ends, then second ends.
    seq = np.concatenate([np.arange(len(q)), np.arange(len(q)) + len(q)])
    at = np.flatnonzero(k >= 0)
    k = k[at]
    order2 = np.lexsort((seq[at], k))
    k, at = k[order2], at[order2]
    counts = np.bincount(k, minlength=n)
    width = int(counts.max()) if len(k) else 0
    out = np.zeros((n, width, 2))
    slot = np.arange(len(k)) - np.repeat(np.cumsum(counts) - counts, counts)
    out[k, slot] = others[at] - starts[at]
    return out


def _separates(rays: FloatArray, rows: NDArray[np.intp], u: FloatArray) -> NDArray[np.bool_]:
    """Whether the firm walls at each line's vertex lie on both sides of its direction ``u``.

    ``rows`` (m,): each line's vertex as its row of ``rays`` (-1: not a wall end).
    """
    out = np.zeros(len(rows), dtype=bool)
    sel = rows >= 0
    if not np.any(sel) or rays.shape[1] == 0:
        return out
    r = rays[rows[sel]]
    d = u[sel][:, None, :]
    norm = np.hypot(d[..., 0], d[..., 1]) * np.hypot(r[..., 0], r[..., 1])
    cross = d[..., 0] * r[..., 1] - d[..., 1] * r[..., 0]
    tol = SIDE_TOL_REL * norm
    out[sel] = np.any(cross > tol, axis=1) & np.any(cross < -tol, axis=1)
    return out


def _line_chord(
    p: FloatArray, u: FloatArray, box: Sequence[Any] | FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Parameter interval of the lines ``p + t u`` (n, 2) inside a closed box.

    ``box``: ``x0, y0, x1, y1``, each a number or an array (n,). Returns ``(t_lo, t_hi)``,
    each shape (n,); empty where ``t_lo > t_hi``.
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


def chord_segments(
    p: FloatArray,
    u: FloatArray,
    box_f: Sequence[Any] | FloatArray,
    box_t: Sequence[Any] | FloatArray,
) -> tuple[FloatArray, NDArray[np.intp]]:
    """The candidate segments (k, 4) px of the lines ``p + t u`` (n, 2) between two boxes.

    ``box_f``, ``box_t``: ``x0, y0, x1, y1``, each a number or an array (n,) (a box per
    line). Returns the segments and the rows of ``p`` they come from.
    """
    at = np.arange(len(p))
    lo_f, hi_f = _line_chord(p, u, box_f)
    lo_t, hi_t = _line_chord(p, u, box_t)
    ok = (lo_f <= hi_f) & (lo_t <= hi_t)
    p, u, at, lo_f, hi_f, lo_t, hi_t = p[ok], u[ok], at[ok], lo_f[ok], hi_f[ok], lo_t[ok], hi_t[ok]
    # The boxes are disjoint, so on a line their chords are disjoint intervals: join the
    # facing ends (any clear segment between the chords contains this one).
    forward = hi_f <= lo_t
    t0 = np.where(forward, hi_f, lo_f)
    t1 = np.where(forward, lo_t, hi_t)
    # Both vertices (parameters 0 and 1 on the line) must lie on that segment.
    lo, hi = np.minimum(t0, t1) - CHORD_TOL, np.maximum(t0, t1) + CHORD_TOL
    on = (lo <= 0) & (0 <= hi) & (lo <= 1) & (1 <= hi)
    p, u, t0, t1 = p[on], u[on], t0[on], t1[on]
    return np.hstack([p + u * t0[:, None], p + u * t1[:, None]]), at[on]


def vertex_pairs(n: int, chunk: int) -> Iterator[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """Index pairs ``i < j`` of ``n`` vertices, in ``np.triu_indices`` order, ``chunk`` at a time.

    Whole rows ``i`` at a time: memory stays O(chunk + n) however many vertices.
    """
    rows: list[int] = []
    size = 0
    for i in range(n - 1):
        rows.append(i)
        size += n - 1 - i
        if size >= chunk or i == n - 2:
            r = np.array(rows, dtype=np.intp)
            counts = n - 1 - r
            ii = np.repeat(r, counts)
            starts = np.cumsum(counts) - counts
            jj = np.arange(len(ii)) - np.repeat(starts, counts) + np.repeat(r, counts) + 1
            yield ii, jj
            rows, size = [], 0


def spread_pairs(n: int, k: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """About ``k`` index pairs ``i < j`` of ``n`` vertices, evenly spread over all of them."""
    total = n * (n - 1) // 2
    if total <= 0:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    flat = np.unique(np.linspace(0, total - 1, min(k, total)).astype(np.int64))
    rows = np.arange(n - 1, dtype=np.int64)
    offsets = rows * (2 * n - rows - 1) // 2  # flat index of pair (i, i + 1)
    i = np.searchsorted(offsets, flat, side="right") - 1
    j = flat - offsets[i] + i + 1
    return i.astype(np.intp), j.astype(np.intp)


def _triangle_pairs(sizes: NDArray[np.int64]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Every search's vertex pairs ``i < j``, search after search (``sizes`` (g,) vertices).

    Indices local to each search, in ``np.triu_indices`` order within each.
    """
    rows_per = np.repeat(sizes - 1, sizes - 1)  # each row i of a search: its n - 1
    local_i = np.arange(len(rows_per)) - np.repeat(np.cumsum(sizes - 1) - (sizes - 1), sizes - 1)
    span = rows_per - local_i  # pairs (i, j > i) per row i
    i = np.repeat(local_i, span)
    row_start = np.cumsum(span) - span
    j = np.arange(len(i)) - np.repeat(row_start, span) + i + 1
    return i, j


def tests_per_line(index: WallIndex, lines: FloatArray, firm: NDArray[np.bool_]) -> float:
    """Mean line-wall tests the search spends on each of ``lines`` (m, 4) px (m > 0).

    A line crossing a firm wall costs the pairs looked at until that wall
    (``firm.surely_blocked``); any other, every candidate pair of ``trace``: both are the
    pairs one walk looks at (``walk.first_crossings``).
    """
    if not index.size:
        return 0.0
    _, looked = first_crossings(index, np.asarray(lines, dtype=np.float64).reshape(-1, 4), firm)
    return float(looked.sum()) / len(lines)


def search_budget(vertices: int, max_tests: int, parent: WorkBudget | None) -> WorkBudget:
    """The work budget of one search through ``vertices`` wall ends and crossings."""
    lines = vertices * (vertices - 1) // 2
    return WorkBudget(
        max_tests,
        f"The exact line between these two spaces would test up to {lines:,} lines through "
        f"{vertices:,} wall ends, region outline points and crossings near them: reduce the "
        "walls between them (merge short pieces, remove overlapping copies) or simplify the "
        "regions there",
        parent,
    )


@dataclass(frozen=True)
class _Vertices:
    """Every pair's search vertices, pair after pair in one array.

    A pair's vertices are, in order: the ends of the walls near it (inside the hull of its
    two spaces, grown by ``QUERY_TOL_PX``; distinct, sorted by x then y), its source's four
    corners, its target's four, and the points where its walls cross the spaces' edges.

    Attributes
    ----------
    pts : ndarray of shape (v, 2)
        px.
    first : ndarray of shape (p + 1,)
        Each pair's first row of ``pts`` (and the end).
    ray_row : ndarray of shape (v,)
        A wall end's row of ``rays``; -1 for the other vertices.
    rays : ndarray of shape (r, w, 2)
        ``incident_rays`` of the wall ends.
    envelopes : ndarray of shape (p,)
        Walls whose bounding box meets the box of each pair's hull: the most walls a
        candidate line of the pair can be tested against.
    """

    pts: FloatArray
    first: NDArray[np.int64]
    ray_row: NDArray[np.intp]
    rays: FloatArray
    envelopes: NDArray[np.int64]

    @property
    def sizes(self) -> NDArray[np.int64]:
        """Vertices of each pair, shape (p,)."""
        return np.diff(self.first)


def _near_walls(
    index: WallIndex, hull: NDArray[np.object_], sense: str, wall_mask: NDArray[np.bool_] | None
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.int64]]:
    """The walls restricting ``sense`` that meet each pair's hull, as (pair, wall) rows.

    In the tree's order; and each pair's ``_Vertices.envelopes``.
    """
    qi = wi = np.empty(0, dtype=np.intp)
    envelopes = np.zeros(len(hull), dtype=np.int64)
    if index.size:
        qi, wi = index.tree.query(hull, predicate="intersects")
        keep = index.restriction[sense][wi] > 0
        if wall_mask is not None:
            keep &= wall_mask[wi]
        qi, wi = qi[keep], wi[keep]
        envelopes = np.bincount(index.tree.query(hull)[0], minlength=len(hull))
    return qi, wi, envelopes


def _rows_of(
    start: NDArray[np.int64], owner: NDArray[np.intp], count: NDArray[np.int64]
) -> NDArray[np.int64]:
    """Rows of points listed owner by owner, each owner's from its row ``start`` (p,) on.

    ``owner`` (m,), sorted; ``count`` (p,): the points of each owner.
    """
    return start[owner] + np.arange(len(owner)) - np.repeat(np.cumsum(count) - count, count)


def _search_vertices(
    index: WallIndex,
    bf: FloatArray,
    bt: FloatArray,
    sense: str,
    wall_mask: NDArray[np.bool_] | None,
) -> _Vertices:
    """The ``_Vertices`` of the pairs of disjoint spaces ``bf``, ``bt`` (p, 4) px."""
    p = len(bf)
    corners_f, corners_t = _corners(bf), _corners(bt)
    hull = shapely.convex_hull(shapely.multipoints(np.concatenate([corners_f, corners_t], 1)))
    qi, wi, envelopes = _near_walls(index, hull, sense, wall_mask)
    ends = index.coords[wi].reshape(-1, 2)
    end_pair = np.repeat(qi, 2)
    grown = shapely.buffer(hull, QUERY_TOL_PX)
    inside = shapely.contains_xy(grown[end_pair], ends[:, 0], ends[:, 1])
    rv, rv_pair = distinct_by_owner(ends[inside], end_pair[inside])
    cuts, cut_pair = edge_cuts(index, qi, wi, bf, bt)
    n_ray = np.bincount(rv_pair, minlength=p)
    n_cut = np.bincount(cut_pair, minlength=p)
    first = np.zeros(p + 1, dtype=np.int64)
    np.cumsum(n_ray + 8 + n_cut, out=first[1:])
    pts = np.empty((int(first[-1]), 2))
    ray_row = np.full(len(pts), -1, dtype=np.intp)
    at = _rows_of(first[:-1], rv_pair, n_ray)
    pts[at] = rv
    ray_row[at] = np.arange(len(rv))
    base = first[:-1] + n_ray
    for c in range(4):
        pts[base + c] = corners_f[:, c]
        pts[base + 4 + c] = corners_t[:, c]
    pts[_rows_of(base + 8, cut_pair, n_cut)] = cuts
    rays = incident_rays(index, qi, wi, rv, rv_pair, sense)
    return _Vertices(pts, first, ray_row, rays, envelopes)


class _Searches:
    """The searches of one ``search_many`` call: their spaces, vertices and firm walls."""

    def __init__(
        self,
        index: WallIndex,
        bf: FloatArray,
        bt: FloatArray,
        sense: str,
        elevations: FloatArray | None,
        wall_mask: NDArray[np.bool_] | None,
    ) -> None:
        self.index, self.bf, self.bt, self.sense = index, bf, bt, sense
        self.elevations, self.wall_mask = elevations, wall_mask
        self.vertices = _search_vertices(index, bf, bt, sense, wall_mask)
        self.firm = firm_walls(index, sense, wall_mask)

    def candidates(
        self, gi: NDArray[np.intp], gj: NDArray[np.intp], owner: NDArray[np.intp]
    ) -> tuple[FloatArray, NDArray[np.intp]]:
        """The candidate segments (k, 4) px through vertex rows ``gi``, ``gj``, and owners.

        ``gi``, ``gj``, ``owner`` (m,): each line's two vertices (rows of
        ``_Vertices.pts``) and its search; the segments come in that order, with their
        searches (k,).

        A clear segment can be moved until its line rests on two vertices lying on it,
        where the walls stay on one side; at a vertex whose firm walls lie on both sides of
        the line (a straight wall split there, a T: GEO-6) every such line is blocked, so
        those are skipped, as are pairs of (nearly) coincident vertices.
        """
        v = self.vertices
        u = v.pts[gj] - v.pts[gi]
        keep = np.hypot(u[:, 0], u[:, 1]) > ON_LINE_TOL_PX
        if v.rays.shape[1]:
            keep &= ~_separates(v.rays, v.ray_row[gi], u) & ~_separates(v.rays, v.ray_row[gj], u)
        gi, u, owner = gi[keep], u[keep], owner[keep]
        box_f = tuple(self.bf[owner, c] for c in range(4))
        box_t = tuple(self.bt[owner, c] for c in range(4))
        cand, kept = chord_segments(v.pts[gi], u, box_f, box_t)
        return cand, owner[kept]

    def clear(
        self, cand: FloatArray, owner: NDArray[np.intp], budget: WorkBudget | None
    ) -> NDArray[np.bool_]:
        """Which candidates (k, 4) px of the searches ``owner`` (k,) are clear, shape (k,).

        The lines crossing a firm wall outright are set aside by the compiled walk that
        stops at that wall (``firm.surely_blocked``); only the others get the exact trace.
        Every line-wall test is spent on ``budget``.
        """
        clear = np.zeros(len(cand), dtype=bool)
        if not len(cand):
            return clear
        surely, _ = surely_blocked(self.index, cand, self.firm, budget)
        rest = np.flatnonzero(~surely)
        if len(rest):
            clear[rest] = ~trace(
                self.index,
                cand[rest],
                TraceSpec(
                    sense=self.sense,
                    wall_mask=self.wall_mask,
                    low_obstacles=False,
                    with_blockers=False,
                ),
                elevations=None if self.elevations is None else self.elevations[owner[rest]],
                budget=budget,
            ).wall_blocked
        return clear

    def together(self, group: NDArray[np.intp], budget: WorkBudget | None) -> dict[int, Found]:
        """The searches ``group``, every candidate of all of them traced at once."""
        v = self.vertices
        sizes = v.sizes[group]
        owner = np.repeat(group, sizes * (sizes - 1) // 2)
        i, j = _triangle_pairs(sizes)
        offset = v.first[owner]
        cand, owner = self.candidates(offset + i, offset + j, owner)
        traced = np.bincount(owner, minlength=len(self.bf))
        # Each search's first clear candidate, in its order, is its witness.
        found = np.flatnonzero(self.clear(cand, owner, budget))
        first_clear: dict[int, int] = {}
        for k, q in zip(found.tolist(), owner[found].tolist(), strict=True):
            first_clear.setdefault(q, k)
        out: dict[int, Found] = {}
        for q in group.tolist():
            c = first_clear.get(q)
            witness = None if c is None else _witness(cand[c])
            out[q] = Found(witness, FIRST_LINES + int(traced[q]))
        return out

    def alone(self, q: int, max_tests: int, parent: WorkBudget | None) -> Found:
        """Search ``q`` by itself, ``CANDIDATE_CHUNK`` vertex pairs at a time.

        It stops at the first clear line (the same witness as tracing them all), within its
        own budget of ``max_tests`` (``search_budget``) inside ``parent``.

        Raises
        ------
        OverBudget
            At once when it has more vertex pairs than ``max_tests``; before any line when
            ``SAMPLE_LINES`` lines spread over all of it predict more than
            ``EARLY_REFUSAL_FACTOR * max_tests`` tests; else when it spends ``max_tests``.
        """
        if parent is not None:  # the search's own work beyond its tests
            parent.spend(SEARCH_UNITS)
        n = int(self.vertices.sizes[q])
        budget = search_budget(n, max_tests, parent)
        if n * (n - 1) // 2 > max_tests:  # more lines than tests: refuse now
            raise budget.refusal()
        self._refuse_early(q, max_tests, budget)
        start = int(self.vertices.first[q])
        traced = FIRST_LINES
        for i, j in vertex_pairs(n, CANDIDATE_CHUNK):
            cand, owner = self.candidates(start + i, start + j, np.full(len(i), q))
            traced += len(cand)
            clear = np.flatnonzero(self.clear(cand, owner, budget))
            if len(clear):
                return Found(_witness(cand[int(clear[0])]), traced)
        return Found(None, traced)

    def _refuse_early(self, q: int, max_tests: int, budget: WorkBudget) -> None:
        """Refuse search ``q`` now when a sample of its lines predicts too many tests.

        ``budget.refusal()`` when ``SAMPLE_LINES`` lines spread over all of it predict more
        than ``EARLY_REFUSAL_FACTOR * max_tests``; asked only when it could pass that (each
        line tests at most the walls of ``_Vertices.envelopes``).
        """
        n = int(self.vertices.sizes[q])
        total = n * (n - 1) // 2
        limit = EARLY_REFUSAL_FACTOR * max_tests
        if not self.index.size or total * int(self.vertices.envelopes[q]) <= limit:
            return
        si, sj = spread_pairs(n, SAMPLE_LINES)
        start = int(self.vertices.first[q])
        sample, _ = self.candidates(start + si, start + sj, np.full(len(si), q))
        if len(sample):
            per_line = tests_per_line(self.index, sample, self.firm)
            if total * (len(sample) / len(si)) * per_line > limit:
                raise budget.refusal()


def _witness(segment: FloatArray) -> tuple[float, float, float, float]:
    """A candidate segment (4,) px as the witness's four floats."""
    x0, y0, x1, y1 = (float(v) for v in segment)
    return x0, y0, x1, y1


def _groups(picked: NDArray[np.intp], total: NDArray[np.int64]) -> Iterator[NDArray[np.intp]]:
    """The searches ``picked``, in order, in groups of about ``MANY_CHUNK`` vertex pairs."""
    group: list[int] = []
    size = 0
    for q in picked.tolist():
        group.append(q)
        size += int(total[q])
        if size >= MANY_CHUNK:
            yield np.array(group, dtype=np.intp)
            group, size = [], 0
    if group:
        yield np.array(group, dtype=np.intp)


def search_many(
    index: WallIndex,
    bf: FloatArray,
    bt: FloatArray,
    sense: str,
    elevations: FloatArray | None,
    wall_mask: NDArray[np.bool_] | None,
    parent: WorkBudget | None,
    max_tests: int | None = None,
) -> list[Found]:
    """The exact searches of p pairs of disjoint spaces whose first lines are all blocked.

    Each pair's candidates are the lines through its vertex pairs, in ``np.triu_indices``
    order; its witness the first clear one. The searches of a batch of several pairs that
    fit in one ``CANDIDATE_CHUNK`` and cannot pass ``max_tests`` (vertex pairs times
    ``_Vertices.envelopes``, each line's most tests) are traced together, in groups of
    about ``MANY_CHUNK`` vertex pairs; a lone pair's search, and any that might pass the
    limit, run by themselves (``_Searches.alone``: in chunks, within their own budget,
    refused early when too big), after the others, in order.

    Parameters
    ----------
    index : WallIndex
    bf, bt : ndarray of shape (p, 4)
        ``x0, y0, x1, y1`` px of each pair's disjoint spaces (the first is the source for
        one-way walls, GEO-3).
    sense : str
        ``move`` (line of effect) or ``sight``.
    elevations : ndarray of shape (p, 4) or None
        Each pair's band (GEO-5a, ``service.geometry.bands``).
    wall_mask : ndarray of shape (n,), bool, optional
        Walls to consider (default all).
    parent : WorkBudget, optional
        The request's budget: ``SEARCH_UNITS`` per search and every line-wall test.
    max_tests : int, optional
        Line-wall tests one search may spend (default ``MAX_SEARCH_TESTS``).

    Returns
    -------
    list of Found, length p

    Raises
    ------
    OverBudget
        A search would pass ``max_tests``, or all of them ``parent``.

    Cost: O(p + walls near the pairs + vertex pairs), in numpy, shapely and the compiled
    walk; a search by itself is O(V^2) candidate lines for V vertices.
    """
    max_tests = MAX_SEARCH_TESTS if max_tests is None else max_tests
    searches = _Searches(index, bf, bt, sense, elevations, wall_mask)
    sizes = searches.vertices.sizes
    total = sizes * (sizes - 1) // 2
    fits = (total <= CANDIDATE_CHUNK) & (total * searches.vertices.envelopes <= max_tests)
    together = fits & (len(bf) > 1)
    out: dict[int, Found] = {}
    picked = np.flatnonzero(together)
    if len(picked) and parent is not None:  # the searches' own work beyond their tests
        parent.spend(SEARCH_UNITS * len(picked))
    for group in _groups(picked, total):
        out.update(searches.together(group, parent))
    for q in np.flatnonzero(~together).tolist():
        out[q] = searches.alone(q, max_tests, parent)
    return [out[q] for q in range(len(bf))]
