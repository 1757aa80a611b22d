"""pf2e detection: observed, hidden, undetected, unnoticed; concealed (PF2-DET-1..7, PF2-VIS-1..7).

Detection is read from ``DETECTION`` by whether the target is invisible to this observer and
the best kind of sense that reaches it (``SENSES``: a precise sense observes, an imprecise
one finds the space):

| invisible to the observer | precise sense | imprecise sense only | nothing    |
| ------------------------- | ------------- | -------------------- | ---------- |
| no                        | observed      | hidden               | undetected |
| yes (PF2-DET-7)           | observed      | undetected           | undetected |

An invisible target is undetected even where hearing or tremorsense reaches it until it is
found by a Seek, or hidden from the start for an observer that saw it turn invisible (the
GM's ``was_observing``); a precise sense other than sight (blindsight) observes it. The
GM's ``unnoticed`` list overrides the table (PF2-DET-6).

Concealed (PF2-DET-3): an observed or hidden target in dim light, for an observer without
low-light vision or darkvision (PF2-VIS-1/2/3), or behind or inside a concealing region
(GEO-9). Not for a target perceived by a sense that ignores light (blindsight, tremorsense).

The token's ``devils_sight`` range is read as greater darkvision (PF2-VIS-4: sees in
magical darkness); ``darkvision`` does not see in magical darkness, which this ruleset takes
to be darkness of a rank that only greater darkvision pierces.
"""

from __future__ import annotations

from typing import Any

from service.engine.scene import BuiltScene
from service.model import Token
from service.rules.base import VisionResult
from service.rules.options import GM_OPTIONS
from service.rules.vision_answer import vision_answer
from service.senses import SenseOrder, SenseReport

# ---------------------------------------------------------------------------- tables

#: PF2-DET-2: the precise senses (vision, with darkvision and greater darkvision; truesight;
#: blindsight, precise but not eyes), then the imprecise ones (tremorsense, hearing).
SENSES = SenseOrder(
    ("sight", "darkvision", "devils_sight", "truesight", "blindsight"), ("tremorsense", "hearing")
)

#: Rule id of each sense that locates a target.
SENSE_RULE = {
    "sight": "PF2-VIS-1",
    "darkvision": "PF2-VIS-3",
    "devils_sight": "PF2-VIS-4",
    "truesight": "PF2-VIS-1",
    "blindsight": "PF2-DET-2",
    "tremorsense": "PF2-VIS-5",
    "hearing": "PF2-DET-2",
}

#: PF2-DET-2/7: (invisible to the observer, best sense kind) -> detection state.
DETECTION = {
    (False, "precise"): "observed",
    (False, "imprecise"): "hidden",
    (False, "none"): "undetected",
    (True, "precise"): "observed",
    (True, "imprecise"): "undetected",
    (True, "none"): "undetected",
}

# fmt: off
#: PF2-DET-3..6: each state's flat check DC to target the creature, the rule saying so, and
#: whether the observer is off-guard to it. Concealed and observed: DC 5 (PF2-DET-3).
DETECTION_EFFECTS: dict[str, tuple[int | None, str, bool]] = {
    #              DC    rule         off-guard
    "observed":   (None, "PF2-DET-1", False),
    "hidden":     (11,   "PF2-DET-4", True),
    "undetected": (11,   "PF2-DET-5", True),
    "unnoticed":  (None, "PF2-DET-6", True),
}
# fmt: on
CONCEALED_FLAT_CHECK_DC = 5
#: PF2-VIS-7: a deafened creature's auditory actions need this flat check.
AUDITORY_FLAT_CHECK_DC = 5

#: Senses that ignore light and concealment.
BLIND_SENSES = ("blindsight", "tremorsense")

#: PF2-DET-5: how an undetected creature may still be targeted.
UNDETECTED_NOTE = (
    "Undetected: pick a square to target; the GM rolls the DC 11 flat check in secret."
)

#: Options of pf2e vision: the GM options (``service.rules.options``).
EXTRA_OPTIONS = dict(GM_OPTIONS)

# ---------------------------------------------------------------------------- rules


def _concealed(observer: Token, report: SenseReport, rules: list[str], notes: list[str]) -> bool:
    """PF2-DET-3: dim light without low-light vision or darkvision, or a concealing region."""
    senses = observer.senses
    dim = report.light.level == "dim" and not report.light.magical_darkness
    by_light = dim and not (senses.low_light_vision or senses.darkvision > 0)
    if by_light:
        rules.append("PF2-VIS-1")
    elif dim:
        rules.append("PF2-VIS-2" if senses.low_light_vision else "PF2-VIS-3")
    if report.concealed_by:
        rules.append("GEO-9")
        notes.append("Concealed by " + ", ".join(report.concealed_by) + ".")
    return by_light or bool(report.concealed_by)


def _state(
    target: Token, report: SenseReport, can_see: bool, located: str | None, options: dict[str, Any]
) -> str:
    """The detection state from ``DETECTION`` and the GM's lists (PF2-DET-6/7)."""
    if target.id in (options.get("unnoticed") or ()):
        return "unnoticed"
    kind = "precise" if can_see else ("imprecise" if located is not None else "none")
    invisible = not report.visible_to_observer
    state = DETECTION[invisible, kind]
    if invisible and state == "undetected" and target.id in (options.get("was_observing") or ()):
        return "hidden"
    return state


def vision(
    built: BuiltScene,
    observer: Token,
    target: Token,
    report: SenseReport,
    options: dict[str, Any],
) -> VisionResult:
    """Detection state of ``target`` for ``observer`` (the module docstring's tables).

    Returns
    -------
    VisionResult
        ``detection``, ``concealed``, ``flat_check_dc`` (hidden or undetected 11, concealed
        5), ``off_guard`` (the observer is off-guard to a hidden, undetected or unnoticed
        target, PF2-DET-4..6), ``auditory_flat_check_dc`` 5 for a deafened observer.
    """
    located, can_see = SENSES.located(report.reaches)
    rules = ["PF2-DET-1"]
    notes = list(report.notes)
    if located is not None:
        rules.append(SENSE_RULE[located])
    if report.invisible:
        rules.append("PF2-DET-7")
    detection = _state(target, report, can_see, located, options)
    concealed = False
    if detection in ("observed", "hidden") and located not in BLIND_SENSES:
        concealed = _concealed(observer, report, rules, notes)
    dc, rule, off_guard = DETECTION_EFFECTS[detection]
    rules.append(rule)
    if concealed:
        rules.append("PF2-DET-3")
        dc = dc or CONCEALED_FLAT_CHECK_DC
    if detection == "undetected":
        notes.append(UNDETECTED_NOTE)
    deafened = "deafened" in observer.conditions
    if deafened or "blinded" in observer.conditions:
        rules.append("PF2-VIS-7")
    return vision_answer(
        target,
        report,
        located,
        can_see,
        rules,
        notes,
        detection=detection,
        concealed=concealed,
        flat_check_dc=dc,
        off_guard=off_guard,
        auditory_flat_check_dc=AUDITORY_FLAT_CHECK_DC if deafened else None,
    )
