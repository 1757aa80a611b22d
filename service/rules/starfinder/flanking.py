"""Starfinder flanking (SF-FLK-1 of ``shared/RULES.md``).

A creature flanks with an ally when both **threaten** the target, that is could attack it
in melee: the target is within its reach (GEO-8: the distance the grid counts, reach in
the scene's units, 5 ft by default) **and** it has line of effect to the target (a wall
between them stops the threat, ``service.geometry.exact``); and the line between the
centres of a square (hex) of each passes through opposite edges or opposite corners of
the target's space. Creatures with 0 reach cannot flank.

On a square grid a creature smaller than a square (tiny) counts from the square that holds
its centre (GEO-8, ``counting_box``), for the distance and for the opposite sides alike: where
a tiny target stands inside its square changes nothing. A tiny creature without an explicit
``reach`` has Starfinder's natural reach of 0 ft (``NATURAL_REACH_FT``), so it threatens
nothing and cannot flank (docs/decisions.md).

On hex grids the target's space is the outline of its hexes: two sides are opposite when
their outward directions are; on squares that is the seed's left/right, top/bottom and
opposite corners.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from service.engine.budget import core_limit
from service.engine.grids import (
    counting_box,
    diagonal_rule,
    feet_to_units,
    footprint,
    hex_inner_boxes,
    lattice,
    reach_units,
    space_distance_units,
    within_units,
)
from service.engine.scene import BuiltScene
from service.engine.spaces import inset_box
from service.engine.tolerances import CHORD_TOL, DEFAULT_CORNER_INSET_PX, SQUARE_COUNT_TOL
from service.errors import OverBudget, shown
from service.geometry.exact import lines_of_effect
from service.model import Grid, Token

#: GEO-8: Starfinder counts diagonals 5-10-5 (when the scene sets no rule).
DIAGONALS = "alternating"
#: Most lines between the cells (squares or hexes) of two creatures that flanking tries
#: (about 30 µs each) is the setting ``SIGHTLINE_MAX_FLANK_PAIRS`` (``core_limit``; 100,000:
#: two creatures of ~300 cells each). Past it the request is refused (422) naming both,
#: before any line is tried.


def _check_pairs(count_a: int, count_b: int, a: Token, b: Token) -> None:
    """Refuse (``OverBudget``, 422) when ``count_a * count_b`` passes the limit."""
    pairs = count_a * count_b
    limit = core_limit("MAX_FLANK_PAIRS")
    if pairs > limit:
        raise OverBudget(
            f"Flanking tries a line from every square or hex of {shown(a.id)} to every one "
            f"of {shown(b.id)}: {pairs:,} lines, over the limit of {limit:,} "
            "(SIGHTLINE_MAX_FLANK_PAIRS); "
            "make these creatures smaller.",
            ("scene", "tokens"),
        )


#: SF-FLK-1 / docs/decisions.md: natural reach in feet of a creature whose token gives no
#: ``reach``, by size, where it differs from the default 5 ft (Starfinder, as Pathfinder 1e:
#: tiny creatures have 0 ft reach).
NATURAL_REACH_FT: dict[str, float] = {"tiny": 0.0}

#: Slack in px when telling which edge of a space a line crosses.
EDGE_TOL_PX = 1e-6

Point = tuple[float, float]


def flanking(
    built: BuiltScene, attacker: Token, ally: Token, target: Token
) -> tuple[bool, list[str], str]:
    """SF-FLK-1: whether ``attacker`` and ``ally`` flank ``target``.

    Both must threaten the target: reach above 0, the target within reach (GEO-8, the
    scene's diagonal rule or alternating; reach ``None`` is 5 ft in the scene's units, 0 for
    a tiny creature: ``natural_reach``), and
    line of effect from their space to the target's (walls restricting movement, low
    obstacles aside). Then the line between the centres of a square (hex) of each (any
    square of a multi-square creature) must pass through opposite edges or opposite
    corners of the target's space; on squares, a tiny creature's space is the square that
    holds its centre (GEO-8, ``counting_box``).

    Returns
    -------
    (bool, list of str, str)
        Flanking, rule ids, and the reason.
    """
    grid = built.scene.grid
    rule = diagonal_rule(grid, DIAGONALS)
    tb = counting_box(built.token_boxes[target.id], grid)
    for who in (attacker, ally):
        reach = natural_reach(who, grid)
        if reach <= 0:
            return False, ["SF-FLK-1"], f"{who.id} has 0 reach and cannot flank."
        dist = space_distance_units(who, target, grid, built.token_boxes, rule)
        if not within_units(dist, reach):
            return (
                False,
                ["SF-FLK-1"],
                (
                    f"{who.id} does not threaten {target.id} ({dist:g} {grid.units} > reach "
                    f"{reach:g})."
                ),
            )
        if not _line_of_effect(built, who, target):
            return (
                False,
                ["SF-FLK-1"],
                f"{who.id} does not threaten {target.id}: no line of effect to it.",
            )
    if lattice(grid) is not None:
        return _hex_flanking(built, attacker, ally, target)
    box_a = counting_box(built.token_boxes[attacker.id], grid)
    box_b = counting_box(built.token_boxes[ally.id], grid)
    _check_pairs(
        math.prod(_square_counts(box_a, grid.size)),
        math.prod(_square_counts(box_b, grid.size)),
        attacker,
        ally,
    )
    for ca in _square_centres(box_a, grid.size):
        for cb in _square_centres(box_b, grid.size):
            if _opposite_sides(ca, cb, tb):
                return True, ["SF-FLK-1"], "The line between them crosses opposite sides."
    return False, ["SF-FLK-1"], "No line between their squares crosses opposite sides."


def natural_reach(token: Token, grid: Grid) -> float:
    """A creature's reach in scene units: its ``reach``, else its size's natural reach.

    ``NATURAL_REACH_FT`` (a tiny creature 0 ft), else 5 ft (``reach_units``), converted.
    """
    if token.reach is None and token.size in NATURAL_REACH_FT:
        return feet_to_units(NATURAL_REACH_FT[token.size], grid)
    return reach_units(token, grid)


def _line_of_effect(built: BuiltScene, who: Token, target: Token) -> bool:
    """Line of effect from ``who``'s space to ``target``'s (5E-LOE-2's exact search).

    Walls restricting movement block (GEO-1), low obstacles do not (one attacks over
    them). On hex grids each space is the boxes inside its hexes (``hex_inner_boxes``):
    any clear pair of hexes is a line of effect, at most ``SIGHTLINE_MAX_FLANK_PAIRS`` pairs (else
    ``OverBudget``, 422).
    """
    grid = built.scene.grid
    lat = lattice(grid)
    if lat is None:
        boxes_a = np.array([built.token_boxes[who.id]])
        boxes_b = np.array([built.token_boxes[target.id]])
    else:
        cells_a, cells_b = footprint(who, grid), footprint(target, grid)
        _check_pairs(len(cells_a), len(cells_b), who, target)  # before any box is made
        boxes_a, boxes_b = hex_inner_boxes(cells_a, lat), hex_inner_boxes(cells_b, lat)
    _check_pairs(len(boxes_a), len(boxes_b), who, target)
    ia, ib = np.meshgrid(np.arange(len(boxes_a)), np.arange(len(boxes_b)), indexing="ij")
    froms = np.array([inset_box(b, DEFAULT_CORNER_INSET_PX) for b in boxes_a[ia.ravel()]])
    tos = np.array([inset_box(b, DEFAULT_CORNER_INSET_PX) for b in boxes_b[ib.ravel()]])
    elev = np.tile([who.elevation, target.elevation], (len(froms), 1)).astype(np.float64)
    found = lines_of_effect(
        built.walls, froms, tos, "move", elevations=elev, wall_mask=built.tall_walls
    )
    return any(line.clear for line in found)


def _square_counts(box: tuple[float, float, float, float], size: float) -> tuple[int, int]:
    """Squares across and down a space (at least one each)."""
    x0, y0, x1, y1 = box
    nx = max(1, math.ceil((x1 - x0) / size - SQUARE_COUNT_TOL))
    ny = max(1, math.ceil((y1 - y0) / size - SQUARE_COUNT_TOL))
    return nx, ny


def _square_centres(box: tuple[float, float, float, float], size: float) -> list[Point]:
    x0, y0, x1, y1 = box
    nx, ny = _square_counts(box, size)
    w = (x1 - x0) / nx
    h = (y1 - y0) / ny
    return [(x0 + (i + 0.5) * w, y0 + (j + 0.5) * h) for i in range(nx) for j in range(ny)]


def _opposite_sides(a: Point, b: Point, box: tuple[float, float, float, float]) -> bool:
    """Whether segment a-b enters and leaves ``box`` through opposite edges or corners."""
    x0, y0, x1, y1 = box
    dx, dy = b[0] - a[0], b[1] - a[1]
    t_lo, t_hi = 0.0, 1.0
    for p, d, lo, hi in ((a[0], dx, x0, x1), (a[1], dy, y0, y1)):
        if d == 0:
            if not lo < p < hi:
                return False
            continue
        t1, t2 = (lo - p) / d, (hi - p) / d
        t_lo, t_hi = max(t_lo, min(t1, t2)), min(t_hi, max(t1, t2))
    if t_hi - t_lo <= CHORD_TOL:
        return False

    def sides(t: float) -> set[str]:
        x, y = a[0] + t * dx, a[1] + t * dy
        eps = EDGE_TOL_PX
        out = set()
        if abs(x - x0) < eps:
            out.add("left")
        if abs(x - x1) < eps:
            out.add("right")
        if abs(y - y0) < eps:
            out.add("top")
        if abs(y - y1) < eps:
            out.add("bottom")
        return out

    enter, leave = sides(t_lo), sides(t_hi)
    return (
        ("left" in enter and "right" in leave)
        or ("right" in enter and "left" in leave)
        or ("top" in enter and "bottom" in leave)
        or ("bottom" in enter and "top" in leave)
    )


# ---------------------------------------------------------------------------- hexes


def _hex_flanking(
    built: BuiltScene, attacker: Token, ally: Token, target: Token
) -> tuple[bool, list[str], str]:
    """SF-FLK-1 on a hex grid: hex centres of each, opposite sides of the target's hexes.

    Cost: O(t) for the target's t hexes plus one segment test per (attacker hex, ally hex)
    pair, at most ``SIGHTLINE_MAX_FLANK_PAIRS`` (else ``OverBudget``, 422, before any test).
    """
    grid = built.scene.grid
    lat = lattice(grid)
    assert lat is not None
    _check_pairs(len(footprint(attacker, grid)), len(footprint(ally, grid)), attacker, ally)
    cells = footprint(target, grid)
    hexes = [shapely.Polygon(lat.vertices((int(q), int(r)))) for q, r in cells]
    outline = shapely.union_all(hexes, grid_size=lat.size * 1e-9)
    if not isinstance(outline, shapely.Polygon):  # hexes meeting at a point only
        outline = outline.convex_hull
    ring = np.asarray(shapely.geometry.polygon.orient(outline, 1.0).exterior.coords)
    centres_a = lat.centres(footprint(attacker, grid))
    centres_b = lat.centres(footprint(ally, grid))
    for ca in centres_a:
        for cb in centres_b:
            if _opposite_outline_sides(tuple(ca), tuple(cb), outline, ring):
                return True, ["SF-FLK-1"], "The line between them crosses opposite sides."
    return False, ["SF-FLK-1"], "No line between their hexes crosses opposite sides."


def _opposite_outline_sides(a: Point, b: Point, outline: shapely.Polygon, ring: np.ndarray) -> bool:
    """Whether segment a-b enters and leaves ``outline`` through sides facing opposite ways.

    ``ring`` is the outline's exterior, counter-clockwise by the shoelace sign, so that
    the outward normal of the side ``(dx, dy)`` is ``(dy, -dx)``.
    """
    seg = shapely.LineString([a, b])
    cut = shapely.intersection(seg, outline)
    if cut.is_empty or cut.length <= CHORD_TOL * max(seg.length, 1.0):
        return False
    pts = np.concatenate([np.asarray(g.coords) for g in getattr(cut, "geoms", [cut])])
    d = np.subtract(b, a)
    t = (pts - np.asarray(a)) @ d / (d @ d)
    enter, leave = pts[np.argmin(t)], pts[np.argmax(t)]
    n_in, n_out = _side_normals(enter, ring), _side_normals(leave, ring)
    return any(float(u @ v) < -1 + 1e-9 for u in n_in for v in n_out)


def _side_normals(p: np.ndarray, ring: np.ndarray) -> list[np.ndarray]:
    """Outward unit normals of the outline's sides through point ``p`` (two at a corner)."""
    out = []
    for s, e in zip(ring[:-1], ring[1:], strict=True):
        edge = e - s
        length = float(np.hypot(*edge))
        if length == 0:
            continue
        w = p - s
        along = float(w @ edge) / length
        off = abs(float(edge[0] * w[1] - edge[1] * w[0])) / length
        if off < EDGE_TOL_PX and -EDGE_TOL_PX <= along <= length + EDGE_TOL_PX:
            out.append(np.array([edge[1], -edge[0]]) / length)
    return out
