"""The exact search for a clear line between two spaces (5E-LOE-2, GEO-6), for many pairs.

If some segment between two disjoint spaces is clear, one can be moved, keeping it clear,
until its line passes through two **vertices**: wall ends inside the hull of both spaces,
the spaces' corners, and the points where walls cross the spaces' edges. The lines through
every pair of vertices, clipped to the facing ends of their chords of the two spaces, are
therefore the complete set of **candidates**; the first clear one in the search's order
(vertex pairs in ``np.triu_indices`` order) is the **witness**.

``search_many`` runs the searches of many pairs, near and far alike, on one path: every
step is one array operation over the walls, vertices and candidates of a chunk of pairs
whose memory is bounded by a constant (``vertices.pair_chunks``), and each search's
candidates are traced ``CANDIDATE_CHUNK`` vertex pairs at a time with those of the others,
round after round, until its first clear one (a matrix runs thousands of searches, each
mostly fixed cost; ``docs/architecture.md``, measure). The caller
(``service.geometry.exact``) has already traced each pair's centre line and its 16
corner-to-corner lines, all blocked.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import SEARCH_UNITS, WorkBudget
from service.engine.tolerances import CHORD_TOL, ON_LINE_TOL_PX, SIDE_TOL_REL
from service.engine.walls import FloatArray, WallIndex
from service.geometry.compiled import fmax, fmin, njit, split_at
from service.geometry.firm import surely_blocked
from service.geometry.trace import TraceSpec, trace
from service.geometry.vertices import pair_chunks, search_vertices
from service.geometry.walk import first_crossings, settling

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

#: Vertex pairs of the searches traced together (memory bound: a few dozen bytes each).
MANY_CHUNK = 65_536

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


@njit(cache=True, nogil=True)
def _chord(
    px: float, py: float, ux: float, uy: float, box: NDArray[np.float64], tol: float
) -> tuple[float, float]:  # pragma: no cover - compiled
    """Parameter interval ``(t_lo, t_hi)`` of the line ``p + t u`` inside a closed box.

    ``box``: ``x0, y0, x1, y1`` px; empty where ``t_lo > t_hi``. A line parallel to an axis
    is inside the box's slab within ``tol`` px of it.
    """
    t_lo, t_hi = -math.inf, math.inf
    for axis in range(2):
        lo, hi = box[axis], box[axis + 2]
        up, pp = (ux, px) if axis == 0 else (uy, py)
        if abs(up) > 0:
            t1 = (lo - pp) / up
            t2 = (hi - pp) / up
            t_lo = fmax(t_lo, fmin(t1, t2))
            t_hi = fmin(t_hi, fmax(t1, t2))
        elif not (pp >= lo - tol and pp <= hi + tol):
            t_lo, t_hi = math.inf, -math.inf
    return t_lo, t_hi


@njit(cache=True, nogil=True)
def _candidate_lines(
    pts: NDArray[np.float64],
    gi: NDArray[np.int64],
    gj: NDArray[np.int64],
    owner: NDArray[np.int64],
    boxes: tuple[NDArray[np.float64], NDArray[np.float64]],
    rays: tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]],
    tols: tuple[float, float, float],
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:  # pragma: no cover - compiled
    """``_Searches.candidates``' loop: the segments (k, 4) px and their searches (k,).

    ``boxes``: each search's two spaces (p, 4); ``rays``: ``Vertices.rays``, ``ray_start``,
    ``ray_row``; ``tols``: ``ON_LINE_TOL_PX``, ``SIDE_TOL_REL``, ``CHORD_TOL``.
    """
    bf, bt = boxes
    ray, ray_start, ray_row = rays
    on_line, side_rel, chord_tol = tols
    with_rays = ray.shape[0] > 0
    m = gi.shape[0]
    out = np.empty((m, 4), dtype=np.float64)
    of = np.empty(m, dtype=np.int64)
    k = 0
    for r in range(m):
        a, b, q = gi[r], gj[r], owner[r]
        px, py = pts[a, 0], pts[a, 1]
        ux, uy = pts[b, 0] - px, pts[b, 1] - py
        if not math.hypot(ux, uy) > on_line:
            continue  # (nearly) coincident vertices
        if with_rays and (
            split_at(ray, ray_start, ray_row[a], ux, uy, side_rel)
            or split_at(ray, ray_start, ray_row[b], ux, uy, side_rel)
        ):
            continue  # firm walls on both sides at a vertex (GEO-6)
        lo_f, hi_f = _chord(px, py, ux, uy, bf[q], on_line)
        lo_t, hi_t = _chord(px, py, ux, uy, bt[q], on_line)
        if not (lo_f <= hi_f and lo_t <= hi_t):
            continue
        # The boxes are disjoint, so on a line their chords are disjoint intervals: join
        # the facing ends (any clear segment between the chords contains this one).
        forward = hi_f <= lo_t
        t0 = hi_f if forward else lo_f
        t1 = lo_t if forward else hi_t
        # Both vertices (parameters 0 and 1 on the line) must lie on that segment.
        lo, hi = fmin(t0, t1) - chord_tol, fmax(t0, t1) + chord_tol
        if not (lo <= 0 and 0 <= hi and lo <= 1 and 1 <= hi):
            continue
        out[k, 0], out[k, 1] = px + ux * t0, py + uy * t0
        out[k, 2], out[k, 3] = px + ux * t1, py + uy * t1
        of[k] = q
        k += 1
    return out[:k], of[:k]


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


def row_pairs(
    sizes: NDArray[np.int64], lo: NDArray[np.int64], hi: NDArray[np.int64]
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
    """The vertex pairs ``i < j`` of rows ``lo <= i < hi`` of several searches, one by one.

    ``sizes``, ``lo``, ``hi`` (g,): each job's search's vertices and its rows. Returns the
    local indices ``i``, ``j`` and each pair's job, jobs in order and each job's pairs in
    ``np.triu_indices`` order (``vertex_pairs``' chunks, of many searches at once).
    """
    rows = hi - lo
    job_of_row = np.repeat(np.arange(len(sizes)), rows)
    i = lo[job_of_row] + np.arange(len(job_of_row)) - np.repeat(np.cumsum(rows) - rows, rows)
    span = sizes[job_of_row] - 1 - i  # pairs (i, j > i) per row i
    ii = np.repeat(i, span)
    jj = np.arange(len(ii)) - np.repeat(np.cumsum(span) - span, span) + ii + 1
    return ii.astype(np.intp), jj.astype(np.intp), np.repeat(job_of_row, span)


def chunk_rows(n: int, chunk: int) -> list[tuple[int, int]]:
    """The rows ``[lo, hi)`` of ``vertex_pairs(n, chunk)``'s chunks, in order."""
    if n * (n - 1) // 2 <= chunk:
        return [(0, max(n - 1, 0))] if n > 1 else []
    out, lo, size = [], 0, 0
    for i in range(n - 1):
        size += n - 1 - i
        if size >= chunk or i == n - 2:
            out.append((lo, i + 1))
            lo, size = i + 1, 0
    return out


def tests_per_line(
    index: WallIndex, lines: FloatArray, settles: NDArray[np.int8], bands: FloatArray | None
) -> float:
    """Mean line-wall tests the search spends on each of ``lines`` (m, 4) px (m > 0).

    A line the walls ``settles`` (``walk.settling``) block outright costs the pairs looked
    at until there (``firm.surely_blocked``); any other, every candidate pair of ``trace``:
    both are the pairs one walk looks at (``walk.first_crossings``, with the lines'
    ``bands`` (m, 4)).
    """
    if not index.size:
        return 0.0
    seg = np.asarray(lines, dtype=np.float64).reshape(-1, 4)
    _, looked = first_crossings(index, seg, settles, bands)
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


class _Searches:
    """The searches of one chunk of ``search_many``'s pairs: spaces, vertices, firm walls."""

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
        self.vertices = search_vertices(index, bf, bt, sense, wall_mask)
        self.settles = settling(index, sense, wall_mask, elevations is not None)

    def firm_walk(
        self, cand: FloatArray, owner: NDArray[np.intp], every: bool = False
    ) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
        """``walk.first_crossings`` of the candidates (k, 4) px of the searches ``owner``.

        With what each wall settles (``walk.settling``: the firm walls, those of limited
        height where they cover each line's band, GEO-5a, and two two-way limited walls,
        GEO-4); ``every``: walk it even where no wall settles anything (counting what it
        looks at, for a prediction), else ``firm.surely_blocked`` (such lines are not
        walked; nothing spent here).
        """
        if not self.index.size or not len(cand):
            return np.zeros(len(cand), dtype=bool), np.zeros(len(cand), dtype=np.int64)
        bands = None if self.elevations is None else self.elevations[owner]
        if every:
            return first_crossings(self.index, cand, self.settles, bands)
        return surely_blocked(self.index, cand, self.settles, None, bands)  # spent by caller

    def candidates(
        self, gi: NDArray[np.intp], gj: NDArray[np.intp], owner: NDArray[np.intp]
    ) -> tuple[FloatArray, NDArray[np.intp]]:
        """The candidate segments (k, 4) px through vertex rows ``gi``, ``gj``, and owners.

        ``gi``, ``gj``, ``owner`` (m,): each line's two vertices (rows of
        ``Vertices.pts``) and its search; the segments come in that order, with their
        searches (k,).

        A clear segment can be moved until its line rests on two vertices lying on it,
        where the walls stay on one side; at a vertex whose firm walls lie on both sides of
        the line (a straight wall split there, a T: GEO-6) every such line is blocked, so
        those are skipped, as are pairs of (nearly) coincident vertices.
        """
        v = self.vertices
        cand, of = _candidate_lines(
            np.ascontiguousarray(v.pts, dtype=np.float64),
            gi.astype(np.int64),
            gj.astype(np.int64),
            owner.astype(np.int64),
            (np.ascontiguousarray(self.bf, np.float64), np.ascontiguousarray(self.bt, np.float64)),
            (
                np.ascontiguousarray(v.rays, dtype=np.float64).reshape(-1, 2),
                np.ascontiguousarray(v.ray_start, dtype=np.int64),
                np.ascontiguousarray(v.ray_row, dtype=np.int64),
            ),
            (ON_LINE_TOL_PX, SIDE_TOL_REL, CHORD_TOL),
        )
        return cand, of.astype(np.intp)

    def clear(
        self,
        cand: FloatArray,
        owner: NDArray[np.intp],
        budget: WorkBudget | None,
        spent: NDArray[np.int64] | None = None,
    ) -> NDArray[np.bool_]:
        """Which candidates (k, 4) px of the searches ``owner`` (k,) are clear, shape (k,).

        The lines that walls block outright (``walk.settling``: a firm wall, one of limited
        height covering their band there, two two-way limited walls) are set aside by the
        compiled walk that stops there (``firm.surely_blocked``'s, in ``firm_walk``); only
        the others get the exact trace.
        Every line-wall test is spent on ``budget``, and added line by line to ``spent``
        (k,) when given.
        """
        clear = np.zeros(len(cand), dtype=bool)
        if not len(cand):
            return clear
        surely, looked = self.firm_walk(cand, owner)
        if budget is not None:  # the walk's pairs of the lines it sets aside
            budget.spend(int(looked[surely].sum()))
        if spent is not None:
            spent += np.where(surely, looked, 0)
        rest = np.flatnonzero(~surely)
        if len(rest):
            rest_spent = None if spent is None else np.zeros(len(rest), dtype=np.int64)
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
                spent=rest_spent,
            ).wall_blocked
            if spent is not None and rest_spent is not None:
                spent[rest] += rest_spent
        return clear

    def refuse_oversized(self, max_tests: int, parent: WorkBudget | None) -> None:
        """Refuse the first search with more vertex pairs than ``max_tests`` (one test each)."""
        sizes = self.vertices.sizes
        over = np.flatnonzero(sizes * (sizes - 1) // 2 > max_tests)
        if len(over):
            raise search_budget(int(sizes[over[0]]), max_tests, parent).refusal()

    def refuse_early(self, max_tests: int, parent: WorkBudget | None) -> None:
        """Refuse the first search whose sample of lines predicts too many tests.

        Asked of the searches that could pass ``EARLY_REFUSAL_FACTOR * max_tests`` (each
        line tests at most the walls of ``Vertices.envelopes``): ``SAMPLE_LINES`` lines
        spread over all of each, walked together (``tests_per_line``'s count, per search).
        """
        v = self.vertices
        sizes = v.sizes
        total = sizes * (sizes - 1) // 2
        limit = EARLY_REFUSAL_FACTOR * max_tests
        asked = np.flatnonzero(total * v.envelopes > limit)
        if not len(asked) or not self.index.size:
            return
        spread = [spread_pairs(int(sizes[q]), SAMPLE_LINES) for q in asked.tolist()]
        drawn = np.array([len(si) for si, _ in spread])
        owner = np.repeat(asked, drawn)
        gi = v.first[owner] + np.concatenate([si for si, _ in spread])
        gj = v.first[owner] + np.concatenate([sj for _, sj in spread])
        sample, of = self.candidates(gi, gj, owner)
        _, looked = self.firm_walk(sample, of, every=True)
        lines = np.bincount(of, minlength=len(sizes))
        tests = np.bincount(of, weights=looked, minlength=len(sizes))
        for q, n_drawn in zip(asked.tolist(), drawn.tolist(), strict=True):
            kept = int(lines[q])
            if kept and int(total[q]) * (kept / n_drawn) * (tests[q] / kept) > limit:
                raise search_budget(int(sizes[q]), max_tests, parent).refusal()

    def run(self, max_tests: int, parent: WorkBudget | None) -> list[Found]:
        """Every search, ``CANDIDATE_CHUNK`` vertex pairs of each at a time, all together.

        Round after round, each search left traces its next chunk of vertex pairs (whole
        rows, ``vertex_pairs``' chunks), the chunks of many searches in one trace of about
        ``MANY_CHUNK`` vertex pairs; a search stops at the chunk holding its first clear
        line (the same witness and count as searching it alone). A search that could pass
        ``max_tests`` (vertex pairs times ``Vertices.envelopes``) has its tests counted
        line by line, and is refused once they pass (``search_budget``).

        Raises
        ------
        OverBudget
            A search's tests pass ``max_tests``, or all of them ``parent``.
        """
        v = self.vertices
        sizes = v.sizes
        p = len(sizes)
        plans = [chunk_rows(int(n), CANDIDATE_CHUNK) for n in sizes.tolist()]
        counted = sizes * (sizes - 1) // 2 * v.envelopes > max_tests
        used = np.zeros(p, dtype=np.int64)
        traced = np.full(p, FIRST_LINES, dtype=np.int64)
        witness: list[tuple[float, float, float, float] | None] = [None] * p
        left = [q for q in range(p) if plans[q]]
        step = 0
        while left:
            jobs = [(q, *plans[q][step]) for q in left]
            for group in _job_groups(jobs, sizes):
                found = self._round(group, counted, used, traced, parent)
                for q, w in found.items():
                    witness[q] = w
                over = [q for q, _, _ in group if counted[q] and used[q] > max_tests]
                if over:
                    raise search_budget(int(sizes[over[0]]), max_tests, parent).refusal()
            step += 1
            left = [q for q in left if witness[q] is None and step < len(plans[q])]
        return [Found(witness[q], int(traced[q])) for q in range(p)]

    def _round(
        self,
        group: list[tuple[int, int, int]],
        counted: NDArray[np.bool_],
        used: NDArray[np.int64],
        traced: NDArray[np.int64],
        parent: WorkBudget | None,
    ) -> dict[int, tuple[float, float, float, float]]:
        """Trace the jobs ``group`` (search, first row, end row) at once; their witnesses.

        Adds each search's lines to ``traced`` and, for those ``counted``, its tests to
        ``used``.
        """
        v = self.vertices
        q_of = np.array([q for q, _, _ in group], dtype=np.intp)
        lo = np.array([r for _, r, _ in group], dtype=np.int64)
        hi = np.array([r for _, _, r in group], dtype=np.int64)
        i, j, job = row_pairs(v.sizes[q_of], lo, hi)
        owner = q_of[job]
        offset = v.first[owner]
        cand, owner = self.candidates(offset + i, offset + j, owner)
        traced += np.bincount(owner, minlength=len(traced))
        spent = np.zeros(len(cand), dtype=np.int64) if counted[q_of].any() else None
        clear = self.clear(cand, owner, parent, spent)
        if spent is not None:
            used += np.bincount(owner, weights=spent, minlength=len(used)).astype(np.int64)
        # Each search's first clear candidate, in its order, is its witness.
        found = np.flatnonzero(clear)
        firsts, at = np.unique(owner[found], return_index=True)
        return {
            q: _witness(cand[k]) for q, k in zip(firsts.tolist(), found[at].tolist(), strict=True)
        }


def _witness(segment: FloatArray) -> tuple[float, float, float, float]:
    """A candidate segment (4,) px as the witness's four floats."""
    x0, y0, x1, y1 = (float(v) for v in segment)
    return x0, y0, x1, y1


def _job_groups(
    jobs: list[tuple[int, int, int]], sizes: NDArray[np.int64]
) -> Iterator[list[tuple[int, int, int]]]:
    """The jobs (search, first row, end row), in order, in groups of about ``MANY_CHUNK`` pairs."""
    group: list[tuple[int, int, int]] = []
    size = 0
    for q, lo, hi in jobs:
        n = int(sizes[q])
        group.append((q, lo, hi))
        size += (hi - lo) * (2 * n - 1 - lo - hi) // 2  # pairs of rows lo..hi-1
        if size >= MANY_CHUNK:
            yield group
            group, size = [], 0
    if group:
        yield group


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
    order; its witness the first clear one. Every search, near or far, runs the same way
    (``_Searches.run``): the pairs in chunks of bounded memory (``pair_chunks``), each
    chunk's searches refused at once when too big (more vertex pairs than ``max_tests``,
    or a sample of lines predicting more than ``EARLY_REFUSAL_FACTOR`` times it), then
    traced together, ``CANDIDATE_CHUNK`` vertex pairs of each at a time.

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
        The request's budget: ``SEARCH_UNITS`` per search, afforded for all of them before
        any work and spent chunk by chunk before its vertices, and every line-wall test.
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
    walk; memory O(``ROWS_CHUNK`` + ``MANY_CHUNK``) whatever p and the walls.
    """
    max_tests = MAX_SEARCH_TESTS if max_tests is None else max_tests
    if parent is not None:  # the searches' own work beyond their tests
        parent.afford(SEARCH_UNITS * len(bf))
    out: list[Found] = []
    for rows in pair_chunks(index, bf, bt):
        if parent is not None:
            parent.spend(SEARCH_UNITS * len(rows))
        band = None if elevations is None else elevations[rows]
        searches = _Searches(index, bf[rows], bt[rows], sense, band, wall_mask)
        searches.refuse_oversized(max_tests, parent)
        searches.refuse_early(max_tests, parent)
        out.extend(searches.run(max_tests, parent))
    return out
