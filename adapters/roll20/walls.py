"""Roll20 walls: ``walls``-layer paths, UDL doors and windows -> canonical walls.

Endpoints in page px; one wall per segment of a path (FORMATS.md B.2, B.3; RULES.md GEO-3).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from adapters._common import (
    BEYOND_LIMITS,
    BLOCKS_ALL,
    canonical_wall,
    clean,
    entries,
    fallback_id,
    in_range,
    kind_name,
    list_entries,
    point,
    short_list,
    warn_zero_length,
)
from adapters.roll20._context import Context, layer_label, read_number, truthy
from adapters.roll20.paths import path_polylines


def path_walls(content: Mapping, ctx: Context) -> list[dict]:
    """Canonical walls from the ``walls``-layer paths (FORMATS.md B.2).

    Parameters
    ----------
    content : Mapping
        The page's content (its ``paths``).
    ctx : Context
        Per-call state; every warning goes to ``ctx.warnings``.

    Returns
    -------
    list of dict
        One canonical wall per segment, ``c`` in page px, id ``<path id>-<k>``.

    Raises
    ------
    AdapterError
        When ``paths`` is present and not a list.
    """
    raw_paths = content.get("paths")
    if raw_paths is None:
        return []
    if not isinstance(raw_paths, list):
        raise ctx.error(f"'paths' must be a list, got {kind_name(raw_paths)}", "paths")
    walls: list[dict] = []
    tally = _PathTally()
    for i, raw in list_entries(raw_paths, ctx.where("paths"), ctx.warn):
        where = ctx.where("paths", i)
        layer = raw.get("layer")
        if layer != "walls":
            tally.other_layers.setdefault(str(layer), []).append(i)
            continue
        if isinstance(raw.get("stroke"), str):
            tally.strokes[raw["stroke"]] += 1
        polylines = path_polylines(raw, where, ctx)
        if polylines is None:
            continue
        path_id = raw.get("id") or raw.get("_id")
        path_id = fallback_id(path_id, f"{where}.id", "path", i, ctx.warn)
        restrictions, direction = _barrier(raw, where, ctx)
        tally.one_way += direction != "both"
        walls += _segment_walls(polylines, path_id, restrictions, direction, where, ctx, tally)
    _warn_paths(tally, ctx)
    return walls


@dataclass
class _PathTally:
    """What :func:`path_walls` counts for its summary warnings."""

    #: Indices of the paths on layers other than ``walls``, per layer.
    other_layers: dict[str, list[int]] = field(default_factory=dict)
    #: Path and number of its zero-length segments, for each path that has some.
    zero_length: list[tuple[str, int]] = field(default_factory=list)
    #: One-way barriers (``barrierType`` ``"oneWay"``).
    one_way: int = 0
    #: Wall paths per ``stroke`` colour.
    strokes: Counter[str] = field(default_factory=Counter)


def _segment_walls(
    polylines: list[list[tuple[float, float]]],
    path_id: str,
    restrictions: dict,
    direction: str,
    where: str,
    ctx: Context,
    tally: _PathTally,
) -> list[dict]:
    """One wall per segment of a path's polylines (page px), id ``<path id>-<k>``.

    ``k`` counts the path's segments from 0, skipped ones included: zero-length segments
    (counted in ``tally``) and those beyond the schema's limits (warned).
    """
    walls: list[dict] = []
    k = far = zero = 0
    for line in polylines:
        for a, b in zip(line, line[1:], strict=False):
            if a == b:
                zero += 1
            elif not in_range(*a, *b):
                far += 1
            else:
                c = [a[0], a[1], b[0], b[1]]
                walls.append(canonical_wall(f"{path_id}-{k}", c, restrictions, direction))
            k += 1
    if zero:
        tally.zero_length.append((where, zero))
    if far:
        ctx.warn(f"{where}: {far} segments {BEYOND_LIMITS} skipped")
    return walls


def _warn_paths(tally: _PathTally, ctx: Context) -> None:
    """The summary warnings of :func:`path_walls`, one per kind (and per other layer)."""
    where = ctx.where("paths")
    warn_zero_length(where, tally.zero_length, ctx.warn)
    if tally.one_way:
        ctx.warn(
            f"{where}: {tally.one_way} one-way barriers block from the left of their "
            "drawing direction (right when oneWayReversed); Roll20's side convention is "
            "unverified"
        )
    if len(tally.strokes) > 1:
        colours = ", ".join(f"{c} x{n}" for c, n in tally.strokes.most_common())
        ctx.warn(
            f"{where}: wall strokes use {len(tally.strokes)} colours ({colours}); "
            "colour conventions (doors, secret passages) are not mapped"
        )
    for layer, indices in tally.other_layers.items():
        ctx.warn(
            f"{where}: {len(indices)} drawings on the {layer_label(layer)} not mapped "
            f"(indices {short_list(indices)})"
        )


def _barrier(raw: Mapping, where: str, ctx: Context) -> tuple[dict, str]:
    """Restrictions and direction from the UDL ``barrierType``."""
    kind = raw.get("barrierType")
    normal = dict(BLOCKS_ALL)
    if kind in (None, "", "wall"):
        return normal, "both"
    if kind == "oneWay":
        return normal, "right" if _read_flag(raw, "oneWayReversed", where, ctx) else "left"
    if kind == "transparent":
        return dict(normal, sight="none", light="none"), "both"
    ctx.warn(f"{where}.barrierType: unknown value {kind!r}, normal wall used")
    return normal, "both"


def udl_openings(content: Mapping, key: str, ctx: Context) -> list[dict]:
    """UDL ``doors``/``windows`` (FORMATS.md B.3) as canonical walls.

    Parameters
    ----------
    content : Mapping
        The page's content.
    key : {"doors", "windows"}
        Which openings to read.
    ctx : Context
        Per-call state; every warning goes to ``ctx.warnings``.

    Returns
    -------
    list of dict
        Canonical walls, ``c`` in page px; doors with ``door``/``door_state``, windows
        blocking movement and sound only (none when open).
    """
    walls: list[dict] = []
    negated = 0
    what = key[:-1]
    for i, raw in entries(content, key, ctx.warn, ctx.where(key)):
        where = ctx.where(key, i)
        segment = _opening_segment(raw, where, what, ctx)
        if segment is None:
            continue
        c, upward = segment
        negated += upward
        if not in_range(*c):
            ctx.warn(f"{where}: {BEYOND_LIMITS}, {what} skipped")
            continue
        if c[:2] == c[2:]:
            ctx.warn(f"{where}: zero-length {what} skipped")
            continue
        is_open, locked, secret = (
            _read_flag(raw, flag, where, ctx) for flag in ("isOpen", "isLocked", "isSecret")
        )
        ident = raw.get("id") or raw.get("_id")
        ident = ident if isinstance(ident, str) and ident else f"{what}-{i}"
        if key == "doors":
            if is_open and locked:
                ctx.warn(f"{where}: both isOpen and isLocked, open used")
            state = "open" if is_open else "locked" if locked else "closed"
            walls.append(canonical_wall(ident, c, door="secret" if secret else "door", state=state))
        else:
            moving = "none" if is_open else "normal"
            restrictions = {"move": moving, "sight": "none", "light": "none", "sound": moving}
            walls.append(canonical_wall(ident, c, restrictions))
    if negated:
        ctx.warn(
            f"{ctx.where(key)}: {negated} negative y read as stored upward and negated "
            "(unverified Roll20 convention)"
        )
    return walls


def _opening_segment(
    raw: Mapping, where: str, what: str, ctx: Context
) -> tuple[list[float], bool] | None:
    """``c`` (page px) of a UDL door or window, and whether its ``y`` was negated.

    The segment runs from ``(x, y) + path.handle0`` to ``(x, y) + path.handle1`` (``path``
    a JSON string or an object; ``_path`` on a Roll20 API object). A negative ``y`` is read
    as stored upward: ``y`` and the handles' ``y`` are negated. None (warned) when ``x``,
    ``y`` or a handle is not numeric.
    """
    x = read_number(raw.get("x"), f"{where}.x", ctx)
    y = read_number(raw.get("y"), f"{where}.y", ctx)
    handles = raw.get("path") if raw.get("path") is not None else raw.get("_path")
    if isinstance(handles, str):
        try:
            handles = json.loads(handles)
        except ValueError:
            handles = None
    ends = []
    if isinstance(handles, Mapping):
        for name in ("handle0", "handle1"):
            end = point(handles.get(name))
            if end is not None:
                ends.append(end)
    if x is None or y is None or len(ends) != 2:
        ctx.warn(f"{where}: needs numeric x, y and path.handle0/handle1 {{x, y}}, {what} skipped")
        return None
    sign = 1
    if y < 0:
        y, sign = -y, -1
    c = [clean(v) for v in (x + ends[0][0], y + sign * ends[0][1])]
    c += [clean(v) for v in (x + ends[1][0], y + sign * ends[1][1])]
    return c, sign < 0


def _read_flag(raw: Mapping, key: str, where: str, ctx: Context) -> bool:
    """A Roll20 true/false field (:func:`truthy`); an odd value is warned about, false used."""
    value = raw.get(key)
    if value not in (None, True, False, "true", "false"):
        ctx.warn(f"{where}.{key}: {value!r} is not true/false, false used")
    return truthy(value)
