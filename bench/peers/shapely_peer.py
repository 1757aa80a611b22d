"""The shapely one-call peer (issue 20): every corner line of every pair in one query.

A competent shapely implementation of the dnd5e cover matrix: an ``STRtree`` of the walls
that block (``corners.blocking_walls``), every paired-corner line of every ordered pair
(``corners.corner_segments``) queried at once with ``predicate="intersects"`` (GEOS's exact
test of closed segments: a free wall tip, a junction or a wall run along counts as a
crossing), then the blocked lines counted per pair and mapped with 5E-COV-5's table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

from bench.peers.corners import blocking_walls, corner_segments, matrix_of


def blocked_lines(segments: np.ndarray, walls: np.ndarray) -> np.ndarray:
    """Whether each segment (s, 4) px meets any wall (w, 4) px, shape (s,) bool."""
    blocked = np.zeros(len(segments), dtype=bool)
    if len(walls) == 0 or len(segments) == 0:
        return blocked
    tree = shapely.STRtree(shapely.linestrings(walls.reshape(-1, 2, 2)))
    lines = shapely.linestrings(segments.reshape(-1, 2, 2))
    hit = tree.query(lines, predicate="intersects")[0]
    blocked[hit] = True
    return blocked


def cover_matrix(scene: dict[str, Any]) -> dict[str, Any]:
    """``{"tokens", "cover"}``: the peer's dnd5e cover degree of every ordered pair."""
    ids, segments = corner_segments(scene)
    return matrix_of(ids, blocked_lines(segments, blocking_walls(scene)))
