"""Exact line of effect (or sight) between two spaces, for many pairs at once (5E-LOE-2).

The public entry of the exact line (``docs/architecture.md``, geometry): ``lines_of_effect``
answers p pairs of spaces, cheapest lines first. Overlapping spaces are joined at once; a
clear centre line, then a clear corner-to-corner line, is the witness; pairs in different
closed rooms are sealed apart (``service.geometry.sealed``); only the rest run the exact
search (``service.geometry.search``, whose vertices and candidate lines are GEO-6's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import WorkBudget
from service.engine.density import WallDensity
from service.engine.walls import FloatArray, WallIndex, index_walls
from service.geometry.bands import as_bands
from service.geometry.crossings import firm_crossings_within
from service.geometry.firm import firm_walls
from service.geometry.sealed import pairs_sealed_apart
from service.geometry.search import FIRST_LINES, search_many
from service.geometry.surfaces import surface_blocked
from service.geometry.trace import TraceResult, TraceSpec, trace
from service.geometry.walk import estimate_tests
from service.model import Wall


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


def centre_lines(boxes_from: FloatArray, boxes_to: FloatArray) -> FloatArray:
    """Centre-to-centre segments, shape (p, 4), of boxes of shape (p, 4) px."""
    return np.column_stack(
        [
            (boxes_from[:, 0] + boxes_from[:, 2]) * 0.5,
            (boxes_from[:, 1] + boxes_from[:, 3]) * 0.5,
            (boxes_to[:, 0] + boxes_to[:, 2]) * 0.5,
            (boxes_to[:, 1] + boxes_to[:, 3]) * 0.5,
        ]
    )


def toward_centres(bf: FloatArray, bt: FloatArray, cand: FloatArray) -> FloatArray:
    """From each segment's ends (k, 4) toward the centres of its boxes (k, 4), px (GEO-6).

    ``trace``'s ``inward``: an end point on a wall is on its own space's side; zero at a
    centre (and for a box of no size, a point).
    """
    centre_f = (bf[:, 0:2] + bf[:, 2:4]) * 0.5
    centre_t = (bt[:, 0:2] + bt[:, 2:4]) * 0.5
    return np.column_stack([centre_f - cand[:, 0:2], centre_t - cand[:, 2:4]])


#: px by which the exact search shrinks a space given at inset 0 (GEO-6's end-point
#: Decision: a point of a space lying on a wall is on the space's own side of it, so a
#: space standing flush against a wall is searched from just inside it).
END_SIDE_PX = 1e-3


def _off_the_walls(boxes: FloatArray, spaces: FloatArray) -> FloatArray:
    """``boxes`` (p, 4), those equal to their ``spaces`` (inset 0) shrunk by ``END_SIDE_PX``.

    Points and spaces too small to shrink are kept as they are.
    """
    out = boxes.copy()
    same = np.all(boxes == spaces, axis=1)
    same &= (boxes[:, 2] - boxes[:, 0] > 2 * END_SIDE_PX) & (
        boxes[:, 3] - boxes[:, 1] > 2 * END_SIDE_PX
    )
    out[same] += np.array([END_SIDE_PX, END_SIDE_PX, -END_SIDE_PX, -END_SIDE_PX])
    return out


def _corner_lines(boxes_from: FloatArray, boxes_to: FloatArray) -> FloatArray:
    """The 16 corner-to-corner segments of each pair of boxes (p, 4), shape (p, 16, 4) px.

    Source corner major, corners in the order ``(x0, y0), (x1, y0), (x1, y1), (x0, y1)``.
    """
    order = [(0, 1), (2, 1), (2, 3), (0, 3)]
    cf = np.stack([boxes_from[:, [i, j]] for i, j in order], axis=1)
    ct = np.stack([boxes_to[:, [i, j]] for i, j in order], axis=1)
    return np.concatenate([np.repeat(cf, 4, axis=1), np.tile(ct, (1, 4, 1))], axis=2)


def line_of_effect_between(
    index: WallIndex,
    box_from: Sequence[float],
    box_to: Sequence[float],
    sense: str = "move",
    *,
    elevations: tuple[float, ...] | None = None,
    wall_mask: NDArray[np.bool_] | None = None,
    budget: WorkBudget | None = None,
    spaces: tuple[Sequence[float], Sequence[float]] | None = None,
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
    spaces : (sequence of 4 floats, sequence of 4 floats), optional
        The spaces the boxes were inset from (GEO-6, ``lines_of_effect``'s ``spaces``).

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
        spaces=None
        if spaces is None
        else (np.asarray([spaces[0]], dtype=np.float64), np.asarray([spaces[1]], dtype=np.float64)),
    )[0]


#: Up to this many pairs, ``lines_of_effect`` lists the centre lines' blockers in its first
#: trace of them (one trace instead of two for a single answer).
_LIST_AT_ONCE = 4


#: A pair to answer: its index, and its row of the pairs not overlapping (``rest``).
_Pending = tuple[int, int]


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
    spaces: tuple[FloatArray, FloatArray] | None = None,
) -> list[LineOfEffect]:
    """Exact line of effect for p pairs of spaces (5E-LOE-2), cheap lines first.

    Spaces that overlap are joined at once. The centre lines of the other pairs are traced
    in one vectorised call: a clear one is the witness. A pair whose centre line is blocked
    and whose spaces lie in different closed rooms is sealed apart (no search); the rooms
    are built only for a pair that no free path joins (``sealed.SealedApart``). The 16
    corner-to-corner lines of the others are traced in one call; only the pairs they leave
    blocked run the exact search (``search.search_many``), and through two-way walls a pair
    and its reverse share one.

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
    spaces : (ndarray (p, 4), ndarray (p, 4)), optional
        The spaces that ``boxes_from`` / ``boxes_to`` were inset from (GEO-6): their
        corner-to-corner lines are judged with the corner re-check (a wall ending on a
        token's own corner blocks the inset line only if it blocks the exact corner line;
        the inset never adds a block). Every line's ends are on their own space's side of a
        wall they lie on (GEO-6's end-point Decision, ``trace``'s ``inward``).

    Returns
    -------
    list of LineOfEffect, length p
        ``candidates`` is the number of segments traced for that pair.

    Raises
    ------
    OverBudget
        One pair's search, or all of them together, would pass a budget (``search``).
    """
    bf = np.asarray(boxes_from, dtype=np.float64).reshape(-1, 4)
    bt = np.asarray(boxes_to, dtype=np.float64).reshape(-1, 4)
    answers = _Answers(
        index, bf, bt, sense, as_bands(elevations, len(bf)), wall_mask, budget, blockers
    )
    if spaces is not None:
        answers.spaces = tuple(np.asarray(s, dtype=np.float64).reshape(-1, 4) for s in spaces)
    rest = answers.join_overlapping()
    if len(rest):
        answers.answer(rest, density)
    return answers.out  # type: ignore[return-value]


class _Answers:
    """The answers of one ``lines_of_effect`` call, filled in step by step (see there).

    ``out`` holds each pair's answer once known; ``centre_blockers``, by row of the pairs
    not overlapping (``rest``), the list that explains each pair left without line of
    effect: what blocks its centre line, named at the end in one trace.
    """

    def __init__(
        self,
        index: WallIndex,
        bf: FloatArray,
        bt: FloatArray,
        sense: str,
        bands: FloatArray | None,
        wall_mask: NDArray[np.bool_] | None,
        budget: WorkBudget | None,
        blockers: bool,
    ) -> None:
        self.index, self.bf, self.bt, self.sense, self.bands = index, bf, bt, sense, bands
        self.wall_mask, self.budget, self.blockers = wall_mask, budget, blockers
        self.out: list[LineOfEffect | None] = [None] * len(bf)
        self.centre_blockers: dict[int, list[int]] = {}
        self.spaces: tuple[FloatArray, ...] | None = None

    def _trace(
        self,
        segments: FloatArray,
        rows: Any,
        listed: bool,
        corners: FloatArray | None = None,
        inward: FloatArray | None = None,
    ) -> TraceResult:
        """``trace`` of ``segments`` (m, 4) px, each in the band of its pair ``rows`` (m,).

        ``listed``: with the blockers of each segment; ``corners``: the exact corner lines
        the segments were inset from (GEO-6's corner re-check); ``inward``: from each end
        into its space (``trace``'s, GEO-6's end-point Decision).
        """
        spec = TraceSpec(self.sense, self.wall_mask, low_obstacles=False, with_blockers=listed)
        elevations = None if self.bands is None else self.bands[rows]
        return trace(
            self.index,
            segments,
            spec,
            elevations=elevations,
            budget=self.budget,
            corners=corners,
            inward=inward,
        )

    def join_overlapping(self) -> NDArray[np.intp]:
        """Answer the pairs whose spaces overlap (clear, at a shared point); the others' rows."""
        bf, bt = self.bf, self.bt
        overlap = (
            (bf[:, 0] <= bt[:, 2])
            & (bt[:, 0] <= bf[:, 2])
            & (bf[:, 1] <= bt[:, 3])
            & (bt[:, 1] <= bf[:, 3])
        )
        for p in np.flatnonzero(overlap):
            point = (max(bf[p, 0], bt[p, 0]), max(bf[p, 1], bt[p, 1]))
            floors, bands = self.index.surfaces, self.bands  # GEO-10: not through a floor
            if floors is not None and bands is not None:
                seg = np.array([[*point, *point]])
                if surface_blocked(floors, seg, bands[p : p + 1], self.sense)[0]:
                    self.out[p] = LineOfEffect(False, None, [], 0)  # one space above the other
                    continue
            self.out[p] = LineOfEffect(True, (*point, *point), [], 0)
        return np.flatnonzero(~overlap)

    def answer(self, rest: NDArray[np.intp], density: WallDensity | None) -> None:
        """Answer the pairs ``rest`` (disjoint spaces), cheapest lines first."""
        centres = centre_lines(self.bf[rest], self.bt[rest])
        if self.budget is not None and density is not None:
            self.budget.afford_bounded(  # every line meets each wall at most once
                len(centres) * self.index.size, lambda: estimate_tests(density, centres)
            )
        # A few pairs (a single answer): their blockers are listed in this one trace, not
        # in a second one at the end; many pairs (matrices): traced bare, named later.
        listed = self.blockers and len(rest) <= _LIST_AT_ONCE
        centre = self._trace(centres, rest, listed)
        for k in np.flatnonzero(~centre.wall_blocked).tolist():
            witness = tuple(centres[k].tolist())
            self.out[int(rest[k])] = LineOfEffect(True, witness, [], 1)  # type: ignore[arg-type]
        left = self._seal(rest, np.flatnonzero(centre.wall_blocked))
        pending, mirrored = self._share_mirrored(self._corner_lines(rest, left))
        self._search(pending)
        self._name_blockers(rest, centres, centre if listed else None)
        for q, other in mirrored:
            self.out[q] = reversed_line(self.out[other])  # type: ignore[arg-type]

    def _seal(self, rest: NDArray[np.intp], blocked: NDArray[np.intp]) -> NDArray[np.intp]:
        """Answer the pairs ``rest[blocked]`` sealed apart; return the rows of ``rest`` left.

        Sealed apart: in different closed rooms (``sealed.pairs_sealed_apart``), so no line
        and no search.
        """
        at = rest[blocked]
        sealed = pairs_sealed_apart(
            self.index,
            self.sense,
            self.wall_mask,
            self.bf[at],
            self.bt[at],
            None if self.bands is None else self.bands[at],
        )
        shut = blocked[sealed]
        if self.blockers:  # each sealed pair's own list, named at the end
            for k, p in zip(shut.tolist(), rest[shut].tolist(), strict=True):
                self.out[p] = LineOfEffect(False, None, self.centre_blockers.setdefault(k, []), 1)
        else:  # a bare ``clear``: one answer, no blockers to name, for every sealed pair
            bare = LineOfEffect(False, None, [], 1)
            for p in rest[shut].tolist():
                self.out[p] = bare
        return blocked[~sealed]

    def _corner_lines(self, rest: NDArray[np.intp], left: NDArray[np.intp]) -> list[_Pending]:
        """Trace the corner-to-corner lines of the pairs ``rest[left]``; return those left.

        The 16 lines of every pair in one call: the first clear one is a pair's witness, as
        in the search's own order (``search.FIRST_LINES``).
        """
        todo = list(zip(rest[left].tolist(), left.tolist(), strict=True))
        if not todo:
            return []
        at = [q for q, _ in todo]
        corner = _corner_lines(self.bf[at], self.bt[at])
        exact = None
        if self.spaces is not None:  # GEO-6: the corner re-check on the exact corner lines
            exact = _corner_lines(self.spaces[0][at], self.spaces[1][at]).reshape(-1, 4)
        segs, rows = corner.reshape(-1, 4), np.repeat(at, 16)
        inward = toward_centres(self.bf[rows], self.bt[rows], segs)  # corners: GEO-6 ends
        first = self._trace(segs, rows, False, corners=exact, inward=inward).wall_blocked.reshape(
            -1, 16
        )
        still: list[_Pending] = []
        for r, (q, k) in enumerate(todo):
            clear = np.flatnonzero(~first[r])
            if len(clear):
                w = tuple(float(v) for v in corner[r, int(clear[0])])
                self.out[q] = LineOfEffect(True, w, [], FIRST_LINES)  # type: ignore[arg-type]
            else:
                still.append((q, k))
        return still

    def _share_mirrored(self, todo: list[_Pending]) -> tuple[list[_Pending], list[tuple[int, int]]]:
        """The pairs of ``todo`` to search, and the pairs answered as another one reversed.

        Through two-way walls (``two_way_walls``) a pair has the same answer both ways
        (5E-LOE-2): a pair whose reverse (spaces and band swapped) comes earlier is paired
        with that one, ``(pair, pair searched)``.
        """
        mirror = bool(todo) and two_way_walls(
            self.index, self.sense, self.wall_mask, heights=self.bands is not None
        )
        searched: dict[bytes, int] = {}  # the first pair searched with these spaces and band
        pending: list[_Pending] = []
        mirrored: list[tuple[int, int]] = []
        for q, k in todo:
            band = None if self.bands is None else self.bands[q]
            if mirror:
                other = searched.get(_pair_key(self.bt[q], self.bf[q], _swapped(band)))
                if other is not None:
                    mirrored.append((q, other))
                    continue
            searched.setdefault(_pair_key(self.bf[q], self.bt[q], band), q)
            pending.append((q, k))
        return pending, mirrored

    def _search(self, pending: list[_Pending]) -> None:
        """Answer the pairs ``pending`` by the exact search (``search.search_many``)."""
        if not pending:
            return
        at = [q for q, _ in pending]
        bf, bt = self.bf[at], self.bt[at]
        if self.spaces is not None:  # GEO-6: an end on a wall is on its own space's side
            bf, bt = _off_the_walls(bf, self.spaces[0][at]), _off_the_walls(bt, self.spaces[1][at])
        found = search_many(
            self.index,
            bf,
            bt,
            self.sense,
            None if self.bands is None else self.bands[at],
            self.wall_mask,
            self.budget,
        )
        for (q, k), (witness, candidates) in zip(pending, found, strict=True):
            blockers = self.centre_blockers.setdefault(k, [])
            if witness is None:
                self.out[q] = LineOfEffect(False, None, blockers, candidates)
            else:
                self.out[q] = LineOfEffect(True, witness, [], candidates)

    def _name_blockers(
        self, rest: NDArray[np.intp], centres: FloatArray, listed: TraceResult | None
    ) -> None:
        """Fill in what blocks the centre line of each pair left without line of effect.

        From the centre lines' trace when it ``listed`` them, else in one trace of theirs.
        """
        if not self.blockers:
            return
        named = sorted(
            k
            for k in self.centre_blockers
            if not self.out[int(rest[k])].clear  # type: ignore[union-attr]
        )
        if not named:
            return
        found = (
            [listed.wall_blockers[k] for k in named]
            if listed is not None
            else self._trace(centres[named], rest[named], True).wall_blockers
        )
        for k, walls in zip(named, found, strict=True):
            self.centre_blockers[k].extend(walls)


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


def warm_up() -> None:
    """Compile (or load from numba's cache) the rooms' crossing count now, on two walls.

    The search's other compiled steps (the walk, the obstacles) are ``trace.warm_up``'s.
    ``gunicorn.conf.py`` calls it in the master before forking, beside ``trace.warm_up``.
    """
    index = index_walls(
        [Wall("a", (0.0, 0.0, 100.0, 0.0)), Wall("b", (50.0, -50.0, 50.0, 50.0))], 20.0
    )
    firm_crossings_within(index, firm_walls(index, "move", None), 1)
