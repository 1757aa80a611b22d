"""The ``dnd5e`` ruleset (Chinese seed ``dnd5e-zh_001``): cover, vision, gravity, underwater."""

from service.rules.dnd5e.cover import RULESET

__all__ = ["RULESET"]
