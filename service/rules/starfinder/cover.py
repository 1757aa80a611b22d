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

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.scene import BuiltScene
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.geometry.measure import Measure, MeasuredBatch
from service.model import Token
from service.rules import selection
from service.rules.base import (
    Attack,
    CoverResult,
    Modifier,
    OptionSpec,
    has_low_obstacles,
    rule_ids,
)
from service.rules.options import COMMON_CONDITIONS
from service.rules.planning import Asked, Plan, Sampling, plan_pairs
from service.rules.rulings import Ruling, rulings
from service.rules.starfinder.concealment import CONCEALED_CONDITIONS, cover_concealment
from service.rules.starfinder.flanking import DIAGONALS, flanking
from service.rules.starfinder.obstacles import chosen_line_notes, wall_choices
from service.rules.starfinder.vision import EXTRA_OPTIONS, SENSES, sensed_all, vision
from service.senses import SenseOrder

# ---------------------------------------------------------------------------- tables

#: GEO-12: the token conditions starfinder reads (SF-CON-5's besides the common ones).
CONDITIONS = COMMON_CONDITIONS | CONCEALED_CONDITIONS

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

#: What an answer cites and says for the facts of its degree, in order (``rulings``).
DEGREE_RULINGS = (
    Ruling(
        "no line of effect",
        "SF-COV-9",
        "No line of effect through the walls: total cover, cannot be attacked.",
    ),
    Ruling("soft", "SF-COV-6"),
    Ruling("improved", "SF-COV-8"),
    Ruling("partial", "SF-COV-7"),
    Ruling(
        "spread over cover", note="Measured {measured} from the origin; spread effects cancel it."
    ),
    Ruling("spread", "SF-COV-3"),
    Ruling("covering", "SF-COV-2"),
    Ruling(
        "covering", "SF-COV-4", "Cover: the attacker cannot make attacks of opportunity against it."
    ),
)

#: SF-COV-1: every corner of the attacker's squares to each corner of the target's space,
#: inset by ``corner_inset`` (exact corners, 0, by default); the exact line between the
#: spaces inset by at least GEO-6's 0.5 px, an area's caster's from its whole space.
SAMPLING = Sampling(
    "every corner",
    "space corners",
    exact="when inset",
    inner_inset=DEFAULT_CORNER_INSET_PX,
    area_caster_whole=True,
    cut_note=(
        "SF-COV-1: the attacker's space has {total} square corners; the {kept} nearest the "
        "target were tried."
    ),
)

#: Degrees that are cover for SF-COV-2 (bonuses) and SF-COV-4 (no attacks of opportunity).
COVERING = ("cover", "partial", "improved", "soft")

#: What is measured: the corner lines, blocked along walls too (SF-COV-1), and the exact line
#: of effect and of sight between the spaces; line of sight only for the pairs with line of
#: effect (SF-CON-4 is read only with it: without, the cover is total, SF-COV-9).
MEASURE = Measure(
    "move", edge_blocks=True, exact=("move", "sight"), exact_when="always", after_effect=True
)

# ---------------------------------------------------------------------------- rules


def _degree(
    line_rank: int, loe_clear: bool, partial: bool, area: bool
) -> tuple[str, dict[str, bool], str]:
    """The cover degree of one pair (SF-COV-1..4, 6..9), its facts and measured degree.

    The facts are those of ``DEGREE_RULINGS``; the measured degree is the one before an
    area cancels it. ``line_rank``: its weakest corner's ``LINE_RANK``; ``partial``: the
    target is one of the GM's ``partial_cover``; ``area``: an area attack. No line of
    effect is total cover (SF-COV-9); the GM's ``partial_cover`` turns cover into partial
    (SF-COV-7); an area cancels any cover short of total (SF-COV-3).
    """
    line = LINE_NAME[line_rank] if loe_clear else "total"
    measured = "partial" if line == "cover" and partial else line
    spread = area and measured != "total"
    degree = "none" if spread else measured
    facts = {
        "no line of effect": not loe_clear,
        "soft": line == "soft",
        "improved": line == "improved",
        "partial": measured == "partial",
        "spread over cover": spread and measured != "none",
        "spread": spread,
        "covering": degree in COVERING,
    }
    return degree, facts, measured


#: ``_degree`` as a table of ``DEGREES`` indices: [weakest corner's ``LINE_RANK``, line of
#: effect, partial cover, area] (a matrix's cells).
DEGREE_TABLE = np.array(
    [
        [
            [[DEGREES.index(_degree(k, bool(e), bool(p), bool(a))[0]) for a in (0, 1)]
             for p in (0, 1)]
            for e in (0, 1)
        ]
        for k in range(len(LINE_NAME))
    ],
    dtype=np.int64,
)  # fmt: skip


def _line_ranks(built: BuiltScene, batch: MeasuredBatch, attack: Attack) -> NDArray[np.int64]:
    """What each traced line meets, as its ``LINE_RANK``, shape (n,) (SF-COV-1, SF-COV-6).

    A wall (improved if one of its blockers is, SF-COV-8), else a creature (soft cover, not
    against melee), else nothing.
    """
    wall, soft = batch.wall_blocked, batch.creature_blocked & (attack.kind != "melee")
    rank = np.select([wall, soft], [LINE_RANK["cover"], LINE_RANK["soft"]], LINE_RANK["none"])
    improved = built.improved_walls | built.extreme_walls
    for j in np.flatnonzero(wall).tolist() if improved else ():
        if not improved.isdisjoint(batch.wall_blockers[j]):
            rank[j] = LINE_RANK["improved"]
    return rank.astype(np.int64)


class Starfinder:
    """The ``starfinder`` rule system."""

    id: str = "starfinder"
    title: str = "Starfinder (French seed): +4 cover, soft/partial/improved, 20/50 % miss chance"
    cover_degrees: tuple[str, ...] = DEGREES
    options: dict[str, OptionSpec] = OPTIONS
    extra_capabilities: tuple[str, ...] = ("modifiers/flanking", "modifiers/gravity")
    conditions: frozenset[str] = CONDITIONS
    diagonals: str = DIAGONALS
    #: Which sense locates a target and whether it is seen (``service.senses.SenseOrder``).
    senses: SenseOrder = SENSES

    def cover_measure(
        self, built: BuiltScene, attack: Attack, options: dict[str, Any], detail: bool
    ) -> Measure:
        """``MEASURE``, for answers in detail or for a matrix's bare degrees.

        A bare degree traces the corner lines only for the pairs with line of effect (the
        others are total, SF-COV-9), and reads blockers only for improved walls (SF-COV-8)
        and low ones.
        """
        wanted = bool(built.improved_walls | built.extreme_walls) or has_low_obstacles(built)
        return replace(MEASURE, lines_with_effect=not detail, blockers=detail or wanted)

    def cover_plan(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> Plan:
        """What ``covers`` traces for every pair (SF-COV-1, SF-COV-5), as ``plan_pairs``.

        Raises
        ------
        RulesError
            An area attack without ``attack.origin`` and without an attacker.
        """
        how = replace(SAMPLING, inset=float(options.get("corner_inset") or 0.0))
        return plan_pairs(built, pairs, attack, "every", how, wall_choices(built, pairs))

    def _weakest(
        self, asked: Asked
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], selection.Groups]:
        """Each pair's weakest attacker corner and its ``LINE_RANK`` (SF-COV-1), and the groups.

        A corner is as strong as the strongest of its lines; the attacker picks the weakest
        corner, the first of equals.
        """
        groups = selection.groups(asked.measured.rows, asked.plan.pairs.lines_per_source())
        ranks = _line_ranks(asked.built, asked.measured, asked.attack)
        return (*groups.weakest(groups.reduce(ranks, np.maximum)), groups)

    def cover_ranks(self, asked: Asked) -> NDArray[np.int64]:
        """Every pair's degree as its index in ``DEGREES`` (a matrix), from ``DEGREE_TABLE``."""
        _, line_rank, _ = self._weakest(asked)
        partial = set(asked.options.get("partial_cover") or ())
        marked = np.array([t.id in partial for _, t in asked.pairs], dtype=np.intp)
        loe = asked.measured.clear("move").astype(np.intp)
        return DEGREE_TABLE[line_rank, loe, marked, int(asked.attack.kind == "area")]

    def covers(self, asked: Asked) -> list[CoverResult]:
        """Cover and concealment of every pair (SF-COV-1..9, SF-CON-1..5, SF-PRN-1/2).

        ``melee`` ignores soft cover (SF-COV-6); ``area`` cancels cover (SF-COV-3).

        Returns
        -------
        list of CoverResult
            ``cover`` in ``none|partial|cover|soft|improved|total``; ``ac_bonus``/
            ``save_bonus`` (Reflex); ``concealment`` and ``miss_chance``; ``lines`` from the
            attacker's chosen corner; ``modifiers`` for prone creatures.
        """
        best, rank, groups = self._weakest(asked)
        clear = (asked.measured.clear("move").tolist(), asked.measured.clear("sight").tolist())
        sensed = sensed_all(asked, self.diagonals, self.vision_inset(asked.options))
        return [
            self._result(asked, r, groups.lines_of(r, b), k, (*seen, sensed.get(r)))
            for r, (b, k, *seen) in enumerate(
                zip(best.tolist(), rank.tolist(), *clear, strict=True)
            )
        ]

    def _result(self, asked: Asked, r: int, lines: slice, best_rank: int, seen: Any) -> CoverResult:
        """Pair ``r``'s answer from ``lines`` and ``seen`` (line of effect, of sight, senses)."""
        loe_clear, los_clear, sensed = seen
        built, (attacker, target), options = asked.built, asked.pairs[r], asked.options
        partial = target.id in (options.get("partial_cover") or ())
        area = asked.attack.kind == "area"
        degree, facts, measured = _degree(best_rank, loe_clear, partial, area)
        said, notes = rulings(DEGREE_RULINGS, facts, {"measured": measured})
        box = tuple(asked.plan.source_boxes[r].tolist())
        aside = [*asked.plan.notes.get(r, ()), *chosen_line_notes(asked, r, box, lines)]
        rules, notes = ["SF-COV-1", *said], [*aside, *notes]
        found, chance = cover_concealment(
            built, attacker, target, asked.attack, box, lambda: asked.plan.pairs.points(r),
            options, rules, (degree == "total", loe_clear, los_clear), sensed,
        )  # type: ignore[arg-type]  # fmt: skip
        # SF-COV-5: a low obstacle was weighed for this pair: a `cover: "low"` wall, or a
        # wall covering only part of a chosen line's band (GEO-5a).
        if any(n.startswith("SF-COV-5") for n in notes) or (
            has_low_obstacles(built) and asked.measured[r].any_low_walls(lines, built.walls)
        ):
            rules.append("SF-COV-5")
        modifiers = self._prone(built, attacker, target, asked.attack)
        return CoverResult(
            target=target.id,
            cover=degree,
            ac_bonus=BONUS[degree][0],
            save_bonus=BONUS[degree][1],
            advantage_levels=0,
            can_target=degree != "total",
            line_of_effect=loe_clear,
            rules=rule_ids((*rules, *(m.rule for m in modifiers))),
            lines=asked.measured[r].lines(built.walls, lines),
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

    #: See ``service.rules.starfinder.vision.vision``.
    vision = staticmethod(vision)

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before vision traces lines (GEO-6)."""
        return float(options.get("corner_inset") or DEFAULT_CORNER_INSET_PX)

    #: See ``service.rules.starfinder.flanking.flanking`` (SF-FLK-1).
    flanking = staticmethod(flanking)


RULESET = Starfinder()
