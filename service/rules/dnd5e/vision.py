"""dnd5e vision: senses, light and obscurement (5E-VIS-1..10 of ``shared/RULES.md``).

The answer's ``obscurement`` is what this observer experiences at the target (5E-VIS-1), by
the sense that located it:

| sense                         | obscurement                                             |
| ----------------------------- | ------------------------------------------------------- |
| none (not seen)               | worse of the light's (``FROM_LIGHT``) and the regions'   |
| sight                         | worse of the light's and the regions' (never heavy: a    |
|                               | target wholly in dense fog or darkness is not seen)      |
| darkvision, devil's sight     | worse of ``light`` and the regions' (darkness as dim)    |
| x-ray                         | the light's, ``light`` at most with darkvision in range  |
| truesight                     | the regions' unless heavy; darkness gives none           |
| blindsight, tremorsense       | ``none`` (not sight)                                     |

A target only partly inside dense fog is lightly obscured (``service.senses.obscurement_at``,
GEO-9), so it is seen with disadvantage on Perception. Hence one answer never says both
``obscurement: "heavy"`` and ``can_see: true`` (5E-VIS-1).

GM option ``darkvision_dim_as_bright`` (the published 5e reading; default off, the seed's
5E-VIS-5 names only darkness): within darkvision range, dim light counts as bright, so a
target in dim light is not lightly obscured for that observer.
"""

from __future__ import annotations

from typing import Any

from service.engine.scene import BuiltScene
from service.model import Token
from service.rules.base import OptionSpec, VisionResult
from service.rules.options import GM_OPTIONS
from service.rules.vision_answer import strongest, vision_answer
from service.senses import VISUAL, SenseOrder, SenseReport

# ---------------------------------------------------------------------------- tables

#: 5E-VIS rule id for each sense that locates a target.
SENSE_RULE = {
    "sight": "5E-VIS-4",
    "darkvision": "5E-VIS-5",
    "devils_sight": "5E-VIS-6",
    "truesight": "5E-VIS-7",
    "blindsight": "5E-VIS-8",
    "tremorsense": "GEO-11",  # cited by its own name, never as blindsight
    "xray": "5E-VIS-9",
}
#: 5E-VIS-4..9: the first precise sense that reaches sees the target, else hearing
#: locates it.
SENSES = SenseOrder()

_OBSCURE_RANK = {"none": 0, "light": 1, "heavy": 2}

#: 5E-VIS-3: obscurement from the light over the target, for sight.
FROM_LIGHT = {"bright": "none", "dim": "light", "dark": "heavy"}

#: Options of dnd5e vision and GM rulings, listed with the ruleset's (``GET /v1/rulesets``).
EXTRA_OPTIONS = {
    **GM_OPTIONS,
    "darkvision_dim_as_bright": OptionSpec(
        False,
        "5E-VIS-5 (vision): within darkvision range, dim light counts as bright (published "
        "5e). Off: the seed, darkvision only lifts darkness to dim.",
    ),
    "levels_rounding": OptionSpec(
        "down",
        "5E-GRV-3/4 (modifiers/gravity request options): 'down' counts whole points below a "
        "fractional X (the Decision), 'up' a started point.",
        ("down", "up"),
    ),
}


def _seen_level(
    observer: Token,
    report: SenseReport,
    options: dict[str, Any],
    rules: list[str],
    notes: list[str],
) -> str:
    """The light level the observer sees the target in (5E-VIS-3, option of 5E-VIS-5).

    The report's level, except that with ``darkvision_dim_as_bright`` dim light within
    darkvision range counts as bright (the rule id and a note are appended).
    """
    level = report.light.level
    darkvision = observer.senses.darkvision
    if (
        options.get("darkvision_dim_as_bright")
        and level == "dim"
        and darkvision > 0
        and report.distance <= darkvision
    ):
        rules.append("5E-VIS-5")
        notes.append("Option darkvision_dim_as_bright: dim light counts as bright.")
        return "bright"
    return level


def _obscurement(sense: str | None, from_light: str, region: str) -> str:
    """What the observer experiences at the target by ``sense`` (the module docstring's table).

    ``from_light``: the light's obscurement (``FROM_LIGHT``); ``region``: the regions'.
    """
    if sense in ("blindsight", "tremorsense"):
        return "none"
    if sense == "truesight":
        return region if region != "heavy" else "none"
    if sense in ("darkvision", "devils_sight"):
        return strongest(_OBSCURE_RANK, ("light", region))
    if sense == "xray":
        return from_light if from_light != "heavy" else "light"
    return strongest(_OBSCURE_RANK, (from_light, region))  # sight (lit target), or not seen


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
        The ruleset's options: ``darkvision_dim_as_bright`` (see the module docstring).

    Returns
    -------
    VisionResult
        ``can_see``/``sense`` (the first precise sense that reaches, else ``hearing``),
        ``light`` over the target's space, ``obscurement`` (``none|light|heavy``) as this
        observer experiences it, ``perception_disadvantage`` when lightly obscured.
    """
    located, can_see = SENSES.located(report.reaches)
    sense = located if can_see else None
    rules = ["5E-VIS-3"]
    notes: list[str] = []
    if report.light.magical_darkness:
        rules.append("5E-VIS-5")
    if "GEO-9" in report.light.rules:
        rules.append("GEO-9")
    from_light = FROM_LIGHT[_seen_level(observer, report, options, rules, notes)]
    region = report.obscurement
    obscurement = _obscurement(sense, from_light, region)
    if sense is not None:
        rules.append(SENSE_RULE.get(sense, "5E-VIS-8"))
    if not report.line_of_sight and report.blocked_by_region:
        rules.append("5E-VIS-2")
    if region != "none" or obscurement != "none":
        rules.append("5E-VIS-1")
    if region != "none":
        rules.append("GEO-9")
    notes.extend(report.notes)
    if report.invisible and sense in ("truesight", "blindsight", "tremorsense"):
        notes.append(f"Invisible, but {sense} perceives it.")
    if sense is None and not report.line_of_sight:
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
