"""Starfinder flanking (SF-FLK-1 of ``shared/RULES.md``)."""

from __future__ import annotations

import math

from service.engine.scene import BuiltScene
from service.engine.spaces import space_distance
from service.engine.tolerances import CHORD_TOL, SQUARE_COUNT_TOL
from service.model import Token

#: GEO-8: Starfinder counts diagonals 5-10-5.
DIAGONALS = "alternating"

#: Slack in px when telling which edge of a space a line crosses.
EDGE_TOL_PX = 1e-6


def flanking(
    built: BuiltScene, attacker: Token, ally: Token, target: Token
) -> tuple[bool, list[str], str]:
    """SF-FLK-1: whether ``attacker`` and ``ally`` flank ``target``.

    The line between the centres of a square of each (any square of a multi-square
    creature) must pass through opposite edges or opposite corners of the target's
    space; both must threaten the target (within reach, GEO-8 with alternating
    diagonals) and have reach above 0.

    Returns
    -------
    (bool, list of str, str)
        Flanking, rule ids, and the reason.
    """
    grid = built.scene.grid
    tb = built.token_boxes[target.id]
    for who in (attacker, ally):
        if who.reach <= 0:
            return False, ["SF-FLK-1"], f"{who.id} has 0 reach and cannot flank."
        dist = space_distance(built.token_boxes[who.id], tb, grid.size, grid.distance, DIAGONALS)
        if dist > who.reach:
            return (
                False,
                ["SF-FLK-1"],
                (
                    f"{who.id} does not threaten {target.id} ({dist:g} {grid.units} > reach "
                    f"{who.reach:g})."
                ),
            )
    for ca in _square_centres(built.token_boxes[attacker.id], grid.size):
        for cb in _square_centres(built.token_boxes[ally.id], grid.size):
            if _opposite_sides(ca, cb, tb):
                return True, ["SF-FLK-1"], "The line between them crosses opposite sides."
    return False, ["SF-FLK-1"], "No line between their squares crosses opposite sides."


def _square_centres(
    box: tuple[float, float, float, float], size: float
) -> list[tuple[float, float]]:
    x0, y0, x1, y1 = box
    nx = max(1, math.ceil((x1 - x0) / size - SQUARE_COUNT_TOL))
    ny = max(1, math.ceil((y1 - y0) / size - SQUARE_COUNT_TOL))
    w = (x1 - x0) / nx
    h = (y1 - y0) / ny
    return [(x0 + (i + 0.5) * w, y0 + (j + 0.5) * h) for i in range(nx) for j in range(ny)]


def _opposite_sides(
    a: tuple[float, float], b: tuple[float, float], box: tuple[float, float, float, float]
) -> bool:
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
