"""The ``pf2e`` ruleset (Pathfinder 2e Remaster, the ORC-licensed Pathfinder SRD).

Cover from the centre line with its circumstance bonuses (``cover``), detection by precise
and imprecise senses (``vision``), and what prone, flanking, reach and range increments do
to a Strike (``attacks``), as tables (``docs/rules.md`` "pf2e").
"""

from service.rules.pf2e.cover import RULESET

__all__ = ["RULESET"]
