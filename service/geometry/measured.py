"""What a measurement found: per traced line, what blocked it, and the exact lines per pair.

``Measured`` is one pair's answer (its lines, what blocks each, the exact lines asked for);
``MeasuredBatch`` the arrays over every pair's lines of one ``measure`` call, which a ruleset
reads to rule on all pairs at once, making one ``Measured`` per pair when indexed.
``Blocker`` and ``TracedLine`` are what an answer shows of a line (GEO-1..7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, overload

import numpy as np
from numpy.typing import NDArray

from service.engine.levels import LEVEL_FLOOR_PREFIX
from service.engine.scene import REGION_PREFIX
from service.engine.walls import FloatArray, WallIndex
from service.geometry.exact import LineOfEffect
from service.geometry.surfaces import surfaces_met


@dataclass(frozen=True)
class Blocker:
    """What blocked a traced line: its ``kind``, its id and its level.

    ``kind`` ``"wall"``, ``"token"``, ``"region"`` or ``"surface"`` (a floor, GEO-10);
    ``level``, the id of the level (floor) a wall or surface belongs to, when the scene has
    one for it (``None`` otherwise).
    """

    kind: Literal["wall", "token", "region", "surface"]
    id: str
    level: str | None = None


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
def wall_blocker(wall_id: str, level: str | None = None) -> Blocker:
    """The blocker for a wall id (of ``level``); heavy-fog outlines name their region.

    Blockers are immutable: one is kept per id (a cached scene's walls are named again and
    again).
    """
    if wall_id.startswith(REGION_PREFIX):
        return Blocker("region", wall_id[len(REGION_PREFIX) :].rsplit(":", 1)[0])
    return Blocker("wall", wall_id, level)


def wall_blockers(walls: WallIndex, indices: Sequence[int]) -> list[Blocker]:
    """The blockers of the walls at ``indices`` and their identical copies, with levels.

    Each names the level its wall belongs to (GEO-10); in ``WallIndex.names`` order.
    """
    rows, n = walls.walls, len(walls.walls)
    if not walls.copies:  # one name per row: no copies to follow
        ids = walls.ids
        return [wall_blocker(ids[w], rows[w].level if w < n else None) for w in indices]
    out = []
    for w in indices:
        level = rows[w].level if w < n else None
        out += [wall_blocker(name, level) for name in walls.names([w])]
    return out


def _surface_id(ident: str) -> str:
    """A surface's id in an answer: an implied floor's as ``floor:<level id>``."""
    if ident.startswith(LEVEL_FLOOR_PREFIX):
        return "floor:" + ident[len(LEVEL_FLOOR_PREFIX) :]
    return ident


def surface_blockers(
    walls: WallIndex,
    seg: FloatArray,
    band: tuple[float, float, float, float] | FloatArray | None,
    sense: str,
) -> list[list[Blocker]]:
    """Per segment (m, 4) px, the floors blocking it for ``sense`` (GEO-10), with their levels.

    ``band`` is every segment's ``bottom0, bottom1, top0, top1`` (grid units), or (m, 4)
    one per segment; none without a band or surfaces. An implied floor (no surface between
    two levels) is named ``floor:<upper level id>``.
    """
    floors = walls.surfaces
    if floors is None or band is None or not len(seg):
        return [[] for _ in range(len(seg))]
    bands = np.broadcast_to(np.asarray(band, dtype=np.float64), (len(seg), 4))
    met = surfaces_met(floors, np.asarray(seg, dtype=np.float64).reshape(-1, 4), bands, sense)
    return [
        [Blocker("surface", _surface_id(floors.ids[k]), floors.levels[k]) for k in row]
        for row in met
    ]


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

    def any_low_walls(self, rows: slice, walls: WallIndex) -> bool:
        """Whether a low obstacle (``low_walls``) blocks one of the lines ``rows``."""
        return any(self.low_walls(k, walls) for k in range(len(self.segments))[rows])

    def lines(
        self, walls: WallIndex, rows: slice = slice(None), sense: str = "move"
    ) -> tuple[TracedLine, ...]:
        """The ``rows`` of this pair as answer lines naming what blocks them.

        Walls and floors name their level (GEO-10); ``sense`` is the one traced (the floors
        that block it are named).
        """
        out = []
        picked = range(len(self.segments))[rows]
        blocked = [k for k in picked if self.wall_blocked[k]]
        floors = dict(
            zip(
                blocked,
                surface_blockers(walls, self.segments[blocked], self.band, sense),
                strict=True,
            )
        )
        for k in picked:
            seg = self.segments[k]
            blockers = tuple(wall_blockers(walls, self.wall_blockers[k]))
            blockers += tuple(floors.get(k, ()))
            blockers += tuple(Blocker("token", t) for t in self.creature_blockers[k])
            low = tuple(wall_blockers(walls, self.low_walls(k, walls)))
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
