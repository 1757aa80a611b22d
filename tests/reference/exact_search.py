"""The exact search of one pair by itself: a test-only oracle (5E-LOE-2, GEO-6).

This is the lone search as it was before every search ran through
``service.geometry.search.search_many`` (which lays out the vertices of many pairs in one
array and traces the candidates of several searches at once, near pairs and far ones,
chunk after chunk of each). Its vertices come from one
pair's own tree query, its candidates from local vertex indices, chunk by chunk: an
independent path to the same witness, count and refusals. ``search_each`` has
``search_many``'s signature, so a property can answer pairs through it instead
(``tests/property/test_line_of_effect_properties.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.budget import SEARCH_UNITS, WorkBudget
from service.engine.tolerances import CHORD_TOL, ON_LINE_TOL_PX, QUERY_TOL_PX, SIDE_TOL_REL
from service.engine.walls import FloatArray, WallIndex
from service.geometry import search
from service.geometry.firm import firm_walls, surely_blocked
from service.geometry.search import (
    CANDIDATE_CHUNK,
    EARLY_REFUSAL_FACTOR,
    FIRST_LINES,
    SAMPLE_LINES,
    Found,
    search_budget,
    spread_pairs,
    tests_per_line,
    vertex_pairs,
)
from service.geometry.trace import TraceSpec, trace
from service.geometry.vertices import distinct_by_owner, edge_cuts, incident_rays
from service.geometry.walk import settling


def search_each(
    index: WallIndex,
    bf: FloatArray,
    bt: FloatArray,
    sense: str,
    elevations: FloatArray | None,
    wall_mask: NDArray[np.bool_] | None,
    parent: WorkBudget | None,
    max_tests: int | None = None,
) -> list[Found]:
    """``search_many``'s answers, each pair searched by itself (``lone_search``), in order."""
    limit = search.MAX_SEARCH_TESTS if max_tests is None else max_tests
    return [
        lone_search(
            index,
            bf[q],
            bt[q],
            sense,
            None if elevations is None else elevations[q],
            wall_mask,
            limit,
            parent,
        )
        for q in range(len(bf))
    ]


def distinct_points(points: FloatArray) -> FloatArray:
    """The distinct rows of ``points`` (n, 2), sorted by x then y (``np.unique(axis=0)``)."""
    return distinct_by_owner(points.reshape(-1, 2), np.zeros(len(points), dtype=np.intp))[0]


def lone_incident_rays(
    index: WallIndex, near: NDArray[np.intp], points: FloatArray, sense: str
) -> FloatArray:
    """``vertices.incident_rays`` of one search: its walls ``near``, its vertices ``points``."""
    return incident_rays(
        index,
        np.zeros(len(near), dtype=np.intp),
        near,
        points,
        np.zeros(len(points), dtype=np.intp),
        sense,
    )


def _separates(
    rays: FloatArray, idx: NDArray[np.intp], u: FloatArray, n_ray: int
) -> NDArray[np.bool_]:
    """Whether the walls at vertex ``idx`` (if a wall vertex) lie on both sides of ``u``."""
    out = np.zeros(len(idx), dtype=bool)
    sel = idx < n_ray
    if not np.any(sel) or rays.shape[1] == 0:
        return out
    r = rays[idx[sel]]
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
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
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
    u = pts[j] - pts[i]
    keep = np.hypot(u[:, 0], u[:, 1]) > ON_LINE_TOL_PX
    if n_ray:
        keep &= ~_separates(rays, i, u, n_ray) & ~_separates(rays, j, u, n_ray)
    i, u = i[keep], u[keep]
    return chord_segments(pts[i], u, bf, bt)[0]


def lone_search(
    index: WallIndex,
    bf: FloatArray,
    bt: FloatArray,
    sense: str,
    band: FloatArray | None,
    wall_mask: NDArray[np.bool_] | None,
    max_tests: int,
    parent: WorkBudget | None = None,
) -> Found:
    """The exact search between two disjoint spaces (4,) px whose first lines are blocked.

    Vertices: the ray vertices (wall ends in the grown hull, distinct), the eight corners,
    the edge cuts; candidates ``CANDIDATE_CHUNK`` vertex pairs at a time, stopping at the
    first clear one; refused as ``search_many`` refuses a search by itself.
    """
    if parent is not None:
        parent.spend(SEARCH_UNITS)
    corners_f = np.array([[bf[0], bf[1]], [bf[2], bf[1]], [bf[2], bf[3]], [bf[0], bf[3]]])
    corners_t = np.array([[bt[0], bt[1]], [bt[2], bt[1]], [bt[2], bt[3]], [bt[0], bt[3]]])
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
            cuts, _ = edge_cuts(
                index, np.zeros(len(near), dtype=np.intp), near, bf[None, :], bt[None, :]
            )
            ray_verts = distinct_points(ends)
            n_pts = len(ray_verts) + 8 + len(cuts)
            if n_pts * (n_pts - 1) // 2 > max_tests:
                raise search_budget(n_pts, max_tests, parent).refusal()
            rays = lone_incident_rays(index, near, ray_verts, sense)
            verts = [ray_verts, corners_f, corners_t, cuts]
    pts = np.vstack(verts)
    n_ray = len(ray_verts)
    total = len(pts) * (len(pts) - 1) // 2
    budget = search_budget(len(pts), max_tests, parent)
    if total > max_tests:
        raise budget.refusal()
    traced = FIRST_LINES
    firm = firm_walls(index, sense, wall_mask)
    limit = EARLY_REFUSAL_FACTOR * max_tests
    if index.size and total * len(index.tree.query(hull)) > limit:
        si, sj = spread_pairs(len(pts), SAMPLE_LINES)
        sample = _candidates(pts, si, sj, rays, n_ray, bf, bt)
        if len(sample):
            settles = settling(index, sense, wall_mask, band is not None)
            bands = None if band is None else np.tile(np.asarray(band), (len(sample), 1))
            per_line = tests_per_line(index, sample, settles, bands)
            predicted = total * (len(sample) / len(si)) * per_line
            if predicted > limit:
                raise budget.refusal()
    for i, j in vertex_pairs(len(pts), CANDIDATE_CHUNK):
        cand = _candidates(pts, i, j, rays, n_ray, bf, bt)
        if not len(cand):
            continue
        traced += len(cand)
        cand = cand[~surely_blocked(index, cand, firm, budget)[0]]
        if not len(cand):
            continue
        elev = None if band is None else np.tile(np.asarray(band), (len(cand), 1))
        result = trace(
            index,
            cand,
            TraceSpec(sense=sense, wall_mask=wall_mask, low_obstacles=False, with_blockers=False),
            elevations=elev,
            budget=budget,
        )
        clear = np.flatnonzero(~result.wall_blocked)
        if len(clear):
            x0, y0, x1, y1 = (float(v) for v in cand[int(clear[0])])
            return Found((x0, y0, x1, y1), traced)
    return Found(None, traced)
