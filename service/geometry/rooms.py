"""Closed rooms: spaces no straight line can leave without crossing a firm wall."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.errors import GEOSException

from service.engine.budget import core_limit
from service.engine.walls import FloatArray, WallIndex
from service.geometry.crossings import firm_crossings_within


def _key(sense: str, wall_mask: NDArray[np.bool_] | None) -> tuple[str, str, bytes | None]:
    """``WallIndex.memo`` key of the rooms of ``sense`` under ``wall_mask``."""
    return ("rooms", sense, None if wall_mask is None else wall_mask.tobytes())


def room_walls(
    index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None
) -> NDArray[np.bool_]:
    """The walls that close rooms, shape (n,): two-way, normal, full-height, in ``wall_mask``.

    They block ``sense`` whatever the source and the heights (closed doors included; region
    outlines past ``WallIndex.room_walls`` never close a room). O(n).
    """
    firm = index.firm(sense)
    if wall_mask is not None:
        firm &= wall_mask
    if index.room_walls is not None:  # region outlines close no room
        firm[index.room_walls :] = False
    return firm


def rooms_built(index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None) -> bool:
    """Whether ``firm_rooms`` for these arguments is already memoised (then it is O(1))."""
    return _key(sense, wall_mask) in index.memo


def firm_rooms(
    index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None
) -> tuple[shapely.STRtree, NDArray[np.object_]] | None:
    """The closed rooms formed by walls that block ``sense`` unconditionally (memoised).

    Two-way, normal, full-height walls (closed doors included) are noded and polygonized:
    the faces are regions no straight line can leave without crossing such a wall, since a
    line leaving a face crosses its boundary ring, at an interior point or at a vertex whose
    two ring edges lie on either side of it (blocked by GEO-6 either way).

    Rooms are only a shortcut. ``None`` (no rooms) when fewer than three such walls, when
    they cross more than ``SIGHTLINE_MAX_ROOM_CROSSINGS`` times (``firm_crossings_within``,
    counted before any noding), or when GEOS fails anyway (``GEOSException``, e.g. out of
    memory): the callers then take the plain path. Cost: O(n log n + k) for n walls with k <=
    ``SIGHTLINE_MAX_ROOM_CROSSINGS`` crossings. Callers with many pairs ask ``FreePaths``
    first, and build the rooms only for a pair no free path joins.
    """
    key = _key(sense, wall_mask)
    if key in index.memo:
        return index.memo[key]  # type: ignore[no-any-return]
    firm = room_walls(index, sense, wall_mask)
    rooms = None
    if firm.sum() >= 3:
        lines = shapely.linestrings(index.coords[firm].reshape(-1, 2, 2))
        if firm_crossings_within(index, firm, core_limit("MAX_ROOM_CROSSINGS")):
            try:
                faces = _faces(lines)
            except (GEOSException, MemoryError):  # the last resort: no shortcut
                faces = np.empty(0, dtype=object)
            if len(faces):
                rooms = (shapely.STRtree(faces), faces)
    index.memo[key] = rooms
    return rooms


def _faces(lines: NDArray[np.object_]) -> NDArray[np.object_]:
    """The faces (polygons) that the linestrings ``lines`` close, noded where they cross.

    GEOS's noder on the lines as one collection (crossings split, overlapping stretches
    kept once), then polygonize on that collection whole (no shapely object per noded
    piece): the faces an overlay union of them gives, in about a third of its time (18,802
    walls of the live bench: 50 ms against 166 ms to node).

    Raises
    ------
    shapely.errors.GEOSException, MemoryError
        When GEOS fails (the callers take the path without rooms).
    """
    noded = shapely.node(shapely.multilinestrings(lines))
    return shapely.get_parts(shapely.polygonize([noded]))  # type: ignore[no-any-return]


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


#: Clearance (px) a free path keeps from every wall that closes rooms: far above the float
#: noise of noding (the rooms' ring vertices lie on the walls to about 1e-9 px), so a path
#: this far from every such wall crosses no room's boundary.
PATH_CLEARANCE_PX = 1e-3


class FreePaths:
    """Paths between spaces that cross no wall closing rooms: a proof of "not sealed apart".

    Two points joined by a path that keeps ``PATH_CLEARANCE_PX`` from every wall of
    ``room_walls`` lie in the same face of those walls (no room boundary is crossed), so
    two spaces holding such points are never in different rooms: ``room_of`` finds the
    same room for both, or is unsure for one, or finds both outside every room. Deciding it
    this way needs no rooms at all (``firm_rooms`` nodes and polygonizes every wall, about
    0.5 s for 4,000 short walls crossing 5,000 times).

    The paths tried, from each space's centre (``_anchor``: the point ``room_of`` takes for
    a box without area): the straight lines left, right, up and down to beyond the walls'
    bounding box (the space is then outside every room's reach, and two such spaces are
    joined round the outside), and the centre-to-centre segment. Each space's escape is
    decided once per ``FreePaths``. Cost: one ``STRtree`` query of a few
    segments, O(log n + k) for k walls whose boxes meet them.
    """

    def __init__(self, index: WallIndex, sense: str, wall_mask: NDArray[np.bool_] | None) -> None:
        self.index = index
        self.firm = room_walls(index, sense, wall_mask)
        coords = index.coords[self.firm]
        self.bounds: FloatArray | None = None
        if len(coords):
            xy = coords.reshape(-1, 2)
            margin = 2 * PATH_CLEARANCE_PX
            self.bounds = np.concatenate([xy.min(axis=0) - margin, xy.max(axis=0) + margin])
        self._escapes: dict[tuple[float, ...], bool] = {}

    def _clear(self, segments: FloatArray) -> NDArray[np.bool_]:
        """Which of ``segments`` (k, 4) px keep ``PATH_CLEARANCE_PX`` from every firm wall."""
        out = np.ones(len(segments), dtype=bool)
        if not self.index.size or not len(segments):
            return out
        lines = shapely.linestrings(segments.reshape(-1, 2, 2))
        seg, wall = self.index.tree.query(lines, predicate="dwithin", distance=PATH_CLEARANCE_PX)
        out[seg[self.firm[wall]]] = False
        return out

    def escapes(self, box: FloatArray) -> bool:
        """Whether a straight line from ``box`` (``_anchor``) leaves the walls' box clear."""
        key = tuple(box.tolist())
        found = self._escapes.get(key)
        if found is not None:
            return found
        if self.bounds is None:
            self._escapes[key] = True
            return True
        cx, cy = _anchor(box)
        x0, y0, x1, y1 = self.bounds
        if not (x0 < cx < x1 and y0 < cy < y1):
            found = True
        else:
            rays = np.array(
                [[cx, cy, x0, cy], [cx, cy, x1, cy], [cx, cy, cx, y0], [cx, cy, cx, y1]]
            )
            found = bool(self._clear(rays).any())
        self._escapes[key] = found
        return found

    def joined(self, box_from: FloatArray, box_to: FloatArray) -> bool:
        """Whether a free path is known between the two spaces (``False``: not known)."""
        if self.escapes(box_from) and self.escapes(box_to):
            return True
        return bool(self._clear(np.array([[*_anchor(box_from), *_anchor(box_to)]]))[0])


def _anchor(box: FloatArray) -> tuple[float, float]:
    """A point of ``box`` that ``room_of`` judges it by: its centre, or the point it uses.

    ``room_of`` takes a box without area (a point, or a segment) as its first corner.
    """
    if box[2] > box[0] and box[3] > box[1]:
        return float(box[0] + box[2]) * 0.5, float(box[1] + box[3]) * 0.5
    return float(box[0]), float(box[1])


#: Length (relative to a wall's) of a newly closing wall that may lie outside every old
#: room and still be updated locally (the float noise of the rooms' rings, ~1e-9 px).
_OUTSIDE_REL = 1e-9


def rooms_after_change(old: WallIndex, new: WallIndex, rows: Sequence[int]) -> None:
    """Carry ``old``'s memoised rooms into ``new``, the same segments with ``rows`` changed.

    For live scenes (``engine.live.flipped_index``: a door opened or closed, a restriction
    changed). For each rooms entry of ``old.memo`` (per sense and wall mask): unchanged room
    walls keep the rooms as they are; walls that only stop closing rooms (a door opened)
    merge the rooms on their two sides (:func:`rooms_opened`); otherwise only the rooms
    touching the changed walls are polygonized again (:func:`_rooms_around`), from the room
    walls meeting them. An entry that cannot be updated either way (no rooms, or a newly
    closing wall outside every room, where new rooms may form) is left out: ``firm_rooms``
    builds it when asked. Cost: an opening, O(changed walls + vertices of the rooms they
    bound) and one union per merged pair; a closing, O(faces and walls of the touched rooms)
    polygonized; plus the faces' tree. Against O(n log n + k) to build them all.
    """
    picked = np.asarray(rows, dtype=np.intp)
    done: list[tuple[object, NDArray[np.bool_], object]] = []  # senses sharing their rooms
    for key, rooms in list(old.memo.items()):
        if not (isinstance(key, tuple) and key[0] == "rooms") or rooms is None:
            continue
        mask = None if key[2] is None else np.frombuffer(key[2], dtype=bool)
        after = room_walls(new, key[1], mask)
        same = [r for was, walls, r in done if was is rooms and np.array_equal(walls, after)]
        if same:
            if same[0] is not False:
                new.memo[key] = same[0]
            continue
        before = room_walls(old, key[1], mask)
        diff = picked[before[picked] != after[picked]]
        found: object = rooms
        if len(diff):
            closing = after[diff] & ~before[diff]
            made = None if closing.any() else rooms_opened(new, rooms, after, diff)
            if made is None:
                made = _rooms_around(new, rooms, after, diff, closing)
            found = False if made is None else (made if len(made[1]) else None)
        if found is not False:
            new.memo[key] = found
        done.append((rooms, after, found))


#: How far (relative to the coordinates' magnitude) a room's ring vertex may lie from a wall
#: and still be on it (the float noise of noding, ~1e-12 relative): ``rooms_opened``.
_ON_WALL_REL = 1e-9


def rooms_opened(
    index: WallIndex,
    rooms: tuple[shapely.STRtree, NDArray[np.object_]],
    firm: NDArray[np.bool_],
    opened: NDArray[np.intp],
) -> tuple[shapely.STRtree, NDArray[np.object_]] | None:
    """The rooms after the walls ``opened`` stop closing rooms, from the old ``rooms``.

    The faces of the room walls ``firm`` without ``opened`` are the old faces with the two
    sides of each removed boundary stretch joined: faces whose rings run along an opened
    wall over a common stretch are one face now (their union, as ``firm_rooms``'s
    polygonization of the remaining walls makes it: the stretches become cut edges or
    dangles), and a face whose ring runs along an opened wall where no other face lies
    (the outside) is open to the outside and is no room any more. Faces touching an
    opened wall at a point only are kept. Stretches are compared as intervals along each
    wall, so rings noded differently on either side still match. ``None`` (the caller
    polygonizes instead) when another room wall overlaps an opened wall along its line
    (the stretch is still closed), or a union is not one polygon.

    Cost: one tree query of the opened walls, O(vertices of the touched faces) in numpy,
    one union per group of joined faces, and the faces' ``STRtree``.
    """
    tree, faces = rooms
    lines = index.tree.geometries
    touched = np.unique(_meeting(tree, lines[opened], index)[1])
    if not len(touched):
        return rooms
    if _overlapped(index, opened, firm):
        return None
    spans = [_stretches(faces[f], index.coords[opened]) for f in touched]
    groups, open_ = _joined(spans)
    made, gone = [], set()
    for members in groups:
        gone |= members
        if members & open_:
            continue
        try:  # rooms already built (within MAX_ROOM_CROSSINGS): their union is as bounded
            merged = shapely.union_all(faces[touched[sorted(members)]])
        except (GEOSException, MemoryError):
            return None
        if shapely.get_type_id(merged) != shapely.GeometryType.POLYGON:
            return None
        made.append(merged)
    if not gone:
        return rooms
    keep = np.ones(len(faces), dtype=bool)
    keep[touched[sorted(gone)]] = False
    out = np.concatenate([faces[keep], np.array(made, dtype=object)])
    return shapely.STRtree(out), out


def _meeting(
    tree: shapely.STRtree, geoms: shapely.Geometry | NDArray[np.object_], index: WallIndex
) -> NDArray[np.intp]:
    """``tree.query(geoms)`` of what meets ``geoms`` within the float noise of noding.

    A room's ring runs along its walls through noded crossings that GEOS computes about
    1e-13 (relative) off the walls themselves, so a face can lie wholly on one side of a wall
    it is bounded by and ``intersects`` miss it (a door opened that kept a closed triangle
    of crossing walls, break-in test 2026-12-02): within :data:`_ON_WALL_REL` of the
    coordinates' magnitude counts as meeting. O(log n + results).
    """
    scale = index.magnitude()
    return tree.query(geoms, predicate="dwithin", distance=_ON_WALL_REL * scale)  # type: ignore[no-any-return]


def _overlapped(index: WallIndex, opened: NDArray[np.intp], firm: NDArray[np.bool_]) -> bool:
    """Whether a room wall of ``firm`` runs along an opened wall over a stretch (collinear)."""
    lines = index.tree.geometries
    which, other = index.tree.query(lines[opened], predicate="intersects")
    keep = firm[other]
    if not keep.any():
        return False
    seg, wall = index.coords[opened[which[keep]]], index.coords[other[keep]]
    t0, on0 = _line_position(seg, wall[:, 0:2])
    t1, on1 = _line_position(seg, wall[:, 2:4])
    lo, hi = np.maximum(np.minimum(t0, t1), 0.0), np.minimum(np.maximum(t0, t1), 1.0)
    return bool((on0 & on1 & (hi - lo > _ON_WALL_REL)).any())


def _line_position(seg: FloatArray, pts: FloatArray) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Each point's position along its segment's line (0 and 1 at its ends), and whether on it.

    On the line: within :data:`_ON_WALL_REL` of the coordinates' magnitude. ``seg`` (m, 4),
    ``pts`` (m, 2); a zero-length segment has no line (``False``).
    """
    d = seg[:, 2:4] - seg[:, 0:2]
    rel = pts - seg[:, 0:2]
    length2 = (d * d).sum(axis=1)
    tol = _ON_WALL_REL * (np.abs(seg).max(axis=1) + 1.0)
    cross = np.abs(d[:, 0] * rel[:, 1] - d[:, 1] * rel[:, 0])
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (rel * d).sum(axis=1) / length2
    return t, (length2 > 0) & (cross <= tol * np.sqrt(length2))


def _along(seg: FloatArray, pts: FloatArray) -> FloatArray:
    """Each point's position along its segment (0 to 1), NaN when it is off the segment."""
    t, on = _line_position(seg, pts)
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    with np.errstate(invalid="ignore", divide="ignore"):
        slack = _ON_WALL_REL * (np.abs(seg).max(axis=1) + 1.0) / length
    on &= (t >= -slack) & (t <= 1 + slack)
    return np.where(on, np.clip(t, 0.0, 1.0), np.nan)


def _stretches(face: shapely.Geometry, walls: FloatArray) -> list[tuple[int, float, float]]:
    """The stretches of ``face``'s rings along each of ``walls`` (k, 4): (wall, t0, t1).

    Per wall, only the ring edges with both ends in the wall's box (grown by the float
    noise ``_along`` allows) are placed along it: O(edges) per wall, and the placing
    O(edges in the box).
    """
    xy, ring = shapely.get_coordinates(shapely.get_rings(face), return_index=True)
    edge = np.flatnonzero(ring[1:] == ring[:-1])  # consecutive vertices of one ring
    starts, ends = xy[edge], xy[edge + 1]
    out: list[tuple[int, float, float]] = []
    for w, seg in enumerate(walls):
        margin = 2 * _ON_WALL_REL * (float(np.abs(seg).max()) + 1.0)
        low = np.minimum(seg[0:2], seg[2:4]) - margin
        high = np.maximum(seg[0:2], seg[2:4]) + margin
        inside = ((starts >= low) & (starts <= high) & (ends >= low) & (ends <= high)).all(axis=1)
        near = np.flatnonzero(inside)
        if not len(near):
            continue
        rows = np.broadcast_to(seg, (len(near), 4))
        t0, t1 = _along(rows, starts[near]), _along(rows, ends[near])
        hit = np.isfinite(t0) & np.isfinite(t1) & (t0 != t1)
        a, b = t0[hit], t1[hit]
        out += [
            (w, p, q)
            for p, q in zip(np.minimum(a, b).tolist(), np.maximum(a, b).tolist(), strict=True)
        ]
    return out


def _joined(spans: list[list[tuple[int, float, float]]]) -> tuple[list[set[int]], set[int]]:
    """Faces joined across shared stretches (groups of positions), and those open outside.

    A stretch of a face that no other face's stretches cover (beyond float noise) lies
    between the face and the outside.
    """
    parent = list(range(len(spans)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    eps = _ON_WALL_REL
    open_: set[int] = set()
    for f, own in enumerate(spans):
        for w, t0, t1 in own:
            covered = []
            for g, other in enumerate(spans):
                if g == f:
                    continue
                for v, s0, s1 in other:
                    if v == w and min(t1, s1) - max(t0, s0) > eps:
                        parent[root(g)] = root(f)
                        covered.append((max(t0, s0), min(t1, s1)))
            if _uncovered(t0, t1, covered) > eps:
                open_.add(f)
    groups: dict[int, set[int]] = {}
    for f, own in enumerate(spans):
        if own:
            groups.setdefault(root(f), set()).add(f)
    return [g for g in groups.values() if len(g) > 1 or g & open_], open_


def _uncovered(t0: float, t1: float, covered: list[tuple[float, float]]) -> float:
    """Length of [t0, t1] outside the union of ``covered`` intervals."""
    left, at = 0.0, t0
    for s0, s1 in sorted(covered):
        if s0 > at:
            left += s0 - at
        at = max(at, s1)
    return left + max(0.0, t1 - at)


def _rooms_around(
    index: WallIndex,
    rooms: tuple[shapely.STRtree, NDArray[np.object_]],
    firm: NDArray[np.bool_],
    changed: NDArray[np.intp],
    closing: NDArray[np.bool_],
) -> tuple[shapely.STRtree, NDArray[np.object_]] | None:
    """The rooms of ``firm`` from the old ``rooms``, polygonizing only around ``changed``.

    The faces meeting a changed wall form the region that can change; every room wall
    meeting that region is noded and polygonized again, and the new faces lying in the
    region replace the old ones there (a face of walls that include every wall meeting the
    region, lying in it, is a face of all the walls). ``None`` when a newly closing wall
    (``closing``, over ``changed``) is not covered by the old rooms.
    """
    tree, faces = rooms
    lines = index.tree.geometries
    touched = np.unique(_meeting(tree, lines[changed], index)[1])
    if not len(touched):
        return None if closing.any() else rooms
    region = shapely.union_all(faces[touched])
    for line in lines[changed[closing]]:
        outside = shapely.length(shapely.difference(line, region))
        if outside > _OUTSIDE_REL * (shapely.length(line) + 1.0):
            return None
    near = _meeting(index.tree, region, index)
    near = near[firm[near]]
    made = np.empty(0, dtype=object)
    if len(near) >= 3:
        try:
            made = _faces(lines[near])
        except (GEOSException, MemoryError):
            return None
    if len(made):
        made = made[shapely.contains(region, shapely.point_on_surface(made))]
    keep = np.ones(len(faces), dtype=bool)
    keep[touched] = False
    out = np.concatenate([faces[keep], made])
    return shapely.STRtree(out), out


#: The senses whose rooms are built with a scene (``warm_rooms``): lines of effect, sight.
WARM_SENSES = ("move", "sight", "light", "sound")


def warm_rooms(index: WallIndex, senses: Sequence[str] = WARM_SENSES) -> None:
    """Build the rooms of ``senses`` (no wall mask) now, once per distinct set of room walls.

    For a scene's upload (``service.cache``), so that its first query does not pay them;
    senses whose room walls are the same walls share one polygonization. Cost: ``firm_rooms``
    once per distinct set.
    """
    built: list[tuple[NDArray[np.bool_], object]] = []
    for sense in senses:
        key = _key(sense, None)
        if key in index.memo:
            continue
        firm = room_walls(index, sense, None)
        same = next((rooms for walls, rooms in built if np.array_equal(walls, firm)), False)
        if same is False:
            same = firm_rooms(index, sense, None)
        index.memo[key] = same
        built.append((firm, same))
