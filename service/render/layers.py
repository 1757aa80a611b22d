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

from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry

from service.engine.scene import vertical_span
from service.model import Light, Region, Scene, Token, Wall
from service.render.frame import (
    MIN_LINE_PX,
    Scale,
    height_text,
    line_parts,
    token_name,
)
from service.render.lightarea import QUAD_SEGS, ClipBudget, geometry_path, lit_area
from service.render.styles import (
    BLOCKED_COLOUR,
    CLEAR_COLOUR,
    LIGHT_BRIGHT,
    LIGHT_DIM,
    LIGHT_EDGE,
    LIGHT_OFF,
    LIGHT_PRIVATE,
    REGION_LIGHT,
    SOURCE_COLOURS,
    TARGET_COLOURS,
    WALL_STYLES,
    region_fill,
    wall_blocks,
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


def draw_walls(root: ET.Element, scene: Scene, scale: Scale) -> set[str]:
    """Append ``<g id="walls">``, one ``<path>`` per wall; return the wall kinds drawn.

    Each path has ``class="wall wall-KIND"`` (:func:`~service.render.styles.wall_kind`),
    ``data-blocks`` (what it restricts, GEO-1: ``move sight light sound``, or empty),
    ``data-direction`` for one-way walls and ``data-height`` (``"0–10 ft"``) for a wall
    with a height range (GEO-5). One-way ticks are 0.3 of a grid square long (GEO-3).
    """
    group = sub(root, "g", {"id": "walls"})
    kinds: set[str] = set()
    units = scene.grid.units
    tick = max(scene.grid.size * 0.3, 6 * scale.unit)
    for wall in scene.walls:
        kind = wall_kind(wall)
        kinds.add(kind)
        attrs: dict[str, object] = {
            "class": f"wall wall-{kind}",
            "data-id": wall.id,
            "data-blocks": " ".join(wall_blocks(wall)),
            "d": _wall_d(wall, tick),
            **wall_stroke(WALL_STYLES[kind], scale.unit),
        }
        if wall.direction != "both":
            attrs["data-direction"] = wall.direction
        if wall.height is not None:
            attrs["data-height"] = height_text(wall.height.bottom, wall.height.top, units)
        sub(group, "path", attrs)
    return kinds


def _shape(g: ET.Element, region: Region, paint: dict[str, object]) -> None:
    s = region.shape
    if s.type == "rect":
        shape = {"x": num(s.x), "y": num(s.y), "width": num(s.width), "height": num(s.height)}
        sub(g, "rect", {**shape, **paint})
    elif s.type == "circle":
        sub(g, "circle", {"cx": num(s.x), "cy": num(s.y), "r": num(s.radius), **paint})
    else:
        pts = " ".join(f"{num(x)},{num(y)}" for x, y in s.points)
        sub(g, "polygon", {"points": pts, **paint})


def draw_regions(root: ET.Element, scene: Scene, scale: Scale) -> set[str]:
    """Append ``<g id="regions">``, one ``<g>`` per region; return the region kinds drawn.

    A region is filled by its obscurement or substance (``region-KIND``, see
    :func:`~service.render.styles.region_fill`) and shaded by its own light (GEO-9:
    ``region-light-dark|dim|bright``, an extra shape of class ``light-LEVEL``); a region
    with only a light is drawn by its light alone. Kinds returned: the fill kinds and
    ``light-LEVEL``.
    """
    group = sub(root, "g", {"id": "regions"})
    kinds: set[str] = set()
    units = scene.grid.units
    for region in scene.regions:
        kind, fill, opacity = region_fill(region)
        classes = ["region"]
        if kind != "area" or region.light is None:
            classes.append(f"region-{kind}")
            kinds.add(kind)
        if region.light is not None:
            classes.append(f"region-light-{region.light}")
            kinds.add(f"light-{region.light}")
        g = sub(group, "g", {"class": " ".join(classes), "data-id": region.id})
        if region.light is not None:
            shade, shade_opacity, _ = REGION_LIGHT[region.light]
            _shape(
                g,
                region,
                {"class": f"light-{region.light}", "fill": shade, "fill-opacity": shade_opacity},
            )
        if kind != "area" or region.light is None:
            paint: dict[str, object] = {
                "class": kind,
                "fill": fill,
                "fill-opacity": opacity,
                "stroke": fill,
                "stroke-opacity": "0.8",
                "stroke-width": num(0.3 * scale.unit),
            }
            _shape(g, region, paint)
        said = [kind] if kind != "area" else []
        if region.light is not None:
            said.append(f"{region.light} light")
        if region.elevation is not None:
            said.append(height_text(region.elevation.bottom, region.elevation.top, units))
        sub(g, "title").text = xml_text(f"region {region.id}: {', '.join(said) or 'area'}")
    return kinds


def _sector(light: Light, r: float) -> Polygon:
    """A light's emission cone of radius ``r`` px (Foundry rotation: clockwise, 0 faces +y)."""
    facing = math.radians(light.rotation)
    half = math.radians(light.angle) / 2
    steps = max(2, math.ceil(light.angle / 5))
    pts = [(light.x, light.y)]
    for k in range(steps + 1):
        a = facing - half + 2 * half * k / steps
        # Direction (-sin a, cos a) for angle a, as service.lighting reads it.
        pts.append((light.x - r * math.sin(a), light.y + r * math.cos(a)))
    return Polygon(pts)


def _sector_d(cx: float, cy: float, r: float, light: Light) -> str:
    """Path of a light's emission cone (Foundry rotation: clockwise, 0 faces +y)."""
    facing = math.radians(light.rotation)
    half = math.radians(light.angle) / 2
    a0, a1 = facing - half, facing + half
    p0 = (cx - r * math.sin(a0), cy + r * math.cos(a0))
    p1 = (cx - r * math.sin(a1), cy + r * math.cos(a1))
    large = 1 if light.angle > 180 else 0
    return (
        f"M{num(cx)} {num(cy)}L{num(p0[0])} {num(p0[1])}"
        f"A{num(r)} {num(r)} 0 {large} 1 {num(p1[0])} {num(p1[1])}Z"
    )


def _area(light: Light, r: float, lit: BaseGeometry | None) -> tuple[str, str, str] | None:
    """The element that draws the area lit within radius ``r`` px.

    ``(element, attribute, value)`` of the area lit within radius ``r`` px: a circle, a
    cone, or the wall-clipped polygon ``lit`` (:func:`~service.render.lightarea.lit_area`).
    """
    if r <= 0:
        return None
    if lit is None and light.angle >= 360:
        return ("circle", "r", num(r))
    shape: BaseGeometry = Point(light.x, light.y).buffer(r, quad_segs=QUAD_SEGS)
    if lit is not None:
        shape = shape.intersection(lit)
    elif light.angle < 360:
        return ("path", "d", _sector_d(light.x, light.y, r, light))
    if light.angle < 360:
        shape = shape.intersection(_sector(light, r))
    return ("path", "d", geometry_path(shape, num))


def _draw_light(
    group: ET.Element,
    scene: Scene,
    light: Light,
    cls: str,
    scale: Scale,
    reach: float,
    private: bool,
    budget: ClipBudget,
) -> str:
    """Draw one light's ``<g>``.

    One light's ``<g>``; returns its legend kind (``lit``, ``off``, ``private``,
    ``darkness``). ``reach`` caps radii (px) at what the picture can show.
    """
    ppu = scene.grid.px_per_unit
    unit = scale.unit
    state = "off" if not light.on else "private" if private else "on"
    kind = "darkness" if light.darkness else "light"
    g = sub(
        group,
        "g",
        {"class": f"{cls} {state}" + (" darkness" if light.darkness else ""), "data-id": light.id},
    )
    outer = min(max(light.bright, light.dim) * ppu, reach)
    if not light.on:
        _draw_light_off(g, light, unit)
        reach_text = f", {max(light.bright, light.dim):g} units when on" if outer > 0 else ""
        sub(g, "title").text = xml_text(f"{kind} {light.id}: off{reach_text}")
        return "off"
    lit = lit_area(scene, light, outer, budget)
    _draw_radii(g, light, lit, ppu, unit, reach, private)
    sub(
        g,
        "circle",
        {
            "class": "source",
            "cx": num(light.x),
            "cy": num(light.y),
            "r": num(1.2 * unit),
            "fill": "#000000" if light.darkness else LIGHT_PRIVATE if private else "#ff9800",
        },
    )
    who = ", private (its controllers only)" if private else ""
    clipped = ", clipped by walls" if lit is not None else ""
    if lit is None and budget.exhausted and light.walls:
        clipped = ", not clipped (too many lights and walls to clip in one picture)"
    sub(g, "title").text = xml_text(
        f"{kind} {light.id}: bright {light.bright:g}, dim {light.dim:g} units{clipped}{who}"
    )
    return "darkness" if light.darkness else "private" if private else "lit"


def _draw_light_off(g: ET.Element, light: Light, unit: float) -> None:
    """A switched-off light: only its source, crossed out, unlit.

    A scene with dozens of lights off, such as a manor at day, would otherwise be covered
    with dashed circles. ``unit`` is the picture's stroke unit (px).
    """
    r = 1.2 * unit
    x0, y0, x1, y1 = light.x - r, light.y - r, light.x + r, light.y + r
    sub(
        g,
        "circle",
        {
            "class": "source",
            "cx": num(light.x),
            "cy": num(light.y),
            "r": num(r),
            "fill": "#ffffff",
            "stroke": LIGHT_OFF,
            "stroke-width": num(0.5 * unit),
        },
    )
    sub(
        g,
        "path",
        {
            "class": "off-cross",
            "d": (
                f"M{num(x0)},{num(y0)} L{num(x1)},{num(y1)} "
                f"M{num(x0)},{num(y1)} L{num(x1)},{num(y0)}"
            ),
            "fill": "none",
            "stroke": LIGHT_OFF,
            "stroke-width": num(0.4 * unit),
        },
    )


def _draw_radii(
    g: ET.Element,
    light: Light,
    lit: BaseGeometry | None,
    ppu: float,
    unit: float,
    reach: float,
    private: bool,
) -> None:
    """The dim area, then the bright one, of a light that is on (5E-VIS-3).

    Radii in grid units become px by ``ppu`` and are capped at ``reach`` px; ``lit`` is the
    wall-clipped area (None: not clipped). A private light is drawn dashed.
    """
    if light.darkness:
        radii = (("dim", light.dim, "#000000", "0.3"), ("bright", light.bright, "#000000", "0.3"))
        edge = "#000000"
    else:
        radii = (
            ("dim", light.dim, LIGHT_DIM, "0.16"),
            ("bright", light.bright, LIGHT_BRIGHT, "0.3"),
        )
        edge = LIGHT_PRIVATE if private else LIGHT_EDGE
    for name, radius_units, fill, opacity in radii:
        area = _area(light, min(radius_units * ppu, reach), lit)
        if area is None:
            continue
        element, key, value = area
        paint: dict[str, object] = {
            "class": name,
            "fill": fill,
            "fill-opacity": opacity,
            "fill-rule": "evenodd",
            "stroke": edge,
            "stroke-opacity": "0.8" if private else "0.5",
            "stroke-width": num((0.5 if private else 0.2) * unit),
            "stroke-dasharray": f"{num(2 * unit)} {num(unit)}" if private else None,
        }
        if element == "circle":
            sub(g, "circle", {"cx": num(light.x), "cy": num(light.y), key: value, **paint})
        else:
            sub(g, "path", {key: value, **paint})


def draw_lights(
    root: ET.Element, scene: Scene, scale: Scale, box: tuple[float, float, float, float]
) -> set[str]:
    """Append ``<g id="lights">``.

    Scene lights, then lights carried by tokens (at their
    centre, at the token's elevation); return the light kinds drawn (``lit``, ``off``,
    ``private``, ``darkness``).

    A light is drawn as the area it lights: its bright and dim radii (5E-VIS-3) clipped by
    the walls that block light (:func:`~service.render.lightarea.lit_area`) and by its
    cone. A switched-off light (``on: false``) is a grey dashed outline, unlit; a private
    light (``seen_by: "controllers"``) has a dashed purple edge and class ``private``.
    Radii far beyond the drawn area (more than ten times its size) are cut there, so the
    numbers stay finite at any scale.
    """
    group = sub(root, "g", {"id": "lights"})
    x0, y0, x1, y1 = box
    kinds: set[str] = set()
    budget = ClipBudget(scene)

    def reach(x: float, y: float) -> float:
        far_x = max(abs(x - x0), abs(x - x1))
        far_y = max(abs(y - y0), abs(y - y1))
        return math.hypot(far_x, far_y) + 10 * max(x1 - x0, y1 - y0)

    for light in scene.lights:
        private = light.seen_by == "controllers"
        kinds.add(
            _draw_light(
                group, scene, light, "light", scale, reach(light.x, light.y), private, budget
            )
        )
    for tok in scene.tokens:
        if tok.light.bright > 0 or tok.light.dim > 0:
            tx0, ty0, tx1, ty1 = tok.box(scene.grid.size)
            cx, cy = (tx0 + tx1) / 2, (ty0 + ty1) / 2
            carried = Light(
                tok.id, cx, cy, tok.light.bright, tok.light.dim, elevation=tok.elevation
            )
            private = tok.light.seen_by == "controllers"
            kinds.add(
                _draw_light(
                    group,
                    scene,
                    carried,
                    "light token-light",
                    scale,
                    reach(cx, cy),
                    private,
                    budget,
                )
            )
    return kinds


#: A token's name is cut to this many times its width (at least two squares) or to
#: LABEL_CHARS characters, whichever is longer (the full name is in its title).
LABEL_WIDTH = 1.8
LABEL_CHARS = 8


def halo_text(
    parent: ET.Element,
    x: float,
    y: float,
    text: str,
    font: float,
    attrs: dict[str, object] | None = None,
) -> ET.Element:
    """A label at ``(x, y)`` px, centred, dark on a white halo so it reads on any fill."""
    node = sub(
        parent,
        "text",
        {
            "x": num(x),
            "y": num(y),
            "font-size": num(font),
            "font-family": "sans-serif",
            "text-anchor": "middle",
            "dominant-baseline": "central",
            "fill": "#0d1b2a",
            "stroke": "#ffffff",
            "stroke-width": num(font * 0.22),
            "stroke-opacity": "0.85",
            "paint-order": "stroke",
            **(attrs or {}),
        },
    )
    node.text = xml_text(text)
    return node


def _hexagon(x0: float, y0: float, x1: float, y1: float, pointy: bool) -> str:
    """Points of the regular hexagon a token's box stands for.

    Pointy-topped (``hex-row``): as wide across its flat sides as the box; flat-topped
    (``hex-col``): as high across its flat sides as the box; centred on the box, as the
    grid's cells are drawn.
    """
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if pointy:
        half, r = (x1 - x0) / 2, (x1 - x0) / math.sqrt(3)
        pts = [(cx, cy - r), (cx + half, cy - r / 2), (cx + half, cy + r / 2), (cx, cy + r)]
        pts += [(cx - half, cy + r / 2), (cx - half, cy - r / 2)]
    else:
        half, r = (y1 - y0) / 2, (y1 - y0) / math.sqrt(3)
        pts = [(cx - r, cy), (cx - r / 2, cy - half), (cx + r / 2, cy - half), (cx + r, cy)]
        pts += [(cx + r / 2, cy + half), (cx - r / 2, cy + half)]
    return " ".join(f"{num(x)},{num(y)}" for x, y in pts)


#: What :func:`draw_token_labels` writes for a token: the token, whether it has a name of
#: its own, whether its elevation is shown, its vertical extent (grid units).
TokenLabel = tuple[Token, bool, bool, tuple[float, float]]


def draw_tokens(
    root: ET.Element,
    scene: Scene,
    scale: Scale,
    highlight: Sequence[str],
    show_heights: Sequence[str] = (),
) -> list[TokenLabel]:
    """Append ``<g id="tokens">``: one space per token; return the labels to write.

    The space is a rectangle on square grids, a hexagon on hex grids (``hex-row``
    pointy-topped, ``hex-col`` flat-topped), an ellipse on gridless scenes. ``highlight``
    holds token ids to outline; with two or more, the first is the source. The labels
    (for :func:`draw_token_labels`): a token's name when it has one of its own (not its
    id) or is highlighted; a second label with its vertical extent (GEO-5a, e.g.
    ``"30–35 ft"``) when its elevation is not 0 or it is in ``show_heights``. Names are at
    least :data:`~service.render.frame.MIN_TEXT_PX` output px high.
    """
    group = sub(root, "g", {"id": "tokens"})
    size = scene.grid.size
    grid_type = scene.grid.type
    source = highlight[0] if len(highlight) >= 2 else None
    unit = scale.unit
    texts: list[TokenLabel] = []
    for tok in scene.tokens:
        x0, y0, x1, y1 = tok.box(size)
        lit = tok.id in highlight
        role = " source" if tok.id == source else " target" if lit else ""
        colours = SOURCE_COLOURS if tok.id == source else TARGET_COLOURS
        classes = "token" + (" highlight" + role if lit else "") + (" hidden" if tok.hidden else "")
        g = sub(group, "g", {"class": classes, "data-id": tok.id})
        inset = 0.15 * unit
        paint: dict[str, object] = {
            "class": "space",
            "fill": colours[1] if lit else "#90caf9",
            "fill-opacity": "0.8" if lit else "0.6",
            "stroke": colours[0] if lit else "#1565c0",
            "stroke-width": num((0.7 if lit else 0.3) * unit),
            "stroke-dasharray": num(unit) if tok.hidden else None,
        }
        bx0, by0, bx1, by1 = x0 + inset, y0 + inset, x1 - inset, y1 - inset
        if bx1 <= bx0 or by1 <= by0:
            bx0, by0, bx1, by1 = x0, y0, x0 + 0.1, y0 + 0.1
        if grid_type == "square":
            box = {
                "x": num(bx0),
                "y": num(by0),
                "width": num(bx1 - bx0),
                "height": num(by1 - by0),
                "rx": num(0.1 * size),
            }
            sub(g, "rect", {**box, **paint})
        elif grid_type == "gridless":
            ellipse = {
                "cx": num((bx0 + bx1) / 2),
                "cy": num((by0 + by1) / 2),
                "rx": num((bx1 - bx0) / 2),
                "ry": num((by1 - by0) / 2),
            }
            sub(g, "ellipse", {**ellipse, **paint})
        else:
            hexagon = _hexagon(bx0, by0, bx1, by1, pointy=grid_type == "hex-row")
            sub(g, "polygon", {"points": hexagon, **paint})
        bottom, top = vertical_span(tok, scene.grid)
        elevated = tok.elevation != 0 or tok.id in show_heights
        title = f"{token_name(tok)} ({tok.id})"
        if elevated:
            title += f", {height_text(bottom, top, scene.grid.units)}"
        sub(g, "title").text = xml_text(title)
        named = bool(tok.name) and tok.name != tok.id
        if named or lit or elevated:
            texts.append((tok, named, elevated, (bottom, top)))
    return texts


def draw_token_labels(
    root: ET.Element,
    scene: Scene,
    scale: Scale,
    highlight: Sequence[str],
    texts: Sequence[TokenLabel],
) -> None:
    """Append ``<g id="token-labels">``: each token's name and elevation (:func:`draw_tokens`).

    Drawn last, over every token's space and traced line, so that neither hides a name;
    one ``<g class="token-label" data-id=...>`` per labelled token, with a ``<text
    class="name">`` and, for an elevated token, a ``<text class="elevation">``.
    """
    size = scene.grid.size
    names = sub(root, "g", {"id": "token-labels"})
    for tok, named, elevated, band in texts:
        x0, y0, x1, y1 = tok.box(size)
        width = x1 - x0
        name = xml_text(token_name(tok))
        font = min(0.24 * size, max(0.11 * size, 1.7 * width / max(len(name), 1)))
        font = max(font, scale.text)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        label = sub(names, "g", {"class": "token-label", "data-id": tok.id})
        if named or tok.id in highlight:
            most = int(LABEL_WIDTH * max(width, 2 * size) / (0.55 * font))
            shown = short_text(name, max(most, LABEL_CHARS))
            dy = -0.55 * font if elevated else 0.0
            halo_text(label, cx, cy + dy, shown, font, {"class": "name"})
        if elevated:
            halo_text(
                label,
                cx,
                cy + (0.6 * font if named or tok.id in highlight else 0.0),
                height_text(*band, scene.grid.units),
                font * 0.85,
                {"class": "elevation", "font-style": "italic"},
            )


def short_text(text: str, most: int) -> str:
    """``text`` cut to at most ``most`` characters, ending with "…" when cut."""
    return text if len(text) <= most else text[: max(most - 1, 1)].rstrip() + "…"


def draw_height_labels(
    root: ET.Element, labels: Sequence[tuple[str, str, float, float, str]], scale: Scale
) -> None:
    """Append ``<g id="height-labels">``.

    One label per blocker whose height range decides
    a traced line (GEO-5): ``(kind, id, x, y, text)`` with ``kind`` ``wall`` or ``region``,
    the label at ``(x, y)`` px; class ``height-label``, ``data-id`` the blocker's id.
    """
    if not labels:
        return
    group = sub(root, "g", {"id": "height-labels"})
    font = max(scale.text, 0.0)
    for kind, obj_id, x, y, text in labels:
        halo_text(
            group,
            x,
            y - 1.1 * font,
            text,
            font,
            {
                "class": f"height-label {kind}",
                "data-id": obj_id,
                "font-weight": "bold",
                "fill": "#4e342e",
            },
        )


def draw_map_outline(root: ET.Element, scene: Scene, scale: Scale) -> None:
    """Draw the map's own outline.

    The map's own outline ``(0, 0, width, height)`` px when the scene gives its size (a
    cropped Universal VTT map: walls and tokens may lie outside it).
    """
    if not (scene.width and scene.height):
        return
    sub(
        root,
        "rect",
        {
            "id": "map-outline",
            "x": "0",
            "y": "0",
            "width": num(scene.width),
            "height": num(scene.height),
            "fill": "none",
            "stroke": "#37474f",
            "stroke-width": num(0.6 * scale.unit),
            "stroke-dasharray": f"{num(3 * scale.unit)} {num(1.5 * scale.unit)}",
        },
    )


def draw_lines(root: ET.Element, lines: Sequence[Any], scale: Scale) -> None:
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
                "stroke-width": num(max(0.8 * scale.unit, MIN_LINE_PX / scale.out)),
                "stroke-opacity": "0.9",
                "stroke-linecap": "round",
                "data-blockers": " ".join(blockers) if blockers else None,
            },
        )
