"""What every rule system provides, and the result types they share (no Flask).

Measure, then rule: ``service.geometry`` measures (which traced segments are blocked and by
what); a rule system maps those measurements to a degree, bonuses and the rule ids applied.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Literal, Protocol, TypeVar

import numpy as np
import shapely
from numpy.typing import NDArray

from service.errors import RulesError
from service.geometry import TraceRequest, TraceResult, WallIndex
from service.model import Scene, Token

AttackKind = Literal["melee", "ranged", "area", "spell"]

#: Id prefix of the pseudo-walls outlining heavily obscured regions (sight only, 5E-VIS-2).
REGION_PREFIX = "\x00region:"


@dataclass(frozen=True)
class Attack:
    """The attack or effect being resolved.

    ``origin`` is the point of origin of an area effect in px (``kind == "area"``).
    """

    kind: AttackKind = "ranged"
    origin: tuple[float, float] | None = None


@dataclass(frozen=True)
class Blocker:
    """What blocked a traced line: ``kind`` ``"wall"``, ``"token"`` or ``"region"`` and its id."""

    kind: Literal["wall", "token", "region"]
    id: str


@dataclass(frozen=True)
class TracedLine:
    """One traced segment of an answer, in px, with what blocked it."""

    start: tuple[float, float]
    end: tuple[float, float]
    blocked: bool
    blockers: tuple[Blocker, ...] = ()


@dataclass(frozen=True)
class Modifier:
    """A situational modifier that comes with an answer (prone, gravity ...).

    ``applies_to`` names what it modifies (``"ac"``, ``"attack"``, ``"reflex"`` ...), ``value``
    is the signed bonus, ``rule`` the rule id and ``reason`` a short explanation.
    """

    rule: str
    applies_to: str
    value: int
    reason: str


@dataclass(frozen=True)
class CoverResult:
    """Cover of one target against one attacker or area origin (API.md "Cover").

    ``ac_bonus``/``save_bonus`` are ``None`` under total cover (the target cannot be
    targeted at all); ``save_bonus`` is the Dex save (dnd5e) or Reflex (starfinder) bonus.
    ``concealment`` (``none|concealment|total``) and ``miss_chance`` (0, 20, 50) are
    starfinder's (SF-CON-1..5); ``can_hide`` is pf2e-variant's (PV-COV-5); a ruleset that
    does not use a field leaves its neutral value.
    """

    target: str
    cover: str
    ac_bonus: int | None
    save_bonus: int | None
    advantage_levels: int
    can_target: bool
    line_of_effect: bool
    rules: tuple[str, ...]
    lines: tuple[TracedLine, ...] = ()
    notes: tuple[str, ...] = ()
    concealment: str = "none"
    miss_chance: int = 0
    can_hide: bool | None = None
    modifiers: tuple[Modifier, ...] = ()


@dataclass(frozen=True)
class VisionResult:
    """What one observer perceives of one target (API.md "Vision and detection").

    Every field is present for every ruleset; a ruleset leaves those it does not use at
    their neutral value (dnd5e: ``obscurement``, ``perception_disadvantage``; starfinder:
    ``concealment``, ``miss_chance``; pf2e-variant: ``detection``, ``concealed``,
    ``flat_check_dc``, ``off_guard``, ``save_disadvantage_levels``,
    ``auditory_flat_check_dc``). ``distance`` is in grid units (GEO-8).
    """

    target: str
    can_see: bool
    sense: str | None
    light: str
    magical_darkness: bool
    distance: float
    line_of_sight: bool
    rules: tuple[str, ...]
    obscurement: str = "none"
    perception_disadvantage: bool = False
    detection: str = "observed"
    concealed: bool = False
    flat_check_dc: int | None = None
    off_guard: bool = False
    save_disadvantage_levels: int = 0
    auditory_flat_check_dc: int | None = None
    concealment: str = "none"
    miss_chance: int = 0
    blockers: tuple[Blocker, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class OptionSpec:
    """A ruleset option: its default, allowed values (if a choice) and what it does."""

    default: Any
    description: str
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class SceneGeometry:
    """A scene with its built wall index; what the rule systems work on.

    ``tall_walls`` is the mask of walls that can block line of effect or sight: every wall
    but low obstacles (``cover: "low"``, about half a creature's height), which give cover
    but can be shot and seen over; ``None`` when the scene has no low wall.
    """

    scene: Scene
    walls: WallIndex
    token_boxes: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    tall_walls: NDArray[np.bool_] | None = None
    sight_walls: WallIndex | None = None
    region_shapes: dict[str, Any] = field(default_factory=dict)

    @property
    def sight(self) -> WallIndex:
        """Walls for sight: the scene's walls plus the outlines of heavily obscured regions.

        A line crossing into or out of heavy obscurement (fog, ink) loses sight (5E-VIS-2).
        """
        return self.sight_walls if self.sight_walls is not None else self.walls

    def tall_mask(self, index: WallIndex) -> NDArray[np.bool_] | None:
        """``tall_walls`` for ``index`` (``walls`` or ``sight``); pseudo-walls are tall."""
        if self.tall_walls is None:
            return None
        extra = index.size - len(self.tall_walls)
        return np.concatenate([self.tall_walls, np.ones(extra, dtype=bool)])


def wall_blocker(wall_id: str) -> Blocker:
    """The blocker for a wall id; heavy-fog outlines (pseudo-walls) name their region."""
    if wall_id.startswith(REGION_PREFIX):
        return Blocker("region", wall_id[len(REGION_PREFIX) :].rsplit(":", 1)[0])
    return Blocker("wall", wall_id)


def lines_from_trace(
    trace: TraceResult, walls: WallIndex, rows: slice = slice(None)
) -> tuple[TracedLine, ...]:
    """Turn the ``rows`` of a ``TraceResult`` into answer lines naming what blocks them."""
    out = []
    for k in range(len(trace.segments))[rows]:
        seg = trace.segments[k]
        blockers = tuple(wall_blocker(walls.ids[w]) for w in trace.wall_blockers[k])
        blockers += tuple(Blocker("token", t) for t in trace.creature_blockers[k])
        out.append(
            TracedLine(
                (float(seg[0]), float(seg[1])),
                (float(seg[2]), float(seg[3])),
                bool(trace.wall_blocked[k] or trace.creature_blocked[k]),
                blockers,
            )
        )
    return tuple(out)


class RuleSystem(Protocol):
    """A rule system: an id, its cover degrees and options, and the cover rule."""

    id: str
    title: str
    cover_degrees: tuple[str, ...]
    options: dict[str, OptionSpec]
    diagonals: str

    def cover(
        self,
        geo: SceneGeometry,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
    ) -> CoverResult:
        """Cover of ``target`` against ``attacker`` (or ``attack.origin`` for areas).

        Raises
        ------
        service.errors.RulesError
            When the request is well formed but cannot be answered.
        """
        ...

    def vision(
        self, geo: SceneGeometry, observer: Token, target: Token, options: dict[str, Any]
    ) -> VisionResult:
        """What ``observer`` perceives of ``target`` (API.md "Vision and detection")."""
        ...

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before ``vision`` traces lines (GEO-6)."""
        ...


def build_geometry(scene: Scene) -> SceneGeometry:
    """Build the ``SceneGeometry`` of ``scene`` (wall arrays + STRtree, token spaces in px)."""
    from service.geometry import build_wall_index, index_walls, region_edges, region_geometry
    from service.model import Span, Wall

    boxes = {t.id: t.box(scene.grid.size) for t in scene.tokens}
    tall = None
    covers = list(map(attrgetter("cover"), scene.walls))
    if "low" in covers:
        tall = np.array([cover != "low" for cover in covers], dtype=bool)
    shapes = {r.id: region_geometry(r.shape) for r in scene.regions}
    walls = build_wall_index(scene)
    sight = None
    fog = [r for r in scene.regions if r.obscurement == "heavy"]
    if fog:
        pseudo = list(scene.walls)
        for r in fog:
            height = Span(r.elevation.bottom, r.elevation.top) if r.elevation else None
            for k, c in enumerate(region_edges(r.id, shapes[r.id])):
                pseudo.append(
                    Wall(
                        f"{REGION_PREFIX}{r.id}:{k}",
                        c,
                        move="none",
                        sight="normal",
                        light="none",
                        sound="none",
                        height=height,
                    )
                )
        sight = index_walls(pseudo, scene.grid.px_per_unit)
    return SceneGeometry(scene, walls, boxes, tall, sight, shapes)


def corner_inset(options: dict[str, Any]) -> float:
    """The ``corner_inset`` option in px (GEO-6), default 0.5."""
    from service.geometry import DEFAULT_CORNER_INSET_PX

    value = options.get("corner_inset")
    return DEFAULT_CORNER_INSET_PX if value is None else float(value)


def space_distance(
    box_a: tuple[float, float, float, float],
    box_b: tuple[float, float, float, float],
    grid_size_px: float,
    grid_distance: float,
    diagonals: str,
) -> float:
    """Distance in grid units between two spaces (GEO-8).

    Counted between the nearest squares of the two spaces, as a move would count them:
    adjacent spaces are one square (e.g. 5 ft) apart, overlapping spaces 0. Diagonals:
    ``equidistant`` (5-5-5), ``alternating`` (5-10-5: every second diagonal costs two
    squares) or ``euclidean``.

    Parameters
    ----------
    box_a, box_b : (x0, y0, x1, y1) px
    grid_size_px : float
        Pixels per square.
    grid_distance : float
        Grid units per square.
    diagonals : str
    """

    def squares(lo_a: float, hi_a: float, lo_b: float, hi_b: float) -> float:
        gap = max(lo_b - hi_a, lo_a - hi_b)
        if gap < 0:
            return 0.0
        return math.ceil(gap / grid_size_px - 1e-9) + 1.0

    dx = squares(box_a[0], box_a[2], box_b[0], box_b[2])
    dy = squares(box_a[1], box_a[3], box_b[1], box_b[3])
    if diagonals == "euclidean":
        return math.hypot(dx, dy) * grid_distance
    diag, straight = min(dx, dy), abs(dx - dy)
    if diagonals == "alternating":
        return (straight + diag + math.floor(diag / 2)) * grid_distance
    return (straight + diag) * grid_distance


def boxes_overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two boxes ``x0, y0, x1, y1`` (px) share interior area (5E-COV-7, GEO-7).

    A degenerate box (an area effect's point of origin) overlaps a space that holds it,
    edges included: the creature at the origin gives no cover from its own effect.
    """
    if a[0] == a[2] or a[1] == a[3] or b[0] == b[2] or b[1] == b[3]:
        return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _centre_point(geo: SceneGeometry, token: Token) -> tuple[float, float]:
    from service.geometry import box_centre

    return box_centre(geo.token_boxes[token.id])


def local_gravity(geo: SceneGeometry, token: Token) -> float:
    """Gravity X at a token's centre (5E-GRV-1..6 from the scene).

    The last region with ``gravity`` holding the centre, else ``environment.gravity``.
    """
    x, y = _centre_point(geo, token)
    gravity = geo.scene.environment.gravity
    for region in geo.scene.regions:
        if region.gravity is not None and shapely.intersects_xy(geo.region_shapes[region.id], x, y):
            gravity = region.gravity
    return gravity


def in_water(geo: SceneGeometry, token: Token) -> bool:
    """Whether a token's centre is under water (5E-UW-1..9 from the scene).

    ``environment.underwater``, or a ``water`` region holding the centre (within the region's
    elevation range when it has one).
    """
    if geo.scene.environment.underwater:
        return True
    x, y = _centre_point(geo, token)
    for region in geo.scene.regions:
        if region.water and shapely.intersects_xy(geo.region_shapes[region.id], x, y):
            span = region.elevation
            if span is None or span.low <= token.elevation <= span.high:
                return True
    return False


def scene_modifiers(
    geo: SceneGeometry, attacker: Token | None, target: Token, attack: Attack
) -> tuple[Modifier, ...]:
    """Modifiers the scene's environment gives an attack (dnd5e seed, issue 5).

    - 5E-GRV-3: levels of disadvantage on weapon attacks for an attacker in gravity X >= 2
      whose Strength modifier is below X; 5E-GRV-4: levels on the target's Dexterity save.
    - 5E-UW-9: a ranged attack across a water surface (one in water, the other not) has
      disadvantage unless the attacker has blindsight or truesight.
    """
    from service.rules.dnd5e.gravity import disadvantage_levels

    out: list[Modifier] = []
    if attacker is not None and attack.kind in ("melee", "ranged"):
        x = local_gravity(geo, attacker)
        if x >= 2:
            levels = disadvantage_levels(x, attacker.abilities.str)
            if levels:
                out.append(
                    Modifier(
                        "5E-GRV-3",
                        "attack_disadvantage_levels",
                        levels,
                        f"attacker in gravity {x:g}, Str {attacker.abilities.str:+d}",
                    )
                )
    x_t = local_gravity(geo, target)
    if x_t >= 2:
        levels = disadvantage_levels(x_t, target.abilities.dex)
        if levels:
            out.append(
                Modifier(
                    "5E-GRV-4",
                    "dex_save_disadvantage_levels",
                    levels,
                    f"target in gravity {x_t:g}, Dex {target.abilities.dex:+d}",
                )
            )
    if attacker is not None and attack.kind in ("ranged", "spell"):
        if in_water(geo, attacker) != in_water(geo, target):
            senses = attacker.senses
            if not (senses.blindsight > 0 or senses.truesight > 0):
                out.append(
                    Modifier(
                        "5E-UW-9",
                        "attack_disadvantage_levels",
                        1,
                        "ranged attack across the water surface (refraction)",
                    )
                )
    return tuple(out)


def attack_source(
    geo: SceneGeometry, attacker: Token | None, target: Token, attack: Attack
) -> tuple[tuple[float, float, float, float], float, bool]:
    """Where an attack comes from, for the three rulesets' cover.

    Returns
    -------
    box : (x0, y0, x1, y1) px
        An area's point of origin as a box of no size when it has one, else the attacker's
        space.
    elevation : float
        Grid units: the attacker's, else the target's.
    from_origin : bool
        Whether ``box`` is the area's point of origin.

    Raises
    ------
    RulesError
        An area attack without ``attack.origin`` and without an attacker (path ``attack``).
    """
    elevation = attacker.elevation if attacker is not None else target.elevation
    if attack.kind == "area" and attack.origin is not None:
        return (*attack.origin, *attack.origin), elevation, True
    if attacker is not None:
        return geo.token_boxes[attacker.id], elevation, False
    raise RulesError("An area attack needs attack.origin or an attacker.", ("attack",))


def obstacle_tokens(
    geo: SceneGeometry,
    attacker: Token | None,
    target: Token,
    source_box: tuple[float, ...],
) -> tuple[list[Token], list[str]]:
    """Creatures that can block a cover line (GEO-7), and those sharing a space.

    Every token but the attacker and the target; one sharing the target's or the source's
    space (or holding an area's point of origin) gives no cover (5E-COV-7) and is listed
    apart by id.
    """
    target_box = geo.token_boxes[target.id]
    obstacles: list[Token] = []
    shared: list[str] = []
    for tok in geo.scene.tokens:
        if tok.id == target.id or (attacker is not None and tok.id == attacker.id):
            continue
        box = geo.token_boxes[tok.id]
        if boxes_overlap(box, target_box) or boxes_overlap(box, source_box):
            shared.append(tok.id)
        else:
            obstacles.append(tok)
    return obstacles, shared


class CoverPlan(Protocol):
    """What a ruleset's ``_plan`` gives for one cover question (``prefetch_planned_cover``)."""

    @property
    def request(self) -> TraceRequest:
        """The corner lines ``cover`` traces."""
        ...

    @property
    def elevations(self) -> tuple[float, float]:
        """Elevation of source and target, grid units."""
        ...

    @property
    def inner_source(self) -> tuple[float, ...]:
        """Source space inset for line of effect, px."""
        ...

    @property
    def inner_target(self) -> tuple[float, ...]:
        """Target space inset for line of effect, px."""
        ...


PlanT = TypeVar("PlanT", bound=CoverPlan)


def prefetch_planned_cover(
    geo: SceneGeometry,
    plan: Callable[[SceneGeometry, Token | None, Token, Attack, dict[str, Any]], CoverPlan],
    pairs: list[tuple[Token | None, Token]],
    options: dict[str, Any],
    attack: Attack | None,
    senses: tuple[str, ...],
) -> None:
    """Trace ahead what ``cover`` traces for each ``(attacker, target)`` pair (issue 7).

    Inside ``geometry.batch()``: every pair's planned lines in one vectorised call per kind,
    then the centre lines between the inner spaces for each of ``senses`` (line of effect,
    and line of sight for Starfinder). ``cover`` with the same ``attack`` (default ranged)
    then answers the same from them. A question ``plan`` refuses is left to ``cover``.
    """
    from service import geometry

    attack = attack or Attack()
    try:
        plans = [
            planned(plan, geo, a, t, attack, options) for a, t in pairs if a is None or a.id != t.id
        ]
    except RulesError:
        return
    if not plans:
        return
    geometry.prefetch_traces(geo.walls, [p.request for p in plans])
    source = np.array([p.inner_source for p in plans], dtype=np.float64)
    target = np.array([p.inner_target for p in plans], dtype=np.float64)
    elevations = np.array([p.elevations for p in plans], dtype=np.float64)
    for sense in senses:
        geometry.prefetch_centre_lines(
            geo.walls, source, target, sense, elevations=elevations, wall_mask=geo.tall_walls
        )


def planned(
    plan: Callable[[SceneGeometry, Token | None, Token, Attack, dict[str, Any]], PlanT],
    geo: SceneGeometry,
    attacker: Token | None,
    target: Token,
    attack: Attack,
    options: dict[str, Any],
) -> PlanT:
    """``plan(geo, attacker, target, attack, options)``, made once per pair in a batch.

    Inside ``geometry.batch()`` the plan that ``prefetch_planned_cover`` made is reused, so a
    matrix plans each pair once, not twice; elsewhere this just calls ``plan``.
    """
    from service import geometry

    memo = geometry.batch_memo()
    if memo is None:
        return plan(geo, attacker, target, attack, options)
    key = (
        "plan",
        getattr(plan, "__qualname__", id(plan)),
        id(geo),
        None if attacker is None else attacker.id,
        target.id,
        attack,
        id(options),
    )
    if key not in memo:
        memo[key] = plan(geo, attacker, target, attack, options)
    return memo[key]  # type: ignore[no-any-return]
