"""What a picture covers: the drawn area of a scene, the ends of traced lines, token names.

Everything is in the scene's pixel frame (y down).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.model import Region, Scene, Token


def token_name(token: Token) -> str:
    """The name a picture shows for a token: its ``name``, or its id when it has none."""
    return token.name or token.id


def line_parts(line: Any) -> tuple[tuple[float, float], tuple[float, float], bool, list[str]]:
    """Start, end, blocked and blocker ids of a ``TracedLine`` or an API line dict."""
    if isinstance(line, Mapping):
        start, end = line.get("from", line.get("start")), line.get("to", line.get("end"))
        blocked = bool(line.get("blocked"))
        blockers = [str(b.get("id")) for b in line.get("blockers") or ()]
    else:
        start, end, blocked = line.start, line.end, bool(line.blocked)
        blockers = [str(b.id) for b in getattr(line, "blockers", ())]
    return (
        (float(start[0]), float(start[1])),
        (float(end[0]), float(end[1])),
        blocked,
        blockers,
    )


def _region_bounds(region: Region) -> tuple[float, float, float, float]:
    s = region.shape
    if s.type == "rect":
        return (s.x, s.y, s.x + s.width, s.y + s.height)
    if s.type == "circle":
        return (s.x - s.radius, s.y - s.radius, s.x + s.radius, s.y + s.radius)
    xs = [p[0] for p in s.points] or [0.0]
    ys = [p[1] for p in s.points] or [0.0]
    return (min(xs), min(ys), max(xs), max(ys))


def scene_box(scene: Scene, lines: Sequence[Any] = ()) -> tuple[float, float, float, float]:
    """The area drawn, ``(x0, y0, x1, y1)`` px.

    ``(0, 0, width, height)`` when the scene gives its size, grown to include anything
    drawn outside it; else the bounding box of walls, tokens, light centres, regions and
    lines with a margin of one grid square.
    """
    xs: list[float] = []
    ys: list[float] = []
    for w in scene.walls:
        xs += [w.c[0], w.c[2]]
        ys += [w.c[1], w.c[3]]
    for t in scene.tokens:
        x0, y0, x1, y1 = t.box(scene.grid.size)
        xs += [x0, x1]
        ys += [y0, y1]
    for li in scene.lights:
        xs.append(li.x)
        ys.append(li.y)
    for r in scene.regions:
        x0, y0, x1, y1 = _region_bounds(r)
        xs += [x0, x1]
        ys += [y0, y1]
    for line in lines:
        start, end, _, _ = line_parts(line)
        xs += [start[0], end[0]]
        ys += [start[1], end[1]]
    if scene.width and scene.height:
        box = (0.0, 0.0, float(scene.width), float(scene.height))
        if not xs:
            return box
        return (min(box[0], *xs), min(box[1], *ys), max(box[2], *xs), max(box[3], *ys))
    margin = scene.grid.size
    if not xs:
        return (0.0, 0.0, 10 * margin, 10 * margin)
    return (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)
