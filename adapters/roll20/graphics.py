"""Roll20 graphics -> canonical tokens (token layers) and scene lights (lit graphics elsewhere).

Token positions are top-left page px and sizes squares; light centres in page px, radii in
page scale units (FORMATS.md B.4).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from adapters._common import (
    BEYOND_LIMITS,
    canonical_light,
    canonical_token,
    clean,
    entries,
    in_range,
    short_list,
)
from adapters.roll20._context import (
    Context,
    layer_label,
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
from service.model import MAX_SQUARES, MIN_SQUARES

#: Tolerance, in degrees, for a graphic's rotation to count as a whole quarter turn (float noise
#: of rotations written as decimals).
RIGHT_ANGLE_TOL_DEG = 1e-6

_TOKEN_LAYERS = ("objects", "gmlayer")
#: How many ids a warning about skipped graphics names.
_SHOWN_IDS = 12


def read_graphics(
    content: Mapping, private_lights: str, ctx: Context
) -> tuple[list[dict], list[dict]]:
    """Tokens (creatures on the token layers) and scene lights (other lit graphics).

    A graphic on a token layer (``objects``, ``gmlayer``) that is not a drawing is a creature
    when :func:`is_creature` says so; GM-layer creatures are ``hidden``. The other graphics
    of the token layers (GM markers, props, cards) are skipped with one warning per layer
    naming them; those that emit light become scene lights, as lit graphics of the other
    layers do.

    A legacy light that only the token's controllers see (``light_otherplayers`` false) is
    read as the token's darkvision when the token has sight and ``private_lights`` is
    ``"vision"`` (the pre-2020 darkvision idiom), else kept as a private light: the carried
    light's ``seen_by`` is ``"controllers"`` (it lights only for the token carrying it); on a
    graphic that is not a creature the scene light's ``seen_by`` is ``"controllers"`` (it
    lights for no observer). Updated Dynamic Lighting has no private light: a token's
    emitted light is seen by everyone, and what only its controllers see, Night Vision, is
    read as darkvision (:func:`adapters.roll20.lights.udl_light`).

    Parameters
    ----------
    content : Mapping
        The page's content (its ``graphics``).
    private_lights : {"vision", "light"}
        How a legacy private light on a token with sight is read (see above).
    ctx : Context
        Per-call state; every warning goes to ``ctx.warnings``.

    Returns
    -------
    tuple of list of dict
        ``(tokens, lights)``: tokens with ``x``/``y`` top-left page px and sizes in cells
        (squares, or hexagons on a hex page), their ``light`` radii in page scale units with
        ``seen_by``; lights at the graphic's centre (px), radii in page scale units, with
        ``seen_by``.
    """
    tokens: list[dict] = []
    lights: list[dict] = []
    tally = _Tally()
    for i, raw in entries(content, "graphics", ctx.warn, ctx.where("graphics")):
        where = ctx.where("graphics", i)
        layer = raw.get("layer")
        drawing = truthy(raw.get("isdrawing"))
        box = _box(raw, where, ctx)
        if box is None:
            continue
        light = _read_light(raw, where, ctx, tally)
        on_token_layer = layer in _TOKEN_LAYERS and not drawing
        creature = on_token_layer and is_creature(raw, lit=light.lit)
        ident = graphic_id(raw)
        if ident is None:
            if creature or light.lit:
                ctx.warn(f"{where}.id: {raw.get('id')!r} missing, graphic-{i} used")
            ident = f"graphic-{i}"
        if creature:
            tokens.append(_creature(raw, ident, box, light, private_lights, where, ctx, tally))
            continue
        if on_token_layer:
            tally.not_creatures.setdefault(str(layer), []).append(ident)
            tally.lit_not_creatures[str(layer)] += light.lit
        if light.lit:
            lights.append(_scene_light(raw, ident, box, light, where, ctx))
        elif not on_token_layer:
            label = "" if drawing and layer in _TOKEN_LAYERS else str(layer)
            tally.unmapped.setdefault(label, []).append(i)
    _warn_lights(tally, ctx)
    _warn_skipped(tally, bool(tokens), ctx)
    return tokens, lights


@dataclass
class _Tally:
    """What :func:`read_graphics` counts for its summary warnings, one per kind."""

    #: Indices of the graphics mapped to nothing, per layer ("" for token-layer drawings).
    unmapped: dict[str, list[int]] = field(default_factory=dict)
    #: Ids of the token-layer graphics that are not creatures, per layer.
    not_creatures: dict[str, list[str]] = field(default_factory=dict)
    #: How many of those emit light (kept as scene lights), per layer.
    lit_not_creatures: Counter[str] = field(default_factory=Counter)
    #: Private legacy lights read as darkvision, and those kept as private lights.
    as_vision: int = 0
    kept_private: int = 0
    #: Graphics whose legacy ``light_*`` fields gave way to their UDL fields.
    ignored_legacy: int = 0
    #: Tokens with ``statusmarkers``.
    markers: int = 0


@dataclass(frozen=True)
class _Light:
    """The light a graphic emits (radii in page scale units), as its fields say.

    ``vision``: UDL Night Vision range (or None); ``private``: a legacy light only the
    graphic's controllers see (``light_otherplayers`` false); ``udl``: whether the Updated
    Dynamic Lighting fields were read (:func:`adapters.roll20.lights.uses_udl`).
    """

    emitted: dict
    vision: float | None
    private: bool
    udl: bool

    @property
    def lit(self) -> bool:
        return self.emitted["dim"] > 0


def _read_light(raw: Mapping, where: str, ctx: Context, tally: _Tally) -> _Light:
    """The graphic's UDL or legacy light fields, whichever the page and graphic use."""
    use_udl = uses_udl(raw, ctx.lighting)
    if use_udl and legacy_light_set(raw):
        tally.ignored_legacy += 1
    read = udl_light if use_udl else legacy_light
    emitted, vision, private = read(raw, where, ctx)
    return _Light(emitted, vision, private, use_udl)


def _creature(
    raw: Mapping,
    ident: str,
    box: tuple[float, float, float, float],
    light: _Light,
    private_lights: str,
    where: str,
    ctx: Context,
    tally: _Tally,
) -> dict:
    """The canonical token of a creature graphic: senses and the light it carries.

    A private legacy light (:class:`_Light`) becomes darkvision on a token with sight
    (``light_hassight``) when ``private_lights`` is ``"vision"``, else a light with
    ``seen_by`` ``"controllers"``; UDL Night Vision becomes darkvision.
    """
    senses = light_senses(raw, where, ctx, light.udl)
    emitted, seen_by = light.emitted, "everyone"
    if light.private and private_lights == "vision" and truthy(raw.get("light_hassight")):
        tally.as_vision += 1
        senses["darkvision"] = max(senses["darkvision"], emitted["dim"])
        emitted = {"bright": 0, "dim": 0}
    elif light.private:
        tally.kept_private += 1
        seen_by = "controllers"
    if light.vision is not None:
        senses["darkvision"] = max(senses["darkvision"], light.vision)
    if emitted["dim"] > 0:
        angle = light_angle(raw, light.udl, where, ctx)
        if angle != 360:
            ctx.warn(f"{where}: light cone of {angle} deg kept as an omnidirectional light")
    if isinstance(raw.get("statusmarkers"), str) and raw["statusmarkers"].strip():
        tally.markers += 1
    carried = dict(emitted, seen_by=seen_by)
    return _token(raw, ident, box, raw.get("layer") == "gmlayer", senses, carried, ctx)


def _warn_lights(tally: _Tally, ctx: Context) -> None:
    """The summary warnings about private legacy lights (darkvision or private lights)."""
    if tally.as_vision:
        ctx.warn(
            f"{ctx.where('graphics')}: {tally.as_vision} legacy lights seen only by their "
            "controllers (light_otherplayers false, light_hassight true) read as the "
            "token's own darkvision"
        )
    if tally.kept_private:
        ctx.warn(
            f"{ctx.where('graphics')}: {tally.kept_private} token lights seen only by their "
            "controllers (light_otherplayers false) kept as private lights (seen_by "
            "controllers): they light nothing for anyone else"
        )


def _warn_skipped(tally: _Tally, has_tokens: bool, ctx: Context) -> None:
    """The summary warnings about graphics and fields left out, one per kind and layer."""
    where = ctx.where("graphics")
    for layer, idents in tally.not_creatures.items():
        lit_count = tally.lit_not_creatures[layer]
        lit_note = f"; {lit_count} of them emit light, kept as scene lights" if lit_count else ""
        ctx.warn(
            f"{where}: {len(idents)} graphics on the {layer_label(layer)} are not "
            f"creatures (no represented character, bar value or name), skipped: "
            f"{short_list(idents, _SHOWN_IDS)}{lit_note}"
        )
    if tally.ignored_legacy:
        ctx.warn(
            f"{where}: legacy light_* fields ignored on {tally.ignored_legacy} "
            "graphics (Updated Dynamic Lighting fields used)"
        )
    if tally.markers:
        ctx.warn(f"{where}: status markers on {tally.markers} tokens not mapped")
    if has_tokens:
        ctx.warn(
            f"{where}: conditions, abilities and swim speed live on Roll20 "
            "characters, not on the page; defaults used"
        )
    for label, indices in tally.unmapped.items():
        if label == "":
            what = "drawings (isdrawing) on the token layers"
        else:
            what = "graphics on the " + layer_label(label)
        ctx.warn(f"{where}: {len(indices)} {what} not mapped (indices {short_list(indices)})")


def is_creature(raw: Mapping, lit: bool = False) -> bool:
    """Tell whether a token-layer graphic is a creature (a token of the canonical scene).

    A creature represents a character (``represents``), or carries a bar value
    (``bar1_value`` .. ``bar4_value``: hit points and the like), or has a name (shown or not:
    a GM hides a monster's name from the players, the monster is still there) and emits no
    light: a named graphic with a light and neither a character nor a bar value ("Light
    Source", "Torch", "Fungus Light Source") is a light prop (FORMATS.md pitfall 16). A
    graphic with none of these, such as an unnamed GM-layer marker or a prop, is not a
    creature; nor is a card dealt onto the table (``cardid`` or ``_subtype`` "card").

    Parameters
    ----------
    raw : Mapping
        The Roll20 graphic.
    lit : bool
        Whether the graphic emits light (its name alone then does not make it a creature).
    """
    if _set(raw.get("cardid")) or raw.get("_subtype") == "card":
        return False
    keys = ("represents", *(f"bar{k}_value" for k in range(1, 5)))
    if any(_set(raw.get(key)) for key in keys):
        return True
    return not lit and _set(raw.get("name"))


def graphic_id(raw: Mapping) -> str | None:
    """The graphic's id: ``id``, or ``_id`` (Roll20 API objects), or None when neither is set."""
    for key in ("id", "_id"):
        value = raw.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _set(value: object) -> bool:
    """Whether a Roll20 text field holds something (not None, "" or blanks)."""
    if value is None or isinstance(value, bool):
        return bool(value)
    return bool(str(value).strip())


def _scene_light(
    raw: Mapping,
    ident: str,
    box: tuple[float, float, float, float],
    light: _Light,
    where: str,
    ctx: Context,
) -> dict:
    """Scene light at the graphic's centre (px); radii in page scale units."""
    angle = light_angle(raw, light.udl, where, ctx)
    rotation = read_number(raw.get("rotation"), f"{where}.rotation", ctx) or 0
    rotation = clean(math.fmod(rotation, 360))
    if angle != 360:
        ctx.warn(
            f"{where}: light cone rotation {rotation} deg passed through unchanged "
            "(Roll20's facing convention unverified)"
        )
    if light.private:
        ctx.warn(
            f"{where}: light shown only to its controllers in Roll20 (light_otherplayers "
            "false): seen_by controllers, it lights nothing for any observer"
        )
    bright, dim = light.emitted["bright"], light.emitted["dim"]
    scene_light = canonical_light(
        ident, box[0], box[1], bright, dim, angle=angle, rotation=rotation
    )
    return dict(scene_light, seen_by="controllers" if light.private else "everyone")


def _box(raw: Mapping, where: str, ctx: Context) -> tuple[float, float, float, float] | None:
    """Centre (px) and footprint (px; a quarter turn swaps it) of a graphic, or None."""
    position = left_top(raw, where, "graphic", ctx)
    if position is None:
        return None
    left, top = position
    size = []
    for key in ("width", "height"):
        value, _ = parse_number(raw.get(key))
        if value is None or not MIN_SQUARES <= value / ctx.cell_px <= MAX_SQUARES:
            ctx.warn(
                f"{where}.{key}: {raw.get(key)!r} is not a size in px, one square "
                f"({clean(ctx.cell_px)} px) used"
            )
            value = ctx.cell_px
        size.append(value)
    rotation = read_number(raw.get("rotation"), f"{where}.rotation", ctx) or 0
    turn = rotation % 180
    if abs(turn - 90) < RIGHT_ANGLE_TOL_DEG:
        size.reverse()
    elif min(turn, 180 - turn) > RIGHT_ANGLE_TOL_DEG and size[0] != size[1]:
        ctx.warn(f"{where}.rotation: {rotation} deg, footprint kept axis-aligned")
    if not in_range(left - size[0] / 2, top - size[1] / 2, left + size[0], top + size[1]):
        ctx.warn(f"{where}: {BEYOND_LIMITS}, graphic skipped")
        return None
    return left, top, size[0], size[1]


def _extent_px(width: float, height: float, ctx: Context) -> tuple[float, float]:
    """Px width and height of a canonical token box of ``width`` x ``height`` cells.

    Squares: cells of the grid size. Hexagons (the canonical box, as Foundry v12+ lays a token
    on a hex grid): ``width`` hexagon widths by ``height`` hexagon heights on ``hex-row``, the
    rows interleaving (three quarters of a hexagon height per further whole row);
    ``hex-col`` the same turned a quarter.
    """
    size = ctx.grid_size
    if ctx.grid_type not in ("hex-row", "hex-col"):
        return width * size, height * size
    tall = 2 * size / math.sqrt(3)  # a hexagon's long diagonal

    def interleaved(cells: float) -> float:
        if cells < 1:
            return cells
        return 0.75 * math.floor(cells) + 0.5 * (cells % 1) + 0.25

    if ctx.grid_type == "hex-row":
        return width * size, interleaved(height) * tall
    return interleaved(width) * tall, height * size


def _token(
    raw: Mapping,
    ident: str,
    box: tuple[float, float, float, float],
    hidden: bool,
    senses: dict,
    light: dict,
    ctx: Context,
) -> dict:
    """Canonical token: top-left corner in px, size in cells (squares or hexagons)."""
    left, top, width_px, height_px = box
    width = clean(width_px / ctx.cell_px)
    height = clean(height_px / ctx.cell_px)
    extent = _extent_px(width, height, ctx)
    corner = (clean(left - extent[0] / 2), clean(top - extent[1] / 2))
    return canonical_token(
        ident,
        raw.get("name"),
        corner,
        (width, height),
        reach=ctx.distance,
        senses=senses,
        light=light,
        hidden=hidden,
    )
