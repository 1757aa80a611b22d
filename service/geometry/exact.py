"""Exact line of effect (or sight) between two spaces (5E-LOE-2)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.budget import SEARCH_UNITS, WorkBudget
from service.engine.density import WallDensity
from service.engine.tolerances import (
    CHORD_TOL,
    ON_LINE_TOL_PX,
    QUERY_TOL_PX,
    SIDE_TOL_REL,
    TOUCH_TOL_PX,
)
from service.engine.walls import FloatArray, WallIndex, index_walls
from service.geometry.bands import as_bands, meets
from service.geometry.compiled import cell_of, njit
from service.geometry.obstacles import wall_components
from service.geometry.rooms import (
    FreePaths,
    firm_crossings_within,
    firm_rooms,
    room_of,
    rooms_built,
)
from service.geometry.trace import (
    MAX_QUERY_PIECES,
    QUERY_PIECE_PX,
    candidate_pairs,
    estimate_tests,
    trace,
)
from service.geometry.walk import piece_box, pieces
from service.model import Wall

# ---------------------------------------------------------------------------------------
# Exact line of effect between two spaces (5E-LOE-2)

#: Line–wall candidate tests one exact search may spend (about a second); past it the request
#: is refused with what to reduce (issue 16). A search with more vertex pairs than this is
#: refused before tracing any (each pair's line costs at least one test).
MAX_SEARCH_TESTS = 400_000

#: The search is refused before it starts when a sample of lines spread over all of it
#: predicts more than this many times ``MAX_SEARCH_TESTS`` (a clear line may still be found
#: early).
EARLY_REFUSAL_FACTOR = 4

#: Candidate lines sampled for that prediction.
SAMPLE_LINES = 256

#: Vertex pairs turned into candidate lines and traced at once (memory bound).
CANDIDATE_CHUNK = 32_768


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
    ``points`` sorted by x then y (``_distinct_points``); one search of
    ``_incident_rays_many``.
    """
    return _incident_rays_many(
        index,
        np.zeros(len(near), dtype=np.intp),
        near,
        points,
        np.zeros(len(points), dtype=np.intp),
        sense,
    )


def _distinct_points(points: FloatArray) -> FloatArray:
    """The distinct rows of ``points`` (n, 2), sorted by x then y (``np.unique(axis=0)``)."""
    return _distinct_by_owner(points.reshape(-1, 2), np.zeros(len(points), dtype=np.intp))[0]


def _distinct_by_owner(
    points: FloatArray, owner: NDArray[np.intp]
) -> tuple[FloatArray, NDArray[np.intp]]:
    """Each owner's distinct points (n, 2), sorted by owner, then x, then y, and their owner.

    ``_distinct_rows`` of the rows ``owner, x, y``.
    """
    found, _ = _distinct_rows(np.column_stack([owner.astype(np.float64), points]))
    return np.ascontiguousarray(found[:, 1:]), found[:, 0].astype(np.intp)


def _distinct_rows(rows: FloatArray) -> tuple[FloatArray, NDArray[np.intp]]:
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


def _separates(
    rays: FloatArray, idx: NDArray[np.intp], u: FloatArray, n_ray: int
) -> NDArray[np.bool_]:
    """Whether the walls at vertex ``idx`` (if a wall vertex) lie on both sides of ``u``."""
    return _separates_rows(rays, np.where(idx < n_ray, idx, -1), u)


def _separates_rows(rays: FloatArray, rows: NDArray[np.intp], u: FloatArray) -> NDArray[np.bool_]:
    """``_separates`` with each line's vertex as its row of ``rays`` (-1: not a wall end)."""
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


def _firm(index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None) -> NDArray[np.bool_]:
    """Walls that block ``sense`` whatever the source and the heights: two-way, normal, full."""
    firm = (
        (index.restriction[sense] == 2)
        & (index.direction == 0)
        & np.isinf(index.bottom)
        & np.isinf(index.top)
    )
    return firm if wall_mask is None else firm & wall_mask


@njit(cache=True, nogil=True)
def _crossed(
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
    firm: NDArray[np.bool_],
    piece_px: float,
    max_pieces: int,
    qtol: float,
    band: float,
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:  # pragma: no cover - compiled
    """``_surely_blocked``'s walk, per segment: blocked, and the pairs looked at.

    ``walk._search``'s pieces, cells and boxes, stopping a segment at its first firm wall
    crossed in both interiors.
    """
    m = seg.shape[0]
    out = np.zeros(m, dtype=np.bool_)
    stamp = np.full(boxes.shape[0], -1, dtype=np.int64)
    count = np.zeros(m, dtype=np.int64)
    for s in range(m):
        x0, y0, x1, y1 = seg[s, 0], seg[s, 1], seg[s, 2], seg[s, 3]
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy)
        if length != length or length <= 2 * band:
            continue
        k = pieces(length, piece_px, max_pieces)
        for q in range(k):
            if out[s]:
                break
            lx, ly, hx, hy = piece_box(seg[s], q, k, qtol)
            ix0, ix1 = cell_of(lx, gx0, cell, nx), cell_of(hx, gx0, cell, nx)
            iy0, iy1 = cell_of(ly, gy0, cell, ny), cell_of(hy, gy0, cell, ny)
            for iy in range(iy0, iy1 + 1):
                if out[s]:
                    break
                for ix in range(ix0, ix1 + 1):
                    if out[s]:
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
                        count[s] += 1
                        if not firm[w]:
                            continue
                        ax, ay, bx, by = coords[w, 0], coords[w, 1], coords[w, 2], coords[w, 3]
                        wx, wy = bx - ax, by - ay
                        len_e = math.hypot(wx, wy)
                        if len_e <= 2 * band:
                            continue
                        s_a = (dx * (ay - y0) - dy * (ax - x0)) / length
                        s_b = (dx * (by - y0) - dy * (bx - x0)) / length
                        if not ((s_a < -band and s_b > band) or (s_a > band and s_b < -band)):
                            continue
                        s_p = (wx * (y0 - ay) - wy * (x0 - ax)) / len_e
                        s_q = (wx * (y1 - ay) - wy * (x1 - ax)) / len_e
                        if (s_p < -band and s_q > band) or (s_p > band and s_q < -band):
                            out[s] = True
                            break
    return out, count


def _surely_blocked(
    index: WallIndex, seg: FloatArray, firm: NDArray[np.bool_], budget: WorkBudget | None
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """Segments (m, 4) px that cross a ``firm`` wall, both at interior points.

    Such a crossing blocks whatever else the segment meets (GEO-1: nothing in GEO-3..6
    unblocks it), so these segments need no exact trace. The test is ``trace``'s own sign
    test with the dead band ``TOUCH_TOL_PX``, ten times wider than the exact tests':
    a segment counted here is blocked there too. The walk is ``walk.search``'s (same
    pieces, cells and boxes) but stops each segment at its first such wall. Returns the
    blocked segments and the (segment, wall) pairs looked at per segment, and spends on
    ``budget`` those of the blocked segments (the others are traced, and spent, in full).
    """
    out = np.zeros(len(seg), dtype=bool)
    count = np.zeros(len(seg), dtype=np.int64)
    if not index.size or not len(seg) or not firm.any():
        return out, count
    grid = index.wall_grid()
    out, count = _crossed(
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
        np.ascontiguousarray(firm, dtype=np.bool_),
        float(QUERY_PIECE_PX),
        int(MAX_QUERY_PIECES),
        QUERY_TOL_PX,
        TOUCH_TOL_PX,
    )
    if budget is not None:
        budget.spend(int(count[out].sum()))
    return out, count


def warm_up() -> None:
    """Compile (or load from numba's cache) the search's compiled steps now, on two walls.

    ``_surely_blocked``'s walk, the obstacles (``obstacles.wall_components``) and the rooms'
    crossing count (``rooms.firm_crossings_within``). ``gunicorn.conf.py`` calls it in the
    master before forking, beside ``trace.warm_up``.
    """
    index = index_walls(
        [Wall("a", (0.0, 0.0, 100.0, 0.0)), Wall("b", (50.0, -50.0, 50.0, 50.0))], 20.0
    )
    firm = _firm(index, "move", None)
    _surely_blocked(index, np.array([[0.0, 10.0, 100.0, -10.0]]), firm, None)
    wall_components(index)
    firm_crossings_within(index, firm, 1)


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


def line_of_effect_between(
    index: WallIndex,
    box_from: Sequence[float],
    box_to: Sequence[float],
    sense: str = "move",
    *,
    elevations: tuple[float, ...] | None = None,
    wall_mask: NDArray[np.bool_] | None = None,
    budget: WorkBudget | None = None,
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
    elevations : (float, float) or (float, float, float, float), optional
        Elevation in grid units of the two spaces (GEO-5), or their band ``bottom0,
        bottom1, top0, top1`` (GEO-5a): only walls covering the whole band block; a wall
        covering part of it is a low obstacle, which never blocks line of effect or sight.
    wall_mask : ndarray of shape (n,), bool, optional
        Walls to consider (default all): low obstacles never block line of effect.

    Returns
    -------
    LineOfEffect
    """
    return lines_of_effect(
        index,
        np.asarray([box_from], dtype=np.float64),
        np.asarray([box_to], dtype=np.float64),
        sense,
        elevations=None if elevations is None else np.asarray([elevations], dtype=np.float64),
        wall_mask=wall_mask,
        budget=budget,
    )[0]


#: Up to this many pairs, ``lines_of_effect`` lists the centre lines' blockers in its first
#: trace of them (one trace instead of two for a single answer).
_LIST_AT_ONCE = 4


def lines_of_effect(
    index: WallIndex,
    boxes_from: FloatArray,
    boxes_to: FloatArray,
    sense: str = "move",
    *,
    elevations: FloatArray | None = None,
    wall_mask: NDArray[np.bool_] | None = None,
    budget: WorkBudget | None = None,
    density: WallDensity | None = None,
    blockers: bool = True,
) -> list[LineOfEffect]:
    """Exact line of effect for p pairs of spaces (5E-LOE-2), cheap lines first.

    Spaces that overlap are joined at once. The centre lines of the other pairs are traced
    in one vectorised call: a clear one is the witness. A pair whose centre line is blocked
    and whose spaces lie in different closed rooms is sealed apart (no search); the rooms
    are built only for a pair that no free path joins (``_SealedApart``). Only the rest run
    the exact search of ``line_of_effect_between``.

    Parameters
    ----------
    index : WallIndex
    boxes_from, boxes_to : ndarray of shape (p, 4)
        ``x0, y0, x1, y1`` px of each pair's spaces (the first is the source, GEO-3).
    sense : str
    elevations : ndarray of shape (p, 2) or (p, 4), optional
        Grid units of each pair's two spaces (GEO-5), or each pair's band (GEO-5a,
        ``service.geometry.bands``); walls covering only part of a band do not block.
    wall_mask : ndarray of shape (n,), bool, optional
    budget : WorkBudget, optional
        The request's budget: every line-wall test here counts in it.
    density : WallDensity, optional
        With ``budget``, refuse before tracing when the centre lines alone would pass it.
    blockers : bool
        Name what blocks the centre line of each pair without line of effect
        (``LineOfEffect.blockers``; left empty with ``False``, for a bare ``clear``).

    Returns
    -------
    list of LineOfEffect, length p
        ``candidates`` is the number of segments traced for that pair.

    Raises
    ------
    OverBudget
        One pair's search, or all of them together, would pass a budget (issue 16).
    """
    bf_all = np.asarray(boxes_from, dtype=np.float64).reshape(-1, 4)
    bt_all = np.asarray(boxes_to, dtype=np.float64).reshape(-1, 4)
    elev_all = as_bands(elevations, len(bf_all))
    out: list[LineOfEffect | None] = [None] * len(bf_all)
    overlap = (
        (bf_all[:, 0] <= bt_all[:, 2])
        & (bt_all[:, 0] <= bf_all[:, 2])
        & (bf_all[:, 1] <= bt_all[:, 3])
        & (bt_all[:, 1] <= bf_all[:, 3])
    )
    for p in np.flatnonzero(overlap):
        point = (max(bf_all[p, 0], bt_all[p, 0]), max(bf_all[p, 1], bt_all[p, 1]))
        out[p] = LineOfEffect(True, (*point, *point), [], 0)
    rest = np.flatnonzero(~overlap)
    if len(rest):
        centres = _centre_lines(bf_all[rest], bt_all[rest])
        if budget is not None and density is not None:
            budget.afford_bounded(  # every line meets each wall at most once
                len(centres) * index.size, lambda: estimate_tests(density, centres)
            )
        common: dict[str, Any] = {"wall_mask": wall_mask, "low_obstacles": False, "budget": budget}
        # A few pairs (a single answer): their blockers are listed in this one trace, not
        # in a second one at the end; many pairs (matrices): traced bare, named later.
        listed = blockers and len(rest) <= _LIST_AT_ONCE
        centre = trace(
            index,
            centres,
            sense,
            elevations=None if elev_all is None else elev_all[rest],
            with_blockers=listed,
            **common,
        )
        centre_blocked = centre.wall_blocked
        # What blocks the centre line of each pair without line of effect (the answer's
        # explanation): filled in at the end, for those pairs only, in one trace.
        centre_blockers: dict[int, list[int]] = {}
        rest_of = rest.tolist()
        for k in np.flatnonzero(~centre_blocked).tolist():
            out[rest_of[k]] = LineOfEffect(True, tuple(centres[k].tolist()), [], 1)  # type: ignore[arg-type]
        blocked_rows = np.flatnonzero(centre_blocked)
        at_rows = rest[blocked_rows]
        sealed = _sealed_apart(
            index,
            sense,
            wall_mask,
            bf_all[at_rows],
            bt_all[at_rows],
            None if elev_all is None else elev_all[at_rows],
        )
        shut = blocked_rows[sealed]
        if blockers:  # each sealed pair's own list, named at the end
            for k, p in zip(shut.tolist(), rest[shut].tolist(), strict=True):
                out[p] = LineOfEffect(False, None, centre_blockers.setdefault(k, []), 1)
        else:  # a bare ``clear``: one answer, no blockers to name, for every sealed pair
            bare = LineOfEffect(False, None, [], 1)
            for p in rest[shut].tolist():
                out[p] = bare
        left = blocked_rows[~sealed]
        todo = list(zip(rest[left].tolist(), left.tolist(), strict=True))
        # The 16 corner-to-corner lines of every pair left, in one bulk trace: the first
        # clear one is the witness, as in the search's own first lines (``_search``).
        at = [q for q, _ in todo]
        corner = _corner_lines(bf_all[at], bt_all[at]) if todo else np.empty((0, 16, 4))
        first = np.ones((len(todo), 16), dtype=bool)
        if todo:
            first = trace(
                index,
                corner.reshape(-1, 4),
                sense,
                elevations=None if elev_all is None else np.repeat(elev_all[at], 16, axis=0),
                with_blockers=False,
                **common,
            ).wall_blocked.reshape(-1, 16)
        searched: dict[bytes, int] = {}  # the first pair searched with these spaces and band
        mirrored: list[tuple[int, int]] = []
        mirror = bool(todo) and two_way_walls(index, sense, wall_mask, heights=elev_all is not None)
        pending: list[tuple[int, int]] = []  # (pair, its row in rest) to search
        for r, (q, k) in enumerate(todo):
            clear = np.flatnonzero(~first[r])
            if len(clear):
                w = tuple(float(v) for v in corner[r, int(clear[0])])
                out[q] = LineOfEffect(True, w, [], 17)  # type: ignore[arg-type]
                continue
            elev = None if elev_all is None else elev_all[q]
            if mirror:  # two-way walls: the same answer both ways (5E-LOE-2)
                other = searched.get(_pair_key(bt_all[q], bf_all[q], _swapped(elev)))
                if other is not None:
                    mirrored.append((q, other))
                    continue
            searched.setdefault(_pair_key(bf_all[q], bt_all[q], elev), q)
            pending.append((q, k))
        many: list[LineOfEffect | None] = [None] * len(pending)
        if len(pending) > 1:  # run together (the same answers as one by one)
            at = [q for q, _ in pending]
            many = _search_many(
                index,
                bf_all[at],
                bt_all[at],
                sense,
                None if elev_all is None else elev_all[at],
                wall_mask,
                budget,
                [centre_blockers.setdefault(k, []) for _, k in pending],
            )
        for (q, k), found in zip(pending, many, strict=True):
            elev = None if elev_all is None else elev_all[q]
            out[q] = found or _search(
                index,
                bf_all[q],
                bt_all[q],
                sense,
                None if elev is None else tuple(elev.tolist()),
                wall_mask,
                parent=budget,
                centre_blockers=centre_blockers.setdefault(k, []),
            )
        named = sorted(
            k
            for k in centre_blockers
            if not out[rest_of[k]].clear  # type: ignore[union-attr]
        )
        if named and blockers:
            found_blockers = (
                [centre.wall_blockers[k] for k in named]
                if listed
                else trace(
                    index,
                    centres[named],
                    sense,
                    elevations=None if elev_all is None else elev_all[rest][named],
                    **common,
                ).wall_blockers
            )
            for k, walls in zip(named, found_blockers, strict=True):
                centre_blockers[k].extend(walls)
        for q, other in mirrored:
            out[q] = reversed_line(out[other])  # type: ignore[arg-type]
    return out  # type: ignore[return-value]


def _corner_lines(boxes_from: FloatArray, boxes_to: FloatArray) -> FloatArray:
    """The 16 corner-to-corner segments of each pair of boxes (p, 4), shape (p, 16, 4) px.

    Source corner major, corners in the order ``(x0, y0), (x1, y0), (x1, y1), (x0, y1)``.
    """
    order = [(0, 1), (2, 1), (2, 3), (0, 3)]
    cf = np.stack([boxes_from[:, [i, j]] for i, j in order], axis=1)
    ct = np.stack([boxes_to[:, [i, j]] for i, j in order], axis=1)
    return np.concatenate([np.repeat(cf, 4, axis=1), np.tile(ct, (1, 4, 1))], axis=2)


def two_way_walls(
    index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None, heights: bool = True
) -> bool:
    """Whether every wall that can block ``sense`` blocks alike from both sides.

    No one-way wall (GEO-3) and no proximity or distance threshold that applies (GEO-4)
    among the walls restricting ``sense`` (in ``wall_mask``), and with ``heights`` (the
    pairs have bands) none of limited height (GEO-5a: the band at a crossing is
    interpolated from each end, so a wall top level with it can be met from one side and
    not the other): then a line is blocked in one direction exactly when it is in the
    other, and so is the line of effect between two spaces (the property
    ``test_symmetric_for_two_way_walls``).
    """
    on = index.restriction[sense] > 0
    if wall_mask is not None:
        on &= wall_mask
    if np.any(index.direction[on] != 0):
        return False
    if heights and not (np.isneginf(index.bottom[on]).all() and np.isposinf(index.top[on]).all()):
        return False
    thr = index.threshold.get(sense)
    if thr is None:
        return True
    with np.errstate(invalid="ignore"):
        live = (index.restriction[sense] >= 3) & ~np.isnan(thr) & (thr > 0)
    return not np.any(live & on)


def _pair_key(box_from: FloatArray, box_to: FloatArray, band: FloatArray | None) -> bytes:
    """The pair's spaces and band, as bytes (a dictionary key)."""
    key = box_from.tobytes() + box_to.tobytes()
    return key if band is None else key + np.asarray(band, dtype=np.float64).tobytes()


def _swapped(band: FloatArray | None) -> FloatArray | None:
    """The band ``bottom0, bottom1, top0, top1`` seen from the other end."""
    return None if band is None else np.asarray(band)[[1, 0, 3, 2]]


def reversed_line(found: LineOfEffect) -> LineOfEffect:
    """``found`` for the pair taken the other way: its witness runs the other way."""
    w = found.witness
    witness = None if w is None else (w[2], w[3], w[0], w[1])
    return LineOfEffect(found.clear, witness, list(found.blockers), found.candidates)


#: How many spaces' rooms ``_SealedApart`` remembers per built index (a scene's tokens).
_ROOMS_KEPT = 4096


#: How many bands' rooms ``_sealed_apart`` keeps per wall index (each is a polygonization).
_BANDS_KEPT = 4


def _sealed_apart(
    index: WallIndex,
    sense: str,
    wall_mask: NDArray[np.bool_] | None,
    bf: FloatArray,
    bt: FloatArray,
    bands: FloatArray | None,
) -> NDArray[np.bool_]:
    """Whether each pair of spaces lies in different closed rooms, shape (p,).

    ``bf``, ``bt`` (p, 4) px; ``bands`` (p, 4) each pair's band (GEO-5a) or ``None``. The
    rooms are closed by the walls that block every line whatever its band (``room_walls``:
    full height), and, for the pairs whose band is the same at both ends (both creatures
    on one floor, of one height: the common case), by the walls of limited height that
    cover that band too (``bands.meets``, the test ``trace`` makes at each crossing): such
    a wall blocks every line of those pairs wherever it crosses it, as a full wall does.
    Pairs are grouped by band. At most ``_BANDS_KEPT`` bands get rooms of their own per
    index; the other pairs use the full-height walls alone.
    """
    if bands is None or not len(bf) or (np.isinf(index.bottom) & np.isinf(index.top)).all():
        return _SealedApart(index, sense, wall_mask).many(bf, bt)
    flat = (bands[:, 0] == bands[:, 1]) & (bands[:, 2] == bands[:, 3])
    key = np.where(flat[:, None], bands[:, [0, 2]], np.nan)  # NaN: no band of its own
    distinct, which = _distinct_rows(key)
    out = np.zeros(len(bf), dtype=bool)
    for k, (low, high) in enumerate(distinct.tolist()):
        rows = np.flatnonzero(which == k)
        walls = index if math.isnan(low) else _covering(index, low, high)
        out[rows] = _SealedApart(walls, sense, wall_mask).many(bf[rows], bt[rows])
    return out


def _covering(index: WallIndex, low: float, high: float) -> WallIndex:
    """``index`` where the walls covering the band ``[low, high]`` are full height.

    Only for rooms (``_sealed_apart``), for lines whose band is ``[low, high]`` all along;
    a wall covers it as ``trace`` decides at a crossing (``bands.meets``: ``[bottom, top)``
    holds the band; a band of no thickness, ``bottom <= low < top``). ``index`` itself when
    no wall of limited height covers it, or past ``_BANDS_KEPT`` bands (kept in
    ``index.memo``).
    """
    limited = ~(np.isinf(index.bottom) & np.isinf(index.top))
    n = index.size
    covers, _ = meets(
        np.full(n, low), np.full(n, high), np.full(n, low == high), index.bottom, index.top
    )
    holds = limited & covers
    if not holds.any():
        return index
    kept: dict[tuple[float, float], WallIndex] = index.memo.setdefault("covering", {})
    found = kept.get((low, high))
    if found is None:
        if len(kept) >= _BANDS_KEPT:
            return index
        found = kept[(low, high)] = dataclasses.replace(
            index,
            bottom=np.where(holds, -np.inf, index.bottom),
            top=np.where(holds, np.inf, index.top),
            memo={},
            grid=None,
        )
    return found


class _SealedApart:
    """``rooms.sealed_apart`` for many pairs, building the rooms only when they can tell.

    A pair joined by a free path (``rooms.FreePaths``) is never sealed apart, so the rooms
    (``firm_rooms``: noding and polygonizing every wall) are built only for the first pair
    that no free path joins, or used at once when the scene already has them. Each space's
    room is looked up once.
    """

    def __init__(self, index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None):
        self.index, self.sense, self.wall_mask = index, sense, wall_mask
        self.paths: FreePaths | None = None
        self.rooms: tuple[shapely.STRtree, NDArray[np.object_]] | None = None
        self.built = rooms_built(index, sense, wall_mask)
        if self.built:
            self.rooms = firm_rooms(index, sense, wall_mask)

    def _room_at(self, box: FloatArray) -> int | None:
        """``room_of`` the space, remembered with the rooms (at most ``_ROOMS_KEPT`` spaces)."""
        assert self.rooms is not None
        # The rooms live in the index's memo as long as the index: so does this.
        kept: dict[tuple[float, ...], int | None] = self.index.memo.setdefault(
            ("room_at", id(self.rooms[0])), {}
        )
        key = tuple(box.tolist())
        if key not in kept:
            found = room_of(self.rooms, box)
            if len(kept) >= _ROOMS_KEPT:
                return found
            kept[key] = found
        return kept[key]

    def many(self, boxes_from: FloatArray, boxes_to: FloatArray) -> NDArray[np.bool_]:
        """``self(a, b)`` for each pair of boxes (p, 4), in order, shape (p,).

        Until the rooms are built, pairs are asked one by one (a free path joins them:
        not sealed); then every distinct box's room is looked up once.
        """
        out = np.zeros(len(boxes_from), dtype=bool)
        start = 0
        while not self.built and start < len(boxes_from):
            out[start] = self(boxes_from[start], boxes_to[start])
            start += 1
        if self.rooms is None or start >= len(boxes_from):
            return out
        both = np.vstack([boxes_from[start:], boxes_to[start:]])
        distinct, inverse = _distinct_rows(both)
        unsure = -2  # ``room_of``'s None; -1 is outside every room
        rooms = [self._room_at(box) for box in distinct]
        room = np.array([unsure if r is None else r for r in rooms], dtype=np.int64)
        room = room[inverse.ravel()]
        a, b = room[: len(both) // 2], room[len(both) // 2 :]
        out[start:] = (a != unsure) & (b != unsure) & (a != b)
        return out

    def __call__(self, box_from: FloatArray, box_to: FloatArray) -> bool:
        """Whether the two spaces lie in different closed rooms (``False``: not known)."""
        if not self.built:
            if self.paths is None:
                self.paths = FreePaths(self.index, self.sense, self.wall_mask)
            if self.paths.joined(box_from, box_to):
                return False
            self.rooms = firm_rooms(self.index, self.sense, self.wall_mask)
            self.built = True
        if self.rooms is None:
            return False
        a, b = self._room_at(box_from), self._room_at(box_to)
        return a is not None and b is not None and a != b


def _search(
    index: WallIndex,
    bf: FloatArray,
    bt: FloatArray,
    sense: str,
    elevations: tuple[float, ...] | None,
    wall_mask: NDArray[np.bool_] | None,
    max_tests: int = MAX_SEARCH_TESTS,
    parent: WorkBudget | None = None,
    *,
    centre_blockers: list[int] | None = None,
) -> LineOfEffect:
    """The exact search between two disjoint spaces (see ``line_of_effect_between``).

    Cheap lines first: the centre line and the 16 corner-to-corner lines (already traced,
    all blocked, when ``centre_blockers``, the centre line's blockers, is given), then the lines
    through pairs of vertices, ``CANDIDATE_CHUNK`` at a time, stopping at the first clear one
    (the same witness as tracing them all: the first clear line in this order). Of each
    chunk, the lines crossing a firm wall outright are set aside by a compiled walk that
    stops at that wall (``_surely_blocked``); only the others get the exact trace.

    Cost (issue 16): O(V^2) candidate lines for V vertices (refused at once past
    ``max_tests`` pairs), each walked until its first firm crossing, plus the exact trace of
    the lines that cross none; refused before any is traced when ``SAMPLE_LINES`` lines
    spread over all the pairs predict more than ``EARLY_REFUSAL_FACTOR * max_tests`` tests.

    Raises
    ------
    OverBudget
        Deciding would take more than ``max_tests`` line–wall tests; at once, before any
        search, when there are more vertex pairs than that.
    """
    if parent is not None:  # the search's own work beyond its tests (issue 20)
        parent.spend(SEARCH_UNITS)
    corners_f = np.array([[bf[0], bf[1]], [bf[2], bf[1]], [bf[2], bf[3]], [bf[0], bf[3]]])
    corners_t = np.array([[bt[0], bt[1]], [bt[2], bt[1]], [bt[2], bt[3]], [bt[0], bt[3]]])
    centre_line = _centre_lines(bf[None, :], bt[None, :])[0]
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
            grown = shapely.buffer(hull, QUERY_TOL_PX)
            ends = ends[shapely.contains_xy(grown, ends[:, 0], ends[:, 1])]
            # Where walls cross the boxes' edges are vertices of the free space too.
            cuts, _ = _edge_cuts(
                index, np.zeros(len(near), dtype=np.intp), near, bf[None, :], bt[None, :]
            )
            ray_verts = _distinct_points(ends)
            n_pts = len(ray_verts) + 8 + len(cuts)
            if n_pts * (n_pts - 1) // 2 > max_tests:  # more lines than tests: refuse now
                raise _budget(n_pts, max_tests, parent).refusal()
            rays = _incident_rays(index, near, ray_verts, sense)
            verts = [ray_verts, corners_f, corners_t, cuts]
    first_segs = segs[0]
    if centre_blockers is None:
        elev1 = (
            None if elevations is None else np.tile(np.asarray(elevations), (len(first_segs), 1))
        )
        first_trace = trace(
            index,
            first_segs,
            sense,
            elevations=elev1,
            wall_mask=wall_mask,
            low_obstacles=False,
            budget=parent,
        )
        clear = np.flatnonzero(~first_trace.wall_blocked)
        if len(clear):  # the centre line or a corner-to-corner line: no search needed
            w = tuple(float(v) for v in first_segs[int(clear[0])])
            return LineOfEffect(True, w, [], len(first_segs))  # type: ignore[arg-type]
        centre_blockers = first_trace.wall_blockers[0]
    blockers = centre_blockers
    pts = np.vstack(verts)
    n_ray = len(ray_verts)
    total = len(pts) * (len(pts) - 1) // 2
    budget = _budget(len(pts), max_tests, parent)
    if total > max_tests:
        raise budget.refusal()
    traced = len(first_segs)
    firm = _firm(index, sense, wall_mask)
    # Predict the whole search's tests from lines spread over all of it, before tracing any.
    limit = EARLY_REFUSAL_FACTOR * max_tests
    # Only when it could pass: each line tests at most the walls whose boxes meet the hull's.
    if index.size and total * len(index.tree.query(hull)) > limit:
        si, sj = _spread_pairs(len(pts), SAMPLE_LINES)
        sample = _candidates(pts, si, sj, rays, n_ray, bf, bt)
        if len(sample):
            predicted = total * (len(sample) / len(si)) * _tests_per_line(index, sample, firm)
            if predicted > limit:
                raise budget.refusal()
    for i, j in _vertex_pairs(len(pts), CANDIDATE_CHUNK):
        cand = _candidates(pts, i, j, rays, n_ray, bf, bt)
        if not len(cand):
            continue
        traced += len(cand)
        # Lines crossing a firm wall outright are blocked: trace only the others, in order.
        cand = cand[~_surely_blocked(index, cand, firm, budget)[0]]
        if not len(cand):
            continue
        elev = None if elevations is None else np.tile(np.asarray(elevations), (len(cand), 1))
        result = trace(
            index,
            cand,
            sense,
            elevations=elev,
            wall_mask=wall_mask,
            low_obstacles=False,
            with_blockers=False,
            budget=budget,
        )
        clear = np.flatnonzero(~result.wall_blocked)
        if len(clear):
            w = tuple(float(v) for v in cand[int(clear[0])])
            return LineOfEffect(True, w, [], traced)  # type: ignore[arg-type]
    return LineOfEffect(False, None, blockers, traced)


#: Vertex pairs of the searches run together by ``_search_many`` (memory bound).
MANY_CHUNK = 262_144


def _edge_cuts(
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


def _search_many(
    index: WallIndex,
    bf: FloatArray,
    bt: FloatArray,
    sense: str,
    elevations: FloatArray | None,
    wall_mask: NDArray[np.bool_] | None,
    parent: WorkBudget | None,
    centre_blockers: list[list[int]],
) -> list[LineOfEffect | None]:
    """``_search`` of many pairs whose corner lines are all blocked, run together.

    The same search, vertices, candidate lines in the same order, the same witness and
    count, but each step is one array operation over all the pairs' walls, vertices and
    candidates (issue 20: a matrix runs hundreds of searches, each mostly fixed cost).
    Only searches that cannot pass ``MAX_SEARCH_TESTS`` run here (their vertex pairs times
    the walls near them at most that, in one ``CANDIDATE_CHUNK``); the others are left to
    ``_search`` (``None`` in the result), which may refuse them.

    Parameters
    ----------
    bf, bt : ndarray of shape (p, 4)
        px, the pairs' disjoint spaces.
    elevations : ndarray of shape (p, 4) or None
        Each pair's band (GEO-5a).
    centre_blockers : list of p lists
        What blocks each pair's centre line (``LineOfEffect.blockers`` when blocked).

    Cost: O(p + walls near the pairs + vertex pairs), in numpy, shapely and the compiled
    walk; ``SEARCH_UNITS`` per search and every line-wall test spent on ``parent``.
    """
    p = len(bf)
    corners_f = np.stack([bf[:, [0, 1]], bf[:, [2, 1]], bf[:, [2, 3]], bf[:, [0, 3]]], axis=1)
    corners_t = np.stack([bt[:, [0, 1]], bt[:, [2, 1]], bt[:, [2, 3]], bt[:, [0, 3]]], axis=1)
    hull = shapely.convex_hull(shapely.multipoints(np.concatenate([corners_f, corners_t], 1)))
    qi = wi = np.empty(0, dtype=np.intp)
    envelopes = np.zeros(p, dtype=np.int64)
    if index.size:
        qi, wi = index.tree.query(hull, predicate="intersects")
        keep = index.restriction[sense][wi] > 0
        if wall_mask is not None:
            keep &= wall_mask[wi]
        qi, wi = qi[keep], wi[keep]
        envelopes = np.bincount(index.tree.query(hull)[0], minlength=p)
    # Wall ends in each pair's hull (grown), distinct and sorted: its ray vertices.
    ends = index.coords[wi].reshape(-1, 2)
    end_pair = np.repeat(qi, 2)
    grown = shapely.buffer(hull, QUERY_TOL_PX)
    inside = shapely.contains_xy(grown[end_pair], ends[:, 0], ends[:, 1])
    rv, rv_pair = _distinct_by_owner(ends[inside], end_pair[inside])
    # Where the walls cross the boxes' edges.
    cuts, cut_pair = _edge_cuts(index, qi, wi, bf, bt)
    n_ray = np.bincount(rv_pair, minlength=p)
    n_cut = np.bincount(cut_pair, minlength=p)
    n_pts = n_ray + 8 + n_cut
    total = n_pts * (n_pts - 1) // 2
    ok = (total <= CANDIDATE_CHUNK) & (total * envelopes <= MAX_SEARCH_TESTS)
    # A pair without walls near it has only its 8 corners (no cuts, no rays).
    out: list[LineOfEffect | None] = [None] * p
    picked = np.flatnonzero(ok)
    if not len(picked):
        return out
    # Each picked pair's vertices, as in ``_search``: rays' vertices, the two boxes'
    # corners, the cuts; one global array, pair by pair.
    first_of = np.zeros(p + 1, dtype=np.int64)
    np.cumsum(np.where(ok, n_pts, 0), out=first_of[1:])
    pts = np.empty((int(first_of[-1]), 2))
    ray_row = np.full(len(pts), -1, dtype=np.intp)
    rv_ok = ok[rv_pair]
    rv_local = np.arange(len(rv)) - np.repeat(np.cumsum(n_ray) - n_ray, n_ray)
    at = first_of[rv_pair[rv_ok]] + rv_local[rv_ok]
    pts[at] = rv[rv_ok]
    ray_row[at] = np.flatnonzero(rv_ok)
    base = first_of[picked] + n_ray[picked]
    for c in range(4):
        pts[base + c] = corners_f[picked, c]
        pts[base + 4 + c] = corners_t[picked, c]
    cut_ok = ok[cut_pair]
    cut_local = np.arange(len(cuts)) - np.repeat(np.cumsum(n_cut) - n_cut, n_cut)
    pts[first_of[cut_pair[cut_ok]] + n_ray[cut_pair[cut_ok]] + 8 + cut_local[cut_ok]] = cuts[cut_ok]
    rays = _incident_rays_many(index, qi, wi, rv, rv_pair, sense)
    firm = _firm(index, sense, wall_mask)
    if parent is not None:  # the searches' own work beyond their tests (issue 20)
        parent.spend(SEARCH_UNITS * len(picked))
    # Vertex pairs of a group of searches at a time (memory), in each search's order.
    group: list[int] = []
    size = 0
    for q in picked.tolist():
        group.append(q)
        size += int(total[q])
        if size >= MANY_CHUNK or q == picked[-1]:
            _search_group(
                index,
                np.array(group, dtype=np.intp),
                pts,
                first_of,
                n_pts,
                ray_row,
                rays,
                bf,
                bt,
                sense,
                elevations,
                wall_mask,
                firm,
                parent,
                centre_blockers,
                out,
            )
            group, size = [], 0
    return out


def _search_group(
    index: WallIndex,
    group: NDArray[np.intp],
    pts: FloatArray,
    first_of: NDArray[np.int64],
    n_pts: NDArray[np.int64],
    ray_row: NDArray[np.intp],
    rays: FloatArray,
    bf: FloatArray,
    bt: FloatArray,
    sense: str,
    elevations: FloatArray | None,
    wall_mask: NDArray[np.bool_] | None,
    firm: NDArray[np.bool_],
    parent: WorkBudget | None,
    centre_blockers: list[list[int]],
    out: list[LineOfEffect | None],
) -> None:
    """The candidate lines of the searches ``group`` of ``_search_many``, traced at once."""
    sizes = n_pts[group]
    counts = sizes * (sizes - 1) // 2
    owner = np.repeat(group, counts)
    # np.triu_indices order within each search: i ascending, then j.
    rows_per = np.repeat(sizes - 1, sizes - 1)  # each row i of a search: its n - 1
    local_i = np.arange(len(rows_per)) - np.repeat(np.cumsum(sizes - 1) - (sizes - 1), sizes - 1)
    span = rows_per - local_i  # pairs (i, j > i) per row i
    i = np.repeat(local_i, span)
    row_start = np.cumsum(span) - span
    j = np.arange(len(i)) - np.repeat(row_start, span) + i + 1
    offset = first_of[owner]
    gi, gj = offset + i, offset + j
    u = pts[gj] - pts[gi]
    keep = np.hypot(u[:, 0], u[:, 1]) > ON_LINE_TOL_PX
    if rays.shape[1]:
        keep &= ~_separates_rows(rays, ray_row[gi], u) & ~_separates_rows(rays, ray_row[gj], u)
    gi, u, owner = gi[keep], u[keep], owner[keep]
    box_f = tuple(bf[owner, c] for c in range(4))
    box_t = tuple(bt[owner, c] for c in range(4))
    cand, kept = _chord_segments(pts[gi], u, box_f, box_t)
    owner = owner[kept]
    traced = np.bincount(owner, minlength=len(bf))
    clear = np.zeros(len(cand), dtype=bool)
    if len(cand):
        surely, _ = _surely_blocked(index, cand, firm, parent)
        rest = np.flatnonzero(~surely)
        if len(rest):
            clear[rest] = ~trace(
                index,
                cand[rest],
                sense,
                elevations=None if elevations is None else elevations[owner[rest]],
                wall_mask=wall_mask,
                low_obstacles=False,
                with_blockers=False,
                budget=parent,
            ).wall_blocked
    # Each search's first clear candidate, in its order, is its witness.
    found = np.flatnonzero(clear)
    first_clear: dict[int, int] = {}
    for k, q in zip(found.tolist(), owner[found].tolist(), strict=True):
        first_clear.setdefault(q, k)
    first_lines = 17  # the centre line and the 16 corner-to-corner lines, all blocked
    for q in group.tolist():
        c = first_clear.get(q)
        if c is None:
            out[q] = LineOfEffect(False, None, centre_blockers[q], first_lines + int(traced[q]))
        else:
            w = tuple(float(v) for v in cand[c])
            out[q] = LineOfEffect(True, w, [], first_lines + int(traced[q]))  # type: ignore[arg-type]


def _incident_rays_many(
    index: WallIndex,
    qi: NDArray[np.intp],
    wi: NDArray[np.intp],
    points: FloatArray,
    point_pair: NDArray[np.intp],
    sense: str,
) -> FloatArray:
    """``_incident_rays`` of many searches, shape (len(points), r, 2), 0-padded.

    ``qi, wi``: the (search, wall) pairs near each search; ``points``: each search's ray
    vertices, sorted by search, x, y (``point_pair``: their search). Each point's rays come
    in its search's wall order.
    """
    firm = (
        (index.restriction[sense][wi] == 2)
        & (index.direction[wi] == 0)
        & np.isinf(index.bottom[wi])
        & np.isinf(index.top[wi])
    )
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
    # Within each search, the rays in ``_incident_rays``' order: first ends, then second.
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


def _budget(vertices: int, max_tests: int, parent: WorkBudget | None) -> WorkBudget:
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


def _spread_pairs(n: int, k: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
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


def _tests_per_line(index: WallIndex, lines: FloatArray, firm: NDArray[np.bool_]) -> float:
    """Mean line-wall tests the search spends on each of ``lines`` (m, 4) px (m > 0).

    A line crossing a firm wall costs the pairs looked at until that wall
    (``_surely_blocked``); any other, every candidate pair of ``trace``.
    """
    blocked, looked = _surely_blocked(index, lines, firm, None)
    rest = lines[~blocked]
    full = len(candidate_pairs(index, rest)[0]) if len(rest) else 0
    return float(looked[blocked].sum() + full) / len(lines)


def _vertex_pairs(n: int, chunk: int) -> Iterator[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """Index pairs ``i < j`` of ``n`` vertices, in ``np.triu_indices`` order, ``chunk`` at a time.

    Memory stays O(chunk) however many vertices (issue 16).
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


def _candidates(
    pts: FloatArray,
    i: NDArray[np.intp],
    j: NDArray[np.intp],
    rays: FloatArray,
    n_ray: int,
    bf: FloatArray,
    bt: FloatArray,
) -> FloatArray:
    """The candidate segments, shape (k, 4) px, of the lines through vertex pairs ``(i, j)``."""
    # A clear segment can be moved until its line rests on two vertices lying on it, where
    # the walls stay on one side; at a vertex whose unconditional walls lie on both sides of
    # the line (a straight wall split there, a T) every such line is blocked: skip those.
    u = pts[j] - pts[i]
    keep = np.hypot(u[:, 0], u[:, 1]) > ON_LINE_TOL_PX
    if n_ray:
        keep &= ~_separates(rays, i, u, n_ray) & ~_separates(rays, j, u, n_ray)
    i, u = i[keep], u[keep]
    return _chord_segments(pts[i], u, bf, bt)[0]


def _chord_segments(
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
