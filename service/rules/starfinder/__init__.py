"""The ``starfinder`` ruleset (French seed ``starfinder-fr_000``): cover, concealment, flanking."""

from service.rules.starfinder.cover import RULESET

__all__ = ["RULESET"]
