"""The band above a picture: the caption (the answer) and a legend of what is drawn.

Text sizes come from the picture's :class:`~service.render.frame.Scale`: the caption is
:data:`~service.render.frame.CAPTION_TEXT_PX` and the legend
:data:`~service.render.frame.LEGEND_TEXT_PX` output px high at any scene size; a caption
too long for one line is wrapped (never shrunk), and legend entries flow onto more rows.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from service.model import Scene
from service.render.frame import Scale, line_parts
from service.render.styles import (
    BLOCKED_COLOUR,
    CLEAR_COLOUR,
    LIGHT_DIM,
    LIGHT_OFF,
    LIGHT_PRIVATE,
    REGION_LEGEND,
    REGION_LIGHT,
    SOURCE_COLOURS,
    TARGET_COLOURS,
    WALL_STYLES,
    wall_stroke,
)
from service.render.svg import num, sub, xml_text

#: Width of a character, in em, to wrap and flow text (sans-serif; bold caption).
CAPTION_EM = 0.6
LEGEND_EM = 0.55


def wrap(text: str, per_line: int) -> list[str]:
    """``text`` cut into lines of at most ``per_line`` characters, at spaces where it can."""
    per_line = max(per_line, 8)
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        while len(word) > per_line:
            if current:
                lines.append(current)
                current = ""
            lines.append(word[:per_line])
            word = word[per_line:]
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= per_line:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current or not lines:
        lines.append(current)
    return lines


def _legend_flow(
    legend: Sequence[tuple[str, dict[str, object]]], width: float, small: float, pad: float
) -> tuple[list[tuple[float, int]], int]:
    """X offset and row of each legend entry in a band ``width`` px wide; number of rows."""
    sample = small * 2.2
    x, row = pad, 0
    out: list[tuple[float, int]] = []
    for label, _ in legend:
        need = sample + small * 0.9 + LEGEND_EM * small * len(label) + small * 1.5
        if x + need > width and x > pad:
            x, row = pad, row + 1
        out.append((x, row))
        x += need
    return out, row + 1 if legend else 0


def band_height(
    width: float,
    scale: Scale,
    caption: str | None,
    legend: Sequence[tuple[str, dict[str, object]]],
) -> float:
    """Height (px) of the caption band.

    Height (px) of the band that holds ``caption`` and ``legend`` over a scene ``width``
    px wide; 0 when there is neither.
    """
    if not caption and not legend:
        return 0.0
    font, small = scale.caption, scale.legend
    pad = font * 0.6
    height = pad
    if caption:
        lines = wrap(xml_text(caption), int((width - 2 * pad) / (CAPTION_EM * font)))
        height += len(lines) * font * 1.25 + pad * 0.5
    _, rows = _legend_flow(legend, width, small, pad)
    height += rows * small * 1.6 + pad
    return height


def draw_band(
    root: ET.Element,
    box: tuple[float, float, float, float],
    band: float,
    scale: Scale,
    caption: str | None,
    legend: list[tuple[str, dict[str, object]]],
) -> None:
    """Draw the caption and the legend.

    Caption and legend in the band of height ``band`` px (:func:`band_height`) above the
    scene area. The caption is one ``<text>`` with one ``<tspan>`` per wrapped line.
    """
    x0, y0, x1, _ = box
    width = x1 - x0
    top = y0 - band
    group = sub(root, "g", {"id": "caption"})
    sub(
        group,
        "rect",
        {"x": num(x0), "y": num(top), "width": num(width), "height": num(band), "fill": "#ffffff"},
    )
    font, small = scale.caption, scale.legend
    pad = font * 0.6
    y = top + pad
    if caption:
        text = xml_text(caption)
        lines = wrap(text, int((width - 2 * pad) / (CAPTION_EM * font)))
        node = sub(
            group,
            "text",
            {
                "x": num(x0 + pad),
                "y": num(y + font),
                "font-size": num(font),
                "font-family": "sans-serif",
                "font-weight": "bold",
                "fill": "#111111",
            },
        )
        for k, line in enumerate(lines):
            span = sub(node, "tspan", {"x": num(x0 + pad), "y": num(y + font + k * font * 1.25)})
            span.text = line if k == len(lines) - 1 else line + " "
        y += len(lines) * font * 1.25 + pad * 0.5
    if not legend:
        return
    sample = small * 2.2
    legend_group = sub(group, "g", {"id": "legend"})
    places, _ = _legend_flow(legend, width, small, pad)
    for (label, stroke), (dx, row) in zip(legend, places, strict=True):
        x = x0 + dx
        base = y + small + row * small * 1.6
        sub(
            legend_group,
            "path",
            {"d": f"M{num(x)} {num(base - small * 0.35)}h{num(sample)}", **stroke},
        )
        label_node = sub(
            legend_group,
            "text",
            {
                "x": num(x + sample + small * 0.9),
                "y": num(base),
                "font-size": num(small),
                "font-family": "sans-serif",
                "fill": "#333333",
            },
        )
        label_node.text = xml_text(label)


Entry = tuple[str, dict[str, object]]


def legend_entries(
    wall_kinds: set[str],
    region_kinds: set[str],
    light_kinds: set[str],
    lines: Sequence[Any],
    scale: Scale,
    scene: Scene,
    highlighted: int,
    outline: bool = False,
) -> list[Entry]:
    """Legend entries for what the picture holds: (label, stroke attributes of its sample).

    Wall kinds are named by what they block (GEO-1), e.g. ``"window: blocks movement, not
    sight"``; regions by obscurement and light (GEO-9); lights lit, off or private;
    ``outline``: the map's outline, when something is drawn outside it (a cropped map).
    """
    unit = scale.unit
    # Samples are at least a few output px thick, whatever the stroke unit.
    thick = num(max(2 * unit, 6 / scale.out))
    out = [
        *_highlight_entries(highlighted, thick),
        *_line_entries(lines, num(0.8 * unit)),
        *_wall_entries(wall_kinds, scene, unit),
        *_region_entries(region_kinds, thick),
        *_light_entries(light_kinds, unit, thick),
    ]
    if outline:
        edge: dict[str, object] = {
            "stroke": "#37474f",
            "stroke-width": num(0.6 * unit),
            "stroke-dasharray": f"{num(3 * unit)} {num(1.5 * unit)}",
        }
        out.append(("map outline (scene width × height)", edge))
    return out


def _highlight_entries(highlighted: int, thick: str) -> list[Entry]:
    """``from`` and ``to`` for two highlighted tokens or more, else ``highlighted`` for one."""
    if highlighted >= 2:
        return [
            (label, {"stroke": colours[0], "stroke-width": thick})
            for label, colours in (("from", SOURCE_COLOURS), ("to", TARGET_COLOURS))
        ]
    if highlighted:
        return [("highlighted", {"stroke": TARGET_COLOURS[0], "stroke-width": thick})]
    return []


def _line_entries(lines: Sequence[Any], width: str) -> list[Entry]:
    """The clear and the blocked traced line, for those the picture draws."""
    blocked = {line_parts(line)[2] for line in lines}
    out: list[Entry] = []
    if False in blocked:
        out.append(("clear line", {"stroke": CLEAR_COLOUR, "stroke-width": width}))
    if True in blocked:
        out.append(("blocked line", {"stroke": BLOCKED_COLOUR, "stroke-width": width}))
    return out


def _wall_entries(wall_kinds: set[str], scene: Scene, unit: float) -> list[Entry]:
    """The wall kinds drawn (GEO-1), and the one-way tick when a wall is one-way (GEO-3)."""
    out = [
        (style.label, wall_stroke(style, unit))
        for kind, style in WALL_STYLES.items()
        if kind in wall_kinds
    ]
    if any(w.direction != "both" for w in scene.walls):
        out.append(("tick: one-way wall's blocking side", wall_stroke(WALL_STYLES["normal"], unit)))
    return out


def _region_entries(region_kinds: set[str], thick: str) -> list[Entry]:
    """The regions drawn: obscurement kinds, then light levels (GEO-9)."""
    out: list[Entry] = [
        (label, {"stroke": fill, "stroke-width": thick, "stroke-opacity": "0.5"})
        for kind, (fill, label) in REGION_LEGEND.items()
        if kind in region_kinds
    ]
    out += [
        (label, {"stroke": fill, "stroke-width": thick, "stroke-opacity": "0.6"})
        for level, (fill, _, label) in REGION_LIGHT.items()
        if f"light-{level}" in region_kinds
    ]
    return out


def _light_entries(light_kinds: set[str], unit: float, thick: str) -> list[Entry]:
    """The lights drawn: lit, darkness, private (dashed) and switched off."""
    out: list[Entry] = []
    if light_kinds & {"lit", "private"}:
        glow: dict[str, object] = {
            "stroke": LIGHT_DIM,
            "stroke-width": thick,
            "stroke-opacity": "0.8",
        }
        out.append(("light: bright / dim, as walls let it", glow))
    if "darkness" in light_kinds:
        dark: dict[str, object] = {
            "stroke": "#000000",
            "stroke-width": thick,
            "stroke-opacity": "0.4",
        }
        out.append(("darkness source", dark))
    if "private" in light_kinds:
        dashed: dict[str, object] = {
            "stroke": LIGHT_PRIVATE,
            "stroke-width": num(0.5 * unit),
            "stroke-dasharray": f"{num(2 * unit)} {num(unit)}",
        }
        out.append(("private light (its controllers only)", dashed))
    if "off" in light_kinds:
        off: dict[str, object] = {
            "stroke": LIGHT_OFF,
            "stroke-width": num(0.4 * unit),
            "stroke-dasharray": f"{num(1.5 * unit)} {num(1.5 * unit)}",
        }
        out.append(("light switched off: its source crossed out", off))
    return out
