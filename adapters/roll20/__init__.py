"""Roll20 pages (betteR20 module export, R20Exporter ``campaign.json``) -> canonical scene.

Roll20 has no official scene export. Two community layouts are read (FORMATS.md B.0):

* **betteR20 module export** (``roll20-module-*.json`` of 5etools): ``{"schema_version": 1,
  "maps": [{"attributes": {page fields}, "graphics": [...], "paths": [...], "text": [...]}]}``;
  ``path.path`` is a JSON **string**.
* **R20Exporter** ``campaign.json``: ``{"R20Exporter_format": "1.0", "pages": [{page fields,
  "graphics": [...], "paths": [...], "texts": [...], "doors": [...], "windows": [...]}]}``;
  ``path.path`` is already an **array**.

A single betteR20 map entry or a single R20Exporter page is accepted too.

Frames and units
----------------
* Positions are page pixels with the page's top-left corner at (0, 0), y down. A Roll20
  page unit is 70 px whatever the snapping: page ``width``/``height`` (units) x 70 give the
  canonical ``width``/``height`` in px (FORMATS.md B.1).
* The canonical grid square is the snapping cell: ``size`` = 70 x ``snapping_increment`` px,
  ``distance`` = ``scale_number`` units of ``scale_units`` per square.
* Light radii and vision ranges stay in page scale units (e.g. ft), which are the canonical
  grid units.
* Token ``width``/``height`` are converted from px to cells (px / (70 x
  ``snapping_increment``): squares, or hexagons on a hex page, where the top-left corner is
  placed so that the canonical hex token box keeps the graphic's centre).

Walls (``paths`` on layer ``walls``)
------------------------------------
``left``/``top`` are the **centre** of the path's bounding box, the points are local to the
box (origin at its top-left, FORMATS.md B.2). A local point (x, y) lands on the page at
``(left, top) + R(rotation) . ((x - width/2) * scaleX, (y - height/2) * scaleY)``, rotation in
degrees, clockwise on screen. When ``width``/``height`` are missing the box centre is taken
from the points' extent. Every consecutive pair of points is one canonical wall with id
``<path id>-<k>`` (k counts the segments of the path from 0, skipped ones included). ``M``
starts a new polyline, ``L`` continues it, ``Z`` closes it; quadratic (``Q``) and cubic
(``C``) curves are flattened into :data:`CURVE_SEGMENTS` straight segments each, with one
warning per path. Zero-length segments (repeated points) are skipped with one warning.
A path saved from a Roll20 API object carries its commands under ``_path`` and its id under
``_id`` (the API's read-only fields); both are read. A path whose commands cannot be read
(pathv2 ``shape``/``points``, broken JSON) is skipped with a warning naming it: no wall is
dropped silently.

Decisions taken where Roll20 data has no direct canonical meaning
-----------------------------------------------------------------
* **Several pages and no** ``page``: an :class:`AdapterError` listing the pages (index and
  name), as the Foundry adapter does for multi-scene exports; guessing the first page has
  picked a blank "Start" page in practice.
* ``barrierType`` ``"oneWay"``: canonical ``direction`` ``"left"`` (blocks lines coming from
  the left of the drawing direction, RULES.md GEO-3), ``"right"`` when ``oneWayReversed`` is
  true. Roll20's own side convention is not documented; a warning says so.
  ``"transparent"`` and UDL windows block movement and sound but not sight or light.
* UDL doors become walls with ``door`` ``"door"``/``"secret"`` and ``door_state`` ``"open"``
  (``isOpen``), ``"locked"`` (``isLocked``) or ``"closed"``. Their segment is
  ``(x, y) + path.handle0`` -> ``(x, y) + path.handle1``; a negative ``y`` (Roll20 is said to
  store door and window ``y`` upward, unverified) is negated with a warning.
* Graphics on the token layers (``objects``, ``gmlayer``) that are creatures become tokens;
  GM-layer tokens are ``hidden``. A creature represents a character, carries a bar value
  (``bar1_value`` .. ``bar4_value``) or has a name (shown or not); the other graphics of
  those layers (unnamed GM markers, props, cards) are not tokens and one warning per layer
  names them (their ids). Drawings (``isdrawing``) and graphics on other layers are not
  tokens either. Graphics that are not tokens and emit light become scene ``lights``
  (centre of the graphic); the others are listed in one warning per layer.
* Legacy lights (``light_radius`` = total radius R, ``light_dimradius`` = where dim light
  starts D): no D -> bright R, dim R; 0 <= D < R -> bright D, dim R; D >= R -> bright R,
  dim R; D < 0 (the "dim only" trick) -> bright 0, dim R. Canonical ``dim`` is the outer
  radius. Updated lights: bright = ``bright_light_distance`` when ``emits_bright_light``;
  dim = bright + ``low_light_distance`` when ``emits_low_light`` (Roll20 adds low light
  beyond bright light), else dim = bright.
* A legacy light that only its controllers see (``light_otherplayers`` false) on a token
  that has sight (``light_hassight`` true) is how pre-2020 Roll20 modelled darkvision (every
  monster of the 5etools modules carries one). With ``private_lights="vision"`` (default) it
  becomes ``senses.darkvision`` = R and the token emits no light. Any other private legacy
  light (no sight, or ``private_lights="light"``) is kept as a private light: the token's
  ``light.seen_by`` is ``"controllers"`` (it lights only for the token carrying it); on a
  graphic that is not a token, the scene light's ``seen_by`` is ``"controllers"`` (it lights
  for no observer). One warning counts each reading. An absent ``light_otherplayers`` reads
  as a light everyone sees. Updated Dynamic Lighting has no private light; what a UDL token
  shows its controllers alone is Night Vision, read as darkvision.
* ``has_night_vision`` + ``night_vision_distance`` -> ``senses.darkvision``;
  ``light_multiplier`` > 1 -> ``senses.low_light_vision``.
* Which light fields are read: Updated Dynamic Lighting fields on a UDL page
  (``dynamic_lighting_enabled``), legacy fields on a legacy page (``showlighting``); on a
  page with neither, UDL fields when the graphic sets any, else legacy ones.
* Environment: no dynamic lighting (``showlighting`` and ``dynamic_lighting_enabled`` both
  absent or false) -> ``"bright"`` (Roll20 then shows everything); legacy lighting ->
  ``"bright"`` with ``lightglobalillum``, else ``"dark"``; UDL -> with daylight mode the
  ``daylightModeOpacity`` (0-1, or a percentage) read as brightness (>= 0.75 bright,
  >= 0.25 dim, else dark), without it ``"dark"``.
* Grid: units other than feet/metres are kept as ``"ft"`` with a warning; ``grid_type``
  ``hex`` (Roll20's "Hex (V)", pointy-topped hexagons in rows, odd rows pushed right) maps to
  ``"hex-row"`` and ``hexr`` ("Hex (H)", flat-topped hexagons in columns, odd columns pushed
  down) to ``"hex-col"`` (FORMATS.md pitfall 12; evidence in ``adapters.roll20.grid``).
  Roll20 draws a whole hexagon in the page's top-left corner: ``hex_offset`` ``"even"`` in
  the canonical lattice (set where the model has that field). The hex ``size`` is Roll20's
  centre spacing, 75.1986 px (``hex``) or 79.6888 px (``hexr``) per 70 px of snapping, not
  70; Roll20's hexagons are slightly stretched, and a warning says how far the regular
  canonical lattice drifts from them across the page. ``diagonaltype`` ``foure`` ->
  equidistant, ``pythagorean`` -> euclidean, ``threefive`` -> alternating, ``manhattan`` ->
  alternating (the nearest rule) with a warning, absent -> None (unset: each ruleset's
  default, RULES.md GEO-8), unknown -> None with a warning.
* Values the canonical schema would reject (coordinates beyond +-:data:`MAX_COORD_PX`, radii
  beyond :data:`MAX_UNITS`) are dropped with a warning so that every result loads.

References
----------
shared/FORMATS.md (b) and its "Pitfalls" 4-7; shared/DESIGN.md "Canonical scene", "Frames";
shared/RULES.md GEO-3 (one-way walls).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters._common import kind_name, scene_stats, unique_ids
from adapters.errors import AdapterError
from adapters.roll20._context import UNIT_PX, Context
from adapters.roll20.graphics import read_graphics
from adapters.roll20.grid import lighting_mode, page_size, read_environment, read_grid
from adapters.roll20.pages import select_page
from adapters.roll20.paths import CURVE_SEGMENTS
from adapters.roll20.walls import path_walls, udl_openings
from service.model import MAX_COORD_PX, MAX_UNITS

__all__ = ["CURVE_SEGMENTS", "MAX_COORD_PX", "MAX_UNITS", "UNIT_PX", "count_export", "to_scene"]


def to_scene(
    export: Mapping | list, *, page: str | int | None = None, private_lights: str = "vision"
) -> dict:
    """Translate a Roll20 page export into the canonical scene.

    Parameters
    ----------
    export : Mapping
        A betteR20 module export (``{"maps": [...]}``), an R20Exporter ``campaign.json``
        (``{"R20Exporter_format": ..., "pages": [...]}``), or one map entry / page of either.
    page : str or int, optional
        Which page to use: its ``name``, or its 0-based index (an int or a string of digits;
        a page whose name is the string wins). Required when the export holds several pages.
    private_lights : {"vision", "light"}
        How a legacy light seen only by its controllers on a token with sight is read:
        ``"vision"`` (default) as the token's darkvision, ``"light"`` as a private light it
        carries (``seen_by`` ``"controllers"``). Private lights on tokens without sight are
        always private lights.

    Returns
    -------
    dict
        ``{"scene": canonical scene, "stats": {...}, "warnings": [str, ...]}``. ``scene``
        follows shared/DESIGN.md: page px with the top-left at (0, 0), y down; grid square
        = snapping cell (70 x ``snapping_increment`` px); token sizes in squares; radii in
        page scale units; token lights and scene lights carry ``seen_by``. ``stats``
        counts ``walls``, ``doors``, ``tokens`` (creatures only), ``lights`` (scene lights,
        not lights carried by tokens) and ``regions`` (always 0) and adds
        ``roll20_format`` ("betteR20" or "R20Exporter"), ``page`` (its name),
        ``page_index`` (or None for a lone page) and ``lighting`` ("legacy", "updated" or
        "off"). ``warnings`` name the source path of everything skipped, defaulted,
        approximated or not mapped.

    Raises
    ------
    AdapterError
        When the export is not a Roll20 export (with a hint when it looks like another
        supported format), holds no page, holds several and ``page`` is not given, the wanted
        page does not exist (an index out of range says which indices exist), the page has no
        attributes object, ``paths`` is not a list, or ``private_lights`` is not one of the
        two choices. Nothing else is raised.

    References
    ----------
    shared/FORMATS.md (b); shared/DESIGN.md "Canonical scene", "Frames".
    """
    if private_lights not in ("vision", "light"):
        raise AdapterError(
            f"private_lights must be 'vision' or 'light', got {private_lights!r}", ()
        )
    chosen, warnings = select_page(export, page)
    ctx = Context(prefix=chosen.prefix, error_prefix=chosen.error_prefix, warnings=warnings)
    attrs = chosen.attributes
    grid = read_grid(attrs, chosen, ctx)
    ctx.grid_size, ctx.distance, ctx.grid_type = grid["size"], grid["distance"], grid["type"]
    ctx.lighting = lighting_mode(attrs)
    canonical: dict[str, Any] = {"grid": grid}
    canonical.update(page_size(attrs, chosen, ctx))
    canonical["environment"] = read_environment(attrs, chosen, ctx)
    canonical["walls"] = _walls(chosen.content, ctx)
    canonical["tokens"], canonical["lights"] = _graphics(chosen.content, private_lights, ctx)
    canonical["regions"] = []
    _texts(chosen.content, ctx)
    name = attrs.get("name")
    stats: dict[str, Any] = scene_stats(canonical, token_lights=False)
    stats.update(
        {
            "roll20_format": chosen.layout,
            "page": name if isinstance(name, str) else None,
            "page_index": chosen.index,
            "lighting": ctx.lighting,
        }
    )
    return {"scene": canonical, "stats": stats, "warnings": ctx.warnings}


#: Path commands that draw a segment (``M`` only moves), and how many walls each makes.
_DRAWN = {"L": 1, "Z": 1, "Q": CURVE_SEGMENTS, "C": CURVE_SEGMENTS}
#: Layers whose graphics may be creatures (``adapters.roll20.graphics``).
_TOKEN_LAYERS = ("objects", "gmlayer")
#: Fields of a graphic that make it emit light (legacy and Updated Dynamic Lighting).
_LIGHT_FIELDS = ("light_radius", "emits_bright_light", "emits_low_light")


def count_export(content: Mapping) -> tuple[dict[str, int], dict[str, str]]:
    """What one Roll20 page holds, from its arrays and path commands; and where it was read.

    ``walls``: the segments the ``walls``-layer paths draw (an ``L`` or ``Z`` command one, a
    ``Q`` or ``C`` curve :data:`CURVE_SEGMENTS`; a command list given as a JSON string is
    counted in the string, not parsed) and the UDL ``doors`` and ``windows``; ``tokens``:
    the graphics of the token layers; ``lights``: the graphics that set a light field.
    Nothing is translated. Cost: O(paths + graphics + bytes of the command strings).
    """
    walls = 0
    for raw in _items(content.get("paths")):
        if isinstance(raw, Mapping) and raw.get("layer") == "walls":
            commands = raw.get("path") if raw.get("path") is not None else raw.get("_path")
            walls += _drawn(commands)
    walls += sum(len(_items(content.get(key))) for key in ("doors", "windows"))
    graphics = [g for g in _items(content.get("graphics")) if isinstance(g, Mapping)]
    counts = {
        "walls": walls,
        "tokens": sum(g.get("layer") in _TOKEN_LAYERS for g in graphics),
        "lights": sum(
            any(g.get(f) not in (None, "", 0, "0", False) for f in _LIGHT_FIELDS) for g in graphics
        ),  # fmt: skip
    }
    where = {
        "walls": "segments of the walls-layer paths, doors and windows",
        "tokens": "graphics on the objects and GM layers",
        "lights": "graphics that emit light",
    }
    return counts, where


def _drawn(commands: object) -> int:
    """Segments a path's commands draw (:data:`_DRAWN`), a JSON string counted unparsed."""
    if isinstance(commands, str):
        return sum(n * commands.count(f'"{c}"') for c, n in _DRAWN.items())
    if isinstance(commands, list):
        return sum(
            _DRAWN.get(cmd[0], 0) if isinstance(cmd, list) and cmd and isinstance(cmd[0], str)
            else 0
            for cmd in commands
        )  # fmt: skip
    return 0


def _items(value: object) -> list:
    return value if isinstance(value, list) else []


def _walls(content: Mapping, ctx: Context) -> list[dict]:
    """Walls of the ``walls``-layer paths, then UDL ``doors`` and ``windows``; unique ids."""
    walls = path_walls(content, ctx)
    walls += udl_openings(content, "doors", ctx)
    walls += udl_openings(content, "windows", ctx)
    unique_ids(walls, ctx.warn, lambda _: ctx.where("walls"))
    return walls


def _graphics(content: Mapping, private_lights: str, ctx: Context) -> tuple[list, list]:
    """Tokens and scene lights of the page's ``graphics``, each with unique ids."""
    tokens, lights = read_graphics(content, private_lights, ctx)
    unique_ids(tokens, ctx.warn, lambda _: ctx.where("tokens"))
    unique_ids(lights, ctx.warn, lambda _: ctx.where("lights"))
    return tokens, lights


def _texts(content: Mapping, ctx: Context) -> None:
    for key in ("text", "texts"):
        value = content.get(key)
        if isinstance(value, list) and value:
            ctx.warn(f"{ctx.where(key)}: {len(value)} text objects not mapped")
        elif value is not None and not isinstance(value, list):
            ctx.warn(f"{ctx.where(key)}: {kind_name(value)} is not a list, ignored")
