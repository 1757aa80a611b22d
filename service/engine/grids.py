"""Grids and distances (GEO-8): square, gridless and hex grids, feet, the one distance.

The one distance between two creatures that every ruleset and endpoint uses (vision and
detection ranges, reach and flanking, range bands, matrices) is ``space_distance_units``.
The hex lattice, token footprints on hexes and the hexes' corners are
``service.engine.hexes``; this module re-exports them (``__all__``).

Units: positions in scene px (y down); distances in the scene's grid units
(``Grid.distance`` units per square or hex, ``Grid.units`` feet or metres).

Grids (``Grid.type``, FORMATS.md A.2 and pitfall 12):

- ``square``: squares of ``size`` px from the scene's (0, 0). Two spaces are as far apart as
  a move counts squares between their nearest squares, with the diagonal rule
  (``Grid.diagonals``, else the ruleset's default). A creature smaller than a square (tiny)
  counts from the square that holds its centre.
- ``gridless``: nothing snaps. The distance is the ruler's: the shortest gap between the two
  spaces plus one square (``Grid.distance``), so that creatures whose spaces touch are one
  square (5 ft) apart, as on a grid and as Foundry's dnd5e and pf2e systems measure between
  token centres on a gridless scene (docs/decisions.md, "Gridless distance"). No rounding.
- ``hex-row`` and ``hex-col`` (the lattice: ``service.engine.hexes``; its origin is the
  scene's (0, 0), as Foundry v12+ lays its hex grid on the canvas, the scene rectangle's
  padding being a whole number of strides). Distances count hexes between the nearest hexes
  of the two spaces (Foundry's cube distance, ``hex_cells_distance``); diagonals do not
  arise on hexes.

References
----------
shared/RULES.md GEO-8, SF-FLK-1, PV-RNG-1/2, PV-MEL-1; shared/FORMATS.md A.1, A.2, A.4.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from service.engine.hexes import (
    MAX_FOOTPRINT_CELLS,
    SMALL_FOOTPRINT,
    Box,
    Cell,
    FloatArray,
    HexLattice,
    check_hex_footprint,
    footprint,
    footprint_distances,
    footprint_rim,
    hex_box,
    hex_count,
    hex_distance,
    hex_every_corner,
    hex_inner_boxes,
    hex_space_corners,
    is_hex,
    lattice,
    token_extent,
)
from service.engine.tolerances import SQUARE_COUNT_TOL
from service.model import Grid, Token

#: This module's names and ``service.engine.hexes``'s, which grid users import from here.
__all__ = [
    "DEFAULT_REACH_FT",
    "FEET_PER_SQUARE",
    "MAX_FOOTPRINT_CELLS",
    "METRES_PER_SQUARE",
    "SMALL_FOOTPRINT",
    "Box",
    "Cell",
    "FloatArray",
    "HexLattice",
    "check_hex_footprint",
    "combine_steps",
    "counting_box",
    "diagonal_rule",
    "feet_to_units",
    "flat_distance",
    "footprint",
    "gridless_distance",
    "footprint_distances",
    "footprint_rim",
    "hex_box",
    "hex_cells_distance",
    "hex_count",
    "hex_distance",
    "hex_every_corner",
    "hex_inner_boxes",
    "hex_space_corners",
    "is_hex",
    "lattice",
    "reach_units",
    "space_distance_units",
    "square_distance",
    "square_distances_units",
    "token_extent",
    "token_space_box",
    "units_to_feet",
    "within_units",
]

#: Feet in one square: the rules' distances are given in feet (GEO-8).
FEET_PER_SQUARE = 5.0
#: Metres standing for 5 ft on a metric scene (GEO-8: 1.5 m per 5 ft).
METRES_PER_SQUARE = 1.5
#: Reach of a creature whose token does not say (PV-MEL-1, SF-FLK-1: usually 5 ft).
DEFAULT_REACH_FT = 5.0


# ---------------------------------------------------------------------------- units


def feet_to_units(feet: float, grid: Grid) -> float:
    """A distance the rules give in feet, in the scene's units (GEO-8).

    ``ft`` scenes take it as is; ``m`` scenes take 1.5 m per 5 ft (30 ft -> 9 m); scenes
    counted in spaces (``squares``) take 1 space per 5 ft, ``grid.distance`` units a space
    (GEO-8 "scenes counted in squares": reach 5 ft is 1 space).
    """
    if grid.units == "m":
        return feet * METRES_PER_SQUARE / FEET_PER_SQUARE
    if grid.units == "squares":
        return feet / FEET_PER_SQUARE * grid.distance
    return feet


def units_to_feet(units: float, grid: Grid) -> float:
    """The inverse of ``feet_to_units``: scene units in feet (for tables kept in feet)."""
    if grid.units == "m":
        return units * FEET_PER_SQUARE / METRES_PER_SQUARE
    if grid.units == "squares":
        return units / grid.distance * FEET_PER_SQUARE
    return units


def reach_units(token: Token, grid: Grid) -> float:
    """A creature's reach in scene units: its token's ``reach``, else 5 ft converted."""
    if token.reach is not None:
        return token.reach
    return feet_to_units(DEFAULT_REACH_FT, grid)


def diagonal_rule(grid: Grid, default: str) -> str:
    """The diagonal rule in force (GEO-8): the scene's when it sets one, else ``default``."""
    return grid.diagonals if grid.diagonals is not None else default


def token_space_box(token: Token, grid: Grid) -> Box:
    """A token's space as ``(x0, y0, x1, y1)`` px (``BuiltScene.token_boxes``).

    Squares and gridless: its box (``Token.box``). Hexes: the bounding box of the hexes
    it occupies (``footprint``), so that its centre is the centre of its hexes.
    """
    lat = lattice(grid)
    if lat is None:
        return token.box(grid.size)
    return hex_box(footprint(token, grid), lat)


# ---------------------------------------------------------------------------- distance


def _square_span(lo: float, hi: float, size: float) -> tuple[float, float]:
    """One axis of a space, for counting squares (GEO-8).

    A space narrower than a square counts from the square that holds its centre.
    """
    if hi - lo < size * (1 - SQUARE_COUNT_TOL):
        k = math.floor((lo + hi) / 2 / size)
        return k * size, (k + 1) * size
    return lo, hi


def counting_box(box: Box, grid: Grid) -> Box:
    """The space a creature counts from (GEO-8), for distances and flanking's geometry.

    On a square grid, a space narrower than a square along an axis counts, along that axis,
    as the square that holds its centre (a tiny creature anywhere in a square counts as that
    square). Other spaces, and every space on gridless and hex grids, are their own box.
    """
    if grid.type != "square":
        return box
    x0, x1 = _square_span(box[0], box[2], grid.size)
    y0, y1 = _square_span(box[1], box[3], grid.size)
    return (x0, y0, x1, y1)


def square_distance(box_a: Box, box_b: Box, grid: Grid, diagonals: str) -> float:
    """Distance in grid units between two spaces on a square grid (GEO-8).

    Counted between the nearest squares of the two spaces, as a move would count them:
    adjacent spaces are one square apart, overlapping spaces 0. A space narrower than a
    square along an axis counts from the square holding its centre along that axis.
    Diagonals: ``equidistant`` (5-5-5), ``alternating`` (5-10-5: every second diagonal
    costs two squares) or ``euclidean``.
    """
    size = grid.size

    def squares(a: tuple[float, float], b: tuple[float, float]) -> float:
        gap = max(b[0] - a[1], a[0] - b[1])
        if gap < 0:
            return 0.0
        return math.ceil(gap / size - SQUARE_COUNT_TOL) + 1.0

    a, b = counting_box(box_a, grid), counting_box(box_b, grid)
    steps_x = squares((a[0], a[2]), (b[0], b[2]))
    steps_y = squares((a[1], a[3]), (b[1], b[3]))
    return combine_steps(steps_x, steps_y, diagonals) * grid.distance


def combine_steps(dx: float, dy: float, diagonals: str) -> float:
    """Steps of a move ``dx`` along one axis and ``dy`` along another, by the diagonal rule.

    ``equidistant``: the larger; ``alternating``: every second diagonal step counts two;
    ``euclidean``: Pythagoras. In the unit of ``dx`` and ``dy``.
    """
    if diagonals == "euclidean":
        return math.hypot(dx, dy)
    diag, straight = min(dx, dy), abs(dx - dy)
    if diagonals == "alternating":
        return straight + diag + math.floor(diag / 2 + SQUARE_COUNT_TOL)
    return straight + diag


def gridless_distance(box_a: Box, box_b: Box, grid: Grid) -> float:
    """Ruler distance in grid units between two spaces on a gridless scene (GEO-8).

    The shortest gap between the two boxes plus one square (``grid.distance``): spaces that
    touch are one square apart, overlapping spaces 0. Nothing is rounded.
    """
    gx = max(box_b[0] - box_a[2], box_a[0] - box_b[2])
    gy = max(box_b[1] - box_a[3], box_a[1] - box_b[3])
    if gx < 0 and gy < 0:
        return 0.0
    gap_px = math.hypot(max(gx, 0.0), max(gy, 0.0))
    return gap_px / grid.px_per_unit + grid.distance


def hex_cells_distance(a: NDArray[np.int64], b: NDArray[np.int64]) -> int:
    """Hexes between the nearest hexes of two footprints (0 when they share a hex).

    One pair of ``footprint_distances`` (the rims compared, GEO-8). Cost: O((k_a + k_b)
    log(k_a + k_b)) plus rim_a * rim_b.
    """
    return int(footprint_distances([a, b], np.array([[0, 1]], dtype=np.intp))[0])


def flat_distance(a: Token, b: Token, grid: Grid, boxes: dict[str, Box], diagonals: str) -> float:
    """Distance in grid units between two tokens' spaces on the map, elevation aside."""
    if grid.type == "gridless":
        return gridless_distance(boxes[a.id], boxes[b.id], grid)
    if is_hex(grid):
        return hex_cells_distance(footprint(a, grid), footprint(b, grid)) * grid.distance
    return square_distance(boxes[a.id], boxes[b.id], grid, diagonals)


def space_distance_units(
    a: Token, b: Token, grid: Grid, boxes: dict[str, Box], diagonals: str
) -> float:
    """The distance between two creatures in grid units, elevation included (GEO-8).

    ``flat_distance`` on the map; the elevation difference is a third axis, combined with
    the diagonal rule in squares or hexes (``combine_steps``; on a gridless scene by
    Pythagoras). ``diagonals`` is the rule in force (``diagonal_rule``).

    Parameters
    ----------
    a, b : Token
    grid : Grid
    boxes : dict of str to (x0, y0, x1, y1) px
        The tokens' spaces (``BuiltScene.token_boxes``).
    diagonals : str
        ``equidistant``, ``alternating`` or ``euclidean``.
    """
    flat = flat_distance(a, b, grid, boxes, diagonals)
    dz = abs(a.elevation - b.elevation)
    if dz == 0:
        return flat
    if grid.type == "gridless" or diagonals == "euclidean":
        return math.hypot(flat, dz)
    return combine_steps(flat / grid.distance, dz / grid.distance, diagonals) * grid.distance


def square_distances_units(
    boxes_a: FloatArray,
    boxes_b: FloatArray,
    elevations: FloatArray,
    grid: Grid,
    diagonals: str,
) -> FloatArray:
    """``space_distance_units`` of many pairs on a square grid, shape (p,) grid units.

    ``boxes_a``, ``boxes_b`` (p, 4) px: the pairs' ``counting_box``es; ``elevations``
    (p, 2): their elevations in grid units; ``diagonals`` ``equidistant`` or
    ``alternating`` (the same arithmetic as ``square_distance`` and ``combine_steps``, so
    the same floats).

    Raises
    ------
    ValueError
        Another grid or diagonal rule (measure those pair by pair).
    """
    if grid.type != "square" or diagonals not in ("equidistant", "alternating"):
        raise ValueError("square_distances_units: square grids, 5-5-5 or 5-10-5 only")
    size = grid.size

    def squares(a0: FloatArray, a1: FloatArray, b0: FloatArray, b1: FloatArray) -> FloatArray:
        gap = np.maximum(b0 - a1, a0 - b1)
        steps = np.ceil(gap / size - SQUARE_COUNT_TOL) + 1.0
        return np.where(gap < 0, 0.0, steps)

    def combine(dx: FloatArray, dy: FloatArray) -> FloatArray:
        diag, straight = np.minimum(dx, dy), np.abs(dx - dy)
        if diagonals == "alternating":
            return straight + diag + np.floor(diag / 2 + SQUARE_COUNT_TOL)
        return straight + diag

    sx = squares(boxes_a[:, 0], boxes_a[:, 2], boxes_b[:, 0], boxes_b[:, 2])
    sy = squares(boxes_a[:, 1], boxes_a[:, 3], boxes_b[:, 1], boxes_b[:, 3])
    flat = combine(sx, sy) * grid.distance
    dz = np.abs(elevations[:, 0] - elevations[:, 1])
    lifted = combine(flat / grid.distance, dz / grid.distance) * grid.distance
    return np.where(dz == 0, flat, lifted)


def within_units(distance: float, limit: float) -> bool:
    """Whether ``distance`` is within ``limit`` (grid units), float noise forgiven."""
    return distance <= limit * (1 + SQUARE_COUNT_TOL) + SQUARE_COUNT_TOL
