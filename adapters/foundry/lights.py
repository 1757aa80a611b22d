"""Foundry ambient lights -> canonical lights (FORMATS.md A.5).

Positions in canvas px, radii in grid units, angles in degrees.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from adapters._common import canonical_light, entries, finite_number, read_bool
from adapters.foundry._context import Context, assign_ids, number_or, one_level, read_position


def read_lights(doc: Mapping, ctx: Context) -> list[dict]:
    """Canonical ambient lights (FORMATS.md A.5): radii in grid units, position in px.

    Parameters
    ----------
    doc : Mapping
        The Foundry scene document.
    ctx : Context
        Per-call state; every warning goes to ``ctx.warnings``.

    Returns
    -------
    list of dict
        Canonical lights: ``x``/``y`` canvas px, ``bright``/``dim`` in grid units,
        ``angle``/``rotation`` in degrees, ``elevation`` in grid units, ``on`` false for a
        ``hidden`` light (switched off in Foundry, one warning names them all), ``walls``
        false for a 0.7/0.8 universal light (``t: "u"``), unique string ids.
    """
    lights: list[dict] = []
    inactive = 0
    for i, raw in entries(doc, "lights", ctx.warn):
        position = read_position(raw, f"lights[{i}]", "light", ctx)
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
        walls = read_bool(raw, "walls", f"lights[{i}]", ctx.warn)
        if flat and raw.get("t") == "u":
            walls = False  # Foundry's migration of 0.7/0.8 universal lights: walls: false
        elif flat and raw.get("t") == "g":
            ctx.warn(
                f"lights[{i}].t: 'g' (global: seen without a line of sight) flag ignored, "
                "mapped as a local light"
            )
        rotation = number_or(raw.get("rotation"), 0, f"lights[{i}].rotation", ctx)
        inactive += _has_activity_range(src)
        light = canonical_light(
            raw.get("_id"),
            x,
            y,
            bright,
            dim,
            angle=_angle(src.get("angle"), f"{where}.angle", ctx),
            rotation=rotation,
            darkness=darkness,
            walls=walls,
        )
        on = raw.get("hidden") is not True
        level = one_level(raw, f"lights[{i}]", ctx)
        if level is not None:
            ctx.count("light levels: levels[]")
        elevation = _elevation(raw, i, ctx)
        lights.append(dict(light, elevation=elevation, on=on, _index=i))
        if level is not None:  # only on a light of one level: other scenes import as before
            lights[-1]["level"] = level
    if inactive:
        ctx.warn(f"lights: scene-darkness activation range ignored on {inactive} lights")
    assign_ids(lights, "lights", "light", ctx)
    off = [light["id"] for light in lights if not light["on"]]
    if off:
        ctx.warn(
            f"lights: {len(off)} hidden lights are switched off in Foundry, imported with "
            f"on: false: {', '.join(off)}"
        )
    return lights


def _elevation(raw: Mapping, i: int, ctx: Context) -> int | float:
    """Light elevation in grid units: v12+ ``elevation``, else Levels ``rangeBottom``; 0.

    Levels' ``rangeTop`` (the top of the floor the light belongs to) is not kept: a light is
    a band of no thickness at its elevation (GEO-5a).
    """
    if raw.get("elevation") is not None:
        ctx.count("light elevations: elevation")
        return number_or(raw.get("elevation"), 0, f"lights[{i}].elevation", ctx)
    flags = raw.get("flags")
    levels = flags.get("levels") if isinstance(flags, Mapping) else None
    bottom = levels.get("rangeBottom") if isinstance(levels, Mapping) else None
    if bottom is None:
        return 0
    if isinstance(bottom, float) and math.isinf(bottom):
        return 0
    ctx.count("light elevations: flags.levels.rangeBottom")
    return number_or(bottom, 0, f"lights[{i}].flags.levels.rangeBottom", ctx)


def _radius(value: object, where: str, ctx: Context) -> int | float:
    return number_or(value, 0, where, ctx, "a radius")


def _angle(value: object, where: str, ctx: Context) -> int | float:
    """Emission angle in degrees, normalised to (0, 360] like Foundry's AngleField(base=360)."""
    angle = number_or(value, 360, where, ctx, "an angle") % 360
    return 360 if angle == 0 else angle


def _has_activity_range(src: Mapping) -> bool:
    """Tell whether a light only shines for part of the scene-darkness range."""
    limits = src.get("darkness")
    if isinstance(limits, Mapping):
        low, high = finite_number(limits.get("min")), finite_number(limits.get("max"))
        return (low is not None and low > 0) or (high is not None and high < 1)
    threshold = finite_number(src.get("darknessThreshold"))
    return threshold is not None and threshold > 0
