"""The ``pf2e-variant`` ruleset (English seed ``pf2e-variant-en_003``): cover, detection, range."""

from service.rules.pf2e_variant.cover import RULESET

__all__ = ["RULESET"]
