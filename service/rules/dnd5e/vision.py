"""dnd5e vision: senses, light and obscurement (5E-VIS-1..10 of ``shared/RULES.md``)."""

from __future__ import annotations

from typing import Any

from service.engine.scene import BuiltScene
from service.model import Token
from service.rules.base import VisionResult
from service.senses import VISUAL, SenseReport

# ---------------------------------------------------------------------------- tables

#: 5E-VIS rule id for each sense that locates a target.
SENSE_RULE = {
    "sight": "5E-VIS-4",
    "darkvision": "5E-VIS-5",
    "devils_sight": "5E-VIS-6",
    "truesight": "5E-VIS-7",
    "blindsight": "5E-VIS-8",
    "xray": "5E-VIS-9",
}
_OBSCURE_RANK = {"none": 0, "light": 1, "heavy": 2}

#: 5E-VIS-3: obscurement from the light over the target, for sight.
FROM_LIGHT = {"bright": "none", "dim": "light", "dark": "heavy"}


def _worse(a: str, b: str) -> str:
    return a if _OBSCURE_RANK[a] >= _OBSCURE_RANK[b] else b


def vision(
    built: BuiltScene,
    observer: Token,
    target: Token,
    report: SenseReport,
    options: dict[str, Any],
) -> VisionResult:
    """What ``observer`` perceives of ``target`` under dnd5e (5E-VIS-1..10).

    Parameters
    ----------
    built : BuiltScene
    observer, target : Token
    report : SenseReport
        What the observer's senses do toward the target (``service.senses.perceive_all``).
    options : dict
        The ruleset's options (none used here).

    Returns
    -------
    VisionResult
        ``can_see``/``sense`` (the first precise sense that reaches, else ``hearing``),
        ``light`` over the target's space, ``obscurement`` (``none|light|heavy``) as this
        observer experiences it, ``perception_disadvantage`` when lightly obscured.
    """
    sense = report.first_precise()
    rules = ["5E-VIS-3"]
    level = report.light.level
    if report.light.magical_darkness:
        rules.append("5E-VIS-5")
    from_light = FROM_LIGHT[level]
    if sense in ("blindsight", "tremorsense"):
        obscurement = "none"
    elif sense == "truesight":
        obscurement = report.obscurement if report.obscurement != "heavy" else "none"
    elif sense in ("darkvision", "devils_sight"):
        obscurement = _worse("light", report.obscurement)
    elif sense is not None:  # sight or x-ray in light
        obscurement = _worse(from_light, report.obscurement)
        if sense == "xray":
            obscurement = from_light
    else:
        obscurement = _worse(from_light, report.obscurement)
    if sense is not None:
        rules.append(SENSE_RULE.get(sense, "5E-VIS-8"))
    if not report.line_of_sight and any(b.kind == "region" for b in report.blockers):
        rules.append("5E-VIS-2")
    if report.obscurement != "none" or obscurement != "none":
        rules.append("5E-VIS-1")
    heard = sense is None and report.reaches["hearing"]
    notes = []
    if report.invisible and sense in ("truesight", "blindsight", "tremorsense"):
        notes.append(f"Invisible, but {sense} perceives it.")
    if sense is None and not report.line_of_sight:
        notes.append("No line of sight.")
    return VisionResult(
        target=target.id,
        can_see=sense is not None,
        sense=sense if sense is not None else ("hearing" if heard else None),
        light=level,
        magical_darkness=report.light.magical_darkness,
        distance=report.distance,
        line_of_sight=report.line_of_sight,
        rules=tuple(dict.fromkeys(rules)),
        obscurement=obscurement,
        perception_disadvantage=obscurement == "light" and (sense is None or sense in VISUAL),
        blockers=report.blockers,
        notes=tuple(notes),
    )
