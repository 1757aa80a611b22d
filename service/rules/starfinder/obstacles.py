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
from service.rules.planning import Asked, WallChoices

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


def _low_lines(built: BuiltScene, low: list[int]) -> NDArray[np.object_]:
    """The ``cover: "low"`` walls as shapely lines, in ``low_walls`` order (memoised)."""
    lines = built.walls.memo.get("low_lines")
    if lines is None:
        lines = built.walls.memo["low_lines"] = shapely.linestrings(
            built.walls.coords[low].reshape(-1, 2, 2)
        )
    return lines


def _source_geometry(box: tuple[float, float, float, float]) -> shapely.Geometry:
    """A source space as a box, an area's point of origin (a box of no size) as a point."""
    if box[0] != box[2]:
        return shapely.box(*box)
    return shapely.Point(box[0], box[1])


def low_obstacle_mask(
    built: BuiltScene,
    source_box: tuple[float, float, float, float],
    target_box: tuple[float, float, float, float],
) -> np.ndarray | None:
    """Mask of walls to trace for one pair: low obstacles apply only as SF-COV-5 says.

    A ``cover: "low"`` wall farther than 30 ft from ``target_box``, or nearer
    ``source_box`` (a point for an area's point of origin) than the target, is left out of
    the mask; :func:`low_obstacle_notes` says why for the walls the chosen lines meet.

    Returns
    -------
    ndarray of bool, shape (walls,), or None
        The walls to trace; ``None`` when the scene has no low obstacle (trace every wall).

    Cost: one vectorised distance per low wall (no Python loop over the walls).
    """
    low = low_walls(built)
    if not low:
        return None
    grid = built.scene.grid
    lines = _low_lines(built, low)
    d_target = shapely.distance(shapely.box(*target_box), lines) / grid.px_per_unit
    d_source = shapely.distance(_source_geometry(source_box), lines) / grid.px_per_unit
    fails = (d_target > feet_to_units(LOW_OBSTACLE_FT, grid)) | (d_source < d_target)
    mask = np.ones(built.walls.size, dtype=bool)
    mask[np.asarray(low, dtype=np.intp)[fails]] = False
    return mask


def low_obstacle_notes(
    built: BuiltScene,
    source_box: tuple[float, float, float, float],
    target_box: tuple[float, float, float, float],
    mask: NDArray[np.bool_] | None,
    lines: Sequence[tuple[tuple[float, float], tuple[float, float]]],
) -> list[str]:
    """One ``SF-COV-5`` note per low obstacle set aside that one of ``lines`` crosses.

    ``mask`` is the pair's :func:`low_obstacle_mask`; ``lines`` the chosen corner's lines
    (px ``(start, end)``). A low wall the lines never meet says nothing: a scene of 2,000
    low walls does not give 2,000 notes per answer.
    """
    low = low_walls(built)
    if mask is None or not low or not lines:
        return []
    aside = np.flatnonzero(~mask[low])
    if not len(aside):
        return []
    segments = shapely.multilinestrings([np.array(lines, dtype=np.float64)])[0]
    met = aside[shapely.intersects(_low_lines(built, low)[aside], segments)]
    grid = built.scene.grid
    reach = feet_to_units(LOW_OBSTACLE_FT, grid)
    target = shapely.box(*target_box)
    notes = []
    for k in met.tolist():
        seg, wall_id = _low_lines(built, low)[k], built.walls.ids[low[k]]
        if shapely.distance(target, seg) / grid.px_per_unit > reach:
            notes.append(
                f"SF-COV-5: low obstacle {wall_id} is over {reach:g} "
                f"{grid.units} from the target: no cover from it."
            )
        else:
            notes.append(
                f"SF-COV-5: the attacker is closer to low obstacle {wall_id} "
                "than the target: ignored."
            )
    return notes


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
    target or nearer the attacker (``low_obstacle_mask``; the answer notes those its chosen
    lines meet, ``low_obstacle_notes``); a wall of limited
    height likewise where it covers only part of a line's band (``partial_obstacles``).
    ``None`` when the scene has neither (every pair traces every wall).
    """
    has_low = bool(low_walls(built))  # once, not once per pair
    if not (has_low or built.heights):
        return None

    def choose(sources: FloatArray) -> WallChoices:
        targets = np.array([built.token_boxes[t.id] for _, t in pairs], dtype=np.float64)
        partial = partial_obstacles(built, sources, targets.reshape(-1, 4))
        per_pair = []
        for r, ((_, target), low) in enumerate(zip(pairs, partial, strict=True)):
            mask: NDArray[np.bool_] | None = None
            if has_low:
                source = (sources[r, 0], sources[r, 1], sources[r, 2], sources[r, 3])
                mask = low_obstacle_mask(built, source, built.token_boxes[target.id])
            per_pair.append(WallChoice(mask, low))
        return WallChoices.of(per_pair)

    return choose


def chosen_line_notes(
    asked: Asked,
    r: int,
    source_box: tuple[float, ...],
    lines: slice,
) -> list[str]:
    """Pair ``r``'s SF-COV-5 notes on the low obstacles set aside.

    Those its chosen ``lines`` (a slice of its traced lines) cross: ``low_obstacle_notes``
    with the pair's mask.
    """
    traced = asked.measured[r].lines(asked.built.walls, lines)
    pairs = asked.plan.pairs
    choice = 0 if pairs.wall_choice is None else int(pairs.wall_choice[r])
    target = asked.pairs[r][1]
    return low_obstacle_notes(
        asked.built,
        source_box,  # type: ignore[arg-type]
        asked.built.token_boxes[target.id],
        pairs.walls[choice].wall_mask,
        [(t.start, t.end) for t in traced],
    )
