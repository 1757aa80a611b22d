"""Foundry tokens -> canonical tokens: size, position, senses and carried light.

Positions are top-left canvas px, sizes in squares, sense ranges and light radii in grid
units (FORMATS.md A.4).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from adapters._common import canonical_token, entries, finite_number, no_senses
from adapters.foundry._context import (
    Context,
    assign_ids,
    norm_name,
    number_or,
    positive_or,
    read_position,
)
from service.model import MAX_UNITS

#: Range in grid units standing for Foundry's "unlimited" (``null``) sight/detection range.
UNLIMITED_RANGE = 10000

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


def read_tokens(doc: Mapping, ctx: Context) -> list[dict]:
    """Canonical tokens (FORMATS.md A.4); sizes in squares, positions top-left px.

    Parameters
    ----------
    doc : Mapping
        The Foundry scene document.
    ctx : Context
        Per-call state; every warning goes to ``ctx.warnings``.

    Returns
    -------
    list of dict
        Canonical tokens: ``x``/``y`` top-left canvas px, ``width``/``height`` in squares,
        senses, reach, light radii, ``elevation`` and ``vertical_extent`` (token height
        flags, else None) in grid units, unique string ids. Tokens that are not creatures
        (:func:`is_creature`) are left out, with one warning listing them.
    """
    tokens: list[dict] = []
    props: list[str] = []
    blind: dict[str, int] = {"disabled": 0, "null": 0}
    for i, raw in entries(doc, "tokens", ctx.warn):
        if not is_creature(raw):
            props.append(f"{i} ({raw.get('name') or raw.get('_id') or 'unnamed'})")
            continue
        position = read_position(raw, f"tokens[{i}]", "token", ctx)
        if position is None:
            continue
        width = positive_or(raw, "width", 1, f"tokens[{i}]", ctx)
        height = positive_or(raw, "height", 1, f"tokens[{i}]", ctx)
        elevation = number_or(raw.get("elevation"), 0, f"tokens[{i}].elevation", ctx)
        if elevation:
            ctx.count("token elevations: elevation")
        extent = _vertical_extent(raw, elevation, i, ctx)
        token = canonical_token(
            raw.get("_id"),
            raw.get("name"),
            position,
            (width, height),
            reach=ctx.distance,
            senses=_senses(raw, i, ctx, blind),
            light=_token_light(raw, i, ctx),
            hidden=raw.get("hidden") is True,
            elevation=elevation,
            heights={"vertical_extent": extent},
        )
        tokens.append(dict(token, _index=i))
    if props:
        ctx.warn(
            f"tokens: {len(props)} tokens without an actor (actorId null) are not creatures, "
            f"left out of the scene (no obstacle, no observer): tokens[{'], tokens['.join(props)}]"
        )
    _warn_no_vision(blind, ctx)
    if tokens:
        ctx.warn(
            "tokens: conditions, abilities and swim speed live on Foundry actors, "
            "not in the scene; defaults used"
        )
    assign_ids(tokens, "tokens", "token", ctx)
    return tokens


def is_creature(raw: Mapping) -> bool:
    """Whether a Foundry token stands for a creature.

    Decision: a token is a creature unless the export says it has no actor (``actorId``
    present and null or empty). Foundry creates tokens from actors; a token without one is
    a prop or a marker (a door handle, a trap, a label). A document without the
    ``actorId`` key at all (hand-written or trimmed exports) keeps its tokens as creatures.
    """
    if "actorId" not in raw:
        return True
    actor = raw.get("actorId")
    return isinstance(actor, str) and actor.strip() != ""


#: Token height flags, in the order they are tried: (flags path, absolute eye level?).
#: (Levels' ``losHeight`` is computed at run time, never stored: not a flag to read.)
_HEIGHT_FLAGS = (
    (("wall-height", "tokenHeight"), False),
    (("wallHeight", "tokenHeight"), False),
    (("levels", "tokenHeight"), False),
)


def _vertical_extent(raw: Mapping, elevation: float, i: int, ctx: Context) -> float | None:
    """Token height in grid units above its elevation (GEO-5a), or None (from its size).

    Foundry v14's ``depth`` (grid spaces, times ``grid.distance``) first; else read from
    Wall Height's ``flags["wall-height"].tokenHeight`` (older ``flags.wallHeight``),
    else Levels' ``flags.levels.tokenHeight``. Wall Height reads 0 as "automatic, from the
    token's size", and so does the importer (None).
    """
    depth = finite_number(raw.get("depth"))
    if depth is not None and 0 < depth * ctx.distance <= MAX_UNITS:
        ctx.count("token heights: depth (grid spaces x grid.distance)")
        return depth * ctx.distance
    flags = raw.get("flags")
    if not isinstance(flags, Mapping):
        return None
    for (ns, key), absolute in _HEIGHT_FLAGS:
        data = flags.get(ns)
        value = data.get(key) if isinstance(data, Mapping) else None
        if value is None:
            continue
        where = f"tokens[{i}].flags.{ns}.{key}"
        number = finite_number(value)
        if number is None:
            ctx.warn(f"{where}: {value!r} is not a height, size used")
            continue
        height = number - elevation if absolute else number
        if height <= 0:
            continue  # 0 = automatic (Wall Height)
        if height > MAX_UNITS:
            ctx.warn(f"{where}: height {height} above {MAX_UNITS}, size used")
            continue
        ctx.count(f"token heights: flags.{ns}.{key}")
        return height
    return None


def _warn_no_vision(blind: Mapping[str, int], ctx: Context) -> None:
    """One warning per kind of token whose sight gives no darkvision (FORMATS.md pitfall 13)."""
    if blind["disabled"]:
        ctx.warn(
            f"tokens: {blind['disabled']} tokens with sight disabled (sight.enabled false, "
            "<= v9 vision false) have no vision source: their sight range gives no darkvision"
        )
    if blind["null"]:
        ctx.warn(
            f"tokens: {blind['null']} tokens with sight.range null read as range 0 "
            f"(Foundry v{ctx.version}: null is unlimited only from v13)"
        )


def _sight_range(sight: Mapping, ctx: Context, blind: dict[str, int]) -> Any:
    """A v10+ ``sight`` object's range in grid units, 0 when it gives no vision source.

    ``sight.enabled: false`` is no vision source at all; ``range: null`` is 0 before v13 and
    unlimited from v13 (FORMATS.md pitfall 13). ``blind`` counts the tokens concerned: a
    disabled sight with a range (or null) that would otherwise have given darkvision.
    """
    rng = sight.get("range", 0)
    if sight.get("enabled") is False:
        blind["disabled"] += rng is None or (finite_number(rng) or 0) > 0
        return 0
    if rng is not None:
        return rng
    if ctx.version.isdigit() and int(ctx.version) >= 13:
        return UNLIMITED_RANGE
    blind["null"] += 1
    return 0


def _senses(raw: Mapping, i: int, ctx: Context, blind: dict[str, int]) -> dict:
    """Canonical senses (grid units) from v10+ ``sight``/``detectionModes`` or <= v9 fields.

    Sight gives darkvision only from a vision source (:func:`_sight_range`); the detection
    modes (tremorsense, see invisibility ...) are the actor's and count either way.
    """
    senses = no_senses()

    def raise_to(sense: str, value: float) -> None:
        current = senses[sense]
        senses[sense] = value if current is None else max(current, value)

    sight = raw.get("sight")
    if isinstance(sight, Mapping):
        rng = _sight_range(sight, ctx, blind)
        mode = sight.get("visionMode") or "basic"
        key = norm_name(mode) if isinstance(mode, str) else None
        if finite_number(rng) is None or rng < 0:
            ctx.warn(f"tokens[{i}].sight.range: {rng!r} is not a distance, ignored")
        elif key == "lightamplification":
            senses["low_light_vision"] = True
        elif key in _VISION_MODES:
            if rng > 0:
                raise_to(_VISION_MODES[key], rng)
        else:
            ctx.warn(f"tokens[{i}].sight.visionMode: {mode!r} not mapped")
    elif raw.get("vision") is False and any(
        (finite_number(raw.get(key)) or 0) > 0 for key in ("dimSight", "brightSight")
    ):
        blind["disabled"] += 1
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
        key = norm_name(mode_id)
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


def _detection_modes(raw: object, i: int, ctx: Context) -> Iterator[tuple[str, str, Mapping]]:
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


def _token_light(raw: Mapping, i: int, ctx: Context) -> dict:
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
