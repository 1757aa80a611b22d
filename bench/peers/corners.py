"""What every peer reads the same way: the walls that block, the corner lines, the table.

The peers answer a dnd5e cover matrix the plain way (issue 20):

- walls: those restricting movement (``move`` not ``"none"``), except open doors (GEO-1,
  GEO-2); heights, one-way, limited, proximity and low walls are not read;
- lines: 5E-COV-5 paired corners, corner k (A top-left, B top-right, C bottom-right, D
  bottom-left) of the attacker's space to corner k of the target's, each corner inset
  toward the space's centre by ``DEFAULT_CORNER_INSET_PX`` (0.5 px, GEO-6);
- table: blocked lines of 4 -> 0-1 none, 2 half, 3 three-quarters, 4 total.

Square grids only (no hex corners). Coordinates are px.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.tolerances import DEFAULT_CORNER_INSET_PX

#: 5E-COV-5: blocked paired-corner lines (index, of 4) -> degree.
PAIRED_CORNERS = ("none", "none", "half", "three-quarters", "total")

FloatArray = NDArray[np.float64]


def scene_of(body: dict[str, Any]) -> dict[str, Any]:
    """The canonical scene of a body: ``body["scene"]`` when there is one, else ``body``."""
    scene = body.get("scene", body)
    assert isinstance(scene, dict)
    return scene


def blocks_movement(wall: dict[str, Any]) -> bool:
    """Whether a wall blocks a cover line for the peers: it restricts movement, not an open door."""
    if wall.get("move", "normal") == "none":
        return False
    return not (wall.get("door", "none") != "none" and wall.get("door_state", "closed") == "open")


def blocking_walls(scene: dict[str, Any]) -> FloatArray:
    """The walls that block (``blocks_movement``), shape (w, 4): ``x0, y0, x1, y1`` px."""
    rows = [w["c"] for w in scene["walls"] if blocks_movement(w)]
    return np.array(rows, dtype=np.float64).reshape(-1, 4)


def token_boxes(scene: dict[str, Any]) -> tuple[list[str], FloatArray]:
    """Token ids and boxes, shape (n, 4): ``x, y`` to ``x + width·size, y + height·size``."""
    size = float(scene["grid"]["size"])
    tokens = scene["tokens"]
    boxes = np.array(
        [
            [
                t["x"],
                t["y"],
                t["x"] + t.get("width", 1) * size,
                t["y"] + t.get("height", 1) * size,
            ]
            for t in tokens
        ],
        dtype=np.float64,
    ).reshape(-1, 4)
    return [t["id"] for t in tokens], boxes


def inset_corners(boxes: FloatArray, inset: float = DEFAULT_CORNER_INSET_PX) -> FloatArray:
    """Corners A, B, C, D of each box moved ``inset`` px toward its centre, shape (n, 4, 2)."""
    ix = np.minimum(inset, (boxes[:, 2] - boxes[:, 0]) / 2)
    iy = np.minimum(inset, (boxes[:, 3] - boxes[:, 1]) / 2)
    x0, y0 = boxes[:, 0] + ix, boxes[:, 1] + iy
    x1, y1 = boxes[:, 2] - ix, boxes[:, 3] - iy
    return np.stack(
        [
            np.stack([x0, y0], 1),
            np.stack([x1, y0], 1),
            np.stack([x1, y1], 1),
            np.stack([x0, y1], 1),
        ],
        axis=1,
    )


def ordered_pairs(n: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Attacker and target indices of every ordered pair, row-major, diagonal left out."""
    attackers, targets = np.nonzero(~np.eye(n, dtype=bool))
    return attackers, targets


def corner_segments(scene: dict[str, Any]) -> tuple[list[str], FloatArray]:
    """Token ids and the paired-corner lines of every ordered pair, shape (4·n·(n−1), 4).

    Lines ``4p .. 4p+3`` are pair ``p`` of ``ordered_pairs`` (corners A, B, C, D).
    """
    ids, boxes = token_boxes(scene)
    corners = inset_corners(boxes)
    attackers, targets = ordered_pairs(len(ids))
    segments = np.concatenate([corners[attackers], corners[targets]], axis=2)
    return ids, segments.reshape(-1, 4)


def matrix_of(ids: list[str], blocked: NDArray[np.bool_]) -> dict[str, Any]:
    """``{"tokens", "cover"}`` from each line's blocked flag (in ``corner_segments`` order)."""
    counts = blocked.reshape(-1, 4).sum(axis=1).tolist()
    it = iter(PAIRED_CORNERS[c] for c in counts)
    n = len(ids)
    return {
        "tokens": list(ids),
        "cover": [[None if a == t else next(it) for t in range(n)] for a in range(n)],
    }
