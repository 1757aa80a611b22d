"""One floor of a building in a picture (RULES GEO-10, GEO-5; API.md "Batch and pictures").

A scene with ``levels`` is drawn one level at a time: the level asked (``POST /v1/render``'s
``level``), else the viewer's, else the asking token's (the attacker, the observer, a
line's first token). :func:`split_floor` cuts the scene in two:

- what is **on** the level, drawn as usual: walls and regions whose height range meets the
  level's ``[bottom, top)`` (a wall of no level and no height stands on every floor), lights
  and creatures whose elevation lies in it (lights naming it as their level too), the surfaces
  that are its floor (naming it, or at its bottom);
- the **other** floors' walls and creatures, drawn beneath, faded (``<g id="other-levels">``).

Heights are half-open (GEO-5): a wall of the ground floor ``[0, 20)`` is not on the floor
``[20, 40)`` above it. The floor's surfaces are drawn as a pale fill under the walls, each
labelled with its id and elevation; a region without effect of its own whose height range
reaches into the level and another one (Foundry's Change Level regions: the stairs) is
labelled ``stairs``. Frames: scene px, y down; elevations in grid units.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

import msgspec
import shapely

from service.engine.levels import level_of, surface_shape
from service.engine.regions import region_geometry
from service.model import Level, Region, Scene, Span, Token, Wall
from service.render.frame import Scale, height_text
from service.render.layers import draw_tokens, draw_walls, halo_text
from service.render.svg import num, sub

#: Opacity of the other floors' walls and creatures.
FADED = "0.22"
#: Fill of the level's own floor (its surfaces).
FLOOR_FILL = "#c9b68f"


@dataclass(frozen=True)
class FloorSplit:
    """A scene cut at one level: ``on`` it, drawn as usual, and the ``others``, faded."""

    level: Level
    on: Scene
    others: Scene


def _meets(span: Span | None, level: Span) -> bool:
    """Whether a half-open range (``None``: every height) meets the level's (GEO-5)."""
    return span is None or (span.low < level.high and level.low < span.high)


def _holds(level: Span, elevation: float) -> bool:
    return level.low <= elevation < level.high


def picked_level(scene: Scene, asked: str | None, token_ids: list[str]) -> Level | None:
    """The level to draw: ``asked`` (a level id), else the first token's that is on one.

    ``None`` for a scene without levels, or when no token given stands on a level.
    Raises ``KeyError`` for an ``asked`` id the scene does not have (or any, without levels).
    """
    if asked is not None:
        found = next((lv for lv in scene.levels if lv.id == asked), None)
        if found is None:
            raise KeyError(asked)
        return found
    if not scene.levels:
        return None
    for tid in token_ids:
        token = scene.token(tid)
        if token is not None:
            level = level_of(scene.levels, token.elevation)
            if level is not None:
                return level
    return None


def split_floor(scene: Scene, level: Level) -> FloorSplit:
    """``scene`` cut at ``level`` (the module docstring says what is on it). O(items)."""
    span = level.span
    walls_on: list[Wall] = []
    walls_off: list[Wall] = []
    for w in scene.walls:
        named = w.level is not None and w.height is None  # a level's wall: its range
        here = w.level == level.id if named else _meets(w.height, span)
        (walls_on if here else walls_off).append(w)
    tokens_on: list[Token] = []
    tokens_off: list[Token] = []
    for t in scene.tokens:
        (tokens_on if _holds(span, t.elevation) else tokens_off).append(t)
    lights = tuple(
        li
        for li in scene.lights
        if li.level == level.id or (li.level is None and _holds(span, li.elevation))
    )
    regions = tuple(
        r
        for r in scene.regions
        if r.level == level.id or (r.level is None and _meets(r.elevation, span))
    )
    surfaces = tuple(
        s
        for s in scene.surfaces
        if s.level == level.id or (s.level is None and s.elevation == level.bottom)
    )
    on = msgspec.structs.replace(
        scene,
        walls=tuple(walls_on),
        tokens=tuple(tokens_on),
        lights=lights,
        regions=regions,
        surfaces=surfaces,
    )
    others = msgspec.structs.replace(
        scene,
        walls=tuple(walls_off),
        tokens=tuple(tokens_off),
        lights=(),
        regions=(),
        surfaces=(),
    )
    return FloorSplit(level, on, others)


def level_text(scene: Scene, level: Level) -> str:
    """``"level 2 lvl (20–40 ft)"``: the caption's words for the floor drawn."""
    name = level.name or level.id
    return f"level {name} ({height_text(level.bottom, level.top, scene.grid.units)})"


def draw_other_floors(root: ET.Element, others: Scene, scale: Scale) -> None:
    """Append ``<g id="other-levels">``: the other floors' walls and creatures, faded."""
    group = sub(root, "g", {"id": "other-levels", "opacity": FADED})
    draw_walls(group, others, scale)
    draw_tokens(group, others, scale, ())
    for child in group:  # ids stay unique in the document
        child.set("id", f"{child.get('id')}-other-levels")


def is_stairs(region: Region, scene: Scene) -> bool:
    """A region without effect whose height range reaches into two levels (Change Level)."""
    if region.elevation is None or (
        region.obscurement or region.light or region.water or region.magical_darkness
    ):
        return False
    return sum(1 for lv in scene.levels if _meets(region.elevation, lv.span)) >= 2


def draw_floor(root: ET.Element, on: Scene, scale: Scale) -> None:
    """Append ``<g id="surfaces">``: the level's surfaces, filled and labelled, and stairs."""
    group = sub(root, "g", {"id": "surfaces"})
    font = max(on.grid.size * 0.16, 8 * scale.unit)
    units = on.grid.units
    for surface in on.surfaces:
        shape = surface_shape(surface)
        g = sub(group, "g", {"class": "surface", "data-id": surface.id})
        sub(
            g,
            "path",
            {
                "d": _path_d(shape),
                "fill": FLOOR_FILL,
                "fill-opacity": "0.35",
                "fill-rule": "evenodd",
            },
        )
        spot = shape.representative_point() if not shape.is_empty else None
        if spot is not None:
            text = f"{surface.id} · floor at {surface.elevation:g} {units}"
            _label(g, spot.x, spot.y, text, font)
    for region in on.regions:
        if is_stairs(region, on):
            spot = region_geometry(region.shape).representative_point()
            g = sub(group, "g", {"class": "stairs", "data-id": region.id})
            assert region.elevation is not None
            text = f"stairs {height_text(region.elevation.bottom, region.elevation.top, units)}"
            _label(g, spot.x, spot.y, text, font)


def _path_d(shape: shapely.Geometry) -> str:
    """SVG path data of a (multi)polygon with its holes (``fill-rule`` evenodd)."""
    parts = []
    for poly in getattr(shape, "geoms", [shape]):
        if poly.geom_type != "Polygon":
            continue
        for ring in (poly.exterior, *poly.interiors):
            pts = list(ring.coords)
            parts.append("M" + "L".join(f"{num(x)} {num(y)}" for x, y in pts) + "Z")
    return "".join(parts)


def _label(parent: ET.Element, x: float, y: float, text: str, font: float) -> None:
    """A floor's or a stair's label: the tokens' haloed label, in the floors' brown."""
    halo_text(parent, x, y, text, font, {"fill": "#5b4a2a", "fill-opacity": "0.9"})
