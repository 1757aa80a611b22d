"""Response bodies of the HTTP API (``docs/api.md``), for dumping and for OpenAPI."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, post_dump

from schemas.common import point_field


class BlockerSchema(Schema):
    kind = fields.String(
        metadata={"description": "`wall`, `token`, `region` or `surface` (a floor, GEO-10)."}
    )
    id = fields.String()
    level = fields.String(
        allow_none=True,
        metadata={
            "description": "Present for a wall or surface of a level (a floor of a building, "
            "GEO-10): that level's id, so a blocker of another floor reads as such. An "
            "implied floor (no surface between two levels) is the surface "
            "`floor:<upper level id>`."
        },
    )
    low = fields.Boolean(
        metadata={
            "description": "Present and true when this wall was a low obstacle for the line: "
            "it covered only part of the line's vertical band (GEO-5a), or it is marked "
            '`cover: "low"`. A low obstacle gives cover by the low-obstacle rules '
            "(SF-COV-5, 5E-COV-6, PV-COV-8) but never blocks line of effect or sight."
        }
    )

    @post_dump
    def level_when_known(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """``level`` written only for a blocker of a level."""
        if data.get("level") is None:
            data.pop("level", None)
        return data


class TracedLineSchema(Schema):
    start = point_field(data_key="from")
    end = point_field(data_key="to")
    blocked = fields.Boolean()
    blockers = fields.List(fields.Nested(BlockerSchema))

    @post_dump(pass_original=True)
    def mark_low(self, data: dict[str, Any], original: Any, **_: Any) -> dict[str, Any]:
        """``"low": true`` on the blockers in the line's ``low`` (low obstacles, GEO-5a)."""
        low = getattr(original, "low", ())
        if low:
            keys = {(b.kind, b.id) for b in low}
            for item in data.get("blockers", ()):
                if (item.get("kind"), item.get("id")) in keys:
                    item["low"] = True
        return data


class ModifierSchema(Schema):
    rule = fields.String()
    applies_to = fields.String()
    value = fields.Integer()
    reason = fields.String()


class CoverResultSchema(Schema):
    target = fields.String()
    cover = fields.String(metadata={"example": "half"})
    ac_bonus = fields.Integer(allow_none=True, metadata={"description": "null under total cover"})
    save_bonus = fields.Integer(allow_none=True)
    advantage_levels = fields.Integer()
    can_target = fields.Boolean()
    line_of_effect = fields.Boolean(metadata={"description": "Exact (5E-LOE-2)."})
    rules = fields.List(fields.String())
    lines = fields.List(fields.Nested(TracedLineSchema))
    notes = fields.List(fields.String())
    concealment = fields.String(metadata={"description": "starfinder: none|concealment|total"})
    miss_chance = fields.Integer(metadata={"description": "starfinder: 0, 20 or 50 (%)"})
    can_hide = fields.Boolean(
        allow_none=True, metadata={"description": "pf2e-variant: cover allows Hide (PV-COV-5)"}
    )
    modifiers = fields.List(fields.Nested(ModifierSchema))
    reached_around_corners = fields.Boolean(
        allow_none=True,
        metadata={"description": "GEO-13, only for attack.spread: reached around corners"},
    )
    path_length = fields.Float(
        allow_none=True,
        metadata={
            "description": "GEO-13, only for attack.spread: grid units from the origin to "
            "the target's space (straight or around walls; null: none within the radius)"
        },
    )


class CoverResponseSchema(Schema):
    ruleset = fields.String()
    attacker = fields.String(allow_none=True)
    results = fields.List(fields.Nested(CoverResultSchema))


class SceneUploadResponseSchema(Schema):
    scene_id = fields.String(metadata={"example": "sha256:9f2c..."})
    stats = fields.Dict()
    warnings = fields.List(fields.String())


class ImportResponseSchema(Schema):
    scene = fields.Dict()
    stats = fields.Dict()
    warnings = fields.List(fields.String())


class StoreStateSchema(Schema):
    backend = fields.String(
        metadata={
            "description": "'redis', 'sqlite' (one machine's workers share an SQLite file) "
            "or 'none' (per-process cache)"
        }
    )
    reachable = fields.Boolean(
        allow_none=True, metadata={"description": "the store answered; null without a store"}
    )


class HealthSchema(Schema):
    status = fields.String()
    version = fields.String()
    store = fields.Nested(StoreStateSchema)


class ReadySchema(Schema):
    status = fields.String(metadata={"example": "ready"})
    store = fields.Nested(StoreStateSchema)


class OptionSchema(Schema):
    default = fields.Raw(allow_none=True)
    description = fields.String()
    choices = fields.List(fields.String(), allow_none=True)
    endpoints = fields.List(
        fields.String(),
        metadata={
            "description": "The endpoints that take this option in `options` (any other "
            "refuses it with a 422). `/v1/matrix` and `/v1/render` take `/v1/cover`'s options "
            "with kind (type) cover and `/v1/vision`'s with kind vision.",
            "example": ["/v1/cover", "/v1/matrix", "/v1/render"],
        },
    )
    kinds = fields.List(
        fields.String(),
        metadata={
            "description": "The kinds of question (`kind` of `/v1/matrix`, `type` of a "
            "`/v1/render` query) that take this option: `cover`, `vision`, both, or none.",
            "example": ["vision"],
        },
    )


class RulesetSchema(Schema):
    id = fields.String()
    title = fields.String()
    cover_degrees = fields.List(fields.String())
    diagonals = fields.String(
        metadata={
            "description": "The ruleset's default diagonal rule, used when the scene's "
            "grid.diagonals is unset (GEO-8)."
        }
    )
    options = fields.Dict(keys=fields.String(), values=fields.Nested(OptionSchema))
    capabilities = fields.List(fields.String())
    conditions = fields.List(
        fields.String(),
        metadata={
            "description": "The token conditions the ruleset reads (GEO-12); others are "
            "ignored and named in an answer's notes."
        },
    )


class RulesetsSchema(Schema):
    rulesets = fields.List(fields.Nested(RulesetSchema))


class LayerSchema(Schema):
    id = fields.String()
    hp = fields.Integer(allow_none=True)
    ac = fields.Integer(allow_none=True)
    absorbed = fields.Integer()
    destroyed = fields.Boolean()


class BreakthroughSchema(Schema):
    damage_reaching = fields.Integer()
    destroyed = fields.List(fields.String())
    stopped_by = fields.String(allow_none=True)
    layers = fields.List(fields.Nested(LayerSchema))


class LineResponseSchema(Schema):
    clear = fields.Boolean()
    witness = fields.List(point_field(), allow_none=True)
    blockers = fields.List(fields.Nested(BlockerSchema))
    rules = fields.List(fields.String())
    breakthrough = fields.Nested(BreakthroughSchema, allow_none=True)


class FlankingResponseSchema(Schema):
    flanking = fields.Boolean()
    attack_bonus = fields.Integer()
    rules = fields.List(fields.String())
    reason = fields.String()


class VisionResultSchema(Schema):
    target = fields.String()
    can_see = fields.Boolean()
    sense = fields.String(
        allow_none=True,
        metadata={
            "description": "sight|darkvision|devils_sight|truesight|blindsight|"
            "tremorsense|xray|hearing|null"
        },
    )
    light = fields.String(metadata={"description": "bright|dim|dark over the target's space"})
    magical_darkness = fields.Boolean()
    distance = fields.Float(metadata={"description": "grid units (GEO-8)"})
    line_of_sight = fields.Boolean()
    obscurement = fields.String(metadata={"description": "dnd5e: none|light|heavy"})
    perception_disadvantage = fields.Boolean()
    detection = fields.String(
        allow_none=True,
        metadata={
            "description": "pf2e-variant: observed|hidden|undetected|unnoticed; null in the "
            "other rulesets"
        },
    )
    concealed = fields.Boolean()
    flat_check_dc = fields.Integer(
        allow_none=True, metadata={"description": "pf2e-variant: null|5|11; null elsewhere"}
    )
    off_guard = fields.Boolean()
    save_disadvantage_levels = fields.Integer()
    auditory_flat_check_dc = fields.Integer(allow_none=True)
    concealment = fields.String(metadata={"description": "starfinder: none|concealment|total"})
    miss_chance = fields.Integer()
    blockers = fields.List(fields.Nested(BlockerSchema))
    rules = fields.List(fields.String())
    notes = fields.List(fields.String())


class VisionResponseSchema(Schema):
    ruleset = fields.String()
    observer = fields.String()
    results = fields.List(fields.Nested(VisionResultSchema))


class LightingResultSchema(Schema):
    point = point_field(allow_none=True)
    token = fields.String(allow_none=True)
    level = fields.String(metadata={"description": "bright|dim|dark"})
    magical_darkness = fields.Boolean()
    lights = fields.List(fields.String())
    rules = fields.List(fields.String())
    notes = fields.List(
        fields.String(),
        metadata={"description": "Present when lights within reach do not shine (off, private)."},
    )


class LightingResponseSchema(Schema):
    results = fields.List(fields.Nested(LightingResultSchema))


class Grid(fields.List):
    """A matrix's rows as the service made them, documented as a list of lists.

    The cells (strings, booleans or null, made by ``service.matrix``) are passed through as
    they are: a 200-token matrix has 39,800 of them, and formatting each one took longer
    than measuring a small matrix.
    """

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return value


class MatrixResponseSchema(Schema):
    ruleset = fields.String()
    kind = fields.String()
    tokens = fields.List(fields.String())
    cover = Grid(
        fields.List(fields.String(allow_none=True)),
        metadata={"description": "kind cover: [attacker][target] degree; the diagonal is null."},
    )
    vision = Grid(
        fields.List(fields.String(allow_none=True)),
        metadata={"description": "kind vision: [observer][target] sense or null."},
    )
    can_see = Grid(fields.List(fields.Boolean(allow_none=True)))


class RuleSchema(Schema):
    id = fields.String(metadata={"example": "5E-COV-5"})
    ruleset = fields.String(
        allow_none=True,
        metadata={
            "description": "The ruleset of the rule; null for shared geometry (GEO-n), which "
            "applies to every ruleset.",
            "example": "dnd5e",
        },
    )
    title = fields.String(metadata={"example": "Paired corners"})
    text = fields.String(
        metadata={
            "description": "The whole entry in Markdown: what the rule says, then `decisions`."
        }
    )
    section = fields.String(
        metadata={"description": "The part of docs/rules.md holding the rule.", "example": "dnd5e"}
    )
    rulesets = fields.List(
        fields.String(),
        metadata={
            "description": "Rulesets the rule applies to (every one for shared geometry, GEO-n)."
        },
    )
    summary = fields.String(
        metadata={
            "description": "One line (at most 120 characters) saying what the rule does, for a "
            "tooltip or a list; `text` holds the whole entry.",
            "example": "Paired corners: of the four corner-to-corner lines, 2 blocked give half, "
            "3 three-quarters, 4 total.",
        }
    )
    decisions = fields.List(
        fields.String(),
        metadata={
            "description": "The readings this service takes where the source is silent or "
            "ambiguous, in Markdown; each starts with **Decision."
        },
    )


class RulesSchema(Schema):
    rules = fields.List(fields.Nested(RuleSchema))


class ErrorSchema(Schema):
    """The body of every error answer (4xx and 5xx), for the OpenAPI document."""

    code = fields.Integer(metadata={"description": "The HTTP status code.", "example": 422})
    status = fields.String(
        metadata={"description": "The status's name.", "example": "Unprocessable Entity"}
    )
    message = fields.String(
        metadata={
            "description": "What went wrong and what to do, one sentence or a few (at most "
            "500 characters).",
            "example": "Request body is invalid.",
        }
    )
    errors = fields.Dict(
        metadata={
            "description": "Where: `json`, `query` or `path`, then the field path down to a "
            'list of messages (`{"json": {"targets": {"0": ["Unknown token."]}}}`); '
            "`_request` when no one field is to blame. Empty when nothing more is known.",
        }
    )
