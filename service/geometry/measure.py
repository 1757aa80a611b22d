"""One measurement for every ruleset: what blocks each traced line of many pairs (issue 13).

A ruleset names what to measure (``Measure``: the sense, whether creatures count, whether
low obstacles are also set aside, which exact lines it needs) and, per pair, the sample
points to join (``Question``: sample points from ``service.geometry.sampling``, the
creatures that do not count, an optional per-pair wall mask; ``QuestionBatch``: many
pairs as arrays, for a matrix). ``measure`` answers every
question of a request (one pair, a multi-target query, a 200-token matrix) with the same
code: all lines of all pairs in one vectorised trace per wall mask, exact line of effect
only where the ruleset needs it, cheap lines first. The ruleset then maps each pair's
``Measured`` to a degree (``service.rules``).

Cost: O(L log W + L K) for L traced lines, W walls near them and K creatures, plus the
exact search (``service.geometry.exact``) for the pairs whose every traced line is blocked
and whose spaces are not sealed apart.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import WorkBudget, trace_units
from service.engine.scene import REGION_PREFIX, BuiltScene
from service.engine.walls import FloatArray, WallIndex
from service.geometry.bands import band
from service.geometry.exact import LineOfEffect, lines_of_effect
from service.geometry.trace import TraceResult, estimate_tests, trace

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Blocker:
    """What blocked a traced line: ``kind`` ``"wall"``, ``"token"`` or ``"region"`` and its id."""

    kind: Literal["wall", "token", "region"]
    id: str


@dataclass(frozen=True)
class TracedLine:
    """One traced segment of an answer, in px, with what blocked it.

    ``band`` is the line's vertical band ``bottom0, bottom1, top0, top1`` in grid units
    (GEO-5a; ``None`` when the measurement had no elevations); ``low`` the blockers among
    ``blockers`` that are low obstacles for this line: walls covering only part of that band
    at the crossing (GEO-5a), each with its height range in ``BuiltScene.walls.bottom/top``,
    and ``cover: "low"`` walls (the answer marks them ``"low": true``).
    """

    start: tuple[float, float]
    end: tuple[float, float]
    blocked: bool
    blockers: tuple[Blocker, ...] = ()
    band: tuple[float, float, float, float] | None = None
    low: tuple[Blocker, ...] = ()


@lru_cache(maxsize=65536)
def wall_blocker(wall_id: str) -> Blocker:
    """The blocker for a wall id; heavy-fog outlines (pseudo-walls) name their region.

    Blockers are immutable: one is kept per id (a cached scene's walls are named again and
    again).
    """
    if wall_id.startswith(REGION_PREFIX):
        return Blocker("region", wall_id[len(REGION_PREFIX) :].rsplit(":", 1)[0])
    return Blocker("wall", wall_id)


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


@dataclass(frozen=True)
class Question:
    """One pair to measure.

    Attributes
    ----------
    sources, targets : ndarray of shape (s, 2) and (t, 2)
        Sample points in px (``service.geometry.sampling``).
    pairing : {"paired", "every"}
        ``paired``: line k joins ``sources[k]`` and ``targets[k]`` (s == t); ``every``:
        every source to every target, source-major (s * t lines).
    elevations : (float, float)
        Grid units of the bottoms of the source and the target (GEO-5).
    inner_source, inner_target : (x0, y0, x1, y1)
        Spaces in px between which the exact line is searched.
    excluded : frozenset of str
        Creatures that do not block this pair's lines (the pair itself, those in the same
        space, 5E-COV-7).
    wall_mask : ndarray of shape (n,), bool, or None
        Walls this pair's lines consider (default all), e.g. SF-COV-5's low obstacles.
    tops : (float, float) or None
        Grid units of the tops of the source and the target: each line is the band from the
        line joining the bottoms to the one joining the tops (GEO-5a); ``None``: no
        thickness (a light, an area's point of origin at both ends).
    exact_points : (ndarray (s, 2), ndarray (t, 2)) or None
        The exact corners that ``sources`` and ``targets`` were inset from (GEO-6: a wall or
        a creature's square touching one blocks only if it blocks the exact corner line).
    low_obstacles : bool or ndarray of shape (n,), bool
        Walls that block this pair's lines where they cover only part of the band (GEO-5a):
        all (``True``), none (``False``, e.g. pf2e's ``ignore_small_terrain``) or a mask
        (SF-COV-5).
    """

    sources: FloatArray
    targets: FloatArray
    pairing: Literal["paired", "every"]
    elevations: tuple[float, float]
    inner_source: Box
    inner_target: Box
    excluded: frozenset[str] = frozenset()
    wall_mask: NDArray[np.bool_] | None = None
    tops: tuple[float, float] | None = None
    exact_points: tuple[FloatArray, FloatArray] | None = None
    low_obstacles: bool | NDArray[np.bool_] = True

    def segments(self) -> FloatArray:
        """The traced lines ``x0, y0, x1, y1`` px, shape (m, 4)."""
        return _join(self.sources, self.targets, self.pairing)

    def corner_segments(self) -> FloatArray:
        """The lines between the exact corners (``segments`` without ``exact_points``)."""
        if self.exact_points is None:
            return self.segments()
        return _join(self.exact_points[0], self.exact_points[1], self.pairing)

    def band(self) -> tuple[float, float, float, float]:
        """The pair's band ``bottom0, bottom1, top0, top1`` in grid units (GEO-5a)."""
        return band(self.elevations, self.tops)  # type: ignore[return-value]


class QuestionBatch(Sequence[Question]):
    """Many questions as arrays: a matrix's pairs, planned without a ``Question`` each.

    Every pair has the same pairing and numbers of points, no wall mask and the same low
    obstacles; ``measure`` reads the arrays directly (issue 20: planning and joining 40,000
    pairs one ``Question`` at a time cost more than tracing them). Indexing makes the
    ``Question`` of one pair, equal to the one a ruleset would plan alone.

    Parameters
    ----------
    sources, targets : ndarray of shape (q, s, 2) and (q, t, 2)
        Each pair's sample points in px (``Question.sources`` / ``targets``).
    pairing : {"paired", "every"}
    elevations : ndarray of shape (q, 2)
        Grid units, the bottoms of each pair's source and target (``Question.elevations``).
    tops : ndarray of shape (q, 2) or None
        Grid units (``Question.tops``; ``None`` for every pair).
    inner_source, inner_target : ndarray of shape (q, 4)
        px (``Question.inner_source`` / ``inner_target``).
    pair_tokens : ndarray of shape (q, 2), int
        Each pair's two tokens, as indices into ``token_ids``: creatures that block none of
        its lines.
    token_ids : sequence of str
        The scene's token ids in scene order (``BuiltScene.creatures``).
    shared : dict of int to frozenset of str
        The pairs whose ``excluded`` is more than their two tokens (a shared space,
        5E-COV-7), with their whole set.
    exact_sources, exact_targets : ndarray or None
        The exact corners the points were inset from (``Question.exact_points``).
    low_obstacles : bool
        ``Question.low_obstacles`` of every pair.
    set_aside : frozenset of str
        Creatures excluded from every pair (``rules.options.without_set_aside``).
    n_sources : ndarray of shape (q,), int, or None
        Each pair's number of sources when they differ (attackers of different sizes):
        ``sources`` and ``exact_sources`` are padded to the most, and each pair's question
        and lines use its first ``n_sources``. Pairing ``every`` only; ``None``: all ``s``.
    """

    def __init__(
        self,
        sources: FloatArray,
        targets: FloatArray,
        pairing: Literal["paired", "every"],
        elevations: FloatArray,
        tops: FloatArray | None,
        inner_source: FloatArray,
        inner_target: FloatArray,
        pair_tokens: NDArray[np.intp],
        token_ids: Sequence[str],
        shared: dict[int, frozenset[str]],
        exact_sources: FloatArray | None = None,
        exact_targets: FloatArray | None = None,
        low_obstacles: bool = True,
        set_aside: frozenset[str] = frozenset(),
        n_sources: NDArray[np.intp] | None = None,
    ) -> None:
        if n_sources is not None and pairing != "every":
            raise ValueError("pairs of different numbers of sources pair every point")
        self.n_sources = n_sources
        self.sources, self.targets, self.pairing = sources, targets, pairing
        self.elevations, self.tops = elevations, tops
        self.inner_source, self.inner_target = inner_source, inner_target
        self.pair_tokens, self.token_ids, self.shared = pair_tokens, token_ids, shared
        self.exact_sources, self.exact_targets = exact_sources, exact_targets
        self.low_obstacles, self.set_aside = low_obstacles, set_aside

    def __len__(self) -> int:
        return len(self.sources)

    @overload
    def __getitem__(self, r: int) -> Question: ...

    @overload
    def __getitem__(self, r: slice) -> list[Question]: ...

    def __getitem__(self, r: int | slice) -> Question | list[Question]:
        if isinstance(r, slice):
            return [self[i] for i in range(len(self))[r]]
        r = range(len(self))[r]  # IndexError past the end, negative from the end
        used = None if self.n_sources is None else int(self.n_sources[r])
        exact = None
        if self.exact_sources is not None and self.exact_targets is not None:
            exact = (self.exact_sources[r, :used], self.exact_targets[r])
        return Question(
            self.sources[r, :used],
            self.targets[r],
            self.pairing,
            (float(self.elevations[r, 0]), float(self.elevations[r, 1])),
            _box(self.inner_source[r]),
            _box(self.inner_target[r]),
            self.excluded(r),
            tops=None if self.tops is None else (float(self.tops[r, 0]), float(self.tops[r, 1])),
            exact_points=exact,
            low_obstacles=self.low_obstacles,
        )

    def excluded(self, r: int) -> frozenset[str]:
        """``Question.excluded`` of pair ``r``."""
        found = self.shared.get(r)
        if found is None:
            found = frozenset(self.token_ids[i] for i in self.pair_tokens[r].tolist())
        return found | self.set_aside

    def with_set_aside(self, ignored: frozenset[str]) -> QuestionBatch:
        """The same questions with ``ignored`` added to every pair's ``excluded``."""
        out = copy.copy(self)
        out.set_aside = self.set_aside | ignored
        return out

    def take(self, rows: NDArray[np.intp] | list[int]) -> QuestionBatch:
        """The questions ``rows``, in that order, as a batch."""
        at = np.asarray(rows, dtype=np.intp)
        where = {int(r): k for k, r in enumerate(at.tolist()) if int(r) in self.shared}

        def pick(a: FloatArray | None) -> FloatArray | None:
            return None if a is None else a[at]

        return QuestionBatch(
            self.sources[at],
            self.targets[at],
            self.pairing,
            self.elevations[at],
            pick(self.tops),
            self.inner_source[at],
            self.inner_target[at],
            self.pair_tokens[at],
            self.token_ids,
            {k: self.shared[r] for r, k in where.items()},
            pick(self.exact_sources),
            pick(self.exact_targets),
            self.low_obstacles,
            self.set_aside,
            None if self.n_sources is None else self.n_sources[at],
        )

    def joined(self, exact: bool = False) -> tuple[FloatArray, NDArray[np.intp]]:
        """``_joined`` of the batch: every pair's lines (n, 4) px and ``rows`` (q + 1,)."""
        s, t = self.sources, self.targets
        if exact and self.exact_sources is not None and self.exact_targets is not None:
            s, t = self.exact_sources, self.exact_targets
        q, ns, nt = len(s), s.shape[1], t.shape[1]
        if self.pairing == "paired":
            lines = np.concatenate([s, t], axis=2)
        else:
            lines = np.concatenate([np.repeat(s, nt, axis=1), np.tile(t, (1, ns, 1))], axis=2)
        per = lines.shape[1]
        if self.n_sources is not None:  # each pair's own sources' lines, source major
            used = np.repeat(np.arange(ns), nt)[None, :] < self.n_sources[:, None]
            rows = np.zeros(q + 1, dtype=np.intp)
            np.cumsum(self.n_sources * nt, out=rows[1:])
            return lines[used], rows
        return lines.reshape(q * per, 4), np.arange(q + 1, dtype=np.intp) * per

    def bands(self) -> FloatArray:
        """Every pair's ``Question.band``, shape (q, 4) grid units."""
        tops = self.elevations if self.tops is None else self.tops
        return np.column_stack([self.elevations, tops]).astype(np.float64)

    def creature_mask(self, columns: dict[str, int], k: int) -> NDArray[np.bool_]:
        """Which of the ``k`` creatures (``columns``: id -> column) count for each pair, (q, k).

        ``False`` where the creature is in the pair's ``excluded``.
        """
        out = np.ones((len(self), k), dtype=bool)
        cols = np.array([columns.get(t, -1) for t in self.token_ids], dtype=np.intp)
        rows = np.arange(len(self))
        for side in (0, 1):
            c = cols[self.pair_tokens[:, side]]
            known = c >= 0
            out[rows[known], c[known]] = False
        by_set: dict[frozenset[str], list[int]] = {}  # the pairs of one space share one set
        for r, found in self.shared.items():
            by_set.setdefault(found, []).append(r)
        for found, members in by_set.items():
            held = np.array([columns[t] for t in found if t in columns], dtype=np.intp)
            if len(held):
                out[np.ix_(np.array(members, dtype=np.intp), held)] = False
        aside = [columns[t] for t in self.set_aside if t in columns]
        if aside:
            out[:, aside] = False
        return out


def _box(row: FloatArray) -> Box:
    x0, y0, x1, y1 = row.tolist()
    return (x0, y0, x1, y1)


def _joined(
    questions: Sequence[Question], exact: bool = False
) -> tuple[FloatArray, NDArray[np.intp]]:
    """Every question's ``segments`` (``corner_segments`` with ``exact``) in one array.

    Returns the lines (n, 4) px and ``rows`` (q + 1,): question r's lines are
    ``rows[r]:rows[r + 1]``. Questions with the same numbers of points and pairing are
    joined in one array step each (a ``QuestionBatch``: all at once).
    """
    if isinstance(questions, QuestionBatch):
        return questions.joined(exact)
    points = [
        (q.exact_points if exact and q.exact_points is not None else (q.sources, q.targets))
        for q in questions
    ]
    if len(questions) == 1:  # a single answer: its lines as they are
        lines = _join(points[0][0], points[0][1], questions[0].pairing)
        return lines, np.array([0, len(lines)], dtype=np.intp)
    groups: dict[tuple[int, int, str], list[int]] = {}
    counts = np.empty(len(questions), dtype=np.intp)
    for r, (src, dst) in enumerate(points):
        how = questions[r].pairing
        groups.setdefault((len(src), len(dst), how), []).append(r)
        counts[r] = len(src) if how == "paired" else len(src) * len(dst)
    rows = np.zeros(len(questions) + 1, dtype=np.intp)
    np.cumsum(counts, out=rows[1:])
    out = np.empty((int(rows[-1]), 4), dtype=np.float64)
    for (ns, nt, pairing), members in groups.items():
        s = _stacked([points[r][0] for r in members], ns)
        t = _stacked([points[r][1] for r in members], nt)
        if pairing == "paired":
            lines = np.concatenate([s, t], axis=2)
        else:
            lines = np.concatenate([np.repeat(s, nt, axis=1), np.tile(t, (1, ns, 1))], axis=2)
        at = rows[np.asarray(members, dtype=np.intp)][:, None] + np.arange(lines.shape[1])
        out[at] = lines
    return out, rows


def _stacked(arrays: list[FloatArray], k: int) -> FloatArray:
    """``arrays`` of k points each as one array (g, k, 2); each distinct array copied once.

    The questions of a matrix share their tokens' point arrays (one per token).
    """
    seen: dict[int, int] = {}
    distinct: list[FloatArray] = []
    pick = np.empty(len(arrays), dtype=np.intp)
    for i, a in enumerate(arrays):  # every array is alive: ids are not reused meanwhile
        j = seen.get(id(a))
        if j is None:
            j = seen[id(a)] = len(distinct)
            distinct.append(a)
        pick[i] = j
    return np.array(distinct, dtype=np.float64).reshape(len(distinct), k, 2)[pick]


def _join(sources: FloatArray, targets: FloatArray, pairing: str) -> FloatArray:
    """Lines from ``sources`` (s, 2) to ``targets`` (t, 2) px, paired or every to every."""
    s = np.asarray(sources, dtype=np.float64).reshape(-1, 2)
    t = np.asarray(targets, dtype=np.float64).reshape(-1, 2)
    if pairing == "paired":
        return np.hstack([s, t])
    return np.hstack([np.repeat(s, len(t), axis=0), np.tile(t, (len(s), 1))])


@dataclass
class Measured:
    """What blocks each of one pair's m traced lines.

    Attributes
    ----------
    segments : ndarray of shape (m, 4)
        px.
    wall_blocked, creature_blocked : ndarray of shape (m,), bool
        Without ``Measure.blockers`` (bulk degrees), creatures are tested only on the lines
        that walls leave clear: ``creature_blocked`` is ``False`` where ``wall_blocked``
        (every ruling reads a creature only where no wall blocks).
    full_blocked : ndarray of shape (m,), bool
        Blocked with low obstacles set aside (``wall_blocked`` when ``Measure.full_walls``
        is off or the scene has no low obstacle).
    wall_blockers : list of list of int
        Per line, indices into ``BuiltScene.walls`` (empty without ``Measure.blockers``).
    creature_blockers : list of list of str
        Per line, token ids in scene order.
    exact : dict of str to LineOfEffect or None
        Per sense of ``Measure.exact``; ``None`` when not needed (a traced line is clear of
        full walls on its inset course: one cleared only by GEO-6's corner sentence does not
        count, so cover agrees with ``/v1/line-of-effect``).
    corner_cleared : ndarray of shape (m,), bool, optional
        Lines that walls block on their inset course but GEO-6's corner sentence clears
        (``TraceResult.corner_cleared``).
    low_blockers : list of list of int
        Per line, the walls of ``wall_blockers`` that cover only part of its band (low
        obstacles for that line, GEO-5a).
    band : (float, float, float, float) or None
        The pair's band in grid units (``Question.band``).
    traced : bool
        The lines were traced (``False``: ``Measure.lines_with_effect`` and no line of
        effect; every line reads clear).
    """

    segments: FloatArray
    wall_blocked: NDArray[np.bool_]
    full_blocked: NDArray[np.bool_]
    creature_blocked: NDArray[np.bool_]
    wall_blockers: list[list[int]]
    creature_blockers: list[list[str]]
    exact: dict[str, LineOfEffect | None] = field(default_factory=dict)
    low_blockers: list[list[int]] = field(default_factory=list)
    band: tuple[float, float, float, float] | None = None
    corner_cleared: NDArray[np.bool_] | None = None
    traced: bool = True

    @property
    def blocked(self) -> NDArray[np.bool_]:
        """Blocked by anything, shape (m,)."""
        return self.wall_blocked | self.creature_blocked

    def lines_not_showing_effect(self) -> NDArray[np.bool_]:
        """Lines that do not show a line of effect between the spaces, shape (m,).

        Blocked by full walls, or cleared only by GEO-6's corner sentence (their inset
        course is blocked).
        """
        if self.corner_cleared is None:
            return self.full_blocked
        return self.full_blocked | self.corner_cleared

    def clear(self, sense: str) -> bool:
        """Line of effect (or sight) between the spaces for ``sense``.

        True when the exact line was not needed (a traced line is clear of full walls).
        """
        found = self.exact.get(sense)
        return True if found is None else found.clear

    def low_walls(self, k: int, walls: WallIndex) -> list[int]:
        """The walls blocking line ``k`` as low obstacles, indices into ``walls``.

        Those covering only part of the line's band (``low_blockers``, GEO-5a) and the
        ``cover: "low"`` walls among ``wall_blockers``, in ``wall_blockers`` order.
        """
        partial = set(self.low_blockers[k]) if self.low_blockers else set()
        return [w for w in self.wall_blockers[k] if w in partial or walls.walls[w].cover == "low"]

    def lines(self, walls: WallIndex, rows: slice = slice(None)) -> tuple[TracedLine, ...]:
        """The ``rows`` of this pair as answer lines naming what blocks them."""
        out = []
        for k in range(len(self.segments))[rows]:
            seg = self.segments[k]
            blockers = tuple(wall_blocker(name) for name in walls.names(self.wall_blockers[k]))
            blockers += tuple(Blocker("token", t) for t in self.creature_blockers[k])
            low = tuple(wall_blocker(name) for name in walls.names(self.low_walls(k, walls)))
            out.append(
                TracedLine(
                    (float(seg[0]), float(seg[1])),
                    (float(seg[2]), float(seg[3])),
                    bool(self.wall_blocked[k] or self.creature_blocked[k]),
                    blockers,
                    self.band,
                    low,
                )
            )
        return tuple(out)


class MeasuredBatch(Sequence[Measured]):
    """What ``measure`` found for every question, as arrays over all their lines.

    A sequence of ``Measured`` (made on first access, one per question) that also offers
    the arrays themselves, so a ruleset can rule on every pair at once (a matrix) without a
    ``Measured`` per pair.

    Attributes
    ----------
    rows : ndarray of shape (q + 1,), int
        Question r's lines are ``rows[r]:rows[r + 1]`` of the arrays below.
    segments : ndarray of shape (n, 4)
        px.
    wall_blocked, full_blocked, creature_blocked, corner_cleared : ndarray of shape (n,)
        As in ``Measured`` (lines of questions not traced read clear).
    exact : dict of str to dict of int to LineOfEffect
        Per sense of ``Measure.exact``, the exact lines measured, by question.
    """

    def __init__(
        self,
        rows: NDArray[np.intp],
        segments: FloatArray,
        blocked: tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]],
        blockers: tuple[list[list[int]], list[list[str]], list[list[int]]],
        bands: Sequence[tuple[float, ...] | None] | FloatArray,
        traced: NDArray[np.bool_],
    ) -> None:
        self.rows = rows
        self.segments = segments
        self.wall_blocked, self.full_blocked, self.creature_blocked, self.corner_cleared = blocked
        self._blockers = blockers
        self._bands = bands
        self._traced = traced
        self.exact: dict[str, dict[int, LineOfEffect]] = {}
        self._made: dict[int, Measured] = {}

    def __len__(self) -> int:
        return len(self.rows) - 1

    @property
    def wall_blockers(self) -> list[list[int]]:
        """Per line, indices into ``BuiltScene.walls`` (``Measured.wall_blockers``)."""
        return self._blockers[0]

    @property
    def creature_blockers(self) -> list[list[str]]:
        """Per line, token ids in scene order (``Measured.creature_blockers``)."""
        return self._blockers[1]

    @overload
    def __getitem__(self, r: int) -> Measured: ...

    @overload
    def __getitem__(self, r: slice) -> list[Measured]: ...

    def __getitem__(self, r: int | slice) -> Measured | list[Measured]:
        if isinstance(r, slice):
            return [self[i] for i in range(len(self))[r]]
        if r < 0:
            r += len(self)
        if not 0 <= r < len(self):
            raise IndexError(r)
        found = self._made.get(r)
        if found is None:
            lo, hi = int(self.rows[r]), int(self.rows[r + 1])
            walls, creatures, low = self._blockers
            band = self._bands[r]
            found = Measured(
                self.segments[lo:hi],
                self.wall_blocked[lo:hi],
                self.full_blocked[lo:hi],
                self.creature_blocked[lo:hi],
                walls[lo:hi],
                creatures[lo:hi],
                {sense: done.get(r) for sense, done in self.exact.items()},
                low_blockers=low[lo:hi],
                band=None if band is None else tuple(float(x) for x in band),  # type: ignore[arg-type]
                corner_cleared=self.corner_cleared[lo:hi],
                traced=bool(self._traced[r]),
            )
            self._made[r] = found
        return found

    @classmethod
    def of(cls, measured: Sequence[Measured]) -> MeasuredBatch:
        """``measured`` itself when it is a batch, else a batch of its items (one pair)."""
        if isinstance(measured, MeasuredBatch):
            return measured
        rows = np.cumsum([0] + [len(m.segments) for m in measured]).astype(np.intp)
        n = int(rows[-1])

        def joined(name: str) -> NDArray[np.bool_]:
            parts = [getattr(m, name) for m in measured]
            parts = [
                np.zeros(len(m.segments), bool) if p is None else p
                for p, m in zip(parts, measured, strict=True)
            ]
            return np.concatenate(parts) if n else np.zeros(0, dtype=bool)

        batch = cls(
            rows,
            np.vstack([m.segments for m in measured]) if n else np.empty((0, 4)),
            (
                joined("wall_blocked"),
                joined("full_blocked"),
                joined("creature_blocked"),
                joined("corner_cleared"),
            ),
            (
                [b for m in measured for b in m.wall_blockers],
                [b for m in measured for b in m.creature_blockers],
                [b for m in measured for b in (m.low_blockers or [[]] * len(m.segments))],
            ),
            [m.band for m in measured],  # type: ignore[misc]
            np.array([m.traced for m in measured], dtype=bool),
        )
        for r, m in enumerate(measured):
            batch._made[r] = m
            for sense, loe in m.exact.items():
                found = batch.exact.setdefault(sense, {})
                if loe is not None:
                    found[r] = loe
        return batch

    def clear(self, sense: str) -> NDArray[np.bool_]:
        """``Measured.clear`` of every question, shape (q,)."""
        out = np.ones(len(self), dtype=bool)
        for r, loe in self.exact.get(sense, {}).items():
            out[r] = loe.clear
        return out

    def every_line(self, lines: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Whether all of each question's ``lines`` (shape (n,)) hold, shape (q,).

        True for a question without lines.
        """
        held = np.concatenate([[0], np.cumsum(lines, dtype=np.int64)])
        return (held[self.rows[1:]] - held[self.rows[:-1]]) == np.diff(self.rows)


def _mask_key(q: Question) -> tuple[bytes | None, bytes | bool]:
    low = q.low_obstacles
    return (
        None if q.wall_mask is None else q.wall_mask.tobytes(),
        low if isinstance(low, bool) else np.asarray(low, dtype=bool).tobytes(),
    )


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


def measure(
    built: BuiltScene,
    spec: Measure,
    questions: Sequence[Question],
    budget: WorkBudget | None = None,
) -> MeasuredBatch:
    """Measure every question in one vectorised trace per wall mask (see module docstring).

    Parameters
    ----------
    built : BuiltScene
    spec : Measure
    questions : sequence of Question
    budget : WorkBudget, optional
        The request's budget of line-wall tests: refused before tracing when the estimate
        (``BuiltScene.density``) passes it, and every test spent counts in it.

    Returns
    -------
    MeasuredBatch
        One ``Measured`` per question, in order, and the arrays over all their lines.

    Raises
    ------
    OverBudget
        The request would pass ``budget`` (issue 16).

    Cost: the exact lines of senses that trace alike (``sense_key``) are measured once.
    """
    all_segs, rows = _joined(questions)
    batch = questions if isinstance(questions, QuestionBatch) else None
    pair_bands = (
        batch.bands()
        if batch is not None
        else np.array([q.band() for q in questions], dtype=np.float64).reshape(-1, 4)
    )
    second = bool(spec.full_walls and (built.tall_walls is not None or built.heights))

    def afford(lines: FloatArray) -> None:
        """The cost model: refuse before tracing ``lines`` when they would pass the budget."""
        if budget is None or not len(lines):
            return
        passes = 2 if second else 1
        creatures = len(built.scene.tokens) if spec.creatures else 0
        units = trace_units(len(lines), creatures, len(questions))
        budget.afford_bounded(  # every line meets each wall at most once
            passes * len(lines) * built.walls.size + units,
            lambda: passes * estimate_tests(built.density, lines) + units,
        )

    # Exact lines already measured, per sense key then per pair (senses that trace alike
    # share them).
    known: dict[bytes, dict[int, LineOfEffect]] = {}

    def exact(sense: str, need: list[int]) -> dict[int, LineOfEffect]:
        done = known.setdefault(sense_key(built.walls, sense), {})
        todo = [r for r in need if r not in done]
        if todo:
            if batch is not None:
                inner = (batch.inner_source[todo], batch.inner_target[todo])
            else:
                inner = (
                    np.array([questions[r].inner_source for r in todo], dtype=np.float64),
                    np.array([questions[r].inner_target for r in todo], dtype=np.float64),
                )
            found = lines_of_effect(
                built.walls,
                *inner,
                sense,
                elevations=pair_bands[todo],
                wall_mask=built.tall_walls,
                budget=budget,
                density=built.density,
                blockers=False,  # only ``clear`` is read (``Measured.clear``)
            )
            done.update(zip(todo, found, strict=True))
        return {r: done[r] for r in need}

    active = list(range(len(questions)))
    if spec.lines_with_effect:  # SF-COV-9: without line of effect the lines change nothing
        effect = exact("move", active)  # its searches spend from the budget as they go
        active = [r for r in active if effect[r].clear]
    n = int(rows[-1])
    every = len(active) == len(questions)
    at: NDArray[np.intp] = np.arange(n)  # the traced questions' lines
    if not every:
        spans = [np.arange(rows[r], rows[r + 1]) for r in active]
        at = np.concatenate(spans) if spans else np.empty(0, dtype=np.intp)
    afford(all_segs if every else all_segs[at])  # only the lines that will be traced
    lines = _trace_lines(
        built,
        spec,
        questions if every else _taken(questions, active),
        all_segs[at],
        np.diff(rows)[active] if active else np.empty(0, dtype=np.intp),
        pair_bands[active],
        second,
        budget,
    )
    traced = np.zeros(len(questions), dtype=bool)
    traced[active] = True
    if every:
        blocked, blockers = lines
    else:  # untraced lines read clear, with no blockers (one shared empty list)
        arrays = [np.zeros(n, dtype=bool) for _ in range(4)]
        for full, part in zip(arrays, lines[0], strict=True):
            full[at] = part
        blocked = (arrays[0], arrays[1], arrays[2], arrays[3])
        none: list[Any] = []
        lists: list[list[Any]] = [[none] * n for _ in range(3)]
        parts: list[list[Any]] = list(lines[1])
        for full_list, part_list in zip(lists, parts, strict=True):
            for i, v in zip(at.tolist(), part_list, strict=True):
                full_list[i] = v
        blockers = (lists[0], lists[1], lists[2])
    out = MeasuredBatch(
        rows,
        all_segs,
        blocked,
        blockers,
        pair_bands,
        traced,
    )
    for sense in spec.exact:
        if spec.exact_when == "always":
            need = np.ones(len(questions), dtype=bool)
        else:
            need = out.every_line(out.full_blocked | out.corner_cleared)
            if spec.exact_when == "corner-cleared":
                need &= ~out.every_line(out.full_blocked)
        if spec.after_effect and sense != "move":
            need &= out.clear("move")
        out.exact[sense] = exact(sense, np.flatnonzero(need).tolist())
    return out


def _taken(questions: Sequence[Question], rows: list[int]) -> Sequence[Question]:
    """The questions ``rows`` (a batch stays a batch)."""
    if isinstance(questions, QuestionBatch):
        return questions.take(rows)
    return [questions[r] for r in rows]


def _trace_lines(
    built: BuiltScene,
    spec: Measure,
    questions: Sequence[Question],
    all_segs: FloatArray,
    counts: NDArray[np.intp],
    pair_bands: FloatArray,
    second: bool,
    budget: WorkBudget | None,
) -> tuple[
    tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]],
    tuple[list[list[int]], list[list[str]], list[list[int]]],
]:
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
    batch = questions if isinstance(questions, QuestionBatch) else None
    corners = None
    if (
        batch.exact_sources is not None
        if batch is not None
        else any(q.exact_points is not None for q in questions)
    ):
        corners = _joined(questions, exact=True)[0] if n else None
    tokens = built.scene.tokens
    boxes = None
    spans = None
    ids: list[str] = []
    cmask = None
    cmask_rows: NDArray[np.intp] | None = None
    grid = None
    if spec.creatures and tokens:
        ids, boxes, spans, grid = built.creatures()
        # One row of the creature mask per question (its lines read it: ``cmask_rows``).
        col = {tid: k for k, tid in enumerate(ids)}
        if batch is not None:
            cmask = batch.creature_mask(col, len(ids))
        else:
            cmask = np.ones((len(questions), len(ids)), dtype=bool)
            columns: dict[frozenset[str], list[int]] = {}  # pairs in one space share one set
            for r, q in enumerate(questions):
                cols = columns.get(q.excluded)
                if cols is None:
                    cols = columns[q.excluded] = [col[t] for t in q.excluded if t in col]
                if cols:
                    cmask[r, cols] = False
        cmask_rows = np.repeat(np.arange(len(questions)), np.diff(rows))
    wall_blocked = np.zeros(n, dtype=bool)
    creature_blocked = np.zeros(n, dtype=bool)
    full_blocked = np.zeros(n, dtype=bool)
    corner_cleared = np.zeros(n, dtype=bool)
    none: list[Any] = []  # no blockers listed (``Measure.blockers`` off): one shared empty list
    wall_blockers: list[list[int]] = [[] for _ in range(n)] if spec.blockers else [none] * n
    creature_blockers: list[list[str]] = [[] for _ in range(n)] if spec.blockers else [none] * n
    low_blockers: list[list[int]] = [[] for _ in range(n)] if spec.blockers else [none] * n
    # A second pass with low obstacles set aside: `cover: "low"` walls, and walls covering
    # only part of a line's band (GEO-5a).
    tall = built.tall_walls
    groups: dict[tuple[bytes | None, bytes | bool], list[int]] = {}
    masks: dict[tuple[bytes | None, bytes | bool], tuple[Any, Any]] = {}
    if batch is not None:  # one wall mask and low obstacles for all
        groups[(None, batch.low_obstacles)] = list(range(len(batch)))
        masks[(None, batch.low_obstacles)] = (None, batch.low_obstacles)
    for r, q in enumerate(questions if batch is None else ()):
        key = _mask_key(q)
        groups.setdefault(key, []).append(r)
        masks.setdefault(key, (q.wall_mask, q.low_obstacles))
    for key, members in groups.items():
        if len(groups) == 1:
            sel = np.arange(n)
        else:
            sel = np.concatenate([np.arange(rows[r], rows[r + 1]) for r in members])
        if not len(sel):
            continue
        mask, low_obstacles = masks[key]
        traced: TraceResult = trace(
            built.walls,
            all_segs[sel],
            spec.sense,
            elevations=elev[sel],
            creature_boxes=boxes,
            creature_ids=ids,
            creature_mask=cmask,
            creature_mask_rows=None if cmask_rows is None else cmask_rows[sel],
            creature_spans=spans,
            creature_grid=grid,
            wall_mask=mask,
            low_obstacles=low_obstacles,
            corners=None if corners is None else corners[sel],
            edge_blocks=spec.edge_blocks,
            with_blockers=spec.blockers,
            budget=budget,
            creatures_where_clear=not spec.blockers,
        )
        wall_blocked[sel] = traced.wall_blocked
        creature_blocked[sel] = traced.creature_blocked
        if traced.corner_cleared is not None:
            corner_cleared[sel] |= traced.corner_cleared
        if spec.blockers:
            for k, i in enumerate(sel):
                wall_blockers[i] = traced.wall_blockers[k]
                creature_blockers[i] = traced.creature_blockers[k]
                low_blockers[i] = traced.low_blockers[k]
        if second:
            # Blocking only grows with the walls that count (GEO-1..6: a crossing, a
            # junction's sides, limited crossings), so a line that the walls with low
            # obstacles did not block is not blocked by the full walls alone, and any line
            # that pass's corner sentence clears was cleared by the first pass too: only the
            # blocked lines are traced again.
            again = sel[traced.wall_blocked]
            full = trace(
                built.walls,
                all_segs[again],
                spec.sense,
                elevations=elev[again],
                wall_mask=_and(mask, tall),
                low_obstacles=False,
                corners=None if corners is None else corners[again],
                edge_blocks=spec.edge_blocks,
                with_blockers=False,
                budget=budget,
            )
            full_blocked[again] = full.wall_blocked
            if full.corner_cleared is not None:
                corner_cleared[again] |= full.corner_cleared
        else:
            full_blocked[sel] = traced.wall_blocked
    return (wall_blocked, full_blocked, creature_blocked, corner_cleared), (
        wall_blockers,
        creature_blockers,
        low_blockers,
    )
