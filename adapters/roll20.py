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
* Token ``width``/``height`` are converted from px to squares (px / grid size).

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
* Graphics on the token layers (``objects``, ``gmlayer``) become tokens; GM-layer tokens are
  ``hidden``. Drawings (``isdrawing``) and graphics on other layers are not tokens; those
  that emit light become scene ``lights`` (centre of the graphic), the others are listed in
  one warning per layer.
* Legacy lights (``light_radius`` = total radius R, ``light_dimradius`` = where dim light
  starts D): no D -> bright R, dim R; 0 <= D < R -> bright D, dim R; D >= R -> bright R,
  dim R; D < 0 (the "dim only" trick) -> bright 0, dim R. Canonical ``dim`` is the outer
  radius. Updated lights: bright = ``bright_light_distance`` when ``emits_bright_light``;
  dim = bright + ``low_light_distance`` when ``emits_low_light`` (Roll20 adds low light
  beyond bright light), else dim = bright.
* A legacy light that only its controllers see (``light_otherplayers`` false) on a token
  that has sight (``light_hassight`` true) is how pre-2020 Roll20 modelled darkvision (every
  monster of the 5etools modules carries one). With ``private_lights="vision"`` (default) it
  becomes ``senses.darkvision`` = R and the token emits no light; ``private_lights="light"``
  keeps it as the token's light. One warning gives the number of tokens concerned.
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
* Grid: units other than feet/metres are kept as ``"ft"`` with a warning; hex grids map to
  ``"hex-col"`` (``hex``) and ``"hex-row"`` (``hexr``) with a warning that hex geometry is
  approximated; ``diagonaltype`` ``foure`` -> equidistant, ``pythagorean`` -> euclidean,
  ``threefive`` -> alternating, ``manhattan`` -> equidistant with a warning.
* Values the canonical schema would reject (coordinates beyond +-:data:`MAX_COORD_PX`, radii
  beyond :data:`MAX_UNITS`) are dropped with a warning so that every result loads.

References
----------
shared/FORMATS.md (b) and its "Pitfalls" 4-7; shared/DESIGN.md "Canonical scene", "Frames";
shared/RULES.md GEO-3 (one-way walls).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters._common import (
    BLOCKS_ALL,
    canonical_wall,
    clean,
    diagonal_rule,
    entries,
    finite_number,
    format_hint,
    grid_units,
    in_range,
    json_path,
    kind_name,
    list_entries,
    no_senses,
    short_list,
    size_category,
    unique_ids,
)
from adapters.errors import AdapterError
from service.model import (
    MAX_COORD_PX,
    MAX_EXTENT_PX,
    MAX_GRID_SIZE_PX,
    MAX_SQUARES,
    MAX_UNITS,
    MIN_GRID_DISTANCE,
    MIN_GRID_SIZE_PX,
    MIN_SQUARES,
)

__all__ = ["CURVE_SEGMENTS", "MAX_COORD_PX", "MAX_UNITS", "UNIT_PX", "to_scene"]

#: Pixels in one Roll20 page unit (page ``width``/``height`` are counted in these).
UNIT_PX = 70
#: Straight segments used for each quadratic or cubic curve of a path.
CURVE_SEGMENTS = 4
#: Tolerance, in degrees, for a graphic's rotation to count as a whole quarter turn (float noise
#: of rotations written as decimals).
RIGHT_ANGLE_TOL_DEG = 1e-6

_TOKEN_LAYERS = ("objects", "gmlayer")
_LAYER_LABELS = {
    "map": "map layer (map images)",
    "walls": "dynamic lighting layer",
    "foreground": "foreground layer",
    "objects": "token layer",
    "gmlayer": "GM layer",
}
_GRID_TYPES = {"square": "square", "hex": "hex-col", "hexr": "hex-row"}
_DIAGONALS = {
    "foure": ("equidistant", None),
    "pythagorean": ("euclidean", None),
    "threefive": ("alternating", None),
    "manhattan": ("equidistant", "manhattan has no canonical rule, equidistant used"),
}
_UDL_FIELDS = ("emits_bright_light", "emits_low_light", "has_night_vision")
_ARITY = {"M": 2, "L": 2, "Q": 4, "C": 6, "Z": 0}


@dataclass
class _Ctx:
    """Per-call state: warnings, JSON path prefix of the page, grid."""

    prefix: str
    error_prefix: tuple[str | int, ...]
    warnings: list[str] = field(default_factory=list)
    grid_size: float = UNIT_PX
    distance: float = 5
    lighting: str = "off"

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def where(self, *parts: str | int) -> str:
        return json_path((self.prefix, *parts))

    def error(self, message: str, *path: str | int) -> AdapterError:
        return AdapterError(message, self.error_prefix + path)


@dataclass
class _Page:
    """The chosen page: its attributes, its content, where it sits, which layout."""

    attributes: Mapping
    content: Mapping
    prefix: str
    error_prefix: tuple[str | int, ...]
    attr_prefix: tuple[str | int, ...]
    index: int | None
    layout: str


# --------------------------------------------------------------------------- public API


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
        ``"vision"`` (default) as the token's darkvision, ``"light"`` as light it emits.

    Returns
    -------
    dict
        ``{"scene": canonical scene, "stats": {...}, "warnings": [str, ...]}``. ``scene``
        follows shared/DESIGN.md: page px with the top-left at (0, 0), y down; grid square
        = snapping cell (70 x ``snapping_increment`` px); token sizes in squares; radii in
        page scale units. ``stats`` counts ``walls``, ``doors``, ``tokens``, ``lights``
        (scene lights, not lights carried by tokens) and ``regions`` (always 0) and adds
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
    chosen, warnings = _select_page(export, page)
    ctx = _Ctx(prefix=chosen.prefix, error_prefix=chosen.error_prefix, warnings=warnings)
    attrs = chosen.attributes

    grid = _grid(attrs, chosen, ctx)
    ctx.grid_size, ctx.distance = grid["size"], grid["distance"]
    ctx.lighting = _lighting_mode(attrs)
    canonical: dict[str, Any] = {"grid": grid}
    canonical.update(_page_size(attrs, chosen, ctx))
    canonical["environment"] = _environment(attrs, chosen, ctx)
    walls = _path_walls(chosen.content, ctx)
    walls += _udl_openings(chosen.content, "doors", ctx)
    walls += _udl_openings(chosen.content, "windows", ctx)
    unique_ids(walls, ctx.warn, lambda _: ctx.where("walls"))
    canonical["walls"] = walls
    tokens, lights = _graphics(chosen.content, private_lights, ctx)
    unique_ids(tokens, ctx.warn, lambda _: ctx.where("tokens"))
    unique_ids(lights, ctx.warn, lambda _: ctx.where("lights"))
    canonical["tokens"] = tokens
    canonical["lights"] = lights
    canonical["regions"] = []
    _texts(chosen.content, ctx)

    name = attrs.get("name")
    stats = {
        "walls": len(walls),
        "doors": sum(1 for w in walls if w["door"] != "none"),
        "tokens": len(tokens),
        "lights": len(lights),
        "regions": 0,
        "roll20_format": chosen.layout,
        "page": name if isinstance(name, str) else None,
        "page_index": chosen.index,
        "lighting": ctx.lighting,
    }
    return {"scene": canonical, "stats": stats, "warnings": ctx.warnings}


# --------------------------------------------------------------------------- page choice


def _select_page(export: object, wanted: str | int | None) -> tuple[_Page, list[str]]:
    """Pick the page; return it with the warnings raised while listing pages."""
    warnings: list[str] = []
    if not isinstance(export, Mapping):
        raise AdapterError(
            f"a Roll20 export must be a JSON object, got {kind_name(export)}"
            + format_hint(export, "roll20"),
            (),
        )
    if "maps" in export:
        key, layout = "maps", "betteR20"
    elif "pages" in export or "R20Exporter_format" in export:
        key, layout = "pages", "R20Exporter"
    elif _is_single_page(export):
        name = _page_name(export)
        if wanted is not None and wanted != name and str(wanted).strip() != "0":
            raise AdapterError(
                f"page {wanted!r} not found; the export is a single page, {name!r} "
                "(expected its name, 0 or no page)",
                (),
            )
        return _page_of(export, "", (), None, warnings), warnings
    else:
        raise AdapterError(
            "not a Roll20 export: expected betteR20 'maps' (entries with 'attributes' and "
            "'paths'), an R20Exporter 'pages' list or a single page with 'paths'/'graphics'"
            + format_hint(export, "roll20"),
            (),
        )

    collection = export.get(key)
    if not isinstance(collection, list):
        raise AdapterError(f"'{key}' must be a list, got {kind_name(collection)}", (key,))
    pages: list[tuple[int, Mapping]] = list(list_entries(collection, key, warnings.append))
    if not pages:
        raise AdapterError(f"the export holds no page ('{key}' is empty)", (key,))
    listing = ", ".join(f"{i}: {_page_name(p)!r}" for i, p in pages)

    def choose(i: int, entry: Mapping) -> tuple[_Page, list[str]]:
        return _page_of(entry, f"{key}[{i}]", (key, i), i, warnings, layout), warnings

    if wanted is None:
        if len(pages) > 1:
            raise AdapterError(
                f"the export holds {len(pages)} pages; pick one with page= (name or index): "
                f"{listing}",
                (key,),
            )
        return choose(*pages[0])
    if isinstance(wanted, bool) or not isinstance(wanted, str | int):
        raise AdapterError(
            f"page must be a page name or a 0-based index, got {kind_name(wanted)}", (key,)
        )
    if isinstance(wanted, str):
        hits = [(i, p) for i, p in pages if _page_name(p) == wanted]
        if len(hits) > 1:
            raise AdapterError(
                f"page name {wanted!r} is ambiguous (indices "
                f"{', '.join(str(i) for i, _ in hits)}); use the index",
                (key,),
            )
        if hits:
            return choose(*hits[0])
        if not wanted.strip().isdigit():
            raise AdapterError(f"page {wanted!r} not found; available: {listing}", (key,))
        wanted = int(wanted.strip())
    if not 0 <= wanted < len(collection):
        raise AdapterError(
            f"page index {wanted} is out of range: expected 0 to {len(collection) - 1} ({listing})",
            (key,),
        )
    for i, entry in pages:
        if i == wanted:
            return choose(i, entry)
    raise AdapterError(
        f"page index {wanted} is a {kind_name(collection[wanted])} entry, not a page; "
        f"available: {listing}",
        (key, wanted),
    )


def _page_of(
    entry: Mapping,
    prefix: str,
    error_prefix: tuple[str | int, ...],
    index: int | None,
    warnings: list[str],
    layout: str = "single",
) -> _Page:
    """The page's attributes/content pair; a single page's layout is told by its shape."""
    if "attributes" in entry:
        attributes = entry.get("attributes")
        if not isinstance(attributes, Mapping):
            raise AdapterError(
                f"page attributes must be an object, got {kind_name(attributes)}",
                error_prefix + ("attributes",),
            )
        attr_prefix: tuple[str | int, ...] = ("attributes",)
        if layout == "single":
            layout = "betteR20"
    else:
        if layout == "betteR20":
            raise AdapterError(
                "a betteR20 map needs an 'attributes' object (page settings)", error_prefix
            )
        attributes, attr_prefix = entry, ()
        if layout == "single":
            layout = "R20Exporter"
    return _Page(attributes, entry, prefix, error_prefix, attr_prefix, index, layout)


def _page_name(entry: Mapping) -> object:
    """Name of a betteR20 map entry or an R20Exporter page (None when absent)."""
    attributes = entry.get("attributes")
    if isinstance(attributes, Mapping):
        return attributes.get("name")
    return entry.get("name")


def _is_single_page(export: Mapping) -> bool:
    has_content = any(k in export for k in ("paths", "graphics"))
    has_page = isinstance(export.get("attributes"), Mapping) or any(
        k in export for k in ("snapping_increment", "scale_number", "showlighting")
    )
    return has_content and has_page


# --------------------------------------------------------------------------- grid, size


def _grid(attrs: Mapping, page: _Page, ctx: _Ctx) -> dict:
    """Canonical grid: size = 70 x snapping_increment px, distance = scale_number."""
    where = page.attr_prefix

    def at(key: str) -> str:
        return ctx.where(*where, key)

    snapping = _read_number(attrs.get("snapping_increment"), at("snapping_increment"), ctx)
    if snapping is None:
        snapping = 1
    elif not MIN_GRID_SIZE_PX <= snapping * UNIT_PX <= MAX_GRID_SIZE_PX:
        ctx.warn(
            f"{at('snapping_increment')}: {snapping!r} gives no usable cell size "
            "(0 = snapping off), 1 used (70 px squares)"
        )
        snapping = 1
    size = clean(snapping * UNIT_PX)

    distance = _read_number(attrs.get("scale_number"), at("scale_number"), ctx)
    if distance is None:
        distance = 5
    elif not MIN_GRID_DISTANCE <= distance <= MAX_UNITS:
        ctx.warn(f"{at('scale_number')}: {distance!r} is not a usable distance, 5 used")
        distance = 5

    units_raw = attrs.get("scale_units")
    units = "ft" if units_raw is None else grid_units(units_raw, at("scale_units"), ctx.warn)

    gtype_raw = attrs.get("grid_type")
    gkey = gtype_raw.strip().lower() if isinstance(gtype_raw, str) else None
    if gtype_raw is None or gkey == "":
        gtype = "square"
    elif gkey is not None and gkey in _GRID_TYPES:
        gtype = _GRID_TYPES[gkey]
        if gtype != "square":
            ctx.warn(
                f"{at('grid_type')}: hex grid ({gtype_raw}) read as {gtype}; hex geometry "
                "is approximated (cell size taken as the snapping width)"
            )
    else:
        ctx.warn(f"{at('grid_type')}: unknown grid type {gtype_raw!r}, square used")
        gtype = "square"

    diag_raw = attrs.get("diagonaltype")
    dkey = diag_raw.strip().lower() if isinstance(diag_raw, str) else None
    diagonals = "equidistant"
    if diag_raw is not None and dkey != "":
        rule = _DIAGONALS.get(dkey) if dkey is not None else None
        diagonals = diagonal_rule(rule, diag_raw, at("diagonaltype"), ctx.warn)
    return {
        "size": size,
        "distance": distance,
        "units": units,
        "type": gtype,
        "diagonals": diagonals,
    }


def _page_size(attrs: Mapping, page: _Page, ctx: _Ctx) -> dict:
    """Page ``width``/``height`` in px: page units x 70 (FORMATS.md B.1)."""
    out: dict[str, Any] = {}
    for key in ("width", "height"):
        where = ctx.where(*page.attr_prefix, key)
        value, _ = _parse_number(attrs.get(key))
        if value is None or not 0 < value * UNIT_PX <= MAX_EXTENT_PX:
            ctx.warn(f"{where}: {attrs.get(key)!r} is not a page size, size unknown (null)")
            out[key] = None
        else:
            out[key] = clean(value * UNIT_PX)
    return out


# --------------------------------------------------------------------------- environment


def _lighting_mode(attrs: Mapping) -> str:
    if _truthy(attrs.get("dynamic_lighting_enabled")):
        return "updated"
    if _truthy(attrs.get("showlighting")):
        return "legacy"
    return "off"


def _environment(attrs: Mapping, page: _Page, ctx: _Ctx) -> dict:
    """Ambient light level from the page's lighting settings (see module docstring)."""
    light = "bright"
    if ctx.lighting == "legacy":
        light = "bright" if _truthy(attrs.get("lightglobalillum")) else "dark"
    elif ctx.lighting == "updated":
        if _truthy(attrs.get("daylight_mode_enabled")):
            where = ctx.where(*page.attr_prefix, "daylightModeOpacity")
            opacity = _read_number(attrs.get("daylightModeOpacity"), where, ctx)
            if opacity is None:
                opacity = 1
            if opacity > 1:
                opacity = opacity / 100
            if not 0 <= opacity <= 1:
                ctx.warn(f"{where}: {opacity!r} is not a fraction, 1 used")
                opacity = 1
            light = "bright" if opacity >= 0.75 else "dim" if opacity >= 0.25 else "dark"
        else:
            light = "dark"
    return {"light": light, "gravity": 1, "underwater": False}


# --------------------------------------------------------------------------- walls


def _path_walls(content: Mapping, ctx: _Ctx) -> list[dict]:
    """Canonical walls from the ``walls``-layer paths (FORMATS.md B.2)."""
    raw_paths = content.get("paths")
    if raw_paths is None:
        return []
    if not isinstance(raw_paths, list):
        raise ctx.error(f"'paths' must be a list, got {kind_name(raw_paths)}", "paths")
    walls: list[dict] = []
    other_layers: dict[str, list[int]] = {}
    zero_length: list[tuple[str, int]] = []
    one_way = 0
    strokes: Counter[str] = Counter()
    for i, raw in enumerate(raw_paths):
        where = ctx.where("paths", i)
        if not isinstance(raw, Mapping):
            ctx.warn(f"{where}: {kind_name(raw)} entry skipped")
            continue
        layer = raw.get("layer")
        if layer != "walls":
            other_layers.setdefault(str(layer), []).append(i)
            continue
        if isinstance(raw.get("stroke"), str):
            strokes[raw["stroke"]] += 1
        polylines = _polylines(raw, where, ctx)
        if polylines is None:
            continue
        base_id = raw.get("id")
        if not isinstance(base_id, str) or not base_id:
            ctx.warn(f"{where}.id: {base_id!r} missing, path-{i} used")
            base_id = f"path-{i}"
        restrictions, direction = _barrier(raw, where, ctx)
        one_way += direction != "both"
        k = 0
        far = 0
        zero_here = 0
        for line in polylines:
            for a, b in zip(line, line[1:], strict=False):
                if a == b:
                    zero_here += 1
                elif not in_range(*a, *b):
                    far += 1
                else:
                    walls.append(
                        canonical_wall(
                            f"{base_id}-{k}", [a[0], a[1], b[0], b[1]], restrictions, direction
                        )
                    )
                k += 1
        if zero_here:
            zero_length.append((where, zero_here))
        if far:
            ctx.warn(f"{where}: {far} segments beyond +-{MAX_COORD_PX:g} px skipped")
    if zero_length:
        count = sum(n for _, n in zero_length)
        ctx.warn(
            f"{ctx.where('paths')}: {count} zero-length segments (repeated points) skipped: "
            + ", ".join(f"{w} ({n})" for w, n in zero_length)
        )
    if one_way:
        ctx.warn(
            f"{ctx.where('paths')}: {one_way} one-way barriers block from the left of their "
            "drawing direction (right when oneWayReversed); Roll20's side convention is "
            "unverified"
        )
    if len(strokes) > 1:
        colours = ", ".join(f"{c} x{n}" for c, n in strokes.most_common())
        ctx.warn(
            f"{ctx.where('paths')}: wall strokes use {len(strokes)} colours ({colours}); "
            "colour conventions (doors, secret passages) are not mapped"
        )
    for layer, indices in other_layers.items():
        label = _LAYER_LABELS.get(layer, f"unknown layer {layer!r}")
        ctx.warn(
            f"{ctx.where('paths')}: {len(indices)} drawings on the {label} not mapped "
            f"(indices {short_list(indices)})"
        )
    return walls


def _polylines(raw: Mapping, where: str, ctx: _Ctx) -> list[list[tuple[float, float]]] | None:
    """Page-px polylines of one path, or None (path skipped with a warning)."""
    commands = raw.get("path")
    if commands is None:
        if "points" in raw or "shape" in raw:
            ctx.warn(f"{where}: pathv2 shapes (shape/points) are not supported, path skipped")
        else:
            ctx.warn(f"{where}.path: missing, path skipped")
        return None
    if isinstance(commands, str):
        try:
            commands = json.loads(commands)
        except ValueError:
            ctx.warn(f"{where}.path: not valid JSON, path skipped")
            return None
    if not isinstance(commands, list):
        ctx.warn(f"{where}.path: {kind_name(commands)} is not a list of commands, path skipped")
        return None
    position = _left_top(raw, where, "path", ctx)
    if position is None:
        return None
    left, top = position

    local, curves = _local_polylines(commands, where, ctx)
    points = [p for line in local for p in line]
    if not points:
        ctx.warn(f"{where}.path: no points, path skipped")
        return None
    if curves:
        ctx.warn(
            f"{where}.path: {curves} curves (Q/C) flattened into {CURVE_SEGMENTS} segments each"
        )

    # box centre in local coordinates: width/2, height/2 (FORMATS.md B.2)
    centre = []
    for key, axis in (("width", 0), ("height", 1)):
        size, ok = _parse_number(raw.get(key))
        if size is None or size < 0:
            shown = "missing" if ok and size is None else f"{raw.get(key)!r} is not a size"
            ctx.warn(f"{where}.{key}: {shown}, box centre taken from the points' extent")
            values = [p[axis] for p in points]
            centre.append((min(values) + max(values)) / 2)
        else:
            centre.append(size / 2)
    scale = []
    for key in ("scaleX", "scaleY"):
        value, ok = _parse_number(raw.get(key))
        if value is None or value == 0 or abs(value) > MAX_COORD_PX:
            if not ok or value is not None:
                ctx.warn(f"{where}.{key}: {raw.get(key)!r} is not a usable scale, 1 used")
            value = 1
        scale.append(value)
    rotation = _read_number(raw.get("rotation"), f"{where}.rotation", ctx) or 0
    theta = math.radians(math.fmod(rotation, 360))
    cos, sin = math.cos(theta), math.sin(theta)

    def place(p: tuple[float, float]) -> tuple[float, float]:
        dx, dy = (p[0] - centre[0]) * scale[0], (p[1] - centre[1]) * scale[1]
        return (clean(left + dx * cos - dy * sin), clean(top + dx * sin + dy * cos))

    return [[place(p) for p in line] for line in local]


def _left_top(raw: Mapping, where: str, what: str, ctx: _Ctx) -> tuple[float, float] | None:
    """Page-px ``left``/``top`` of a path or graphic, or None (``what`` skipped, warned)."""
    left = _read_number(raw.get("left"), f"{where}.left", ctx)
    top = _read_number(raw.get("top"), f"{where}.top", ctx)
    if left is None or top is None:
        ctx.warn(
            f"{where}.left/top: ({raw.get('left')!r}, {raw.get('top')!r}) is not a "
            f"position, {what} skipped"
        )
        return None
    return left, top


def _local_polylines(
    commands: list, where: str, ctx: _Ctx
) -> tuple[list[list[tuple[float, float]]], int]:
    """Box-local polylines of a Roll20 path command list, and the number of curves."""
    lines: list[list[tuple[float, float]]] = []
    current: list[tuple[float, float]] | None = None
    curves = 0
    bad: list[int] = []
    for j, item in enumerate(commands):
        if not isinstance(item, list | tuple) or not item or not isinstance(item[0], str):
            bad.append(j)
            current = None
            continue
        cmd = item[0].upper() if item[0] in ("z",) else item[0]
        if cmd not in _ARITY or len(item) - 1 < _ARITY[cmd]:
            bad.append(j)
            current = None
            continue
        values = [finite_number(v) for v in item[1 : 1 + _ARITY[cmd]]]
        if any(v is None for v in values):
            bad.append(j)
            current = None
            continue
        nums: list[float] = [float(v) for v in values if v is not None]
        if cmd == "Z":
            if current and len(current) > 1 and current[-1] != current[0]:
                current.append(current[0])
            continue
        end = (nums[-2], nums[-1])
        if cmd == "M" or current is None:
            current = [end]
            lines.append(current)
            continue
        start = current[-1]
        if cmd == "L":
            current.append(end)
        else:
            curves += 1
            controls = [(nums[k], nums[k + 1]) for k in range(0, len(nums) - 2, 2)]
            current.extend(_bezier(start, controls, end))
    if bad:
        shown = ", ".join(str(j) for j in bad[:5]) + (", ..." if len(bad) > 5 else "")
        ctx.warn(
            f"{where}.path: {len(bad)} unreadable commands skipped (indices {shown}); "
            "the line restarts after each"
        )
    return [line for line in lines if line], curves


def _bezier(
    start: tuple[float, float], controls: Sequence[tuple[float, float]], end: tuple[float, float]
) -> list[tuple[float, float]]:
    """Points of a quadratic (1 control) or cubic (2 controls) curve after ``start``."""
    pts = [start, *controls, end]
    out = []
    for step in range(1, CURVE_SEGMENTS + 1):
        t = step / CURVE_SEGMENTS
        layer = list(pts)
        while len(layer) > 1:  # de Casteljau
            layer = [
                ((1 - t) * a[0] + t * b[0], (1 - t) * a[1] + t * b[1])
                for a, b in zip(layer, layer[1:], strict=False)
            ]
        out.append(layer[0])
    out[-1] = end
    return out


def _barrier(raw: Mapping, where: str, ctx: _Ctx) -> tuple[dict, str]:
    """Restrictions and direction from the UDL ``barrierType``."""
    kind = raw.get("barrierType")
    normal = dict(BLOCKS_ALL)
    if kind in (None, "", "wall"):
        return normal, "both"
    if kind == "oneWay":
        reversed_ = raw.get("oneWayReversed")
        if reversed_ not in (None, True, False, "true", "false"):
            ctx.warn(f"{where}.oneWayReversed: {reversed_!r} is not true/false, false used")
        return normal, "right" if _truthy(reversed_) else "left"
    if kind == "transparent":
        return dict(normal, sight="none", light="none"), "both"
    ctx.warn(f"{where}.barrierType: unknown value {kind!r}, normal wall used")
    return normal, "both"


def _udl_openings(content: Mapping, key: str, ctx: _Ctx) -> list[dict]:
    """UDL ``doors``/``windows`` (FORMATS.md B.3) as canonical walls."""
    walls: list[dict] = []
    negated = 0
    for i, raw in entries(content, key, ctx.warn, ctx.where(key)):
        where = ctx.where(key, i)
        x = _read_number(raw.get("x"), f"{where}.x", ctx)
        y = _read_number(raw.get("y"), f"{where}.y", ctx)
        handles = raw.get("path")
        if isinstance(handles, str):
            try:
                handles = json.loads(handles)
            except ValueError:
                handles = None
        ends = []
        if isinstance(handles, Mapping):
            for name in ("handle0", "handle1"):
                h = handles.get(name)
                if isinstance(h, Mapping):
                    hx, hy = finite_number(h.get("x")), finite_number(h.get("y"))
                    if hx is not None and hy is not None:
                        ends.append((hx, hy))
        if x is None or y is None or len(ends) != 2:
            ctx.warn(
                f"{where}: needs numeric x, y and path.handle0/handle1 {{x, y}}, {key[:-1]} skipped"
            )
            continue
        sign = 1
        if y < 0:
            negated += 1
            y, sign = -y, -1
        c = [clean(v) for v in (x + ends[0][0], y + sign * ends[0][1])]
        c += [clean(v) for v in (x + ends[1][0], y + sign * ends[1][1])]
        if not in_range(*c):
            ctx.warn(f"{where}: beyond +-{MAX_COORD_PX:g} px, {key[:-1]} skipped")
            continue
        if c[:2] == c[2:]:
            ctx.warn(f"{where}: zero-length {key[:-1]} skipped")
            continue
        flags = {}
        for flag in ("isOpen", "isLocked", "isSecret"):
            value = raw.get(flag)
            if value not in (None, True, False, "true", "false"):
                ctx.warn(f"{where}.{flag}: {value!r} is not true/false, false used")
            flags[flag] = _truthy(value)
        ident = raw.get("id")
        ident = ident if isinstance(ident, str) and ident else f"{key[:-1]}-{i}"
        if key == "doors":
            if flags["isOpen"] and flags["isLocked"]:
                ctx.warn(f"{where}: both isOpen and isLocked, open used")
            state = "open" if flags["isOpen"] else "locked" if flags["isLocked"] else "closed"
            door = "secret" if flags["isSecret"] else "door"
            walls.append(canonical_wall(ident, c, door=door, state=state))
        else:
            moving = "none" if flags["isOpen"] else "normal"
            restrictions = {"move": moving, "sight": "none", "light": "none", "sound": moving}
            walls.append(canonical_wall(ident, c, restrictions))
    if negated:
        ctx.warn(
            f"{ctx.where(key)}: {negated} negative y read as stored upward and negated "
            "(unverified Roll20 convention)"
        )
    return walls


# --------------------------------------------------------------------------- graphics


def _graphics(content: Mapping, private_lights: str, ctx: _Ctx) -> tuple[list[dict], list[dict]]:
    """Tokens (token layers) and scene lights (lit graphics elsewhere) from ``graphics``."""
    tokens: list[dict] = []
    lights: list[dict] = []
    unmapped: dict[str, list[int]] = {}
    private = 0
    ignored_legacy = 0
    markers = 0
    for i, raw in entries(content, "graphics", ctx.warn, ctx.where("graphics")):
        where = ctx.where("graphics", i)
        layer = raw.get("layer")
        drawing = _truthy(raw.get("isdrawing"))
        box = _box(raw, where, ctx)
        if box is None:
            continue
        use_udl = _uses_udl(raw, ctx.lighting)
        if use_udl and _legacy_light_set(raw):
            ignored_legacy += 1
        if use_udl:
            emitted, vision, is_private = _udl_light(raw, where, ctx)
        else:
            emitted, vision, is_private = _legacy_light(raw, where, ctx)
        lit = emitted["dim"] > 0
        is_token = layer in _TOKEN_LAYERS and not drawing
        ident = raw.get("id")
        if not isinstance(ident, str) or not ident:
            if is_token or lit:
                ctx.warn(f"{where}.id: {ident!r} missing, graphic-{i} used")
            ident = f"graphic-{i}"

        if is_token:
            senses = _senses(raw, where, ctx, use_udl)
            if is_private and private_lights == "vision":
                private += 1
                senses["darkvision"] = max(senses["darkvision"], emitted["dim"])
                emitted = {"bright": 0, "dim": 0}
            elif is_private:
                private += 1
            if vision is not None:
                senses["darkvision"] = max(senses["darkvision"], vision)
            if emitted["dim"] > 0:
                angle = _angle(raw, use_udl, where, ctx)
                if angle != 360:
                    ctx.warn(f"{where}: light cone of {angle} deg kept as an omnidirectional light")
            if isinstance(raw.get("statusmarkers"), str) and raw["statusmarkers"].strip():
                markers += 1
            tokens.append(_token(raw, ident, box, layer == "gmlayer", senses, emitted, ctx))
        elif lit:
            angle = _angle(raw, use_udl, where, ctx)
            if not use_udl and raw.get("light_otherplayers") is False:
                ctx.warn(
                    f"{where}: light shown only to its controllers in Roll20, kept as a "
                    "light everyone sees"
                )
            rotation = _read_number(raw.get("rotation"), f"{where}.rotation", ctx) or 0
            rotation = clean(math.fmod(rotation, 360))
            if angle != 360:
                ctx.warn(
                    f"{where}: light cone rotation {rotation} deg passed through unchanged "
                    "(Roll20's facing convention unverified)"
                )
            lights.append(
                {
                    "id": ident,
                    "x": box[0],
                    "y": box[1],
                    "bright": emitted["bright"],
                    "dim": emitted["dim"],
                    "angle": angle,
                    "rotation": rotation,
                    "darkness": False,
                    "walls": True,
                }
            )
        else:
            label = "" if drawing and layer in _TOKEN_LAYERS else str(layer)
            unmapped.setdefault(label, []).append(i)
    if private:
        choice = "darkvision" if private_lights == "vision" else "light"
        ctx.warn(
            f"{ctx.where('graphics')}: {private} legacy lights seen only by their "
            f"controllers (light_otherplayers false, light_hassight true) read as the "
            f"token's own {choice}"
        )
    if ignored_legacy:
        ctx.warn(
            f"{ctx.where('graphics')}: legacy light_* fields ignored on {ignored_legacy} "
            "graphics (Updated Dynamic Lighting fields used)"
        )
    if markers:
        ctx.warn(f"{ctx.where('graphics')}: status markers on {markers} tokens not mapped")
    if tokens:
        ctx.warn(
            f"{ctx.where('graphics')}: conditions, abilities and swim speed live on Roll20 "
            "characters, not on the page; defaults used"
        )
    for label, indices in unmapped.items():
        if label == "":
            what = "drawings (isdrawing) on the token layers"
        else:
            what = "graphics on the " + _LAYER_LABELS.get(label, f"unknown layer {label!r}")
        ctx.warn(
            f"{ctx.where('graphics')}: {len(indices)} {what} not mapped "
            f"(indices {short_list(indices)})"
        )
    return tokens, lights


def _box(raw: Mapping, where: str, ctx: _Ctx) -> tuple[float, float, float, float] | None:
    """Centre (px) and footprint (px; a quarter turn swaps it) of a graphic, or None."""
    position = _left_top(raw, where, "graphic", ctx)
    if position is None:
        return None
    left, top = position
    size = []
    for key in ("width", "height"):
        value, _ = _parse_number(raw.get(key))
        if value is None or not MIN_SQUARES <= value / ctx.grid_size <= MAX_SQUARES:
            ctx.warn(
                f"{where}.{key}: {raw.get(key)!r} is not a size in px, one square "
                f"({clean(ctx.grid_size)} px) used"
            )
            value = ctx.grid_size
        size.append(value)
    rotation = _read_number(raw.get("rotation"), f"{where}.rotation", ctx) or 0
    turn = rotation % 180
    if abs(turn - 90) < RIGHT_ANGLE_TOL_DEG:
        size.reverse()
    elif min(turn, 180 - turn) > RIGHT_ANGLE_TOL_DEG and size[0] != size[1]:
        ctx.warn(f"{where}.rotation: {rotation} deg, footprint kept axis-aligned")
    if not in_range(left - size[0] / 2, top - size[1] / 2, left + size[0], top + size[1]):
        ctx.warn(f"{where}: beyond +-{MAX_COORD_PX:g} px, graphic skipped")
        return None
    return left, top, size[0], size[1]


def _token(
    raw: Mapping,
    ident: str,
    box: tuple[float, float, float, float],
    hidden: bool,
    senses: dict,
    light: dict,
    ctx: _Ctx,
) -> dict:
    """Canonical token: top-left corner in px, size in squares."""
    left, top, width_px, height_px = box
    width = clean(width_px / ctx.grid_size)
    height = clean(height_px / ctx.grid_size)
    name = raw.get("name")
    return {
        "id": ident,
        "name": name if isinstance(name, str) else ("" if name is None else str(name)),
        "x": clean(left - width_px / 2),
        "y": clean(top - height_px / 2),
        "width": width,
        "height": height,
        "elevation": 0,
        "size": size_category(width),
        "reach": ctx.distance,
        "senses": senses,
        "conditions": [],
        "swim_speed": 0,
        "abilities": {"str": 0, "dex": 0, "con": 0},
        "light": light,
        "hidden": hidden,
    }


def _uses_udl(raw: Mapping, lighting: str) -> bool:
    if lighting == "updated":
        return True
    if lighting == "legacy":
        return False
    return any(_truthy(raw.get(k)) for k in _UDL_FIELDS)


def _legacy_light_set(raw: Mapping) -> bool:
    return raw.get("light_radius") not in (None, "", 0, "0")


def _legacy_light(raw: Mapping, where: str, ctx: _Ctx) -> tuple[dict, float | None, bool]:
    """(light {bright, dim}, vision range or None, private?) from ``light_*`` fields."""
    radius = _read_distance(raw.get("light_radius"), f"{where}.light_radius", ctx)
    none = {"bright": 0, "dim": 0}
    if radius is None or radius <= 0:
        return none, None, False
    dim_start = _read_number(raw.get("light_dimradius"), f"{where}.light_dimradius", ctx)
    if dim_start is None or dim_start >= radius:
        bright = radius
    elif dim_start < 0:
        bright = 0
    else:
        bright = dim_start
    private = raw.get("light_otherplayers") is False and _truthy(raw.get("light_hassight"))
    return {"bright": bright, "dim": radius}, None, private


def _udl_light(raw: Mapping, where: str, ctx: _Ctx) -> tuple[dict, float | None, bool]:
    """(light {bright, dim}, night vision range or None, False) from the UDL fields."""
    bright = 0.0
    if _truthy(raw.get("emits_bright_light")):
        bright = (
            _read_distance(raw.get("bright_light_distance"), f"{where}.bright_light_distance", ctx)
            or 0
        )
    dim = bright
    if _truthy(raw.get("emits_low_light")):
        low = _read_distance(raw.get("low_light_distance"), f"{where}.low_light_distance", ctx)
        dim = bright + (low or 0)
        if dim > MAX_UNITS:
            ctx.warn(f"{where}.low_light_distance: total radius {dim} too large, bright used")
            dim = bright
    vision = None
    if _truthy(raw.get("has_night_vision")):
        vision = _read_distance(
            raw.get("night_vision_distance"), f"{where}.night_vision_distance", ctx
        )
    return {"bright": clean(bright), "dim": clean(dim)}, vision, False


def _senses(raw: Mapping, where: str, ctx: _Ctx, use_udl: bool) -> dict:
    senses = no_senses()
    if not use_udl:
        multiplier = _read_number(raw.get("light_multiplier"), f"{where}.light_multiplier", ctx)
        if multiplier is not None and multiplier > 1:
            senses["low_light_vision"] = True
    else:
        sensitivity = _read_number(
            raw.get("light_sensitivity_multiplier"), f"{where}.light_sensitivity_multiplier", ctx
        )
        if sensitivity is not None and sensitivity != 100:
            ctx.warn(f"{where}.light_sensitivity_multiplier: {sensitivity} not mapped")
    return senses


def _angle(raw: Mapping, use_udl: bool, where: str, ctx: _Ctx) -> float:
    """Emission angle in degrees (360 = all round)."""
    if use_udl:
        if _truthy(raw.get("has_directional_bright_light")) or _truthy(
            raw.get("has_directional_low_light")
        ):
            ctx.warn(f"{where}: directional UDL light not mapped, omnidirectional used")
        return 360
    key = "light_angle"
    angle = _read_number(raw.get(key), f"{where}.{key}", ctx)
    if angle is None:
        return 360
    if not 0 < angle <= 360:
        ctx.warn(f"{where}.{key}: {angle!r} is not an angle in (0, 360], 360 used")
        return 360
    return angle


def _texts(content: Mapping, ctx: _Ctx) -> None:
    for key in ("text", "texts"):
        value = content.get(key)
        if isinstance(value, list) and value:
            ctx.warn(f"{ctx.where(key)}: {len(value)} text objects not mapped")
        elif value is not None and not isinstance(value, list):
            ctx.warn(f"{ctx.where(key)}: {kind_name(value)} is not a list, ignored")


# --------------------------------------------------------------------------- helpers


def _parse_number(value: object) -> tuple[float | None, bool]:
    """Parse a Roll20 number field, which may be a number or a string.

    Returns ``(number, True)`` for a finite number or numeric string, ``(None, True)`` for
    None or "" (unset) and ``(None, False)`` for anything else.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, True
    number = finite_number(value)
    if number is not None:
        return number, True
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text), True
        except ValueError:
            pass
        try:
            parsed = float(text)
        except ValueError:
            parsed = math.nan
        if math.isfinite(parsed):
            return parsed, True
    return None, False


def _read_number(value: object, where: str, ctx: _Ctx) -> float | None:
    """A finite number or numeric string; None (silently) for None/"", else None + warning."""
    number, ok = _parse_number(value)
    if not ok:
        ctx.warn(f"{where}: {value!r} is not a number, ignored")
    return number


def _read_distance(value: object, where: str, ctx: _Ctx) -> float | None:
    """A radius/range in page units: a non-negative number <= MAX_UNITS, else None."""
    number = _read_number(value, where, ctx)
    if number is None:
        return None
    if not 0 <= number <= MAX_UNITS:
        ctx.warn(f"{where}: {number!r} is not a distance, ignored")
        return None
    return number


def _truthy(value: object) -> bool:
    """Roll20 booleans: ``true``, also the strings "true"/"1" and the number 1."""
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1")
    if isinstance(value, bool):
        return value
    return isinstance(value, int | float) and value == 1
