"""The band above a picture: the caption (the answer) and a legend of what is drawn."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from service.model import Scene
from service.render.frame import line_parts
from service.render.styles import (
    BLOCKED_COLOUR,
    CLEAR_COLOUR,
    SOURCE_COLOURS,
    TARGET_COLOURS,
    WALL_STYLES,
    wall_stroke,
)
from service.render.svg import num, sub, xml_text


def draw_band(
    root: ET.Element,
    box: tuple[float, float, float, float],
    band: float,
    caption: str | None,
    legend: list[tuple[str, dict[str, object]]],
) -> None:
    """Caption and legend in the band of height ``band`` px above the scene area."""
    x0, y0, x1, _ = box
    width = x1 - x0
    group = sub(root, "g", {"id": "caption"})
    sub(
        group,
        "rect",
        {
            "x": num(x0),
            "y": num(y0 - band),
            "width": num(width),
            "height": num(band),
            "fill": "#ffffff",
        },
    )
    font = band / 4.2
    pad = font * 0.6
    if caption:
        text = xml_text(caption)
        size = min(font, 0.96 * width / (0.62 * max(len(text), 1)))  # bold: ~0.62 em/char
        node = sub(
            group,
            "text",
            {
                "x": num(x0 + pad),
                "y": num(y0 - band + pad + size),
                "font-size": num(size),
                "font-family": "sans-serif",
                "font-weight": "bold",
                "fill": "#111111",
            },
        )
        node.text = text
    if not legend:
        return
    small = font * 0.7
    x = x0 + pad
    y = y0 - band + pad + font + pad + small
    sample = small * 2.2
    legend_group = sub(group, "g", {"id": "legend"})
    for label, stroke in legend:
        need = sample + small * 0.9 + 0.52 * small * len(label) + small * 1.5
        if x + need > x1 and x > x0 + pad:
            x = x0 + pad
            y += small * 1.6
        sub(
            legend_group,
            "path",
            {"d": f"M{num(x)} {num(y - small * 0.35)}h{num(sample)}", **stroke},
        )
        label_node = sub(
            legend_group,
            "text",
            {
                "x": num(x + sample + small * 0.9),
                "y": num(y),
                "font-size": num(small),
                "font-family": "sans-serif",
                "fill": "#333333",
            },
        )
        label_node.text = xml_text(label)
        x += need


def legend_entries(
    wall_kinds: set[str],
    region_kinds: set[str],
    lines: Sequence[Any],
    unit: float,
    scene: Scene,
    highlighted: int,
) -> list[tuple[str, dict[str, object]]]:
    """Legend entries for what the picture holds: (label, stroke attributes)."""
    out: list[tuple[str, dict[str, object]]] = []
    width = num(0.8 * unit)
    if highlighted >= 2:
        for label, colours in (("from", SOURCE_COLOURS), ("to", TARGET_COLOURS)):
            box: dict[str, object] = {"stroke": colours[0], "stroke-width": num(2 * unit)}
            out.append((label, box))
    elif highlighted:
        out.append(("highlighted", {"stroke": TARGET_COLOURS[0], "stroke-width": num(2 * unit)}))
    if lines:
        blocked = {line_parts(line)[2] for line in lines}
        if False in blocked:
            clear: dict[str, object] = {"stroke": CLEAR_COLOUR, "stroke-width": width}
            out.append(("clear line", clear))
        if True in blocked:
            red: dict[str, object] = {"stroke": BLOCKED_COLOUR, "stroke-width": width}
            out.append(("blocked line", red))
    for kind, style in WALL_STYLES.items():
        if kind in wall_kinds:
            out.append((style.label, wall_stroke(style, unit)))
    if any(w.direction != "both" for w in scene.walls):
        out.append(("tick: one-way wall's blocking side", wall_stroke(WALL_STYLES["normal"], unit)))
    fills = {
        "darkness": "#000000",
        "fog-heavy": "#7d7d7d",
        "water": "#2f7ed8",
        "fog-light": "#9e9e9e",
        "area": "#b388ff",
    }
    labels = {
        "darkness": "magical darkness",
        "fog-heavy": "heavy fog",
        "water": "water",
        "fog-light": "light fog",
        "area": "region",
    }
    for kind in fills:
        if kind in region_kinds:
            paint: dict[str, object] = {
                "stroke": fills[kind],
                "stroke-width": num(2 * unit),
                "stroke-opacity": "0.5",
            }
            out.append((labels[kind], paint))
    if scene.lights or any(t.light.bright or t.light.dim for t in scene.tokens):
        glow: dict[str, object] = {
            "stroke": "#ffd54f",
            "stroke-width": num(2 * unit),
            "stroke-opacity": "0.8",
        }
        out.append(("light: bright / dim radius", glow))
    return out
