"""Closed rooms: spaces no straight line can leave without crossing a firm wall."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.errors import GEOSException

from service.engine.budget import core_limit
from service.engine.walls import FloatArray, WallIndex

#: Most wall crossings the rooms step nodes (``crossings_within``) is the setting
#: ``SIGHTLINE_MAX_ROOM_CROSSINGS`` (``core_limit``, 50,000). Noding n walls with k crossings
#: makes n + 2k pieces and polygonizing them costs about that again, so past it the step is
#: skipped: rooms are only a shortcut (``sealed_apart`` may say "not known"), and every pair
#: then takes the plain path (centre line, then the budgeted exact search).
#: Walls queried at once while counting crossings: memory O(chunk * n) at worst.
_CROSSING_CHUNK = 64


def crossings_within(lines: NDArray[np.object_], limit: int) -> bool:
    """Whether the walls ``lines`` cross one another at most ``limit`` times.

    Counts crossing pairs (interiors meeting at a point: walls meeting at an end or in a T
    are not counted, they add at most 2n pieces to the noding) with an STRtree, a chunk of
    walls at a time, and stops as soon as the count passes ``limit``: cost
    O(n log n + min(k, limit) + chunk * n), k the true count, whatever the walls; GEOS's
    own noding is never started on an unbounded input. Measured here: 57,000 crossings (700
    random long walls) node and polygonize in 2.3 s and 140 MB.
    """
    tree = shapely.STRtree(lines)
    pairs = 0
    for start in range(0, len(lines), _CROSSING_CHUNK):
        hit = tree.query(lines[start : start + _CROSSING_CHUNK], predicate="crosses")
        # Each crossing is found from both walls.
        pairs += int(np.count_nonzero(hit[0] + start < hit[1]))
        if pairs > limit:
            return False
    return True


def firm_rooms(
    index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None
) -> tuple[shapely.STRtree, NDArray[np.object_]] | None:
    """The closed rooms formed by walls that block ``sense`` unconditionally (memoised).

    Two-way, normal, full-height walls (closed doors included) are noded and polygonized:
    the faces are regions no straight line can leave without crossing such a wall, since a
    line leaving a face crosses its boundary ring, at an interior point or at a vertex whose
    two ring edges lie on either side of it (blocked by GEO-6 either way).

    Rooms are only a shortcut. ``None`` (no rooms) when fewer than three such walls, when
    they cross more than ``SIGHTLINE_MAX_ROOM_CROSSINGS`` times (``crossings_within``,
    counted before any noding), or when GEOS fails anyway (``GEOSException``, e.g. out of
    memory): the callers then take the plain path. Cost: O(n log n + k) for n walls with k <=
    ``SIGHTLINE_MAX_ROOM_CROSSINGS`` crossings.
    """
    key = ("rooms", sense, None if wall_mask is None else wall_mask.tobytes())
    if key in index.memo:
        return index.memo[key]  # type: ignore[no-any-return]
    firm = (
        (index.restriction[sense] == 2)
        & (index.direction == 0)
        & np.isinf(index.bottom)
        & np.isinf(index.top)
    )
    if wall_mask is not None:
        firm &= wall_mask
    if index.room_walls is not None:  # region outlines close no room
        firm[index.room_walls :] = False
    rooms = None
    if firm.sum() >= 3:
        lines = shapely.linestrings(index.coords[firm].reshape(-1, 2, 2))
        if crossings_within(lines, core_limit("MAX_ROOM_CROSSINGS")):
            try:
                noded = shapely.node(shapely.union_all(lines))
                faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(noded)))
            except (GEOSException, MemoryError):  # the last resort: no shortcut
                faces = np.empty(0, dtype=object)
            if len(faces):
                rooms = (shapely.STRtree(faces), faces)
    index.memo[key] = rooms
    return rooms


def room_of(rooms: tuple[shapely.STRtree, NDArray[np.object_]], box: FloatArray) -> int | None:
    """Index of the room wholly holding ``box``; -1 outside every room; None if unsure."""
    tree, faces = rooms
    geom = (
        shapely.box(*box) if box[2] > box[0] and box[3] > box[1] else shapely.Point(box[0], box[1])
    )
    touching = tree.query(geom, predicate="intersects")
    if not len(touching):
        return -1
    holding = [int(f) for f in touching if shapely.contains_properly(faces[f], geom)]
    return holding[0] if len(holding) == 1 and len(touching) == 1 else None


def sealed_apart(
    index: WallIndex,
    box_from: Sequence[float] | FloatArray,
    box_to: Sequence[float] | FloatArray,
    sense: str = "move",
    wall_mask: NDArray[np.bool_] | None = None,
) -> bool:
    """Whether two spaces lie in different closed rooms (a quick, certain "no line").

    ``False`` means "not known to be sealed", never "clear".
    """
    rooms = firm_rooms(index, sense, wall_mask)
    if rooms is None:
        return False
    a = room_of(rooms, np.asarray(box_from, dtype=np.float64))
    b = room_of(rooms, np.asarray(box_to, dtype=np.float64))
    return a is not None and b is not None and a != b
