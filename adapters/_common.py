"""Helpers shared by the Foundry, Roll20 and Universal VTT adapters (standard library only).

Reading: finite numbers, ``{x, y}`` points, JSON kind names, JSON paths for warnings,
embedded collections whose odd entries are skipped with a warning, true/false fields and grid
units.
Writing: the canonical grid, environment, walls, tokens and lights, empty senses, ids
(fallback and unique), coordinates the canonical schema accepts, the warning
about zero-length segments, an import's counts.

Every function here warns through a ``warn`` callable (an adapter's ``ctx.warn`` or a
list's ``append``) and never raises :class:`~adapters.errors.AdapterError` itself.

References
----------
shared/DESIGN.md "Canonical scene"; ``service.model``, which declares the limits kept here
(the one module outside the adapters that they import: it needs only msgspec).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from service.model import MAX_COORD_PX, SPACE_UNIT_NAMES, size_from_width

#: Decimals ``clean`` keeps: 1e-6 px (or squares) is float noise, far below any visible size.
CLEAN_DECIMALS = 6

#: Grid unit spellings (lower case) -> canonical unit.
UNITS = {
    "ft": "ft",
    "ft.": "ft",
    "feet": "ft",
    "foot": "ft",
    "m": "m",
    "m.": "m",
    "meter": "m",
    "meters": "m",
    "metre": "m",
    "metres": "m",
    **dict.fromkeys(SPACE_UNIT_NAMES, "squares"),
}

#: Wall restrictions of a wall that blocks movement, sight, light and sound.
BLOCKS_ALL = {"move": "normal", "sight": "normal", "light": "normal", "sound": "normal"}

Warn = Callable[[str], None]

#: How warnings name a coordinate the canonical schema rejects.
BEYOND_LIMITS = f"beyond +-{MAX_COORD_PX:g} px"


# --------------------------------------------------------------------------- reading


def finite_number(value: object) -> int | float | None:
    """Return ``value`` when it is a finite number.

    Parameters
    ----------
    value : object
        Any parsed JSON value.

    Returns
    -------
    int or float or None
        ``value`` itself for a finite int or float (bool excluded), else None.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def point(value: object) -> tuple[int | float, int | float] | None:
    """``(x, y)`` of an ``{x, y}`` object whose ``x`` and ``y`` are finite numbers, else None.

    Parameters
    ----------
    value : object
        Any parsed JSON value (a UVTT point, a Roll20 door handle, a Foundry token, ...).

    Returns
    -------
    tuple of (int or float, int or float) or None
        The point's ``x`` and ``y`` as exported, in the export's units.
    """
    if not isinstance(value, Mapping):
        return None
    x, y = finite_number(value.get("x")), finite_number(value.get("y"))
    if x is None or y is None:
        return None
    return x, y


def kind_name(value: object) -> str:
    """Name the JSON kind of a value for warnings and error messages.

    Parameters
    ----------
    value : object
        Any parsed JSON value.

    Returns
    -------
    str
        ``"null"`` for None, else the Python type name (``"str"``, ``"list"``, ...).
    """
    return "null" if value is None else type(value).__name__


def json_path(parts: Sequence[str | int]) -> str:
    """Write a path inside an export the way warnings show it.

    Parameters
    ----------
    parts : sequence of str or int
        Keys and indices from the document root; empty strings are skipped.

    Returns
    -------
    str
        E.g. ``"maps[0].graphics[3]"`` for ``("maps", 0, "graphics", 3)``; ``""`` for no parts.
    """
    out = ""
    for part in parts:
        if part == "":
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def entries(
    container: Mapping,
    key: str,
    warn: Warn,
    where: str | None = None,
    kind: type = Mapping,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, entry)`` of an embedded collection, warning about null/odd entries.

    Parameters
    ----------
    container : Mapping
        The document or page holding the collection.
    key : str
        Key of the collection in ``container``. An absent or null collection yields nothing;
        one that is not a list yields nothing with a warning.
    warn : callable
        Receives each warning.
    where : str, optional
        Path of the collection in warnings (e.g. ``"maps[0].graphics"``); ``key`` when omitted.
    kind : type
        Type of the entries kept (``Mapping`` by default); others are skipped.

    Yields
    ------
    tuple of (int, object)
        The index of each kept entry in the collection and the entry.
    """
    value = container.get(key)
    if value is None:
        return
    where = key if where is None else where
    if not isinstance(value, list):
        warn(f"{where}: {kind_name(value)} is not a list, ignored")
        return
    yield from list_entries(value, where, warn, kind)


def list_entries(
    values: list, where: str, warn: Warn, kind: type = Mapping
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, entry)`` for the entries of ``values`` of type ``kind``.

    Parameters
    ----------
    values : list
        The collection.
    where : str
        Path of the collection in warnings: ``"<where>[<index>]: <kind> entry skipped"``,
        or one summary with the count and first indices for several of a kind (471 nulls).
    warn : callable
        Receives each warning.
    kind : type
        Type of the entries kept (``Mapping`` by default).

    Yields
    ------
    tuple of (int, object)
        The index of each kept entry and the entry.
    """
    skipped: dict[str, list[int]] = {}
    for i, entry in enumerate(values):
        if isinstance(entry, kind):
            yield i, entry
        else:
            skipped.setdefault(kind_name(entry), []).append(i)
    for name, at in skipped.items():
        many = f"{where}: {len(at)} {name} entries skipped (indices {short_list(at)})"
        warn(f"{where}[{at[0]}]: {name} entry skipped" if len(at) == 1 else many)


def read_bool(
    raw: Mapping, key: str, where: str, warn: Warn, default: bool = True, used: str | None = None
) -> bool:
    """Read a strict JSON ``true``/``false`` field.

    Parameters
    ----------
    raw : Mapping
        The entry holding the field.
    key : str
        Field name; an absent field gives ``default`` silently.
    where : str
        Path of the entry in warnings.
    warn : callable
        Receives the warning when the value is not a boolean.
    default : bool
        Value used when the field is absent or not a boolean.
    used : str, optional
        How the warning names the default (``"closed"``, ...); ``"true"``/``"false"`` when
        omitted.

    Returns
    -------
    bool
        The field's value, or ``default``.
    """
    value = raw.get(key, default)
    if isinstance(value, bool):
        return value
    shown = str(default).lower() if used is None else used
    warn(f"{where}.{key}: {value!r} is not true/false, {shown} used")
    return default


def grid_units(value: object, where: str, warn: Warn) -> str:
    """Canonical grid unit (``"ft"``, ``"m"`` or ``"squares"``) of a unit name.

    Parameters
    ----------
    value : object
        The export's unit name (``"ft"``, ``"Feet"``, ``"metres"``, ...).
    where : str
        Path of the field in warnings.
    warn : callable
        Receives the warning when ``value`` is neither feet nor metres.

    Returns
    -------
    str
        ``"ft"`` or ``"m"``; else ``"squares"`` (blank, a count of spaces or unknown: the
        scene counts in spaces, 1 space = 5 ft, GEO-8), with a warning saying so.
    """
    key = value.strip().lower() if isinstance(value, str) else None
    unit = UNITS.get(key, "") if key is not None else ""
    if unit in ("ft", "m"):
        return unit
    why = "" if unit else " is not feet or metres"
    warn(f"{where}: {value!r}{why}: the scene counts in spaces, 1 space = 5 ft (GEO-8)")
    return "squares"


def diagonal_rule(
    rule: tuple[str, str | None] | None, value: object, where: str, warn: Warn
) -> str:
    """Canonical diagonal rule from the entry a grid's diagonal setting maps to.

    Parameters
    ----------
    rule : tuple of (str, str or None), or None
        ``(canonical rule, note)`` looked up for ``value``; the note, when given, is warned
        about. None when ``value`` is unknown.
    value : object
        The export's diagonal setting, shown in the warning when unknown.
    where : str
        Path of the setting in warnings.
    warn : callable
        Receives the warnings.

    Returns
    -------
    str
        The canonical rule; ``"equidistant"`` (with a warning) for an unknown value.
    """
    if rule is None:
        warn(f"{where}: unknown value {value!r}, equidistant used")
        return "equidistant"
    if rule[1]:
        warn(f"{where}: {rule[1]}")
    return rule[0]


# --------------------------------------------------------------------------- writing


def clean(value: float) -> float:
    """Round away float noise.

    Parameters
    ----------
    value : float
        A computed coordinate or size.

    Returns
    -------
    float
        ``value`` rounded to ``CLEAN_DECIMALS`` decimals, an int when integral; non-finite
        values unchanged.
    """
    if not math.isfinite(value):
        return value
    rounded = round(value, CLEAN_DECIMALS)
    if rounded == int(rounded) and abs(rounded) < 2**53:
        return int(rounded)
    return rounded


def in_range(*values: float) -> bool:
    """Tell whether every value is a coordinate the canonical schema accepts.

    Parameters
    ----------
    *values : float
        Coordinates in px.

    Returns
    -------
    bool
        True when every ``abs(value) <= MAX_COORD_PX`` (NaN fails).
    """
    return all(abs(v) <= MAX_COORD_PX for v in values)


def short_list(indices: Sequence[int | str], limit: int = 12) -> str:
    """Comma-separated indices (or ids) for a warning, cut after ``limit`` with ``", ..."``.

    Parameters
    ----------
    indices : sequence of int or str
        The indices (or ids) to list.
    limit : int
        How many are shown at most.

    Returns
    -------
    str
        E.g. ``"0, 3, 7"``.
    """
    shown = ", ".join(str(i) for i in indices[:limit])
    return shown + (", ..." if len(indices) > limit else "")


def canonical_grid(
    size: float, distance: float, units: str, grid_type: str, diagonals: str | None
) -> dict[str, Any]:
    """The canonical grid of shared/DESIGN.md.

    Parameters
    ----------
    size : float
        Px of a cell (between adjacent centres on a hex grid).
    distance, units : float, {"ft", "m"}
        Grid units per cell, and their unit.
    grid_type : {"square", "hex-row", "hex-col", "gridless"}
        The grid type.
    diagonals : str or None
        The diagonal rule; None leaves each ruleset's default (RULES.md GEO-8).

    Returns
    -------
    dict
        ``{"size", "distance", "units", "type", "diagonals"}``, in that order.
    """
    return {
        "size": size,
        "distance": distance,
        "units": units,
        "type": grid_type,
        "diagonals": diagonals,
    }


def canonical_environment(light: str) -> dict[str, Any]:
    """The canonical environment: ambient ``light``, normal gravity, not under water.

    Parameters
    ----------
    light : {"bright", "dim", "dark"}
        The ambient light level where no light source reaches.

    Returns
    -------
    dict
        ``{"light": light, "gravity": 1, "underwater": False}``.
    """
    return {"light": light, "gravity": 1, "underwater": False}


def canonical_wall(
    ident: str,
    c: list[float],
    restrictions: Mapping[str, str] = BLOCKS_ALL,
    direction: str = "both",
    door: str = "none",
    state: str = "closed",
) -> dict:
    """A canonical wall with no threshold, height, hit points or armour class.

    Parameters
    ----------
    ident : str
        Wall id.
    c : list of float
        ``[x0, y0, x1, y1]`` in px.
    restrictions : Mapping
        ``move``, ``sight``, ``light`` and ``sound`` restrictions; all ``"normal"`` by default.
    direction : {"both", "left", "right"}
        Which side blocks (RULES.md GEO-3).
    door : {"none", "door", "secret"}
        Door type.
    state : {"closed", "open", "locked"}
        Door state.

    Returns
    -------
    dict
        The wall in the canonical shape of shared/DESIGN.md.
    """
    return {
        "id": ident,
        "c": c,
        "move": restrictions["move"],
        "sight": restrictions["sight"],
        "light": restrictions["light"],
        "sound": restrictions["sound"],
        "threshold": None,
        "direction": direction,
        "door": door,
        "door_state": state,
        "height": None,
        "cover": "normal",
        "hp": None,
        "ac": None,
    }


def canonical_light(
    ident: object,
    x: float,
    y: float,
    bright: float,
    dim: float,
    *,
    angle: float = 360,
    rotation: float = 0,
    darkness: bool = False,
    walls: bool = True,
) -> dict[str, Any]:
    """A canonical scene light; an importer adds the fields its format carries.

    Parameters
    ----------
    ident : object
        Light id (made unique by :func:`unique_ids` when it may repeat).
    x, y, bright, dim : float
        Centre in px; bright and outer (dim) radii in grid units.
    angle, rotation : float
        Emission angle (360: all round) and the cone's direction, in degrees.
    darkness, walls : bool
        Whether the light is a darkness source; whether walls stop it.

    Returns
    -------
    dict
        ``{"id", "x", "y", "bright", "dim", "angle", "rotation", "darkness", "walls"}``, in
        that order (shared/DESIGN.md "Canonical scene").
    """
    return {
        "id": ident,
        "x": x,
        "y": y,
        "bright": bright,
        "dim": dim,
        "angle": angle,
        "rotation": rotation,
        "darkness": darkness,
        "walls": walls,
    }


def canonical_token(
    ident: object,
    name: object,
    corner: tuple[float, float],
    size: tuple[float, float],
    *,
    reach: float,
    senses: dict,
    light: dict,
    hidden: bool,
    elevation: float = 0,
    heights: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A canonical creature token with the defaults no export carries.

    Conditions, swim speed and abilities live on Foundry actors and Roll20 characters, not in
    the scene: none, 0 and 0 here.

    Parameters
    ----------
    ident, name : object
        Token id (:func:`unique_ids` makes it unique) and exported name: text, ``""`` for
        None, ``str(name)`` for a number or the like.
    corner, size : tuple of float
        Top-left ``(x, y)`` in px; ``(width, height)`` in cells (the width gives the size
        category).
    reach, elevation : float
        Reach and elevation in grid units.
    senses, light : dict
        Canonical senses (:func:`no_senses` raised by the export); the carried light's
        radii in grid units.
    hidden : bool
        Whether the token is hidden from the players.
    heights : Mapping, optional
        Height fields written right after ``elevation`` (Foundry's ``vertical_extent``).

    Returns
    -------
    dict
        The token in the canonical shape of shared/DESIGN.md.
    """
    token: dict[str, Any] = {
        "id": ident,
        "name": name if isinstance(name, str) else ("" if name is None else str(name)),
        "x": corner[0],
        "y": corner[1],
        "width": size[0],
        "height": size[1],
        "elevation": elevation,
    }
    token.update(heights or {})
    token.update(
        {
            "size": size_from_width(size[0]),
            "reach": reach,
            "senses": senses,
            "conditions": [],
            "swim_speed": 0,
            "abilities": {"str": 0, "dex": 0, "con": 0},
            "light": light,
            "hidden": hidden,
        }
    )
    return token


def no_senses() -> dict[str, Any]:
    """Canonical token senses with nothing beyond normal sight.

    Returns
    -------
    dict
        A new dict: every range 0, ``low_light_vision`` false, ``hearing`` None.
    """
    return {
        "darkvision": 0,
        "devils_sight": 0,
        "truesight": 0,
        "blindsight": 0,
        "tremorsense": 0,
        "xray": 0,
        "low_light_vision": False,
        "see_invisibility": 0,
        "hearing": None,
    }


def fallback_id(value: object, where: str, stem: str, index: int, warn: Warn) -> str:
    """An export's id, or ``<stem>-<index>`` (with a warning) when it is not a non-empty string.

    Parameters
    ----------
    value : object
        The id field as exported (Foundry ``_id``, Roll20 ``id``, ...).
    where : str
        Path of the field in the warning, e.g. ``"regions[3]._id"``.
    stem, index : str, int
        Stem of the id made up for a missing one (``"region"``, ...), the entry's index.
    warn : callable
        Receives the warning ``"<where>: <value!r> missing, <stem>-<index> used"``.

    Returns
    -------
    str
        ``value`` itself, or ``"<stem>-<index>"``.
    """
    if isinstance(value, str) and value:
        return value
    warn(f"{where}: {value!r} missing, {stem}-{index} used")
    return f"{stem}-{index}"


def unique_ids(
    items: list[dict], warn: Warn, where: Callable[[int], str], stem: str | None = None
) -> None:
    """Make the ``"id"`` of every item a unique string, in place.

    A repeated id gets the first free suffix ``-1``, ``-2``, ... with a warning.

    Parameters
    ----------
    items : list of dict
        Canonical items. An item may carry ``"_index"``, its index in the source
        collection: it is removed and stands for the item in ``where`` and in the default
        id; without it the item's position in ``items`` does.
    warn : callable
        Receives each warning.
    where : callable
        Path in warnings of the item with a given index, e.g. ``lambda i: f"walls[{i}]._id"``.
    stem : str, optional
        When given, an id that is not a non-empty string becomes ``<stem>-<index>`` with a
        warning. Without it every id must already be a string.
    """
    seen: set[str] = set()
    for position, item in enumerate(items):
        i = item.pop("_index", position)
        ident = item["id"]
        if stem is not None:
            ident = fallback_id(ident, where(i), stem, i, warn)
        if ident in seen:
            n = 1
            while f"{ident}-{n}" in seen:
                n += 1
            warn(f"{where(i)}: duplicate id {ident!r}, renamed {ident}-{n}")
            ident = f"{ident}-{n}"
        seen.add(ident)
        item["id"] = ident


def warn_zero_length(where: str, counts: Sequence[tuple[str, int]], warn: Warn) -> None:
    """One warning for the zero-length segments (repeated points) skipped in a collection.

    Parameters
    ----------
    where : str
        Path of the collection (``"line_of_sight"``, ``"maps[0].paths"``).
    counts : sequence of (str, int)
        Path of each polyline or path that had some, and how many (none: no warning).
    warn : callable
        Receives the warning.
    """
    if not counts:
        return
    listed = ", ".join(f"{path} ({n})" for path, n in counts)
    total = sum(n for _, n in counts)
    warn(f"{where}: {total} zero-length segments (repeated points) skipped: {listed}")


def scene_stats(scene: Mapping[str, Any], token_lights: bool = True) -> dict[str, int]:
    """Counts of what a canonical scene holds, for an import's ``stats``.

    Parameters
    ----------
    scene : Mapping
        A canonical scene dict (shared/DESIGN.md).
    token_lights : bool
        Whether ``token_lights`` is counted (the Foundry adapter's stats carry it).

    Returns
    -------
    dict
        ``walls``; ``doors`` (walls whose ``door`` is not ``"none"``); ``tokens``;
        ``lights`` (scene lights); ``token_lights`` (tokens carrying a light with a bright or
        dim radius above 0; only with ``token_lights``); ``regions``.
    """
    walls = scene.get("walls") or []
    tokens = scene.get("tokens") or []

    def carries_light(token: Mapping) -> bool:
        light = token.get("light")
        if not isinstance(light, Mapping):
            return False
        return any((finite_number(light.get(k)) or 0) > 0 for k in ("bright", "dim"))

    stats = {
        "walls": len(walls),
        "doors": sum(1 for w in walls if w.get("door", "none") != "none"),
        "tokens": len(tokens),
        "lights": len(scene.get("lights") or []),
    }
    if token_lights:
        stats["token_lights"] = sum(1 for t in tokens if carries_light(t))
    stats["regions"] = len(scene.get("regions") or [])
    return stats
