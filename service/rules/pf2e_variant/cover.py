"""pf2e-variant cover (English seed ``pf2e-variant-en_003``): PV-COV-1..8 of ``shared/RULES.md``.

One line from the centre of the attacker's space (or an area's point of origin) to the
centre of the target's space: terrain that blocks the effect gives standard cover (greater
when the wall is marked ``extreme``), creatures give lesser cover (standard when two or more
sizes larger than both attacker and target). Degrees give levels of Advantage on defense.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.scene import BuiltScene
from service.engine.spaces import inset_box
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.engine.walls import FloatArray
from service.geometry import sampling
from service.geometry.measure import Measure, MeasuredBatch, WallChoice
from service.geometry.questions import ALL_WALLS, Box
from service.model import SIZES, Token
from service.rules import selection
from service.rules.base import (
    Attack,
    CoverResult,
    OptionSpec,
    VisionResult,
    corner_inset,
    has_low_obstacles,
    rule_ids,
)
from service.rules.pf2e_variant.vision import EXTRA_OPTIONS, SENSES, vision
from service.rules.planning import End, Plan, WallChoices, plan_pairs
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

#: The answer's notes.
NOTES = {
    "small_terrain": (
        "Low obstacle {names}: small terrain, standard cover (PV-COV-2); none for a Large or "
        "larger target with ignore_small_terrain (PV-COV-8)."
    ),
    "no_effect": "No line of effect: the target cannot be targeted.",
    "took_cover": "Took cover: {before} -> {degree}.",
}

#: Degrees that let the target Hide (PV-COV-5).
HIDING = ("standard", "greater")

# ---------------------------------------------------------------------------- rules


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


def _size(built: BuiltScene, token_id: str) -> int:
    """Size category index (``SIZES``) of a token of the scene."""
    return SIZES.index(built.scene.tokens[built.token_order[token_id]].size)


@dataclass
class _Lines:
    """The ends of the pairs (``planning.Ends``): the spaces' centres (PV-COV-2).

    ``best_corner`` (PV-COV-8): a source is the attacker's corners inset by ``inset`` px
    (GEO-6, exact corners beside) instead. An area's source is its point of origin
    (PV-COV-7). The exact line is searched between the spaces inset by GEO-6's 0.5 px (an
    area's source: its point of origin, or the caster's whole space).
    """

    built: BuiltScene
    best_corner: bool
    inset: float
    area: bool
    found: dict[tuple[str, str], End] = field(default_factory=dict)

    def token_end(self, token: Token, role: str) -> End:
        key = (token.id, role)
        if key not in self.found:
            box = self.built.token_boxes[token.id]
            if role == "source" and self.best_corner:
                self.found[key] = End(
                    sampling.space_corners(self.built, token, box, self.inset),
                    self._inner(box, role),
                    sampling.space_corners(self.built, token, box, 0.0),
                )
            else:
                self.found[key] = End(sampling.centre(box), self._inner(box, role))
        return self.found[key]

    def pair_source(self, attacker: Token | None, target: Token, origin: Box | None) -> End:
        assert origin is not None  # every token has its ends
        return End(sampling.origin(origin[:2]), origin)

    def _inner(self, box: Box, role: str) -> Box:
        if role == "source" and self.area:
            return box
        return inset_box(box, DEFAULT_CORNER_INSET_PX)


def _small_terrain(
    built: BuiltScene, pairs: Sequence[tuple[Token | None, Token]], options: dict[str, Any]
) -> Callable[[FloatArray], WallChoices] | None:
    """PV-COV-8's ``ignore_small_terrain``: Large or larger targets trace no low obstacle.

    Low obstacles set aside: ``cover: "low"`` walls and walls covering only part of the
    line's band (GEO-5a). ``None`` without the option.
    """
    if not options.get("ignore_small_terrain"):
        return None
    tall = WallChoice(built.tall_walls, low_obstacles=False)
    choice = [tall if SIZES.index(t.size) >= LARGE_ENOUGH else ALL_WALLS for _, t in pairs]
    return lambda _sources: WallChoices.of(choice)


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

    def cover_plan(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> Plan:
        """What ``covers`` traces for every pair (PV-COV-2, PV-COV-7, PV-COV-8).

        Raises
        ------
        RulesError
            An area attack without ``attack.origin`` and without an attacker.
        """
        best_corner = options.get("measure_from") == "best-corner"
        ends = _Lines(built, best_corner, corner_inset(options), attack.kind == "area")
        walls = _small_terrain(built, pairs, options)
        return plan_pairs(built, pairs, attack, "every", ends, walls)

    def _best(
        self,
        built: BuiltScene,
        measured: MeasuredBatch,
        pairs: Sequence[tuple[Token | None, Token]],
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Each pair's first line of least cover (PV-COV-8's best corner) and its step."""
        groups = selection.groups(measured.rows, np.ones(len(pairs), dtype=np.intp))
        return groups.weakest(_line_ranks(built, measured, pairs))

    def cover_ranks(
        self,
        built: BuiltScene,
        plan: Plan,
        measured: MeasuredBatch,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> NDArray[np.int64]:
        """Every pair's degree as its index in ``DEGREES`` (a matrix), from ``FINAL_DEGREE``.

        Its best line's degree (PV-COV-2, PV-COV-3, PV-COV-8); total without line of effect
        (PV-COV-6); one step more for a target that took cover (PV-COV-4).
        """
        _, step = self._best(built, measured, pairs)
        took = set(options.get("take_cover") or ())
        took_cover = np.array([t.id in took for _, t in pairs], dtype=np.intp)
        return FINAL_DEGREE[step, measured.clear("move").astype(np.intp), took_cover]

    def covers(
        self,
        built: BuiltScene,
        plan: Plan,
        measured: MeasuredBatch,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> list[CoverResult]:
        """Cover of every pair (PV-COV-1..8) from its measured lines.

        Returns
        -------
        list of CoverResult
            ``cover`` in ``none|lesser|standard|greater|total``, ``advantage_levels``
            from the table, ``can_hide`` (PV-COV-5), ``ac_bonus``/``save_bonus`` 0.
        """
        best, step = self._best(built, measured, pairs)
        table = {**ADVANTAGE_LEVELS, **(options.get("advantage_levels") or {})}
        took = set(options.get("take_cover") or ())
        loe = measured.clear("move").tolist()
        rules = self._rules(plan, options)
        return [
            self._result(built, rules(r, t), measured, r, t, b, s, e, table, took)
            for r, ((_, t), b, s, e) in enumerate(
                zip(pairs, best.tolist(), step.tolist(), loe, strict=True)
            )
        ]

    def _rules(self, plan: Plan, options: dict[str, Any]) -> Callable[[int, Token], list[str]]:
        """The rule ids of how pair r was measured, by ``(r, target)``.

        From an area's origin (PV-COV-7), from the best corner or without small terrain
        (PV-COV-8).
        """
        first = ["PV-COV-2"]
        if plan.from_origin:
            first.append("PV-COV-7")
        elif options.get("measure_from") == "best-corner":
            first.append("PV-COV-8")
        small = bool(options.get("ignore_small_terrain"))

        def rules(r: int, target: Token) -> list[str]:
            if small and SIZES.index(target.size) >= LARGE_ENOUGH:
                return [*first, "PV-COV-8"]
            return list(first)

        return rules

    def _result(
        self,
        built: BuiltScene,
        rules: list[str],
        batch: MeasuredBatch,
        r: int,
        target: Token,
        best: int,
        step: int,
        loe_clear: bool,
        table: dict[str, Any],
        took: set[str],
    ) -> CoverResult:
        """The answer of pair ``r`` whose line ``best`` gives the least cover.

        ``step``: that line's degree, as an index into ``STEPS`` (``_line_ranks``).
        """
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
            notes.append(NOTES["small_terrain"].format(names=", ".join(built.walls.names(low))))
        before, degree = degree, _final_degree(step, loe_clear, target.id in took)
        if not loe_clear:
            rules.append("PV-COV-6")
            notes.append(NOTES["no_effect"])
        elif target.id in took:
            rules.append("PV-COV-4")
            notes.append(NOTES["took_cover"].format(before=before, degree=degree))
        levels = 0 if degree == "total" else int(table[degree])
        rules.append("PV-COV-1")
        if degree in HIDING:
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
            can_hide=degree in (*HIDING, "total"),
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
