"""Which rule ids each ruleset cites in the answers of ``/v1/lighting`` and ``/v1/line-of-effect``.

The light at a point and whether a line is clear are geometry, the same in every ruleset
(GEO-1..9); what changes is the rule an answer names for it. The core (``service.lighting``,
``service.line_of_effect``) writes dnd5e's ids, as it did before requests named a ruleset;
these tables give every ruleset's own ids, and a shared ``GEO-*`` id where a ruleset has
none (docs/rules.md). Standard library only.

References
----------
docs/rules.md: 5E-VIS-3/5, 24-VIS-2/3, SF-CON-6, PV-DET-9, PF2-VIS-1/3 (light); 5E-LOE-1..5,
SF-COV-9, SF-CON-4, PV-COV-6, PV-DET-6, PF2-COV-5, GEO-1, GEO-9 (lines).
"""

from __future__ import annotations

#: The ruleset whose ids the core writes, and the answers cite when a request names none.
DEFAULT_RULESET = "dnd5e"

#: Per ruleset: the rule of light levels (bright, dim, darkness) and the rule of magical
#: darkness that a light sample cites in place of dnd5e's 5E-VIS-3 and 5E-VIS-5.
#: ``starfinder``: SF-CON-6 gives dim light and darkness their effect and its Decision reads
#: magical darkness; ``pf2e-variant``: PV-DET-9 (dim light; darkness without darkvision);
#: ``dnd2024``: 24-VIS-2, and 24-VIS-3 (darkvision does not see in magical darkness);
#: ``pf2e``: PF2-VIS-1, and PF2-VIS-3's Decision on magical darkness. A region's light is
#: GEO-9 in every ruleset.
LIGHT_RULES: dict[str, tuple[str, str]] = {
    "dnd5e": ("5E-VIS-3", "5E-VIS-5"),
    "dnd2024": ("24-VIS-2", "24-VIS-3"),
    "starfinder": ("SF-CON-6", "SF-CON-6"),
    "pf2e-variant": ("PV-DET-9", "PV-DET-9"),
    "pf2e": ("PF2-VIS-1", "PF2-VIS-3"),
}

#: Per ruleset, the ids a line answer cites besides GEO-1 and GEO-6 (every ruleset):
#: ``effect`` line of effect, ``sight`` line of sight (heavy obscurement included),
#: ``spaces`` a line between a token's space and anything (exact), ``damage`` and
#: ``no_damage`` breakthrough (5E-LOE-4/5), ``None`` where the ruleset has no such rule
#: (breakthrough is then refused; an exact line needs no id of its own). ``starfinder``:
#: total cover is no line of effect (SF-COV-9), line of effect without line of sight total
#: concealment (SF-CON-4); ``pf2e-variant``: PV-COV-6, and PV-DET-6's Decision (heavy
#: obscurement blocks sight through it); ``pf2e``: PF2-COV-5; ``dnd2024`` has no rule of its
#: own: GEO-1 (walls restrict effect and sight), GEO-9 (heavy obscurement).
LINE_RULES: dict[str, dict[str, str | None]] = {
    ruleset: dict(zip(("effect", "sight", "spaces", "damage", "no_damage"), ids, strict=True))
    for ruleset, ids in {
        "dnd5e": ("5E-LOE-1", "5E-VIS-2", "5E-LOE-2", "5E-LOE-4", "5E-LOE-5"),
        "dnd2024": (None, "GEO-9", None, None, None),
        "starfinder": ("SF-COV-9", "SF-CON-4", None, None, None),
        "pf2e-variant": ("PV-COV-6", "PV-DET-6", None, None, None),
        "pf2e": ("PF2-COV-5", "GEO-9", None, None, None),
    }.items()
}

#: The rulesets whose rules break through walls (``effect.damage``).
BREAKTHROUGH_RULESETS = tuple(r for r, ids in LINE_RULES.items() if ids["damage"] is not None)


def light_rules(rules: tuple[str, ...], ruleset: str | None) -> tuple[str, ...]:
    """``rules`` of a light sample (dnd5e's ids, sorted) as ``ruleset`` cites them, sorted.

    ``None`` is dnd5e. Raises ``KeyError`` for a ruleset ``LIGHT_RULES`` does not hold (the
    request schemas check ``ruleset`` first).
    """
    levels, magical = LIGHT_RULES[ruleset or DEFAULT_RULESET]
    swap = {LIGHT_RULES[DEFAULT_RULESET][0]: levels, LIGHT_RULES[DEFAULT_RULESET][1]: magical}
    return tuple(sorted({swap.get(r, r) for r in rules}))
