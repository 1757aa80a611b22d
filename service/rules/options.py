"""GM options shared by every ruleset, and the one place that applies the obstacle ones.

Each ruleset lists these in its ``options`` (``GET /v1/rulesets`` shows the default, which
is the seed's reading, and the choices); an option a ruleset does not list is a 422
(``service.operations.ruleset_options``). Options that only one ruleset reads
(``darkvision_dim_as_bright`` in dnd5e, ``miss_chance`` in starfinder) live in that
ruleset's table.

Tables
------
``OBSTACLE_OPTIONS``: option name -> which tokens it sets aside as obstacles (they neither
block a line nor give cover, GEO-7; ``ignore_hidden`` also keeps them from flanking).

References
----------
shared/API.md "Cover" (``ignore_hidden`` on every query), shared/RULES.md GEO-7, 5E-VIS-5.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.engine.scene import BuiltScene
from service.geometry.questions import Pairs
from service.model import Token
from service.rules.base import OptionSpec
from service.senses.reach import SENSE_CONDITIONS

#: Conditions that make a creature no cover under ``ignore_prone_or_dead``.
DOWN_CONDITIONS = frozenset({"prone", "dead"})
#: Conditions that put a creature out of every line, whatever the options (GEO-12:
#: ``ethereal`` blocks nothing and gives no cover; ``burrowing`` is under the ground).
ELSEWHERE_CONDITIONS = frozenset({"ethereal", "burrowing"})

#: The conditions every ruleset knows (GEO-12): those the perception reads, and those the
#: obstacle options read. A ruleset adds its own (``RuleSystem.conditions``).
COMMON_CONDITIONS = SENSE_CONDITIONS | DOWN_CONDITIONS | ELSEWHERE_CONDITIONS


def unknown_conditions(conditions: frozenset[str], tokens: list[Token]) -> list[str]:
    """One GEO-12 note per condition of ``tokens`` outside ``conditions``, in token order.

    A condition the rules do not know is ignored, and said so (never silently).
    """
    notes = []
    for tok in tokens:
        for name in dict.fromkeys(tok.conditions):
            if name not in conditions:
                notes.append(
                    f"GEO-12: condition {name!r} of {tok.id} is not in this ruleset's "
                    "vocabulary (GET /v1/rulesets): ignored"
                )
    return notes


#: Option -> the tokens it leaves out of every obstacle.
OBSTACLE_OPTIONS: dict[str, Callable[[Token], bool]] = {
    "ignore_hidden": lambda tok: tok.hidden,
    "ignore_prone_or_dead": lambda tok: bool(DOWN_CONDITIONS & set(tok.conditions)),
}

IGNORE_HIDDEN = OptionSpec(
    False,
    "Hidden tokens (Foundry hidden, Roll20 GM layer) neither block lines, nor give cover, "
    "nor flank (GEO-7). On every query: cover, vision, matrix, flanking.",
)

IGNORE_PRONE_OR_DEAD = OptionSpec(
    False,
    "Creatures that are prone or dead give no cover and block no line (GEO-7 as a GM "
    "ruling; the seeds count every creature).",
)

MAGICAL_DARKNESS_BLOCKS_SIGHT = OptionSpec(
    False,
    "Vision: magical darkness between observer and target blocks sight, darkvision and "
    "x-ray vision through it (Foundry v12's behaviour); devil's sight and truesight see "
    "through. Off: only darkness at the target matters (5E-VIS-4/5).",
)

MAGICAL_DARKNESS_DEFEATS_DARKVISION = OptionSpec(
    False,
    "Vision and concealment: darkvision does not see in magical darkness (dnd5e's 5E-VIS-5 "
    "reading). Off: the ruleset knows no magical darkness, a magical_darkness region or "
    "darkness source is darkness and darkvision sees in it (SF-CON-6). dnd5e lists no "
    "such option: there it always applies.",
)


def darkvision_defeated(options: dict[str, Any], offered: dict[str, OptionSpec]) -> bool:
    """Whether magical darkness defeats darkvision (SF-CON-6 Decision, 5E-VIS-5).

    A ruleset that offers ``magical_darkness_defeats_darkvision`` (``offered``: its options)
    applies it only when asked; one that does not (dnd5e) always does.
    """
    name = "magical_darkness_defeats_darkvision"
    return bool(options.get(name)) if name in offered else True


#: The GM options every ruleset lists.
GM_OPTIONS: dict[str, OptionSpec] = {
    "ignore_hidden": IGNORE_HIDDEN,
    "ignore_prone_or_dead": IGNORE_PRONE_OR_DEAD,
    "magical_darkness_blocks_sight": MAGICAL_DARKNESS_BLOCKS_SIGHT,
}


def set_aside(built: BuiltScene, options: dict[str, Any]) -> frozenset[str]:
    """Ids of the tokens left out of every obstacle.

    Those the options given set aside, and the ethereal and burrowing creatures always
    (GEO-12).
    """
    tests = [test for name, test in OBSTACLE_OPTIONS.items() if options.get(name)]
    tests.append(lambda tok: not ELSEWHERE_CONDITIONS.isdisjoint(tok.conditions))
    return frozenset(tok.id for tok in built.scene.tokens if any(t(tok) for t in tests))


def without_set_aside(built: BuiltScene, pairs: Pairs, options: dict[str, Any]) -> Pairs:
    """``pairs`` with the tokens ``set_aside`` excluded from every pair's obstacles."""
    ignored = set_aside(built, options)
    return pairs.with_set_aside(ignored) if ignored else pairs
