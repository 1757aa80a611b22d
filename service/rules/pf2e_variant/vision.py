"""pf2e-variant detection: observed, hidden, undetected, unnoticed (PV-DET-1..9)."""

from __future__ import annotations

from typing import Any

from service.engine.scene import BuiltScene
from service.model import Token
from service.rules.base import VisionResult
from service.senses import SenseReport


def vision(
    built: BuiltScene,
    observer: Token,
    target: Token,
    report: SenseReport,
    options: dict[str, Any],
) -> VisionResult:
    """Detection state of ``target`` for ``observer`` (PV-DET-1..9).

    Observed when a precise sense reaches it (PV-DET-2). An invisible target is undetected
    to observers whose only precise senses are visual (PV-DET-7), hidden instead when the
    GM lists it in ``was_observing``. Otherwise, without a precise sense: hidden if heard,
    else undetected (PV-DET-9). ``unnoticed`` (GM input) overrides all (PV-DET-5).
    Concealed (PV-DET-6/9): dim light for observers without low-light vision or darkvision,
    or lightly obscured regions (mist, smoke) at the target.

    Returns
    -------
    VisionResult
        ``detection``, ``concealed``, ``flat_check_dc`` (hidden or undetected 11, concealed 5),
        ``off_guard`` and ``save_disadvantage_levels`` (PV-DET-3/4),
        ``auditory_flat_check_dc`` 5 for a deafened observer (PV-DET-8).
    """
    senses = observer.senses
    sense = report.first_precise()
    rules = ["PV-DET-1"]
    notes = []
    if target.id in (options.get("unnoticed") or ()):
        detection = "unnoticed"
        rules.append("PV-DET-5")
    elif sense is not None:
        detection = "observed"
        rules.append("PV-DET-2")
        if report.invisible:
            rules.append("PV-DET-7")
    elif report.invisible:
        rules.append("PV-DET-7")
        if target.id in (options.get("was_observing") or ()):
            detection = "hidden"
            notes.append("Turned invisible while observed: starts hidden.")
        else:
            detection = "undetected"
    else:
        rules.append("PV-DET-9")
        detection = "hidden" if report.reaches["hearing"] else "undetected"
    concealed = False
    if detection in ("observed", "hidden") and sense not in ("blindsight", "tremorsense"):
        dim = report.light.level == "dim" and not report.light.magical_darkness
        if dim and not (senses.low_light_vision or senses.darkvision > 0):
            concealed = True
            rules.append("PV-DET-9")
        if report.obscurement == "light":
            concealed = True
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
    heard = sense is None and report.reaches["hearing"]
    return VisionResult(
        target=target.id,
        can_see=sense is not None,
        sense=sense if sense is not None else ("hearing" if heard else None),
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
