"""Request bodies of the HTTP API (``docs/api.md``)."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, pre_load, validate, validates_schema

from schemas.bounds import item_range, number_range
from schemas.common import (
    MAX_CORNER_INSET,
    MAX_DAMAGE,
    Number,
    PointList,
    known_ruleset,
    point_field,
)
from schemas.scene import Flag, SceneSchema, StrictSchema
from service import model

SCENE_DOC = "Canonical scene (the `Scene` schema, docs/api.md); give either `scene` or `scene_id`."


class SceneRefSchema(StrictSchema):
    """Either an inline ``scene`` (loaded as ``service.model.Scene``) or a ``scene_id``."""

    scene = fields.Nested(
        SceneSchema, load_default=None, allow_none=True, metadata={"description": SCENE_DOC}
    )
    scene_id = fields.String(
        load_default=None,
        allow_none=True,
        metadata={"description": "Id from POST /v1/scenes (`sha256:...`), or `sample`."},
    )

    @validates_schema
    def one_scene(self, data: dict, **_: Any) -> None:
        if (data.get("scene") is None) == (data.get("scene_id") is None):
            raise ValidationError("Give exactly one of `scene` or `scene_id`.", "scene")


class AttackSchema(StrictSchema):
    kind = fields.String(
        load_default="ranged", validate=validate.OneOf(["melee", "ranged", "area", "spell"])
    )
    origin = point_field(load_default=None, allow_none=True)
    elevation = Number(
        load_default=None,
        allow_none=True,
        validate=number_range(model.Token, "elevation"),
        metadata={
            "description": "GEO-5a: height of an area's point of origin in grid units "
            "(default: the attacker's elevation, or 0 without an attacker)."
        },
    )
    spread = Flag(
        load_default=False,
        metadata={
            "description": "GEO-13: an area that goes around corners (with ``origin`` and "
            "``radius``): it reaches a target whose shortest path around walls that block "
            "movement is within the radius; cover bonuses do not apply against it (SF-COV-3)."
        },
    )
    radius = Number(
        load_default=None,
        allow_none=True,
        validate=number_range(model.Token, "elevation"),
        metadata={"description": "GEO-13: a spread's radius in grid units (> 0)."},
    )

    @validates_schema
    def spread_needs_origin_and_radius(self, data: dict, **_: Any) -> None:
        """GEO-13: a spread is an area with a point of origin and a radius above 0."""
        if not data.get("spread"):
            return
        if data.get("kind") != "area" or data.get("origin") is None:
            raise ValidationError("A spread is an area with an origin.", "spread")
        if data.get("radius") is None or data["radius"] <= 0:
            raise ValidationError("A spread needs a radius above 0 (grid units).", "radius")


def _option_flag(description: str) -> Flag:
    """An on/off option (``true``/``false``), unset by default (the ruleset's default)."""
    return Flag(load_default=None, allow_none=True, metadata={"description": description})


def _miss_chance() -> fields.Integer:
    """SF-CON-7: the GM's miss chance override in % (starfinder; cover and vision)."""
    return fields.Integer(
        strict=True,
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=100),
        metadata={
            "description": "SF-CON-7 (starfinder): miss chance in %, replacing the computed one."
        },
    )


class CoverOptionsSchema(StrictSchema):
    """Options of ``POST /v1/cover``; a ruleset ignores those it does not use."""

    corner_inset = Number(
        load_default=None, allow_none=True, validate=validate.Range(0, MAX_CORNER_INSET)
    )
    cover_method = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(["paired-corners", "dmg-corner"]),
    )
    concealment_corner = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf(["defender", "attacker"])
    )
    take_cover = fields.List(fields.String(), load_default=list)
    partial_cover = fields.List(fields.String(), load_default=list)
    measure_from = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf(["center", "best-corner"])
    )
    ignore_small_terrain = Flag(load_default=None, allow_none=True)
    ignore_hidden = _option_flag("Hidden tokens neither block, nor give cover (all rulesets).")
    ignore_prone_or_dead = _option_flag("Prone or dead creatures give no cover (all rulesets).")
    magical_darkness_defeats_darkvision = _option_flag(
        "starfinder, pf2e-variant: magical darkness defeats darkvision (dnd5e always, "
        "5E-VIS-5; SF-CON-6)."
    )
    miss_chance = _miss_chance()
    advantage_levels = fields.Dict(
        keys=fields.String(validate=validate.OneOf(["lesser", "standard", "greater"])),
        values=fields.Integer(strict=True, validate=validate.Range(min=0, max=10)),
        load_default=None,
        allow_none=True,
    )


class CoverRequestSchema(SceneRefSchema):
    ruleset = fields.String(required=True, metadata={"example": "dnd5e"})
    attacker = fields.String(load_default=None, allow_none=True)
    targets = fields.List(fields.String(), required=True, validate=validate.Length(min=1))
    attack = fields.Nested(AttackSchema, load_default=lambda: {"kind": "ranged", "origin": None})
    options = fields.Nested(CoverOptionsSchema, load_default=dict)

    @validates_schema
    def attacker_or_origin(self, data: dict, **_: Any) -> None:
        attack = data.get("attack") or {}
        area = attack.get("kind") == "area"
        if area and attack.get("origin") is None:
            raise ValidationError({"attack": {"origin": ["Required for an area attack."]}})
        if not area and attack.get("origin") is not None:
            raise ValidationError({"attack": {"origin": ["Only for kind 'area'."]}})
        if data.get("attacker") is None and not area:
            raise ValidationError("Required unless attack.kind is 'area'.", "attacker")


#: Top-level keys of a canonical scene and of the exports (Foundry, Roll20, Universal VTT)
#: that say a body is a scene sent bare (``SceneUploadSchema.bare_scene``).
_SCENE_KEYS = frozenset(SceneSchema().fields) | {"line_of_sight", "resolution", "pages", "_id"}


class SceneUploadSchema(StrictSchema):
    """``POST /v1/scenes``: a canonical ``scene``, or an ``export`` in a named ``format``."""

    scene = fields.Nested(
        SceneSchema,
        load_default=None,
        allow_none=True,
        metadata={"description": "Canonical scene (the `Scene` schema, docs/api.md)."},
    )
    format = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(["foundry", "roll20", "uvtt", "auto"]),
    )
    export = fields.Raw(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "The export file's JSON, or its text as a string (a Foundry NeDB "
            "`.db` file: one JSON document a line). Pick one scene or page with the query "
            "`?scene=` (name, id or 0-based index), as for /v1/import."
        },
    )
    page = fields.String(
        load_default=None,
        allow_none=True,
        metadata={"description": "Older name of the query `?scene=` (any format)."},
    )

    @pre_load
    def bare_scene(self, data: Any, **_: Any) -> Any:
        """A scene or export sent as the body itself (not under ``scene``): say how to wrap it.

        Else every one of its fields would be an "Unknown field". O(top-level keys).
        """
        if not isinstance(data, dict) or data.keys() & set(self.fields):
            return data
        found = sorted(data.keys() & _SCENE_KEYS)
        if found:
            raise ValidationError(
                f"The body holds a scene's fields ({', '.join(found[:3])}) at its top: send "
                'a canonical scene as {"scene": <the scene>}, or an export file as '
                '{"format": "auto", "export": <the file>}.',
                "scene",
            )
        return data

    @validates_schema
    def one_source(self, data: dict, **_: Any) -> None:
        has_scene = data.get("scene") is not None
        has_export = data.get("export") is not None
        if has_scene == has_export:
            raise ValidationError("Give exactly one of `scene` or `format` + `export`.", "scene")
        if has_export and data.get("format") is None:
            raise ValidationError("Required with `export`.", "format")
        if data.get("page") is not None and not has_export:
            raise ValidationError("Only with `format` + `export`.", "page")


class ImportQuerySchema(StrictSchema):
    scene = fields.String(
        load_default=None,
        metadata={
            "description": "Which scene of a Foundry world, compendium or NeDB export, or "
            "which page of a Roll20 export: its name, id or 0-based index."
        },
    )
    page = fields.String(load_default=None, metadata={"description": "The same as `scene`."})
    grid_distance = fields.Float(  # a query string: numbers arrive as text
        allow_nan=False,
        load_default=None,
        # the scene grid's own bounds, which the importers check (model.MIN_GRID_DISTANCE)
        validate=number_range(model.Grid, "distance"),
        metadata={"description": "Universal VTT: grid units per square (default 5)."},
    )


def citing_ruleset(what: str) -> fields.String:
    """The optional ``ruleset`` of an answer whose geometry is every ruleset's (GEO-1..9).

    It changes only the rule ids the answer cites (``service.citations``); omitted, the
    answer cites dnd5e's ids, as before the field existed.
    """
    return fields.String(
        load_default=None,
        allow_none=True,
        validate=known_ruleset,
        metadata={
            "description": f"Whose rule ids `rules` cites ({what} is the same in every ruleset): "
            + ", ".join(f"`{r}`" for r in model.RULESET_IDS)
            + "; omitted or null, dnd5e's.",
            "example": "starfinder",
        },
    )


class EndpointField(fields.Field):
    """A token id (string) or ``{"point": [x, y], "elevation": z}`` (px, grid units)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str) and value:
            return {"token": value}
        if isinstance(value, dict):
            return PointRefSchema().load(value)
        raise ValidationError('Must be a token id or {"point": [x, y], "elevation": z}.')


class PointRefSchema(StrictSchema):
    point = point_field(required=True)
    elevation = Number(load_default=0.0, validate=number_range(model.Elevation))


class EffectSchema(StrictSchema):
    damage = fields.Integer(
        strict=True,
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=MAX_DAMAGE),
        metadata={
            "description": "Damage for breakthrough (5E-LOE-4: ruleset dnd5e, or none "
            "given); 0 = non-damaging."
        },
    )


class LineOptionsSchema(StrictSchema):
    corner_inset = Number(
        load_default=None, allow_none=True, validate=validate.Range(0, MAX_CORNER_INSET)
    )


def _bounds(bound: validate.Range) -> dict[str, float]:
    """``minimum``/``maximum`` of an inclusive ``Range`` (the model's point and elevation)."""
    assert bound.min_inclusive and bound.max_inclusive
    return {"minimum": bound.min, "maximum": bound.max}


ENDPOINT_DOC = {
    "description": 'A token id, or {"point": [x, y], "elevation": 0} in scene px.',
    "oneOf": [
        {"type": "string", "minLength": 1},
        {
            "type": "object",
            "properties": {
                "point": {
                    "type": "array",
                    "items": {"type": "number", **_bounds(item_range(model.Point))},
                    "minItems": 2,
                    "maxItems": 2,
                },
                "elevation": {"type": "number", **_bounds(number_range(model.Elevation))},
            },
            "required": ["point"],
            "additionalProperties": False,
        },
    ],
}


class LineRequestSchema(SceneRefSchema):
    ruleset = citing_ruleset("whether the line is clear")
    source = EndpointField(required=True, data_key="from", metadata=ENDPOINT_DOC)
    target = EndpointField(required=True, data_key="to", metadata=ENDPOINT_DOC)
    effect = fields.Nested(EffectSchema, load_default=None, allow_none=True)
    options = fields.Nested(LineOptionsSchema, load_default=dict)


def _line_of_effect_only(value: int) -> None:
    raise ValidationError("Breakthrough applies to line of effect only.")


class SightEffectSchema(StrictSchema):
    """``effect`` of ``POST /v1/line-of-sight``: no breakthrough (``damage`` null or absent)."""

    damage = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=_line_of_effect_only,
        metadata={
            "description": "Breakthrough applies to line of effect only: null or absent.",
            "enum": [None],
        },
    )


class SightRequestSchema(LineRequestSchema):
    """``POST /v1/line-of-sight``: a line request without breakthrough damage (5E-LOE-4)."""

    effect = fields.Nested(SightEffectSchema, load_default=None, allow_none=True)


class FlankingOptionsSchema(StrictSchema):
    ignore_hidden = _option_flag("A hidden attacker or ally does not flank.")


#: Rulesets with a flanking rule (``modifiers/flanking`` in their ``extra_capabilities``):
#: the starfinder seed's SF-FLK-1. Another ruleset is a 422 (``prepare_flanking``).
FLANKING_RULESETS = ("starfinder",)


class FlankingRequestSchema(SceneRefSchema):
    ruleset = fields.String(
        required=True,
        metadata={
            "description": "A ruleset with a flanking rule: `starfinder` (SF-FLK-1); another "
            "is a 422.",
            "example": "starfinder",
            "enum": list(FLANKING_RULESETS),
        },
    )
    attacker = fields.String(required=True)
    ally = fields.String(required=True)
    target = fields.String(required=True)
    options = fields.Nested(FlankingOptionsSchema, load_default=dict)


class VisionOptionsSchema(StrictSchema):
    """Options of ``POST /v1/vision``; an option the ruleset does not use is a 422."""

    corner_inset = Number(
        load_default=None, allow_none=True, validate=validate.Range(0, MAX_CORNER_INSET)
    )
    concealment_corner = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf(["defender", "attacker"])
    )
    unnoticed = fields.List(fields.String(), load_default=list)
    was_observing = fields.List(fields.String(), load_default=list)
    ignore_hidden = _option_flag("Hidden tokens are no obstacle (all rulesets).")
    magical_darkness_blocks_sight = _option_flag(
        "Magical darkness blocks sight through it (all rulesets)."
    )
    darkvision_dim_as_bright = _option_flag("dnd5e: darkvision treats dim light as bright.")
    magical_darkness_defeats_darkvision = _option_flag(
        "starfinder, pf2e-variant: magical darkness defeats darkvision (dnd5e always, "
        "5E-VIS-5; SF-CON-6)."
    )
    miss_chance = _miss_chance()


class VisionRequestSchema(SceneRefSchema):
    ruleset = fields.String(required=True, metadata={"example": "dnd5e"})
    observer = fields.String(required=True)
    targets = fields.List(fields.String(), required=True, validate=validate.Length(min=1))
    options = fields.Nested(VisionOptionsSchema, load_default=dict)


#: Most points in one lighting request.
MAX_POINTS = 10000


class LightingRequestSchema(SceneRefSchema):
    ruleset = citing_ruleset("the light")
    points = PointList(load_default=list, validate=validate.Length(max=MAX_POINTS))
    tokens = fields.List(fields.String(), load_default=list)

    @validates_schema
    def something(self, data: dict, **_: Any) -> None:
        if not data.get("points") and not data.get("tokens"):
            raise ValidationError("Give at least one point or token.", "points")


def options_of(*schemas: type[StrictSchema]) -> dict[str, Any]:
    """OpenAPI of an ``options`` object loaded later as one of ``schemas`` (by ``kind``).

    The view loads it with the schema of the query's kind (``service.operations.options``),
    which refuses a field it does not have; the document says "one of these schemas"
    (``anyOf`` of their components, named as apispec names them: the class, no ``Schema``).
    """
    return {
        "anyOf": [
            {"$ref": "#/components/schemas/" + cls.__name__.removesuffix("Schema")}
            for cls in schemas
        ]
    }


class MatrixRequestSchema(SceneRefSchema):
    ruleset = fields.String(required=True, metadata={"example": "dnd5e"})
    tokens = fields.List(
        fields.String(),
        load_default=None,
        allow_none=True,
        metadata={"description": "Token ids in row/column order; null for every token."},
    )
    kind = fields.String(load_default="cover", validate=validate.OneOf(["cover", "vision"]))
    options = fields.Dict(
        load_default=dict,
        metadata={
            "description": "The ruleset's options, as for /v1/cover (kind cover) or /v1/vision.",
            **options_of(CoverOptionsSchema, VisionOptionsSchema),
        },
    )


#: Fields each render query type needs.
QUERY_FIELDS = {
    "cover": ("ruleset", "attacker", "target"),
    "vision": ("ruleset", "observer", "target"),
    "line-of-effect": ("from", "to"),
    "line-of-sight": ("from", "to"),
}


class RenderQuerySchema(StrictSchema):
    """The query whose traced lines ``POST /v1/render`` draws."""

    type = fields.String(required=True, validate=validate.OneOf(list(QUERY_FIELDS)))
    ruleset = fields.String(load_default=None)
    attacker = fields.String(load_default=None)
    observer = fields.String(load_default=None)
    target = fields.String(load_default=None)
    source = EndpointField(
        data_key="from", attribute="from", load_default=None, metadata=ENDPOINT_DOC
    )
    dest = EndpointField(data_key="to", attribute="to", load_default=None, metadata=ENDPOINT_DOC)
    attack = fields.Nested(AttackSchema, load_default=None, allow_none=True)
    options = fields.Dict(
        load_default=dict,
        metadata={
            "description": "The options of the query's type, as /v1/cover, /v1/vision or the "
            "line endpoints take them.",
            **options_of(CoverOptionsSchema, VisionOptionsSchema, LineOptionsSchema),
        },
    )

    @validates_schema
    def fields_of_type(self, data: dict, **_: Any) -> None:
        area = (data.get("attack") or {}).get("kind") == "area"
        missing = {
            name: [f"Required for a {data['type']} query."]
            for name in QUERY_FIELDS.get(data.get("type", ""), ())
            if data.get(name) is None and not (area and name == "attacker")
        }
        if missing:
            raise ValidationError(missing)


class RenderRequestSchema(SceneRefSchema):
    query = fields.Nested(RenderQuerySchema, load_default=None, allow_none=True)
    viewer = fields.String(
        load_default="gm",
        validate=validate.Length(min=1),
        metadata={
            "description": "Whose picture: `gm` (the default) draws everything; a token id "
            "draws only what that token may know (no hidden creature, secret doors as plain "
            "walls, one-way walls from its side, nothing outside a frame around the asked "
            "tokens)."
        },
    )
    crop = Flag(
        load_default=False,
        metadata={
            "description": "Frame the asked tokens and the walls between them with a margin, "
            "at a chat card's size (about 300 px)."
        },
    )
    level = fields.String(
        load_default=None,
        validate=validate.Length(min=1),
        metadata={
            "description": "In a building (a scene with `levels`), the id of the one level "
            "drawn: its walls, creatures, lights and floors, the other floors faded "
            "(GEO-10). Default: the viewer's level, else the asking token's; 422 for a level "
            "the scene does not have."
        },
    )
