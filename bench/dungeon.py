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


def door_rooms(side: int, n_tokens: int, seed: int = 1, room: int = 6) -> dict[str, Any]:
    """``side`` x ``side`` rooms of ``room`` x ``room`` squares, one door each, an open edge.

    Each room owns its north and west walls in 100-px pieces; one random piece of its four
    sides is left out (its door, open). The east and south edges of the map have no wall
    (the open edge), so rooms there are reached round the outside too. Tokens stand in
    random free squares.
    """
    rng = random.Random(seed)
    doors = {(r, c): rng.randrange(4 * room) for r in range(side) for c in range(side)}
    walls: list[dict[str, Any]] = []

    def piece(x0: float, y0: float, x1: float, y1: float) -> None:
        walls.append({"id": f"w{len(walls)}", "c": [x0, y0, x1, y1]})

    for r in range(side):
        for c in range(side):
            x0, y0, door = c * room * SIZE, r * room * SIZE, doors[r, c]
            for k in range(room):
                if door != k:  # north side
                    piece(x0 + k * SIZE, y0, x0 + (k + 1) * SIZE, y0)
                if door != room + k:  # west side
                    piece(x0, y0 + k * SIZE, x0, y0 + (k + 1) * SIZE)
    extent = side * room
    tokens: list[dict[str, Any]] = []
    taken: set[tuple[int, int]] = set()
    while len(tokens) < min(n_tokens, extent * extent):
        cell = (rng.randrange(extent), rng.randrange(extent))
        if cell not in taken:
            taken.add(cell)
            tokens.append({"id": f"t{len(tokens)}", "x": cell[0] * SIZE, "y": cell[1] * SIZE})
    return {
        "grid": {"size": SIZE, "distance": 5},
        "width": extent * SIZE,
        "height": extent * SIZE,
        "walls": walls,
        "tokens": tokens,
    }


def random_scene(
    n_walls: int, n_tokens: int, seed: int = 1, span: float = 6000.0
) -> dict[str, Any]:
    """``n_walls`` walls of 50-600 px at random over a ``span`` px map, ``n_tokens`` tokens."""
    rng = random.Random(seed)
    walls = []
    for k in range(n_walls):
        x, y, a = rng.uniform(0, span), rng.uniform(0, span), rng.uniform(0, math.pi)
        r = rng.uniform(50, 600)
        c = [round(v, 1) for v in (x, y, x + r * math.cos(a), y + r * math.sin(a))]
        walls.append({"id": f"w{k}", "c": c})
    tokens = [
        {
            "id": f"t{k}",
            "x": round(rng.uniform(0, span - 100)),
            "y": round(rng.uniform(0, span - 100)),
        }
        for k in range(n_tokens)
    ]
    return {"grid": {"size": SIZE, "distance": 5}, "width": span, "height": span,
            "walls": walls, "tokens": tokens}  # fmt: skip
