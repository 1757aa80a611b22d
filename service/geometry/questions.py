"""The pairs a ruleset asks to measure: sample points, bands, spaces, creatures set aside.

``Pairs`` is the only question type: one pair is a batch of one, a 200-token matrix a batch
of 40,000, and both run the same code (``docs/architecture.md`` "One implementation per
algorithm"). Each pair has its sample points to join (``service.geometry.sampling``), how
they pair, its band (GEO-5, GEO-5a), the inner spaces the exact line is searched between
(5E-LOE-2), the creatures that do not block it, and an index into a small table of wall
choices (a wall mask and the low obstacles that count, SF-COV-5, PV-COV-8).
``geometry.measure`` reads it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from service.engine.walls import FloatArray

Box = tuple[float, float, float, float]
Pairing = Literal["paired", "every"]


@dataclass(frozen=True)
class WallChoice:
    """Which walls the lines of some pairs consider.

    Attributes
    ----------
    wall_mask : ndarray of shape (n,), bool, or None
        Walls the lines consider (``None``: all), e.g. SF-COV-5's low obstacles set aside.
    low_obstacles : bool or ndarray of shape (n,), bool
        Walls that block where they cover only part of a line's band (GEO-5a): all
        (``True``), none (``False``, pf2e-variant's ``ignore_small_terrain``) or a mask
        (SF-COV-5).
    """

    wall_mask: NDArray[np.bool_] | None = None
    low_obstacles: bool | NDArray[np.bool_] = True

    def key(self) -> tuple[bytes | None, bytes | bool]:
        """The choice as bytes: equal keys trace every line alike."""
        low = self.low_obstacles
        return (
            None if self.wall_mask is None else np.asarray(self.wall_mask, dtype=bool).tobytes(),
            low if isinstance(low, bool) else np.asarray(low, dtype=bool).tobytes(),
        )


#: Every wall, low obstacles included: the choice of most pairs.
ALL_WALLS = WallChoice()


class Pairs:
    """Many pairs to measure, as arrays (one pair: a batch of one).

    Parameters
    ----------
    sources, targets : ndarray of shape (q, s, 2) and (q, t, 2)
        Each pair's sample points in px, padded (NaN) to the most when pairs differ
        (``n_sources`` / ``n_targets``).
    pairing : {"paired", "every"}
        ``paired``: line k joins source k and target k (a pair's counts equal); ``every``:
        every source to every target, source-major.
    elevations : ndarray of shape (q, 2)
        Grid units, the bottoms of each pair's source and target (GEO-5).
    tops : ndarray of shape (q, 2) or None
        Grid units, the tops: each line is the band from the line joining the bottoms to the
        one joining the tops (GEO-5a); ``None``: no thickness for every pair.
    inner_source, inner_target : ndarray of shape (q, 4)
        px, the spaces between which the exact line is searched (5E-LOE-2).
    pair_tokens : ndarray of shape (q, 2), int
        Each pair's two tokens as indices into ``token_ids`` (-1: none, an area's point of
        origin): creatures that block none of its lines (GEO-7).
    token_ids : sequence of str
        The scene's token ids in scene order (``BuiltScene.creatures``).
    shared : dict of int to frozenset of str
        The pairs whose excluded creatures are more than their two tokens (a shared space,
        5E-COV-7; a point of origin inside a space), with their whole set.
    exact_sources, exact_targets : ndarray or None
        The exact corners the points were inset from (GEO-6), shaped as ``sources`` and
        ``targets``; both or neither.
    n_sources, n_targets : ndarray of shape (q,), int, or None
        Each pair's numbers of points when pairs differ; ``None``: all ``s`` (``t``).
    walls : sequence of WallChoice
        The table of wall choices (a few entries).
    wall_choice : ndarray of shape (q,), int, or None
        Each pair's row of ``walls``; ``None``: row 0 for every pair.
    set_aside : frozenset of str
        Creatures excluded from every pair (``rules.options.without_set_aside``).

    Raises
    ------
    ValueError
        Paired points of different counts.
    """

    def __init__(
        self,
        sources: FloatArray,
        targets: FloatArray,
        pairing: Pairing,
        elevations: FloatArray,
        tops: FloatArray | None,
        inner_source: FloatArray,
        inner_target: FloatArray,
        pair_tokens: NDArray[np.intp],
        token_ids: Sequence[str],
        shared: dict[int, frozenset[str]],
        exact_sources: FloatArray | None = None,
        exact_targets: FloatArray | None = None,
        n_sources: NDArray[np.intp] | None = None,
        n_targets: NDArray[np.intp] | None = None,
        walls: Sequence[WallChoice] = (ALL_WALLS,),
        wall_choice: NDArray[np.intp] | None = None,
        set_aside: frozenset[str] = frozenset(),
    ) -> None:
        if pairing == "paired" and not np.array_equal(
            _used(n_sources, sources), _used(n_targets, targets)
        ):
            raise ValueError("paired lines join as many sources as targets")
        self.sources, self.targets, self.pairing = sources, targets, pairing
        self.elevations, self.tops = elevations, tops
        self.inner_source, self.inner_target = inner_source, inner_target
        self.pair_tokens, self.token_ids, self.shared = pair_tokens, token_ids, shared
        self.exact_sources, self.exact_targets = exact_sources, exact_targets
        self.n_sources, self.n_targets = n_sources, n_targets
        self.walls, self.wall_choice, self.set_aside = tuple(walls), wall_choice, set_aside

    def __len__(self) -> int:
        return len(self.sources)

    def points(self, r: int) -> tuple[FloatArray, FloatArray]:
        """Pair ``r``'s sample points, sources (s, 2) and targets (t, 2) px, unpadded."""
        s = _used(self.n_sources, self.sources)[r]
        t = _used(self.n_targets, self.targets)[r]
        return self.sources[r, :s], self.targets[r, :t]

    def lines_per_source(self) -> NDArray[np.intp]:
        """Lines of each pair that leave one source point (its targets; all when paired), (q,)."""
        return _used(self.n_targets, self.targets)

    def counts(self) -> NDArray[np.intp]:
        """Lines of each pair, shape (q,)."""
        s, t = _used(self.n_sources, self.sources), _used(self.n_targets, self.targets)
        return t if self.pairing == "paired" else s * t

    def excluded(self, r: int) -> frozenset[str]:
        """The creatures that block none of pair ``r``'s lines."""
        found = self.shared.get(r)
        if found is None:
            found = frozenset(self.token_ids[i] for i in self.pair_tokens[r].tolist() if i >= 0)
        return found | self.set_aside

    def with_set_aside(self, ignored: frozenset[str]) -> Pairs:
        """The same pairs with ``ignored`` added to every pair's excluded creatures."""
        out = copy.copy(self)
        out.set_aside = self.set_aside | ignored
        return out

    def take(self, rows: NDArray[np.intp] | list[int]) -> Pairs:
        """The pairs ``rows``, in that order."""
        at = np.asarray(rows, dtype=np.intp)
        where = {int(r): k for k, r in enumerate(at.tolist()) if int(r) in self.shared}

        def pick(a: NDArray[np.generic] | None) -> NDArray[np.generic] | None:
            return None if a is None else a[at]

        out = copy.copy(self)
        for name in (
            "sources",
            "targets",
            "elevations",
            "tops",
            "inner_source",
            "inner_target",
            "pair_tokens",
            "exact_sources",
            "exact_targets",
            "n_sources",
            "n_targets",
            "wall_choice",
        ):
            setattr(out, name, pick(getattr(self, name)))
        out.shared = {k: self.shared[r] for r, k in where.items()}
        return out

    def joined(self, exact: bool = False) -> tuple[FloatArray, NDArray[np.intp]]:
        """Every pair's lines ``x0, y0, x1, y1`` (n, 4) px, and ``rows`` (q + 1,).

        Pair r's lines are ``rows[r]:rows[r + 1]``; ``exact``: the lines between the exact
        corners (GEO-6; the points themselves without them).
        """
        s, t = self.sources, self.targets
        if exact and self.exact_sources is not None and self.exact_targets is not None:
            s, t = self.exact_sources, self.exact_targets
        q, ns, nt = len(s), s.shape[1], t.shape[1]
        if self.pairing == "paired":
            lines = np.concatenate([s, t], axis=2)
        else:
            lines = np.concatenate([np.repeat(s, nt, axis=1), np.tile(t, (1, ns, 1))], axis=2)
        per = lines.shape[1]
        if self.n_sources is None and self.n_targets is None:
            return lines.reshape(q * per, 4), np.arange(q + 1, dtype=np.intp) * per
        used_s, used_t = _used(self.n_sources, s), _used(self.n_targets, t)
        if self.pairing == "paired":
            used = np.arange(per)[None, :] < used_t[:, None]
        else:
            source_of, target_of = np.divmod(np.arange(per), nt)
            used = (source_of[None, :] < used_s[:, None]) & (target_of[None, :] < used_t[:, None])
        rows = np.zeros(q + 1, dtype=np.intp)
        np.cumsum(used.sum(axis=1), out=rows[1:])
        return lines[used], rows

    def bands(self) -> FloatArray:
        """Every pair's band ``bottom0, bottom1, top0, top1``, shape (q, 4) grid units."""
        tops = self.elevations if self.tops is None else self.tops
        return np.column_stack([self.elevations, tops]).astype(np.float64)

    def wall_groups(self) -> list[tuple[WallChoice, NDArray[np.intp]]]:
        """The pairs by wall choice: ``(choice, rows)`` for every choice some pair has."""
        if self.wall_choice is None or len(self.walls) == 1:
            return [(self.walls[0], np.arange(len(self), dtype=np.intp))]
        return [
            (choice, rows)
            for k, choice in enumerate(self.walls)
            if len(rows := np.flatnonzero(self.wall_choice == k))
        ]

    def creature_mask(self, columns: dict[str, int], k: int) -> NDArray[np.bool_]:
        """Which of the ``k`` creatures (``columns``: id -> column) count for each pair, (q, k).

        ``False`` where the creature is one that blocks none of the pair's lines.
        """
        out = np.ones((len(self), k), dtype=bool)
        cols = np.array([columns.get(t, -1) for t in self.token_ids] + [-1], dtype=np.intp)
        rows = np.arange(len(self))
        for side in (0, 1):
            c = cols[self.pair_tokens[:, side]]  # -1 (no token) reads the last: -1
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


def _used(counts: NDArray[np.intp] | None, points: FloatArray) -> NDArray[np.intp]:
    """Each pair's number of points: ``counts``, or all of ``points``' (q, s, 2)."""
    if counts is not None:
        return counts
    return np.full(len(points), points.shape[1], dtype=np.intp)
