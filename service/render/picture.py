""":func:`render_svg`: the whole SVG document of a scene, its traced lines and caption.

Frame: the SVG user space is the scene's pixel frame (y down), so every coordinate of the
scene and of the answers is drawn as is.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import Any

from service.model import Scene
from service.render.frame import scene_box
from service.render.layers import draw_lights, draw_lines, draw_regions, draw_tokens, draw_walls
from service.render.legend import draw_band, legend_entries
from service.render.styles import BACKGROUND
from service.render.svg import SVG_NS, num, sub, xml_text


def render_svg(
    scene: Scene,
    *,
    lines: Iterable[Any] = (),
    caption: str | None = None,
    highlight: Iterable[str] = (),
) -> str:
    """Draw ``scene`` (and traced lines) as an SVG document.

    Parameters
    ----------
    scene : service.model.Scene
        Positions in px (y down), radii in grid units.
    lines : iterable
        Traced lines to draw: ``service.rules.base.TracedLine`` objects (``start``,
        ``end``, ``blocked``, ``blockers``) or the API's line dicts (``from``, ``to``,
        ``blocked``, ``blockers``); blocked ones red, clear ones green.
    caption : str, optional
        The answer, written in a band above the scene (with a legend of what is drawn).
    highlight : iterable of str
        Token ids to outline. With two or more, the first is drawn as the source of the
        query (attacker or observer, orange) and the others as its targets (pink).

    Returns
    -------
    str
        The SVG document. Its ``viewBox`` is the scene area (``0 0 width height`` when the
        scene gives its size, else the bounding box of its contents plus one square),
        extended upward by the caption band when there is a caption or a legend.
    """
    lines = list(lines)
    box = scene_box(scene, lines)
    x0, y0, x1, y1 = box
    big = max(x1 - x0, y1 - y0)
    # px per stroke unit: a normal wall is 1/20 of a square, and at least 1/500 of the
    # picture so that walls stay visible when a large map is shown whole.
    unit = max(scene.grid.size / 20, big / 500)
    scene_band = max(big / 14, scene.grid.size * 0.8)

    root = ET.Element("svg", {"xmlns": SVG_NS, "version": "1.1"})
    defs = sub(root, "defs")
    if scene.grid.type == "square":
        size = scene.grid.size
        pattern = sub(
            defs,
            "pattern",
            {
                "id": "grid",
                "width": num(size),
                "height": num(size),
                "patternUnits": "userSpaceOnUse",
            },
        )
        sub(
            pattern,
            "path",
            {
                "d": f"M{num(size)} 0H0V{num(size)}",
                "fill": "none",
                "stroke": "#000000",
                "stroke-opacity": "0.12",
                "stroke-width": num(max(size / 100, 0.5)),
            },
        )
    area = {"x": num(x0), "y": num(y0), "width": num(x1 - x0), "height": num(y1 - y0)}
    sub(root, "rect", {"id": "background", **area, "fill": BACKGROUND[scene.environment.light]})
    if scene.grid.type == "square":
        sub(root, "rect", {"id": "grid-lines", **area, "fill": "url(#grid)"})

    region_kinds = draw_regions(root, scene, unit)
    draw_lights(root, scene, unit)
    wall_kinds = draw_walls(root, scene, unit)
    highlight = list(dict.fromkeys(highlight))
    draw_tokens(root, scene, unit, highlight)
    draw_lines(root, lines, unit)

    legend = legend_entries(wall_kinds, region_kinds, lines, unit, scene, len(highlight))
    band = scene_band if (caption or legend) else 0.0
    if band:
        draw_band(root, box, band, caption, legend)
    root.set("viewBox", f"{num(x0)} {num(y0 - band)} {num(x1 - x0)} {num(y1 - y0 + band)}")
    if caption:
        title = ET.Element("title")
        title.text = xml_text(caption)
        root.insert(0, title)
    return ET.tostring(root, encoding="unicode")
