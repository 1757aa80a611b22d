"""How each kind of object is painted: wall strokes by kind, region fills, highlight colours.

Widths and dashes are in stroke units (px per unit chosen by ``render_svg``); colours are
SVG hex colours.

References
----------
shared/RULES.md GEO-1, GEO-4 (what each wall restricts).
"""

from __future__ import annotations

from dataclasses import dataclass

from service.model import Region, Wall
from service.render.svg import num

#: Colour of a traced line that no obstacle blocks, and of one that is blocked.
CLEAR_COLOUR = "#1e9e3a"
BLOCKED_COLOUR = "#d62728"

#: Outline and fill of highlighted tokens: the source of a query (attacker or observer)
#: and its target(s).
SOURCE_COLOURS = ("#ef6c00", "#ffcc80")
TARGET_COLOURS = ("#c2185b", "#f8bbd0")

#: Background of the scene area by ambient light (``environment.light``).
BACKGROUND = {"bright": "#fbfaf6", "dim": "#e9e8ef", "dark": "#c9c8d4"}


@dataclass(frozen=True)
class WallStyle:
    """How a kind of wall is stroked; widths and dashes in stroke units (``render_svg``)."""

    colour: str
    width: float
    dash: tuple[float, ...] = ()
    label: str = ""


#: The four things a wall can restrict (GEO-1), in the order the picture names them.
SENSES = ("move", "sight", "light", "sound")

#: Wall kinds (:func:`wall_kind`) and their strokes, in legend order. Each label says what
#: the kind blocks (GEO-1): "movement" is movement and effect (line of effect, cover).
WALL_STYLES: dict[str, WallStyle] = {
    "normal": WallStyle("#1c1c1c", 1.0, (), "wall: blocks movement and sight"),
    "low": WallStyle("#7a6a2f", 0.8, (), "low wall (cover: low)"),
    "door": WallStyle("#8b4513", 2.0, (), "door (closed)"),
    "door-locked": WallStyle("#5a2608", 2.0, (), "door (locked)"),
    "door-open": WallStyle("#8b4513", 1.0, (1.6, 1.2), "door (open)"),
    "secret": WallStyle("#8e24aa", 2.0, (), "secret door"),
    "secret-open": WallStyle("#8e24aa", 1.0, (1.6, 1.2), "secret door (open)"),
    "window": WallStyle("#4fb3ef", 1.4, (), "window: blocks movement, not sight"),
    "sight-only": WallStyle("#5f5f5f", 1.0, (2.0, 0.8, 0.3, 0.8), "blocks sight, not movement"),
    "light-only": WallStyle("#e0a800", 1.0, (0.8, 0.8), "blocks light, not movement or sight"),
    "sound-only": WallStyle("#00897b", 1.0, (0.3, 0.9), "blocks sound only"),
    "none": WallStyle("#9e9e9e", 0.5, (0.4, 1.2), "blocks nothing"),
    "limited": WallStyle("#795548", 1.2, (0.05, 2.4), "limited (terrain): 2 block"),
    "proximity": WallStyle("#6a1b9a", 1.2, (2.4, 0.6, 0.6, 0.6), "proximity / distance"),
}


def wall_blocks(wall: Wall) -> tuple[str, ...]:
    """What ``wall`` restricts at all (GEO-1, GEO-2), of :data:`SENSES`, in that order.

    An open door restricts nothing (GEO-2); any restriction other than ``"none"`` counts
    (limited, proximity and distance walls block some lines, GEO-4).
    """
    if wall.door != "none" and wall.door_state == "open":
        return ()
    return tuple(s for s in SENSES if getattr(wall, s) != "none")


def wall_kind(wall: Wall) -> str:
    """The drawing kind of a wall: a key of :data:`WALL_STYLES`.

    Doors first (``door``, ``door-locked``, ``door-open``; ``secret``, ``secret-open``),
    then by restriction (GEO-1, GEO-4): ``limited`` when movement or sight is limited,
    ``proximity`` when any sense is proximity/distance (Foundry's windows), then by what
    it blocks: movement and sight ``normal`` (``low`` for ``cover: "low"``), movement but
    not sight ``window``, sight but not movement ``sight-only``, then ``light-only``,
    ``sound-only`` and ``none`` (blocks nothing).
    """
    if wall.door == "secret":
        return "secret-open" if wall.door_state == "open" else "secret"
    if wall.door == "door":
        if wall.door_state == "open":
            return "door-open"
        return "door-locked" if wall.door_state == "locked" else "door"
    if "limited" in (wall.move, wall.sight):
        return "limited"
    if any(getattr(wall, s) in ("proximity", "distance") for s in SENSES):
        return "proximity"
    blocks = wall_blocks(wall)
    if "move" in blocks and "sight" in blocks:
        return "low" if wall.cover == "low" else "normal"
    if "move" in blocks:
        return "window"
    if "sight" in blocks:
        return "sight-only"
    if "light" in blocks:
        return "light-only"
    if "sound" in blocks:
        return "sound-only"
    return "none"


def wall_stroke(style: WallStyle, unit: float) -> dict[str, object]:
    """SVG stroke attributes of ``style`` with ``unit`` px per stroke unit."""
    attrs: dict[str, object] = {
        "stroke": style.colour,
        "stroke-width": num(style.width * unit),
        "stroke-linecap": "round",
        "stroke-linejoin": "round",
        "fill": "none",
    }
    if style.dash:
        attrs["stroke-dasharray"] = " ".join(num(max(d * unit, 0.01)) for d in style.dash)
    return attrs


def region_fill(region: Region) -> tuple[str, str, str]:
    """How a region is filled by its obscurement or substance.

    Kind, fill colour and opacity of a region's obscurement or substance (darkness over
    fog over water), ``("area", ...)`` when it has none.
    """
    if region.magical_darkness:
        return ("darkness", "#000000", "0.55")
    if region.obscurement == "heavy":
        return ("fog-heavy", "#7d7d7d", "0.55")
    if region.water:
        return ("water", "#2f7ed8", "0.3")
    if region.obscurement == "light" or region.concealment:
        return ("fog-light", "#9e9e9e", "0.3")
    return ("area", "#b388ff", "0.15")


#: The shading of a region's own light (GEO-9: it replaces the ambient light inside):
#: level -> (fill colour, opacity, legend label).
REGION_LIGHT = {
    "dark": ("#0d1137", "0.45", "region: in darkness"),
    "dim": ("#3949ab", "0.22", "region: dim light"),
    "bright": ("#ffe066", "0.4", "region: bright light"),
}

#: Region kinds (:func:`region_fill`): fill colour and legend label, in legend order.
REGION_LEGEND = {
    "darkness": ("#000000", "magical darkness"),
    "fog-heavy": ("#7d7d7d", "heavily obscured (fog)"),
    "water": ("#2f7ed8", "water"),
    "fog-light": ("#9e9e9e", "lightly obscured / concealment"),
    "area": ("#b388ff", "region"),
}

#: Paint of lights: lit (bright, dim, outline), switched off, private, darkness.
LIGHT_BRIGHT = "#ffeb3b"
LIGHT_DIM = "#ffd54f"
LIGHT_EDGE = "#c79100"
LIGHT_OFF = "#757575"
LIGHT_PRIVATE = "#7b1fa2"
