"""The ``dnd2024`` ruleset (SRD 5.2, CC-BY-4.0): the dnd5e family's 2024 rules.

Cover by the attacker's best corner (``cover``), the 2024 obscurement, senses and conditions
(``vision``), and what conditions and range do to an attack roll (``attacks``). Where the
2024 rules agree with the ``dnd5e`` ruleset the package reads dnd5e's tables
(``docs/rules.md`` "dnd2024").
"""

from service.rules.dnd2024.cover import RULESET

__all__ = ["RULESET"]
