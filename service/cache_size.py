"""What a cached scene holds, in bytes: the cache's memory bound (``service.cache``).

A scene's estimate before it is built (``scene_bytes``: per wall, token, light, region point
and fog edge, measured as RSS growth) and after (``approx_bytes``), and what the queries
build on it lazily (``lazy_bytes``: closed rooms, junction labels, the wall grid, floors),
measured object by object rather than estimated from counts.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import fields, is_dataclass

import numpy as np
import shapely

from service.engine.scene import BuiltScene
from service.model import Scene

#: Bytes a cached scene holds, per item. Measured as the growth of a process's
#: resident memory per cached scene (five scenes of each kind, each built and asked one
#: exact line): the model objects, the built index and what the first queries add to it.
#: A wall: its ``model.Wall`` (~270), index arrays, shapely line and tree node (~430), the
#: kernel's wall grid and the obstacle labels and closed rooms kept in ``WallIndex.memo``.
BYTES_PER_WALL = 1200
#: An edge of a heavy-fog outline: a pseudo-wall of the sight index (~830, its own
#: ``model.Wall``, line and tree node) and the wall grid's share (~110).
BYTES_PER_OUTLINE_EDGE = 950
#: A region outline point: its tuple in the model (~120) and in the region's shapely shape.
BYTES_PER_REGION_POINT = 150
#: A token (model, space, span, sharing) and a light (model).
BYTES_PER_TOKEN = 1000
BYTES_PER_LIGHT = 500
#: Points of a rect or circle region's shape (circles are 64-gons).
CIRCLE_POINTS = 65
#: Each scene: the cost model's wall density grids (``engine.density``) and the dicts.
BYTES_PER_SCENE = 200_000
#: What is built lazily on a scene's wall indexes (``WallIndex.memo``: closed rooms per sense
#: and wall choice, junction labels, obstacle components; the kernel's ``WallGrid``; the
#: floors' memo) is measured, not estimated from the counts (``lazy_bytes``): a GEOS
#: geometry's own memory (the object, its envelope, the Python wrapper) and each of its
#: coordinates (x, y, z as GEOS keeps them), and a node of an ``STRtree``. Measured as the
#: growth of a process's RSS per lattice scene (150 by 150 crossing walls, queried once: its
#: 22,201 closed rooms of 5 points, 10.5 MB past the scene's own estimate): 470 bytes a
#: room, its array slot included.
BYTES_PER_GEOMETRY = 300
BYTES_PER_COORDINATE = 24
BYTES_PER_TREE_NODE = 40
#: How deep ``lazy_bytes`` follows containers (a memo value is a tuple of arrays at most).
LAZY_DEPTH = 6


def scene_bytes(scene: Scene) -> int:
    """Estimated memory of ``scene`` once built and cached, in bytes, before it is built.

    Counts every part a ``BuiltScene`` holds: the walls with their index and
    kernel grid, the heavy-fog outlines as sight pseudo-walls, the regions' points in the
    model and in their shapes, tokens and lights (``BYTES_PER_*``). O(regions).
    """
    points = [len(r.shape.points) or CIRCLE_POINTS for r in scene.regions]
    outline = sum(p for p, r in zip(points, scene.regions, strict=True) if r.obscurement == "heavy")
    return (
        BYTES_PER_SCENE
        + BYTES_PER_WALL * len(scene.walls)
        + BYTES_PER_OUTLINE_EDGE * outline
        + BYTES_PER_TOKEN * len(scene.tokens)
        + BYTES_PER_LIGHT * len(scene.lights)
        + BYTES_PER_REGION_POINT * sum(points)
    )


def approx_bytes(geo: BuiltScene) -> int:
    """Estimated memory of one cached scene (for the cache's memory bound), in bytes.

    ``scene_bytes`` of its scene, with the outline edges the sight index really holds
    (identical edges are indexed once) instead of the regions' point counts.
    """
    scene = geo.scene
    heavy = sum(
        len(r.shape.points) or CIRCLE_POINTS for r in scene.regions if r.obscurement == "heavy"
    )
    outline = 0 if geo.sight_walls is None else geo.sight_walls.size - geo.walls.size
    return scene_bytes(scene) + BYTES_PER_OUTLINE_EDGE * (outline - heavy)


def lazy_bytes(geo: BuiltScene) -> int:
    """Bytes of what has been built lazily on ``geo``'s wall indexes and floors, now.

    Every value of ``WallIndex.memo`` (both indexes when the sight index is another), the
    kernel's wall grid (``WallIndex.grid``) and the floors' memo (``lazy_values``), each
    object counted once: numpy arrays by ``nbytes``, arrays of geometries and shapely
    geometries by :data:`BYTES_PER_GEOMETRY` and :data:`BYTES_PER_COORDINATE`, an
    ``STRtree`` by :data:`BYTES_PER_TREE_NODE` a node (its geometries counted where they are
    held), containers and dataclasses by what they hold. Cost: O(objects held), the
    geometries counted in one vectorised call per array.
    """
    seen = built_ids(geo)
    return sum(held_bytes(value, seen, LAZY_DEPTH) for value in lazy_values(geo))


def built_ids(geo: BuiltScene) -> set[int]:
    """Ids of ``geo``'s wall indexes and of what they hold when built (not memo nor grid).

    A lazily built copy of an index (``sealed._covering``, one per height band) shares them,
    and ``approx_bytes`` counts them already. O(index fields).
    """
    out: set[int] = set()
    for index in (geo.walls, geo.sight):
        out.add(id(index))
        out |= {id(getattr(index, f.name)) for f in fields(index) if f.name not in ("memo", "grid")}
    return out


def lazy_values(geo: BuiltScene) -> list[object]:
    """What was built lazily on ``geo``, each object once (by identity). O(memo entries).

    Its indexes' memo entries (keys too: a wall mask's bytes key rooms) and wall grids, and
    its floors' memo entries.
    """
    out: dict[int, object] = {}
    memos = [i.memo for i in {id(i): i for i in (geo.walls, geo.sight)}.values()]
    if geo.surfaces is not None:
        memos.append(geo.surfaces.memo)
    for memo in memos:
        out |= {id(x): x for entry in memo.items() for x in entry if x is not None}
    for index in (geo.walls, geo.sight):
        if index.grid is not None:
            out[id(index.grid)] = index.grid
    return list(out.values())


def lazy_signature(geo: BuiltScene) -> tuple[int, ...]:
    """What changes when something more is built lazily on ``geo`` (memo sizes, the grid). O(1)."""
    out: list[int] = []
    for index in {id(i): i for i in (geo.walls, geo.sight)}.values():
        out += [len(index.memo), index.grid is not None]
    if geo.surfaces is not None:
        out.append(len(geo.surfaces.memo))
    return tuple(out)


def held_bytes(value: object, seen: set[int], depth: int) -> int:
    """Estimated bytes ``value`` holds (see ``lazy_bytes``); objects in ``seen`` count 0."""
    if value is None or id(value) in seen or depth < 0:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        if value.dtype != object:
            return int(value.nbytes)
        geoms = value[shapely.is_geometry(value)] if value.size else value
        coords = int(shapely.get_num_coordinates(geoms).sum()) if geoms.size else 0
        return int(value.nbytes) + BYTES_PER_GEOMETRY * geoms.size + BYTES_PER_COORDINATE * coords
    if isinstance(value, shapely.Geometry):
        return BYTES_PER_GEOMETRY + BYTES_PER_COORDINATE * int(shapely.get_num_coordinates(value))
    if isinstance(value, shapely.STRtree):
        return BYTES_PER_TREE_NODE * len(value)
    if isinstance(value, dict):
        items: Iterable[object] = [*value.keys(), *value.values()]
    elif isinstance(value, list | tuple | set | frozenset):
        items = value
    elif is_dataclass(value) and not isinstance(value, type):
        items = [getattr(value, f.name) for f in fields(value)]
    else:
        return sys.getsizeof(value)
    return sys.getsizeof(value) + sum(held_bytes(v, seen, depth - 1) for v in items)
