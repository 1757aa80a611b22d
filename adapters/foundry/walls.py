"""Foundry walls (0.7 to v13) -> canonical walls (FORMATS.md A.3; RULES.md GEO-3..5).

Endpoints stay in canvas px in their original order (one-way walls depend on it);
thresholds and heights are in grid units.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters._common import entries, finite_number
from adapters.foundry._context import (
    Context,
    assign_ids,
    elevation_range,
    enum_value,
    level_ids,
    level_range,
)

_OLD_MOVE = {0: "none", 1: "normal"}
_OLD_SENSE = {0: "none", 1: "normal", 2: "limited"}
_SENSE_TYPES = {0: "none", 10: "limited", 20: "normal", 30: "proximity", 40: "distance"}
#: A wall that mixes the 0.7/0.8 fields (``sense``, values 0/1/2) with v9+ ones (values
#: 0/10/20/30/40): the two value sets do not overlap, so each field is read by its value.
_MIXED_MOVE = {**_OLD_MOVE, **_SENSE_TYPES}
_MIXED_SENSE = {**_OLD_SENSE, **_SENSE_TYPES}
_DIRECTIONS = {0: "both", 1: "left", 2: "right"}
_DOOR_TYPES = {0: "none", 1: "door", 2: "secret"}
_DOOR_STATES = {0: "closed", 1: "open", 2: "locked"}


def read_walls(doc: Mapping, ctx: Context) -> list[dict]:
    """Canonical walls; invalid walls are skipped with a warning (FORMATS.md A.3).

    Parameters
    ----------
    doc : Mapping
        The Foundry scene document.
    ctx : Context
        Per-call state; every warning goes to ``ctx.warnings``.

    Returns
    -------
    list of dict
        Canonical walls: ``c`` in canvas px (endpoint order kept, GEO-3), thresholds and
        heights in grid units, unique string ids.
    """
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
        move, sight, light, sound = _restrictions(raw, i, ctx)
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
        height, level = _wall_level(raw, i, ctx)
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
                "height": height,
                "cover": "normal",
                "hp": None,
                "ac": None,
                "_index": i,
            }
        )
        if level is not None:  # only on a wall of one level: other scenes import as before
            walls[-1]["level"] = level
    if attenuated:
        ctx.warn(f"walls: threshold.attenuation ignored on {attenuated} walls")
    assign_ids(walls, "walls", "wall", ctx)
    return walls


def _wall_level(raw: Mapping, i: int, ctx: Context) -> tuple[dict | None, str | None]:
    """A wall's height range and level (GEO-5, GEO-10).

    The Wall Height or Levels flags give the height when present. A v14 wall lists its
    levels (``levels: [id]``): one level is its ``level``; without a height flag the wall
    takes the range of its levels (one level's, or from the lowest bottom to the highest
    top of several). ``levels: []`` (on no level in particular) keeps it on every floor.
    """
    height = _wall_height(raw.get("flags"), i, ctx)
    ids = level_ids(raw, f"walls[{i}]", ctx)
    if not ids:
        if ctx.levels and raw.get("levels") == []:
            ctx.count("walls on every level: levels []")
        return height, None
    ctx.count("wall levels: levels[]")
    if height is None:
        height = level_range(ids, ctx)
        if height is not None:
            ctx.count("wall heights: the range of levels[]")
    return height, ids[0] if len(ids) == 1 else None


def _restrictions(raw: Mapping, i: int, ctx: Context) -> tuple[str, str, str, str]:
    """``move``, ``sight``, ``light``, ``sound`` of a wall, migrating 0.7/0.8 ``sense``.

    Field by field, like Foundry's own migration: an explicit v9+ ``sight``/``light`` wins
    over ``sense``; without it ``sense`` gives both. ``sound`` without a field of its own
    takes the sight value (0.7 had no separate sound restriction).
    """
    where = f"walls[{i}]"
    if not ctx.old and "sense" not in raw:
        move, sight, light, sound = (
            _lookup(raw, key, _SENSE_TYPES, "normal", where, ctx)
            for key in ("move", "sight", "light", "sound")
        )
        return move, sight, light, sound
    mixed = any(raw.get(key) is not None for key in ("sight", "light")) and "sense" in raw
    move_table, sense_table = (
        (_MIXED_MOVE, _MIXED_SENSE)
        if mixed or not ctx.old
        else (
            _OLD_MOVE,
            _OLD_SENSE,
        )
    )
    move = _lookup(raw, "move", move_table, "normal", where, ctx)
    sense = _lookup(raw, "sense", sense_table, "normal", where, ctx)
    sight, light = (
        _lookup(raw, key, sense_table, "normal", where, ctx) if raw.get(key) is not None else sense
        for key in ("sight", "light")
    )
    sound = (
        _lookup(raw, "sound", sense_table, "normal", where, ctx)
        if raw.get("sound") is not None
        else sight
    )
    return move, sight, light, sound


def _lookup(
    raw: Mapping, key: str, table: Mapping[int, str], default: str, where: str, ctx: Context
) -> str:
    """Map an enum field; absent -> ``default``; unknown -> ``default`` with a warning."""
    value = raw.get(key)
    if value is None:
        return default
    mapped = enum_value(table, value)
    if mapped is None:
        ctx.warn(f"{where}.{key}: unknown value {value!r}, {default} used")
        return default
    return mapped


def _threshold(raw: object, i: int, ctx: Context) -> tuple[dict | None, bool]:
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


def _wall_height(flags: object, i: int, ctx: Context) -> dict | None:
    """Wall height range in grid units (GEO-5) from module flags, or None (no flag).

    Wall Height 4+ ``flags["wall-height"].top/bottom``; its older ``flags.wallHeight``
    (``top``/``bottom`` or ``wallHeightTop``/``wallHeightBottom``); Levels
    ``flags.levels.rangeBottom/rangeTop``. A null bound is unbounded (Wall Height reads it as
    +-Infinity). Each wall whose flag gives a range counts in ``ctx.read`` under its flag (a
    flag with both bounds null gives none and is not counted).
    """
    if not isinstance(flags, Mapping):
        return None
    sources = (
        ("wall-height", "bottom", "top"),
        ("wallHeight", "bottom", "top"),
        ("wallHeight", "wallHeightBottom", "wallHeightTop"),
        ("wall-height", "wallHeightBottom", "wallHeightTop"),
        ("levels", "rangeBottom", "rangeTop"),
    )
    for ns, bottom_key, top_key in sources:
        data = flags.get(ns)
        if not isinstance(data, Mapping) or not (bottom_key in data or top_key in data):
            continue
        where = f"walls[{i}].flags.{ns}"
        height = elevation_range(
            data.get(bottom_key), data.get(top_key), where, ctx, (bottom_key, top_key)
        )
        if height is not None:  # a flag of two null bounds is an infinitely tall wall
            ctx.count(f"wall heights: flags.{ns}.{bottom_key}/{top_key}")
        return height
    return None
