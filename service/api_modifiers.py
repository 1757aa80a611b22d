"""HTTP endpoints of the environment modifiers: ``/v1/modifiers/{gravity,underwater,range}``.

Thin views: the request schema (``schemas.modifiers``) validates and returns the keyword
arguments of one rule function of the ruleset owning the rules (``rules.dnd5e.gravity``,
``rules.dnd5e.underwater``, ``rules.pf2e_variant.range_increments``); the view calls it and
the response schema dumps the frozen result. Contract: ``shared/API.md`` "Modifiers".
Registered by the app factory with ``api.register_blueprint(api_modifiers.blp)``.
"""

from __future__ import annotations

from typing import Any

from schemas import modifiers as sm
from service.http_errors import Blueprint
from service.rules.dnd5e import gravity as dnd5e_gravity
from service.rules.dnd5e import underwater as dnd5e_underwater
from service.rules.pf2e_variant import range_increments as pf2e_range

blp = Blueprint(
    "modifiers",
    __name__,
    url_prefix="/v1/modifiers",
    description="Environment modifiers: abnormal gravity and underwater combat (dnd5e), "
    "range bands and increments (pf2e-variant). Contract: shared/API.md 'Modifiers'.",
)

ERROR_422 = "Invalid request (field path in errors.json), or a ruleset without these rules"


@blp.route("/gravity", methods=["POST"])
@blp.arguments(
    sm.GravityRequestSchema,
    example={
        "ruleset": "dnd5e",
        "gravity": 3,
        "creature": {"str": 1, "dex": 2, "con": 4, "speed": 30},
        "weapon": {"normal_range": 150, "long_range": 600},
    },
)
@blp.response(200, sm.GravityResponseSchema)
@blp.alt_response(422, description=ERROR_422)
def gravity(args: dict[str, Any]) -> dnd5e_gravity.GravityResult:
    """Abnormal gravity X for one creature and optionally one ranged weapon (5E-GRV-1..6)."""
    return dnd5e_gravity.gravity_modifiers(**args)


@blp.route("/underwater", methods=["POST"])
@blp.arguments(
    sm.UnderwaterRequestSchema,
    example={
        "ruleset": "dnd5e",
        "attacker": {"swim_speed": 0},
        "attack": {
            "kind": "ranged",
            "weapon": "longbow",
            "distance": 200,
            "normal_range": 150,
            "long_range": 600,
        },
    },
)
@blp.response(200, sm.UnderwaterResponseSchema)
@blp.alt_response(422, description=ERROR_422)
def underwater(args: dict[str, Any]) -> Any:
    """A weapon attack underwater (5E-UW-1/2/9) or an underwater effect (5E-UW-3..8)."""
    if "effect" in args:
        return dnd5e_underwater.underwater_effect(**args["effect"])
    return dnd5e_underwater.underwater_attack(**args["attack"])


@blp.route("/range", methods=["POST"])
@blp.arguments(
    sm.RangeRequestSchema,
    example={"ruleset": "pf2e-variant", "distance": 45, "range_increment": 30},
)
@blp.response(200, sm.RangeResponseSchema)
@blp.alt_response(422, description=ERROR_422)
def range_modifiers(args: dict[str, Any]) -> pf2e_range.RangeResult:
    """Range band (PV-RNG-1) and range-increment Disadvantage (PV-RNG-2)."""
    return pf2e_range.range_modifiers(**args)
