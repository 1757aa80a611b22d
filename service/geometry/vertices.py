"""The vertices of exact searches, many pairs at once, in chunks of bounded memory (GEO-6).

A search between two disjoint spaces (``service.geometry.search``, 5E-LOE-2) draws its
candidate lines through **vertices**: the ends of the walls near the two spaces, their
corners, and the points where walls cross their edges. ``search_vertices`` lays out those
of many pairs in one array, with the directions of the firm walls leaving each wall end
(``incident_ray_lists``, listed, never padded); ``pair_chunks`` cuts the pairs into chunks
whose (pair, wall) rows are bounded by ``ROWS_CHUNK`` before any is queried
(``near_wall_bound``), so that the memory of a chunk is bounded by a constant, not by pairs
times walls (``docs/decisions.md`` "Bounded work").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.tolerances import QUERY_TOL_PX
from service.engine.walls import FloatArray, WallIndex

#: (pair, wall) rows of the searches whose vertices are laid out at once (memory bound:
#: their ends, cuts and rays take a few hundred bytes a row; ``pair_chunks``).
ROWS_CHUNK = 131_072


def _corners(boxes: FloatArray) -> FloatArray:
    """The corners (p, 4, 2) px of boxes (p, 4): ``(x0, y0), (x1, y0), (x1, y1), (x0, y1)``."""
    return np.stack(
        [boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]], boxes[:, [0, 3]]], axis=1
    )


def distinct_rows(rows: FloatArray) -> tuple[FloatArray, NDArray[np.intp]]:
    """The distinct rows of ``rows`` (n, k) in lexicographic order, and each row's index.

    ``np.unique(axis=0, return_inverse=True)``, sorting numbers rather than bytes (faster);
    the indices have shape (n,). NaN equals NaN (``np.unique(axis=0)`` keeps each NaN row
    apart): the rows of ``sealed.pairs_sealed_apart``'s "no band of its own" are one
    group (``lexsort`` ranks NaN last: equal rows are neighbours).
    """
    order = np.lexsort(rows.T[::-1])
    ranked = rows[order]
    new = np.ones(len(rows), dtype=bool)
    differ = ranked[1:] != ranked[:-1]
    if differ.any() and np.isnan(ranked).any():
        differ &= ~(np.isnan(ranked[1:]) & np.isnan(ranked[:-1]))
    new[1:] = np.any(differ, axis=1)
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


def incident_ray_lists(
    index: WallIndex,
    qi: NDArray[np.intp],
    wi: NDArray[np.intp],
    points: FloatArray,
    point_pair: NDArray[np.intp],
    sense: str,
) -> tuple[FloatArray, NDArray[np.int64]]:
    """Directions of the firm walls leaving each search's ray vertices, listed vertex by vertex.

    Only two-way, normal, full-height walls count: they block whatever the source
    (``firm.firm_walls``). ``qi, wi``: the (search, wall) pairs near each search;
    ``points``: each search's ray vertices, sorted by search, x, y (``point_pair``: their
    search). Returns the rays (r, 2) px and where each point's start (len(points) + 1,)
    (CSR, ``compiled.sides_split``); each point's rays come in its search's wall order,
    first ends, then second. O(r log r), no padding.
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
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(k, minlength=n), out=start[1:])
    return np.ascontiguousarray(others[at] - starts[at]), start


def incident_rays(
    index: WallIndex,
    qi: NDArray[np.intp],
    wi: NDArray[np.intp],
    points: FloatArray,
    point_pair: NDArray[np.intp],
    sense: str,
) -> FloatArray:
    """``incident_ray_lists`` padded with zero rays, shape (len(points), r, 2).

    ``r`` is the most rays at one point (for tests and references; the search reads the
    lists, whose size is bounded by the walls near it).
    """
    rays, start = incident_ray_lists(index, qi, wi, points, point_pair, sense)
    counts = np.diff(start)
    width = int(counts.max()) if len(rays) else 0
    out = np.zeros((len(points), width, 2))
    slot = np.arange(len(rays)) - np.repeat(start[:-1], counts)
    out[np.repeat(np.arange(len(points)), counts), slot] = rays
    return out


@dataclass(frozen=True)
class Vertices:
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
        A wall end's row of ``ray_start``; -1 for the other vertices.
    rays : ndarray of shape (r, 2)
        ``incident_ray_lists`` of the wall ends.
    ray_start : ndarray of shape (ends + 1,)
        Where each wall end's rays start in ``rays``.
    envelopes : ndarray of shape (p,)
        Walls whose bounding box meets the box of each pair's hull: the most walls a
        candidate line of the pair can be tested against.
    """

    pts: FloatArray
    first: NDArray[np.int64]
    ray_row: NDArray[np.intp]
    rays: FloatArray
    ray_start: NDArray[np.int64]
    envelopes: NDArray[np.int64]

    @property
    def sizes(self) -> NDArray[np.int64]:
        """Vertices of each pair, shape (p,)."""
        return np.diff(self.first)


def near_walls(
    index: WallIndex, hull: NDArray[np.object_], sense: str, wall_mask: NDArray[np.bool_] | None
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.int64]]:
    """The walls restricting ``sense`` that meet each pair's hull, as (pair, wall) rows.

    In the tree's order; and each pair's ``Vertices.envelopes``.
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


def search_vertices(
    index: WallIndex,
    bf: FloatArray,
    bt: FloatArray,
    sense: str,
    wall_mask: NDArray[np.bool_] | None,
) -> Vertices:
    """The ``Vertices`` of the pairs of disjoint spaces ``bf``, ``bt`` (p, 4) px."""
    p = len(bf)
    corners_f, corners_t = _corners(bf), _corners(bt)
    hull = shapely.convex_hull(shapely.multipoints(np.concatenate([corners_f, corners_t], 1)))
    qi, wi, envelopes = near_walls(index, hull, sense, wall_mask)
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
    rays, ray_start = incident_ray_lists(index, qi, wi, rv, rv_pair, sense)
    return Vertices(pts, first, ray_row, rays, ray_start, envelopes)


def near_wall_bound(index: WallIndex, boxes: FloatArray) -> NDArray[np.int64]:
    """At most how many walls have a bounding box meeting each box (p, 4) px, shape (p,).

    The walls listed in the wall grid's cells the box (grown by ``QUERY_TOL_PX``) meets,
    from the grid's cell counts summed once (kept in ``index.memo``): O(p), no query, an
    upper bound of what ``STRtree.query`` returns for the box (a wall meeting it shares a
    cell with it, ``engine.walls.WallGrid``).
    """
    if not index.size:
        return np.zeros(len(boxes), dtype=np.int64)
    grid = index.wall_grid()
    sums = index.memo.get("grid_sums")
    if sums is None:
        counts = np.diff(grid.start).reshape(grid.ny, grid.nx)
        sums = np.zeros((grid.ny + 1, grid.nx + 1), dtype=np.int64)
        sums[1:, 1:] = counts.cumsum(axis=0).cumsum(axis=1)
        index.memo["grid_sums"] = sums

    def cell(v: FloatArray, origin: float, n: int) -> NDArray[np.int64]:
        with np.errstate(invalid="ignore"):
            f = np.nan_to_num(np.floor((v - origin) / grid.cell), nan=0.0)
        return np.clip(f, 0, n - 1).astype(np.int64)

    x0, x1 = (
        cell(boxes[:, 0] - QUERY_TOL_PX, grid.x0, grid.nx),
        cell(boxes[:, 2] + QUERY_TOL_PX, grid.x0, grid.nx),
    )
    y0, y1 = (
        cell(boxes[:, 1] - QUERY_TOL_PX, grid.y0, grid.ny),
        cell(boxes[:, 3] + QUERY_TOL_PX, grid.y0, grid.ny),
    )
    listed = sums[y1 + 1, x1 + 1] - sums[y0, x1 + 1] - sums[y1 + 1, x0] + sums[y0, x0]
    return np.minimum(listed, index.size)


def pair_chunks(index: WallIndex, bf: FloatArray, bt: FloatArray) -> Iterator[NDArray[np.intp]]:
    """The pairs (rows of ``bf``, ``bt`` (p, 4) px), in order, in chunks of bounded memory.

    Each chunk's (pair, wall) rows (``near_wall_bound`` of each pair's box: the walls a
    search looks at) add up to at most ``ROWS_CHUNK``, or it is a single pair: what one
    chunk's vertices, cuts and rays hold is bounded by a constant, not by pairs x walls.
    """
    box = np.column_stack(
        [
            np.minimum(bf[:, 0], bt[:, 0]),
            np.minimum(bf[:, 1], bt[:, 1]),
            np.maximum(bf[:, 2], bt[:, 2]),
            np.maximum(bf[:, 3], bt[:, 3]),
        ]
    )
    bound = near_wall_bound(index, box) + 1  # a pair with no wall near still costs a row
    cuts = np.searchsorted(
        np.cumsum(bound),
        np.arange(1, 1 + int(bound.sum()) // ROWS_CHUNK) * ROWS_CHUNK,
        side="right",
    )
    start = 0
    for end in [*np.unique(cuts).tolist(), len(bf)]:
        end = max(end, start + 1)
        if start < len(bf):
            yield np.arange(start, min(end, len(bf)), dtype=np.intp)
        start = end
