"""dnd2024 vision: light, obscured areas, senses and conditions (24-VIS-1..10).

The answer's ``obscurement`` is what this observer experiences at the target (24-VIS-1): the
light over the target as this observer sees it (``LIGHT_AS_SEEN``: darkvision, devil's
sight and truesight within range lift it) read through dnd5e's ``FROM_LIGHT`` (24-VIS-2),
and the worse of that and the regions' (GEO-9); a target perceived by blindsight alone
has none (24-VIS-4). Tremorsense only pinpoints a creature (24-VIS-5): it locates, it does
not see (``SENSES``). An unseen target or attacker is noted with its effect on attack rolls
(24-ATK-3).

Where the ``dnd5e`` ruleset differs on purpose: its darkvision lifts only darkness (the
seed, 5E-VIS-5; option ``darkvision_dim_as_bright``), its tremorsense sees, and it knows
x-ray vision; SRD 5.2 lifts dim light too, tremorsense is not sight, and x-ray vision is not
one of its senses (a token's ``xray`` range is not read).
"""

from __future__ import annotations

from typing import Any

from service.engine.scene import BuiltScene
from service.model import Token
from service.rules.base import VisionResult
from service.rules.dnd5e.vision import FROM_LIGHT
from service.rules.options import GM_OPTIONS
from service.rules.vision_answer import strongest, vision_answer
from service.senses import VISUAL, SenseOrder, SenseReport

# ---------------------------------------------------------------------------- tables

#: 24-VIS-3..6, 24-VIS-9: the precise senses, the first that reaches named; tremorsense
#: (24-VIS-5) and hearing only locate.
SENSES = SenseOrder(
    ("sight", "darkvision", "devils_sight", "truesight", "blindsight"), ("tremorsense", "hearing")
)

#: Rule id of each sense that locates a target.
SENSE_RULE = {
    "sight": "24-VIS-2",
    "darkvision": "24-VIS-3",
    "blindsight": "24-VIS-4",
    "tremorsense": "24-VIS-5",
    "truesight": "24-VIS-6",
    "devils_sight": "24-VIS-9",
    "hearing": "24-ATK-3",
}

#: 24-VIS-3 (darkvision: dim as bright, darkness as dim), 24-VIS-6 (truesight: any
#: darkness seen through; Decision: dim too), 24-VIS-9 (devil's sight: dim and darkness
#: seen normally): the light level over the target as an observer whose sense reaches sees
#: it. The best of the senses that reach applies.
LIGHT_AS_SEEN: dict[str, dict[str, str]] = {
    "darkvision": {"bright": "bright", "dim": "bright", "dark": "dim"},
    "truesight": {"bright": "bright", "dim": "bright", "dark": "bright"},
    "devils_sight": {"bright": "bright", "dim": "bright", "dark": "bright"},
}

#: Obscurement degrees, weakest first (24-VIS-1).
OBSCURE_RANK = {"none": 0, "light": 1, "heavy": 2}
#: Light levels, darkest first.
LIGHT_RANK = {"dark": 0, "dim": 1, "bright": 2}

#: Senses that perceive without light or eyes: the target is not obscured to them.
UNOBSCURED = ("blindsight",)

#: 24-ATK-3: what a target the observer cannot see means for attacks between them.
UNSEEN_NOTE = (
    "Unseen: this observer's attack rolls against it have Disadvantage, and its attack rolls "
    "against this observer have Advantage (24-ATK-3)."
)

#: Options of dnd2024 vision: the GM options (``service.rules.options``).
EXTRA_OPTIONS = dict(GM_OPTIONS)

# ---------------------------------------------------------------------------- rules


def seen_level(report: SenseReport) -> tuple[str, str | None]:
    """The light over the target as the observer sees it, and the sense that lifted it.

    The report's level, lifted by the best of ``LIGHT_AS_SEEN``'s senses that reach the
    target (in range, eyes open, the target visible to it: ``SenseReport.reaches``).
    """
    level: str = report.light.level
    seen, lifted_by = level, None
    for sense, table in LIGHT_AS_SEEN.items():
        if report.reaches.get(sense) and LIGHT_RANK[table[level]] > LIGHT_RANK[seen]:
            seen, lifted_by = table[level], sense
    return seen, lifted_by


def vision(
    built: BuiltScene,
    observer: Token,
    target: Token,
    report: SenseReport,
    options: dict[str, Any],
) -> VisionResult:
    """What ``observer`` perceives of ``target`` under dnd2024 (24-VIS-1..10, 24-ATK-3).

    Returns
    -------
    VisionResult
        ``can_see``/``sense`` (``SENSES``), ``light`` over the target's space,
        ``obscurement`` (``none|light|heavy``) as this observer experiences it,
        ``perception_disadvantage`` when lightly obscured to sight (24-VIS-1).
    """
    located, can_see = SENSES.located(report.reaches)
    sense = located if can_see else None
    rules = ["24-VIS-2"]
    notes = list(report.notes)
    level, lifted_by = seen_level(report)
    if lifted_by is not None:
        rules.append(SENSE_RULE[lifted_by])
    if "GEO-9" in report.light.rules or report.obscurement != "none":
        rules.append("GEO-9")
    if sense in UNOBSCURED:
        obscurement = "none"
    else:
        obscurement = strongest(OBSCURE_RANK, (FROM_LIGHT[level], report.obscurement))
    if obscurement != "none":
        rules.append("24-VIS-1")
    if located is not None:
        rules.append(SENSE_RULE[located])
    if "blinded" in observer.conditions:
        rules.append("24-VIS-7")
    if report.invisible:
        rules.append("24-VIS-8")
        if report.visible_to_observer:
            notes.append("Invisible, but this observer sees invisible creatures.")
    if not can_see:
        rules.append("24-ATK-3")
        notes.append(UNSEEN_NOTE)
        if not report.line_of_sight:
            notes.append("No line of sight.")
    return vision_answer(
        target,
        report,
        located,
        can_see,
        rules,
        notes,
        obscurement=obscurement,
        perception_disadvantage=obscurement == "light" and (sense is None or sense in VISUAL),
    )
