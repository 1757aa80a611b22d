"""The layers of a scene picture: regions, lights, walls, tokens and traced lines.

Each wall is one ``<path>`` and each token, light and region one ``<g>``, all carrying the
object's id in ``data-id`` and its kind in ``class``. Positions are scene px (y down); light
radii in grid units become px by ``grid.px_per_unit``.

References
----------
shared/RULES.md GEO-3 (one-way walls), 5E-VIS-3 (bright and dim radii).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from service.model import Light, Scene, Wall
from service.render.frame import line_parts, token_name
from service.render.styles import (
    BLOCKED_COLOUR,
    CLEAR_COLOUR,
    SOURCE_COLOURS,
    TARGET_COLOURS,
    WALL_STYLES,
    region_fill,
    wall_kind,
    wall_stroke,
)
from service.render.svg import num, sub, xml_text


def _wall_d(wall: Wall, tick_px: float) -> str:
    """Path data of a wall; one-way walls get a tick on their blocking side (GEO-3)."""
    x0, y0, x1, y1 = wall.c
    d = f"M{num(x0)} {num(y0)}L{num(x1)} {num(y1)}"
    length = math.hypot(x1 - x0, y1 - y0)
    if wall.direction == "both" or length == 0:
        return d
    # GEO-3: LEFT blocks lines from P with (A.y-P.y)(B.x-P.x) - (A.x-P.x)(B.y-P.y) > 0,
    # i.e. from the side of the normal (dy, -dx) of A->B (y down); RIGHT from the other.
    nx, ny = (y1 - y0) / length, -(x1 - x0) / length
    if wall.direction == "right":
        nx, ny = -nx, -ny
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    tick = min(tick_px, length / 2)
    # A stem into the blocking side and a small arrow head pointing at the wall.
    tx, ty = mx + nx * tick, my + ny * tick
    head = tick * 0.35
    ux, uy = -ny, nx  # along the wall
    hx, hy = mx + nx * head, my + ny * head
    d += f"M{num(tx)} {num(ty)}L{num(mx)} {num(my)}"
    d += f"M{num(hx + ux * head)} {num(hy + uy * head)}L{num(mx)} {num(my)}"
    d += f"L{num(hx - ux * head)} {num(hy - uy * head)}"
    return d


def draw_walls(root: ET.Element, scene: Scene, unit: float) -> set[str]:
    """Append ``<g id="walls">``, one ``<path>`` per wall; return the wall kinds drawn.

    ``unit`` is px per stroke unit; one-way ticks are 0.3 of a grid square long (GEO-3).
    """
    group = sub(root, "g", {"id": "walls"})
    kinds: set[str] = set()
    for wall in scene.walls:
        kind = wall_kind(wall)
        kinds.add(kind)
        attrs: dict[str, object] = {
            "class": f"wall wall-{kind}",
            "data-id": wall.id,
            "d": _wall_d(wall, scene.grid.size * 0.3),
            **wall_stroke(WALL_STYLES[kind], unit),
        }
        if wall.direction != "both":
            attrs["data-direction"] = wall.direction
        sub(group, "path", attrs)
    return kinds


def draw_regions(root: ET.Element, scene: Scene, unit: float) -> set[str]:
    """Append ``<g id="regions">``, one ``<g>`` per region; return the region kinds drawn."""
    group = sub(root, "g", {"id": "regions"})
    kinds: set[str] = set()
    for region in scene.regions:
        kind, fill, opacity = region_fill(region)
        kinds.add(kind)
        g = sub(group, "g", {"class": f"region region-{kind}", "data-id": region.id})
        paint = {
            "fill": fill,
            "fill-opacity": opacity,
            "stroke": fill,
            "stroke-opacity": "0.8",
            "stroke-width": num(0.3 * unit),
        }
        s = region.shape
        if s.type == "rect":
            shape = {"x": num(s.x), "y": num(s.y), "width": num(s.width), "height": num(s.height)}
            sub(g, "rect", {**shape, **paint})
        elif s.type == "circle":
            sub(g, "circle", {"cx": num(s.x), "cy": num(s.y), "r": num(s.radius), **paint})
        else:
            pts = " ".join(f"{num(x)},{num(y)}" for x, y in s.points)
            sub(g, "polygon", {"points": pts, **paint})
        sub(g, "title").text = xml_text(f"region {region.id}: {kind}")
    return kinds


def _sector_d(cx: float, cy: float, r: float, light: Light) -> str:
    """Path of a light's emission cone (Foundry rotation: clockwise, 0 faces +y)."""
    facing = math.radians(light.rotation)
    half = math.radians(light.angle) / 2
    # Direction (-sin a, cos a) for angle a, as service.lighting reads it.
    a0, a1 = facing - half, facing + half
    p0 = (cx - r * math.sin(a0), cy + r * math.cos(a0))
    p1 = (cx - r * math.sin(a1), cy + r * math.cos(a1))
    large = 1 if light.angle > 180 else 0
    return (
        f"M{num(cx)} {num(cy)}L{num(p0[0])} {num(p0[1])}"
        f"A{num(r)} {num(r)} 0 {large} 1 {num(p1[0])} {num(p1[1])}Z"
    )


def _draw_light(group: ET.Element, light: Light, cls: str, px_per_unit: float, unit: float) -> None:
    g = sub(group, "g", {"class": cls, "data-id": light.id})
    colour = ("#000000", "#000000") if light.darkness else ("#ffd54f", "#ffeb3b")
    radii = (("dim", light.dim, colour[0], "0.16"), ("bright", light.bright, colour[1], "0.3"))
    if light.darkness:
        radii = (("dim", light.dim, colour[0], "0.3"), ("bright", light.bright, colour[1], "0.3"))
    for name, radius_units, fill, opacity in radii:
        r = radius_units * px_per_unit
        if r <= 0:
            continue
        paint = {
            "class": name,
            "fill": fill,
            "fill-opacity": opacity,
            "stroke": "#c79100" if not light.darkness else "#000000",
            "stroke-opacity": "0.5",
            "stroke-width": num(0.2 * unit),
        }
        if light.angle < 360:
            sub(g, "path", {"d": _sector_d(light.x, light.y, r, light), **paint})
        else:
            sub(g, "circle", {"cx": num(light.x), "cy": num(light.y), "r": num(r), **paint})
    sub(
        g,
        "circle",
        {
            "class": "source",
            "cx": num(light.x),
            "cy": num(light.y),
            "r": num(0.6 * unit),
            "fill": "#000000" if light.darkness else "#ff9800",
        },
    )
    kind = "darkness" if light.darkness else "light"
    sub(g, "title").text = xml_text(
        f"{kind} {light.id}: bright {light.bright:g}, dim {light.dim:g} units"
    )


def draw_lights(root: ET.Element, scene: Scene, unit: float) -> None:
    """Append ``<g id="lights">``: scene lights, then lights carried by tokens (at their centre)."""
    group = sub(root, "g", {"id": "lights"})
    ppu = scene.grid.px_per_unit
    for light in scene.lights:
        _draw_light(group, light, "light", ppu, unit)
    for tok in scene.tokens:
        if tok.light.bright > 0 or tok.light.dim > 0:
            x0, y0, x1, y1 = tok.box(scene.grid.size)
            carried = Light(tok.id, (x0 + x1) / 2, (y0 + y1) / 2, tok.light.bright, tok.light.dim)
            _draw_light(group, carried, "light token-light", ppu, unit)


def draw_tokens(root: ET.Element, scene: Scene, unit: float, highlight: Sequence[str]) -> None:
    """Append ``<g id="tokens">``: a box and a name per token.

    ``highlight`` holds token ids to outline; with two or more, the first is the source.
    """
    group = sub(root, "g", {"id": "tokens"})
    size = scene.grid.size
    source = highlight[0] if len(highlight) >= 2 else None
    for tok in scene.tokens:
        x0, y0, x1, y1 = tok.box(size)
        lit = tok.id in highlight
        role = " source" if tok.id == source else " target" if lit else ""
        colours = SOURCE_COLOURS if tok.id == source else TARGET_COLOURS
        classes = "token" + (" highlight" + role if lit else "") + (" hidden" if tok.hidden else "")
        g = sub(group, "g", {"class": classes, "data-id": tok.id})
        inset = 0.15 * unit
        sub(
            g,
            "rect",
            {
                "x": num(x0 + inset),
                "y": num(y0 + inset),
                "width": num(max(x1 - x0 - 2 * inset, 0.1)),
                "height": num(max(y1 - y0 - 2 * inset, 0.1)),
                "rx": num(0.1 * size),
                "fill": colours[1] if lit else "#90caf9",
                "fill-opacity": "0.8" if lit else "0.6",
                "stroke": colours[0] if lit else "#1565c0",
                "stroke-width": num((0.7 if lit else 0.3) * unit),
                "stroke-dasharray": num(unit) if tok.hidden else None,
            },
        )
        name = xml_text(token_name(tok))
        width = x1 - x0
        font = min(0.24 * size, max(0.11 * size, 1.7 * width / max(len(name), 1)))
        text = sub(
            g,
            "text",
            {
                "x": num((x0 + x1) / 2),
                "y": num((y0 + y1) / 2),
                "font-size": num(font),
                "font-family": "sans-serif",
                "text-anchor": "middle",
                "dominant-baseline": "central",
                "fill": "#0d1b2a",
                "stroke": "#ffffff",
                "stroke-width": num(font * 0.18),
                "stroke-opacity": "0.8",
                "paint-order": "stroke",
            },
        )
        text.text = name
        sub(g, "title").text = xml_text(f"{token_name(tok)} ({tok.id})")


def draw_lines(root: ET.Element, lines: Sequence[Any], unit: float) -> None:
    """Append ``<g id="traced">``, one ``<line>`` per traced line: blocked red, clear green."""
    group = sub(root, "g", {"id": "traced"})
    for line in lines:
        (xa, ya), (xb, yb), blocked, blockers = line_parts(line)
        sub(
            group,
            "line",
            {
                "class": "traced blocked" if blocked else "traced clear",
                "x1": num(xa),
                "y1": num(ya),
                "x2": num(xb),
                "y2": num(yb),
                "stroke": BLOCKED_COLOUR if blocked else CLEAR_COLOUR,
                "stroke-width": num(0.8 * unit),
                "stroke-opacity": "0.9",
                "stroke-linecap": "round",
                "data-blockers": " ".join(blockers) if blockers else None,
            },
        )
