"""GEO-8 on hexes for many pairs at once: ``footprint_distances`` against a reference.

RULES.md GEO-8: distance counts the spaces a move crosses from a space of one creature to
a space of the other (adjacent creatures 1 hex apart, overlapping ones 0). FORMATS.md A.2
and pitfall 12: Foundry's hex grids are HEXODDR/HEXEVENR (``hex-row``, pointy, rows
offset) and HEXODDQ/HEXEVENQ (``hex-col``, flat, columns offset). The reference here
reads each hex of a footprint back to Foundry offset coordinates (row ``i``, column
``j``) from its centre in px, converts them to cube coordinates by the red blob formulas
(``tests.engine.test_grids.offset_cube``) and takes the smallest cube distance over every
pair of hexes, with no rim, no grouping and no axial arithmetic of the product.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from service.engine import grids
from service.engine.scene import build_scene
from service.model import Grid, Token
from service.senses.distances import distance_units, pair_distances
from tests.engine.test_grids import (
    cube_distance,
    hex_grid,
    hex_tok,
    offset_cube,
    scene,
)

SQRT3 = math.sqrt(3)
HEX_KINDS = [
    pytest.param(False, False, id="hex-row odd (HEXODDR)"),
    pytest.param(False, True, id="hex-row even (HEXEVENR)"),
    pytest.param(True, False, id="hex-col odd (HEXODDQ)"),
    pytest.param(True, True, id="hex-col even (HEXEVENQ)"),
]


def _offset_of(x: float, y: float, columns: bool, even: bool) -> tuple[int, int]:
    """Foundry offset (row i, column j) of the hex centred at (x, y) px, size 100."""
    if columns:
        j = round((x * SQRT3 / 200 - 0.5) / 0.75)
        shifted = (j % 2 == 1) != even
        i = round(y / 100 - (0.5 if shifted else 0.0))
    else:
        i = round((y * SQRT3 / 200 - 0.5) / 0.75)
        shifted = (i % 2 == 1) != even
        j = round(x / 100 - (0.5 if shifted else 0.0))
    return i, j


def _reference(cells_a: np.ndarray, cells_b: np.ndarray, g: Grid, columns: bool, even: bool) -> int:
    """Smallest cube distance between the two footprints' hexes, via offset coordinates."""
    lat = grids.lattice(g)
    assert lat is not None

    def cubes(cells: np.ndarray) -> list[tuple[int, int, int]]:
        return [
            offset_cube(*_offset_of(x, y, columns, even), columns, even)
            for x, y in lat.centres(cells).tolist()
        ]

    ca, cb = cubes(cells_a), cubes(cells_b)
    return min(cube_distance(a, b) for a in ca for b in cb)


def _random_tokens(rng: random.Random, n: int, columns: bool, even: bool) -> list[dict]:
    sizes = [0.5, 1, 1, 1, 2, 3, 4, 5, 2.5]
    out = []
    for k in range(n):
        t = hex_tok(f"t{k}", rng.randrange(0, 14), rng.randrange(0, 14), columns, even,
                    rng.choice(sizes))  # fmt: skip
        t["x"] += rng.uniform(-20, 20)  # off the lattice: the shape snaps (FORMATS A.4)
        t["y"] += rng.uniform(-20, 20)
        t["elevation"] = rng.choice([0, 0, 0, 5, 15])
        out.append(t)
    return out


@pytest.mark.parametrize(("columns", "even"), HEX_KINDS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_many_pairs_match_the_offset_reference(columns, even, seed):
    """GEO-8: every pair of a 14-token matrix, in one call, equals the reference.

    Random sizes (tiny to 5 by 5, non-whole too), random places, overlaps included; the
    flat distance is the reference's hexes times 5 ft, and the elevation is combined as
    ``distance_units`` does pair by pair (the one-pair path).
    """
    rng = random.Random(seed * 10 + columns * 2 + even)
    g = hex_grid(columns, even, diagonals="alternating")
    sc = scene(g, _random_tokens(rng, 14, columns, even))
    built = build_scene(sc)
    tokens = list(sc.tokens)
    pairs = [(a, b) for a in tokens for b in tokens if a.id != b.id]
    index = {t.id: k for k, t in enumerate(tokens)}
    ends = np.array([[index[a.id], index[b.id]] for a, b in pairs], dtype=np.intp)
    got = pair_distances(built, pairs, "alternating", (tokens, ends))
    prints = [grids.footprint(t, sc.grid) for t in tokens]
    flat = grids.footprint_distances(prints, ends)
    for k, (a, b) in enumerate(pairs):
        hexes = _reference(prints[ends[k, 0]], prints[ends[k, 1]], sc.grid, columns, even)
        assert flat[k] == hexes, (a.id, b.id)
        if a.elevation == b.elevation:
            assert got[k] == 5 * hexes
        assert got[k] == distance_units(built, a, b, "alternating")


@pytest.mark.parametrize(("columns", "even"), HEX_KINDS)
def test_one_inside_another_is_zero(columns, even):
    """GEO-8: a creature standing inside a big one's space is 0 hexes from it (overlap).

    The small token's hex lies inside the big one's rim, so the rims alone never meet.
    """
    g = Grid(**hex_grid(columns, even))
    lat = grids.lattice(g)
    assert lat is not None
    big = Token(id="big", x=0, y=0, width=7, height=7)
    cells = grids.footprint(big, g)
    inner = cells[np.argmin(np.abs(cells - cells.mean(axis=0).round()).sum(axis=1))]
    assert inner.tolist() not in grids.footprint_rim(cells).tolist()
    small = np.array([inner], dtype=np.int64)
    ends = np.array([[0, 1], [1, 0]], dtype=np.intp)
    assert grids.footprint_distances([cells, small], ends).tolist() == [0, 0]


def test_rim_drops_only_surrounded_hexes():
    """A 7-hex hexagon's rim is its six outer hexes; a line of hexes is all rim."""
    ring = np.array([[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1], [1, -1], [-1, 1]])
    assert sorted(grids.footprint_rim(ring).tolist()) == sorted(ring[1:].tolist())
    line = np.array([[k, 0] for k in range(9)])
    assert len(grids.footprint_rim(line)) == 9
