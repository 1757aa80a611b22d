"""Walls of one scene as arrays plus one shapely ``STRtree`` (GEO-1..5 inputs).

Frames: scene pixels, y down; heights and thresholds in grid units.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from service.model import Scene, Wall

RESTRICTION_CODE = {"none": 0, "limited": 1, "normal": 2, "proximity": 3, "distance": 4}
DIRECTION_CODE = {"both": 0, "left": 1, "right": 2}
SENSES = ("move", "sight", "light", "sound")

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class WallIndex:
    """Walls of one scene as arrays plus one shapely ``STRtree``.

    Attributes
    ----------
    ids : tuple of str, length n
    coords : ndarray of shape (n, 4)
        ``x0, y0, x1, y1`` in px, endpoint order as given (GEO-3 depends on it).
    restriction : dict of str to ndarray of shape (n,), int8
        Per sense type (``move``, ``sight``, ``light``, ``sound``) the code of
        ``RESTRICTION_CODE``; open doors are stored as 0 (GEO-2).
    threshold : dict of str to ndarray of shape (n,)
        Per sense (``sight``, ``light``, ``sound``) the threshold in grid units, NaN if none.
    direction : ndarray of shape (n,), int8
        ``DIRECTION_CODE`` of each wall.
    bottom, top : ndarray of shape (n,)
        Height range in grid units, ``-inf``/``+inf`` when unbounded (GEO-5).
    px_per_unit : float
        Pixels per grid unit, for thresholds.
    tree : shapely.STRtree
        Over the wall segments, in the same order.
    """

    ids: tuple[str, ...]
    walls: tuple[Wall, ...]
    coords: FloatArray
    restriction: dict[str, NDArray[np.int8]]
    threshold: dict[str, FloatArray]
    direction: NDArray[np.int8]
    bottom: FloatArray
    top: FloatArray
    px_per_unit: float
    tree: shapely.STRtree
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        """Number of walls."""
        return len(self.ids)


def build_wall_index(scene: Scene) -> WallIndex:
    """Build the ``WallIndex`` of ``scene`` (arrays and ``STRtree``), once per scene."""
    return index_walls(scene.walls, scene.grid.px_per_unit)


def _column(walls: tuple[Wall, ...], name: str, code: dict[str, int]) -> NDArray[np.int8]:
    """``code`` of attribute ``name`` of every wall, as int8 of shape (n,).

    Most scenes use one or two values per field, so a field with a single value costs one
    C-level pass and no per-wall objects (issue 7, ingestion).
    """
    get = operator.attrgetter(name)
    values = set(map(get, walls))
    if len(values) <= 1:
        return np.full(len(walls), code[values.pop()] if values else 0, dtype=np.int8)
    return np.fromiter(map(code.__getitem__, map(get, walls)), dtype=np.int8, count=len(walls))


def index_walls(walls: Sequence[Wall], px_per_unit: float) -> WallIndex:
    """Build a ``WallIndex`` over ``walls``; ``px_per_unit`` converts thresholds (GEO-4)."""
    walls = tuple(walls)
    n = len(walls)
    coords = np.fromiter(chain.from_iterable(map(_C, walls)), dtype=np.float64, count=4 * n)
    coords = coords.reshape(n, 4)
    is_open = np.fromiter(map(_is_open, walls), dtype=bool, count=n) if _any_door(walls) else None
    restriction = {}
    for sense in SENSES:
        codes = _column(walls, sense, RESTRICTION_CODE)
        if is_open is not None:
            codes[is_open] = 0  # GEO-2: an open door restricts nothing
        restriction[sense] = codes
    threshold = {sense: np.full(n, math.nan) for sense in ("sight", "light", "sound")}
    bottom, top = np.full(n, -math.inf), np.full(n, math.inf)
    if any(map(_THRESHOLD, walls)) or any(map(_HEIGHT, walls)):  # Structs are truthy
        for i, w in enumerate(walls):
            if w.threshold is not None:
                for sense in threshold:
                    value = getattr(w.threshold, sense)
                    if value is not None:
                        threshold[sense][i] = value
            if w.height is not None:
                bottom[i], top[i] = w.height.low, w.height.high
    lines = shapely.linestrings(coords.reshape(n, 2, 2)) if n else np.empty(0, dtype=object)
    return WallIndex(
        ids=tuple(map(_ID, walls)),
        walls=walls,
        coords=coords,
        restriction=restriction,
        threshold=threshold,
        direction=_column(walls, "direction", DIRECTION_CODE),
        bottom=bottom,
        top=top,
        px_per_unit=px_per_unit,
        tree=shapely.STRtree(lines),
    )


_C = operator.attrgetter("c")
_ID = operator.attrgetter("id")
_DOOR = operator.attrgetter("door")


def _any_door(walls: tuple[Wall, ...]) -> bool:
    return set(map(_DOOR, walls)) != {"none"}


def _is_open(wall: Wall) -> bool:
    """An open door (GEO-2)."""
    return wall.door != "none" and wall.door_state == "open"


_THRESHOLD = operator.attrgetter("threshold")
_HEIGHT = operator.attrgetter("height")
