""":func:`render_svg`: the whole SVG document of a scene, its traced lines and caption.

Frame: the SVG user space is the scene's pixel frame (y down), so every coordinate of the
scene and of the answers is drawn as is. The document's ``width`` and ``height`` (output
px) come from :func:`~service.render.frame.picture_scale`; every text and stroke is sized
from that output scale, with a minimum, so labels stay readable at any grid size.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from typing import Any

from shapely.geometry import LineString

from service.engine.regions import region_geometry
from service.model import Level, Scene, Span
from service.render.floors import draw_floor, draw_other_floors, level_text, split_floor
from service.render.frame import Scale, height_text, line_parts, picture_scale, scene_box
from service.render.layers import (
    draw_height_labels,
    draw_lights,
    draw_lines,
    draw_map_outline,
    draw_regions,
    draw_token_labels,
    draw_tokens,
    draw_walls,
)
from service.render.legend import band_height, draw_band, legend_entries
from service.render.styles import BACKGROUND
from service.render.svg import SVG_NS, num, sub, xml_text


def _hex_d(cx: float, cy: float, r: float, pointy: bool) -> str:
    """Outline of a regular hexagon of circumradius ``r`` px centred at ``(cx, cy)``."""
    start = 90.0 if pointy else 0.0
    pts = [
        (
            cx + r * math.cos(math.radians(start + 60 * k)),
            cy + r * math.sin(math.radians(start + 60 * k)),
        )
        for k in range(6)
    ]
    return "M" + "L".join(f"{num(x)} {num(y)}" for x, y in pts) + "Z"


def _grid_pattern(defs: ET.Element, scene: Scene, scale: Scale) -> bool:
    """Add ``<pattern id="grid">`` for a square or hex grid; False on a gridless scene.

    Square: cells of ``grid.size`` px. ``hex-row``: pointy-topped hexagons ``grid.size`` px
    across their flat sides (the px between adjacent centres), rows offset; ``hex-col``:
    flat-topped, columns offset. Cells start at the scene's (0, 0), as
    ``service.engine`` lays them.
    """
    grid = scene.grid
    size = grid.size
    stroke = {
        "fill": "none",
        "stroke": "#000000",
        "stroke-opacity": "0.14",
        "stroke-width": num(max(size / 100, 0.8 / scale.out)),
    }
    if grid.type == "gridless":
        return False
    if grid.type == "square":
        tile = (size, size)
        paths = [f"M{num(size)} 0H0V{num(size)}"]
    else:
        r = size / math.sqrt(3)  # circumradius of a hexagon ``size`` across its flat sides
        pointy = grid.type == "hex-row"
        centres = [(size / 2, r), (size / 2, 4 * r), (0, 2.5 * r), (size, 2.5 * r)]
        centres += [(0, -0.5 * r), (size, -0.5 * r)]
        if pointy:
            tile = (size, 3 * r)
        else:
            tile = (3 * r, size)
            centres = [(y, x) for x, y in centres]
        paths = [_hex_d(cx, cy, r, pointy) for cx, cy in centres]
    # The lattice starts at the scene's (0, 0) (docs/decisions.md "Hex grids"): hex-row's
    # row 0 and hex-col's column 0 have a hex centred on the axis unless even rows
    # (columns) are the shifted ones (``grid.hex_offset``, "odd" when the model has none).
    ox = oy = 0.0
    if grid.type != "square":
        odd = grid.hex_offset != "even"
        if grid.type == "hex-row":
            ox = size / 2 if odd else 0.0
        else:
            oy = size / 2 if odd else 0.0
    pattern = sub(
        defs,
        "pattern",
        {
            "id": "grid",
            "class": f"grid-{grid.type}",
            "x": num(ox % tile[0]),
            "y": num(oy % tile[1]),
            "width": num(tile[0]),
            "height": num(tile[1]),
            "patternUnits": "userSpaceOnUse",
        },
    )
    for d in paths:
        sub(pattern, "path", {"d": d, **stroke})
    return True


def deciding_heights(
    scene: Scene, lines: Sequence[Any]
) -> list[tuple[str, str, float, float, str]]:
    """Blockers whose height range decides a traced line (GEO-5).

    Every wall with a
    ``height`` and every region with an ``elevation`` that a traced line crosses in 2-D
    (the height is what lets the line pass over or under it, or not).

    Returns ``(kind, id, x, y, text)``: ``kind`` ``"wall"`` or ``"region"``, the point
    (px) where the first such line crosses it, and its range (``"0–10 ft"``).
    """
    if not lines:
        return []
    units = scene.grid.units
    segments = []
    for line in lines:
        start, end, _, _ = line_parts(line)
        if start != end:
            segments.append(LineString([start, end]))
    obstacles: list[tuple[str, str, Any, Span]] = [
        ("wall", w.id, LineString([w.c[:2], w.c[2:]]), w.height)
        for w in scene.walls
        if w.height is not None
    ]
    obstacles += [
        ("region", r.id, region_geometry(r.shape), r.elevation)
        for r in scene.regions
        if r.elevation is not None
    ]
    out: list[tuple[str, str, float, float, str]] = []
    for kind, oid, geometry, span in obstacles:
        for seg in segments:
            crossing = seg.intersection(geometry)
            if not crossing.is_empty:
                p = crossing.representative_point()
                out.append((kind, oid, p.x, p.y, height_text(span.bottom, span.top, units)))
                break
    return out


def _draw_ground(
    root: ET.Element, scene: Scene, scale: Scale, box: tuple[float, float, float, float]
) -> None:
    """The background of ``box`` (coloured by the scene's light) and its grid lines."""
    x0, y0, x1, y1 = box
    gridded = _grid_pattern(sub(root, "defs"), scene, scale)
    area = {"x": num(x0), "y": num(y0), "width": num(x1 - x0), "height": num(y1 - y0)}
    sub(root, "rect", {"id": "background", **area, "fill": BACKGROUND[scene.environment.light]})
    if gridded:
        sub(root, "rect", {"id": "grid-lines", **area, "fill": "url(#grid)"})


def _draw_level(
    root: ET.Element, scene: Scene, scale: Scale, level: Level, caption: str | None
) -> tuple[Scene, str]:
    """The other floors faded and the level's floor drawn; its scene and caption (GEO-10)."""
    split = split_floor(scene, level)
    root.set("data-level", level.id)
    draw_other_floors(root, split.others, scale)
    draw_floor(root, split.on, scale)
    words = level_text(scene, level)
    return split.on, f"{caption} · {words}" if caption else words


def _outlined(scene: Scene, whole: tuple[float, float, float, float]) -> bool:
    """Whether the map's outline is worth a legend entry: something lies outside it."""
    size = (0.0, 0.0, float(scene.width or 0), float(scene.height or 0))
    return bool(scene.width and scene.height) and whole != size


def render_svg(
    scene: Scene,
    *,
    lines: Iterable[Any] = (),
    caption: str | None = None,
    highlight: Iterable[str] = (),
    show_heights: Iterable[str] = (),
    view: tuple[float, float, float, float] | None = None,
    chat: bool = False,
    level: Level | None = None,
) -> str:
    """Draw ``scene`` (and traced lines) as an SVG document.

    Parameters
    ----------
    scene : service.model.Scene
        Positions in px (y down), radii in grid units.
    lines : iterable
        Traced lines to draw: ``service.rules.base.TracedLine`` objects (``start``,
        ``end``, ``blocked``, ``blockers``) or the API's line dicts (``from``, ``to``,
        ``blocked``, ``blockers``); blocked ones red, clear ones green. Walls and regions
        with a height range that they cross get a label with that range (GEO-5).
    caption : str, optional
        The answer, written in a band above the scene (with a legend of what is drawn).
    highlight : iterable of str
        Token ids to outline. With two or more, the first is drawn as the source of the
        query (attacker or observer, orange) and the others as its targets (pink).
    show_heights : iterable of str
        Token ids labelled with their vertical extent (GEO-5a) even at elevation 0.
    view, chat
        ``(x0, y0, x1, y1)`` px drawn instead of the scene's area (``viewpoint.frame``);
        drawn at a chat card's size (``frame.picture_scale``).
    level : service.model.Level, optional
        The one floor drawn, the others faded (``service.render.floors``, GEO-10).

    Returns
    -------
    str
        The SVG document. Its ``viewBox`` is the scene area (``0 0 width height`` when the
        scene gives its size, grown to what lies outside it, else the bounding box of its
        contents plus one square), extended upward by the caption band when there is a
        caption or a legend; its ``width`` and ``height`` are the output size in px.
    """
    lines = list(lines)
    whole = scene_box(scene, lines)
    box = whole if view is None else view
    x0, y0, x1, y1 = box
    scale = picture_scale(box, scene.grid.size, chat=chat)

    root = ET.Element("svg", {"xmlns": SVG_NS, "version": "1.1"})
    _draw_ground(root, scene, scale, box)
    if level is not None:
        scene, caption = _draw_level(root, scene, scale, level, caption)
    region_kinds = draw_regions(root, scene, scale)
    light_kinds = draw_lights(root, scene, scale, box)
    draw_map_outline(root, scene, scale)
    wall_kinds = draw_walls(root, scene, scale)
    highlight = list(dict.fromkeys(highlight))
    labels = draw_tokens(root, scene, scale, highlight, list(show_heights))
    draw_lines(root, lines, scale)
    draw_token_labels(root, scene, scale, highlight, labels)
    draw_height_labels(root, deciding_heights(scene, lines), scale)

    kinds = (wall_kinds, region_kinds, light_kinds)
    legend = legend_entries(*kinds, lines, scale, scene, len(highlight), _outlined(scene, whole))
    band = band_height(x1 - x0, scale, caption, legend)
    if band:
        draw_band(root, box, band, scale, caption, legend)
    root.set("viewBox", f"{num(x0)} {num(y0 - band)} {num(x1 - x0)} {num(y1 - y0 + band)}")
    root.set("width", num(round((x1 - x0) * scale.out)))
    root.set("height", num(round((y1 - y0 + band) * scale.out)))
    if caption:
        title = ET.Element("title")
        title.text = xml_text(caption)
        root.insert(0, title)
    return ET.tostring(root, encoding="unicode")
