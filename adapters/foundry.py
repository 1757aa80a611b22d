"""Foundry VTT Scene documents (0.7 to v13) -> canonical Sightline scene.

The adapter is a pure translator (standard library only). It reads one Foundry ``Scene``
document as exported by "Export Data", stored in a NeDB ``.db`` line, unpacked by
``foundryvtt-cli``, or picked out of a world/compendium export, and returns the canonical
scene dict of ``shared/DESIGN.md`` plus counts and warnings.

Frames and units
----------------
* Positions stay in **Foundry canvas pixels**, padding included (``walls[].c``, token
  ``x``/``y`` top-left corners, light ``x``/``y``, region shapes), y grows downward.
  The canonical ``width``/``height`` are therefore those of the whole canvas:
  ``width + 2 * ceil(width * padding / size) * size`` (same for y).
* Wall endpoint order is kept: one-way walls (GEO-3) depend on it.
* Radii, sight ranges, detection ranges, wall thresholds and elevations are in grid
  distance units (``grid.distance`` units per ``grid.size`` px), exactly as Foundry stores them.

Decisions taken where Foundry data has no direct canonical meaning
-------------------------------------------------------------------
* 0.7/0.8 walls have one ``sense`` field for sight and light. A wall without ``sound``
  (0.7) gets the sight value for sound too: in those versions sound was not blocked
  separately, and a wall that stops sight is the closest guess for one that stops sound.
* An unknown restriction value becomes ``"normal"`` with a warning: a wall that blocks
  is safer than one that silently vanishes.
* Foundry v10+ ``sight.range`` is "how far the token sees without a light source"; for the
  ``basic``/``darkvision``/``monochromatic`` vision modes it is read as darkvision. The
  ``sight.enabled`` flag (usually off on NPCs) does not change the sense.
* An unlimited range (``null`` in ``sight.range`` or a detection mode) becomes
  :data:`UNLIMITED_RANGE` units, because canonical sense ranges are numbers.
* Light ``angle`` is normalised like Foundry's ``AngleField(base=360)``: 0 (found on
  every light of the v9 Redbrand sample) and 360 both mean an omnidirectional light.
* Hidden ambient lights (switched off in Foundry) are kept as lit sources, with one
  warning giving their number; the canonical light has no on/off field.
* Negative 0.7/0.8 light radii are read as a darkness source (unverified).
* A wall height or region elevation whose bottom lies above its top is dropped (the wall
  then spans all heights, which blocks more rather than less) with a warning.
* When the canvas size cannot be computed (no positive numeric ``width``/``height``) the
  canonical ``width``/``height`` are ``None`` (unknown; the schema allows it) with a warning.

References
----------
shared/FORMATS.md (a) and its "Pitfalls"; shared/DESIGN.md "Canonical scene";
shared/RULES.md GEO-3 (one-way walls), GEO-4 (limited/proximity walls), GEO-5 (heights).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters._common import (
    CLEAN_DECIMALS,
    diagonal_rule,
    entries,
    finite_number,
    grid_units,
    json_path,
    kind_name,
    list_entries,
    no_senses,
    read_bool,
    size_category,
    unique_ids,
)
from adapters.errors import AdapterError
from adapters.sniff import sniff
from service.model import MAX_UNITS, MIN_GRID_DISTANCE

__all__ = ["UNLIMITED_RANGE", "parse_nedb", "to_scene"]

#: Range in grid units standing for Foundry's "unlimited" (``null``) sight/detection range.
UNLIMITED_RANGE = 10000

#: Vertices of the polygon that approximates a non-circular ellipse region.
ELLIPSE_VERTICES = 32

_OLD_MOVE = {0: "none", 1: "normal"}
_OLD_SENSE = {0: "none", 1: "normal", 2: "limited"}
_SENSE_TYPES = {0: "none", 10: "limited", 20: "normal", 30: "proximity", 40: "distance"}
_DIRECTIONS = {0: "both", 1: "left", 2: "right"}
_DOOR_TYPES = {0: "none", 1: "door", 2: "secret"}
_DOOR_STATES = {0: "closed", 1: "open", 2: "locked"}
_GRID_TYPES = {0: "gridless", 1: "square", 2: "hex-row", 3: "hex-row", 4: "hex-col", 5: "hex-col"}
# Foundry v12+ CONST.GRID_DIAGONALS -> (canonical rule, warning or None)
_DIAGONALS = {
    0: ("equidistant", None),
    1: ("euclidean", None),
    2: ("euclidean", None),
    3: ("equidistant", "RECTILINEAR (3) has no canonical rule, equidistant used"),
    4: ("alternating", None),
    5: ("alternating", None),
    6: ("equidistant", "ILLEGAL (6) has no canonical rule, equidistant used"),
}
# vision modes (normalised: lower case, letters only) -> canonical sense
_VISION_MODES = {
    "basic": "darkvision",
    "darkvision": "darkvision",
    "monochromatic": "darkvision",
    "devilssight": "devils_sight",
    "tremorsense": "tremorsense",
    "blindsight": "blindsight",
    "truesight": "truesight",
    "seeall": "truesight",
}
# detection mode ids (normalised) -> canonical sense; None = nothing beyond sight
_DETECTION_MODES: dict[str, str | None] = {
    "basicsight": None,
    "lightperception": None,
    "seeinvisibility": "see_invisibility",
    "senseinvisibility": "see_invisibility",
    "feeltremor": "tremorsense",
    "tremorsense": "tremorsense",
    "seeall": "truesight",
    "truesight": "truesight",
    "senseall": "blindsight",
    "blindsight": "blindsight",
    "devilssight": "devils_sight",
    "hearing": "hearing",
}
_UNMAPPED = {
    "drawings": "drawings",
    "tiles": "tiles",
    "sounds": "ambient sounds",
    "templates": "measured templates",
    "notes": "map notes",
}
_HEIGHT_FLAGS = ("wall-height", "wallHeight", "levels")


@dataclass
class _Ctx:
    """Per-call state: warnings, detected version, JSON path prefix of the scene."""

    version: str
    prefix: tuple[str | int, ...] = ()
    warnings: list[str] = field(default_factory=list)
    distance: float = 5

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def error(self, message: str, *path: str | int) -> AdapterError:
        return AdapterError(message, self.prefix + path)

    @property
    def old(self) -> bool:
        return self.version in ("0.7", "0.8")


# --------------------------------------------------------------------------- public API


def parse_nedb(text: str) -> list[dict]:
    """Read a Foundry NeDB ``.db`` file (world ``scenes.db`` or a ``packs/*.db`` compendium).

    NeDB files are append-only logs: one JSON document per line; a later line with the
    same ``_id`` replaces the earlier one and ``{"$$deleted": true, "_id": ...}`` removes
    it. Index lines (``$$indexCreated``/``$$indexRemoved``) and blank lines are skipped.

    Parameters
    ----------
    text : str
        Whole file content.

    Returns
    -------
    list of dict
        The final state of every document, in the order in which each ``_id`` first
        appeared (a document deleted and created again moves to its new place).

    Raises
    ------
    AdapterError
        When ``text`` is not a string or a non-blank line is not a JSON object; the path
        is ``("line", n)`` with ``n`` counted from 1.

    References
    ----------
    shared/FORMATS.md (a) A.0 and Pitfall 10.
    """
    if not isinstance(text, str):
        raise AdapterError(f"NeDB content must be text, got {type(text).__name__}", ())
    docs: dict[Any, dict] = {}
    anonymous = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except ValueError as exc:
            raise AdapterError(
                f"line {lineno} is not valid JSON: {exc}", ("line", lineno)
            ) from None
        if not isinstance(doc, dict):
            raise AdapterError(
                f"line {lineno} is a JSON {type(doc).__name__}, not a document", ("line", lineno)
            )
        if "$$indexCreated" in doc or "$$indexRemoved" in doc:
            continue
        key = doc.get("_id")
        if not isinstance(key, str | int) or isinstance(key, bool):
            anonymous += 1
            key = ("anonymous", anonymous)
        if doc.get("$$deleted") is True:
            docs.pop(key, None)
            continue
        docs[key] = doc
    return list(docs.values())


def to_scene(export: Mapping | list, *, scene: str | None = None) -> dict:
    """Translate a Foundry VTT scene export into the canonical scene.

    Parameters
    ----------
    export : Mapping or list
        One Foundry ``Scene`` document (any version 0.7 to v13), or a list of scene
        documents (e.g. from :func:`parse_nedb`), or a mapping with a ``"scenes"`` list
        (world export).
    scene : str, optional
        Which scene of a multi-scene export to use: its ``name``, its ``_id`` or its
        0-based index written as a string. Required when the export holds several scenes.

    Returns
    -------
    dict
        ``{"scene": canonical scene, "stats": {...}, "warnings": [str, ...]}``.
        ``scene`` follows shared/DESIGN.md: positions in Foundry canvas px (padding
        included, y down), wall endpoints in their original order, token sizes in
        squares, radii/ranges/elevations in grid units. ``stats`` counts what the
        canonical scene holds (``walls``, ``doors`` (door != "none"), ``tokens``,
        ``lights``, ``regions``) and adds ``foundry_version`` (best guess: "0.7", "0.8",
        "9", "10", "11", "12", "13", ...) and ``darkness`` (the raw scene darkness,
        0-1, or None when absent). ``warnings`` name the source path of everything
        that was skipped, defaulted or not mapped.

    Raises
    ------
    AdapterError
        When the export is not a Foundry scene (not a mapping, neither ``walls`` nor grid
        information, ``walls`` not a list), when the grid size is missing, zero or not a
        number (path ``("grid",)`` or ``("grid", "size")``), or when the wanted scene
        cannot be picked out of a multi-scene export. Nothing else is raised.

    References
    ----------
    shared/FORMATS.md (a); shared/DESIGN.md "Canonical scene"; shared/RULES.md GEO-3, GEO-4.
    """
    warnings: list[str] = []
    doc, prefix = _select_scene(export, scene, warnings)
    ctx = _Ctx(version=_detect_version(doc), prefix=prefix, warnings=warnings)
    if not isinstance(doc.get("walls"), list | None):
        raise ctx.error(f"'walls' must be a list, got {type(doc['walls']).__name__}", "walls")
    if "walls" not in doc and not _has_grid_info(doc):
        other = sniff(export)
        hint = f"; this looks like a {other} export: use format {other!r}" if other else ""
        raise ctx.error("not a Foundry scene: neither 'walls' nor grid information" + hint)

    grid = _grid(doc, ctx)
    ctx.distance = grid["distance"]
    canonical: dict[str, Any] = {"grid": grid}
    canonical.update(_canvas_size(doc, grid["size"], ctx))
    environment, darkness = _environment(doc, ctx)
    canonical["environment"] = environment
    canonical["walls"] = _walls(doc, ctx)
    canonical["tokens"] = _tokens(doc, ctx)
    canonical["lights"] = _lights(doc, ctx)
    canonical["regions"] = _regions(doc, ctx)
    _unmapped(doc, ctx)

    stats = {
        "walls": len(canonical["walls"]),
        "doors": sum(1 for w in canonical["walls"] if w["door"] != "none"),
        "tokens": len(canonical["tokens"]),
        "lights": len(canonical["lights"]),
        "regions": len(canonical["regions"]),
        "foundry_version": ctx.version,
        "darkness": darkness,
    }
    return {"scene": canonical, "stats": stats, "warnings": ctx.warnings}


# --------------------------------------------------------------------------- selection


def _select_scene(
    export: object, wanted: str | None, warnings: list[str]
) -> tuple[Mapping, tuple[str | int, ...]]:
    """Pick the scene document; return it and its JSON path prefix inside the export."""
    if isinstance(export, Mapping) and "scenes" in export:
        candidates = export["scenes"]
        prefix: tuple[str | int, ...] = ("scenes",)
        if not isinstance(candidates, list):
            raise AdapterError(
                f"'scenes' must be a list, got {type(candidates).__name__}", ("scenes",)
            )
    elif isinstance(export, list):
        candidates, prefix = export, ()
    elif isinstance(export, Mapping):
        if wanted is not None and not _matches(export, str(wanted), 0):
            raise AdapterError(
                f"scene {wanted!r} not found; the export holds only {_label(export)}", ()
            )
        return export, ()
    else:
        raise AdapterError(
            f"a Foundry export must be a JSON object or a list, got {type(export).__name__}", ()
        )

    scenes: list[tuple[int, Mapping]] = list(
        list_entries(candidates, json_path(prefix), warnings.append)
    )
    if not scenes:
        raise AdapterError("the export holds no scene document", prefix)
    available = ", ".join(_label(doc) for _, doc in scenes)
    if wanted is None:
        if len(scenes) > 1:
            raise AdapterError(
                f"the export holds {len(scenes)} scenes; pick one with scene=: {available}", prefix
            )
        i, doc = scenes[0]
        return doc, prefix + (i,)
    wanted = str(wanted)
    for key in ("_id", "name"):
        hits = [(i, doc) for i, doc in scenes if doc.get(key) == wanted]
        if len(hits) > 1:
            raise AdapterError(
                f"scene {key} {wanted!r} is ambiguous: {', '.join(_label(d) for _, d in hits)}",
                prefix,
            )
        if hits:
            return hits[0][1], prefix + (hits[0][0],)
    if (
        wanted.isdigit()
        and int(wanted) < len(candidates)
        and isinstance(candidates[int(wanted)], Mapping)
    ):
        return candidates[int(wanted)], prefix + (int(wanted),)
    raise AdapterError(f"scene {wanted!r} not found; available: {available}", prefix)


def _matches(doc: Mapping, wanted: str, index: int) -> bool:
    return wanted in (doc.get("_id"), doc.get("name"), str(index))


def _label(doc: Mapping) -> str:
    name, doc_id = doc.get("name"), doc.get("_id")
    if name is None and doc_id is None:
        return "one scene with neither name nor _id (omit `scene`)"
    return f"{name!r} ({doc_id})"


def _has_grid_info(doc: Mapping) -> bool:
    return any(key in doc for key in ("grid", "gridType", "gridDistance"))


# --------------------------------------------------------------------------- version


def _detect_version(doc: Mapping) -> str:
    """Best-guess Foundry core version of a scene document (FORMATS.md Pitfalls 1-2)."""
    stats = doc.get("_stats")
    core = stats.get("coreVersion") if isinstance(stats, Mapping) else None
    if isinstance(core, str | int | float) and not isinstance(core, bool):
        parts = str(core).split(".")
        if parts[0] == "0" and len(parts) > 1 and parts[1].isdigit():
            return f"0.{parts[1]}"
        if parts[0].isdigit():
            return parts[0]
    walls = [w for w in _as_list(doc.get("walls")) if isinstance(w, Mapping)]
    lights = [li for li in _as_list(doc.get("lights")) if isinstance(li, Mapping)]
    tokens = [t for t in _as_list(doc.get("tokens")) if isinstance(t, Mapping)]
    if any("sense" in w for w in walls) or any("t" in li and "config" not in li for li in lights):
        return "0.8" if any("sound" in w for w in walls) else "0.7"
    if isinstance(doc.get("environment"), Mapping) or "regions" in doc:
        return "12"
    if isinstance(doc.get("grid"), Mapping):
        if any("threshold" in w for w in walls) or any("delta" in t for t in tokens):
            return "11"
        return "10"
    if any("dimLight" in t and "light" not in t for t in tokens):
        return "0.8"
    return "9"


# --------------------------------------------------------------------------- grid


def _grid(doc: Mapping, ctx: _Ctx) -> dict:
    """Canonical grid from the flat (<= v9) or object (v10+) grid fields."""
    raw = doc.get("grid")
    size_path: tuple[str, ...]
    if isinstance(raw, Mapping):
        size, size_path = raw.get("size"), ("grid", "size")
        gtype, distance, units = raw.get("type"), raw.get("distance"), raw.get("units")
        diagonals = raw.get("diagonals")
        paths = {"distance": "grid.distance", "units": "grid.units", "type": "grid.type"}
    else:
        size, size_path = raw, ("grid",)
        gtype, distance = doc.get("gridType"), doc.get("gridDistance")
        units, diagonals = doc.get("gridUnits"), None
        paths = {"distance": "gridDistance", "units": "gridUnits", "type": "gridType"}
    size_px = _positive_number(size)
    if size_px is None:
        raise ctx.error(f"grid size must be a positive number of pixels, got {size!r}", *size_path)
    distance_units = _positive_number(distance)
    if distance_units is None or not MIN_GRID_DISTANCE <= distance_units <= MAX_UNITS:
        ctx.warn(f"{paths['distance']}: {distance!r} is not a usable distance, 5 used")
        distance_units = 5
    units_out = grid_units(units, paths["units"], ctx.warn)

    gtype_out = "square" if gtype is None else _enum(_GRID_TYPES, gtype)
    if gtype_out is None:
        ctx.warn(f"{paths['type']}: unknown grid type {gtype!r}, square used")
        gtype_out = "square"
    elif gtype_out.startswith("hex"):
        ctx.warn(
            f"{paths['type']}: hex grid ({gtype}) geometry is approximated "
            "(padding and cells computed as for a square grid)"
        )

    diag_out = "equidistant"
    if diagonals is not None:
        rule = _enum(_DIAGONALS, diagonals)
        diag_out = diagonal_rule(rule, diagonals, "grid.diagonals", ctx.warn)
    return {
        "size": size_px,
        "distance": distance_units,
        "units": units_out,
        "type": gtype_out,
        "diagonals": diag_out,
    }


def _canvas_size(doc: Mapping, size: float, ctx: _Ctx) -> dict:
    """Full canvas ``width``/``height`` in px, padding included (FORMATS.md A.1)."""
    width, height = _positive_number(doc.get("width")), _positive_number(doc.get("height"))
    if width is None or height is None:
        ctx.warn(
            f"width/height: {doc.get('width')!r} x {doc.get('height')!r} is not a "
            "picture size in px, canvas size unknown (null)"
        )
        return {"width": None, "height": None}
    raw_padding = doc.get("padding")
    padding = 0 if raw_padding is None else finite_number(raw_padding)
    if padding is None or not 0 <= padding <= 0.5:
        ctx.warn(f"padding: {raw_padding!r} is not a fraction between 0 and 0.5, 0 used")
        padding = 0
    pad_x = math.ceil(width * padding / size) * size
    pad_y = math.ceil(height * padding / size) * size
    return {"width": width + 2 * pad_x, "height": height + 2 * pad_y}


# --------------------------------------------------------------------------- environment


def _environment(doc: Mapping, ctx: _Ctx) -> tuple[dict, float | None]:
    """Canonical ambient light level and the raw scene darkness (FORMATS.md A.6).

    Foundry's rule: with global illumination active (enabled, and the darkness level within
    its range or under its threshold) the whole scene is lit — bright, or dim when a v12+
    global light is not in bright mode; without it, every place no light reaches is dark
    (the darkness level only tints the canvas). The raw darkness goes into ``stats``.
    """
    env = doc.get("environment")
    bright_mode = True
    if isinstance(env, Mapping):
        darkness, path = env.get("darknessLevel"), "environment.darknessLevel"
        glight = env.get("globalLight")
        glight = glight if isinstance(glight, Mapping) else {}
        enabled = glight.get("enabled") is True
        bright_mode = glight.get("bright") is not False
        limits = glight.get("darkness")
        threshold = limits.get("max") if isinstance(limits, Mapping) else None
    else:
        darkness, path = doc.get("darkness"), "darkness"
        enabled = doc.get("globalLight") is True
        threshold = doc.get("globalLightThreshold")
    if darkness is not None and finite_number(darkness) is None:
        ctx.warn(f"{path}: {darkness!r} is not a number, 0 used")
        darkness = None
    level = 0 if darkness is None else darkness
    threshold = finite_number(threshold)
    if enabled and (threshold is None or level <= threshold):
        light = "bright" if bright_mode else "dim"
    else:
        light = "dark"
    return {"light": light, "gravity": 1, "underwater": False}, darkness


# --------------------------------------------------------------------------- walls


def _walls(doc: Mapping, ctx: _Ctx) -> list[dict]:
    """Canonical walls; invalid walls are skipped with a warning (FORMATS.md A.3)."""
    walls: list[dict] = []
    attenuated = 0
    for i, raw in entries(doc, "walls", ctx.warn):
        c = raw.get("c")
        if (
            not isinstance(c, list | tuple)
            or len(c) != 4
            or any(finite_number(v) is None for v in c)
        ):
            ctx.warn(f"walls[{i}].c: {c!r} is not 4 finite numbers, wall skipped")
            continue
        if c[0] == c[2] and c[1] == c[3]:
            ctx.warn(f"walls[{i}].c: zero-length wall at ({c[0]}, {c[1]}) kept")
        if ctx.old:
            move = _lookup(raw, "move", _OLD_MOVE, "normal", f"walls[{i}]", ctx)
            sight = _lookup(raw, "sense", _OLD_SENSE, "normal", f"walls[{i}]", ctx)
            light = sight
            sound = (
                _lookup(raw, "sound", _OLD_SENSE, "normal", f"walls[{i}]", ctx)
                if "sound" in raw
                else sight
            )
        else:
            move, sight, light, sound = (
                _lookup(raw, key, _SENSE_TYPES, "normal", f"walls[{i}]", ctx)
                for key in ("move", "sight", "light", "sound")
            )
        threshold, attenuation = _threshold(raw.get("threshold"), i, ctx)
        attenuated += attenuation
        for sense, value in (("sight", sight), ("light", light), ("sound", sound)):
            if value in ("proximity", "distance") and (threshold or {}).get(sense) is None:
                ctx.warn(f"walls[{i}].threshold.{sense}: {value} wall without a threshold")
        door = _lookup(raw, "door", _DOOR_TYPES, "none", f"walls[{i}]", ctx)
        state = _lookup(raw, "ds", _DOOR_STATES, "closed", f"walls[{i}]", ctx)
        if door == "none" and state != "closed":
            ctx.warn(f"walls[{i}].ds: door state {state} on a wall that is not a door, closed used")
            state = "closed"
        walls.append(
            {
                "id": raw.get("_id"),
                "c": list(c),
                "move": move,
                "sight": sight,
                "light": light,
                "sound": sound,
                "threshold": threshold,
                "direction": _lookup(raw, "dir", _DIRECTIONS, "both", f"walls[{i}]", ctx),
                "door": door,
                "door_state": state,
                "height": _wall_height(raw.get("flags"), i, ctx),
                "cover": "normal",
                "hp": None,
                "ac": None,
                "_index": i,
            }
        )
    if attenuated:
        ctx.warn(f"walls: threshold.attenuation ignored on {attenuated} walls")
    _assign_ids(walls, "walls", "wall", ctx)
    return walls


def _lookup(
    raw: Mapping, key: str, table: Mapping[int, str], default: str, where: str, ctx: _Ctx
) -> str:
    """Map an enum field; absent -> ``default``; unknown -> ``default`` with a warning."""
    value = raw.get(key)
    if value is None:
        return default
    mapped = _enum(table, value)
    if mapped is None:
        ctx.warn(f"{where}.{key}: unknown value {value!r}, {default} used")
        return default
    return mapped


def _threshold(raw: object, i: int, ctx: _Ctx) -> tuple[dict | None, bool]:
    """Wall ``threshold`` (grid units) and whether attenuation was set (and dropped)."""
    if not isinstance(raw, Mapping):
        if raw is not None:
            ctx.warn(f"walls[{i}].threshold: {raw!r} is not an object, ignored")
        return None, False
    out: dict[str, Any] = {}
    for sense in ("sight", "light", "sound"):
        value = raw.get(sense)
        if value is not None and (finite_number(value) is None or value < 0):
            ctx.warn(f"walls[{i}].threshold.{sense}: {value!r} is not a distance, null used")
            value = None
        out[sense] = value
    attenuation = raw.get("attenuation") is True
    if all(v is None for v in out.values()):
        return None, attenuation
    return out, attenuation


def _wall_height(flags: object, i: int, ctx: _Ctx) -> dict | None:
    """Wall Height (``flags["wall-height"]``/``flags.wallHeight``) or Levels range."""
    if not isinstance(flags, Mapping):
        return None
    sources = (
        ("wall-height", "bottom", "top"),
        ("wallHeight", "bottom", "top"),
        ("levels", "rangeBottom", "rangeTop"),
    )
    for ns, bottom_key, top_key in sources:
        data = flags.get(ns)
        if not isinstance(data, Mapping) or not (bottom_key in data or top_key in data):
            continue
        where = f"walls[{i}].flags.{ns}"
        return _range(data.get(bottom_key), data.get(top_key), where, ctx, (bottom_key, top_key))
    return None


def _range(
    bottom: object, top: object, where: str, ctx: _Ctx, keys: tuple[str, str] = ("bottom", "top")
) -> dict | None:
    """``{bottom, top}`` in grid units, ``None`` bounds for null/infinite; None if both."""
    out = {
        "bottom": _bound(bottom, f"{where}.{keys[0]}", ctx),
        "top": _bound(top, f"{where}.{keys[1]}", ctx),
    }
    if out["bottom"] is None and out["top"] is None:
        return None
    if out["bottom"] is not None and out["top"] is not None and out["bottom"] > out["top"]:
        ctx.warn(f"{where}: bottom {out['bottom']} above top {out['top']}, range dropped")
        return None
    return out


def _bound(value: object, where: str, ctx: _Ctx) -> int | float | None:
    """Read a finite elevation bound; None for null, +-Infinity or unreadable (warned)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            ctx.warn(f"{where}: {value!r} is not a number, null used")
            return None
    if isinstance(value, float) and math.isinf(value):
        return None
    number = finite_number(value)
    if number is None:
        ctx.warn(f"{where}: {value!r} is not a number, null used")
    return number


# --------------------------------------------------------------------------- tokens


def _tokens(doc: Mapping, ctx: _Ctx) -> list[dict]:
    """Canonical tokens (FORMATS.md A.4); sizes in squares, positions top-left px."""
    tokens: list[dict] = []
    for i, raw in entries(doc, "tokens", ctx.warn):
        position = _position(raw, f"tokens[{i}]", "token", ctx)
        if position is None:
            continue
        x, y = position
        width = _positive(raw, "width", 1, f"tokens[{i}]", ctx)
        height = _positive(raw, "height", 1, f"tokens[{i}]", ctx)
        elevation = _number_or(raw.get("elevation"), 0, f"tokens[{i}].elevation", ctx)
        name = raw.get("name")
        tokens.append(
            {
                "id": raw.get("_id"),
                "name": name if isinstance(name, str) else ("" if name is None else str(name)),
                "x": x,
                "y": y,
                "width": width,
                "height": height,
                "elevation": elevation,
                "size": size_category(width),
                "reach": ctx.distance,
                "senses": _senses(raw, i, ctx),
                "conditions": [],
                "swim_speed": 0,
                "abilities": {"str": 0, "dex": 0, "con": 0},
                "light": _token_light(raw, i, ctx),
                "hidden": raw.get("hidden") is True,
                "_index": i,
            }
        )
    if tokens:
        ctx.warn(
            "tokens: conditions, abilities and swim speed live on Foundry actors, "
            "not in the scene; defaults used"
        )
    _assign_ids(tokens, "tokens", "token", ctx)
    return tokens


def _senses(raw: Mapping, i: int, ctx: _Ctx) -> dict:
    """Canonical senses (grid units) from v10+ ``sight``/``detectionModes`` or <= v9 fields."""
    senses = no_senses()

    def raise_to(sense: str, value: float) -> None:
        current = senses[sense]
        senses[sense] = value if current is None else max(current, value)

    sight = raw.get("sight")
    if isinstance(sight, Mapping):
        rng = sight.get("range", 0)
        rng = UNLIMITED_RANGE if rng is None else rng
        mode = sight.get("visionMode") or "basic"
        key = _norm(mode) if isinstance(mode, str) else None
        if finite_number(rng) is None or rng < 0:
            ctx.warn(f"tokens[{i}].sight.range: {rng!r} is not a distance, ignored")
        elif key == "lightamplification":
            senses["low_light_vision"] = True
        elif key in _VISION_MODES:
            if rng > 0:
                raise_to(_VISION_MODES[key], rng)
        else:
            ctx.warn(f"tokens[{i}].sight.visionMode: {mode!r} not mapped")
    else:
        legacy = [
            v
            for v in (finite_number(raw.get("dimSight")), finite_number(raw.get("brightSight")))
            if v is not None and v > 0
        ]
        if legacy:
            raise_to("darkvision", max(legacy))

    for where, mode_id, mode in _detection_modes(raw.get("detectionModes"), i, ctx):
        if mode.get("enabled", True) is not True:
            continue
        key = _norm(mode_id)
        if key not in _DETECTION_MODES:
            ctx.warn(f"{where}: detection mode {mode_id!r} not mapped")
            continue
        sense = _DETECTION_MODES[key]
        rng = mode.get("range")
        rng = UNLIMITED_RANGE if rng is None else rng
        if finite_number(rng) is None or rng < 0:
            ctx.warn(f"{where}.range: {rng!r} is not a distance, ignored")
        elif sense is not None and rng > 0:
            raise_to(sense, rng)
    return senses


def _detection_modes(raw: object, i: int, ctx: _Ctx) -> Iterator[tuple[str, str, Mapping]]:
    """Yield ``(path, id, mode)`` from a list of ``{id, enabled, range}`` or an id-keyed object."""
    base = f"tokens[{i}].detectionModes"
    if raw is None:
        return
    if isinstance(raw, Mapping):
        items: list[tuple[str, object, object]] = [(f"{base}.{k}", k, v) for k, v in raw.items()]
    elif isinstance(raw, list):
        items = [
            (f"{base}[{j}]", m.get("id") if isinstance(m, Mapping) else None, m)
            for j, m in enumerate(raw)
        ]
    else:
        ctx.warn(f"{base}: {type(raw).__name__} is not a list or object, ignored")
        return
    for where, mode_id, mode in items:
        if isinstance(mode, Mapping) and isinstance(mode.get("id"), str):
            mode_id = mode["id"]
        if not isinstance(mode, Mapping) or not isinstance(mode_id, str):
            ctx.warn(f"{where}: {mode!r} is not a detection mode, ignored")
            continue
        yield where, mode_id, mode


def _token_light(raw: Mapping, i: int, ctx: _Ctx) -> dict:
    """Token light radii in grid units (v9+ ``light`` object, older flat fields)."""
    light = raw.get("light")
    if isinstance(light, Mapping):
        values = {"bright": light.get("bright"), "dim": light.get("dim")}
        paths = {"bright": "light.bright", "dim": "light.dim"}
    else:
        values = {"bright": raw.get("brightLight"), "dim": raw.get("dimLight")}
        paths = {"bright": "brightLight", "dim": "dimLight"}
    out: dict[str, Any] = {}
    for key, value in values.items():
        if value is None:
            value = 0
        elif finite_number(value) is None or value < 0:
            ctx.warn(f"tokens[{i}].{paths[key]}: {value!r} is not a radius, 0 used")
            value = 0
        out[key] = value
    return out


# --------------------------------------------------------------------------- lights


def _lights(doc: Mapping, ctx: _Ctx) -> list[dict]:
    """Canonical ambient lights (FORMATS.md A.5): radii in grid units, position in px."""
    lights: list[dict] = []
    hidden = 0
    inactive = 0
    for i, raw in entries(doc, "lights", ctx.warn):
        position = _position(raw, f"lights[{i}]", "light", ctx)
        if position is None:
            continue
        x, y = position
        config = raw.get("config")
        flat = not isinstance(config, Mapping)
        src: Mapping = config if isinstance(config, Mapping) else raw
        where = f"lights[{i}]" if flat else f"lights[{i}].config"
        bright, dim = (_radius(src.get(k), f"{where}.{k}", ctx) for k in ("bright", "dim"))
        darkness = src.get("negative") is True
        if bright < 0 or dim < 0:
            if flat:
                ctx.warn(f"{where}: negative radius read as a darkness source")
                darkness, bright, dim = True, abs(bright), abs(dim)
            else:
                ctx.warn(f"{where}: negative radius ({bright}, {dim}), 0 used")
                bright, dim = max(bright, 0), max(dim, 0)
        lum = finite_number(src.get("luminosity"))
        if not flat and ctx.version in ("9", "10", "11") and lum is not None and lum < 0:
            darkness = True
        if flat and raw.get("t") in ("g", "u"):
            ctx.warn(
                f"lights[{i}].t: {raw.get('t')!r} (global/universal) flag ignored, "
                "mapped as a local light"
            )
        walls = read_bool(raw, "walls", f"lights[{i}]", ctx.warn)
        rotation = _number_or(raw.get("rotation"), 0, f"lights[{i}].rotation", ctx)
        hidden += raw.get("hidden") is True
        inactive += _has_activity_range(src)
        lights.append(
            {
                "id": raw.get("_id"),
                "x": x,
                "y": y,
                "bright": bright,
                "dim": dim,
                "angle": _angle(src.get("angle"), f"{where}.angle", ctx),
                "rotation": rotation,
                "darkness": darkness,
                "walls": walls,
                "_index": i,
            }
        )
    if hidden:
        ctx.warn(f"lights: {hidden} hidden (switched off) lights kept as lit sources")
    if inactive:
        ctx.warn(f"lights: scene-darkness activation range ignored on {inactive} lights")
    _assign_ids(lights, "lights", "light", ctx)
    return lights


def _radius(value: object, where: str, ctx: _Ctx) -> int | float:
    return _number_or(value, 0, where, ctx, "a radius")


def _angle(value: object, where: str, ctx: _Ctx) -> int | float:
    """Emission angle in degrees, normalised to (0, 360] like Foundry's AngleField(base=360)."""
    angle = _number_or(value, 360, where, ctx, "an angle") % 360
    return 360 if angle == 0 else angle


def _has_activity_range(src: Mapping) -> bool:
    """Tell whether a light only shines for part of the scene-darkness range."""
    limits = src.get("darkness")
    if isinstance(limits, Mapping):
        low, high = finite_number(limits.get("min")), finite_number(limits.get("max"))
        return (low is not None and low > 0) or (high is not None and high < 1)
    threshold = finite_number(src.get("darknessThreshold"))
    return threshold is not None and threshold > 0


# --------------------------------------------------------------------------- regions


def _regions(doc: Mapping, ctx: _Ctx) -> list[dict]:
    """Canonical regions (v12+, FORMATS.md A.7): one canonical region per shape."""
    regions: list[dict] = []
    for i, raw in entries(doc, "regions", ctx.warn):
        base_id = raw.get("_id")
        if not isinstance(base_id, str) or not base_id:
            ctx.warn(f"regions[{i}]._id: {base_id!r} missing, region-{i} used")
            base_id = f"region-{i}"
        elevation = raw.get("elevation")
        elevation = (
            _range(elevation.get("bottom"), elevation.get("top"), f"regions[{i}].elevation", ctx)
            if isinstance(elevation, Mapping)
            else None
        )
        shapes = raw.get("shapes")
        if not isinstance(shapes, list):
            shapes = []
        produced = 0
        for j, shape in enumerate(shapes):
            canonical = _shape(shape, f"regions[{i}].shapes[{j}]", ctx)
            if canonical is None:
                continue
            regions.append(
                {
                    "id": base_id if produced == 0 else f"{base_id}-{produced}",
                    "shape": canonical,
                    "obscurement": None,
                    "concealment": False,
                    "magical_darkness": False,
                    "water": False,
                    "gravity": None,
                    "elevation": elevation,
                    "_index": i,
                }
            )
            produced += 1
        if not produced:
            ctx.warn(f"regions[{i}].shapes: no usable shape, region skipped")
        seen: set[str] = set()
        for behavior in _as_list(raw.get("behaviors")):
            btype = behavior.get("type") if isinstance(behavior, Mapping) else None
            label = btype if isinstance(btype, str) else repr(behavior)
            if label not in seen:
                seen.add(label)
                ctx.warn(f"regions[{i}].behaviors: {label} not mapped")
    _assign_ids(regions, "regions", "region", ctx)
    return regions


def _shape(shape: object, where: str, ctx: _Ctx) -> dict | None:
    """One Foundry region shape -> canonical polygon/rect/circle (px), or None."""
    if not isinstance(shape, Mapping):
        ctx.warn(f"{where}: {kind_name(shape)} entry skipped")
        return None
    if shape.get("hole") is True:
        ctx.warn(f"{where}: hole dropped (holes are not supported)")
        return None
    kind = shape.get("type")
    rotation = finite_number(shape.get("rotation")) or 0
    if kind == "polygon":
        pts = shape.get("points")
        if (
            not isinstance(pts, list)
            or len(pts) < 6
            or len(pts) % 2
            or any(finite_number(v) is None for v in pts)
        ):
            ctx.warn(f"{where}.points: not a flat list of at least 3 x,y pairs, shape skipped")
            return None
        return {"type": "polygon", "points": [[pts[k], pts[k + 1]] for k in range(0, len(pts), 2)]}
    if kind == "rectangle":
        x, y, w, h = (finite_number(shape.get(k)) for k in ("x", "y", "width", "height"))
        if x is None or y is None or w is None or h is None or w <= 0 or h <= 0:
            ctx.warn(f"{where}: rectangle without numeric x, y, width, height, shape skipped")
            return None
        if rotation % 360 == 0:
            return {"type": "rect", "x": x, "y": y, "width": w, "height": h}
        corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
        return {"type": "polygon", "points": _rotated(corners, x + w / 2, y + h / 2, rotation)}
    if kind in ("circle", "ellipse"):
        x, y = finite_number(shape.get("x")), finite_number(shape.get("y"))
        rx = finite_number(shape.get("radius" if kind == "circle" else "radiusX"))
        ry = rx if kind == "circle" else finite_number(shape.get("radiusY"))
        if x is None or y is None or rx is None or ry is None or rx <= 0 or ry <= 0:
            ctx.warn(f"{where}: {kind} without numeric centre and radii, shape skipped")
            return None
        if rx == ry:
            return {"type": "circle", "x": x, "y": y, "radius": rx}
        ctx.warn(f"{where}: ellipse approximated by a {ELLIPSE_VERTICES}-vertex polygon")
        outline = [
            (
                rx * math.cos(2 * math.pi * k / ELLIPSE_VERTICES),
                ry * math.sin(2 * math.pi * k / ELLIPSE_VERTICES),
            )
            for k in range(ELLIPSE_VERTICES)
        ]
        return {"type": "polygon", "points": _rotated(outline, x, y, rotation)}
    ctx.warn(f"{where}.type: shape type {kind!r} not mapped, shape skipped")
    return None


def _rotated(
    offsets: Sequence[tuple[float, float]], cx: float, cy: float, degrees: float
) -> list[list[float]]:
    """Offsets rotated clockwise on screen (y down) by ``degrees`` about (cx, cy), in px."""
    theta = math.radians(degrees)
    cos, sin = math.cos(theta), math.sin(theta)
    return [
        [
            round(cx + dx * cos - dy * sin, CLEAN_DECIMALS),
            round(cy + dx * sin + dy * cos, CLEAN_DECIMALS),
        ]
        for dx, dy in offsets
    ]


# --------------------------------------------------------------------------- leftovers


def _unmapped(doc: Mapping, ctx: _Ctx) -> None:
    """One warning per non-empty collection the canonical scene has no place for."""
    for key, label in _UNMAPPED.items():
        value = doc.get(key)
        if isinstance(value, list) and value:
            ctx.warn(f"{key}: {len(value)} {label} not mapped")
    namespaces: set[str] = set()
    for key in ("walls", "tokens", "lights", "regions"):
        for entry in _as_list(doc.get(key)):
            flags = entry.get("flags") if isinstance(entry, Mapping) else None
            if not isinstance(flags, Mapping):
                continue
            for ns, value in flags.items():
                if value in (None, {}, [], "") or (key == "walls" and ns in _HEIGHT_FLAGS):
                    continue
                namespaces.add(str(ns))
    if namespaces:
        ctx.warn(f"flags: module data not mapped ({', '.join(sorted(namespaces))})")


# --------------------------------------------------------------------------- helpers


def _position(raw: Mapping, where: str, what: str, ctx: _Ctx) -> tuple[float, float] | None:
    """Numeric ``x``/``y`` of a token or light, or None (``what`` skipped, with a warning)."""
    x, y = finite_number(raw.get("x")), finite_number(raw.get("y"))
    if x is None or y is None:
        ctx.warn(
            f"{where}.x/y: ({raw.get('x')!r}, {raw.get('y')!r}) is not a position, {what} skipped"
        )
        return None
    return x, y


def _number_or(
    value: object, default: int, where: str, ctx: _Ctx, what: str = "a number"
) -> int | float:
    """A finite number; ``default`` when None, ``default`` with a warning when not a number."""
    if value is None:
        return default
    number = finite_number(value)
    if number is None:
        ctx.warn(f"{where}: {value!r} is not {what}, {default} used")
        return default
    return number


def _assign_ids(items: list[dict], key: str, stem: str, ctx: _Ctx) -> None:
    """Give every item a unique string id (``<stem>-<index>`` when missing); drop ``_index``."""
    unique_ids(items, ctx.warn, lambda i: f"{key}[{i}]._id", stem)


def _positive(raw: Mapping, key: str, default: float, where: str, ctx: _Ctx) -> int | float:
    value = raw.get(key)
    if value is None:
        return default
    if finite_number(value) is None or value <= 0:
        ctx.warn(f"{where}.{key}: {value!r} is not a positive number, {default} used")
        return default
    return value


def _positive_number(value: object) -> int | float | None:
    number = finite_number(value)
    return number if number is not None and number > 0 else None


def _enum(table: Mapping[int, Any], value: object) -> Any:
    """Look up an integral enum value (``20`` or ``20.0``); None when absent from the table."""
    number = finite_number(value)
    if number is None or number != int(number):
        return None
    return table.get(int(number))


def _norm(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower())


def _as_list(value: object) -> list:
    return value if isinstance(value, list) else []
