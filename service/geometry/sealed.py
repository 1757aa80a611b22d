"""Pairs of spaces sealed apart by closed rooms, many at once: no search needed (5E-LOE-2).

Two spaces in different closed rooms (``service.geometry.rooms``) have no line of effect (or
sight) between them. ``pairs_sealed_apart`` answers that for the pairs of one
``lines_of_effect`` call whose centre lines are blocked, grouped by band (GEO-5a): the rooms
are built only when a pair needs them (``SealedApart``: not when a free path joins it), each
space's room is looked up once, and rooms of walls of limited height are kept for a few
bands per wall index.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.walls import FloatArray, WallIndex
from service.geometry.bands import band_hulls, holds_hull
from service.geometry.rooms import FreePaths, firm_rooms, room_of, rooms_built
from service.geometry.vertices import distinct_rows

#: How many spaces' rooms ``SealedApart`` remembers per built index (a scene's tokens).
_ROOMS_KEPT = 4096


#: How many bands' rooms ``pairs_sealed_apart`` keeps per wall index (each is a
#: polygonization).
_BANDS_KEPT = 4


def pairs_sealed_apart(
    index: WallIndex,
    sense: str,
    wall_mask: NDArray[np.bool_] | None,
    bf: FloatArray,
    bt: FloatArray,
    bands: FloatArray | None,
) -> NDArray[np.bool_]:
    """Whether each pair of spaces lies in different closed rooms, shape (p,).

    ``bf``, ``bt`` (p, 4) px; ``bands`` (p, 4) each pair's band (GEO-5a) or ``None``. The
    rooms are closed by the walls that block every line whatever its band (``room_walls``:
    full height) and by the walls of limited height that cover the pair's band at every
    crossing (``bands.holds_hull``: they hold its hull; both creatures on one floor, the
    common case, or standing on the floor their walls start at): such a wall blocks every
    line of those pairs wherever it crosses it, as a full wall does. Pairs are grouped by
    the walls that so cover their bands; at most ``_BANDS_KEPT`` such sets of walls get
    rooms of their own per index, the other pairs use the full-height walls alone.
    """
    if bands is None or not len(bf) or (np.isinf(index.bottom) & np.isinf(index.top)).all():
        return SealedApart(index, sense, wall_mask).many(bf, bt)
    distinct, which = distinct_rows(band_hulls(bands))
    out = np.zeros(len(bf), dtype=bool)
    for k, hull in enumerate(distinct.tolist()):
        rows = np.flatnonzero(which == k)
        walls = _covering(index, tuple(hull))  # a NaN hull: no wall holds it, ``index``
        out[rows] = SealedApart(walls, sense, wall_mask).many(bf[rows], bt[rows])
    return out


def _covering(index: WallIndex, hull: tuple[float, ...]) -> WallIndex:
    """``index`` where the walls covering the band of ``hull`` at every crossing are full height.

    Only for rooms (``pairs_sealed_apart``); ``hull`` a row of ``bands.band_hulls``, the
    walls those of ``bands.holds_hull``. ``index`` itself when no wall of limited height
    covers it, or past ``_BANDS_KEPT`` sets of such walls (kept in ``index.memo`` by the
    set: bands that the same walls cover share their rooms).
    """
    limited = ~(np.isinf(index.bottom) & np.isinf(index.top))
    holds = limited & holds_hull(index.bottom, index.top, hull)
    if not holds.any():
        return index
    kept: dict[bytes, WallIndex] = index.memo.setdefault("covering", {})
    key = holds.tobytes()
    found = kept.get(key)
    if found is None:
        if len(kept) >= _BANDS_KEPT:
            return index
        found = kept[key] = dataclasses.replace(
            index,
            bottom=np.where(holds, -np.inf, index.bottom),
            top=np.where(holds, np.inf, index.top),
            memo={},
            grid=None,
        )
    return found


class SealedApart:
    """``rooms.sealed_apart`` for many pairs, building the rooms only when they can tell.

    A pair joined by a free path (``rooms.FreePaths``) is never sealed apart, so the rooms
    (``firm_rooms``: noding and polygonizing every wall) are built only for the first pair
    that no free path joins, or used at once when the scene already has them. Each space's
    room is looked up once.
    """

    def __init__(self, index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None):
        self.index, self.sense, self.wall_mask = index, sense, wall_mask
        self.paths: FreePaths | None = None
        self.rooms: tuple[shapely.STRtree, NDArray[np.object_]] | None = None
        self.built = rooms_built(index, sense, wall_mask)
        if self.built:
            self.rooms = firm_rooms(index, sense, wall_mask)

    def _room_at(self, box: FloatArray) -> int | None:
        """``room_of`` the space, remembered with the rooms (at most ``_ROOMS_KEPT`` spaces)."""
        assert self.rooms is not None
        # The rooms live in the index's memo as long as the index: so does this.
        kept: dict[tuple[float, ...], int | None] = self.index.memo.setdefault(
            ("room_at", id(self.rooms[0])), {}
        )
        key = tuple(box.tolist())
        if key not in kept:
            found = room_of(self.rooms, box)
            if len(kept) >= _ROOMS_KEPT:
                return found
            kept[key] = found
        return kept[key]

    def many(self, boxes_from: FloatArray, boxes_to: FloatArray) -> NDArray[np.bool_]:
        """``self(a, b)`` for each pair of boxes (p, 4), in order, shape (p,).

        Until the rooms are built, pairs are asked one by one (a free path joins them:
        not sealed); then every distinct box's room is looked up once.
        """
        out = np.zeros(len(boxes_from), dtype=bool)
        start = 0
        while not self.built and start < len(boxes_from):
            out[start] = self(boxes_from[start], boxes_to[start])
            start += 1
        if self.rooms is None or start >= len(boxes_from):
            return out
        both = np.vstack([boxes_from[start:], boxes_to[start:]])
        distinct, inverse = distinct_rows(both)
        unsure = -2  # ``room_of``'s None; -1 is outside every room
        rooms = [self._room_at(box) for box in distinct]
        room = np.array([unsure if r is None else r for r in rooms], dtype=np.int64)
        room = room[inverse.ravel()]
        a, b = room[: len(both) // 2], room[len(both) // 2 :]
        out[start:] = (a != unsure) & (b != unsure) & (a != b)
        return out

    def __call__(self, box_from: FloatArray, box_to: FloatArray) -> bool:
        """Whether the two spaces lie in different closed rooms (``False``: not known)."""
        if not self.built:
            if self.paths is None:
                self.paths = FreePaths(self.index, self.sense, self.wall_mask)
            if self.paths.joined(box_from, box_to):
                return False
            self.rooms = firm_rooms(self.index, self.sense, self.wall_mask)
            self.built = True
        if self.rooms is None:
            return False
        a, b = self._room_at(box_from), self._room_at(box_to)
        return a is not None and b is not None and a != b
