"""A change to a stored scene, applied to the scene and to its built parts (live scenes).

A :class:`Change` holds, per collection, the whole new item of each id it changes (``None``:
removed) and the new environment: what ``PATCH /v1/scenes/{id}`` resolved from its merge
patch, and what a scene store keeps as a patched scene's record (``service.store``).
:func:`apply_change` makes the changed canonical scene (items replaced in place, removed
ones dropped, new ones appended in the change's order); :func:`rebuild` makes its
``BuiltScene`` from the parent's, building only what the change touches
(``docs/decisions.md`` "Live scenes"). What each kind of change costs:

- **tokens**: the token spaces, extents and sharers only (``scene.token_parts``), O(tokens);
  walls, rooms, regions and lights are the parent's objects.
- **lights, environment**: nothing is built (lighting reads ``scene.lights`` per request):
  O(1) beyond the new scene.
- **walls whose segment stays** (doors opened or closed, restrictions, direction,
  thresholds, height, cover): :func:`flipped_index` copies the wall arrays and writes the
  changed rows, O(walls) in numpy; the ``STRtree``, the wall grid, the wall kinds (unless a
  ``cover`` changed) and what depends only on the segments (junction labels, obstacle
  components) are shared, and the closed rooms are updated around the changed walls
  (``geometry.rooms.rooms_after_change``, by the cache): a door opened joins the rooms on
  its two sides (one union, no noding), a door closed polygonizes the rooms it lies in.
- **walls moved, added or removed**, or a flip the index cannot take (identical segments
  indexed once, ``WallIndex.copies``): the wall index is built again, O(walls log walls).
- **regions**: the changed regions' shapes; the sight index again when a heavily obscured
  region is among them.
- **a scene with levels or surfaces** (a building's floors, GEO-10): built whole
  (``scene.build_scene``), O(walls log walls), since its walls and regions take their
  levels' ranges.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import msgspec
import numpy as np
from msgspec.structs import force_setattr
from numpy.typing import NDArray

from service.engine.density import wall_density
from service.engine.regions import region_geometry
from service.engine.scene import BuiltScene, build_scene, sight_index, token_parts, wall_kinds
from service.engine.walls import (
    DIRECTION_CODE,
    RESTRICTION_CODE,
    SENSES,
    WallIndex,
    build_wall_index,
)
from service.model import Environment, Light, Region, Scene, Token, Wall

#: The collections a change edits by id, in ``Scene`` order.
ITEMS = ("walls", "tokens", "lights", "regions")
#: ``WallIndex`` memo entries that depend on the wall segments only: a flip keeps them.
SEGMENT_MEMO = ("components", "junction_nodes", "magnitude", "wall_lengths")


class Change(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """What changes in a scene: per collection, id to its whole new item or ``None`` (removed).

    Attributes
    ----------
    walls, tokens, lights, regions : dict of str to item or None
        In the order the change gave them (new items are appended in that order).
    environment : Environment or None
        The new environment (``None``: unchanged).
    """

    walls: dict[str, Wall | None] = msgspec.field(default_factory=dict)
    tokens: dict[str, Token | None] = msgspec.field(default_factory=dict)
    lights: dict[str, Light | None] = msgspec.field(default_factory=dict)
    regions: dict[str, Region | None] = msgspec.field(default_factory=dict)
    environment: Environment | None = None

    def items(self) -> int:
        """How many items the change names (the environment counts one)."""
        return sum(len(getattr(self, k)) for k in ITEMS) + (self.environment is not None)


@dataclasses.dataclass(frozen=True)
class Applied:
    """A changed scene and where it changed.

    Attributes
    ----------
    scene : Scene
    touched : dict of str to set of int
        Per changed collection, the positions in ``scene`` to rehash (``engine.digest``).
    replaced : dict of str to dict of str to (int, item)
        Per collection, the items replaced in place: id to (position, old item).
    reshaped : set of str
        Collections where items were added or removed.
    """

    scene: Scene
    touched: dict[str, set[int]]
    replaced: dict[str, dict[str, tuple[int, Any]]]
    reshaped: set[str]
    positions: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)


def id_positions(items: tuple[Any, ...]) -> dict[str, int]:
    """Each item's position in ``items`` by its id. O(items)."""
    return {item.id: k for k, item in enumerate(items)}


def apply_change(
    scene: Scene, change: Change, positions: dict[str, dict[str, int]] | None = None
) -> Applied:
    """``scene`` with ``change`` applied; ids of the change must exist unless it adds them.

    ``positions``: per collection, ``id_positions`` of ``scene``'s items when known (the
    cache keeps them with each scene; missing ones are made and added to it). The result's
    ``positions`` are the new scene's where no item was added or removed (the same tables).
    Cost: O(items named) plus, per collection with items added or removed or without a known
    table, O(items of it) (a look-up table, the new tuple).

    Raises
    ------
    KeyError
        A ``None`` (removal) for an id the scene does not hold (checked by the caller first).
    """
    fields: dict[str, Any] = {}
    touched: dict[str, set[int]] = {}
    replaced: dict[str, dict[str, tuple[int, Any]]] = {}
    reshaped: set[str] = set()
    known = {} if positions is None else positions
    for name in ITEMS:
        edits: Mapping[str, Any] = getattr(change, name)
        if not edits:
            continue
        old = getattr(scene, name)
        where = known.get(name)
        if where is None:
            where = known[name] = id_positions(old)
        items = list(old)
        gone: set[int] = set()
        added = []
        swaps: dict[str, tuple[int, Any]] = {}
        for item_id, item in edits.items():
            k = where.get(item_id)
            if item is None:
                gone.add(where[item_id])
            elif k is None:
                added.append(item)
            else:
                swaps[item_id] = (k, old[k])
                items[k] = item
        first = min(gone, default=len(items))
        if gone:
            items = [x for k, x in enumerate(items) if k not in gone]
        marks = {k for k, _ in swaps.values() if k < first}
        marks |= set(range(first, len(items) + len(added)))
        fields[name] = (*items, *added) if added else tuple(items)
        touched[name] = marks
        replaced[name] = swaps
        if gone or added:
            reshaped.add(name)
    if change.environment is not None:
        fields["environment"] = change.environment
    # Ids stay unique by construction (edits by id, new ids appended once): the copy skips
    # ``Scene.__post_init__``'s check of every id (O(items)).
    new = copy.copy(scene)
    for name, value in fields.items():
        force_setattr(new, name, value)
    kept = {name: table for name, table in known.items() if name not in reshaped}
    return Applied(new, touched, replaced, reshaped, kept)


def rebuild(parent: BuiltScene, applied: Applied) -> BuiltScene:
    """The ``BuiltScene`` of ``applied.scene``, from its parent's, built only where it changed.

    Costs per kind of change: the module docstring. Equal to ``build_scene(applied.scene)``
    in every answer (``tests/service/test_live_scenes.py``).
    """
    scene = applied.scene
    if scene.levels or scene.surfaces or parent.surfaces is not None:
        return build_scene(scene)  # levels resolved and floors laid again: a whole build
    parts: dict[str, Any] = {"scene": scene}
    walls = parent.walls
    if "walls" in applied.replaced:
        # An index whose rows are its scene's walls (no merged copies) has the changed
        # scene's walls as its rows after a flip: they are not copied again.
        own = parent.walls.walls is parent.scene.walls
        walls = _changed_walls(parent.walls, scene, applied, own)
        parts["walls"] = walls
        if walls.tree is not parent.walls.tree or any(
            scene.walls[k].cover != old.cover for k, old in applied.replaced["walls"].values()
        ):
            parts.update(wall_kinds(walls))
    shapes = parent.region_shapes
    if "regions" in applied.replaced:
        kept = {i for i in shapes if i not in applied.replaced["regions"]}
        shapes = {
            r.id: shapes[r.id] if r.id in kept else region_geometry(r.shape) for r in scene.regions
        }
        parts["region_shapes"] = shapes
    if walls is not parent.walls or _fog_changed(parent.scene, scene, applied):
        sight = _changed_sight(parent, walls, scene, shapes, applied)
        parts["sight_walls"] = sight
        if sight is not parent.sight_walls or walls is not parent.walls:
            index = sight or walls
            parts["heights"] = bool(np.isfinite(index.bottom).any() or np.isfinite(index.top).any())
            if index.coords is not (parent.sight_walls or parent.walls).coords:
                parts["density"] = wall_density(index.coords)
    if "tokens" in applied.replaced:
        parts.update(token_parts(scene))
        parts.update(_creatures=None, _space_sets={}, _space_order={})
    return dataclasses.replace(parent, **parts)


def _fog_changed(old: Scene, new: Scene, applied: Applied) -> bool:
    """Whether a heavily obscured region was added, removed or changed."""
    if "regions" not in applied.replaced:
        return False
    before = {r.id: r for r in old.regions if r.obscurement == "heavy"}
    after = {r.id: r for r in new.regions if r.obscurement == "heavy"}
    return before != after


def _changed_sight(
    parent: BuiltScene,
    walls: WallIndex,
    scene: Scene,
    shapes: dict[str, Any],
    applied: Applied,
) -> WallIndex | None:
    """The sight index after the change: the parent's, its walls flipped, or built again."""
    old = parent.sight_walls
    if old is None and not _fog_changed(parent.scene, scene, applied):
        return None
    if old is not None and not _fog_changed(parent.scene, scene, applied):
        if walls is parent.walls:
            return old
        if walls.tree is parent.walls.tree and not old.copies:  # flipped in place
            rows = _rows(parent.walls, applied)
            if rows is not None:
                return flipped_index(old, {r: walls.walls[r] for r in rows})
    return sight_index(scene, walls, shapes)


def _rows(index: WallIndex, applied: Applied) -> list[int] | None:
    """Index rows of the walls replaced in place (``None`` when the index merged copies)."""
    if index.copies or "walls" in applied.reshaped:
        return None
    return [k for k, _ in applied.replaced["walls"].values()]


def _changed_walls(parent: WallIndex, scene: Scene, applied: Applied, own: bool) -> WallIndex:
    """The wall index after the change: ``flipped_index`` when it can, else built again.

    ``own``: the parent index's rows are its scene's walls (the same tuple).
    """
    rows = _rows(parent, applied)
    if rows is not None and all(
        scene.walls[k].c == old.c for k, old in applied.replaced["walls"].values()
    ):
        new = {k: scene.walls[k] for k in rows}
        if not _segments_repeat(parent, rows):
            return flipped_index(parent, new, scene.walls if own else None)
    return build_wall_index(scene)


def _segments_repeat(index: WallIndex, rows: list[int]) -> bool:
    """Whether another wall has the segment of one of ``rows`` (either way round).

    A flip then could make two walls identical, which a whole build indexes once
    (``WallIndex.copies``). One ``STRtree`` query of the rows' lines, O(log walls + walls
    meeting them).
    """
    c = index.coords
    picked = np.asarray(rows, dtype=np.intp)
    which, other = index.tree.query(index.tree.geometries[picked], predicate="intersects")
    own, them = c[picked[which]], c[other]
    same = (them == own).all(axis=1) | (them == own[:, [2, 3, 0, 1]]).all(axis=1)
    return bool((same & (other != picked[which])).any())


def flipped_index(
    index: WallIndex, walls: Mapping[int, Wall], whole: tuple[Wall, ...] | None = None
) -> WallIndex:
    """``index`` with the walls at rows ``walls`` replaced by walls of the same segments.

    ``whole``: the index's walls after the change when the caller holds them already (the
    changed scene's walls, for an index whose rows are its scene's walls): no copy is made.

    The restriction, threshold, direction and height rows of the new walls are written
    into copies of the arrays they change (open doors restrict nothing, GEO-2; an array
    whose rows keep their values is shared, as are the ``STRtree``, the coordinates, the
    wall grid and the memo entries of :data:`SEGMENT_MEMO`).
    Memo entries that read restrictions (rooms, sense masks) are not carried: the caller
    updates the rooms (``geometry.rooms.rooms_after_change``). Needs an index without
    merged copies. Cost: O(walls) per array changed (a copy) plus O(changed walls).
    """
    codes: dict[str, dict[int, float]] = {s: {} for s in SENSES}
    limits: dict[str, dict[int, float]] = {s: {} for s in index.threshold}
    ways: dict[int, float] = {}
    lows: dict[int, float] = {}
    highs: dict[int, float] = {}
    for k, wall in walls.items():
        is_open = wall.door != "none" and wall.door_state == "open"
        for sense in SENSES:
            codes[sense][k] = 0 if is_open else RESTRICTION_CODE[getattr(wall, sense)]
        for sense in limits:
            value = None if wall.threshold is None else getattr(wall.threshold, sense)
            limits[sense][k] = math.nan if value is None else value
        ways[k] = DIRECTION_CODE[wall.direction]
        lows[k] = -math.inf if wall.height is None else wall.height.low
        highs[k] = math.inf if wall.height is None else wall.height.high
    restriction = {s: _written(a, codes[s]) for s, a in index.restriction.items()}
    threshold = {s: _written(a, limits[s]) for s, a in index.threshold.items()}
    direction = _written(index.direction, ways)
    bottom, top = _written(index.bottom, lows), _written(index.top, highs)
    memo = {key: index.memo[key] for key in SEGMENT_MEMO if key in index.memo}
    return dataclasses.replace(
        index,
        walls=whole if whole is not None else _replaced(index.walls, walls),
        restriction=restriction,
        threshold=threshold,
        direction=direction,
        bottom=bottom,
        top=top,
        memo=memo,
    )


def _replaced(rows: tuple[Wall, ...], walls: Mapping[int, Wall]) -> tuple[Wall, ...]:
    """``rows`` with the walls at the positions of ``walls`` replaced. O(n)."""
    out = list(rows)
    for k, wall in walls.items():
        out[k] = wall
    return tuple(out)


def _written(array: NDArray[Any], values: Mapping[int, float]) -> NDArray[Any]:
    """``array`` with ``values`` (row: value) written: a copy, or ``array`` when it holds them.

    NaN equals NaN. The arrays of an index are never written in place once built, so they
    can be shared. O(len(values)), or O(n) for the copy.
    """
    if not values:
        return array
    picked = np.fromiter(values, dtype=np.intp, count=len(values))
    new = np.array(list(values.values()), dtype=array.dtype)
    old = array[picked]
    same = old == new
    if array.dtype.kind == "f":
        same |= np.isnan(old) & np.isnan(new)
    if same.all():
        return array
    out = array.copy()
    out[picked] = new
    return out
