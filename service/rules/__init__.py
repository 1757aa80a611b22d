"""Registry of rule systems: a new ruleset is a new module and one line here."""

from __future__ import annotations

from service.errors import UnknownRuleset, shown
from service.rules import dnd5e, dnd2024, pf2e, pf2e_variant, starfinder
from service.rules.base import RuleSystem

_SYSTEMS: tuple[RuleSystem, ...] = (
    starfinder.RULESET,
    dnd5e.RULESET,
    pf2e_variant.RULESET,
    dnd2024.RULESET,
    pf2e.RULESET,
)
REGISTRY: dict[str, RuleSystem] = {system.id: system for system in _SYSTEMS}


def get(ruleset_id: str) -> RuleSystem:
    """The rule system called ``ruleset_id``.

    Raises
    ------
    UnknownRuleset
        When no rule system has that id.
    """
    try:
        return REGISTRY[ruleset_id]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise UnknownRuleset(
            f"Unknown ruleset {shown(ruleset_id)}; known: {known}.", ("ruleset",)
        ) from None
