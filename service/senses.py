"""System-neutral sense mechanics: which of an observer's senses reach a target (pure).

``perceive`` measures, for one observer and one target: the distance (GEO-8, with
elevation), the light over the target's space (``service.lighting``), obscurement at the
target and around the observer, the exact lines available to sight (walls restricting
sight plus heavy-obscurement outlines, 5E-VIS-2), to physical senses (walls restricting
movement) and to hearing (walls restricting sound), and from those which senses locate the
target. Each ruleset (``service.rules``) turns that into its own answer.

Decisions (see also the rules modules):

- Sight needs the target's light to be bright or dim (5E-VIS-4: only the target's own
  light matters; darkness along the way does not block sight).
- Darkvision and devil's sight treat darkness within their range as dim light (5E-VIS-5/6);
  only devil's sight (and truesight) work in magical darkness.
- Truesight sees in any darkness and sees invisible creatures but not through heavy
  obscurement (5E-VIS-7). Blindsight ignores light and obscurement but needs a line free of
  walls that restrict movement (5E-VIS-8: not behind obstacles). X-ray vision needs no line
  within its range (5E-VIS-9) but still needs light or darkvision.
- Tremorsense reaches creatures on the ground within range (not those with the ``flying``
  condition or above elevation 0 while the observer is on the ground) whatever the walls.
- Hearing (imprecise) needs a line free of walls restricting sound, and an observer that is
  not ``deafened``; ``senses.hearing`` ``None`` is unlimited range.
- A target or observer whose space lies wholly in heavy obscurement cannot be seen by
  sight-based senses (5E-VIS-1).

References
----------
shared/RULES.md 5E-VIS-1..10, GEO-1, GEO-8; shared/API.md "Vision and detection".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import shapely

from service.engine.budget import WorkBudget
from service.engine.grids import diagonal_rule, space_distance_units
from service.engine.scene import BuiltScene
from service.engine.spaces import inset_box
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.geometry.bands import span_meets
from service.geometry.exact import LineOfEffect, lines_of_effect
from service.geometry.measure import Blocker, wall_blocker
from service.geometry.trace import trace
from service.lighting import LightSample, light_over_token
from service.model import Region, Token

#: Precise senses in the order API.md names them (the first that reaches is ``sense``).
PRECISE = ("sight", "darkvision", "devils_sight", "truesight", "blindsight", "tremorsense", "xray")
#: Senses that use eyes (fail when blinded, lose invisible targets, suffer obscurement).
VISUAL = frozenset({"sight", "darkvision", "devils_sight", "truesight", "xray"})


@dataclass(frozen=True)
class SenseReport:
    """What one observer's senses do toward one target.

    Attributes
    ----------
    distance : float
        Grid units between the spaces (GEO-8, elevation included).
    light : LightSample
        Light over the target's space.
    obscurement : str
        ``none|light|heavy`` from regions at the target's space (not from light).
    reaches : dict of str to bool
        For each sense of ``PRECISE`` and ``hearing``: whether it locates the target.
    line_of_sight, line_of_effect : bool
        Exact lines between the spaces for sight (walls + heavy fog) and for effect.
    blockers : tuple of Blocker
        What blocks the centre-to-centre sight line when there is no line of sight.
    invisible : bool
        The target has the ``invisible`` condition.
    """

    distance: float
    light: LightSample
    obscurement: str
    reaches: dict[str, bool]
    line_of_sight: bool
    line_of_effect: bool
    blockers: tuple[Blocker, ...] = ()
    invisible: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)

    def first_precise(self) -> str | None:
        """The first precise sense that reaches, in API order, or ``None``."""
        return next((s for s in PRECISE if self.reaches.get(s)), None)


def distance_units(built: BuiltScene, a: Token, b: Token, diagonals: str) -> float:
    """Distance between two tokens' spaces in grid units, with elevation (GEO-8).

    ``service.engine.grids.space_distance_units`` on the scene's grid (squares, hexes or
    gridless ruler), with the scene's diagonal rule when it sets one, else ``diagonals``
    (the ruleset's default). The elevation difference is a third axis under the same rule.
    """
    grid = built.scene.grid
    rule = diagonal_rule(grid, diagonals)
    return space_distance_units(a, b, grid, built.token_boxes, rule)


def _height_meets(built: BuiltScene, token: Token, region: Region) -> str:
    """How a region's height range meets a token's vertical extent (GEO-5, GEO-5a)."""
    span = region.elevation
    if span is None:
        return "covers"
    return span_meets(built.span(token), span.bottom, span.top)


def _wholly_inside(built: BuiltScene, token: Token, obscurement: str) -> bool:
    space = shapely.box(*built.token_boxes[token.id])
    return any(
        shapely.covers(built.region_shapes[r.id], space)
        and _height_meets(built, token, r) == "covers"
        for r in built.scene.regions
        if r.obscurement == obscurement
    )


def obscurement_at(built: BuiltScene, token: Token) -> str:
    """Obscurement of a token's space from regions (5E-VIS-1).

    ``heavy`` if a heavily obscured region overlaps the space, else ``light`` for a lightly
    obscured one, else ``none``. A region with a height range counts only where it meets
    the token's vertical extent, and at most as light where it covers only part of it
    (GEO-5, GEO-5a).
    """
    space = shapely.box(*inset_box(built.token_boxes[token.id], 0.5))
    worst = "none"
    for r in built.scene.regions:
        if r.obscurement and shapely.intersects(built.region_shapes[r.id], space):
            meets = _height_meets(built, token, r)
            if meets == "misses":
                continue
            if r.obscurement == "heavy" and meets == "covers":
                return "heavy"
            worst = "light"
    return worst


def perceive(
    built: BuiltScene,
    observer: Token,
    target: Token,
    *,
    diagonals: str = "equidistant",
    inset: float = DEFAULT_CORNER_INSET_PX,
) -> SenseReport:
    """Which of ``observer``'s senses locate ``target``: ``perceive_all`` for one pair."""
    return perceive_all(built, [(observer, target)], diagonals=diagonals, inset=inset)[0]


def perceive_all(
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    *,
    diagonals: str = "equidistant",
    inset: float = DEFAULT_CORNER_INSET_PX,
    budget: WorkBudget | None = None,
) -> list[SenseReport]:
    """Which of each observer's senses locate each target (see the module docstring).

    The exact lines of all pairs (sight, effect, sound) are measured together, cheap centre
    lines first (``service.geometry.exact.lines_of_effect``); each target's light is sampled
    once.

    Parameters
    ----------
    built : BuiltScene
    pairs : sequence of (observer, target) Token pairs
    diagonals : str
        The ruleset's default diagonal rule for ranges, used when the scene's grid sets
        none (GEO-8).
    inset : float
        px by which both spaces shrink before tracing lines (GEO-6).
    budget : WorkBudget, optional
        The request's budget of line-wall tests (issue 16).

    Returns
    -------
    list of SenseReport, one per pair in order.

    Raises
    ------
    OverBudget
        The request would pass ``budget``.

    Cost: O(pairs x walls near their centre lines), plus the exact search for pairs whose
    centre line is blocked, plus one light sample per distinct target.
    """
    if not pairs:
        return []
    box_o = np.array([inset_box(built.token_boxes[o.id], inset) for o, _ in pairs])
    box_t = np.array([inset_box(built.token_boxes[t.id], inset) for _, t in pairs])
    # GEO-5a: each pair's band, from the observer's vertical extent to the target's.
    spans = [(built.span(o), built.span(t)) for o, t in pairs]
    elev = np.array([(a[0], b[0], a[1], b[1]) for a, b in spans], dtype=np.float64)
    sight_index = built.sight
    density = built.density
    los_all = lines_of_effect(
        sight_index,
        box_o,
        box_t,
        "sight",
        elevations=elev,
        wall_mask=built.tall_mask(sight_index),
        budget=budget,
        density=density,
    )
    loe_all = lines_of_effect(
        built.walls,
        box_o,
        box_t,
        "move",
        elevations=elev,
        wall_mask=built.tall_walls,
        budget=budget,
        density=density,
    )
    sound_all = lines_of_effect(
        built.walls, box_o, box_t, "sound", elevations=elev, budget=budget, density=density
    )
    partial_fog = _fog_partly_on_line(built, box_o, box_t, elev)
    lights: dict[str, LightSample] = {}
    out = []
    for k, ((observer, target), los, loe, sound) in enumerate(
        zip(pairs, los_all, loe_all, sound_all, strict=True)
    ):
        if target.id not in lights:
            lights[target.id] = light_over_token(built, target, budget)
        report = _report(built, observer, target, diagonals, lights[target.id], los, loe, sound)
        if partial_fog[k] and report.obscurement == "none":
            report = replace(report, obscurement="light")
        out.append(report)
    return out


def _fog_partly_on_line(
    built: BuiltScene, box_o: np.ndarray, box_t: np.ndarray, bands: np.ndarray
) -> list[bool]:
    """Per pair, whether the centre line crosses heavy fog holding only part of its band.

    GEO-5a: a region that covers only part of a line's band obscures that line at most
    lightly (its outline then does not block sight). One trace of the p centre lines, only
    when the scene has heavy fog and heights.
    """
    if built.sight_walls is None or not built.heights or not len(box_o):
        return [False] * len(box_o)
    index = built.sight_walls
    centres = np.column_stack(
        [
            (box_o[:, 0] + box_o[:, 2]) / 2,
            (box_o[:, 1] + box_o[:, 3]) / 2,
            (box_t[:, 0] + box_t[:, 2]) / 2,
            (box_t[:, 1] + box_t[:, 3]) / 2,
        ]
    )
    pseudo = np.zeros(index.size, dtype=bool)
    pseudo[index.room_walls or 0 :] = True
    traced = trace(index, centres, "sight", elevations=bands, wall_mask=pseudo)
    return [bool(low) for low in traced.low_blockers]


def _report(
    built: BuiltScene,
    observer: Token,
    target: Token,
    diagonals: str,
    light: LightSample,
    los: LineOfEffect,
    loe: LineOfEffect,
    sound: LineOfEffect,
) -> SenseReport:
    """One pair's ``SenseReport`` from its measured lines and the target's light."""
    senses = observer.senses
    dist = distance_units(built, observer, target, diagonals)
    obsc = obscurement_at(built, target)
    sight_index = built.sight
    blockers: tuple[Blocker, ...] = ()
    if not los.clear:
        blockers = tuple(dict.fromkeys(wall_blocker(n) for n in sight_index.names(los.blockers)))
    hidden_in_fog = _wholly_inside(built, target, "heavy") or _wholly_inside(
        built, observer, "heavy"
    )
    conditions = set(target.conditions)
    observer_conditions = set(observer.conditions)
    invisible = "invisible" in conditions
    blinded = "blinded" in observer_conditions

    def within(rng: float) -> bool:
        return rng > 0 and dist <= rng

    sees_invisible = within(senses.see_invisibility)
    magical = light.magical_darkness
    lit = light.level in ("bright", "dim") and not magical

    eyes_ok = not blinded and not hidden_in_fog and los.clear
    visible = not invisible or sees_invisible
    reaches = {
        "sight": eyes_ok and visible and lit,
        "darkvision": eyes_ok and visible and within(senses.darkvision) and not magical,
        "devils_sight": eyes_ok and visible and within(senses.devils_sight),
        "truesight": eyes_ok and within(senses.truesight),
        "blindsight": within(senses.blindsight) and loe.clear,
        "tremorsense": within(senses.tremorsense) and _on_ground(observer, target),
        "xray": not blinded
        and visible
        and within(senses.xray)
        and (lit or within(senses.darkvision) and not magical or within(senses.devils_sight)),
    }
    hearing_range = senses.hearing
    reaches["hearing"] = (
        "deafened" not in observer_conditions
        and (hearing_range is None or dist <= hearing_range)
        and sound.clear
    )
    return SenseReport(
        distance=dist,
        light=light,
        obscurement=obsc,
        reaches=reaches,
        line_of_sight=los.clear,
        line_of_effect=loe.clear,
        blockers=blockers,
        invisible=invisible,
    )


def _on_ground(observer: Token, target: Token) -> bool:
    """Tremorsense: the target touches the ground (not flying, not above elevation 0)."""
    return "flying" not in target.conditions and target.elevation <= max(0.0, observer.elevation)
