"""pf2e-variant detection: observed, hidden, undetected, unnoticed (PV-DET-1..9).

Detection by what reaches the target (PV-DET-2 Decision: tremorsense, scent and hearing are
imprecise; ``PRECISE`` are the precise senses of this ruleset):

| target                                  | what reaches                 | detection   |
| --------------------------------------- | ---------------------------- | ----------- |
| any (GM lists it ``unnoticed``)          | anything                     | unnoticed   |
| not invisible to this observer          | a precise sense              | observed    |
| not invisible to this observer          | tremorsense or hearing only  | hidden      |
| not invisible to this observer          | nothing                      | undetected  |
| invisible (observer does not see it)    | blindsight (precise, not eyes) | observed  |
| invisible                               | tremorsense                  | hidden      |
| invisible, GM lists it ``was_observing`` | hearing or nothing           | hidden      |
| invisible                               | hearing or nothing           | undetected  |

An observer that sees invisible within range (``see_invisibility``, truesight) finds the
target not invisible (PV-DET-9): light, obscurement and senses decide, so in darkness
without darkvision it is hidden by hearing.

Concealed (PV-DET-6, GEO-9): a concealing region (light or heavy obscurement, or the
``concealment`` flag) that the line to the target crosses or that holds the target; dim
light for an observer without low-light vision or darkvision (PV-DET-9). Not for a target
located by blindsight or tremorsense.
"""

from __future__ import annotations

from typing import Any

from service.engine.scene import BuiltScene
from service.model import Token
from service.rules.base import VisionResult
from service.rules.options import GM_OPTIONS, MAGICAL_DARKNESS_DEFEATS_DARKVISION
from service.rules.vision_answer import vision_answer
from service.senses import SenseOrder, SenseReport

#: PV-DET-2 Decision: the precise senses of this ruleset (vision with darkvision, devil's
#: sight and truesight; blindsight; x-ray). Tremorsense is imprecise here.
PRECISE = ("sight", "darkvision", "devils_sight", "truesight", "blindsight", "xray")

#: PV-DET-2: imprecise senses besides hearing, which find an invisible target too.
IMPRECISE = ("tremorsense",)

#: PV-DET-2: the first precise sense that reaches observes the target, else the first
#: imprecise one (then hearing) locates it.
SENSES = SenseOrder(PRECISE, (*IMPRECISE, "hearing"))

#: Options of pf2e-variant vision and GM rulings, listed with the ruleset's.
EXTRA_OPTIONS = {
    **GM_OPTIONS,
    "magical_darkness_defeats_darkvision": MAGICAL_DARKNESS_DEFEATS_DARKVISION,
}

# fmt: off
#: PV-DET-3/4: what each detection state gives the observer's actions against the target:
#: the flat check DC to target it, the rule that says so, off-guard, and the levels of
#: disadvantage on saves against it. Unnoticed (PV-DET-5) and observed give none.
DETECTION_EFFECTS: dict[str, tuple[int | None, str | None, bool, int]] = {
    #              DC    rule        off-guard  save levels
    "observed":   (None, None,       False,     0),
    "hidden":     (11,   "PV-DET-3", True,      1),
    "undetected": (11,   "PV-DET-4", True,      1),
    "unnoticed":  (None, None,       False,     0),
}
# fmt: on
#: PV-DET-4: how an undetected target may still be targeted.
UNDETECTED_NOTE = (
    "Cannot be targeted normally; a guessed space is a DC 11 flat check rolled by the GM in secret."
)
#: PV-DET-6: the flat check DC against an observed but concealed target.
CONCEALED_FLAT_CHECK_DC = 5
#: PV-DET-8: the flat check DC of a deafened observer's auditory actions.
AUDITORY_FLAT_CHECK_DC = 5


def vision(
    built: BuiltScene,
    observer: Token,
    target: Token,
    report: SenseReport,
    options: dict[str, Any],
) -> VisionResult:
    """Detection state of ``target`` for ``observer`` (PV-DET-1..9).

    See the module docstring for the table. ``sense`` is the precise sense that located
    the target, else the imprecise one (``tremorsense``, ``hearing``); ``can_see`` only for
    a precise sense.

    Returns
    -------
    VisionResult
        ``detection``, ``concealed``, ``flat_check_dc`` (hidden or undetected 11, concealed 5),
        ``off_guard`` and ``save_disadvantage_levels`` (PV-DET-3/4),
        ``auditory_flat_check_dc`` 5 for a deafened observer (PV-DET-8).
    """
    located_by, can_see = SENSES.located(report.reaches)
    sense = located_by if can_see else None
    rules = ["PV-DET-1"]
    notes = list(report.notes)
    if report.invisible and report.visible_to_observer:
        notes.append("Invisible, but this observer sees invisible: light and senses decide.")
    detection = _detection(target, sense, report, options, rules, notes)
    concealed = False
    if detection in ("observed", "hidden") and located_by not in ("blindsight", "tremorsense"):
        concealed = _concealed(observer, report, rules, notes)
    dc, rule, off_guard, save_levels = DETECTION_EFFECTS[detection]
    if rule is not None:
        rules.append(rule)
    if detection == "undetected":
        notes.append(UNDETECTED_NOTE)
    elif detection == "observed" and concealed:
        dc = CONCEALED_FLAT_CHECK_DC
    deafened = "deafened" in observer.conditions
    if deafened:
        rules.append("PV-DET-8")
    return vision_answer(
        target,
        report,
        located_by,
        can_see,
        rules,
        notes,
        detection=detection,
        concealed=concealed,
        flat_check_dc=dc,
        off_guard=off_guard,
        save_disadvantage_levels=save_levels,
        auditory_flat_check_dc=AUDITORY_FLAT_CHECK_DC if deafened else None,
    )


def _detection(
    target: Token,
    sense: str | None,
    report: SenseReport,
    options: dict[str, Any],
    rules: list[str],
    notes: list[str],
) -> str:
    """The detection state (PV-DET-2, -5, -7, -9: the module docstring's table).

    ``sense``: the precise sense that located the target, if any. Rule ids and notes are
    appended.
    """
    imprecise = next((s for s in IMPRECISE if report.reaches.get(s)), None)
    invisible = not report.visible_to_observer
    if target.id in (options.get("unnoticed") or ()):
        rules.append("PV-DET-5")
        return "unnoticed"
    if sense is not None:
        rules.append("PV-DET-2")
        if invisible:
            rules.append("PV-DET-7")
        return "observed"
    if invisible:
        rules.append("PV-DET-7")
        if imprecise is not None:
            rules.append("PV-DET-2")
            notes.append(f"Invisible, but {imprecise} (imprecise) finds its space.")
            return "hidden"
        if target.id in (options.get("was_observing") or ()):
            notes.append("Turned invisible while observed: starts hidden.")
            return "hidden"
        return "undetected"
    rules.append("PV-DET-9")
    if imprecise is not None:
        rules.append("PV-DET-2")
    heard_or_felt = imprecise is not None or report.reaches["hearing"]
    return "hidden" if heard_or_felt else "undetected"


def _concealed(observer: Token, report: SenseReport, rules: list[str], notes: list[str]) -> bool:
    """PV-DET-6/9: whether an observed or hidden target is concealed (rules, notes added).

    Dim light (not magical darkness) for an observer without low-light vision or darkvision
    (PV-DET-9), or a concealing region (GEO-9).
    """
    senses = observer.senses
    concealed = False
    dim = report.light.level == "dim" and not report.light.magical_darkness
    if dim and not (senses.low_light_vision or senses.darkvision > 0):
        concealed = True
        rules.append("PV-DET-9")
    if report.concealed_by:
        concealed = True
        rules.append("GEO-9")
        notes.append("Concealed by " + ", ".join(report.concealed_by) + ".")
    if concealed:
        rules.append("PV-DET-6")
    return concealed
