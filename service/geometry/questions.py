"""The pairs a ruleset asks to measure: sample points, bands, spaces, creatures set aside.

A ``Question`` is one pair: the sample points to join (``service.geometry.sampling``), how
they pair, the pair's band (GEO-5, GEO-5a), the inner spaces the exact line is searched
between (5E-LOE-2), the creatures that do not block it, an optional wall mask and the low
obstacles that count. A ``QuestionBatch`` is many pairs as arrays (a matrix, a cover of many
targets), each token's points once and every pair an index into them; indexing it makes the
``Question`` one pair would plan alone. ``geometry.measure`` reads either.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np
from numpy.typing import NDArray

from service.engine.walls import FloatArray
from service.geometry.bands import band

Box = tuple[float, float, float, float]


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
    obstacles; ``measure`` reads the arrays directly (planning and joining 40,000
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
        """``joined_segments`` of the batch: every pair's lines (n, 4) px and ``rows`` (q + 1,)."""
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


def joined_segments(
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
