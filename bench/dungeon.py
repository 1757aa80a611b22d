"""Synthetic dungeon scenes for benchmarks: rooms of 100-px wall pieces, doors, tokens.

``dungeon(n_walls, n_tokens, seed)`` returns a canonical scene dict (grid 100 px = 5 ft):
square rooms of 8x8 squares laid out in a grid, walls cut into 100-px pieces, one door
(every other one open) in the middle of each room's east and south walls, and tokens placed
in random squares of the rooms.
"""

from __future__ import annotations

import math
import random
from typing import Any

ROOM = 8  # squares per room side
SIZE = 100  # px per square


def dungeon(n_walls: int, n_tokens: int, seed: int = 1) -> dict[str, Any]:
    """A dungeon scene with about ``n_walls`` walls and ``n_tokens`` tokens."""
    rng = random.Random(seed)
    per_room = 2 * ROOM  # each room owns its north and west walls (8 pieces each)
    rooms = max(1, n_walls // per_room)
    side = math.ceil(math.sqrt(rooms))
    walls: list[dict[str, Any]] = []
    for r in range(side + 1):
        for c in range(side + 1):
            x0, y0 = c * ROOM * SIZE, r * ROOM * SIZE
            for k in range(ROOM):
                if c < side:  # north wall of room (r, c)
                    door = k == ROOM // 2 and 0 < r < side
                    walls.append(
                        _wall(len(walls), x0 + k * SIZE, y0, x0 + (k + 1) * SIZE, y0, door)
                    )
                if r < side:  # west wall
                    door = k == ROOM // 2 and 0 < c < side
                    walls.append(
                        _wall(len(walls), x0, y0 + k * SIZE, x0, y0 + (k + 1) * SIZE, door)
                    )
            if len(walls) >= n_walls:
                break
        if len(walls) >= n_walls:
            break
    extent = side * ROOM
    tokens = []
    taken: set[tuple[int, int]] = set()
    while len(tokens) < n_tokens:
        cell = (rng.randrange(extent), rng.randrange(extent))
        if cell in taken:
            continue
        taken.add(cell)
        tokens.append({"id": f"t{len(tokens)}", "x": cell[0] * SIZE, "y": cell[1] * SIZE})
    return {
        "grid": {"size": SIZE, "distance": 5},
        "width": extent * SIZE,
        "height": extent * SIZE,
        "walls": walls[:n_walls],
        "tokens": tokens,
    }


def _wall(i: int, x0: float, y0: float, x1: float, y1: float, door: bool) -> dict[str, Any]:
    w: dict[str, Any] = {"id": f"w{i}", "c": [x0, y0, x1, y1]}
    if door:
        w["door"] = "door"
        w["door_state"] = "open" if i % 2 else "closed"
    return w
