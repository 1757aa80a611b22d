"""One cover selection for every ruleset: lines grouped, groups reduced, the weakest kept.

Every ruleset's cover reads its traced lines the same way (token-cover's ``coverForToken``):
each line gets a value from a table of what it meets (a ruleset's line table); the lines of a
pair are cut into groups of consecutive lines (one group per source corner, or all the lines
at once); each group is reduced (the strongest line, or a count of blocked lines read from a
table); and the attacker takes the group giving the least cover, the first of equals
(5E-COV-8, SF-COV-1, PV-COV-8). A ruleset is then its tables plus a few hooks for the
procedural rulings (SF-COV-5, PV-COV-3).

Shapes: ``rows`` (q + 1,) as ``MeasuredBatch.rows`` (pair r's lines are ``rows[r]:rows[r +
1]``); values over lines (n,); groups (G,). Pairs of different sizes (hex and square spaces,
attackers of different sizes) are reduced together: every step is one ``ufunc.reduceat``.

Cost: O(n) array work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class Groups:
    """Each pair's lines cut into groups of consecutive lines.

    Attributes
    ----------
    starts : ndarray of shape (G,), int
        Each group's first line.
    rows : ndarray of shape (q + 1,), int
        Pair r's groups are ``rows[r]:rows[r + 1]``.
    size : ndarray of shape (q,), int
        Lines per group of each pair.
    """

    starts: NDArray[np.intp]
    rows: NDArray[np.intp]
    size: NDArray[np.intp]

    def __len__(self) -> int:
        return len(self.starts)

    def reduce(self, values: NDArray[np.generic], how: np.ufunc) -> NDArray[np.generic]:
        """Each group's lines reduced by ``how`` (``np.add``: a count, ``np.maximum``), (G,)."""
        if not len(self.starts):
            return np.zeros(0, dtype=values.dtype)
        return how.reduceat(values, self.starts)

    def weakest(self, values: NDArray[Any], empty: int = 0) -> tuple[IntArray, IntArray]:
        """Each pair's group of least ``values`` (ints ≥ 0, (G,)), the first of equals.

        Returns the group's place among the pair's groups (q,) and its value (q,); a pair
        without lines keeps group 0 and ``empty``.
        """
        q = len(self.rows) - 1
        pick = np.zeros(q, dtype=np.int64)
        value = np.full(q, empty, dtype=np.int64)
        has = np.diff(self.rows) > 0
        if not has.any():
            return pick, value
        per = np.diff(self.rows)
        width = int(per.max())
        local = np.arange(len(values)) - np.repeat(self.rows[:-1], per)
        keyed = values.astype(np.int64) * width + local
        best = np.minimum.reduceat(keyed, self.rows[:-1][has])
        pick[has], value[has] = best % width, best // width
        return pick, value

    def lines_of(self, r: int, group: int) -> slice:
        """The lines of pair ``r``'s ``group``, counted from the pair's first line."""
        k = int(self.size[r])
        return slice(k * group, k * group + k)


def groups(rows: NDArray[np.intp], size: NDArray[np.intp]) -> Groups:
    """The groups of ``size[r]`` consecutive lines of each pair (``rows`` (q + 1,)).

    ``size`` (q,) must divide each pair's number of lines; a pair without lines (or of size
    0) has no group.
    """
    counts = np.diff(rows)
    size = np.asarray(size, dtype=np.intp)
    n_groups = np.where(size > 0, counts // np.maximum(size, 1), 0)
    group_rows = np.zeros(len(counts) + 1, dtype=np.intp)
    np.cumsum(n_groups, out=group_rows[1:])
    first = np.repeat(rows[:-1], n_groups)
    within = np.arange(int(group_rows[-1])) - np.repeat(group_rows[:-1], n_groups)
    return Groups(first + within * np.repeat(size, n_groups), group_rows, size)


def by_pair(groups_of: Groups, values: NDArray[np.generic], pick: IntArray) -> NDArray[np.generic]:
    """``values`` (G,) at each pair's picked group (q,); pairs without groups read 0."""
    out = np.zeros(len(pick), dtype=values.dtype)
    has = np.diff(groups_of.rows) > 0
    out[has] = values[groups_of.rows[:-1][has] + pick[has]]
    return out
