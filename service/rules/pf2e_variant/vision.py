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
from service.rules.options import GM_OPTIONS
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
EXTRA_OPTIONS = dict(GM_OPTIONS)


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
    senses = observer.senses
    located_by, can_see = SENSES.located(report.reaches)
    sense = located_by if can_see else None
    imprecise = next((s for s in IMPRECISE if report.reaches.get(s)), None)
    invisible = not report.visible_to_observer
    rules = ["PV-DET-1"]
    notes = list(report.notes)
    if report.invisible and not invisible:
        notes.append("Invisible, but this observer sees invisible: light and senses decide.")
    if target.id in (options.get("unnoticed") or ()):
        detection = "unnoticed"
        rules.append("PV-DET-5")
    elif sense is not None:
        detection = "observed"
        rules.append("PV-DET-2")
        if invisible:
            rules.append("PV-DET-7")
    elif invisible:
        rules.append("PV-DET-7")
        if imprecise is not None:
            detection = "hidden"
            rules.append("PV-DET-2")
            notes.append(f"Invisible, but {imprecise} (imprecise) finds its space.")
        elif target.id in (options.get("was_observing") or ()):
            detection = "hidden"
            notes.append("Turned invisible while observed: starts hidden.")
        else:
            detection = "undetected"
    else:
        rules.append("PV-DET-9")
        if imprecise is not None:
            rules.append("PV-DET-2")
        heard_or_felt = imprecise is not None or report.reaches["hearing"]
        detection = "hidden" if heard_or_felt else "undetected"
    concealed = False
    if detection in ("observed", "hidden") and located_by not in ("blindsight", "tremorsense"):
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
    dc = None
    if detection == "hidden":
        dc = 11
        rules.append("PV-DET-3")
    elif detection == "undetected":
        dc = 11
        rules.append("PV-DET-4")
        notes.append(
            "Cannot be targeted normally; a guessed space is a DC 11 flat check "
            "rolled by the GM in secret."
        )
    elif detection == "observed" and concealed:
        dc = 5
    deafened = "deafened" in observer.conditions
    if deafened:
        rules.append("PV-DET-8")
    return VisionResult(
        target=target.id,
        can_see=can_see,
        sense=located_by,
        light=report.light.level,
        magical_darkness=report.light.magical_darkness,
        distance=report.distance,
        line_of_sight=report.line_of_sight,
        rules=tuple(dict.fromkeys(rules)),
        detection=detection,
        concealed=concealed,
        flat_check_dc=dc,
        off_guard=detection in ("hidden", "undetected"),
        save_disadvantage_levels=1 if detection in ("hidden", "undetected") else 0,
        auditory_flat_check_dc=5 if deafened else None,
        blockers=report.blockers,
        notes=tuple(notes),
    )
