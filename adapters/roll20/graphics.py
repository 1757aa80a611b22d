"""Roll20 graphics -> canonical tokens (token layers) and scene lights (lit graphics elsewhere).

Token positions are top-left page px and sizes squares; light centres in page px, radii in
page scale units (FORMATS.md B.4).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from adapters._common import clean, entries, in_range, short_list, size_category
from adapters.roll20._context import (
    LAYER_LABELS,
    Context,
    left_top,
    parse_number,
    read_number,
    truthy,
)
from adapters.roll20.lights import (
    legacy_light,
    legacy_light_set,
    light_angle,
    light_senses,
    udl_light,
    uses_udl,
)
from service.model import MAX_COORD_PX, MAX_SQUARES, MIN_SQUARES

#: Tolerance, in degrees, for a graphic's rotation to count as a whole quarter turn (float noise
#: of rotations written as decimals).
RIGHT_ANGLE_TOL_DEG = 1e-6

_TOKEN_LAYERS = ("objects", "gmlayer")


def read_graphics(
    content: Mapping, private_lights: str, ctx: Context
) -> tuple[list[dict], list[dict]]:
    """Tokens (token layers) and scene lights (lit graphics elsewhere) from ``graphics``.

    Parameters
    ----------
    content : Mapping
        The page's content (its ``graphics``).
    private_lights : {"vision", "light"}
        How a legacy light only its controllers see is read (see ``adapters.roll20``).
    ctx : Context
        Per-call state; every warning goes to ``ctx.warnings``.

    Returns
    -------
    tuple of list of dict
        ``(tokens, lights)``: tokens with ``x``/``y`` top-left page px and sizes in
        squares; lights at the graphic's centre (px), radii in page scale units.
    """
    tokens: list[dict] = []
    lights: list[dict] = []
    unmapped: dict[str, list[int]] = {}
    private = 0
    ignored_legacy = 0
    markers = 0
    for i, raw in entries(content, "graphics", ctx.warn, ctx.where("graphics")):
        where = ctx.where("graphics", i)
        layer = raw.get("layer")
        drawing = truthy(raw.get("isdrawing"))
        box = _box(raw, where, ctx)
        if box is None:
            continue
        use_udl = uses_udl(raw, ctx.lighting)
        if use_udl and legacy_light_set(raw):
            ignored_legacy += 1
        if use_udl:
            emitted, vision, is_private = udl_light(raw, where, ctx)
        else:
            emitted, vision, is_private = legacy_light(raw, where, ctx)
        lit = emitted["dim"] > 0
        is_token = layer in _TOKEN_LAYERS and not drawing
        ident = raw.get("id")
        if not isinstance(ident, str) or not ident:
            if is_token or lit:
                ctx.warn(f"{where}.id: {ident!r} missing, graphic-{i} used")
            ident = f"graphic-{i}"

        if is_token:
            senses = light_senses(raw, where, ctx, use_udl)
            if is_private and private_lights == "vision":
                private += 1
                senses["darkvision"] = max(senses["darkvision"], emitted["dim"])
                emitted = {"bright": 0, "dim": 0}
            elif is_private:
                private += 1
            if vision is not None:
                senses["darkvision"] = max(senses["darkvision"], vision)
            if emitted["dim"] > 0:
                angle = light_angle(raw, use_udl, where, ctx)
                if angle != 360:
                    ctx.warn(f"{where}: light cone of {angle} deg kept as an omnidirectional light")
            if isinstance(raw.get("statusmarkers"), str) and raw["statusmarkers"].strip():
                markers += 1
            tokens.append(_token(raw, ident, box, layer == "gmlayer", senses, emitted, ctx))
        elif lit:
            angle = light_angle(raw, use_udl, where, ctx)
            if not use_udl and raw.get("light_otherplayers") is False:
                ctx.warn(
                    f"{where}: light shown only to its controllers in Roll20, kept as a "
                    "light everyone sees"
                )
            rotation = read_number(raw.get("rotation"), f"{where}.rotation", ctx) or 0
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
            what = "graphics on the " + LAYER_LABELS.get(label, f"unknown layer {label!r}")
        ctx.warn(
            f"{ctx.where('graphics')}: {len(indices)} {what} not mapped "
            f"(indices {short_list(indices)})"
        )
    return tokens, lights


def _box(raw: Mapping, where: str, ctx: Context) -> tuple[float, float, float, float] | None:
    """Centre (px) and footprint (px; a quarter turn swaps it) of a graphic, or None."""
    position = left_top(raw, where, "graphic", ctx)
    if position is None:
        return None
    left, top = position
    size = []
    for key in ("width", "height"):
        value, _ = parse_number(raw.get(key))
        if value is None or not MIN_SQUARES <= value / ctx.grid_size <= MAX_SQUARES:
            ctx.warn(
                f"{where}.{key}: {raw.get(key)!r} is not a size in px, one square "
                f"({clean(ctx.grid_size)} px) used"
            )
            value = ctx.grid_size
        size.append(value)
    rotation = read_number(raw.get("rotation"), f"{where}.rotation", ctx) or 0
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
    ctx: Context,
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
