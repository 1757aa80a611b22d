"""Request and response bodies of ``POST /v1/modifiers/{gravity,underwater,range}``.

Contract: ``docs/api.md`` (Modifiers). Requests are strict: unknown fields, numbers in
strings, booleans given as numbers, NaN and infinities are rejected with their field path.
Each request's ``post_load`` returns the keyword arguments of the rule function (in
``service.rules.dnd5e`` or ``service.rules.pf2e_variant``) its view calls, so the views stay
one line.

- ``gravity`` answers for ruleset ``dnd5e`` (5E-GRV-1..6) and ``starfinder`` (its one
  gravity rule, SF-PRN-2: prone in zero gravity); ``underwater`` for ``dnd5e`` (5E-UW-1..9),
  ``range`` for ``pf2e-variant`` (PV-RNG-1..2). No other seed or SRD the service follows
  defines them (docs/rules.md): another known ruleset answers 422 at ``ruleset`` naming the
  rulesets that do.
- ``underwater`` takes either ``attack`` (with an optional ``attacker``) or ``effect``; the
  ``effect`` fields depend on its ``kind`` (see ``EFFECT_FIELDS``), and a field of another
  kind is rejected at its path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import (
    Schema,
    ValidationError,
    fields,
    post_load,
    pre_load,
    validate,
    validates_schema,
)

from schemas.bounds import number_range
from schemas.common import MAX_DAMAGE, known_ruleset, shown
from schemas.responses import ModifierSchema
from schemas.scene import Flag, Number, StrictSchema
from service import model

#: Largest number of seconds accepted in an effect (``elapsed_seconds``).
MAX_SECONDS = 1e9


# --------------------------------------------------------------------------------------
# Fields
# --------------------------------------------------------------------------------------


class TidyNumber(fields.Float):
    """A number in answers: integral values dump as JSON integers (``3``, not ``3.0``)."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        out = super()._serialize(value, attr, obj, **kwargs)
        if isinstance(out, float) and out.is_integer():
            return int(out)
        return out


def _ft(**kw: Any) -> Number:
    """A non-negative distance in ft: ``service.model.Units``' bounds."""
    return Number(allow_nan=False, validate=number_range(model.Units), **kw)


def _opt_ft(description: str) -> Number:
    return _ft(load_default=None, allow_none=True, metadata={"description": description})


def _mod(description: str, **kw: Any) -> fields.Integer:
    return fields.Integer(
        strict=True,
        validate=number_range(model.Ability),
        metadata={"description": description},
        **kw,
    )


def _damage(description: str, **kw: Any) -> fields.Integer:
    return fields.Integer(
        strict=True,
        validate=validate.Range(0, MAX_DAMAGE),
        metadata={"description": description},
        **kw,
    )


def ruleset_for(answering: str, what: str, rule_ids: str) -> Callable[[str], None]:
    """A validator of ``ruleset``: a known id, and the one whose seed defines ``what``."""

    def check(value: str) -> None:
        known_ruleset(value)
        if value != answering:
            raise ValidationError(
                f"{what} ({rule_ids}) come from the {answering} seed; ruleset {shown(value)} does "
                f"not define them. Send ruleset {answering!r}."
            )

    return check


def _ruleset(answering: str, what: str, rule_ids: str) -> fields.String:
    return fields.String(
        required=True,
        validate=ruleset_for(answering, what, rule_ids),
        metadata={"description": f"Must be `{answering}`.", "example": answering},
    )


# --------------------------------------------------------------------------------------
# Gravity
# --------------------------------------------------------------------------------------


class GravityCreatureSchema(StrictSchema):
    str = _mod("Strength modifier.", required=True)
    dex = _mod("Dexterity modifier.", required=True)
    con = _mod("Constitution modifier.", required=True)
    speed = _ft(required=True, metadata={"description": "Speed in ft."})


class GravityWeaponSchema(StrictSchema):
    normal_range = _opt_ft("Normal range in ft.")
    long_range = _opt_ft("Long (maximum) range in ft; without it the normal range is the maximum.")

    @validates_schema
    def ranges(self, data: dict, **_: Any) -> None:
        normal, long = data.get("normal_range"), data.get("long_range")
        if normal is None and long is None:
            raise ValidationError("Give normal_range and/or long_range.", "long_range")
        if normal is not None and long is not None and normal > long:
            raise ValidationError("Must not be above long_range.", "normal_range")


class GravityOptionsSchema(StrictSchema):
    """Options of ruleset dnd5e's answer (5E-GRV-3/4); starfinder takes none."""

    levels_rounding = fields.String(
        load_default="down",
        validate=validate.OneOf(["down", "up"]),
        metadata={
            "description": "5E-GRV-3/4 with a fractional X: `down` whole points only "
            "(floor(X - mod), default: the Decision), `up` counts a started point (ceil)."
        },
    )


#: Rulesets with gravity rules, and which: the dnd5e seed's abnormal gravity, the starfinder
#: seed's prone in zero gravity. The other rulesets (their seeds or SRDs, docs/rules.md) have
#: none, and ``ruleset`` names these.
GRAVITY_RULES = {"dnd5e": "5E-GRV-1..6", "starfinder": "SF-PRN-2"}
#: What only ruleset dnd5e reads (5E-GRV-1..6): the creature's abilities, a weapon, options.
DND5E_ONLY = ("creature", "weapon", "options")


def _gravity_ruleset(value: str) -> None:
    """A known ruleset with gravity rules (``GRAVITY_RULES``), else a message naming them."""
    known_ruleset(value)
    if value not in GRAVITY_RULES:
        having = ", ".join(f"{r} ({ids})" for r, ids in GRAVITY_RULES.items())
        raise ValidationError(
            f"Ruleset {shown(value)} has no gravity rules; these rulesets do: {having}."
        )


class GravityRequestSchema(StrictSchema):
    """``POST /v1/modifiers/gravity``: dnd5e (5E-GRV-1..6) or starfinder (SF-PRN-2)."""

    ruleset = fields.String(
        required=True,
        validate=_gravity_ruleset,
        metadata={
            "description": "`dnd5e` (abnormal gravity, 5E-GRV-1..6) or `starfinder` (prone in "
            "zero gravity, SF-PRN-2: the answer's `weightless` and `prone`); the other rulesets "
            "have no gravity rules (422).",
            "example": "dnd5e",
            "enum": list(GRAVITY_RULES),
        },
    )
    gravity = Number(
        required=True,
        allow_nan=False,
        validate=number_range(model.Gravity),
        metadata={"description": "X = local gravity / 10 m/s^2 (1 = standard, 0 = weightless)."},
    )
    creature = fields.Nested(
        GravityCreatureSchema,
        load_default=None,
        allow_none=True,
        metadata={"description": "Required with ruleset dnd5e; not with starfinder."},
    )
    weapon = fields.Nested(
        GravityWeaponSchema,
        load_default=None,
        allow_none=True,
        metadata={"description": "A ranged weapon whose ranges to scale (5E-GRV-1; dnd5e)."},
    )
    options = fields.Nested(GravityOptionsSchema, load_default=lambda: {"levels_rounding": "down"})

    @validates_schema(pass_original=True)
    def fields_of_ruleset(self, data: dict, original: Any, **_: Any) -> None:
        """dnd5e needs ``creature``; starfinder takes none of ``DND5E_ONLY``."""
        given = set(original) if isinstance(original, dict) else set()
        if data.get("ruleset") == "dnd5e" and data.get("creature") is None:
            raise ValidationError("Missing data for required field (ruleset dnd5e).", "creature")
        if data.get("ruleset") == "starfinder":
            errors = {
                name: [
                    "Only with ruleset dnd5e (5E-GRV-1..6): the starfinder seed's one gravity "
                    "rule is SF-PRN-2."
                ]
                for name in DND5E_ONLY
                if name in given
            }
            if errors:
                raise ValidationError(errors)

    @post_load
    def kwargs(self, data: dict, **_: Any) -> dict[str, Any]:
        """``{"ruleset", "x"}`` for starfinder, else ``{"ruleset", **kwargs}`` of dnd5e.

        The dnd5e keywords are those of ``service.rules.dnd5e.gravity.gravity_modifiers``;
        starfinder's ``x`` that of ``service.rules.starfinder.gravity.zero_gravity``.
        """
        if data["ruleset"] == "starfinder":
            return {"ruleset": "starfinder", "x": data["gravity"]}
        creature, weapon = data["creature"], data.get("weapon") or {}
        return {
            "ruleset": "dnd5e",
            "x": data["gravity"],
            "str_mod": creature["str"],
            "dex_mod": creature["dex"],
            "con_mod": creature["con"],
            "speed_ft": creature["speed"],
            "normal_range": weapon.get("normal_range"),
            "long_range": weapon.get("long_range"),
            "levels_rounding": data["options"]["levels_rounding"],
        }


class WeaponRangeSchema(Schema):
    normal_range = TidyNumber(allow_none=True, metadata={"description": "ft, <= long_range"})
    long_range = TidyNumber(metadata={"description": "Maximum range in ft, ×1/X (at most ×10)."})


class SaveLevelsSchema(Schema):
    str = fields.Integer()
    dex = fields.Integer()
    con = fields.Integer()


class EntrySaveSchema(Schema):
    ability = fields.String(metadata={"example": "con"})
    dc = fields.Integer(metadata={"example": 24})
    damage = fields.String(metadata={"example": "24d6"})
    type = fields.String(metadata={"example": "bludgeoning"})
    on_success = fields.String(metadata={"example": "half"})


class GravityResponseSchema(Schema):
    """dnd5e's fields (5E-GRV-1..6), or starfinder's (``weightless``, ``prone``, SF-PRN-1/2)."""

    weightless = fields.Boolean(metadata={"description": "starfinder: gravity 0 (SF-PRN-2)."})
    prone = fields.List(
        fields.Nested(ModifierSchema),
        metadata={
            "description": "starfinder: what being knocked prone does here: weightless instead "
            "(SF-PRN-2) at gravity 0, else SF-PRN-1's modifiers."
        },
    )
    weight_multiplier = TidyNumber()
    fall_distance_multiplier = TidyNumber()
    fall_damage_cap = fields.String(
        metadata={"example": "60d6", "description": "20d6 × X, dice rounded half up."}
    )
    jump_multiplier = TidyNumber(metadata={"description": "×1/X, at most 10."})
    range_multiplier = TidyNumber(metadata={"description": "On maximum range: ×1/X, at most 10."})
    weapon = fields.Nested(WeaponRangeSchema, allow_none=True)
    speed = TidyNumber(metadata={"description": "ft"})
    can_dash = fields.Boolean()
    grounded = fields.Boolean()
    attack_disadvantage_levels = fields.Integer()
    save_disadvantage_levels = fields.Nested(SaveLevelsSchema)
    entry_save = fields.Nested(EntrySaveSchema, allow_none=True)
    rules = fields.List(fields.String())
    notes = fields.List(fields.String())


# --------------------------------------------------------------------------------------
# Underwater
# --------------------------------------------------------------------------------------


def _damage_type(value: str) -> None:
    if value.lower() not in model.DAMAGE_TYPES:
        raise ValidationError(
            f"Unknown damage type {value!r}; known: {', '.join(model.DAMAGE_TYPES)}."
        )


class UnderwaterSensesSchema(StrictSchema):
    truesight = _ft(load_default=0.0, metadata={"description": "Range in ft; 0 = none."})
    blindsight = _ft(load_default=0.0, metadata={"description": "Range in ft; 0 = none."})


class UnderwaterAttackerSchema(StrictSchema):
    swim_speed = _ft(load_default=0.0, metadata={"description": "ft, natural or magical."})
    senses = fields.Nested(UnderwaterSensesSchema, load_default=dict)


class UnderwaterAttackSchema(StrictSchema):
    kind = fields.String(required=True, validate=validate.OneOf(["melee", "ranged"]))
    weapon = fields.String(
        required=True,
        validate=validate.Length(min=1, max=100),
        metadata={
            "description": "5e weapon name, case-insensitive ('heavy crossbow').",
            "example": "longsword",
        },
    )
    distance = _opt_ft("Distance to the target in ft (required for ranged).")
    normal_range = _opt_ft("ft; default: the 5e weapon table's.")
    long_range = _opt_ft("ft; default: the 5e weapon table's.")
    damage_types = fields.List(
        fields.String(validate=_damage_type, metadata={"enum": list(model.DAMAGE_TYPES)}),
        load_default=list,
        metadata={
            "description": "5e damage types (the server takes any case); radiant lifts "
            "5E-UW-9: " + ", ".join(model.DAMAGE_TYPES)
        },
    )
    crosses_surface = Flag(
        load_default=False,
        metadata={"description": "From above the water into it, or from under it to above it."},
    )
    thrown = Flag(
        load_default=None,
        allow_none=True,
        metadata={"description": "A javelin-like thrown weapon (5E-UW-2); overrides the table."},
    )
    crossbow = Flag(
        load_default=None,
        allow_none=True,
        metadata={"description": "A crossbow; overrides the table."},
    )


#: ``effect.kind`` -> (required fields, optional fields).
EFFECT_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "fire": (frozenset(), frozenset({"submerged", "damage"})),
    "acid": (frozenset({"timing"}), frozenset({"damage"})),
    "lightning_area": (frozenset({"size"}), frozenset({"scale"})),
    "freeze": (frozenset({"cold_damage"}), frozenset({"water_filled", "occupied"})),
    "breath": (frozenset({"con"}), frozenset({"elapsed_seconds", "water_breathing"})),
    "air_magic": (frozenset(), frozenset({"ability"})),
}

EFFECT_DOC = (
    "One of: "
    '{"kind": "fire", "submerged"?: true, "damage"?: int} -> resistance, damage (5E-UW-3); '
    '{"kind": "acid", "timing": "start_of_turn"|"end_of_turn"|"other", "damage"?: int} '
    "-> negated, damage (5E-UW-4); "
    '{"kind": "lightning_area", "size": ft, "scale"?: "dimension"|"area"} -> size, multiplier '
    "(5E-UW-5); "
    '{"kind": "freeze", "cold_damage": int, "water_filled"?: true, "occupied"?: false} '
    "-> frozen (5E-UW-6); "
    '{"kind": "breath", "con": int, "elapsed_seconds"?: s, "water_breathing"?: false} '
    "-> hold_breath_seconds, hold_breath_rounds, suffocating (5E-UW-7); "
    '{"kind": "air_magic", "ability"?: str} -> works (5E-UW-8).'
)


class UnderwaterEffectSchema(StrictSchema):
    """An underwater effect; which fields apply depends on ``kind`` (``EFFECT_FIELDS``)."""

    kind = fields.String(required=True, validate=validate.OneOf(list(EFFECT_FIELDS)))
    submerged = Flag(metadata={"description": "fire: fully submerged (default true)."})
    damage = _damage("fire/acid: damage dealt; the answer gives damage taken.")
    timing = fields.String(
        validate=validate.OneOf(["start_of_turn", "end_of_turn", "other"]),
        metadata={"description": "acid: when the damage would be taken."},
    )
    size = _ft(metadata={"description": "lightning_area: radius, length or side in ft."})
    scale = fields.String(
        validate=validate.OneOf(["dimension", "area"]),
        metadata={"description": "lightning_area: ×1.5 on the length (default) or the area."},
    )
    cold_damage = _damage("freeze: cold damage dealt to the 5-ft square.")
    water_filled = Flag(
        metadata={"description": "freeze: the square is full of water (default true)."}
    )
    occupied = Flag(
        metadata={"description": "freeze: a creature is in the square (default false)."}
    )
    con = _mod("breath: Constitution modifier.")
    elapsed_seconds = Number(
        allow_nan=False,
        validate=validate.Range(0, MAX_SECONDS),
        metadata={"description": "breath: seconds without air so far."},
    )
    water_breathing = Flag(metadata={"description": "breath: breathes water or needs no air."})
    ability = fields.String(
        validate=validate.Length(max=200), metadata={"description": "air_magic: its name."}
    )

    @pre_load
    def fields_of_kind(self, data: Any, **_: Any) -> Any:
        """Reject fields of another kind and require the kind's own, naming the field."""
        kind = data.get("kind") if isinstance(data, dict) else None
        if not isinstance(kind, str) or kind not in EFFECT_FIELDS:  # {} or [] are unhashable
            return data
        required, optional = EFFECT_FIELDS[kind]
        allowed = required | optional | {"kind"}
        errors: dict[str, list[str]] = {}
        for name in data:
            if name not in allowed and name in self.fields:
                own = ", ".join(sorted(required | optional)) or "none"
                errors[name] = [f"Not a field of effect kind {kind!r} (its fields: {own})."]
        for name in sorted(required - set(data)):
            errors[name] = [f"Missing data for required field (effect kind {kind!r})."]
        if errors:
            raise ValidationError(errors)
        return data


class UnderwaterRequestSchema(StrictSchema):
    """``POST /v1/modifiers/underwater``: an ``attack`` (5E-UW-1/2/9) or an ``effect`` (3..8)."""

    ruleset = _ruleset("dnd5e", "Underwater combat rules", "5E-UW-1..9")
    attacker = fields.Nested(UnderwaterAttackerSchema, load_default=None, allow_none=True)
    attack = fields.Nested(UnderwaterAttackSchema, load_default=None, allow_none=True)
    effect = fields.Nested(
        UnderwaterEffectSchema,
        load_default=None,
        allow_none=True,
        metadata={"description": EFFECT_DOC},
    )

    @validates_schema
    def attack_or_effect(self, data: dict, **_: Any) -> None:
        if (data.get("attack") is None) == (data.get("effect") is None):
            raise ValidationError("Give exactly one of `attack` or `effect`.", "attack")
        if data.get("effect") is not None and data.get("attacker") is not None:
            raise ValidationError("Only with `attack`.", "attacker")

    @post_load
    def kwargs(self, data: dict, **_: Any) -> dict[str, Any]:
        """``{"attack": kwargs}`` for ``underwater_attack`` or ``{"effect": kwargs}``."""
        if data.get("effect") is not None:
            return {"effect": data["effect"]}
        attack = dict(data["attack"])
        attacker = data.get("attacker") or {"swim_speed": 0.0, "senses": {}}
        senses = attacker.get("senses") or {}
        attack.update(
            swim_speed=attacker["swim_speed"],
            senses_truesight=senses.get("truesight", 0.0),
            senses_blindsight=senses.get("blindsight", 0.0),
        )
        return {"attack": attack}


class UnderwaterResponseSchema(Schema):
    """The attack form's fields, or the effect form's (``kind`` plus that kind's fields)."""

    auto_miss = fields.Boolean(metadata={"description": "attack: beyond normal range (5E-UW-2)."})
    disadvantage = fields.Boolean(metadata={"description": "attack: false when auto_miss."})
    kind = fields.String(metadata={"description": "effect: its kind."})
    resistance = fields.Boolean(metadata={"description": "fire (5E-UW-3)."})
    negated = fields.Boolean(metadata={"description": "acid (5E-UW-4)."})
    damage = fields.Integer(allow_none=True, metadata={"description": "fire/acid: damage taken."})
    size = TidyNumber(metadata={"description": "lightning_area: ft underwater (5E-UW-5)."})
    multiplier = TidyNumber(metadata={"description": "lightning_area: 1.5 or sqrt(1.5)."})
    frozen = fields.Boolean(metadata={"description": "freeze (5E-UW-6)."})
    hold_breath_seconds = fields.Integer(
        allow_none=True, metadata={"description": "breath (5E-UW-7)."}
    )
    hold_breath_rounds = fields.Integer(allow_none=True, metadata={"description": "6-s rounds."})
    suffocating = fields.Boolean(allow_none=True, metadata={"description": "breath."})
    works = fields.Boolean(metadata={"description": "air_magic (5E-UW-8): false."})
    rules = fields.List(fields.String())
    notes = fields.List(fields.String())


# --------------------------------------------------------------------------------------
# Range
# --------------------------------------------------------------------------------------


class RangeRequestSchema(StrictSchema):
    """``POST /v1/modifiers/range`` (PV-RNG-1..2)."""

    ruleset = _ruleset("pf2e-variant", "Range bands and range increments", "PV-RNG-1..2")
    distance = _ft(
        required=True, metadata={"description": "Distance to the target in ft (m with units m)."}
    )
    range_increment = Number(
        load_default=None,
        allow_none=True,
        allow_nan=False,
        validate=validate.Range(0, model.MAX_UNITS, min_inclusive=False),
        metadata={
            "description": "Weapon range increment in ft (m with units m, > 0); omit for band only."
        },
    )
    engaged = Flag(load_default=False, metadata={"description": "Adjacent or in melee."})
    units = fields.String(
        load_default="ft",
        validate=validate.OneOf(("ft", "m")),
        metadata={
            "description": "Unit of distance and range_increment: ft (default) or m; "
            "metres count 5 ft per 1.5 m for the bands (GEO-8)."
        },
    )

    @post_load
    def kwargs(self, data: dict, **_: Any) -> dict[str, Any]:
        """Keyword arguments of ``service.rules.pf2e_variant.range_increments.range_modifiers``."""
        return {
            "distance_ft": data["distance"],
            "range_increment_ft": data["range_increment"],
            "engaged": data["engaged"],
            "units": data["units"],
        }


class RangeResponseSchema(Schema):
    band = fields.String(metadata={"description": "engaged|close|near|far|distant"})
    disadvantage_levels = fields.Integer(
        allow_none=True, metadata={"description": "null when impossible or no increment given"}
    )
    possible = fields.Boolean(
        allow_none=True, metadata={"description": "null when no increment given"}
    )
    rules = fields.List(fields.String())
    notes = fields.List(fields.String())
