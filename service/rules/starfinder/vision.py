"""Starfinder vision: concealment from light, lines and conditions (SF-CON-1..7).

Every answer cites what decided it: ``SF-CON-1`` (the corner lines, read as a ranged
attack) always, ``SF-CON-6`` whenever light was weighed (any answer by sight), plus the
rules that gave concealment.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from service.engine.scene import BuiltScene
from service.engine.spaces import box_centre, inset_corners
from service.geometry.sampling import square_corners
from service.model import Token
from service.rules.base import Attack, VisionResult
from service.rules.options import (
    GM_OPTIONS,
    MAGICAL_DARKNESS_DEFEATS_DARKVISION,
    darkvision_defeated,
)
from service.rules.planning import Asked
from service.rules.starfinder.concealment import (
    CONCEALMENT_RANK,
    MISS_CHANCE_OPTION,
    concealment,
    miss_chance_of,
)
from service.rules.vision_answer import strongest, vision_answer
from service.senses import SenseOrder, SenseReport, perceive_all

#: Options of starfinder vision and GM rulings, listed with the ruleset's.
EXTRA_OPTIONS = {
    **GM_OPTIONS,
    "miss_chance": MISS_CHANCE_OPTION,
    "magical_darkness_defeats_darkvision": MAGICAL_DARKNESS_DEFEATS_DARKVISION,
}

#: The first precise sense that reaches sees the target, else hearing locates it.
SENSES = SenseOrder()

#: SF-CON-1: concealment toward a seen target is read as for a ranged attack (one value).
RANGED = Attack("ranged")


#: SF-CON-6 Decision (senses that need no sight): a target perceived by one of these has no
#: concealment from darkness, obscurement or a wall that blocks only sight.
NOT_SIGHT = ("blindsight", "tremorsense")


def _light_concealment(
    sense: str | None,
    observer: Token,
    report: SenseReport,
    rules: list[str],
    defeated: bool = False,
) -> list[str]:
    """SF-CON-6: the concealment the light gives (none, one or two degrees); rule ids added.

    Not weighed for a target located by blindsight, tremorsense or truesight. Dim light
    conceals unless darkvision is in range or the observer has low-light vision; darkness is
    total unless darkvision is in range or devil's sight is. Magical darkness is darkness
    (SF-CON-6 Decision), where darkvision sees unless ``defeated`` (the GM option
    ``magical_darkness_defeats_darkvision``).
    """
    if sense in (*NOT_SIGHT, "truesight"):
        return []
    senses, dist = observer.senses, report.distance
    darkvision = senses.darkvision > 0 and dist <= senses.darkvision
    level = report.light.level
    found: list[str] = []
    rules.append("SF-CON-6")  # light weighed, whether or not it conceals
    if level == "dim" and not (darkvision or senses.low_light_vision):
        found.append("concealment")
    elif level == "dark" and not (darkvision and not (report.light.magical_darkness and defeated)):
        if not (senses.devils_sight > 0 and dist <= senses.devils_sight):
            found.append("total")
    if "GEO-9" in report.light.rules:
        rules.append("GEO-9")
    return found


def perceived(
    observer: Token, report: SenseReport, options: dict[str, Any], rules: list[str]
) -> tuple[str | None, bool, list[str], bool]:
    """What the observer's senses give (SF-CON-4/5/6).

    The sense, whether seen, the concealments found from light, sight and invisibility, and
    whether it perceives by sight.

    The one reading of a pair's ``SenseReport`` that ``vision`` and the cover answer's
    concealment share (SF-CON-8: they agree). A target perceived by blindsight or
    tremorsense (``NOT_SIGHT``) has no concealment but total cover's (SF-CON-6 Decision);
    then regions do not conceal either (``by_sight`` false). ``rules`` gets the rule ids.
    """
    located, can_see = SENSES.located(report.reaches)
    sense = located if can_see else None
    defeated = darkvision_defeated(options, EXTRA_OPTIONS)
    found = ["none", *_light_concealment(sense, observer, report, rules, defeated)]
    if sense in NOT_SIGHT:  # SF-CON-6 Decision: no concealment from what stops only sight
        rules.append("SF-CON-6")
        found.append("none" if report.line_of_effect else "total")
        if not report.line_of_effect:
            rules.append("SF-COV-9")
        return located, can_see, found, False
    if not report.line_of_sight:
        found.append("total")
        rules.append("SF-CON-4" if report.line_of_effect else "SF-COV-9")
    if not report.visible_to_observer and sense is None:
        found.append("total")
        rules.append("SF-CON-5")
    return located, can_see, found, True


def vision(
    built: BuiltScene,
    observer: Token,
    target: Token,
    report: SenseReport,
    options: dict[str, Any],
) -> VisionResult:
    """What ``observer`` perceives of ``target`` under starfinder (SF-CON-1..6).

    Concealment comes from light (SF-CON-6: dim light 20 %, darkness total 50 %, none
    against darkvision within range; low-light vision treats dim light as normal), from
    line of effect without line of sight (SF-CON-4), from concealing regions along the corner
    lines (SF-CON-1, as for a ranged attack) and target conditions (SF-CON-5); several do not
    stack (SF-CON-3). Decision: an invisible target has total concealment unless the
    observer sees invisible (see invisibility, truesight or blindsight in range). Regions
    conceal as GEO-9 says (``concealment`` module). ``miss_chance`` (SF-CON-7) replaces
    the computed miss chance.

    Returns
    -------
    VisionResult
        ``concealment`` ``none|concealment|total`` and ``miss_chance`` 0/20/50.
    """
    rules: list[str] = ["SF-CON-1"]
    located, can_see, found, by_sight = perceived(observer, report, options, rules)
    if not by_sight:
        return _answer(target, report, located, can_see, rules, found, options)
    source_box = built.token_boxes[observer.id]

    def corner_points() -> tuple[np.ndarray, np.ndarray]:
        """The observer's square corners and the target's (SF-CON-1), when regions conceal."""
        toward = box_centre(built.token_boxes[target.id])
        corners, _ = square_corners(source_box, built.scene.grid.size, 0.0, toward)
        return corners, inset_corners(built.token_boxes[target.id], 0.0)

    found.append(
        concealment(
            built,
            observer,
            target,
            RANGED,
            source_box,
            corner_points,
            options,
            rules,
        )
    )
    return _answer(target, report, located, can_see, rules, found, options)


def _answer(
    target: Token,
    report: SenseReport,
    located: str | None,
    can_see: bool,
    rules: list[str],
    found: list[str],
    options: dict[str, Any],
) -> VisionResult:
    """The answer from the concealments ``found``: the strongest applies (SF-CON-3)."""
    degree = strongest(CONCEALMENT_RANK, found)
    if degree != "none":
        rules.append("SF-CON-3")
    chance = miss_chance_of(degree, options, rules)
    return vision_answer(
        target,
        report,
        located,
        can_see,
        rules,
        report.notes,
        concealment=degree,
        miss_chance=chance,
    )


def sensed_all(asked: Asked, diagonals: str, inset: float) -> dict[int, tuple[list[str], bool]]:
    """What each attacker's senses find of its target, by pair row (SF-CON-8).

    ``perceived``'s concealments and whether by sight, so that a cover answer's
    concealment agrees with ``/v1/vision``; pairs without an attacker (an area's point of
    origin) have none. One ``perceive_all`` for all pairs (``diagonals`` and ``inset`` the
    ruleset's, for vision).
    """
    built, pairs, options = asked.built, asked.pairs, asked.options
    rows = [r for r, (a, _) in enumerate(pairs) if a is not None]
    if not rows:
        return {}
    with_attacker = [(pairs[r][0], pairs[r][1]) for r in rows]
    reports = perceive_all(
        built,
        with_attacker,  # type: ignore[arg-type]  # attackers are tokens here
        diagonals=diagonals,
        inset=inset,
        magical_darkness_blocks_sight=bool(options.get("magical_darkness_blocks_sight")),
        darkvision_defeated=darkvision_defeated(options, EXTRA_OPTIONS),
    )
    out = {}
    for r, (attacker, _), report in zip(rows, with_attacker, reports, strict=True):
        _, _, found, by_sight = perceived(attacker, report, options, [])  # type: ignore[arg-type]
        out[r] = (found, by_sight)
    return out
