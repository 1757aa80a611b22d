"""starfinder cover, concealment, flanking and prone (French seed ``starfinder-fr_000``).

Rules SF-COV-1..9, SF-CON-1..5, SF-FLK-1, SF-PRN-1/2 of ``shared/RULES.md``. Geometry
measures which corner lines cross (or run along) walls, creatures' spaces and concealing
regions; this module maps that to a degree, bonuses and a miss chance.

Decisions beyond RULES.md (also in ``OPTIONS`` and the closing note of the issue):

- Corner points are the exact corners (``corner_inset`` default 0 px, not GEO-6's 0.5): the
  seed's "runs along the edge of a blocking square or wall" is only meaningful on the exact
  grid lines, and a line touching a wall at its own end point still does not count (GEO-6).
- Total cover (SF-COV-9) is no line of effect through walls that restrict movement/effect;
  line of effect without line of sight (a wall that blocks sight only) is total
  concealment (SF-CON-4), as the seed defines it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely

from service import geometry
from service.model import Token
from service.rules.base import (
    Attack,
    CoverResult,
    Modifier,
    OptionSpec,
    SceneGeometry,
    VisionResult,
    attack_source,
    lines_from_trace,
    obstacle_tokens,
    planned,
    prefetch_planned_cover,
    space_distance,
)

DEGREES = ("none", "partial", "cover", "soft", "improved", "total")

#: SF-COV-2, -6, -7, -8: (AC bonus, Reflex bonus) per degree; None under total cover.
BONUS: dict[str, tuple[int, int] | tuple[None, None]] = {
    "none": (0, 0),
    "partial": (2, 1),
    "cover": (4, 2),
    "soft": (4, 0),
    "improved": (8, 4),
    "total": (None, None),
}

#: Strength of what a single traced line meets, weakest first (the attacker picks the
#: corner whose strongest line is weakest, SF-COV-1).
LINE_RANK = {"none": 0, "soft": 1, "cover": 2, "improved": 3}

#: SF-CON-3/4: miss chance per concealment degree (several do not stack).
MISS_CHANCE = {"none": 0, "concealment": 20, "total": 50}

#: SF-COV-5: a low obstacle gives cover only within 6 squares (30 ft) of the target.
LOW_OBSTACLE_SQUARES = 6

#: SF-CON-5: a target condition that gives concealment against all attacks.
CONCEALED_CONDITIONS = frozenset({"concealed", "blurred", "displaced"})

OPTIONS = {
    "corner_inset": OptionSpec(
        0.0, "px by which corner points move toward the square's centre (SF-COV-1: exact corners)."
    ),
    "concealment_corner": OptionSpec(
        "defender",
        "SF-CON-1: who picks the attacker's corner for concealment: 'defender' (any corner "
        "with a concealing line gives concealment) or 'attacker' (every corner must).",
        ("defender", "attacker"),
    ),
    "partial_cover": OptionSpec(
        [], "SF-COV-7: ids of targets the GM rules have partial cover (more than half visible)."
    ),
}


def _rank(degree: str) -> int:
    return LINE_RANK[degree]


#: Most corners of an attacker's squares tried (SF-COV-1); more are cut to the nearest.
MAX_SOURCE_CORNERS = 256


def square_corners(
    box: tuple[float, float, float, float],
    size_px: float,
    inset: float,
    toward: tuple[float, float] | None = None,
) -> tuple[np.ndarray, int]:
    """Corners of every square of a space (SF-COV-1 multi-square attackers).

    Each square's corners are inset by ``inset`` px (GEO-6). A space with more than
    ``MAX_SOURCE_CORNERS`` distinct corners (larger than 8 by 8 squares) keeps the ones
    nearest to the point ``toward`` (the target's centre): the cost stays bounded however
    large the creature, and the nearest corners are the ones with the shortest lines.

    Returns
    -------
    corners : ndarray of shape (k, 2)
        px, sorted by x then y.
    total : int
        Distinct corners of the space before any cut.
    """
    x0, y0, x1, y1 = box
    xs = _square_edges(x0, x1, size_px, inset)
    ys = _square_edges(y0, y1, size_px, inset)
    total = len(xs) * len(ys)
    if total > MAX_SOURCE_CORNERS and toward is not None:
        # The k nearest points of a grid use only the k nearest values on each axis.
        xs = xs[np.argsort(np.abs(xs - toward[0]), kind="stable")[:MAX_SOURCE_CORNERS]]
        ys = ys[np.argsort(np.abs(ys - toward[1]), kind="stable")[:MAX_SOURCE_CORNERS]]
    grid = np.array(np.meshgrid(xs, ys, indexing="ij"), dtype=np.float64).reshape(2, -1).T
    if len(grid) > MAX_SOURCE_CORNERS and toward is not None:
        d2 = (grid[:, 0] - toward[0]) ** 2 + (grid[:, 1] - toward[1]) ** 2
        grid = grid[np.lexsort((grid[:, 1], grid[:, 0], d2))[:MAX_SOURCE_CORNERS]]
    return np.unique(grid, axis=0), total


def _square_edges(lo: float, hi: float, size_px: float, inset: float) -> np.ndarray:
    """Distinct inset corner coordinates along one axis of the squares of ``[lo, hi]``."""
    n = max(1, math.ceil((hi - lo) / size_px - 1e-9))
    out: set[float] = set()
    for i in range(n):
        a, b = lo + i * size_px, min(hi, lo + (i + 1) * size_px)
        d = min(inset, (b - a) / 2)
        out.update((a + d, b - d))
    return np.array(sorted(out), dtype=np.float64)


def adjacent(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two spaces touch (share an edge or a corner) without a square between."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


@dataclass(frozen=True)
class _CoverPlan:
    """What one Starfinder cover question traces (``Starfinder._plan``)."""

    inset: float
    source_box: tuple[float, float, float, float]
    target_box: tuple[float, float, float, float]
    sources: np.ndarray
    target_corners: np.ndarray
    request: geometry.TraceRequest
    notes: list[str]
    elevations: tuple[float, float]
    inner_source: tuple[float, ...]
    inner_target: tuple[float, ...]


def _improved_walls(geo: SceneGeometry) -> frozenset[int]:
    """Walls giving improved cover (SF-COV-8), found once per scene."""
    key = ("starfinder", "improved")
    if key not in geo.walls.memo:
        geo.walls.memo[key] = frozenset(
            i for i, w in enumerate(geo.scene.walls) if w.cover in ("improved", "extreme")
        )
    return geo.walls.memo[key]  # type: ignore[no-any-return]


def _low_walls(geo: SceneGeometry) -> list[int]:
    """Low obstacles (SF-COV-5): the walls ``geo.tall_walls`` sets aside."""
    return [] if geo.tall_walls is None else np.flatnonzero(~geo.tall_walls).tolist()


class Starfinder:
    """The ``starfinder`` rule system."""

    id: str = "starfinder"
    title: str = "Starfinder (French seed): +4 cover, soft/partial/improved, 20/50 % miss chance"
    cover_degrees: tuple[str, ...] = DEGREES
    options: dict[str, OptionSpec] = OPTIONS
    extra_capabilities: tuple[str, ...] = ("modifiers/flanking",)
    diagonals: str = "alternating"

    def cover(
        self,
        geo: SceneGeometry,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
    ) -> CoverResult:
        """Cover and concealment of ``target`` (SF-COV-1..9, SF-CON-1..5, SF-PRN-1/2).

        Parameters
        ----------
        geo : SceneGeometry
        attacker : Token or None
            ``None`` only for an area (spread) effect with ``attack.origin``.
        target : Token
        attack : Attack
            ``melee`` ignores soft cover (SF-COV-6); ``area`` cancels cover (SF-COV-3).
        options : dict
            ``corner_inset`` px (default 0), ``concealment_corner``, ``partial_cover``.

        Returns
        -------
        CoverResult
            ``cover`` in ``none|partial|cover|soft|improved|total``; ``ac_bonus``/
            ``save_bonus`` (Reflex); ``concealment`` and ``miss_chance``; ``lines`` from the
            attacker's chosen corner; ``modifiers`` for prone creatures.

        Raises
        ------
        RulesError
            An area effect without ``origin`` and without an attacker.
        """
        plan = planned(self._plan, geo, attacker, target, attack, options)
        source_box, sources, target_corners = plan.source_box, plan.sources, plan.target_corners
        low_notes = plan.notes
        segs = plan.request.segments
        traced = plan.request.run(geo.walls)
        improved_walls = _improved_walls(geo)
        line_kind = []
        for k in range(len(segs)):
            if traced.wall_blocked[k]:
                strong = any(w in improved_walls for w in traced.wall_blockers[k])
                line_kind.append("improved" if strong else "cover")
            elif traced.creature_blocked[k] and attack.kind != "melee":
                line_kind.append("soft")
            else:
                line_kind.append("none")
        per_corner = [max(line_kind[4 * c : 4 * c + 4], key=_rank) for c in range(len(sources))]
        best = min(range(len(sources)), key=lambda c: (_rank(per_corner[c]), c))
        degree = per_corner[best]
        lines = lines_from_trace(traced, geo.walls, slice(4 * best, 4 * best + 4))

        rules = ["SF-COV-1"]
        notes = list(low_notes)
        elevations = plan.elevations
        inner_source, inner_target = plan.inner_source, plan.inner_target
        loe = geometry.line_of_effect_between(
            geo.walls,
            inner_source,
            inner_target,
            "move",
            elevations=elevations,
            wall_mask=geo.tall_walls,
        )
        los = geometry.line_of_effect_between(
            geo.walls,
            inner_source,
            inner_target,
            "sight",
            elevations=elevations,
            wall_mask=geo.tall_walls,
        )
        if not loe.clear:
            degree = "total"
            rules.append("SF-COV-9")
            notes.append("No line of effect through the walls: total cover, cannot be attacked.")
        elif degree == "soft":
            rules.append("SF-COV-6")
        elif degree == "improved":
            rules.append("SF-COV-8")
        if degree == "cover" and target.id in (options.get("partial_cover") or ()):
            degree = "partial"
            rules.append("SF-COV-7")
        if attack.kind == "area" and degree != "total":
            if degree != "none":
                notes.append(f"Measured {degree} from the origin; spread effects cancel it.")
            degree = "none"
            rules.append("SF-COV-3")
        if degree in ("cover", "partial", "improved", "soft"):
            rules.append("SF-COV-2")
            rules.append("SF-COV-4")
            notes.append("Cover: the attacker cannot make attacks of opportunity against it.")

        concealment = "none"
        if degree != "total":
            concealment = self._concealment(
                geo, attacker, target, attack, source_box, sources, target_corners, options, rules
            )
            if loe.clear and not los.clear:
                concealment = "total"
                rules.append("SF-CON-4")
        if concealment != "none":
            rules.append("SF-CON-3")
        ac, reflex = BONUS[degree]
        return CoverResult(
            target=target.id,
            cover=degree,
            ac_bonus=ac,
            save_bonus=reflex,
            advantage_levels=0,
            can_target=degree != "total",
            line_of_effect=loe.clear,
            rules=tuple(dict.fromkeys(rules)),
            lines=lines,
            notes=tuple(notes),
            concealment=concealment,
            miss_chance=MISS_CHANCE[concealment],
            modifiers=self._prone(geo, attacker, target, attack),
        )

    def _plan(
        self,
        geo: SceneGeometry,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
    ) -> _CoverPlan:
        """What ``cover`` traces (SF-COV-1, SF-COV-5): corners, creatures, walls, spaces.

        Raises
        ------
        RulesError
            An area attack without ``attack.origin`` and without an attacker.
        """
        inset = float(options.get("corner_inset") or 0.0)
        target_box = geo.token_boxes[target.id]
        target_corners = geometry.inset_corners(target_box, inset)
        notes: list[str] = []
        source_box, source_elev, from_origin = attack_source(geo, attacker, target, attack)
        if from_origin:
            sources = np.array([source_box[:2]], dtype=np.float64)
        else:
            toward = geometry.box_centre(target_box)
            sources, total = square_corners(source_box, geo.scene.grid.size, inset, toward)
            if total > len(sources):
                notes.append(
                    f"SF-COV-1: the attacker's space has {total} square corners; the "
                    f"{len(sources)} nearest the target were tried."
                )
        others = [t.id for t in obstacle_tokens(geo, attacker, target, source_box)[0]]
        boxes = np.array([geo.token_boxes[t] for t in others], dtype=np.float64).reshape(-1, 4)
        wall_mask, low_notes = self._low_obstacles(geo, source_box, target_box)
        notes += low_notes
        segs = np.array([[*s, *t] for s in sources for t in target_corners], dtype=np.float64)
        elev = np.tile([source_elev, target.elevation], (len(segs), 1)).astype(np.float64)
        request = geometry.TraceRequest(
            segs, "move", elev, boxes, tuple(others), wall_mask, edge_blocks=True
        )
        inner = max(inset, geometry.DEFAULT_CORNER_INSET_PX)
        inner_source = (
            geometry.inset_box(source_box, inner)
            if attacker is not None and attack.kind != "area"
            else source_box
        )
        return _CoverPlan(
            inset=inset,
            source_box=source_box,
            target_box=target_box,
            sources=sources,
            target_corners=target_corners,
            request=request,
            notes=notes,
            elevations=(source_elev, target.elevation),
            inner_source=inner_source,
            inner_target=geometry.inset_box(target_box, inner),
        )

    def prefetch_cover(
        self,
        geo: SceneGeometry,
        pairs: list[tuple[Token | None, Token]],
        options: dict[str, Any],
        attack: Attack | None = None,
    ) -> None:
        """See ``service.rules.base.prefetch_planned_cover``."""
        prefetch_planned_cover(geo, self._plan, pairs, options, attack, ("move", "sight"))

    def _low_obstacles(
        self,
        geo: SceneGeometry,
        source_box: tuple[float, float, float, float],
        target_box: tuple[float, float, float, float],
    ) -> tuple[np.ndarray | None, list[str]]:
        """Mask of walls to trace: low obstacles apply only as SF-COV-5 says."""
        low = _low_walls(geo)
        if not low:
            return None, []
        grid = geo.scene.grid
        mask = np.ones(geo.walls.size, dtype=bool)
        notes = []
        reach_units = LOW_OBSTACLE_SQUARES * grid.distance
        t_poly = shapely.box(*target_box)
        s_poly = (
            shapely.box(*source_box)
            if source_box[0] != source_box[2]
            else shapely.Point(source_box[0], source_box[1])
        )
        for i in low:
            seg = shapely.LineString(geo.walls.coords[i].reshape(2, 2))
            d_target = shapely.distance(t_poly, seg) / grid.px_per_unit
            d_source = shapely.distance(s_poly, seg) / grid.px_per_unit
            if d_target > reach_units:
                mask[i] = False
                notes.append(
                    f"SF-COV-5: low obstacle {geo.walls.ids[i]} is over {reach_units:g} "
                    f"{grid.units} from the target: no cover from it."
                )
            elif d_source < d_target:
                mask[i] = False
                notes.append(
                    f"SF-COV-5: the attacker is closer to low obstacle {geo.walls.ids[i]} "
                    "than the target: ignored."
                )
        return mask, notes

    def _concealment(
        self,
        geo: SceneGeometry,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        source_box: tuple[float, float, float, float],
        sources: np.ndarray,
        target_corners: np.ndarray,
        options: dict[str, Any],
        rules: list[str],
    ) -> str:
        """Concealment from regions and conditions (SF-CON-1, -2, -5)."""
        if CONCEALED_CONDITIONS & set(target.conditions):
            rules.append("SF-CON-5")
            return "concealment"
        regions = [r for r in geo.scene.regions if r.concealment]
        if not regions:
            return "none"
        polys = [geometry.region_geometry(r.shape) for r in regions]
        target_box = geo.token_boxes[target.id]
        if attack.kind == "melee" and attacker is not None and adjacent(source_box, target_box):
            rules.append("SF-CON-2")
            space = shapely.box(*target_box)
            inside = any(shapely.covers(p, space) for p in polys)
            return "concealment" if inside else "none"
        rules.append("SF-CON-1")
        segs = np.array([[*s, *t] for s in sources for t in target_corners], dtype=np.float64)
        touched = geometry.segments_touch_regions(segs, polys).any(axis=1)
        per_corner = touched.reshape(len(sources), 4).any(axis=1)
        reading = options.get("concealment_corner") or "defender"
        hit = per_corner.any() if reading == "defender" else per_corner.all()
        return "concealment" if hit else "none"

    def _prone(
        self, geo: SceneGeometry, attacker: Token | None, target: Token, attack: Attack
    ) -> tuple[Modifier, ...]:
        """SF-PRN-1 modifiers, or SF-PRN-2 in zero gravity (no prone: weightless instead)."""
        out = []
        zero_g = geo.scene.environment.gravity == 0
        if "prone" in target.conditions and not zero_g:
            if attack.kind == "melee":
                out.append(Modifier("SF-PRN-1", "ac", -4, "target prone against a melee attack"))
            elif attack.kind == "ranged":
                out.append(Modifier("SF-PRN-1", "ac", 4, "target prone against a ranged attack"))
        if attacker is not None and "prone" in attacker.conditions and attack.kind == "melee":
            if not zero_g:
                out.append(Modifier("SF-PRN-1", "attack", -4, "attacker prone, melee attack"))
        if zero_g and (
            "prone" in target.conditions or (attacker and "prone" in attacker.conditions)
        ):
            out.append(
                Modifier(
                    "SF-PRN-2", "none", 0, "zero gravity: not prone but weightless (off-kilter)"
                )
            )
        return tuple(out)

    def vision(
        self, geo: SceneGeometry, observer: Token, target: Token, options: dict[str, Any]
    ) -> VisionResult:
        """See the module-level ``vision``."""
        return vision(geo, observer, target, options)

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before ``vision`` traces lines (GEO-6)."""
        return float(options.get("corner_inset") or geometry.DEFAULT_CORNER_INSET_PX)

    def flanking(
        self, geo: SceneGeometry, attacker: Token, ally: Token, target: Token
    ) -> tuple[bool, list[str], str]:
        """SF-FLK-1: whether ``attacker`` and ``ally`` flank ``target``.

        The line between the centres of a square of each (any square of a multi-square
        creature) must pass through opposite edges or opposite corners of the target's
        space; both must threaten the target (within reach, GEO-8 with alternating
        diagonals) and have reach above 0.

        Returns
        -------
        (bool, list of str, str)
            Flanking, rule ids, and the reason.
        """
        grid = geo.scene.grid
        tb = geo.token_boxes[target.id]
        for who in (attacker, ally):
            if who.reach <= 0:
                return False, ["SF-FLK-1"], f"{who.id} has 0 reach and cannot flank."
            dist = space_distance(
                geo.token_boxes[who.id], tb, grid.size, grid.distance, self.diagonals
            )
            if dist > who.reach:
                return (
                    False,
                    ["SF-FLK-1"],
                    (
                        f"{who.id} does not threaten {target.id} ({dist:g} {grid.units} > reach "
                        f"{who.reach:g})."
                    ),
                )
        for ca in _square_centres(geo.token_boxes[attacker.id], grid.size):
            for cb in _square_centres(geo.token_boxes[ally.id], grid.size):
                if _opposite_sides(ca, cb, tb):
                    return True, ["SF-FLK-1"], "The line between them crosses opposite sides."
        return False, ["SF-FLK-1"], "No line between their squares crosses opposite sides."


def _square_centres(
    box: tuple[float, float, float, float], size: float
) -> list[tuple[float, float]]:
    x0, y0, x1, y1 = box
    nx = max(1, math.ceil((x1 - x0) / size - 1e-9))
    ny = max(1, math.ceil((y1 - y0) / size - 1e-9))
    w = (x1 - x0) / nx
    h = (y1 - y0) / ny
    return [(x0 + (i + 0.5) * w, y0 + (j + 0.5) * h) for i in range(nx) for j in range(ny)]


def _opposite_sides(
    a: tuple[float, float], b: tuple[float, float], box: tuple[float, float, float, float]
) -> bool:
    """Whether segment a-b enters and leaves ``box`` through opposite edges or corners."""
    x0, y0, x1, y1 = box
    dx, dy = b[0] - a[0], b[1] - a[1]
    t_lo, t_hi = 0.0, 1.0
    for p, d, lo, hi in ((a[0], dx, x0, x1), (a[1], dy, y0, y1)):
        if d == 0:
            if not lo < p < hi:
                return False
            continue
        t1, t2 = (lo - p) / d, (hi - p) / d
        t_lo, t_hi = max(t_lo, min(t1, t2)), min(t_hi, max(t1, t2))
    if t_hi - t_lo <= 1e-9:
        return False

    def sides(t: float) -> set[str]:
        x, y = a[0] + t * dx, a[1] + t * dy
        eps = 1e-6
        out = set()
        if abs(x - x0) < eps:
            out.add("left")
        if abs(x - x1) < eps:
            out.add("right")
        if abs(y - y0) < eps:
            out.add("top")
        if abs(y - y1) < eps:
            out.add("bottom")
        return out

    enter, leave = sides(t_lo), sides(t_hi)
    return (
        ("left" in enter and "right" in leave)
        or ("right" in enter and "left" in leave)
        or ("top" in enter and "bottom" in leave)
        or ("bottom" in enter and "top" in leave)
    )


_CONCEALMENT_RANK = {"none": 0, "concealment": 1, "total": 2}


def vision(
    geo: SceneGeometry, observer: Token, target: Token, options: dict[str, Any]
) -> VisionResult:
    """What ``observer`` perceives of ``target`` under starfinder (SF-CON-1..6).

    Concealment comes from light (SF-CON-6: dim light 20 %, darkness total 50 %, none
    against darkvision within range; low-light vision treats dim light as normal), from
    line of effect without line of sight (SF-CON-4), from concealing regions along the corner
    lines (SF-CON-1, as for a ranged attack) and target conditions (SF-CON-5); several do not
    stack (SF-CON-3). Decision: an invisible target has total concealment unless the
    observer sees invisible (see invisibility, truesight or blindsight in range).

    Returns
    -------
    VisionResult
        ``concealment`` ``none|concealment|total`` and ``miss_chance`` 0/20/50.
    """
    from service.senses import perceive

    inset = RULESET.vision_inset(options)
    report = perceive(geo, observer, target, diagonals=RULESET.diagonals, inset=inset)
    senses = observer.senses
    sense = report.first_precise()
    rules: list[str] = []
    found = ["none"]
    dist = report.distance
    darkvision = senses.darkvision > 0 and dist <= senses.darkvision
    level = report.light.level
    if sense not in ("blindsight", "tremorsense", "truesight"):
        if level == "dim" and not (darkvision or senses.low_light_vision):
            found.append("concealment")
            rules.append("SF-CON-6")
        elif level == "dark" and not (darkvision and not report.light.magical_darkness):
            if not (senses.devils_sight > 0 and dist <= senses.devils_sight):
                found.append("total")
                rules.append("SF-CON-6")
        elif level in ("dim", "dark"):
            rules.append("SF-CON-6")
    if not report.line_of_sight:
        found.append("total")
        rules.append("SF-CON-4" if report.line_of_effect else "SF-COV-9")
    if report.invisible and sense is None:
        found.append("total")
        rules.append("SF-CON-5")
    source_box = geo.token_boxes[observer.id]
    toward = geometry.box_centre(geo.token_boxes[target.id])
    corners, _ = square_corners(source_box, geo.scene.grid.size, 0.0, toward)
    target_corners = geometry.inset_corners(geo.token_boxes[target.id], 0.0)
    found.append(
        RULESET._concealment(
            geo,
            observer,
            target,
            Attack("ranged"),
            source_box,
            corners,
            target_corners,
            options,
            rules,
        )
    )
    concealment = max(found, key=lambda c: _CONCEALMENT_RANK[c])
    if concealment != "none":
        rules.append("SF-CON-3")
    heard = sense is None and report.reaches["hearing"]
    return VisionResult(
        target=target.id,
        can_see=sense is not None,
        sense=sense if sense is not None else ("hearing" if heard else None),
        light=level,
        magical_darkness=report.light.magical_darkness,
        distance=dist,
        line_of_sight=report.line_of_sight,
        rules=tuple(dict.fromkeys(rules)),
        concealment=concealment,
        miss_chance=MISS_CHANCE[concealment],
        blockers=report.blockers,
    )


RULESET = Starfinder()
