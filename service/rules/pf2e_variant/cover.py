"""pf2e-variant cover (English seed ``pf2e-variant-en_003``): PV-COV-1..8 of ``shared/RULES.md``.

One line from the centre of the attacker's space (or an area's point of origin) to the
centre of the target's space: terrain that blocks the effect gives standard cover (greater
when the wall is marked ``extreme``), creatures give lesser cover (standard when two or more
sizes larger than both attacker and target). Degrees give levels of Advantage on defense.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.scene import BuiltScene
from service.engine.spaces import inset_box
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.engine.walls import FloatArray
from service.geometry import sampling
from service.geometry.measure import Measure, Measured, MeasuredBatch, Question, QuestionBatch
from service.model import SIZES, Token
from service.rules.base import (
    Attack,
    CoverResult,
    OptionSpec,
    PlannedAsks,
    VisionResult,
    attack_source,
    corner_inset,
    cover_each,
    cover_through_covers,
    has_low_obstacles,
    pair_band,
    pair_tokens,
    plan_pairs,
    rule_ids,
    shared_space,
)
from service.rules.pf2e_variant.vision import EXTRA_OPTIONS, SENSES, vision
from service.senses import SenseOrder, SenseReport

# ---------------------------------------------------------------------------- tables

DEGREES = ("none", "lesser", "standard", "greater", "total")
STEPS = ("none", "lesser", "standard", "greater")

#: PV-COV-1 decision: levels of Advantage on defense per degree (overridable).
ADVANTAGE_LEVELS = {"none": 0, "lesser": 1, "standard": 2, "greater": 3}

#: ``ignore_small_terrain``: targets this size or larger get nothing from low walls.
LARGE_ENOUGH = SIZES.index("large")

OPTIONS = {
    "measure_from": OptionSpec(
        "center",
        "PV-COV-8: 'center' (PV-COV-2) or 'best-corner' (the attacker's corner giving the "
        "least cover, to the target's centre: leaning around a corner).",
        ("center", "best-corner"),
    ),
    "take_cover": OptionSpec([], "PV-COV-4: ids of targets that took cover (one step more)."),
    "ignore_small_terrain": OptionSpec(
        False, "PV-COV-8: low walls give no cover to Large or larger targets."
    ),
    "advantage_levels": OptionSpec(
        dict(ADVANTAGE_LEVELS), "PV-COV-1: levels of Advantage per degree (override any)."
    ),
    "corner_inset": OptionSpec(
        DEFAULT_CORNER_INSET_PX, "GEO-6: px corners move inward with 'best-corner'."
    ),
    "unnoticed": OptionSpec([], "PV-DET-5 (vision): ids of targets the observer has no idea of."),
    "was_observing": OptionSpec(
        [], "PV-DET-7 (vision): invisible targets the observer saw turn invisible (hidden)."
    ),
    **EXTRA_OPTIONS,  # GM options (service.rules.options) and this ruleset's vision ones
}


#: What a traced line meets -> degree: a full wall, an ``extreme`` wall (PV-COV-2), a creature,
#: a creature two or more sizes larger than both attacker and target (PV-COV-3).
LINE_DEGREE = {
    "wall": "standard",
    "extreme wall": "greater",
    "creature": "lesser",
    "much larger creature": "standard",
    "nothing": "none",
}

# ---------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class _Ask:
    """What one pf2e-variant cover question traces (``cover_asks``)."""

    question: Question
    rules: list[str]


class _Asks(PlannedAsks[_Ask]):
    """The asks of many pairs planned at once (``plan_pairs``), all with the same rules."""

    def __init__(
        self, questions: QuestionBatch, rules: list[str], shared: dict[int, Sequence[str]]
    ) -> None:
        super().__init__(questions, shared, lambda _r, q, _s: _Ask(q, rules))
        self.rules = rules


def _line_ranks(
    built: BuiltScene, batch: MeasuredBatch, pairs: Sequence[tuple[Token | None, Token]]
) -> NDArray[np.int64]:
    """What each traced line meets, as the index into ``STEPS`` of its degree, shape (n,).

    ``LINE_DEGREE``: a wall (an ``extreme`` one) blocking it (PV-COV-2), else a creature
    (one two or more sizes larger than both the attacker and the target, PV-COV-3), else
    nothing. Only the blocked lines' blockers are read.
    """
    rank = np.full(len(batch.wall_blocked), STEPS.index(LINE_DEGREE["nothing"]), dtype=np.int64)
    wall = batch.wall_blocked
    rank[wall] = STEPS.index(LINE_DEGREE["wall"])
    if built.extreme_walls:
        for k in np.flatnonzero(wall).tolist():
            if any(w in built.extreme_walls for w in batch.wall_blockers[k]):
                rank[k] = STEPS.index(LINE_DEGREE["extreme wall"])
    creature = batch.creature_blocked & ~wall
    rank[creature] = STEPS.index(LINE_DEGREE["creature"])
    if creature.any():
        owner = np.repeat(np.arange(len(pairs)), np.diff(batch.rows))
        for k in np.flatnonzero(creature).tolist():
            attacker, target = pairs[int(owner[k])]
            largest = max(
                [SIZES.index(target.size)] + ([SIZES.index(attacker.size)] if attacker else [])
            )
            if any(_size(built, c) - largest >= 2 for c in batch.creature_blockers[k]):
                rank[k] = STEPS.index(LINE_DEGREE["much larger creature"])
    return rank


def _final_degree(step: int, loe_clear: bool, took_cover: bool) -> str:
    """A pair's degree from its best line's ``STEPS`` index ``step``.

    Total without line of effect (PV-COV-6); one step more for a target that took cover
    (PV-COV-4).
    """
    if not loe_clear:
        return "total"
    if took_cover:
        return STEPS[min(step + 1, len(STEPS) - 1)]
    return STEPS[step]


#: ``_final_degree`` as a table of ``DEGREES`` indices: [step, line of effect, took cover].
FINAL_DEGREE = np.array(
    [
        [
            [DEGREES.index(_final_degree(k, bool(loe), bool(took))) for took in (0, 1)]
            for loe in (0, 1)
        ]
        for k in range(len(STEPS))
    ],
    dtype=np.int64,
)


def _best_lines(
    built: BuiltScene, batch: MeasuredBatch, pairs: Sequence[tuple[Token | None, Token]]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Each line's degree (``_line_ranks``) and each pair's first line of least cover.

    Returns the ranks over every line (n,) and the best line of each pair, counted from
    its first line (p,) (PV-COV-8's best corner).
    """
    counts = np.diff(batch.rows)
    rank = _line_ranks(built, batch, pairs)
    width = int(counts.max()) + 1
    local = np.arange(len(rank)) - np.repeat(batch.rows[:-1], counts)
    best = np.minimum.reduceat(rank * width + local, batch.rows[:-1]) % width
    return rank, best


def _size(built: BuiltScene, token_id: str) -> int:
    """Size category index (``SIZES``) of a token of the scene."""
    return SIZES.index(built.scene.tokens[built.token_order[token_id]].size)


class Pf2eVariant:
    """The ``pf2e-variant`` rule system."""

    id: str = "pf2e-variant"
    title: str = "Pathfinder 2e-like variant: lesser/standard/greater cover, levels of Advantage"
    cover_degrees: tuple[str, ...] = DEGREES
    options: dict[str, OptionSpec] = OPTIONS
    extra_capabilities: tuple[str, ...] = ("modifiers/range",)
    diagonals: str = "alternating"
    #: Which sense locates a target and whether it is seen (``service.senses.SenseOrder``).
    senses: SenseOrder = SENSES

    def cover_measure(
        self, built: BuiltScene, attack: Attack, options: dict[str, Any], detail: bool
    ) -> Measure:
        """One line (or one per attacker corner) against walls and creatures (PV-COV-2).

        A bare degree (a matrix) reads what blocks a line only where it can tell: an
        ``extreme`` wall (greater cover), a creature two or more sizes larger than some
        other (PV-COV-3), low obstacles; elsewhere the lines are traced without blockers.
        """
        sizes = {SIZES.index(t.size) for t in built.scene.tokens}
        needed = bool(built.extreme_walls) or has_low_obstacles(built)
        needed |= bool(sizes) and max(sizes) - min(sizes) >= 2
        return Measure("move", exact=("move",), blockers=detail or needed)

    def cover_asks(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> Sequence[_Ask]:
        """What ``cover`` traces for every pair (PV-COV-2, PV-COV-7, PV-COV-8).

        Lines, creatures, walls; each token's sample points are found once. Many token
        pairs are planned as one batch of arrays (``_planned``).

        Raises
        ------
        RulesError
            An area attack without ``attack.origin`` and without an attacker.
        """
        found: dict[tuple[str, float | None], FloatArray] = {}

        def points(token: Token, inset: float | None) -> FloatArray:
            """The space's centre (``inset`` None) or its corners inset by ``inset`` px."""
            key = (token.id, inset)
            if key not in found:
                box = built.token_boxes[token.id]
                found[key] = (
                    sampling.centre(box)
                    if inset is None
                    else sampling.space_corners(built, token, box, inset)
                )
            return found[key]

        planned = self._planned(built, pairs, attack, options, points)
        if planned is not None:
            return planned
        return [self._ask(built, a, t, attack, options, points) for a, t in pairs]

    def _planned(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
        points: Callable[[Token, float | None], FloatArray],
    ) -> _Asks | None:
        """``cover_asks`` of many token pairs as arrays: the questions of ``_ask``.

        ``None`` (plan pair by pair) for areas, ``ignore_small_terrain`` (a wall mask per
        target size), the cases of ``pair_tokens`` and sample points of different counts.
        """
        if attack.kind == "area" or options.get("ignore_small_terrain"):
            return None
        found = pair_tokens(built, pairs)
        if found is None:
            return None
        best_corner = options.get("measure_from") == "best-corner"
        centres = np.stack([points(tok, None) for tok in found.tokens])
        sources = centres
        exact = None
        if best_corner:
            inset = [points(tok, corner_inset(options)) for tok in found.tokens]
            uninset = [points(tok, 0.0) for tok in found.tokens]
            if len({p.shape for p in inset + uninset}) != 1:
                return None
            sources = np.stack(inset)
            exact = (np.stack(uninset), centres)
        inner = np.array(
            [inset_box(built.token_boxes[tok.id], DEFAULT_CORNER_INSET_PX) for tok in found.tokens],
            dtype=np.float64,
        ).reshape(-1, 4)
        questions, shared = plan_pairs(
            built, pairs, found, (sources, centres), "every", (inner, inner), exact
        )
        return _Asks(questions, ["PV-COV-8"] if best_corner else [], shared)

    def _ask(
        self,
        built: BuiltScene,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
        points: Callable[[Token, float | None], FloatArray],
    ) -> _Ask:
        """One pair of ``cover_asks``."""
        target_box = built.token_boxes[target.id]
        rules = []
        source_box, source_span, from_origin = attack_source(built, attacker, target, attack)
        exact_sources = None
        if from_origin:
            sources = sampling.origin(source_box[:2])
            rules.append("PV-COV-7")
        elif options.get("measure_from") == "best-corner":
            assert attacker is not None
            sources = points(attacker, corner_inset(options))
            exact_sources = points(attacker, 0.0)
            rules.append("PV-COV-8")
        else:
            assert attacker is not None
            sources = points(attacker, None)
        shared, excluded = shared_space(
            built, attacker, target, source_box, from_origin, source_span
        )
        wall_mask = None
        low_obstacles = True
        if options.get("ignore_small_terrain") and SIZES.index(target.size) >= LARGE_ENOUGH:
            # Low obstacles set aside: `cover: "low"` walls (None: there are none) and walls
            # covering only part of the line's band (GEO-5a).
            wall_mask = built.tall_walls
            low_obstacles = False
            rules.append("PV-COV-8")
        inner_source = (
            inset_box(source_box, DEFAULT_CORNER_INSET_PX)
            if attacker is not None and attack.kind != "area"
            else source_box
        )
        bottoms, tops = pair_band(source_span, target, built)
        target_centre = points(target, None)
        question = Question(
            sources,
            target_centre,
            "every",
            bottoms,
            inner_source,
            inset_box(target_box, DEFAULT_CORNER_INSET_PX),
            excluded,
            wall_mask,
            tops=tops,
            exact_points=None if exact_sources is None else (exact_sources, target_centre),
            low_obstacles=low_obstacles,
        )
        return _Ask(question, rules)

    def covers(
        self,
        built: BuiltScene,
        asks: Sequence[_Ask],
        measured: Sequence[Measured],
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> list[CoverResult]:
        """Cover of every pair (PV-COV-1..8), as ``cover``.

        What each line meets is ranked on arrays over all the pairs' lines (PV-COV-2,
        PV-COV-3); each pair keeps its first line of least cover (PV-COV-8's best corner).
        """
        batch = MeasuredBatch.of(measured)
        counts = np.diff(batch.rows)
        if not len(asks) or not counts.all():
            return cover_each(self, built, asks, measured, pairs, attack, options)
        rank, best = _best_lines(built, batch, pairs)
        table = {**ADVANTAGE_LEVELS, **(options.get("advantage_levels") or {})}
        took = set(options.get("take_cover") or ())
        loe = batch.clear("move").tolist()
        steps = rank[batch.rows[:-1] + best].tolist()
        return [
            self._result(built, ask, batch, r, a, t, int(best[r]), steps[r], loe[r], table, took)
            for r, (ask, (a, t)) in enumerate(zip(asks, pairs, strict=True))
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

        Its best line's degree (PV-COV-2, PV-COV-3, PV-COV-8); total without line of effect
        (PV-COV-6); one step more for a target that took cover (PV-COV-4).
        """
        counts = np.diff(measured.rows)
        if not len(asks) or not counts.all():
            found = self.covers(built, asks, measured, pairs, attack, options)
            return np.array([DEGREES.index(c.cover) for c in found], dtype=np.int64)
        rank, best = _best_lines(built, measured, pairs)
        step = rank[measured.rows[:-1] + best].astype(np.int64)
        took = set(options.get("take_cover") or ())
        took_cover = np.array([t.id in took for _, t in pairs], dtype=bool)
        return FINAL_DEGREE[
            step, measured.clear("move").astype(np.intp), took_cover.astype(np.intp)
        ]

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
        """Cover of ``target`` (PV-COV-1..8) from its measured lines.

        Returns
        -------
        CoverResult
            ``cover`` in ``none|lesser|standard|greater|total``, ``advantage_levels``
            from the table, ``can_hide`` (PV-COV-5), ``ac_bonus``/``save_bonus`` 0.
        """
        return cover_through_covers(self, built, ask, measured, attacker, target, attack, options)

    def _result(
        self,
        built: BuiltScene,
        ask: _Ask,
        batch: MeasuredBatch,
        r: int,
        attacker: Token | None,
        target: Token,
        best: int,
        step: int,
        loe_clear: bool,
        table: dict[str, Any],
        took: set[str],
    ) -> CoverResult:
        """The answer of pair ``r`` of ``batch`` whose line ``best`` gives the least cover.

        ``step``: that line's degree, as an index into ``STEPS`` (``_line_ranks``).
        """
        rules = ["PV-COV-2", *ask.rules]
        degree = STEPS[step]
        k = int(batch.rows[r]) + best
        wall, creature = bool(batch.wall_blocked[k]), bool(batch.creature_blocked[k])
        if creature and not wall and degree == "standard":
            rules.append("PV-COV-3")
        notes = []
        low: list[int] = []
        if wall and has_low_obstacles(built):
            low = batch[r].low_walls(best, built.walls)
        if low and len(low) == len(batch.wall_blockers[k]):
            # Only low obstacles (`cover: "low"`, or walls covering part of the band, GEO-5a)
            # block the line: small terrain, standard cover (PV-COV-2), PV-COV-8's ruling.
            rules.append("PV-COV-8")
            names = ", ".join(built.walls.names(low))
            notes.append(
                f"Low obstacle {names}: small terrain, standard cover (PV-COV-2); "
                "none for a Large or larger target with ignore_small_terrain (PV-COV-8)."
            )
        before, degree = degree, _final_degree(step, loe_clear, target.id in took)
        if not loe_clear:
            rules.append("PV-COV-6")
            notes.append("No line of effect: the target cannot be targeted.")
        elif target.id in took:
            rules.append("PV-COV-4")
            notes.append(f"Took cover: {before} -> {degree}.")
        levels = 0 if degree == "total" else int(table[degree])
        rules.append("PV-COV-1")
        if degree in ("standard", "greater"):
            rules.append("PV-COV-5")
        return CoverResult(
            target=target.id,
            cover=degree,
            ac_bonus=0 if degree != "total" else None,
            save_bonus=0 if degree != "total" else None,
            advantage_levels=levels,
            can_target=degree != "total",
            line_of_effect=loe_clear,
            rules=rule_ids(tuple(rules)),
            lines=batch[r].lines(built.walls, slice(best, best + 1)),
            notes=tuple(notes),
            can_hide=degree in ("standard", "greater", "total"),
        )

    def vision(
        self,
        built: BuiltScene,
        observer: Token,
        target: Token,
        report: SenseReport,
        options: dict[str, Any],
    ) -> VisionResult:
        """See ``service.rules.pf2e_variant.vision.vision``."""
        return vision(built, observer, target, report, options)

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before vision traces lines (GEO-6)."""
        return corner_inset(options)


RULESET = Pf2eVariant()
