"""Line of effect / line of sight between tokens or points, and breakthrough damage.

Pure (no Flask). Between two spaces the answer is exact (5E-LOE-2, ``geometry.
line_of_effect_between``); between points it is the one segment. Line of effect uses the
walls' movement/effect restriction, line of sight their sight restriction (GEO-1).
Breakthrough (5E-LOE-4/5): walls with ``hp`` along the line absorb damage in order. The rule
ids an answer cites are its ruleset's (``service.citations.LINE_RULES``); breakthrough is
dnd5e's alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from service.citations import BREAKTHROUGH_RULESETS, DEFAULT_RULESET, LINE_RULES
from service.engine.budget import WorkBudget
from service.engine.scene import BuiltScene
from service.engine.spaces import box_centre, inset_box
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.engine.walls import WallIndex
from service.errors import RulesError
from service.geometry.exact import line_of_effect_between
from service.geometry.measure import Blocker, surface_blockers, wall_blockers
from service.geometry.trace import TraceSpec, crossing_order, trace
from service.model import Token


@dataclass(frozen=True)
class Endpoint:
    """One end of the query: a token, or a point in px with an elevation in grid units."""

    token: Token | None = None
    point: tuple[float, float] | None = None
    elevation: float = 0.0


@dataclass(frozen=True)
class Layer:
    """A breakable wall met by a damaging effect, in order along the line (5E-LOE-4)."""

    id: str
    hp: int | None
    ac: int | None
    absorbed: int
    destroyed: bool


@dataclass(frozen=True)
class Breakthrough:
    """What a damaging (or non-damaging) effect does to the walls in its way."""

    damage_reaching: int
    destroyed: tuple[str, ...]
    stopped_by: str | None
    layers: tuple[Layer, ...] = ()


@dataclass(frozen=True)
class LineAnswer:
    """Answer of ``/v1/line-of-effect`` and ``/v1/line-of-sight``."""

    clear: bool
    witness: tuple[tuple[float, float], tuple[float, float]] | None
    blockers: tuple[Blocker, ...]
    rules: tuple[str, ...]
    breakthrough: Breakthrough | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def _box(geo: BuiltScene, end: Endpoint, inset: float) -> tuple[float, float, float, float]:
    if end.token is not None:
        return inset_box(geo.token_boxes[end.token.id], inset)
    assert end.point is not None
    return (end.point[0], end.point[1], end.point[0], end.point[1])


def _span(geo: BuiltScene, end: Endpoint) -> tuple[float, float]:
    """A token's vertical extent, or a point's band of no thickness (GEO-5a), grid units."""
    if end.token is not None:
        return geo.span(end.token)
    return (end.elevation, end.elevation)


def _citations(ruleset: str | None, damage: int | None) -> dict[str, str | None]:
    """The rule ids ``ruleset`` cites (``LINE_RULES``; ``None``: dnd5e's).

    Raises ``RulesError`` at ``effect.damage`` for a breakthrough (``damage`` given) in a
    ruleset without that rule (5E-LOE-4/5 are dnd5e's).
    """
    cites = LINE_RULES[ruleset or DEFAULT_RULESET]
    if damage is not None and cites["damage"] is None:
        having = ", ".join(BREAKTHROUGH_RULESETS)
        raise RulesError(
            f"Breakthrough (5E-LOE-4/5) is a rule of {having} only; ruleset {ruleset!r} has "
            "none. Leave out effect.damage, or send a ruleset that has it.",
            ("effect", "damage"),
        )
    return cites


def line_between(
    geo: BuiltScene,
    source: Endpoint,
    target: Endpoint,
    sense: str = "move",
    *,
    damage: int | None = None,
    corner_inset: float = DEFAULT_CORNER_INSET_PX,
    budget: WorkBudget | None = None,
    ruleset: str | None = None,
) -> LineAnswer:
    """Whether an effect (``sense="move"``) or sight (``"sight"``) gets from source to target.

    Parameters
    ----------
    geo : BuiltScene
    source, target : Endpoint
        Tokens (their spaces, inset by ``corner_inset`` px) or points (px). The source
        decides one-way walls (GEO-3).
    sense : {"move", "sight"}
    damage : int, optional
        With line of effect: the effect's damage for breakthrough (5E-LOE-4); 0 is a
        non-damaging effect, which stops at the first blocking object (5E-LOE-5).
    corner_inset : float
        px (GEO-6).
    ruleset : str, optional
        Whose rule ids ``rules`` cites (``_citations``, which refuses ``damage`` elsewhere).

    Returns
    -------
    LineAnswer
        ``clear`` is exact between spaces (5E-LOE-2); ``witness`` a clear segment;
        ``blockers`` the walls (naming their levels) and the floors on the
        centre-to-centre line when not clear (GEO-10).
    """
    cites = _citations(ruleset, damage if sense == "move" else None)
    box_s = _box(geo, source, corner_inset)
    box_t = _box(geo, target, corner_inset)
    # GEO-5a: the band from the source's extent to the target's; walls covering only part
    # of it are low obstacles, which never block line of effect or sight.
    (s_bottom, s_top), (t_bottom, t_top) = _span(geo, source), _span(geo, target)
    elevations = (s_bottom, t_bottom, s_top, t_top)
    rules: list[str | None] = ["GEO-1", "GEO-6"]
    rules.append(cites["effect" if sense == "move" else "sight"])
    if source.token is not None or target.token is not None:
        rules.append(cites["spaces"])
    # Line of sight also stops at the outline of heavy obscurement (5E-VIS-2).
    index = geo.sight if sense == "sight" else geo.walls
    result = line_of_effect_between(
        index,
        box_s,
        box_t,
        sense,
        elevations=elevations,
        wall_mask=geo.tall_mask(index),
        budget=budget,
        spaces=(_box(geo, source, 0.0), _box(geo, target, 0.0)),  # GEO-6: the corner re-check
    )
    centre_line = (*box_centre(box_s), *box_centre(box_t))
    ordered, blockers = _centre_blockers(geo, index, sense, centre_line, elevations, result.clear)
    witness = None
    if result.witness is not None:
        w = result.witness
        witness = ((w[0], w[1]), (w[2], w[3]))
    breakthrough = None
    if damage is not None and sense == "move":
        breakthrough = _breakthrough(geo, [w for w, _ in ordered], damage, result.clear)
        rules.append(cites["damage" if damage > 0 else "no_damage"])
    if any(b.kind == "surface" for b in blockers):  # a floor of a building stopped it
        rules.append("GEO-10")
    cited = tuple(r for r in rules if r is not None)
    return LineAnswer(result.clear, witness, blockers, cited, breakthrough)


def _centre_blockers(
    geo: BuiltScene,
    index: WallIndex,
    sense: str,
    centre_line: tuple[float, float, float, float],
    elevations: tuple[float, float, float, float],
    clear: bool,
) -> tuple[list[tuple[int, float]], tuple[Blocker, ...]]:
    """The walls the centre-to-centre line crosses, in order, and the answer's blockers.

    Not ``clear``: the walls that block it (naming their levels) and the floors it goes
    through with their levels (GEO-10); clear: the walls crossed (for breakthrough), no floor.
    """
    blocking: list[int] = []
    if not clear:
        traced = trace(
            index,
            np.array([centre_line]),
            TraceSpec(sense=sense, wall_mask=geo.tall_mask(index), low_obstacles=False),
            elevations=np.array([elevations], dtype=np.float64),
        )
        blocking = traced.wall_blockers[0]
    ordered = crossing_order(index, centre_line, blocking)
    blockers = tuple(dict.fromkeys(wall_blockers(index, [w for w, _ in ordered])))
    if not clear:
        line = np.array([centre_line], dtype=np.float64)
        blockers += tuple(surface_blockers(index, line, elevations, sense)[0])
    return ordered, blockers


def _breakthrough(geo: BuiltScene, walls: list[int], damage: int, clear: bool) -> Breakthrough:
    """Consume ``damage`` through the walls in order (5E-LOE-4/5)."""
    if clear or not walls:
        return Breakthrough(damage, (), None)
    if damage <= 0:
        return Breakthrough(0, (), geo.walls.ids[walls[0]])
    remaining = damage
    destroyed: list[str] = []
    layers: list[Layer] = []
    stopped_by = None
    for w in walls:
        wall = geo.walls.walls[w]
        if wall.hp is None or remaining < wall.hp:
            layers.append(Layer(wall.id, wall.hp, wall.ac, remaining, False))
            stopped_by, remaining = wall.id, 0
            break
        layers.append(Layer(wall.id, wall.hp, wall.ac, wall.hp, True))
        destroyed.append(wall.id)
        remaining -= wall.hp
        if remaining == 0:
            break
    return Breakthrough(remaining, tuple(destroyed), stopped_by, tuple(layers))
