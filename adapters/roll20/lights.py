"""Light and vision fields of a Roll20 graphic: legacy ``light_*`` or Updated Dynamic Lighting.

Radii and ranges are in page scale units, angles in degrees (FORMATS.md B.4).
"""

from __future__ import annotations

from collections.abc import Mapping

from adapters._common import clean, no_senses
from adapters.roll20._context import Context, falsy, read_distance, read_number, truthy
from service.model import MAX_UNITS

_UDL_FIELDS = ("emits_bright_light", "emits_low_light", "has_night_vision")


def uses_udl(raw: Mapping, lighting: str) -> bool:
    """Tell whether a graphic's UDL light fields are read (else its legacy ``light_*``)."""
    if lighting == "updated":
        return True
    if lighting == "legacy":
        return False
    return any(truthy(raw.get(k)) for k in _UDL_FIELDS)


def legacy_light_set(raw: Mapping) -> bool:
    """Tell whether a graphic sets a legacy ``light_radius``."""
    return raw.get("light_radius") not in (None, "", 0, "0")


def legacy_light(raw: Mapping, where: str, ctx: Context) -> tuple[dict, float | None, bool]:
    """(light {bright, dim}, vision range or None, private?) from ``light_*`` fields.

    A lit graphic's light is private (seen only by the graphic's controllers) when
    ``light_otherplayers`` is explicitly false (``false``, "false", 0); an absent or empty
    field reads as a light everyone sees.
    """
    radius = read_distance(raw.get("light_radius"), f"{where}.light_radius", ctx)
    none = {"bright": 0, "dim": 0}
    if radius is None or radius <= 0:
        return none, None, False
    dim_start = read_number(raw.get("light_dimradius"), f"{where}.light_dimradius", ctx)
    if dim_start is None or dim_start >= radius:
        bright = radius
    elif dim_start < 0:
        bright = 0
    else:
        bright = dim_start
    return {"bright": bright, "dim": radius}, None, falsy(raw.get("light_otherplayers"))


def udl_light(raw: Mapping, where: str, ctx: Context) -> tuple[dict, float | None, bool]:
    """(light {bright, dim}, night vision range or None, False) from the UDL fields.

    UDL has no private light: the Token Settings of Updated Dynamic Lighting offer Vision,
    Night Vision and Limit Field of Vision, and emitted Bright and Low Light, with no
    setting that hides a token's light from other players (help.roll20.net "Token
    Settings"; TokenMod's list of UDL fields). What a UDL token shows its controllers
    alone is its Night Vision (``has_night_vision``, ``night_vision_distance``), returned as
    the vision range (the token's darkvision); the light is never private.
    """
    bright = 0.0
    if truthy(raw.get("emits_bright_light")):
        bright = (
            read_distance(raw.get("bright_light_distance"), f"{where}.bright_light_distance", ctx)
            or 0
        )
    dim = bright
    if truthy(raw.get("emits_low_light")):
        low = read_distance(raw.get("low_light_distance"), f"{where}.low_light_distance", ctx)
        dim = bright + (low or 0)
        if dim > MAX_UNITS:
            ctx.warn(f"{where}.low_light_distance: total radius {dim} too large, bright used")
            dim = bright
    vision = None
    if truthy(raw.get("has_night_vision")):
        vision = read_distance(
            raw.get("night_vision_distance"), f"{where}.night_vision_distance", ctx
        )
    return {"bright": clean(bright), "dim": clean(dim)}, vision, False


def light_senses(raw: Mapping, where: str, ctx: Context, use_udl: bool) -> dict:
    """Canonical senses from a graphic's light fields (``light_multiplier`` > 1: low-light)."""
    senses = no_senses()
    if not use_udl:
        multiplier = read_number(raw.get("light_multiplier"), f"{where}.light_multiplier", ctx)
        if multiplier is not None and multiplier > 1:
            senses["low_light_vision"] = True
    else:
        sensitivity = read_number(
            raw.get("light_sensitivity_multiplier"), f"{where}.light_sensitivity_multiplier", ctx
        )
        if sensitivity is not None and sensitivity != 100:
            ctx.warn(f"{where}.light_sensitivity_multiplier: {sensitivity} not mapped")
    return senses


def light_angle(raw: Mapping, use_udl: bool, where: str, ctx: Context) -> float:
    """Emission angle in degrees (360 = all round)."""
    if use_udl:
        if truthy(raw.get("has_directional_bright_light")) or truthy(
            raw.get("has_directional_low_light")
        ):
            ctx.warn(f"{where}: directional UDL light not mapped, omnidirectional used")
        return 360
    key = "light_angle"
    angle = read_number(raw.get(key), f"{where}.{key}", ctx)
    if angle is None:
        return 360
    if not 0 < angle <= 360:
        ctx.warn(f"{where}.{key}: {angle!r} is not an angle in (0, 360], 360 used")
        return 360
    return angle
