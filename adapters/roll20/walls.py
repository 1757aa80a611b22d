"""Roll20 walls: ``walls``-layer paths, UDL doors and windows -> canonical walls.

Endpoints in page px; one wall per segment of a path (FORMATS.md B.2, B.3; RULES.md GEO-3).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping

from adapters._common import (
    BLOCKS_ALL,
    canonical_wall,
    clean,
    entries,
    finite_number,
    in_range,
    kind_name,
    short_list,
)
from adapters.roll20._context import LAYER_LABELS, Context, read_number, truthy
from adapters.roll20.paths import path_polylines
from service.model import MAX_COORD_PX


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
        polylines = path_polylines(raw, where, ctx)
        if polylines is None:
            continue
        base_id = raw.get("id") or raw.get("_id")
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
        label = LAYER_LABELS.get(layer, f"unknown layer {layer!r}")
        ctx.warn(
            f"{ctx.where('paths')}: {len(indices)} drawings on the {label} not mapped "
            f"(indices {short_list(indices)})"
        )
    return walls


def _barrier(raw: Mapping, where: str, ctx: Context) -> tuple[dict, str]:
    """Restrictions and direction from the UDL ``barrierType``."""
    kind = raw.get("barrierType")
    normal = dict(BLOCKS_ALL)
    if kind in (None, "", "wall"):
        return normal, "both"
    if kind == "oneWay":
        reversed_ = raw.get("oneWayReversed")
        if reversed_ not in (None, True, False, "true", "false"):
            ctx.warn(f"{where}.oneWayReversed: {reversed_!r} is not true/false, false used")
        return normal, "right" if truthy(reversed_) else "left"
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
    for i, raw in entries(content, key, ctx.warn, ctx.where(key)):
        where = ctx.where(key, i)
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
            flags[flag] = truthy(value)
        ident = raw.get("id") or raw.get("_id")
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
