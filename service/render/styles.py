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
