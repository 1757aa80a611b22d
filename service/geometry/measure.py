"""One measurement for every ruleset: what blocks each traced line of many pairs.

A ruleset names what to measure (``Measure``: the sense, whether creatures count, whether
low obstacles are also set aside, which exact lines it needs) and, per pair, the sample
points to join (``geometry.questions.Pairs``). ``measure`` answers every pair of a request
(one pair, a multi-target query, a 200-token matrix) with the same code: all lines of all
pairs in one vectorised trace per wall choice, exact line of effect only where the ruleset
needs it, cheap lines first. The ruleset then maps each pair's ``Measured``
(``geometry.measured``) to a degree (``service.rules``).

Cost: O(L log W + L K) for L traced lines, W walls near them and K creatures, plus the
exact search (``service.geometry.exact``) for the pairs whose every traced line is blocked
and whose spaces are not sealed apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import WorkBudget, trace_units
from service.engine.scene import BuiltScene
from service.engine.walls import FloatArray, WallIndex
from service.geometry.exact import LineOfEffect, lines_of_effect
from service.geometry.measured import (
    Blocker,
    Measured,
    MeasuredBatch,
    TracedLine,
    surface_blockers,
    wall_blocker,
    wall_blockers,
)
from service.geometry.questions import ALL_WALLS, Pairs, WallChoice
from service.geometry.trace import Creatures, TraceResult, TraceSpec, trace
from service.geometry.walk import estimate_tests

__all__ = [
    "Blocker",
    "Measure",
    "Measured",
    "MeasuredBatch",
    "Pairs",
    "TracedLine",
    "WallChoice",
    "measure",
    "sense_key",
    "surface_blockers",
    "wall_blocker",
    "wall_blockers",
]


@dataclass(frozen=True)
class Measure:
    """What a ruleset measures for every pair of a request.

    Attributes
    ----------
    sense : str
        Wall restriction of the traced lines (GEO-1): ``move`` for cover.
    creatures : bool
        Creatures' spaces block lines (GEO-7).
    edge_blocks : bool
        A line running along a wall is blocked by it (Starfinder's SF-COV-1 exception).
    full_walls : bool
        Also trace every line with low obstacles set aside (``Measured.full_blocked``).
    exact : tuple of str
        Senses (``move``, ``sight``) for which the exact line between the pair's inner
        spaces is wanted, through the scene's walls with low obstacles set aside
        (5E-LOE-2, SF-CON-4); fog outlines are the vision measurement's (``service.senses``).
    exact_when : {"always", "all-blocked", "corner-cleared"}
        ``all-blocked``: only for pairs whose every traced line is blocked by walls (by
        full walls when ``full_walls``) or cleared only by GEO-6's corner sentence; any
        clear traced line joins the spaces. ``corner-cleared``: of those, only the pairs
        where some line was cleared by the corner sentence (when every line blocked
        decides the degree anyway, as dnd5e's paired corners' 4 of 4 → total).
    blockers : bool
        List what blocks each line (``False`` for bulk degrees: only the booleans).
    after_effect : bool
        The senses of ``exact`` after ``move`` (its first sense) are measured only for the
        pairs with line of effect; for the others they are not measured (``None``), for a
        ruling that reads them only with line of effect (SF-CON-4 after SF-COV-9).
    lines_with_effect : bool
        The exact ``move`` line (``exact_when`` ``always``) is measured first, and the lines
        are traced only for the pairs with line of effect: the others are ``Measured`` with
        ``traced`` ``False`` (every line clear, no blockers), for a bare degree that is
        total without line of effect whatever the lines (SF-COV-9 in a matrix).
    """

    sense: str = "move"
    creatures: bool = True
    edge_blocks: bool = False
    full_walls: bool = False
    exact: tuple[str, ...] = ()
    exact_when: Literal["always", "all-blocked", "corner-cleared"] = "all-blocked"
    blockers: bool = True
    after_effect: bool = False
    lines_with_effect: bool = False


def _and(a: NDArray[np.bool_] | None, b: NDArray[np.bool_] | None) -> NDArray[np.bool_] | None:
    if a is None:
        return b
    return a if b is None else a & b


def sense_key(index: WallIndex, sense: str) -> bytes:
    """What tracing for ``sense`` reads of ``index``, as bytes.

    Each wall's restriction (GEO-1) and the thresholds that apply (GEO-4: only proximity and
    distance walls with a positive one). Two senses with equal keys trace every line alike,
    so their exact lines are the same.
    """
    code = index.restriction[sense]
    thr = index.threshold.get(sense)
    live = np.zeros(index.size)
    if thr is not None:
        with np.errstate(invalid="ignore"):
            on = (code >= 3) & ~np.isnan(thr) & (thr > 0)
        live = np.where(on, thr, 0.0)
    return code.tobytes() + live.tobytes()


@dataclass
class _ExactLines:
    """The exact lines of one ``measure`` call, per sense key then per pair.

    Senses that trace alike (``sense_key``) share them; each is searched once
    (``exact.lines_of_effect``), its searches spending from the budget as they go.
    """

    built: BuiltScene
    questions: Pairs
    pair_bands: FloatArray
    budget: WorkBudget | None
    known: dict[bytes, dict[int, LineOfEffect]] = field(default_factory=dict)

    def of(self, sense: str, need: list[int]) -> dict[int, LineOfEffect]:
        """The exact line of each pair of ``need`` for ``sense``."""
        done = self.known.setdefault(sense_key(self.built.walls, sense), {})
        todo = [r for r in need if r not in done]
        if todo:
            inner = (self.questions.inner_source[todo], self.questions.inner_target[todo])
            found = lines_of_effect(
                self.built.walls,
                *inner,
                sense,
                elevations=self.pair_bands[todo],
                wall_mask=self.built.tall_walls,
                budget=self.budget,
                density=self.built.density,
                blockers=False,  # only ``clear`` is read (``Measured.clear``)
                spaces=self._spaces(todo),
            )
            done.update(zip(todo, found, strict=True))
        return {r: done[r] for r in need}

    def _spaces(self, todo: list[int]) -> tuple[FloatArray, FloatArray]:
        """The spaces the pairs ``todo``'s inner spaces were inset from (GEO-6).

        Each token's space; an area's point of origin as it is.
        """
        q = self.questions
        out = []
        for side, inner in ((0, q.inner_source), (1, q.inner_target)):
            boxes = np.array(inner[todo], dtype=np.float64)
            for k, t in enumerate(q.pair_tokens[todo, side].tolist()):
                if t >= 0 and (inner[todo[k], 0] != inner[todo[k], 2]):
                    boxes[k] = self.built.token_boxes[q.token_ids[t]]
            out.append(boxes)
        return out[0], out[1]


def _afford(
    built: BuiltScene,
    spec: Measure,
    lines: FloatArray,
    pairs: int,
    passes: int,
    budget: WorkBudget | None,
) -> None:
    """The cost model: refuse before tracing ``lines`` when they would pass the budget."""
    if budget is None or not len(lines):
        return
    creatures = len(built.scene.tokens) if spec.creatures else 0
    units = trace_units(len(lines), creatures, pairs)
    budget.afford_bounded(  # every line meets each wall at most once
        passes * len(lines) * built.walls.size + units,
        lambda: passes * estimate_tests(built.density, lines) + units,
    )


def measure(
    built: BuiltScene,
    spec: Measure,
    questions: Pairs,
    budget: WorkBudget | None = None,
) -> MeasuredBatch:
    """Measure every question in one vectorised trace per wall mask (see module docstring).

    Parameters
    ----------
    built : BuiltScene
    spec : Measure
    questions : Pairs
    budget : WorkBudget, optional
        The request's budget of line-wall tests: refused before tracing when the estimate
        (``BuiltScene.density``) passes it, and every test spent counts in it.

    Returns
    -------
    MeasuredBatch
        One ``Measured`` per pair, in order, and the arrays over all their lines.

    Raises
    ------
    OverBudget
        The request would pass ``budget`` (``service.engine.budget``).

    Cost: the exact lines of senses that trace alike (``sense_key``) are measured once.
    """
    all_segs, rows = questions.joined()
    pair_bands = questions.bands()
    second = bool(spec.full_walls and (built.tall_walls is not None or built.heights))
    exact = _ExactLines(built, questions, pair_bands, budget)
    active = list(range(len(questions)))
    if spec.lines_with_effect:  # SF-COV-9: without line of effect the lines change nothing
        effect = exact.of("move", active)
        active = [r for r in active if effect[r].clear]
    n = int(rows[-1])
    every = len(active) == len(questions)
    at: NDArray[np.intp] = np.arange(n)  # the traced questions' lines
    if not every:
        spans = [np.arange(rows[r], rows[r + 1]) for r in active]
        at = np.concatenate(spans) if spans else np.empty(0, dtype=np.intp)
    # Only the lines that will be traced are counted.
    _afford(built, spec, all_segs[at], len(questions), 2 if second else 1, budget)
    lines = _trace_lines(
        built,
        spec,
        questions if every else questions.take(active),
        all_segs[at],
        np.diff(rows)[active] if active else np.empty(0, dtype=np.intp),
        pair_bands[active],
        second,
        budget,
    )
    traced = np.zeros(len(questions), dtype=bool)
    traced[active] = True
    blocked, blockers = lines if every else _spread(lines, at, n)
    out = MeasuredBatch(rows, all_segs, blocked, blockers, pair_bands, traced)
    for sense in spec.exact:
        out.exact[sense] = exact.of(sense, np.flatnonzero(_needs_exact(spec, sense, out)).tolist())
    return out


def _needs_exact(spec: Measure, sense: str, out: MeasuredBatch) -> NDArray[np.bool_]:
    """Which pairs want the exact line for ``sense`` (``Measure.exact_when``), shape (q,)."""
    if spec.exact_when == "always":
        need = np.ones(len(out), dtype=bool)
    else:
        need = out.every_line(out.full_blocked | out.corner_cleared)
        if spec.exact_when == "corner-cleared":
            need &= ~out.every_line(out.full_blocked)
    if spec.after_effect and sense != "move":
        need &= out.clear("move")
    return need


_Lines = tuple[
    tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]],
    tuple[list[list[int]], list[list[str]], list[list[int]]],
]


def _spread(lines: _Lines, at: NDArray[np.intp], n: int) -> _Lines:
    """The traced lines ``at`` put among all ``n``: untraced ones read clear, no blockers."""
    arrays = [np.zeros(n, dtype=bool) for _ in range(4)]
    for full, part in zip(arrays, lines[0], strict=True):
        full[at] = part
    none: list[Any] = []  # one shared empty list
    lists: list[list[Any]] = [[none] * n for _ in range(3)]
    parts: tuple[list[Any], ...] = lines[1]
    for full_list, part_list in zip(lists, parts, strict=True):
        for i, v in zip(at.tolist(), part_list, strict=True):
            full_list[i] = v
    return (arrays[0], arrays[1], arrays[2], arrays[3]), (lists[0], lists[1], lists[2])


def _crowd(
    built: BuiltScene, spec: Measure, questions: Pairs, rows: NDArray[np.intp]
) -> Creatures | None:
    """The scene's creatures for every line, one row of the creature mask per question.

    ``mask_rows`` (n,) gives each line its question's row; ``None`` when creatures do not
    count. Without blocker lists, creatures are tested only where walls leave a line clear.
    """
    tokens = built.scene.tokens
    if not (spec.creatures and tokens):
        return None
    ids, boxes, spans, grid = built.creatures()
    col = {tid: k for k, tid in enumerate(ids)}
    cmask = questions.creature_mask(col, len(ids))
    mask_rows = np.repeat(np.arange(len(questions)), np.diff(rows))
    return Creatures(boxes, ids, cmask, mask_rows, spans, grid, where_clear=not spec.blockers)


def _inward(questions: Pairs, all_segs: FloatArray, rows: NDArray[np.intp]) -> FloatArray:
    """From each line's ends into its pair's spaces: toward their centres, (n, 4) px.

    GEO-6's end-point Decision (``trace``'s ``inward``): a corner lying on a wall is on its
    creature's side. Zero at a space's centre and at an area's point of origin.
    """
    of = np.repeat(np.arange(len(questions)), np.diff(rows))
    s, t = questions.inner_source[of], questions.inner_target[of]
    centre_s = np.column_stack([(s[:, 0] + s[:, 2]) / 2, (s[:, 1] + s[:, 3]) / 2])
    centre_t = np.column_stack([(t[:, 0] + t[:, 2]) / 2, (t[:, 1] + t[:, 3]) / 2])
    return np.column_stack([centre_s - all_segs[:, 0:2], centre_t - all_segs[:, 2:4]])


def _at(rows_of: FloatArray | None, sel: NDArray[np.intp]) -> FloatArray | None:
    """``rows_of[sel]``, or None."""
    return None if rows_of is None else rows_of[sel]


def _spaces_of_lines(built: BuiltScene, questions: Pairs, rows: NDArray[np.intp]) -> FloatArray:
    """Each line's source and target token spaces (n, 8) px, NaN for a point (GEO-6)."""
    boxes = np.array(
        [built.token_boxes[t] for t in questions.token_ids] + [(np.nan,) * 4], dtype=np.float64
    ).reshape(-1, 4)
    of = np.repeat(np.arange(len(questions)), np.diff(rows))
    ends = questions.pair_tokens[of]  # -1 (a point) reads the last row: NaN
    return np.column_stack([boxes[ends[:, 0]], boxes[ends[:, 1]]])


def _trace_lines(
    built: BuiltScene,
    spec: Measure,
    questions: Pairs,
    all_segs: FloatArray,
    counts: NDArray[np.intp],
    pair_bands: FloatArray,
    second: bool,
    budget: WorkBudget | None,
) -> _Lines:
    """The traced lines of every question (``measure`` without the exact lines).

    ``all_segs``: the questions' ``segments()`` one after another, ``counts`` of them each;
    ``pair_bands``: each question's ``band()``, shape (q, 4).

    Returns
    -------
    blocked : (wall, full, creature, corner_cleared), each ndarray of shape (n,), bool
        Over the questions' lines in order (``MeasuredBatch``'s arrays).
    blockers : (wall, creature, low) lists of n lists
    """
    rows = np.zeros(len(questions) + 1, dtype=np.intp)
    np.cumsum(counts, out=rows[1:])
    n = int(rows[-1])
    elev = np.repeat(pair_bands.reshape(-1, 4), np.diff(rows), axis=0)
    with_corners = questions.exact_sources is not None
    corners = questions.joined(exact=True)[0] if with_corners and n else None
    inward = _inward(questions, all_segs, rows) if n else None
    crowd = _crowd(built, spec, questions, rows)
    spaces = (
        _spaces_of_lines(built, questions, rows) if crowd is not None and with_corners else None
    )
    blocked = tuple(np.zeros(n, dtype=bool) for _ in range(4))
    # One shared empty list until a line's own blockers are set: every line is in one group
    # (``wall_groups``), so each gets its own when they are listed (``Measure.blockers``).
    none: list[Any] = []
    lists = tuple([none] * n for _ in range(3))
    groups = questions.wall_groups()
    for choice, members in groups:
        if len(groups) == 1:
            sel = np.arange(n)
        else:
            sel = np.concatenate([np.arange(rows[r], rows[r + 1]) for r in members.tolist()])
        if not len(sel):
            continue
        lines = _Group(built, spec, all_segs, elev, corners, (inward, spaces), budget, choice)
        lines.trace(sel, crowd, second, blocked, lists)
    return blocked, lists  # type: ignore[return-value]


@dataclass(frozen=True)
class _Group:
    """The lines of the pairs that share one wall choice."""

    built: BuiltScene
    spec: Measure
    all_segs: FloatArray
    elev: FloatArray
    corners: FloatArray | None
    ends: tuple[FloatArray | None, FloatArray | None]  # ``_inward``, ``_spaces_of_lines``
    budget: WorkBudget | None
    choice: WallChoice = ALL_WALLS

    def trace(
        self,
        sel: NDArray[np.intp],
        crowd: Creatures | None,
        second: bool,
        blocked: tuple[NDArray[np.bool_], ...],
        lists: tuple[list[Any], ...],
    ) -> None:
        """Trace the lines ``sel`` into ``blocked`` (wall, full, creature, corner-cleared)."""
        wall_blocked, full_blocked, creature_blocked, corner_cleared = blocked
        spec = self.spec
        traced: TraceResult = trace(
            self.built.walls,
            self.all_segs[sel],
            TraceSpec(
                sense=spec.sense,
                wall_mask=self.choice.wall_mask,
                low_obstacles=self.choice.low_obstacles,
                edge_blocks=spec.edge_blocks,
                with_blockers=spec.blockers,
            ),
            elevations=self.elev[sel],
            corners=None if self.corners is None else self.corners[sel],
            budget=self.budget,
            creatures=None if crowd is None else crowd.of_lines(sel),
            inward=_at(self.ends[0], sel),
            spaces=_at(self.ends[1], sel),
        )
        wall_blocked[sel] = traced.wall_blocked
        creature_blocked[sel] = traced.creature_blocked
        if traced.corner_cleared is not None:
            corner_cleared[sel] |= traced.corner_cleared
        if spec.blockers:
            found: tuple[list[Any], ...] = (
                traced.wall_blockers,
                traced.creature_blockers,
                traced.low_blockers,
            )
            rows = sel.tolist()
            for out, got in zip(lists, found, strict=True):
                for i, listed in zip(rows, got, strict=True):
                    out[i] = listed
        if not second:
            full_blocked[sel] = traced.wall_blocked
            return
        # A second pass with low obstacles set aside (`cover: "low"` walls, and walls
        # covering only part of a line's band, GEO-5a). Blocking only grows with the walls
        # that count (GEO-1..6: a crossing, a junction's sides, limited crossings), so a line
        # that the walls with low obstacles did not block is not blocked by the full walls
        # alone, and any line that pass's corner sentence clears was cleared by the first
        # pass too: only the blocked lines are traced again.
        again = sel[traced.wall_blocked]
        full = trace(
            self.built.walls,
            self.all_segs[again],
            TraceSpec(
                sense=spec.sense,
                wall_mask=_and(self.choice.wall_mask, self.built.tall_walls),
                low_obstacles=False,
                edge_blocks=spec.edge_blocks,
                with_blockers=False,
            ),
            elevations=self.elev[again],
            corners=None if self.corners is None else self.corners[again],
            budget=self.budget,
            inward=_at(self.ends[0], again),
        )
        full_blocked[again] = full.wall_blocked
        if full.corner_cleared is not None:
            corner_cleared[again] |= full.corner_cleared
