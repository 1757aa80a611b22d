"""SVG pictures of a scene and of the lines traced to answer a query (pure; no Flask).

:func:`render_svg` draws a canonical scene: walls by kind, tokens with their names, lights
with their bright and dim radii, regions (fog, magical darkness, water), and optionally the
traced lines of an answer coloured clear (green) or blocked (red), with a caption and a
legend in a band above the scene. :func:`render_answer` draws the answer of a cover, vision or
line query that the operation table (``service.operations``) has asked, with its traced lines
and a caption (``POST /v1/render``, ``sightline render``). Nothing here asks the core.

Frame: the SVG user space is the scene's pixel frame (y down), so every coordinate of the
scene and of the answers is drawn as is; radii in grid units become pixels by
``radius * grid.size / grid.distance``. The picture is built with
:mod:`xml.etree.ElementTree`, which escapes every text and attribute (token names, ids);
characters XML 1.0 cannot hold are dropped.

Each wall is one ``<path>`` and each token, light and region one ``<g>``, all carrying the
object's id in ``data-id`` and its kind in ``class``, so a test or a style sheet can pick
them out.

References
----------
shared/API.md "Batch and pictures"; shared/DESIGN.md "Canonical scene"; shared/RULES.md
GEO-1..4 (what each wall restricts, one-way walls), 5E-VIS-3 (bright and dim radii).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.model import Light, Region, Scene, Token, Wall

__all__ = ["render_answer", "render_svg", "wall_kind"]

SVG_NS = "http://www.w3.org/2000/svg"

#: Colour of a traced line that no obstacle blocks, and of one that is blocked.
CLEAR_COLOUR = "#1e9e3a"
BLOCKED_COLOUR = "#d62728"
#: Outline and fill of highlighted tokens: the source of a query (attacker or observer)
#: and its target(s).
SOURCE_COLOURS = ("#ef6c00", "#ffcc80")
TARGET_COLOURS = ("#c2185b", "#f8bbd0")

#: Background of the scene area by ambient light (``environment.light``).
BACKGROUND = {"bright": "#fbfaf6", "dim": "#e9e8ef", "dark": "#c9c8d4"}

# Characters that XML 1.0 cannot represent (control characters, lone surrogates, U+FFFE/F).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class WallStyle:
    """How a kind of wall is stroked; widths and dashes in stroke units (``render_svg``)."""

    colour: str
    width: float
    dash: tuple[float, ...] = ()
    label: str = ""


#: Wall kinds (:func:`wall_kind`) and their strokes, in legend order.
WALL_STYLES: dict[str, WallStyle] = {
    "normal": WallStyle("#1c1c1c", 1.0, (), "wall"),
    "low": WallStyle("#7a6a2f", 0.8, (), "low wall"),
    "door": WallStyle("#8b4513", 2.0, (), "door (closed)"),
    "door-locked": WallStyle("#5a2608", 2.0, (), "door (locked)"),
    "door-open": WallStyle("#8b4513", 1.0, (1.6, 1.2), "door (open)"),
    "secret": WallStyle("#8e24aa", 2.0, (), "secret door"),
    "secret-open": WallStyle("#8e24aa", 1.0, (1.6, 1.2), "secret door (open)"),
    "window": WallStyle("#4fb3ef", 1.2, (), "window (sight passes)"),
    "sight-only": WallStyle("#5f5f5f", 1.0, (2.0, 0.8, 0.3, 0.8), "blocks sight only"),
    "limited": WallStyle("#1c1c1c", 1.0, (0.05, 1.0), "limited (terrain)"),
    "proximity": WallStyle("#3d5a80", 1.0, (0.05, 1.0), "proximity / distance"),
}


def wall_kind(wall: Wall) -> str:
    """The drawing kind of a wall: a key of :data:`WALL_STYLES`.

    Doors first (``door``, ``door-locked``, ``door-open``; ``secret``, ``secret-open``),
    then by restriction (GEO-1, GEO-4): ``limited`` when movement or sight is limited,
    ``window`` when sight passes (``sight: "none"``), ``sight-only`` when movement passes
    but sight does not, ``proximity`` for proximity/distance sight, ``low`` for low
    obstacles (``cover: "low"``), else ``normal``.
    """
    if wall.door == "secret":
        return "secret-open" if wall.door_state == "open" else "secret"
    if wall.door == "door":
        if wall.door_state == "open":
            return "door-open"
        return "door-locked" if wall.door_state == "locked" else "door"
    if "limited" in (wall.move, wall.sight):
        return "limited"
    if wall.sight == "none":
        return "window"
    if wall.move == "none":
        return "sight-only"
    if wall.sight in ("proximity", "distance") or wall.move in ("proximity", "distance"):
        return "proximity"
    if wall.cover == "low":
        return "low"
    return "normal"


# ---------------------------------------------------------------------------- helpers


def _clean(text: object) -> str:
    """``text`` as a string XML can hold (invalid characters dropped)."""
    return _NOT_XML.sub("", str(text))


def _n(value: float) -> str:
    """A coordinate for an attribute: at most 2 decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _sub(parent: ET.Element, tag: str, attrs: Mapping[str, object] | None = None) -> ET.Element:
    """Append ``<tag>`` to ``parent`` with ``attrs`` (values cleaned; None left out)."""
    clean = {k: _clean(v) for k, v in (attrs or {}).items() if v is not None}
    return ET.SubElement(parent, tag, clean)


def _name(token: Token) -> str:
    return token.name or token.id


def _line_parts(line: Any) -> tuple[tuple[float, float], tuple[float, float], bool, list[str]]:
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
        start, end, _, _ = _line_parts(line)
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


# ---------------------------------------------------------------------------- layers


def _wall_d(wall: Wall, tick_px: float) -> str:
    """Path data of a wall; one-way walls get a tick on their blocking side (GEO-3)."""
    x0, y0, x1, y1 = wall.c
    d = f"M{_n(x0)} {_n(y0)}L{_n(x1)} {_n(y1)}"
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
    d += f"M{_n(tx)} {_n(ty)}L{_n(mx)} {_n(my)}"
    d += f"M{_n(hx + ux * head)} {_n(hy + uy * head)}L{_n(mx)} {_n(my)}"
    d += f"L{_n(hx - ux * head)} {_n(hy - uy * head)}"
    return d


def _stroke(style: WallStyle, unit: float) -> dict[str, object]:
    attrs: dict[str, object] = {
        "stroke": style.colour,
        "stroke-width": _n(style.width * unit),
        "stroke-linecap": "round",
        "stroke-linejoin": "round",
        "fill": "none",
    }
    if style.dash:
        attrs["stroke-dasharray"] = " ".join(_n(max(d * unit, 0.01)) for d in style.dash)
    return attrs


def _draw_walls(root: ET.Element, scene: Scene, unit: float) -> set[str]:
    group = _sub(root, "g", {"id": "walls"})
    kinds: set[str] = set()
    for wall in scene.walls:
        kind = wall_kind(wall)
        kinds.add(kind)
        attrs: dict[str, object] = {
            "class": f"wall wall-{kind}",
            "data-id": wall.id,
            "d": _wall_d(wall, scene.grid.size * 0.3),
            **_stroke(WALL_STYLES[kind], unit),
        }
        if wall.direction != "both":
            attrs["data-direction"] = wall.direction
        _sub(group, "path", attrs)
    return kinds


def _region_fill(region: Region) -> tuple[str, str, str]:
    """Kind, fill colour and opacity of a region (darkness over fog over water)."""
    if region.magical_darkness:
        return ("darkness", "#000000", "0.55")
    if region.obscurement == "heavy":
        return ("fog-heavy", "#7d7d7d", "0.55")
    if region.water:
        return ("water", "#2f7ed8", "0.3")
    if region.obscurement == "light":
        return ("fog-light", "#9e9e9e", "0.3")
    return ("area", "#b388ff", "0.15")


def _draw_regions(root: ET.Element, scene: Scene, unit: float) -> set[str]:
    group = _sub(root, "g", {"id": "regions"})
    kinds: set[str] = set()
    for region in scene.regions:
        kind, fill, opacity = _region_fill(region)
        kinds.add(kind)
        g = _sub(group, "g", {"class": f"region region-{kind}", "data-id": region.id})
        paint = {
            "fill": fill,
            "fill-opacity": opacity,
            "stroke": fill,
            "stroke-opacity": "0.8",
            "stroke-width": _n(0.3 * unit),
        }
        s = region.shape
        if s.type == "rect":
            shape = {"x": _n(s.x), "y": _n(s.y), "width": _n(s.width), "height": _n(s.height)}
            _sub(g, "rect", {**shape, **paint})
        elif s.type == "circle":
            _sub(g, "circle", {"cx": _n(s.x), "cy": _n(s.y), "r": _n(s.radius), **paint})
        else:
            pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in s.points)
            _sub(g, "polygon", {"points": pts, **paint})
        _sub(g, "title").text = _clean(f"region {region.id}: {kind}")
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
        f"M{_n(cx)} {_n(cy)}L{_n(p0[0])} {_n(p0[1])}"
        f"A{_n(r)} {_n(r)} 0 {large} 1 {_n(p1[0])} {_n(p1[1])}Z"
    )


def _draw_light(group: ET.Element, light: Light, cls: str, px_per_unit: float, unit: float) -> None:
    g = _sub(group, "g", {"class": cls, "data-id": light.id})
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
            "stroke-width": _n(0.2 * unit),
        }
        if light.angle < 360:
            _sub(g, "path", {"d": _sector_d(light.x, light.y, r, light), **paint})
        else:
            _sub(g, "circle", {"cx": _n(light.x), "cy": _n(light.y), "r": _n(r), **paint})
    _sub(
        g,
        "circle",
        {
            "class": "source",
            "cx": _n(light.x),
            "cy": _n(light.y),
            "r": _n(0.6 * unit),
            "fill": "#000000" if light.darkness else "#ff9800",
        },
    )
    kind = "darkness" if light.darkness else "light"
    _sub(g, "title").text = _clean(
        f"{kind} {light.id}: bright {light.bright:g}, dim {light.dim:g} units"
    )


def _draw_lights(root: ET.Element, scene: Scene, unit: float) -> None:
    group = _sub(root, "g", {"id": "lights"})
    ppu = scene.grid.px_per_unit
    for light in scene.lights:
        _draw_light(group, light, "light", ppu, unit)
    for tok in scene.tokens:
        if tok.light.bright > 0 or tok.light.dim > 0:
            x0, y0, x1, y1 = tok.box(scene.grid.size)
            carried = Light(tok.id, (x0 + x1) / 2, (y0 + y1) / 2, tok.light.bright, tok.light.dim)
            _draw_light(group, carried, "light token-light", ppu, unit)


def _draw_tokens(root: ET.Element, scene: Scene, unit: float, highlight: Sequence[str]) -> None:
    group = _sub(root, "g", {"id": "tokens"})
    size = scene.grid.size
    source = highlight[0] if len(highlight) >= 2 else None
    for tok in scene.tokens:
        x0, y0, x1, y1 = tok.box(size)
        lit = tok.id in highlight
        role = " source" if tok.id == source else " target" if lit else ""
        colours = SOURCE_COLOURS if tok.id == source else TARGET_COLOURS
        classes = "token" + (" highlight" + role if lit else "") + (" hidden" if tok.hidden else "")
        g = _sub(group, "g", {"class": classes, "data-id": tok.id})
        inset = 0.15 * unit
        _sub(
            g,
            "rect",
            {
                "x": _n(x0 + inset),
                "y": _n(y0 + inset),
                "width": _n(max(x1 - x0 - 2 * inset, 0.1)),
                "height": _n(max(y1 - y0 - 2 * inset, 0.1)),
                "rx": _n(0.1 * size),
                "fill": colours[1] if lit else "#90caf9",
                "fill-opacity": "0.8" if lit else "0.6",
                "stroke": colours[0] if lit else "#1565c0",
                "stroke-width": _n((0.7 if lit else 0.3) * unit),
                "stroke-dasharray": _n(unit) if tok.hidden else None,
            },
        )
        name = _clean(_name(tok))
        width = x1 - x0
        font = min(0.24 * size, max(0.11 * size, 1.7 * width / max(len(name), 1)))
        text = _sub(
            g,
            "text",
            {
                "x": _n((x0 + x1) / 2),
                "y": _n((y0 + y1) / 2),
                "font-size": _n(font),
                "font-family": "sans-serif",
                "text-anchor": "middle",
                "dominant-baseline": "central",
                "fill": "#0d1b2a",
                "stroke": "#ffffff",
                "stroke-width": _n(font * 0.18),
                "stroke-opacity": "0.8",
                "paint-order": "stroke",
            },
        )
        text.text = name
        _sub(g, "title").text = _clean(f"{_name(tok)} ({tok.id})")


def _draw_lines(root: ET.Element, lines: Sequence[Any], unit: float) -> None:
    group = _sub(root, "g", {"id": "traced"})
    for line in lines:
        (xa, ya), (xb, yb), blocked, blockers = _line_parts(line)
        _sub(
            group,
            "line",
            {
                "class": "traced blocked" if blocked else "traced clear",
                "x1": _n(xa),
                "y1": _n(ya),
                "x2": _n(xb),
                "y2": _n(yb),
                "stroke": BLOCKED_COLOUR if blocked else CLEAR_COLOUR,
                "stroke-width": _n(0.8 * unit),
                "stroke-opacity": "0.9",
                "stroke-linecap": "round",
                "data-blockers": " ".join(blockers) if blockers else None,
            },
        )


def _draw_band(
    root: ET.Element,
    box: tuple[float, float, float, float],
    band: float,
    caption: str | None,
    legend: list[tuple[str, dict[str, object]]],
) -> None:
    """Caption and legend in the band of height ``band`` px above the scene area."""
    x0, y0, x1, _ = box
    width = x1 - x0
    group = _sub(root, "g", {"id": "caption"})
    _sub(
        group,
        "rect",
        {
            "x": _n(x0),
            "y": _n(y0 - band),
            "width": _n(width),
            "height": _n(band),
            "fill": "#ffffff",
        },
    )
    font = band / 4.2
    pad = font * 0.6
    if caption:
        text = _clean(caption)
        size = min(font, 0.96 * width / (0.62 * max(len(text), 1)))  # bold: ~0.62 em/char
        node = _sub(
            group,
            "text",
            {
                "x": _n(x0 + pad),
                "y": _n(y0 - band + pad + size),
                "font-size": _n(size),
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
    legend_group = _sub(group, "g", {"id": "legend"})
    for label, stroke in legend:
        need = sample + small * 0.9 + 0.52 * small * len(label) + small * 1.5
        if x + need > x1 and x > x0 + pad:
            x = x0 + pad
            y += small * 1.6
        _sub(
            legend_group,
            "path",
            {"d": f"M{_n(x)} {_n(y - small * 0.35)}h{_n(sample)}", **stroke},
        )
        label_node = _sub(
            legend_group,
            "text",
            {
                "x": _n(x + sample + small * 0.9),
                "y": _n(y),
                "font-size": _n(small),
                "font-family": "sans-serif",
                "fill": "#333333",
            },
        )
        label_node.text = _clean(label)
        x += need


def _legend(
    wall_kinds: set[str],
    region_kinds: set[str],
    lines: Sequence[Any],
    unit: float,
    scene: Scene,
    highlighted: int,
) -> list[tuple[str, dict[str, object]]]:
    """Legend entries for what the picture holds: (label, stroke attributes)."""
    out: list[tuple[str, dict[str, object]]] = []
    width = _n(0.8 * unit)
    if highlighted >= 2:
        for label, colours in (("from", SOURCE_COLOURS), ("to", TARGET_COLOURS)):
            box: dict[str, object] = {"stroke": colours[0], "stroke-width": _n(2 * unit)}
            out.append((label, box))
    elif highlighted:
        out.append(("highlighted", {"stroke": TARGET_COLOURS[0], "stroke-width": _n(2 * unit)}))
    if lines:
        blocked = {_line_parts(line)[2] for line in lines}
        if False in blocked:
            clear: dict[str, object] = {"stroke": CLEAR_COLOUR, "stroke-width": width}
            out.append(("clear line", clear))
        if True in blocked:
            red: dict[str, object] = {"stroke": BLOCKED_COLOUR, "stroke-width": width}
            out.append(("blocked line", red))
    for kind, style in WALL_STYLES.items():
        if kind in wall_kinds:
            out.append((style.label, _stroke(style, unit)))
    if any(w.direction != "both" for w in scene.walls):
        out.append(("tick: one-way wall's blocking side", _stroke(WALL_STYLES["normal"], unit)))
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
                "stroke-width": _n(2 * unit),
                "stroke-opacity": "0.5",
            }
            out.append((labels[kind], paint))
    if scene.lights or any(t.light.bright or t.light.dim for t in scene.tokens):
        glow: dict[str, object] = {
            "stroke": "#ffd54f",
            "stroke-width": _n(2 * unit),
            "stroke-opacity": "0.8",
        }
        out.append(("light: bright / dim radius", glow))
    return out


# ---------------------------------------------------------------------------- public


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
    defs = _sub(root, "defs")
    if scene.grid.type == "square":
        size = scene.grid.size
        pattern = _sub(
            defs,
            "pattern",
            {
                "id": "grid",
                "width": _n(size),
                "height": _n(size),
                "patternUnits": "userSpaceOnUse",
            },
        )
        _sub(
            pattern,
            "path",
            {
                "d": f"M{_n(size)} 0H0V{_n(size)}",
                "fill": "none",
                "stroke": "#000000",
                "stroke-opacity": "0.12",
                "stroke-width": _n(max(size / 100, 0.5)),
            },
        )
    area = {"x": _n(x0), "y": _n(y0), "width": _n(x1 - x0), "height": _n(y1 - y0)}
    _sub(root, "rect", {"id": "background", **area, "fill": BACKGROUND[scene.environment.light]})
    if scene.grid.type == "square":
        _sub(root, "rect", {"id": "grid-lines", **area, "fill": "url(#grid)"})

    region_kinds = _draw_regions(root, scene, unit)
    _draw_lights(root, scene, unit)
    wall_kinds = _draw_walls(root, scene, unit)
    highlight = list(dict.fromkeys(highlight))
    _draw_tokens(root, scene, unit, highlight)
    _draw_lines(root, lines, unit)

    legend = _legend(wall_kinds, region_kinds, lines, unit, scene, len(highlight))
    band = scene_band if (caption or legend) else 0.0
    if band:
        _draw_band(root, box, band, caption, legend)
    root.set("viewBox", f"{_n(x0)} {_n(y0 - band)} {_n(x1 - x0)} {_n(y1 - y0 + band)}")
    if caption:
        title = ET.Element("title")
        title.text = _clean(caption)
        root.insert(0, title)
    return ET.tostring(root, encoding="unicode")


def render_answer(
    scene: Scene,
    query: Mapping[str, Any],
    answer: Mapping[str, Any],
    lines: Sequence[Mapping[str, Any]],
) -> str:
    """Draw the scene with the traced lines of one answered query, captioned with the answer.

    The query was loaded by ``schemas.requests.RenderQuerySchema`` and answered by the
    operation table (``service.operations.render``); nothing is parsed or asked here.

    Parameters
    ----------
    scene : service.model.Scene
    query : mapping
        The loaded render query: ``{"type": "cover", "ruleset", "attacker" (None for an
        area), "target", "attack": {"kind", "origin"} or None}``, ``{"type": "vision",
        "ruleset", "observer", "target"}``, or ``{"type": "line-of-effect" |
        "line-of-sight", "from", "to"}`` with each end ``{"token": id}`` or ``{"point":
        [x, y], "elevation": z}`` (px, grid units).
    answer : mapping
        The JSON answer of the operation asked (``POST /v1/cover`` or ``/v1/vision`` with
        the one target, ``/v1/line-of-effect`` or ``/v1/line-of-sight``).
    lines : sequence of mapping
        The traced lines to draw, as the API's line dicts (``from``, ``to`` px,
        ``blocked``, ``blockers``).

    Returns
    -------
    str
        SVG document (:func:`render_svg`) with a caption such as ``"dnd5e cover of Goblin
        from Archer: half (+2 AC) — 5E-COV-1, 5E-COV-3, 5E-COV-5, 5E-COV-4"``.

    Raises
    ------
    KeyError
        For a query type other than the four above (the schema admits no other).
    """
    caption, highlight = CAPTIONS[str(query["type"])](scene, query, answer)
    return render_svg(scene, lines=lines, caption=caption, highlight=highlight)


OBSCURED = {"light": "lightly obscured", "heavy": "heavily obscured"}


def _label(scene: Scene, token_id: str) -> str:
    """A token's name for a caption, with its id when another token has the same name."""
    tok = scene.token(token_id)
    if tok is None:
        return token_id
    name = _name(tok)
    if sum(1 for t in scene.tokens if _name(t) == name) > 1:
        return f"{name} ({tok.id})"
    return name


def _rules_text(rule_ids: Iterable[str]) -> str:
    ids = list(rule_ids)
    return f" — {', '.join(ids)}" if ids else ""


def _cover_caption(
    scene: Scene, query: Mapping[str, Any], answer: Mapping[str, Any]
) -> tuple[str, tuple[str, ...]]:
    """Caption and highlighted tokens of a cover answer (its one result)."""
    result = answer["results"][0]
    if result["ac_bonus"] is None:
        bonus = " (cannot be targeted)"
    elif result["ac_bonus"]:
        bonus = f" ({result['ac_bonus']:+d} AC)"
    elif result["advantage_levels"]:
        n = result["advantage_levels"]
        bonus = f" ({n} level{'s' if n != 1 else ''} of Advantage on defense)"
    else:
        bonus = ""
    extra = ""
    if result["concealment"] != "none":
        extra = f", {result['concealment']} concealment ({result['miss_chance']}% miss)"
    attacker = query.get("attacker")
    origin = (query.get("attack") or {}).get("origin")
    if attacker is not None:
        source = _label(scene, attacker)
    elif origin:
        source = f"area origin ({float(origin[0]):g}, {float(origin[1]):g})"
    else:
        source = "an area"
    target = query["target"]
    caption = (
        f"{answer['ruleset']} cover of {_label(scene, target)} from {source}: "
        f"{result['cover']}{bonus}{extra}{_rules_text(result['rules'])}"
    )
    return caption, (target,) if attacker is None else (attacker, target)


def _vision_caption(
    scene: Scene, query: Mapping[str, Any], answer: Mapping[str, Any]
) -> tuple[str, tuple[str, ...]]:
    """Caption and highlighted tokens of a vision answer (its one result)."""
    r = answer["results"][0]
    if r["can_see"]:
        said = f"seen ({r['sense']}, {r['light']} light)"
    elif r["sense"]:
        said = f"not seen (only {r['sense']}; {r['light']} light)"
    else:
        said = f"not seen ({r['light']} light)"
    details = []
    if not r["line_of_sight"]:
        details.append("no line of sight")
    if r["obscurement"] != "none":
        details.append(OBSCURED.get(r["obscurement"], r["obscurement"]))
    if r["detection"] != "observed":
        details.append(r["detection"])
    if r["concealed"]:
        details.append(f"concealed (DC {r['flat_check_dc']})")
    if r["concealment"] != "none":
        details.append(f"{r['concealment']} concealment ({r['miss_chance']}% miss)")
    extra = f", {', '.join(details)}" if details else ""
    observer, target = query["observer"], query["target"]
    caption = (
        f"{answer['ruleset']} vision of {_label(scene, target)} from {_label(scene, observer)}: "
        f"{said}{extra}{_rules_text(r['rules'])}"
    )
    return caption, (observer, target)


def _end_label(scene: Scene, ref: Mapping[str, Any]) -> str:
    if "token" in ref:
        return _label(scene, ref["token"])
    x, y = ref["point"]
    return f"({float(x):g}, {float(y):g})"


def _line_caption(
    scene: Scene, query: Mapping[str, Any], answer: Mapping[str, Any]
) -> tuple[str, tuple[str, ...]]:
    """Caption and highlighted tokens of a line-of-effect or line-of-sight answer."""
    what = "line of effect" if query["type"] == "line-of-effect" else "line of sight"
    if answer["clear"]:
        verdict = "clear"
    elif answer["blockers"]:
        verdict = "blocked by " + ", ".join(b["id"] for b in answer["blockers"])
    else:
        verdict = "blocked"
    ends = (query["from"], query["to"])
    caption = (
        f"{what} from {_end_label(scene, ends[0])} to {_end_label(scene, ends[1])}: "
        f"{verdict}{_rules_text(answer['rules'])}"
    )
    return caption, tuple(e["token"] for e in ends if "token" in e)


Caption = Callable[[Scene, Mapping[str, Any], Mapping[str, Any]], tuple[str, tuple[str, ...]]]

#: The caption (and highlighted tokens) of each query type's answer.
CAPTIONS: dict[str, Caption] = {
    "cover": _cover_caption,
    "vision": _vision_caption,
    "line-of-effect": _line_caption,
    "line-of-sight": _line_caption,
}
