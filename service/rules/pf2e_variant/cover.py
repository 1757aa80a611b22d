"""pf2e-variant cover (English seed ``pf2e-variant-en_003``): PV-COV-1..8 of ``shared/RULES.md``.

One line from the centre of the attacker's space (or an area's point of origin) to the
centre of the target's space: terrain that blocks the effect gives standard cover (greater
when the wall is marked ``extreme``), creatures give lesser cover (standard when two or more
sizes larger than both attacker and target). Degrees give levels of Advantage on defense.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.scene import BuiltScene
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.engine.walls import FloatArray
from service.geometry.measure import Measure, MeasuredBatch, WallChoice
from service.geometry.questions import ALL_WALLS
from service.model import SIZES, Token
from service.rules import selection
from service.rules.base import (
    Attack,
    CoverResult,
    OptionSpec,
    corner_inset,
    has_low_obstacles,
    rule_ids,
)
from service.rules.options import COMMON_CONDITIONS
from service.rules.pf2e_variant.vision import EXTRA_OPTIONS, SENSES, vision
from service.rules.planning import Asked, Plan, Sampling, WallChoices, plan_pairs
from service.rules.rulings import Ruling, rulings
from service.senses import SenseOrder

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

#: What an answer cites and says for the facts of its pair, in order (``rulings``).
RULINGS = (
    Ruling("from an area's origin", "PV-COV-7"),
    Ruling("from the best corner", "PV-COV-8"),
    Ruling("small terrain ignored", "PV-COV-8"),
    Ruling("much larger creature", "PV-COV-3"),
    Ruling(
        "only small terrain",
        "PV-COV-8",
        "Low obstacle {low}: small terrain, standard cover (PV-COV-2); none for a Large or "
        "larger target with ignore_small_terrain (PV-COV-8).",
    ),
    Ruling("no line of effect", "PV-COV-6", "No line of effect: the target cannot be targeted."),
    Ruling("took cover", "PV-COV-4", "Took cover: {before} -> {degree}."),
    Ruling(None, "PV-COV-1"),
    Ruling("can hide", "PV-COV-5"),
)

#: PV-COV-2: centre to centre; PV-COV-8's best corner: each attacker corner (inset by
#: ``corner_inset``, GEO-6) to the target's centre. The exact line between the spaces inset
#: by GEO-6's 0.5 px; an area's caster's from its whole space.
SAMPLING = {
    "center": Sampling(
        "centre",
        "centre",
        inner_follows_inset=True,  # GEO-6: corner_inset for every traced line, LoE too
        area_caster_whole=True,
    ),
    "best-corner": Sampling(
        "space corners",
        "centre",
        inner_follows_inset=True,  # GEO-6: corner_inset for every traced line, LoE too
        area_caster_whole=True,
    ),
}

#: Degrees that let the target Hide (PV-COV-5).
HIDING = ("standard", "greater")

#: What is measured: one line (or one per attacker corner) against walls and creatures
#: (PV-COV-2), and the exact line of effect (PV-COV-6).
MEASURE = Measure("move", exact=("move",))

#: ``LINE_DEGREE`` as indices into ``STEPS``.
STEP = {what: STEPS.index(degree) for what, degree in LINE_DEGREE.items()}

# ---------------------------------------------------------------------------- rules


def _line_ranks(
    built: BuiltScene, batch: MeasuredBatch, pairs: Sequence[tuple[Token | None, Token]]
) -> NDArray[np.int64]:
    """What each traced line meets, as the index into ``STEPS`` of its degree, shape (n,).

    ``LINE_DEGREE``: a wall (an ``extreme`` one) blocking it (PV-COV-2), else a creature
    (one two or more sizes larger than both the attacker and the target, PV-COV-3), else
    nothing. Only the blocked lines' blockers are read.
    """
    wall, creature = batch.wall_blocked, batch.creature_blocked & ~batch.wall_blocked
    rank = np.select([wall, creature], [STEP["wall"], STEP["creature"]], STEP["nothing"])
    for k in np.flatnonzero(wall).tolist() if built.extreme_walls else ():
        if not built.extreme_walls.isdisjoint(batch.wall_blockers[k]):
            rank[k] = STEP["extreme wall"]
    owner = np.repeat(np.arange(len(pairs)), np.diff(batch.rows))
    for k in np.flatnonzero(creature).tolist():
        largest = max(SIZES.index(t.size) for t in pairs[int(owner[k])] if t is not None)
        if any(_size(built, c) - largest >= 2 for c in batch.creature_blockers[k]):
            rank[k] = STEP["much larger creature"]
    return rank.astype(np.int64)


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
    conditions: frozenset[str] = COMMON_CONDITIONS
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
        return replace(MEASURE, blockers=detail or needed)

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
        how = SAMPLING[options.get("measure_from") or "center"]
        how = replace(how, inset=corner_inset(options))
        return plan_pairs(built, pairs, attack, "every", how, _small_terrain(built, pairs, options))

    def _best(self, asked: Asked) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Each pair's first line of least cover (PV-COV-8's best corner) and its step."""
        groups = selection.groups(asked.measured.rows, np.ones(len(asked.pairs), dtype=np.intp))
        return groups.weakest(_line_ranks(asked.built, asked.measured, asked.pairs))

    def cover_ranks(self, asked: Asked) -> NDArray[np.int64]:
        """Every pair's degree as its index in ``DEGREES`` (a matrix), from ``FINAL_DEGREE``.

        Its best line's degree (PV-COV-2, PV-COV-3, PV-COV-8); total without line of effect
        (PV-COV-6); one step more for a target that took cover (PV-COV-4).
        """
        _, step = self._best(asked)
        took = set(asked.options.get("take_cover") or ())
        took_cover = np.array([t.id in took for _, t in asked.pairs], dtype=np.intp)
        return FINAL_DEGREE[step, asked.measured.clear("move").astype(np.intp), took_cover]

    def covers(self, asked: Asked) -> list[CoverResult]:
        """Cover of every pair (PV-COV-1..8) from its measured lines.

        Returns
        -------
        list of CoverResult
            ``cover`` in ``none|lesser|standard|greater|total``, ``advantage_levels``
            from the table, ``can_hide`` (PV-COV-5), ``ac_bonus``/``save_bonus`` 0.
        """
        best, step = self._best(asked)
        loe = asked.measured.clear("move").tolist()
        return [
            self._result(asked, r, b, s, e)
            for r, (b, s, e) in enumerate(zip(best.tolist(), step.tolist(), loe, strict=True))
        ]

    def _result(self, asked: Asked, r: int, best: int, step: int, loe_clear: bool) -> CoverResult:
        """The answer of pair ``r``, whose line ``best`` gives the least cover.

        ``step``: that line's degree as an index into ``STEPS`` (``_line_ranks``).
        """
        built, batch, options, target = (
            asked.built,
            asked.measured,
            asked.options,
            asked.pairs[r][1],
        )
        k = int(batch.rows[r]) + best
        wall, creature = bool(batch.wall_blocked[k]), bool(batch.creature_blocked[k])
        low: list[int] = (
            batch[r].low_walls(best, built.walls) if wall and has_low_obstacles(built) else []
        )
        took = target.id in (options.get("take_cover") or ())
        degree = _final_degree(step, loe_clear, took)
        facts = {
            "from an area's origin": asked.plan.from_origin,
            "from the best corner": not asked.plan.from_origin
            and options.get("measure_from") == "best-corner",
            "small terrain ignored": bool(options.get("ignore_small_terrain"))
            and SIZES.index(target.size) >= LARGE_ENOUGH,
            "much larger creature": creature and not wall and STEPS[step] == "standard",
            # Only low obstacles (`cover: "low"`, or walls covering part of the band, GEO-5a)
            # block the line: small terrain, standard cover (PV-COV-2), PV-COV-8's ruling.
            "only small terrain": bool(low) and len(low) == len(batch.wall_blockers[k]),
            "no line of effect": not loe_clear,
            "took cover": loe_clear and took,
            "can hide": degree in HIDING,
        }  # fmt: skip
        values = {"low": ", ".join(built.walls.names(low)), "before": STEPS[step], "degree": degree}
        rules, notes = rulings(RULINGS, facts, values)
        levels = {**ADVANTAGE_LEVELS, **(options.get("advantage_levels") or {})}
        return CoverResult(
            target=target.id,
            cover=degree,
            ac_bonus=0 if degree != "total" else None,
            save_bonus=0 if degree != "total" else None,
            advantage_levels=0 if degree == "total" else int(levels[degree]),
            can_target=degree != "total",
            line_of_effect=loe_clear,
            rules=rule_ids(("PV-COV-2", *rules)),
            lines=batch[r].lines(built.walls, slice(best, best + 1)),
            notes=tuple(notes),
            can_hide=degree in (*HIDING, "total"),
        )

    #: See ``service.rules.pf2e_variant.vision.vision``.
    vision = staticmethod(vision)

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before vision traces lines (GEO-6)."""
        return corner_inset(options)


RULESET = Pf2eVariant()
