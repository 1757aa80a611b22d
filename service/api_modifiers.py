"""HTTP endpoints of the environment modifiers: ``/v1/modifiers/{gravity,underwater,range}``.

Thin views: flask-smorest loads the request schema of the operation
(``service.operations.OPERATIONS``, ``schemas.modifiers``), which returns the keyword
arguments of one rule function of the ruleset owning the rules (``rules.dnd5e.gravity``,
``rules.starfinder.gravity``, ``rules.dnd5e.underwater``,
``rules.pf2e_variant.range_increments``); the view calls the operation and its
response schema dumps the frozen result. Contract: ``docs/api.md`` (Modifiers).
Registered by the app factory with ``api.register_blueprint(api_modifiers.blp)``.
"""

from __future__ import annotations

from typing import Any

from service.http_errors import Blueprint
from service.operations import OPERATIONS

GRAVITY = OPERATIONS["modifiers/gravity"]
UNDERWATER = OPERATIONS["modifiers/underwater"]
RANGE = OPERATIONS["modifiers/range"]

blp = Blueprint(
    "modifiers",
    __name__,
    url_prefix="/v1/modifiers",
    description="Environment modifiers: abnormal gravity (dnd5e) and prone in zero gravity "
    "(starfinder), underwater combat (dnd5e), range bands and increments (pf2e-variant); "
    "another ruleset is a 422 naming those that have the rules. Contract: docs/api.md, "
    "Modifiers.",
)

ERROR_422 = "Invalid request (field path in errors.json), or a ruleset without these rules"


@blp.route("/gravity", methods=["POST"])
@blp.arguments(
    GRAVITY.loader,
    example={
        "ruleset": "dnd5e",
        "gravity": 3,
        "creature": {"str": 1, "dex": 2, "con": 4, "speed": 30},
        "weapon": {"normal_range": 150, "long_range": 600},
    },
)
@blp.response(200, GRAVITY.response)
@blp.alt_response(422, description=ERROR_422)
def gravity(args: dict[str, Any]) -> Any:
    """Abnormal gravity X for one creature and optionally one ranged weapon (5E-GRV-1..6).

    With ruleset ``starfinder``, its one gravity rule: a creature knocked prone in zero
    gravity is weightless instead (SF-PRN-2; ``weightless``, ``prone``), no creature needed.
    """
    return GRAVITY.answer(None, args)


@blp.route("/underwater", methods=["POST"])
@blp.arguments(
    UNDERWATER.loader,
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
@blp.response(200, UNDERWATER.response)
@blp.alt_response(422, description=ERROR_422)
def underwater(args: dict[str, Any]) -> Any:
    """A weapon attack underwater (5E-UW-1/2/9) or an underwater effect (5E-UW-3..8).

    Ruleset ``dnd5e`` only: no other ruleset's rules define underwater combat (422).
    """
    return UNDERWATER.answer(None, args)


@blp.route("/range", methods=["POST"])
@blp.arguments(
    RANGE.loader,
    example={"ruleset": "pf2e-variant", "distance": 45, "range_increment": 30},
)
@blp.response(200, RANGE.response)
@blp.alt_response(422, description=ERROR_422)
def range_modifiers(args: dict[str, Any]) -> Any:
    """Range band (PV-RNG-1) and range-increment Disadvantage (PV-RNG-2)."""
    return RANGE.answer(None, args)
