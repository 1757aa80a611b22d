"""What a picture covers: the drawn area of a scene, the ends of traced lines, token names.

Everything is in the scene's pixel frame (y down).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.model import Region, Scene, Token

#: An area ``(x0, y0, x1, y1)`` px.
Box = tuple[float, float, float, float]


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


#: Longest side of the output picture, px: a small scene is drawn larger, a large map
#: smaller (the SVG's ``width`` and ``height``; its ``viewBox`` stays the scene frame).
OUTPUT_MIN_PX = 1000.0
OUTPUT_MAX_PX = 2400.0
#: Smallest text in output px: token names and labels; legend; caption.
MIN_TEXT_PX = 13.0
LEGEND_TEXT_PX = 15.0
CAPTION_TEXT_PX = 19.0
#: A chat card's picture (``crop``): its longest side and smallest texts, output px. A chat
#: sidebar is about 300 px wide, so the picture is drawn at that size, not shrunk to it.
CHAT_PX = 320.0
CHAT_TEXT_PX = 10.0
CHAT_LEGEND_TEXT_PX = 10.0
CHAT_CAPTION_TEXT_PX = 11.0
#: Width of a normal wall, and of a traced line, in output px, at least.
MIN_WALL_PX = 3.0
MIN_LINE_PX = 3.0


@dataclass(frozen=True)
class Scale:
    """How big a picture is drawn, from its own output scale (not the grid size alone).

    ``out`` is output px per scene px (``width`` attribute / ``viewBox`` width); ``unit`` is
    scene px per stroke unit (a normal wall is one unit wide); ``text``, ``legend`` and
    ``caption`` are the smallest font sizes in scene px, so that text is at least
    :data:`MIN_TEXT_PX`, :data:`LEGEND_TEXT_PX` and :data:`CAPTION_TEXT_PX` output px at any
    grid size (a 35 px Roll20 grid drew 4 px names before).
    """

    out: float
    unit: float
    text: float
    legend: float
    caption: float


def picture_scale(
    box: tuple[float, float, float, float], grid_size: float, *, chat: bool = False
) -> Scale:
    """The :class:`Scale` of a picture of ``box`` (px) on a grid of ``grid_size`` px.

    ``chat``: a chat card's picture, :data:`CHAT_PX` on its longest side, with the chat
    card's text sizes; else :data:`OUTPUT_MIN_PX` to :data:`OUTPUT_MAX_PX`.
    """
    x0, y0, x1, y1 = box
    big = max(x1 - x0, y1 - y0, 1e-6)
    if chat:
        out = CHAT_PX / big
        sizes = (CHAT_TEXT_PX, CHAT_LEGEND_TEXT_PX, CHAT_CAPTION_TEXT_PX)
    else:
        out = min(max(big, OUTPUT_MIN_PX), OUTPUT_MAX_PX) / big
        sizes = (MIN_TEXT_PX, LEGEND_TEXT_PX, CAPTION_TEXT_PX)
    unit = max(grid_size / 20, MIN_WALL_PX / out) if not chat else max(grid_size / 20, 1.5 / out)
    return Scale(
        out=out, unit=unit, text=sizes[0] / out, legend=sizes[1] / out, caption=sizes[2] / out
    )


def height_text(bottom: float | None, top: float | None, units: str) -> str:
    """A height range for a label.

    ``"0–10 ft"``, ``"up to 10 ft"``, ``"from 5 ft up"``
    (a ``None`` bound is unbounded, GEO-5).
    """
    if bottom is None and top is None:
        return "any height"
    if bottom is None:
        return f"up to {top:g} {units}"
    if top is None:
        return f"from {bottom:g} {units} up"
    return f"{bottom:g}–{top:g} {units}"
