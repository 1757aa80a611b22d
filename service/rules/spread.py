"""Areas around corners (GEO-13): what a spread reaches, for every ruleset.

An area's point of origin with ``attack.spread`` and a ``radius`` reaches a target that no
straight line reaches when the shortest path around walls that block movement, from the
origin to the target's space, is within the radius (SF-COV-3 spreads; 5E-LOE-3 "fireball
can go around corners", ``geometry.paths``). Such an answer says ``reached_around_corners``
with the ``path_length`` (grid units); cover bonuses do not apply against a spread
(SF-COV-3): a target it reaches has the ruleset's first degree (none), no bonus, and can
be targeted. Without ``spread``, an area needs line of effect from its origin, and the
answer for a target it cannot reach notes that a spread might.

Table: ``SPREAD_NOTES``, what each outcome says.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from service.engine.budget import WorkBudget
from service.engine.scene import BuiltScene
from service.geometry.paths import shortest_path
from service.model import Token
from service.rules.base import Attack, CoverResult, RuleSystem

#: What a spread's answer says, by outcome (``{length}``, ``{radius}``: grid units).
SPREAD_NOTES = {
    "around": "GEO-13: the spread goes around corners: {length:g} of path, within its "
    "radius {radius:g}; cover bonuses do not apply against a spread (SF-COV-3).",
    "straight": "GEO-13: the spread reaches it in a straight line; cover bonuses do not "
    "apply against a spread (SF-COV-3).",
    "beyond": "GEO-13: the spread does not reach it: no path within its radius {radius:g}.",
    "might": "GEO-13: no line of effect from the area's origin; a spread (attack.spread "
    "with a radius) might reach it around corners.",
}


@dataclass(frozen=True)
class SpreadCoverResult(CoverResult):
    """A cover answer to a spread (GEO-13): whether it went around corners, and how far.

    ``path_length`` in grid units: the straight distance from the origin to the nearest
    point of the target's space, or the path around the walls, or None when none is within
    the radius.
    """

    reached_around_corners: bool = False
    path_length: float | None = None


def spread_answers(
    system: RuleSystem,
    built: BuiltScene,
    pairs: Sequence[tuple[Token | None, Token]],
    attack: Attack,
    results: list[CoverResult],
    budget: WorkBudget | None = None,
) -> list[CoverResult]:
    """``results`` as GEO-13 says for an area (a spread, or an area it notes might be one).

    Parameters
    ----------
    system : RuleSystem
        Its first cover degree is "no cover".
    pairs, results : sequences of the same length
        The pairs asked and the ruleset's answers.
    attack : Attack
        ``kind`` ``area`` with ``origin`` px; ``spread`` and ``radius`` (grid units).
    budget : WorkBudget, optional
        The request's budget: the paths' line-wall tests count in it.
    """
    if attack.kind != "area" or attack.origin is None:
        return results
    if not attack.spread or attack.radius is None:
        might = SPREAD_NOTES["might"]
        return [
            r if r.line_of_effect else dataclasses.replace(r, notes=(*r.notes, might))
            for r in results
        ]
    ppu = built.scene.grid.px_per_unit
    out: list[CoverResult] = []
    for (_, target), result in zip(pairs, results, strict=True):
        box = built.token_boxes[target.id]
        ox, oy = attack.origin
        straight = math.hypot(ox - min(max(ox, box[0]), box[2]), oy - min(max(oy, box[1]), box[3]))
        if result.line_of_effect:
            path: float | None = straight
        else:
            path = shortest_path(
                built.walls, attack.origin, box, attack.radius * ppu, budget=budget
            )
        if path is None or path > attack.radius * ppu:
            out.append(_beyond(result, None if path is None else path / ppu, attack))
        else:
            say = "straight" if result.line_of_effect else "around"
            out.append(_reached(system, result, not result.line_of_effect, path / ppu, say, attack))
    return out


def _fields(result: CoverResult) -> dict[str, object]:
    return {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}


def _beyond(result: CoverResult, length: float | None, attack: Attack) -> SpreadCoverResult:
    """A target the spread does not reach: the ruleset's answer, said so (GEO-13)."""
    fields = _fields(result)
    fields["notes"] = (*result.notes, SPREAD_NOTES["beyond"].format(radius=attack.radius))
    fields["rules"] = (*result.rules, "GEO-13")
    path = None if length is None else round(length, 4)
    return SpreadCoverResult(**fields, reached_around_corners=False, path_length=path)  # type: ignore[arg-type]


def _reached(
    system: RuleSystem, result: CoverResult, around: bool, length: float, say: str, attack: Attack
) -> SpreadCoverResult:
    """A target the spread reaches: no cover bonus (SF-COV-3), ``length`` grid units."""
    fields = _fields(result)
    note = SPREAD_NOTES[say].format(length=round(length, 2), radius=attack.radius)
    fields.update(
        cover=system.cover_degrees[0],
        ac_bonus=0,
        save_bonus=0,
        advantage_levels=0,
        can_target=True,
        rules=(*result.rules, "GEO-13"),
        notes=(*result.notes, note),
    )
    return SpreadCoverResult(**fields, reached_around_corners=around, path_length=round(length, 4))  # type: ignore[arg-type]
