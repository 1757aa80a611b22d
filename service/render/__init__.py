"""SVG pictures of a scene and of the lines traced to answer a query (pure; no Flask).

:func:`render_svg` draws a canonical scene: walls by what they block (GEO-1: movement,
sight, light, sound; windows, proximity/distance and limited walls, doors each drawn apart),
tokens with their names (squares, hexagons on hex grids, ellipses on gridless scenes),
lights as the area they light (bright and dim radii clipped by the walls that block light;
switched-off lights unlit, private lights marked), regions (fog, magical darkness, water,
their own light level), the map's outline, and optionally the traced lines of an answer
coloured clear (green) or blocked (red), with the height ranges of the walls and regions
they cross, a caption and a legend in a band above the scene. :func:`render_answer` draws
the answer of a cover, vision or line query that the operation table
(``service.operations``) has asked, with its traced lines and a caption (``POST
/v1/render``, ``sightline render``). Nothing here asks the core.

Frame: the SVG user space is the scene's pixel frame (y down), so every coordinate of the
scene and of the answers is drawn as is; radii in grid units become pixels by
``radius * grid.size / grid.distance``. The document's ``width``/``height`` give its output
size (:func:`~service.render.frame.picture_scale`), and every text and stroke is sized from
that output scale with a minimum, so labels are readable at any grid size. The picture is
built with :mod:`xml.etree.ElementTree`, which escapes every text and attribute (token
names, ids); characters XML 1.0 cannot hold are dropped.

Each wall is one ``<path>`` and each token, light and region one ``<g>``, all carrying the
object's id in ``data-id`` and its kind in ``class``, so a test or a style sheet can pick
them out.

References
----------
shared/API.md "Batch and pictures"; shared/DESIGN.md "Canonical scene"; shared/RULES.md
GEO-1..4 (what each wall restricts, one-way walls), GEO-5/5a (heights), GEO-9 (region
light), 5E-VIS-3 (bright and dim radii).
"""

from service.render.answers import CAPTIONS, OBSCURED, Caption, render_answer
from service.render.frame import scene_box
from service.render.picture import render_svg
from service.render.styles import (
    BACKGROUND,
    BLOCKED_COLOUR,
    CLEAR_COLOUR,
    SOURCE_COLOURS,
    TARGET_COLOURS,
    WALL_STYLES,
    WallStyle,
    wall_kind,
)
from service.render.svg import SVG_NS

__all__ = [
    "BACKGROUND",
    "BLOCKED_COLOUR",
    "CAPTIONS",
    "CLEAR_COLOUR",
    "OBSCURED",
    "SOURCE_COLOURS",
    "SVG_NS",
    "TARGET_COLOURS",
    "WALL_STYLES",
    "Caption",
    "WallStyle",
    "render_answer",
    "render_svg",
    "scene_box",
    "wall_kind",
]
