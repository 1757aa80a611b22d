"""The exact lines between the spaces of (observer, target) pairs, for sight, effect, sound.

``measure_lines`` measures every pair's exact line (5E-LOE-2,
``service.geometry.exact.lines_of_effect``) for the three senses that need one: sight
(walls restricting sight plus heavy-obscurement outlines, 5E-VIS-2), effect (walls
restricting movement: blindsight, 5E-VIS-8) and sound (walls restricting sound: hearing).
Each distinct question is asked once: the three senses share one measurement when they
trace the same walls, and a pair and its reverse share one when the walls block alike both
ways (``exact_lines``). ``BlockerNames`` names what blocks a sight line, each wall once.

References
----------
shared/RULES.md 5E-LOE-2, 5E-VIS-2, 5E-VIS-8, GEO-3..6.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import WorkBudget
from service.engine.scene import BuiltScene
from service.engine.walls import WallIndex
from service.geometry.exact import (
    LineOfEffect,
    lines_of_effect,
    reversed_line,
    two_way_walls,
)
from service.geometry.measure import Blocker, sense_key, wall_blockers

#: ``exact_lines``'s answer: each pair's lines (or ``None``) and whether each is clear.
SenseLines = tuple[list[LineOfEffect] | None, NDArray[np.bool_]]


def pair_bands(
    extents: NDArray[np.float64], obs: NDArray[np.intp], tgt: NDArray[np.intp]
) -> NDArray[np.float64]:
    """GEO-5a: each pair's band, from the observer's vertical extent to the target's.

    ``extents`` (t, 2) grid units: each token's bottom and top; ``obs`` and ``tgt`` (p,):
    the pairs' rows in it. Returns (p, 4): observer bottom, target bottom, observer top,
    target top.
    """
    return np.column_stack([extents[obs, 0], extents[tgt, 0], extents[obs, 1], extents[tgt, 1]])


def measure_lines(
    built: BuiltScene,
    boxes: NDArray[np.float64],
    extents: NDArray[np.float64],
    rows: NDArray[np.intp],
    budget: WorkBudget | None,
    *,
    listed: bool,
) -> tuple[SenseLines, SenseLines, SenseLines]:
    """``exact_lines`` of every pair for sight, effect and sound, in that order.

    ``boxes``, ``extents`` and ``rows`` as ``exact_lines``; ``listed``: keep each pair's
    ``LineOfEffect`` (naming what blocks the sight line), else only whether it is clear.
    Sight, effect and sound through the same walls (same restrictions and thresholds, same
    mask: a scene without windows, fog or low walls) are one measurement.
    """
    known: dict[tuple[int, bytes, bytes | None], SenseLines] = {}

    def exact(index: WallIndex, sense: str, mask: NDArray[np.bool_] | None) -> SenseLines:
        key = (id(index), sense_key(index, sense), None if mask is None else mask.tobytes())
        if key not in known:
            known[key] = exact_lines(
                index,
                sense,
                mask,
                boxes,
                extents,
                rows,
                budget=budget,
                density=built.density,
                listed=listed,  # the answer names what blocks the sight line
            )
        return known[key]

    return (
        exact(built.sight, "sight", built.tall_mask(built.sight)),
        exact(built.walls, "move", built.tall_walls),
        exact(built.walls, "sound", None),
    )


def _symmetric(index: WallIndex, sense: str, mask: NDArray[np.bool_] | None) -> bool:
    """Whether every line through ``index`` for ``sense`` is blocked alike both ways.

    ``exact.two_way_walls`` with bands (the pairs' vertical extents): each wall that
    restricts ``sense`` (within ``mask``) is two-way (GEO-3), has no live threshold (GEO-4)
    and spans every height (GEO-5a); the exact line between two spaces (5E-LOE-2) is then
    the same from either space.
    """
    return two_way_walls(index, sense, mask, heights=True)


def exact_lines(
    index: WallIndex,
    sense: str,
    mask: NDArray[np.bool_] | None,
    boxes: np.ndarray,
    extents: np.ndarray,
    rows: np.ndarray,
    *,
    budget: WorkBudget | None,
    density: object,
    listed: bool = True,
) -> SenseLines:
    """``lines_of_effect`` of each pair, measuring each distinct question once.

    ``boxes`` (t, 4) px and ``extents`` (t, 2) grid units are each token's inset space and
    vertical extent; ``rows`` (p, 2) the observer's and the target's row of each pair. Pairs
    of the same two tokens ask the same question. When the walls block alike both ways
    (``_symmetric``), a pair and its reverse (B to A after A to B, as in a matrix) do too:
    the reverse takes the first one's answer, its witness turned round; what blocks its
    centre line is the same walls (sorted indices).

    Returns
    -------
    (lines, clear)
        Each pair's ``LineOfEffect`` with what blocks it (``None`` unless ``listed``), and
        whether each is clear, shape (p,).

    Cost: one ``lines_of_effect`` over the distinct questions (half a matrix's pairs).
    """
    n = np.int64(max(len(boxes), 1))
    code = rows[:, 0].astype(np.int64) * n + rows[:, 1]
    key = code
    if _symmetric(index, sense, mask):
        key = np.minimum(code, rows[:, 1].astype(np.int64) * n + rows[:, 0])
    _, first_of, inverse = np.unique(key, return_index=True, return_inverse=True)
    first = first_of[inverse.reshape(-1)]
    flipped = code != code[first]
    asked = first_of  # the first pair asking each question, in its own orientation
    ro, rt = rows[asked, 0], rows[asked, 1]
    found = lines_of_effect(
        index,
        boxes[ro],
        boxes[rt],
        sense,
        elevations=pair_bands(extents, ro, rt),
        wall_mask=mask,
        budget=budget,
        density=density,  # type: ignore[arg-type]
        blockers=listed,
    )
    clear = np.array([line.clear for line in found], dtype=bool)[inverse.reshape(-1)]
    if not listed:
        return None, clear
    at = dict(zip(asked.tolist(), found, strict=True))
    out = []
    for j, turn in zip(first.tolist(), flipped.tolist(), strict=True):
        line = at[j]
        out.append(reversed_line(line) if turn and line.witness is not None else line)
    return out, clear


class BlockerNames:
    """What blocks each list of wall indices of ``index`` (sorted, as traced), named once.

    Each wall is named once (its id and its identical copies, ``WallIndex.names``; a
    heavy-fog outline names its region: ``wall_blocker``), and each list once: a pair and
    its reverse share one measured list (``exact_lines``).
    """

    def __init__(self, index: WallIndex) -> None:
        self.index = index
        self.walls: dict[int, tuple[Blocker, ...]] = {}
        self.lists: dict[int, tuple[list[int], tuple[Blocker, ...], bool]] = {}
        self.distinct: bool | None = None  # each wall one blocker of its own (see __call__)

    def _wall(self, w: int) -> tuple[Blocker, ...]:
        named = self.walls.get(w)
        if named is None:
            named = self.walls[w] = tuple(wall_blockers(self.index, [w]))  # with levels
        return named

    def __call__(self, walls: list[int]) -> tuple[tuple[Blocker, ...], bool]:
        """The blockers named by ``walls``, and whether one of them is a region."""
        hit = self.lists.get(id(walls))
        if hit is not None and hit[0] is walls:
            return hit[1], hit[2]
        if self.distinct is None:  # no copies and no heavy-fog outline: nothing to merge
            # (the sight index lists the outlines after the first ``room_walls`` walls)
            index = self.index
            self.distinct = not index.copies and (
                index.room_walls is None or index.room_walls >= index.size
            )
        if self.distinct:
            known = self.walls
            named = tuple([(known.get(w) or self._wall(w))[0] for w in walls])
            region = False
        else:
            named = tuple(dict.fromkeys(b for w in walls for b in self._wall(w)))
            region = any(b.kind == "region" for b in named)
        self.lists[id(walls)] = (walls, named, region)  # the list is kept: its id stays its own
        return named, region
