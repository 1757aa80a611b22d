"""starfinder cover, concealment, flanking and prone (French seed ``starfinder-fr_000``).

Rules SF-COV-1..9, SF-CON-1..5, SF-FLK-1, SF-PRN-1/2 of ``shared/RULES.md``. Geometry
measures which corner lines cross (or run along) walls, creatures' spaces and concealing
regions; this module maps that to a degree, bonuses and a miss chance. Which low obstacles
may give cover (SF-COV-5) is ``service.rules.starfinder.obstacles``.

Decisions beyond RULES.md (also in ``OPTIONS`` and docs/decisions.md "starfinder"):

- Corner points are the exact corners (``corner_inset`` default 0 px, not GEO-6's 0.5): the
  seed's "runs along the edge of a blocking square or wall" is only meaningful on the exact
  grid lines, and a line touching a wall at its own end point still does not count (GEO-6).
- Total cover (SF-COV-9) is no line of effect through walls that restrict movement/effect;
  line of effect without line of sight (a wall that blocks sight only) is total
  concealment (SF-CON-4), as the seed defines it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.scene import BuiltScene
from service.engine.spaces import box_centre, inset_box
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.engine.walls import FloatArray
from service.geometry import sampling
from service.geometry.measure import Measure, Measured, MeasuredBatch, Question, QuestionBatch
from service.model import Token
from service.rules.base import (
    Attack,
    CoverResult,
    Modifier,
    OptionSpec,
    PlannedAsks,
    VisionResult,
    attack_source,
    cover_through_covers,
    has_low_obstacles,
    pair_band,
    pair_tokens,
    plan_pairs,
    rule_ids,
    shared_space,
)
from service.rules.starfinder.concealment import concealment, miss_chance_of
from service.rules.starfinder.flanking import DIAGONALS, flanking
from service.rules.starfinder.obstacles import low_obstacle_mask, low_walls, partial_obstacles
from service.rules.starfinder.vision import EXTRA_OPTIONS, SENSES, vision
from service.senses import SenseOrder, SenseReport

# ---------------------------------------------------------------------------- tables

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
LINE_NAME = {rank: name for name, rank in LINE_RANK.items()}

#: SF-PRN-1: the modifier for (who is prone, attack kind), the target's before the attacker's.
PRONE: dict[tuple[str, str], Modifier] = {
    ("target", "melee"): Modifier("SF-PRN-1", "ac", -4, "target prone against a melee attack"),
    ("target", "ranged"): Modifier("SF-PRN-1", "ac", 4, "target prone against a ranged attack"),
    ("attacker", "melee"): Modifier("SF-PRN-1", "attack", -4, "attacker prone, melee attack"),
}
#: SF-PRN-2: in zero gravity a prone target or attacker is weightless instead.
WEIGHTLESS = Modifier("SF-PRN-2", "none", 0, "zero gravity: not prone but weightless (off-kilter)")

#: Rule id of the degree a line gives, when it decides the answer.
DEGREE_RULE = {"soft": "SF-COV-6", "improved": "SF-COV-8"}

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
    **EXTRA_OPTIONS,  # GM options (service.rules.options) and this ruleset's vision ones
}

# ---------------------------------------------------------------------------- rules


class _Asks(PlannedAsks["_Ask"]):
    """The asks of many pairs planned at once (``plan_pairs``).

    ``plan(r)``: what ``_result`` reads of pair r's ask, without making its ``Question``.
    """

    def __init__(
        self,
        questions: QuestionBatch,
        shared: dict[int, Sequence[str]],
        make: Callable[[int, Question, Sequence[str]], _Ask],
        plan: Callable[[int], tuple[FloatArray, Any, FloatArray, list[str]]],
    ) -> None:
        super().__init__(questions, shared, make)
        self.plan = plan


def _padded(points: list[FloatArray]) -> FloatArray:
    """Per-token points (s_i, 2) stacked as (k, max s_i, 2), padded with NaN.

    The padding is never traced (``QuestionBatch.n_sources``).
    """
    most = max(len(p) for p in points)
    out = np.full((len(points), most, 2), np.nan)
    for i, p in enumerate(points):
        out[i, : len(p)] = p
    return out


@dataclass(frozen=True)
class _Ask:
    """What one Starfinder cover question traces (``Starfinder.cover_asks``)."""

    question: Question
    source_box: tuple[float, float, float, float]
    target_corners: np.ndarray
    notes: list[str]


def _line_ranks(built: BuiltScene, batch: MeasuredBatch, attack: Attack) -> NDArray[np.int64]:
    """What each traced line meets, as its ``LINE_RANK``, shape (n,) (SF-COV-1, SF-COV-6).

    A wall (improved if one of its blockers is, SF-COV-8), else a creature (soft cover, not
    against melee), else nothing.
    """
    wall = batch.wall_blocked
    rank = np.where(wall, LINE_RANK["cover"], LINE_RANK["none"]).astype(np.int64)
    if attack.kind != "melee":
        rank[batch.creature_blocked & ~wall] = LINE_RANK["soft"]
    improved = built.improved_walls | built.extreme_walls
    if improved:
        for j in np.flatnonzero(wall).tolist():
            if any(w in improved for w in batch.wall_blockers[j]):
                rank[j] = LINE_RANK["improved"]
    return rank


#: What ``_result`` reads of one pair's ask: its sources, source box, target corners and notes.
_Plan = tuple[FloatArray, Any, FloatArray, list[str]]


def _pairs_by_shape(
    asks: Sequence[_Ask], counts: list[int]
) -> tuple[dict[tuple[int, int], list[int]], Callable[[int], _Plan]]:
    """The pairs grouped by (attacker corners, lines), and each pair's ``_Plan``.

    ``counts``: the lines measured for each pair. A planned batch (``_Asks``) makes each
    pair's ask only for its answer: its attackers of different sizes (``n_sources``) are one
    group per number of corners.
    """
    shapes: dict[tuple[int, int], list[int]] = {}
    if isinstance(asks, _Asks):
        batch_of = asks.questions
        used = batch_of.n_sources
        if used is None:  # one shape
            shapes[(batch_of.sources.shape[1], counts[0] if counts else 0)] = list(range(len(asks)))
        else:  # attackers of different sizes: one shape per number of corners
            per = batch_of.targets.shape[1]
            for n in np.unique(used).tolist():
                shapes[(n, n * per)] = np.flatnonzero(used == n).tolist()
        return shapes, asks.plan
    plans = [(a.question.sources, a.source_box, a.target_corners, a.notes) for a in asks]
    for r, (sources, *_) in enumerate(plans):
        shapes.setdefault((len(sources), counts[r]), []).append(r)
    return shapes, plans.__getitem__


def _weakest_corners(
    rank: NDArray[np.int64],
    batch: MeasuredBatch,
    shapes: dict[tuple[int, int], list[int]],
    n_pairs: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Each pair's weakest attacker corner and its ``LINE_RANK`` (SF-COV-1), shapes (n,).

    A corner is as strong as the strongest of its lines (``rank``, from ``_line_ranks``);
    the attacker picks the weakest corner, the first of equals. One reduction per group of
    ``shapes`` (``_pairs_by_shape``); a pair without corners or lines keeps corner 0, none.
    """
    best = np.zeros(n_pairs, dtype=np.int64)
    degree = np.zeros(n_pairs, dtype=np.int64)
    for (n_sources, lines), members in shapes.items():
        if not n_sources or not lines:
            continue
        at = np.asarray(members, dtype=np.intp)
        idx = batch.rows[at][:, None] + np.arange(lines)
        per_corner = rank[idx].reshape(len(at), n_sources, lines // n_sources).max(axis=2)
        pick = np.argmin(per_corner, axis=1)  # the weakest corner, the first of equals
        best[at], degree[at] = pick, per_corner[np.arange(len(at)), pick]
    return best, degree


def _degree(
    line_rank: int,
    loe_clear: bool,
    partial: bool,
    attack: Attack,
    rules: list[str],
    notes: list[str],
) -> str:
    """The cover degree of one pair (SF-COV-1..4, 6..9); its rule ids and notes appended.

    ``line_rank``: its weakest corner's ``LINE_RANK``; ``partial``: the target is one of the
    GM's ``partial_cover``. No line of effect is total cover
    (SF-COV-9); the GM's ``partial_cover`` turns cover into partial (SF-COV-7); an area
    cancels any cover short of total (SF-COV-3).
    """
    degree = LINE_NAME[line_rank]
    if not loe_clear:
        degree = "total"
        rules.append("SF-COV-9")
        notes.append("No line of effect through the walls: total cover, cannot be attacked.")
    elif degree in DEGREE_RULE:
        rules.append(DEGREE_RULE[degree])
    if degree == "cover" and partial:
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
    return degree


class Starfinder:
    """The ``starfinder`` rule system."""

    id: str = "starfinder"
    title: str = "Starfinder (French seed): +4 cover, soft/partial/improved, 20/50 % miss chance"
    cover_degrees: tuple[str, ...] = DEGREES
    options: dict[str, OptionSpec] = OPTIONS
    extra_capabilities: tuple[str, ...] = ("modifiers/flanking",)
    diagonals: str = DIAGONALS
    #: Which sense locates a target and whether it is seen (``service.senses.SenseOrder``).
    senses: SenseOrder = SENSES

    def cover_measure(
        self, built: BuiltScene, attack: Attack, options: dict[str, Any], detail: bool
    ) -> Measure:
        """Corner lines (blocked along walls too, SF-COV-1), exact line of effect and sight.

        Line of sight is read only with line of effect (SF-CON-4; without it the cover is
        total, SF-COV-9), so it is measured only there; a bare degree (a matrix) traces the
        corner lines only for the pairs with line of effect (the others are total).
        """
        return Measure(
            "move",
            edge_blocks=True,
            exact=("move", "sight"),
            exact_when="always",
            after_effect=True,
            lines_with_effect=not detail,
            # A bare degree reads blockers only for improved walls (SF-COV-8) and low ones.
            blockers=detail
            or bool(built.improved_walls | built.extreme_walls)
            or has_low_obstacles(built),
        )

    def cover_asks(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> Sequence[_Ask]:
        """What ``cover`` traces for every pair (SF-COV-1, SF-COV-5).

        Corners, creatures, walls, spaces; each token's corners are found once. Many token
        pairs are planned as one batch of arrays (``_planned``).

        Raises
        ------
        RulesError
            An area attack without ``attack.origin`` and without an attacker.
        """
        inset = float(options.get("corner_inset") or 0.0)
        found: dict[tuple[str, str, float], tuple[FloatArray, int]] = {}

        def corners(kind: str, token: Token, d: float) -> tuple[FloatArray, int]:
            """``space_corners`` (``kind`` "space") or uncut ``every_corner`` ("every")."""
            key = (kind, token.id, d)
            if key not in found:
                box = built.token_boxes[token.id]
                if kind == "space":
                    found[key] = (sampling.space_corners(built, token, box, d), 0)
                else:
                    found[key] = sampling.every_corner(built, token, box, d)
            return found[key]

        planned = self._planned(built, pairs, attack, inset, corners)
        if planned is not None:
            return planned
        partial = partial_obstacles(built, pairs, attack)
        return [
            self._ask(built, attacker, target, attack, inset, corners, low)
            for (attacker, target), low in zip(pairs, partial, strict=True)
        ]

    def _planned(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        inset: float,
        corners: Callable[[str, Token, float], tuple[FloatArray, int]],
    ) -> _Asks | None:
        """``cover_asks`` of many token pairs as arrays: the questions of ``_ask``.

        ``None`` (plan pair by pair) for areas, scenes with low obstacles (SF-COV-5: a wall
        mask per pair) or walls of limited height (GEO-5a), attackers of more than
        ``sampling.MAX_SOURCE_CORNERS`` corners, targets of different corner counts (hexes),
        and the cases of ``pair_tokens``. Attackers of different sizes have different
        numbers of corners: their points are padded to the most (``QuestionBatch.n_sources``).
        """
        if attack.kind == "area" or low_walls(built) or built.heights:
            return None
        found = pair_tokens(built, pairs)
        if found is None:
            return None
        every = [corners("every", tok, inset) for tok in found.tokens]
        space = [corners("space", tok, inset)[0] for tok in found.tokens]
        if any(total > sampling.MAX_SOURCE_CORNERS for _, total in every):
            return None  # each pair cuts the attacker's corners to those nearest its target
        if len({p.shape for p in space}) != 1:
            return None
        count = np.array([len(p) for p, _ in every], dtype=np.intp)
        ragged = len(set(count.tolist())) > 1
        sources = _padded([p for p, _ in every])
        targets = np.stack(space)
        exact = None
        if inset > 0:  # GEO-6: what the inset corners came from
            exact = (
                _padded(
                    [
                        sampling.exact_points(p, corners("every", tok, 0.0)[0])
                        for (p, _), tok in zip(every, found.tokens, strict=True)
                    ]
                ),
                np.stack([corners("space", tok, 0.0)[0] for tok in found.tokens]),
            )
        inner = max(inset, DEFAULT_CORNER_INSET_PX)
        boxes = [built.token_boxes[tok.id] for tok in found.tokens]
        inner_boxes = np.array([inset_box(b, inner) for b in boxes], dtype=np.float64)
        questions, shared = plan_pairs(
            built,
            pairs,
            found,
            (sources, targets),
            "every",
            (inner_boxes, inner_boxes),
            exact,
            count if ragged else None,
        )
        a, t = found.ends[:, 0].tolist(), found.ends[:, 1].tolist()
        return _Asks(
            questions,
            shared,
            lambda r, question, _: _Ask(question, boxes[a[r]], space[t[r]], []),
            lambda r: (every[a[r]][0], boxes[a[r]], space[t[r]], []),
        )

    def _ask(
        self,
        built: BuiltScene,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        inset: float,
        corners: Callable[[str, Token, float], tuple[FloatArray, int]],
        low_obstacles: NDArray[np.bool_] | bool,
    ) -> _Ask:
        """One pair of ``cover_asks``; ``low_obstacles`` its ``partial_obstacles``."""
        target_box = built.token_boxes[target.id]
        target_corners = corners("space", target, inset)[0]
        notes: list[str] = []
        source_box, source_span, from_origin = attack_source(built, attacker, target, attack)
        if from_origin:
            sources = sampling.origin(source_box[:2])
        else:
            assert attacker is not None
            sources, total = corners("every", attacker, inset)
            if total > sampling.MAX_SOURCE_CORNERS:  # cut to the corners nearest this target
                toward = box_centre(target_box)
                sources, total = sampling.every_corner(built, attacker, source_box, inset, toward)
            if total > len(sources):
                notes.append(
                    f"SF-COV-1: the attacker's space has {total} square corners; the "
                    f"{len(sources)} nearest the target were tried."
                )
        shared, excluded = shared_space(
            built, attacker, target, source_box, from_origin, source_span
        )
        wall_mask, low_notes = low_obstacle_mask(built, source_box, target_box)
        notes += low_notes
        inner = max(inset, DEFAULT_CORNER_INSET_PX)
        inner_source = (
            inset_box(source_box, inner)
            if attacker is not None and attack.kind != "area"
            else source_box
        )
        bottoms, tops = pair_band(source_span, target, built)
        exact = None
        if inset > 0:  # GEO-6: what the inset corners came from
            exact_sources = sources
            if not from_origin:
                assert attacker is not None
                every, _ = corners("every", attacker, 0.0)
                exact_sources = sampling.exact_points(sources, every)
            exact = (exact_sources, corners("space", target, 0.0)[0])
        question = Question(
            sources,
            target_corners,
            "every",
            bottoms,
            inner_source,
            inset_box(target_box, inner),
            excluded,
            wall_mask,
            tops=tops,
            exact_points=exact,
            low_obstacles=low_obstacles,
        )
        return _Ask(question, source_box, target_corners, notes)

    def covers(
        self,
        built: BuiltScene,
        asks: Sequence[_Ask],
        measured: Sequence[Measured],
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> list[CoverResult]:
        """Cover and concealment of every pair, as ``cover``.

        What each line meets is ranked on arrays over all the pairs' lines; the weakest
        attacker corner of the pairs with the same numbers of lines by one reduction.
        """
        batch = MeasuredBatch.of(measured)
        shapes, plan_of = _pairs_by_shape(asks, np.diff(batch.rows).tolist())
        best, degree = _weakest_corners(_line_ranks(built, batch, attack), batch, shapes, len(asks))
        best_of, degree_of = best.tolist(), degree.tolist()
        loe_of, los_of = batch.clear("move").tolist(), batch.clear("sight").tolist()
        return [
            self._result(
                built,
                plan_of(r),
                batch,
                r,
                *pairs[r],
                attack,
                options,
                best_of[r],
                degree_of[r],
                loe_of[r],
                los_of[r],
            )
            for r in range(len(asks))
        ]

    def cover_ranks(
        self,
        built: BuiltScene,
        asks: Sequence[_Ask],
        measured: MeasuredBatch,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> NDArray[np.int64]:
        """Every pair's degree as its index in ``DEGREES`` (a matrix), as ``covers`` says.

        ``_degree`` tabulated once over its few inputs and read for every pair: the weakest
        corner's degree (SF-COV-1, 2, 4, 6, 8), total without line of effect (SF-COV-9),
        partial for the GM's ``partial_cover`` targets (SF-COV-7), none against an area short
        of total (SF-COV-3).
        """
        shapes, _ = _pairs_by_shape(asks, np.diff(measured.rows).tolist())
        _, line_rank = _weakest_corners(
            _line_ranks(built, measured, attack), measured, shapes, len(asks)
        )
        partial = set(options.get("partial_cover") or ())
        marked = np.array([t.id in partial for _, t in pairs], dtype=np.intp)
        table = np.array(  # ``_degree`` of every (corner rank, line of effect, partial)
            [
                [[DEGREES.index(_degree(k, bool(e), bool(p), attack, [], [])) for p in (0, 1)]
                 for e in (0, 1)]
                for k in range(len(LINE_NAME))
            ],
            dtype=np.int64,
        )  # fmt: skip
        return table[line_rank, measured.clear("move").astype(np.intp), marked]

    def cover(
        self,
        built: BuiltScene,
        ask: _Ask,
        measured: Measured,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
    ) -> CoverResult:
        """Cover and concealment of ``target`` (SF-COV-1..9, SF-CON-1..5, SF-PRN-1/2).

        ``melee`` ignores soft cover (SF-COV-6); ``area`` cancels cover (SF-COV-3).

        Returns
        -------
        CoverResult
            ``cover`` in ``none|partial|cover|soft|improved|total``; ``ac_bonus``/
            ``save_bonus`` (Reflex); ``concealment`` and ``miss_chance``; ``lines`` from the
            attacker's chosen corner; ``modifiers`` for prone creatures.
        """
        return cover_through_covers(self, built, ask, measured, attacker, target, attack, options)

    def _result(
        self,
        built: BuiltScene,
        plan: tuple[FloatArray, tuple[float, float, float, float], FloatArray, list[str]],
        batch: MeasuredBatch,
        r: int,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
        best: int,
        best_rank: int,
        loe_clear: bool,
        los_clear: bool,
    ) -> CoverResult:
        """The answer of pair ``r`` of ``batch``, whose weakest corner ``best`` it chose.

        ``plan``: its ask's sources, source box, target corners and notes (``_Ask``);
        ``best_rank``: that corner's degree as a ``LINE_RANK`` (none without corners).
        """
        sources, source_box, target_corners, ask_notes = plan
        k = len(target_corners)  # lines per attacker corner: 4, or 6 on hexes
        rules = ["SF-COV-1"]
        notes = list(ask_notes)
        partial = target.id in (options.get("partial_cover") or ())
        degree = _degree(best_rank, loe_clear, partial, attack, rules, notes)
        found = "none"
        if degree != "total":
            found = concealment(
                built,
                attacker,
                target,
                attack,
                source_box,
                lambda: (sources, target_corners),
                options,
                rules,
            )
            if loe_clear and not los_clear:
                found = "total"
                rules.append("SF-CON-4")
        if found != "none":
            rules.append("SF-CON-3")
        chance = miss_chance_of(found, options, rules)  # SF-CON-7: the GM's override
        # SF-COV-5: a low obstacle was weighed for this pair: a `cover: "low"` wall, or a
        # wall covering only part of a chosen line's band (GEO-5a).
        if any(n.startswith("SF-COV-5") for n in notes) or (
            has_low_obstacles(built)
            and any(batch[r].low_walls(j, built.walls) for j in range(k * best, k * best + k))
        ):
            rules.append("SF-COV-5")
        modifiers = self._prone(built, attacker, target, attack)
        rules.extend(m.rule for m in modifiers)
        ac, reflex = BONUS[degree]
        return CoverResult(
            target=target.id,
            cover=degree,
            ac_bonus=ac,
            save_bonus=reflex,
            advantage_levels=0,
            can_target=degree != "total",
            line_of_effect=loe_clear,
            rules=rule_ids(tuple(rules)),
            lines=batch[r].lines(built.walls, slice(k * best, k * best + k)),
            notes=tuple(notes),
            concealment=found,
            miss_chance=chance,
            modifiers=modifiers,
        )

    def _prone(
        self, built: BuiltScene, attacker: Token | None, target: Token, attack: Attack
    ) -> tuple[Modifier, ...]:
        """SF-PRN-1 modifiers (``PRONE``), or SF-PRN-2 in zero gravity (weightless instead)."""
        prone = {
            "target": "prone" in target.conditions,
            "attacker": attacker is not None and "prone" in attacker.conditions,
        }
        if built.scene.environment.gravity == 0:
            return (WEIGHTLESS,) if any(prone.values()) else ()
        return tuple(m for (who, kind), m in PRONE.items() if prone[who] and kind == attack.kind)

    def vision(
        self,
        built: BuiltScene,
        observer: Token,
        target: Token,
        report: SenseReport,
        options: dict[str, Any],
    ) -> VisionResult:
        """See ``service.rules.starfinder.vision.vision``."""
        return vision(built, observer, target, report, options)

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before vision traces lines (GEO-6)."""
        return float(options.get("corner_inset") or DEFAULT_CORNER_INSET_PX)

    def flanking(
        self, built: BuiltScene, attacker: Token, ally: Token, target: Token
    ) -> tuple[bool, list[str], str]:
        """See ``service.rules.starfinder.flanking.flanking`` (SF-FLK-1)."""
        return flanking(built, attacker, ally, target)


RULESET = Starfinder()
