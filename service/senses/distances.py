"""Distances between the spaces of (observer, target) pairs, in grid units (GEO-8).

One pair (``distance_units``) or many at once (``pair_distances``: arrays on squares, each
unordered pair once where the distance is the same both ways), and what the big hex
footprints among them cost the work budget (``big_hexes``, ``HEX_CELL_UNITS``).

References
----------
shared/RULES.md GEO-8; ``service.engine.grids``; ``service.engine.budget``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from service.engine.grids import (
    SMALL_FOOTPRINT,
    counting_box,
    diagonal_rule,
    footprint,
    footprint_distances,
    hex_count,
    is_hex,
    space_distance_units,
    square_distances_units,
)
from service.engine.scene import BuiltScene
from service.engine.tolerances import SQUARE_COUNT_TOL
from service.model import Token


def distance_units(built: BuiltScene, a: Token, b: Token, diagonals: str) -> float:
    """Distance between two tokens' spaces in grid units, with elevation (GEO-8).

    ``service.engine.grids.space_distance_units`` on the scene's grid (squares, hexes or
    gridless ruler), with the scene's diagonal rule when it sets one, else ``diagonals``
    (the ruleset's default). The elevation difference is a third axis under the same rule.
    """
    grid = built.scene.grid
    rule = diagonal_rule(grid, diagonals)
    return space_distance_units(a, b, grid, built.token_boxes, rule)


def big_hexes(built: BuiltScene, pairs: Sequence[tuple[Token, Token]]) -> int:
    """The big footprints' hexes that ``pair_distances`` will compare, summed over the pairs.

    Footprints past ``SMALL_FOOTPRINT`` hexes count (``HEX_CELL_UNITS``); 0 off hexes.
    O(tokens + pairs), no footprint built.
    """
    grid = built.scene.grid
    if not is_hex(grid):
        return 0
    count: dict[str, int] = {}
    for pair in pairs:
        for tok in pair:
            if tok.id not in count:
                k = hex_count(tok, grid)
                count[tok.id] = k if k > SMALL_FOOTPRINT else 0
    return sum(count[a.id] + count[b.id] for a, b in pairs)


def pair_distances(
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    diagonals: str,
    rows: tuple[list[Token], NDArray[np.intp]],
) -> list[float]:
    """``distance_units`` of each pair (GEO-8), each unordered pair of tokens once.

    ``rows``: the pairs' distinct tokens and each pair's two rows among them (p, 2), as
    ``perceive_all`` found them. On squares and gridless scenes the distance between two
    spaces is the same both ways (the gap between them, the elevation difference taken
    whole); on hexes each order is measured (a large footprint is cut to the hexes nearest
    the other's).
    """
    grid = built.scene.grid
    rule = diagonal_rule(grid, diagonals)
    if grid.type == "square" and rule in ("equidistant", "alternating") and pairs:
        # Many pairs at once: each token's counting box once, then arrays.
        tokens, ends = rows
        box = np.array(
            [counting_box(built.token_boxes[t.id], grid) for t in tokens], dtype=np.float64
        )
        z = np.array([t.elevation for t in tokens], dtype=np.float64)
        found = square_distances_units(box[ends[:, 0]], box[ends[:, 1]], z[ends], grid, rule)
        return [float(d) for d in found.tolist()]
    if is_hex(grid) and pairs:
        return _hex_distances(built, rows, rule).tolist()
    both_ways = not is_hex(grid)
    known: dict[tuple[str, str], float] = {}
    out = []
    for a, b in pairs:
        key = (b.id, a.id) if both_ways and b.id < a.id else (a.id, b.id)
        d = known.get(key)
        if d is None:
            d = known[key] = distance_units(built, a, b, diagonals)
        out.append(d)
    return out


def _hex_distances(
    built: BuiltScene, rows: tuple[list[Token], NDArray[np.intp]], rule: str
) -> NDArray[np.float64]:
    """``distance_units`` of every pair on a hex grid in one pass, shape (p,) grid units.

    The hexes between the nearest hexes of the two footprints (``footprint_distances``),
    the elevation difference then combined by ``rule`` as ``space_distance_units`` does
    (``combine_steps``, Pythagoras for ``euclidean``), in the same float arithmetic.
    """
    grid = built.scene.grid
    tokens, ends = rows
    hexes = footprint_distances([footprint(t, grid) for t in tokens], ends)
    flat = hexes.astype(np.float64) * grid.distance
    z = np.array([t.elevation for t in tokens], dtype=np.float64)
    dz = np.abs(z[ends[:, 0]] - z[ends[:, 1]])
    if rule == "euclidean":
        lifted = np.hypot(flat, dz)
    else:
        dx, dy = flat / grid.distance, dz / grid.distance
        diag, straight = np.minimum(dx, dy), np.abs(dx - dy)
        steps = straight + diag
        if rule == "alternating":
            steps = steps + np.floor(diag / 2 + SQUARE_COUNT_TOL)
        lifted = steps * grid.distance
    return np.where(dz == 0, flat, lifted)
