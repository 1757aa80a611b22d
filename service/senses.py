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
  not ``deafened``; ``senses.hearing`` ``None`` is unlimited range, 0 no hearing (as
  every sense of range 0, even toward a creature in the same space).
- A target or observer whose space lies wholly in heavy obscurement cannot be seen by
  sight-based senses (5E-VIS-1).
- GEO-9, one vocabulary for every ruleset: a region's ``concealment: true`` flag is light
  obscurement. A target whose space is only **partly** inside heavy obscurement is lightly
  obscured (``obscurement_at``): the part outside is seen, as GEO-5a reads a region that
  covers only part of a line's band. ``concealed_by`` lists the concealing regions (light
  or heavy obscurement, or the flag) that the centre line crosses or that overlap the
  target's space, for the rulesets that conceal along the line (PV-DET-6).
- A target with ``invisible`` is not invisible to an observer that sees invisible within
  range (``see_invisibility``, truesight): ``visible_to_observer`` (PV-DET-9, 5E-VIS-7).
- Light over the target is the light that shines for this observer (``service.lighting``:
  a private carried light shines only for its carrier).
- GM option ``magical_darkness_blocks_sight`` (Foundry v12's behaviour; off by default, as
  5E-VIS-4 reads darkness): magical darkness between the spaces blocks sight, darkvision
  and x-ray vision through it when every sampled line (inset corners and centre of each
  space, 25 lines) crosses it; devil's sight and truesight see through it.

References
----------
shared/RULES.md 5E-VIS-1..10, GEO-1, GEO-8; shared/API.md "Vision and detection".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.budget import HEX_CELL_UNITS, WorkBudget, vision_units
from service.engine.grids import (
    SMALL_FOOTPRINT,
    counting_box,
    diagonal_rule,
    hex_count,
    is_hex,
    space_distance_units,
    square_distances_units,
)
from service.engine.scene import BuiltScene, distinct_tokens
from service.engine.spaces import inset_box
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.engine.walls import WallIndex
from service.errors import OverBudget
from service.geometry.bands import region_meets, span_meets
from service.geometry.exact import (
    LineOfEffect,
    lines_of_effect,
    reversed_line,
    two_way_walls,
)
from service.geometry.measure import Blocker, sense_key, wall_blocker
from service.geometry.trace import trace
from service.lighting import (
    LightSample,
    has_private_light,
    in_span,
    light_over_token,
    shining_lights,
    silent_light_notes,
    token_sample_points,
)
from service.model import LIGHT_LEVELS, Light, Region, Token

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
    sees_invisible : bool
        The observer sees invisible creatures at this distance (``see_invisibility`` or
        truesight in range): for it the target is not invisible.
    concealed_by : tuple of str
        Ids of the concealing regions (GEO-9) that the centre line crosses or that overlap
        the target's space.
    notes : tuple of str
        What the GM options changed.
    blocked_by_region : bool
        Some blocker of the centre sight line is a region (the outline of heavy
        obscurement, 5E-VIS-2).
    """

    distance: float
    light: LightSample
    obscurement: str
    reaches: dict[str, bool]
    line_of_sight: bool
    line_of_effect: bool
    blockers: tuple[Blocker, ...] = ()
    invisible: bool = False
    sees_invisible: bool = False
    concealed_by: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    blocked_by_region: bool = False

    @property
    def visible_to_observer(self) -> bool:
        """The target is not invisible, or the observer sees invisible in range."""
        return not self.invisible or self.sees_invisible


@dataclass(frozen=True)
class SenseOrder:
    """Which sense a ruleset names as locating a target, in its order (API.md ``sense``).

    A ruleset's table: the first of ``precise`` that reaches is the answer's ``sense`` and
    the target is seen (``can_see``); else the first of ``imprecise`` that reaches locates
    it unseen; else nothing does (``None``).

    Attributes
    ----------
    precise : tuple of str
        Senses of ``PRECISE`` that see, in order.
    imprecise : tuple of str
        Senses that only locate, in order (``hearing`` last).
    """

    precise: tuple[str, ...] = PRECISE
    imprecise: tuple[str, ...] = ("hearing",)

    def located(self, reaches: Mapping[str, bool]) -> tuple[str | None, bool]:
        """``(sense, can_see)`` for one pair's ``SenseReport.reaches``."""
        for sense in self.precise:
            if reaches.get(sense):
                return sense, True
        for sense in self.imprecise:
            if reaches.get(sense):
                return sense, False
        return None, False

    def located_all(
        self, reaches: Mapping[str, NDArray[np.bool_]]
    ) -> tuple[list[str | None], list[bool]]:
        """``located`` for many pairs: ``reaches`` maps each sense to a (p,) bool column."""
        names = (*self.precise, *self.imprecise)
        size = len(next(iter(reaches.values())))
        pick = np.full(size, len(names), dtype=np.intp)
        for i in range(len(names) - 1, -1, -1):  # the first in order wins
            pick[reaches[names[i]]] = i
        table: list[str | None] = [*names, None]
        return [table[i] for i in pick.tolist()], (pick < len(self.precise)).tolist()


def distance_units(built: BuiltScene, a: Token, b: Token, diagonals: str) -> float:
    """Distance between two tokens' spaces in grid units, with elevation (GEO-8).

    ``service.engine.grids.space_distance_units`` on the scene's grid (squares, hexes or
    gridless ruler), with the scene's diagonal rule when it sets one, else ``diagonals``
    (the ruleset's default). The elevation difference is a third axis under the same rule.
    """
    grid = built.scene.grid
    rule = diagonal_rule(grid, diagonals)
    return space_distance_units(a, b, grid, built.token_boxes, rule)


def region_obscurement(region: Region) -> str | None:
    """GEO-9: a region's obscurement, ``concealment: true`` counting as ``light``."""
    if region.obscurement is not None:
        return region.obscurement
    return "light" if region.concealment else None


def _height_meets(built: BuiltScene, token: Token, region: Region) -> str:
    """How a region's height range meets a token's vertical extent (GEO-5, GEO-5a)."""
    span = region.elevation
    if span is None:
        return "covers"
    return span_meets(built.span(token), span.bottom, span.top)


def _wholly_inside(built: BuiltScene, token: Token, obscurement: str) -> bool:
    regions = [r for r in built.scene.regions if r.obscurement == obscurement]
    if not regions:
        return False
    space = shapely.box(*built.token_boxes[token.id])
    return any(
        shapely.covers(built.region_shapes[r.id], space)
        and _height_meets(built, token, r) == "covers"
        for r in regions
    )


def obscurement_at(built: BuiltScene, token: Token) -> str:
    """Obscurement of a token's space from regions (5E-VIS-1, GEO-9).

    | regions at the space (inset 0.5 px)                  | obscurement |
    | ---------------------------------------------------- | ----------- |
    | a heavy region covers the whole space                | ``heavy``   |
    | a heavy region covers only part of it                | ``light``   |
    | a light region, or a ``concealment`` one, overlaps it | ``light``   |
    | none                                                 | ``none``    |

    A space partly in dense fog is lightly obscured: the part outside is seen (as GEO-5a
    reads a region covering only part of a line's band). A region with a height range
    counts only where it meets the token's vertical extent, and at most as light where it
    covers only part of it (GEO-5, GEO-5a).
    """
    if not any(region_obscurement(r) for r in built.scene.regions):
        return "none"
    space = shapely.box(*inset_box(built.token_boxes[token.id], 0.5))
    worst = "none"
    for r in built.scene.regions:
        kind = region_obscurement(r)
        if kind and shapely.intersects(built.region_shapes[r.id], space):
            meets = _height_meets(built, token, r)
            if meets == "misses":
                continue
            if (
                kind == "heavy"
                and meets == "covers"
                and shapely.covers(built.region_shapes[r.id], space)
            ):
                return "heavy"
            worst = "light"
    return worst


def concealing_regions(
    built: BuiltScene, pairs: Sequence[tuple[Token, Token]]
) -> list[tuple[str, ...]]:
    """For each pair, the ids of the concealing regions (GEO-9) on its line or at its target.

    A region conceals when it has ``obscurement`` (light or heavy) or ``concealment``; it
    counts when the segment between the two spaces' centres crosses it or when it overlaps
    the target's space (inset 0.5 px) (PV-DET-6). A region with a height range that misses
    the pair's band (from the lower of the two creatures' bottoms to the higher of their
    tops) conceals nothing (GEO-5, GEO-5a).

    Cost: one vectorised shapely test per concealing region over all pairs.
    """
    regions = [r for r in built.scene.regions if region_obscurement(r)]
    if not regions or not pairs:
        return [()] * len(pairs)
    out: list[list[str]] = [[] for _ in pairs]
    lines = shapely.linestrings([[built.centre(o), built.centre(t)] for o, t in pairs])
    spaces = shapely.box(*np.array([inset_box(built.token_boxes[t.id], 0.5) for _, t in pairs]).T)
    for r in regions:
        shape = built.region_shapes[r.id]
        hit = shapely.intersects(shape, lines) | shapely.intersects(shape, spaces)
        for k in np.flatnonzero(hit).tolist():
            if not region_meets(r, built.span(pairs[k][0]), built.span(pairs[k][1])):
                continue
            out[k].append(r.id)
    return [tuple(ids) for ids in out]


def _sample_points(box: tuple[float, ...], inset: float) -> list[tuple[float, float]]:
    x0, y0, x1, y1 = inset_box(box, inset)
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1), ((x0 + x1) / 2, (y0 + y1) / 2)]


def magical_darkness_area(built: BuiltScene, elevations: tuple[float, float]) -> object | None:
    """Union of magical darkness (regions and darkness lights' outer discs), or ``None``.

    A region counts when its height range ``[bottom, top)`` holds either elevation (GEO-5);
    a darkness light is its full disc (walls are not subtracted). Only lights that shine
    for everyone count (``service.lighting``: ``on``, ``seen_by``).
    """
    parts = []
    elev = np.array(elevations, dtype=np.float64)
    for r in built.scene.regions:
        if r.magical_darkness and in_span(r.elevation, elev).any():
            parts.append(built.region_shapes[r.id])
    ppu = built.scene.grid.px_per_unit
    for light in built.scene.lights:
        outer = max(light.bright, light.dim)
        if light.darkness and light.on and light.seen_by == "everyone" and outer > 0:
            parts.append(shapely.Point(light.x, light.y).buffer(outer * ppu))
    return shapely.union_all(parts) if parts else None


def darkness_between(
    built: BuiltScene, observer: Token, target: Token, inset: float = DEFAULT_CORNER_INSET_PX
) -> bool:
    """Whether magical darkness lies across every sampled line between the two spaces.

    The lines join the inset corners and centre of each space (25 lines); a line counts as
    crossing when it meets the darkness area (``magical_darkness_area``).
    """
    area = magical_darkness_area(built, (observer.elevation, target.elevation))
    if area is None:
        return False
    a = _sample_points(built.token_boxes[observer.id], inset)
    b = _sample_points(built.token_boxes[target.id], inset)
    lines = shapely.linestrings([[p, q] for p in a for q in b])
    return bool(shapely.intersects(area, lines).all())


def perceive(
    built: BuiltScene,
    observer: Token,
    target: Token,
    *,
    diagonals: str = "equidistant",
    inset: float = DEFAULT_CORNER_INSET_PX,
    magical_darkness_blocks_sight: bool = False,
) -> SenseReport:
    """Which of ``observer``'s senses locate ``target``: ``perceive_all`` for one pair."""
    return perceive_all(
        built,
        [(observer, target)],
        diagonals=diagonals,
        inset=inset,
        magical_darkness_blocks_sight=magical_darkness_blocks_sight,
    )[0]


def perceive_all(
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    *,
    diagonals: str = "equidistant",
    inset: float = DEFAULT_CORNER_INSET_PX,
    budget: WorkBudget | None = None,
    magical_darkness_blocks_sight: bool = False,
) -> list[SenseReport]:
    """Which of each observer's senses locate each target (see the module docstring).

    The exact lines of all pairs (sight, effect, sound) are measured together, cheap centre
    lines first (``service.geometry.exact.lines_of_effect``); each target's light is sampled
    once; which senses reach is decided for all pairs at once (``_SenseColumns``).

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
    magical_darkness_blocks_sight : bool
        GM option (see the module docstring); default off.

    Returns
    -------
    list of SenseReport, one per pair in order.

    Raises
    ------
    OverBudget
        The request would pass ``budget``.

    Cost: O(pairs x walls near their centre lines), plus the exact search for pairs whose
    centre line is blocked, plus one light sample per distinct target. A pair and its
    reverse are measured once when the walls block alike both ways (``_exact_lines``).
    With ``budget``: ``VISION_PAIR_UNITS`` per pair are spent first (refused before any
    tracing), then the centre lines' tests, and ``SEARCH_UNITS`` per exact search with its
    tests (``service.engine.budget``).
    """
    if not pairs:
        return []
    cols = _SenseColumns.measure(
        built,
        pairs,
        diagonals,
        inset,
        budget,
        magical_darkness_blocks_sight,
        listed=True,
    )
    lines = cols.lines
    assert lines is not None
    box_o, box_t = cols.boxes[cols.rows[:, 0]], cols.boxes[cols.rows[:, 1]]
    concealed = concealing_regions(built, pairs)
    partial_fog = _fog_partly_on_line(built, box_o, box_t, cols.bands)
    # Each target's obscurement once; silent lights once per light sample.
    fog = {t.id: obscurement_at(built, t) for t in cols.tokens}
    silent = [
        silent_light_notes(built, token_sample_points(built, target, sources), who)
        for target, who, sources in cols.light_keys
    ]
    wall_names = _BlockerNames(built.sight)
    names = tuple(cols.reaches)
    reach_rows = zip(*(cols.reaches[s].tolist() for s in names), strict=True)
    darkness_note = (
        "Option magical_darkness_blocks_sight: magical darkness between them blocks sight "
        "and darkvision (devil's sight and truesight see through it)."
    )
    out = []
    for k, ((_, target), reached, by, fog_part, at) in enumerate(
        zip(pairs, reach_rows, concealed, partial_fog, cols.light_of.tolist(), strict=True)
    ):
        los = lines[0][k]
        blockers: tuple[Blocker, ...] = ()
        by_region = False
        if not los.clear:
            blockers, by_region = wall_names(los.blockers)
        obscurement = fog[target.id]
        if fog_part and obscurement == "none":
            obscurement = "light"
        notes = silent[at]
        if cols.darkened[k]:
            notes = (*notes, darkness_note)
        out.append(
            SenseReport(
                distance=cols.distance[k],
                light=cols.samples[at],
                obscurement=obscurement,
                reaches=dict(zip(names, reached, strict=True)),
                line_of_sight=los.clear,
                line_of_effect=bool(cols.clear[1, k]),
                blockers=blockers,
                invisible=bool(cols.invisible[k]),
                sees_invisible=bool(cols.sees_invisible[k]),
                concealed_by=by,
                notes=notes,
                blocked_by_region=by_region,
            )
        )
    return out


def locate_all(
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    order: SenseOrder,
    *,
    diagonals: str = "equidistant",
    inset: float = DEFAULT_CORNER_INSET_PX,
    budget: WorkBudget | None = None,
    magical_darkness_blocks_sight: bool = False,
) -> tuple[list[str | None], list[bool]]:
    """The sense that locates each target, and whether it sees it: a bare vision matrix.

    The same measurement and senses as ``perceive_all`` (same arguments and errors), read
    through a ruleset's ``order`` for all pairs at once, without a report per pair.

    Returns
    -------
    (senses, can_see) : two lists, one item per pair in order
        ``SenseOrder.located`` of each pair's senses.

    Cost: as ``perceive_all``'s measurement; no per-pair Python besides the two lists.
    """
    if not pairs:
        return [], []
    cols = _SenseColumns.measure(
        built, pairs, diagonals, inset, budget, magical_darkness_blocks_sight, listed=False
    )
    return order.located_all(cols.reaches)


#: ``_exact_lines``'s answer: each pair's lines (or ``None``) and whether each is clear.
_Lines = tuple[list[LineOfEffect] | None, NDArray[np.bool_]]


@dataclass(frozen=True)
class _SenseColumns:
    """Every pair's measured senses as columns (one row per pair, ``p`` pairs).

    Attributes
    ----------
    tokens : list of Token
        The pairs' distinct tokens; ``rows`` (p, 2) gives the observer's and the target's.
    boxes : ndarray (t, 4)
        Each token's space inset by the request's inset, px.
    bands : ndarray (p, 4)
        GEO-5a: observer bottom, target bottom, observer top, target top (grid units).
    distance : list of float (p,)
        Grid units (GEO-8).
    light_keys : list of (target, observer or None, lights)
        Each distinct light sample asked: the target, the observer whose private light
        shines there (else ``None``) and the lights shining; ``samples`` the same order.
    light_of : ndarray (p,)
        Each pair's row in ``samples``.
    clear : ndarray (3, p)
        Line of sight, line of effect, line for sound.
    lines : three lists of LineOfEffect, or None
        The same lines, measured (``listed``), else ``None``.
    reaches : dict of str to ndarray (p,) of bool
        Each sense of ``PRECISE`` and ``hearing``: whether it locates the target.
    invisible, sees_invisible, darkened : ndarray (p,) of bool
        The target is invisible; the observer sees invisible at this distance; the GM
        option ``magical_darkness_blocks_sight`` cut sight-based senses.
    """

    tokens: list[Token]
    rows: NDArray[np.intp]
    boxes: NDArray[np.float64]
    bands: NDArray[np.float64]
    distance: list[float]
    light_keys: list[tuple[Token, Token | None, list[Light]]]
    samples: list[LightSample]
    light_of: NDArray[np.intp]
    clear: NDArray[np.bool_]
    lines: tuple[list[LineOfEffect], ...] | None
    reaches: dict[str, NDArray[np.bool_]]
    invisible: NDArray[np.bool_]
    sees_invisible: NDArray[np.bool_]
    darkened: NDArray[np.bool_]

    @classmethod
    def measure(
        cls,
        built: BuiltScene,
        pairs: Sequence[tuple[Token, Token]],
        diagonals: str,
        inset: float,
        budget: WorkBudget | None,
        darkness_blocks: bool,
        *,
        listed: bool,
    ) -> _SenseColumns:
        """Measure every pair (``perceive_all``'s parameters; ``listed``: keep the lines)."""
        if budget is not None:  # issue 20: each pair's own work, counted before any tracing
            big = _big_hexes(built, pairs)
            own = vision_units(len(pairs), big)
            try:
                budget.afford(own)
            except OverBudget as exc:
                if big * HEX_CELL_UNITS < own / 2:
                    raise
                raise OverBudget(  # say what costs most: the footprints' distances
                    f"{exc} Most of it is the distances between tokens of more than "
                    f"{SMALL_FOOTPRINT} hexes (each pair compares their hexes): make them "
                    "smaller."
                ) from exc
            budget.spend(int(own))
        # Each token once (first seen): its inset space and its vertical extent, rows of
        # per-token arrays.
        tokens, rows = distinct_tokens(pairs)
        boxes = np.array([inset_box(built.token_boxes[t.id], inset) for t in tokens])
        extents = np.array([built.span(t) for t in tokens], dtype=np.float64).reshape(-1, 2)
        obs, tgt = rows[:, 0], rows[:, 1]
        # GEO-5a: each pair's band, from the observer's vertical extent to the target's.
        bands = np.column_stack(
            [extents[obs, 0], extents[tgt, 0], extents[obs, 1], extents[tgt, 1]]
        )
        # Sight, effect and sound through the same walls (same restrictions and thresholds,
        # same mask: a scene without windows, fog or low walls) are one measurement.
        known: dict[tuple[int, bytes, bytes | None], _Lines] = {}

        def exact(index: WallIndex, sense: str, mask: NDArray[np.bool_] | None) -> _Lines:
            key = (id(index), sense_key(index, sense), None if mask is None else mask.tobytes())
            if key not in known:
                known[key] = _exact_lines(
                    index,
                    sense,
                    mask,
                    boxes,
                    extents,
                    rows,
                    budget=budget,
                    density=built.density,
                    blockers=listed,  # the answer names what blocks the sight line
                    listed=listed,
                )
            return known[key]

        measured = (
            exact(built.sight, "sight", built.tall_mask(built.sight)),
            exact(built.walls, "move", built.tall_walls),
            exact(built.walls, "sound", None),
        )
        clear = np.stack([m[1] for m in measured])
        distance = _distances(built, pairs, diagonals, (tokens, rows))
        # Light over each target, once per target (and once per observer whose private
        # carried light shines only for itself).
        n = len(tokens)
        private = np.array([has_private_light(t) for t in tokens], dtype=bool)
        code = np.where(private[obs], (obs.astype(np.int64) + 1) * n + tgt, tgt)
        distinct, first, light_of = np.unique(code, return_index=True, return_inverse=True)
        seen = np.argsort(first)  # the distinct codes in the pairs' order
        public = shining_lights(built)  # gathered once: each gathering scans every token
        light_keys = []
        samples = []
        for c in distinct[seen].tolist():
            target, who = tokens[c % n], (tokens[c // n - 1] if c >= n else None)
            sources = public if who is None else shining_lights(built, who)
            light_keys.append((target, who, sources))
            samples.append(light_over_token(built, target, budget, who, sources))
        order = np.empty(len(distinct), dtype=np.intp)
        order[seen] = np.arange(len(distinct))
        light_of = order[light_of.reshape(-1)]
        level = np.array([LIGHT_CODE[s.level] for s in samples], dtype=np.int8)[light_of]
        magical = np.array([s.magical_darkness for s in samples], dtype=bool)[light_of]
        reaches, invisible, sees_invisible = _reaches(
            tokens,
            rows,
            np.asarray(distance, dtype=np.float64),
            level,
            magical,
            clear,
            np.array([_wholly_inside(built, t, "heavy") for t in tokens], dtype=bool),
        )
        darkened = np.zeros(len(pairs), dtype=bool)
        if darkness_blocks:
            darkened = _darkness_cuts(built, pairs, reaches, inset)
        return cls(
            tokens,
            rows,
            boxes,
            bands,
            distance,
            light_keys,
            samples,
            light_of,
            clear,
            tuple(m[0] for m in measured) if listed else None,  # type: ignore[misc]
            reaches,
            invisible,
            sees_invisible,
            darkened,
        )


def _symmetric(index: WallIndex, sense: str, mask: NDArray[np.bool_] | None) -> bool:
    """Whether every line through ``index`` for ``sense`` is blocked alike both ways.

    ``exact.two_way_walls`` with bands (the pairs' vertical extents): each wall that
    restricts ``sense`` (within ``mask``) is two-way (GEO-3), has no live threshold (GEO-4)
    and spans every height (GEO-5a); the exact line between two spaces (5E-LOE-2) is then
    the same from either space.
    """
    return two_way_walls(index, sense, mask, heights=True)


def _exact_lines(
    index: WallIndex,
    sense: str,
    mask: NDArray[np.bool_] | None,
    boxes: np.ndarray,
    extents: np.ndarray,
    rows: np.ndarray,
    *,
    budget: WorkBudget | None,
    density: object,
    blockers: bool = True,
    listed: bool = True,
) -> tuple[list[LineOfEffect] | None, NDArray[np.bool_]]:
    """``lines_of_effect`` of each pair, measuring each distinct question once.

    ``boxes`` (t, 4) px and ``extents`` (t, 2) grid units are each token's inset space and
    vertical extent; ``rows`` (p, 2) the observer's and the target's row of each pair. Pairs
    of the same two tokens ask the same question. When the walls block alike both ways
    (``_symmetric``), a pair and its reverse (B to A after A to B, as in a matrix) do too:
    the reverse takes the first one's answer, its witness turned round; what blocks its
    centre line is the same walls (sorted indices).

    Returns
    -------
    (lines, clear)
        Each pair's ``LineOfEffect`` (``None`` unless ``listed``), and whether each is
        clear, shape (p,).

    Cost: one ``lines_of_effect`` over the distinct questions (half a matrix's pairs).
    """
    n = np.int64(max(len(boxes), 1))
    code = rows[:, 0].astype(np.int64) * n + rows[:, 1]
    key = code
    if _symmetric(index, sense, mask):
        key = np.minimum(code, rows[:, 1].astype(np.int64) * n + rows[:, 0])
    _, first_of, inverse = np.unique(key, return_index=True, return_inverse=True)
    first = first_of[inverse.reshape(-1)]
    flipped = code != code[first]
    asked = first_of  # the first pair asking each question, in its own orientation
    ro, rt = rows[asked, 0], rows[asked, 1]
    # GEO-5a: each pair's band, from the observer's vertical extent to the target's.
    elev = np.column_stack([extents[ro, 0], extents[rt, 0], extents[ro, 1], extents[rt, 1]])
    found = lines_of_effect(
        index,
        boxes[ro],
        boxes[rt],
        sense,
        elevations=elev,
        wall_mask=mask,
        budget=budget,
        density=density,  # type: ignore[arg-type]
        blockers=blockers,
    )
    clear = np.array([line.clear for line in found], dtype=bool)[inverse.reshape(-1)]
    if not listed:
        return None, clear
    at = dict(zip(asked.tolist(), found, strict=True))
    out = []
    for j, turn in zip(first.tolist(), flipped.tolist(), strict=True):
        line = at[j]
        out.append(reversed_line(line) if turn and line.witness is not None else line)
    return out, clear


class _BlockerNames:
    """What blocks each list of wall indices of ``index`` (sorted, as traced), named once.

    Each wall is named once (its id and its identical copies, ``WallIndex.names``; a
    heavy-fog outline names its region: ``wall_blocker``), and each list once: a pair and
    its reverse share one measured list (``_exact_lines``).
    """

    def __init__(self, index: WallIndex) -> None:
        self.index = index
        self.walls: dict[int, tuple[Blocker, ...]] = {}
        self.lists: dict[int, tuple[list[int], tuple[Blocker, ...], bool]] = {}
        self.distinct: bool | None = None  # each wall one blocker of its own (see __call__)

    def _wall(self, w: int) -> tuple[Blocker, ...]:
        named = self.walls.get(w)
        if named is None:
            named = self.walls[w] = tuple(wall_blocker(n) for n in self.index.names([w]))
        return named

    def __call__(self, walls: list[int]) -> tuple[tuple[Blocker, ...], bool]:
        """The blockers named by ``walls``, and whether one of them is a region."""
        hit = self.lists.get(id(walls))
        if hit is not None and hit[0] is walls:
            return hit[1], hit[2]
        if self.distinct is None:  # no copies and no heavy-fog outline: nothing to merge
            # (the sight index lists the outlines after the first ``room_walls`` walls)
            index = self.index
            self.distinct = not index.copies and (
                index.room_walls is None or index.room_walls >= index.size
            )
        if self.distinct:
            known = self.walls
            named = tuple([(known.get(w) or self._wall(w))[0] for w in walls])
            region = False
        else:
            named = tuple(dict.fromkeys(b for w in walls for b in self._wall(w)))
            region = any(b.kind == "region" for b in named)
        self.lists[id(walls)] = (walls, named, region)  # the list is kept: its id stays its own
        return named, region


def _big_hexes(built: BuiltScene, pairs: Sequence[tuple[Token, Token]]) -> int:
    """The big footprints' hexes that ``_distances`` will compare, summed over the pairs.

    Footprints past ``SMALL_FOOTPRINT`` hexes count (``HEX_CELL_UNITS``); 0 off hexes.
    O(tokens + pairs), no footprint built.
    """
    grid = built.scene.grid
    if not is_hex(grid):
        return 0
    count: dict[str, int] = {}
    for pair in pairs:
        for tok in pair:
            if tok.id not in count:
                k = hex_count(tok, grid)
                count[tok.id] = k if k > SMALL_FOOTPRINT else 0
    return sum(count[a.id] + count[b.id] for a, b in pairs)


def _distances(
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    diagonals: str,
    rows: tuple[list[Token], NDArray[np.intp]],
) -> list[float]:
    """``distance_units`` of each pair (GEO-8), each unordered pair of tokens once.

    ``rows``: the pairs' distinct tokens and each pair's two rows among them (p, 2), as
    ``perceive_all`` found them. On squares and gridless scenes the distance between two
    spaces is the same both ways (the gap between them, the elevation difference taken
    whole); on hexes each order is measured (a large footprint is cut to the hexes nearest
    the other's).
    """
    grid = built.scene.grid
    rule = diagonal_rule(grid, diagonals)
    if grid.type == "square" and rule in ("equidistant", "alternating") and pairs:
        # Many pairs at once (issue 20): each token's counting box once, then arrays.
        tokens, ends = rows
        box = np.array(
            [counting_box(built.token_boxes[t.id], grid) for t in tokens], dtype=np.float64
        )
        z = np.array([t.elevation for t in tokens], dtype=np.float64)
        found = square_distances_units(box[ends[:, 0]], box[ends[:, 1]], z[ends], grid, rule)
        return [float(d) for d in found.tolist()]
    both_ways = not is_hex(grid)
    known: dict[tuple[str, str], float] = {}
    out = []
    for a, b in pairs:
        key = (b.id, a.id) if both_ways and b.id < a.id else (a.id, b.id)
        d = known.get(key)
        if d is None:
            d = known[key] = distance_units(built, a, b, diagonals)
        out.append(d)
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


#: Light levels as codes for the columns of ``_reaches`` (``service.model.LIGHT_LEVELS``).
LIGHT_CODE = {level: code for code, level in enumerate(LIGHT_LEVELS)}

#: The ranged senses of ``Senses`` read into columns, in this order.
_RANGES = (
    "see_invisibility",
    "truesight",
    "darkvision",
    "devils_sight",
    "blindsight",
    "tremorsense",
    "xray",
    "hearing",
)


def _reaches(
    tokens: list[Token],
    rows: NDArray[np.intp],
    dist: NDArray[np.float64],
    level: NDArray[np.int8],
    magical: NDArray[np.bool_],
    clear: NDArray[np.bool_],
    in_fog: NDArray[np.bool_],
) -> tuple[dict[str, NDArray[np.bool_]], NDArray[np.bool_], NDArray[np.bool_]]:
    """Which senses locate each target (the module docstring's rules), for all pairs.

    ``tokens`` and ``rows`` (p, 2) as ``_SenseColumns``; ``dist`` (p,) grid units;
    ``level`` (p,) ``LIGHT_CODE`` and ``magical`` (p,) over each target; ``clear`` (3, p):
    line of sight, of effect, for sound; ``in_fog`` (t,): heavy obscurement holds the
    token's whole space (5E-VIS-1).

    Returns
    -------
    reaches : dict of str to ndarray (p,) of bool
        Each sense of ``PRECISE``, then ``hearing``.
    invisible : ndarray (p,) of bool
        The target has the ``invisible`` condition.
    sees_invisible : ndarray (p,) of bool
        The observer sees invisible creatures at this distance (see invisibility or
        truesight in range).
    """
    obs, tgt = rows[:, 0], rows[:, 1]
    ranges = np.array(  # hearing ``None``: unlimited
        [
            [*(getattr(t.senses, s) for s in _RANGES[:-1]), _unlimited(t.senses.hearing)]
            for t in tokens
        ],
        dtype=np.float64,
    ).reshape(-1, len(_RANGES))[obs]
    flags = np.array(
        [
            (
                "blinded" in t.conditions,
                "deafened" in t.conditions,
                "invisible" in t.conditions,
                "flying" in t.conditions,
            )
            for t in tokens
        ],
        dtype=bool,
    ).reshape(-1, 4)
    elevation = np.array([t.elevation for t in tokens], dtype=np.float64)

    def within(sense: str) -> NDArray[np.bool_]:
        rng = ranges[:, _RANGES.index(sense)]
        return (rng > 0) & (dist <= rng)

    blinded, deafened = flags[obs, 0], flags[obs, 1]
    invisible = flags[tgt, 2]
    sees_invisible = within("see_invisibility")
    lit = (level >= LIGHT_CODE["dim"]) & ~magical
    truesight, darkvision, devils_sight = (
        within("truesight"),
        within("darkvision"),
        within("devils_sight"),
    )
    los, loe, sound = clear
    eyes_ok = ~blinded & ~(in_fog[obs] | in_fog[tgt]) & los
    visible = ~invisible | sees_invisible
    on_ground = ~flags[tgt, 3] & (elevation[tgt] <= np.maximum(0.0, elevation[obs]))
    reaches = {
        "sight": eyes_ok & visible & lit,
        "darkvision": eyes_ok & visible & darkvision & ~magical,
        "devils_sight": eyes_ok & visible & devils_sight,
        "truesight": eyes_ok & truesight,
        "blindsight": within("blindsight") & loe,
        "tremorsense": within("tremorsense") & on_ground,
        "xray": ~blinded & visible & within("xray") & (lit | darkvision & ~magical | devils_sight),
        "hearing": ~deafened & within("hearing") & sound,  # 0: cannot hear (``Senses``)
    }
    return reaches, invisible, sees_invisible | truesight


def _unlimited(rng: float | None) -> float:
    return np.inf if rng is None else rng


#: Senses that magical darkness between the spaces blocks under the GM option.
DARKNESS_BLOCKS = ("sight", "darkvision", "xray")


def _darkness_cuts(
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    reaches: dict[str, NDArray[np.bool_]],
    inset: float,
) -> NDArray[np.bool_]:
    """GM option ``magical_darkness_blocks_sight``: cut sight-based senses in ``reaches``.

    For each pair that some sense of ``DARKNESS_BLOCKS`` reaches and with magical darkness
    across every sampled line (``darkness_between``), those senses become ``False`` (in
    place). Returns which pairs were cut, shape (p,).
    """
    cut = np.zeros(len(pairs), dtype=bool)
    seen = np.logical_or.reduce([reaches[s] for s in DARKNESS_BLOCKS])
    for k in np.flatnonzero(seen).tolist():
        observer, target = pairs[k]
        cut[k] = darkness_between(built, observer, target, inset)
    for s in DARKNESS_BLOCKS:
        reaches[s] &= ~cut
    return cut
