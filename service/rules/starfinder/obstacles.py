"""Starfinder's low obstacles (SF-COV-5): which walls give cover only near the target.

A low obstacle (a ``cover: "low"`` wall, or a wall of limited height that covers only part
of a line's band, GEO-5a) gives cover only within 30 ft of the target, and not when the
attacker is nearer it than the target. ``low_obstacle_mask`` plans one pair's wall mask for
the first kind; ``partial_obstacles`` finds, for many pairs at once, the walls of limited
height that may not block as low obstacles. ``service.rules.starfinder.cover`` traces
with both.

Units: distances in the scene's units (GEO-8: 30 ft is 9 m on a metric scene); boxes in
scene px.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.grids import feet_to_units
from service.engine.scene import BuiltScene
from service.engine.walls import FloatArray, WallIndex
from service.geometry.questions import WallChoice
from service.model import Token
from service.rules.planning import WallChoices

#: SF-COV-5: a low obstacle gives cover only within 30 ft (6 squares) of the target, in
#: feet: converted to the scene's units (GEO-8, 9 m on a metric scene).
LOW_OBSTACLE_FT = 30.0

#: Pairs whose SF-COV-5 partial obstacles are found in one step (``partial_obstacles``).
_PAIRS_AT_ONCE = 256


def _limited_tree(walls: WallIndex, limited: NDArray[np.intp]) -> shapely.STRtree:
    """An ``STRtree`` over ``limited``, the walls of limited height (kept in ``walls.memo``)."""
    tree = walls.memo.get("limited_tree")
    if tree is None:
        tree = walls.memo["limited_tree"] = shapely.STRtree(
            shapely.linestrings(walls.coords[limited].reshape(-1, 2, 2))
        )
    return tree


def low_walls(built: BuiltScene) -> list[int]:
    """Low obstacles (SF-COV-5): the walls ``built.tall_walls`` sets aside."""
    return [] if built.tall_walls is None else np.flatnonzero(~built.tall_walls).tolist()


def low_obstacle_mask(
    built: BuiltScene,
    source_box: tuple[float, float, float, float],
    target_box: tuple[float, float, float, float],
) -> tuple[np.ndarray | None, list[str]]:
    """Mask of walls to trace for one pair: low obstacles apply only as SF-COV-5 says.

    A ``cover: "low"`` wall farther than 30 ft from ``target_box``, or nearer
    ``source_box`` (a point for an area's origin) than the target, is left out of the
    mask, with a note saying why.

    Returns
    -------
    mask : ndarray of bool, shape (walls,), or None
        The walls to trace; ``None`` when the scene has no low obstacle (trace every wall).
    notes : list of str
        One ``SF-COV-5: ...`` note per wall left out.
    """
    low = low_walls(built)
    if not low:
        return None, []
    grid = built.scene.grid
    mask = np.ones(built.walls.size, dtype=bool)
    notes = []
    reach_units = feet_to_units(LOW_OBSTACLE_FT, grid)
    t_poly = shapely.box(*target_box)
    s_poly = (
        shapely.box(*source_box)
        if source_box[0] != source_box[2]
        else shapely.Point(source_box[0], source_box[1])
    )
    for i in low:
        seg = shapely.LineString(built.walls.coords[i].reshape(2, 2))
        d_target = shapely.distance(t_poly, seg) / grid.px_per_unit
        d_source = shapely.distance(s_poly, seg) / grid.px_per_unit
        if d_target > reach_units:
            mask[i] = False
            notes.append(
                f"SF-COV-5: low obstacle {built.walls.ids[i]} is over {reach_units:g} "
                f"{grid.units} from the target: no cover from it."
            )
        elif d_source < d_target:
            mask[i] = False
            notes.append(
                f"SF-COV-5: the attacker is closer to low obstacle {built.walls.ids[i]} "
                "than the target: ignored."
            )
    return mask, notes


def partial_obstacles(
    built: BuiltScene, source: FloatArray, target: FloatArray
) -> list[NDArray[np.bool_] | bool]:
    """Walls that may block as low obstacles where they cover part of a band (GEO-5a).

    SF-COV-5 for walls with a height range near each pair: one farther than 6 squares
    from the target, or nearer the attacker than the target, gives no cover where it
    covers only part of a line's band (where it covers all of it, it blocks as a wall).
    ``source`` and ``target`` (q, 4) px: each pair's source (an area's point of origin as a
    box of no size, ``planning.attack_source``) and target spaces. Per pair: ``True`` (every
    such wall may), or a mask of the walls that may.

    Cost: one tree query of the pairs' bounding boxes and one vectorised distance per
    (pair, wall of limited height in its box).
    """
    out: list[NDArray[np.bool_] | bool] = [True] * len(source)
    walls = built.walls
    if not built.heights or not walls.size or not len(source):
        return out
    hulls = shapely.box(
        np.minimum(source[:, 0], target[:, 0]),
        np.minimum(source[:, 1], target[:, 1]),
        np.maximum(source[:, 2], target[:, 2]),
        np.maximum(source[:, 3], target[:, 3]),
    )
    limited = np.flatnonzero(np.isfinite(walls.bottom) | np.isfinite(walls.top))
    if not len(limited):
        return out
    # One geometry per pair and per wall of limited height, indexed by the rows.
    tree = _limited_tree(walls, limited)
    lines = tree.geometries
    row_of = np.full(walls.size, -1, dtype=np.intp)
    row_of[limited] = np.arange(len(limited))
    point = source[:, 0] == source[:, 2]  # an area's point of origin
    s_geom = np.where(
        point,
        shapely.points(source[:, :2]),
        shapely.box(source[:, 0], source[:, 1], source[:, 2], source[:, 3]),
    )
    t_geom = shapely.box(target[:, 0], target[:, 1], target[:, 2], target[:, 3])
    grid = built.scene.grid
    reach = feet_to_units(LOW_OBSTACLE_FT, grid)
    bad: list[tuple[NDArray[np.intp], NDArray[np.intp]]] = []
    for start in range(0, len(source), _PAIRS_AT_ONCE):  # bounded memory per step
        pair, near = tree.query(hulls[start : start + _PAIRS_AT_ONCE])
        pair += start
        near = limited[near]
        at = row_of[near]
        d_target = shapely.distance(t_geom[pair], lines[at]) / grid.px_per_unit
        d_source = shapely.distance(s_geom[pair], lines[at]) / grid.px_per_unit
        fails = (d_target > reach) | (d_source < d_target)
        bad.append((pair[fails], near[fails]))
    bad_pair = np.concatenate([p for p, _ in bad])
    bad_wall = np.concatenate([w for _, w in bad])
    if not len(bad_pair):
        return out
    order = np.argsort(bad_pair, kind="stable")
    bad_pair, bad_wall = bad_pair[order], bad_wall[order]
    starts = np.flatnonzero(np.r_[True, bad_pair[1:] != bad_pair[:-1]])
    masks: dict[bytes, NDArray[np.bool_]] = {}  # pairs that set aside the same walls share
    for r, these in zip(bad_pair[starts].tolist(), np.split(bad_wall, starts[1:]), strict=True):
        key = np.sort(these).tobytes()
        if key not in masks:
            masks[key] = np.ones(walls.size, dtype=bool)
            masks[key][these] = False
        out[r] = masks[key]
    return out


def wall_choices(
    built: BuiltScene, pairs: Sequence[tuple[Token | None, Token]]
) -> Callable[[FloatArray], WallChoices] | None:
    """Each pair's walls as SF-COV-5 says (``planning.plan_pairs``'s ``walls``).

    A ``cover: "low"`` wall is left out of a pair's lines when it is over 30 ft from the
    target or nearer the attacker (``low_obstacle_mask``, a note each); a wall of limited
    height likewise where it covers only part of a line's band (``partial_obstacles``).
    ``None`` when the scene has neither (every pair traces every wall).
    """
    if not (low_walls(built) or built.heights):
        return None

    def choose(sources: FloatArray) -> WallChoices:
        targets = np.array([built.token_boxes[t.id] for _, t in pairs], dtype=np.float64)
        partial = partial_obstacles(built, sources, targets.reshape(-1, 4))
        per_pair, notes = [], {}
        for r, ((_, target), low) in enumerate(zip(pairs, partial, strict=True)):
            mask: NDArray[np.bool_] | None = None
            said: list[str] = []
            if low_walls(built):
                source = (sources[r, 0], sources[r, 1], sources[r, 2], sources[r, 3])
                mask, said = low_obstacle_mask(built, source, built.token_boxes[target.id])
            per_pair.append(WallChoice(mask, low))
            if said:
                notes[r] = tuple(said)
        return WallChoices.of(per_pair, notes)

    return choose
