"""The compiled walk's grid, and whole matrices equal on the compiled path and its oracle."""

from __future__ import annotations

import numpy as np
import pytest

from bench.dungeon import dungeon
from schemas.scene import SceneSchema
from service import rules
from service.engine.scene import build_scene
from service.engine.walls import build_grid, build_wall_index
from service.geometry.trace import trace
from service.matrix import matrix
from tests.kernel_paths import kernel_mode


def test_grid_built_on_first_trace_only():
    geo = SceneSchema().load(dungeon(200, 2))
    index = build_wall_index(geo)
    assert index.grid is None  # ingest does not pay for it
    trace(index, [[5, 5, 700, 420]])
    grid = index.grid
    assert grid is not None
    trace(index, [[5, 5, 700, 420]])
    assert index.grid is grid  # built once


@pytest.mark.parametrize("seed", range(5))
def test_grid_lists_each_wall_in_every_cell_its_box_meets(seed):
    rng = np.random.default_rng(seed)
    coords = np.round(rng.uniform(-500, 3000, (300, 4)) * rng.uniform(0, 1, (300, 1)))
    coords[:20, 2:4] = coords[:20, 0:2] + rng.uniform(0, 40, (20, 2))  # short ones
    g = build_grid(coords)
    assert g.start[0] == 0 and g.start[-1] == len(g.walls)
    for w, (x0, y0, x1, y1) in enumerate(g.boxes):
        ix = np.clip(np.floor((np.array([x0, x1]) - g.x0) / g.cell), 0, g.nx - 1).astype(int)
        iy = np.clip(np.floor((np.array([y0, y1]) - g.y0) / g.cell), 0, g.ny - 1).astype(int)
        for cy in range(iy[0], iy[1] + 1):
            for cx in range(ix[0], ix[1] + 1):
                c = cy * g.nx + cx
                assert w in g.walls[g.start[c] : g.start[c + 1]]
    assert len(g.walls) <= 8 * len(coords) + 1024


@pytest.mark.parametrize("system", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize("kind", ["cover", "vision"])
def test_matrices_equal_on_both_paths(system, kind):
    geo = build_scene(SceneSchema().load(dungeon(400, 10, seed=3)))
    got = matrix(geo, rules.get(system), None, kind, {})
    with kernel_mode("numpy"):
        ref = matrix(
            build_scene(SceneSchema().load(dungeon(400, 10, seed=3))),
            rules.get(system),
            None,
            kind,
            {},
        )
    assert got == ref
