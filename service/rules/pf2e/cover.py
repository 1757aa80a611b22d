"""pf2e cover: the centre line and its circumstance bonuses (PF2-COV-1..7).

One line from the centre of the attacker's space (or an area's point of origin, PF2-COV-6)
to the centre of the target's: terrain that blocks the effect gives standard cover (greater
when the GM marks the wall ``extreme``, PF2-COV-2), a creature in the way lesser cover
(PF2-COV-3), no line of effect at all total cover (PF2-COV-5). Take Cover moves the degree
up (``TAKE_COVER``, PF2-COV-4). Each degree's bonuses are a row of ``BONUS``.

Where ``pf2e-variant`` differs on purpose: it turns degrees into levels of Advantage on
defense and gives standard cover behind much larger creatures; pf2e gives circumstance
bonuses (+1, +2, +4) and every creature lesser cover.
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
from service.rules.base import Attack, CoverResult, Modifier, OptionSpec, rule_ids
from service.rules.options import COMMON_CONDITIONS
from service.rules.pf2e.attacks import prone_modifiers
from service.rules.pf2e.vision import EXTRA_OPTIONS, SENSES, vision
from service.rules.planning import Asked, Plan, Sampling, plan_pairs
from service.rules.rulings import Ruling, rulings
from service.senses import SenseOrder

# ---------------------------------------------------------------------------- tables

DEGREES = ("none", "lesser", "standard", "greater", "total")
#: The degrees a line can give, weakest first (total comes from no line of effect).
STEPS = ("none", "lesser", "standard", "greater")

#: PF2-COV-1: circumstance bonuses per degree: (AC, Reflex against area effects, Stealth to
#: Hide, Sneak or avoid detection). Total: cannot be targeted (PF2-COV-5).
BONUS: dict[str, tuple[int, int, int] | None] = {
    "none": (0, 0, 0),
    "lesser": (1, 0, 0),
    "standard": (2, 2, 2),
    "greater": (4, 4, 4),
    "total": None,
}

#: PF2-COV-2/3: what the centre line meets -> degree.
LINE_DEGREE = {
    "wall": "standard",
    "extreme wall": "greater",
    "creature": "lesser",
    "nothing": "none",
}

#: PF2-COV-4: Take Cover: standard becomes greater, anything less standard; a prone target
#: that takes cover has greater cover against ranged attacks (``PRONE_TAKE_COVER``).
TAKE_COVER = {"none": "standard", "lesser": "standard", "standard": "greater", "greater": "greater"}
PRONE_TAKE_COVER = "greater"

#: PF2-COV-7: the degrees from which a creature may Hide or Sneak.
HIDING = ("standard", "greater", "total")

OPTIONS = {
    "take_cover": OptionSpec(
        [], "PF2-COV-4: ids of targets that took cover (standard -> greater, else standard)."
    ),
    "unnoticed": OptionSpec([], "PF2-DET-6 (vision): ids of targets the observer has no idea of."),
    "was_observing": OptionSpec(
        [],
        "PF2-DET-7 (vision): invisible targets this observer saw turn invisible or found by a "
        "Seek (hidden, not undetected).",
    ),
    **EXTRA_OPTIONS,  # GM options (service.rules.options)
}

#: PF2-COV-2: centre to centre; PF2-COV-6: from an area's point of origin. The exact line
#: between the spaces inset by GEO-6's 0.5 px; an area's caster's from its whole space.
SAMPLING = Sampling(
    "centre",
    "centre",
    inner_inset=DEFAULT_CORNER_INSET_PX,
    inner_follows_inset=False,
    area_caster_whole=True,
)

#: The centre line against walls and creatures, and the exact line of effect (PF2-COV-5).
MEASURE = Measure("move", exact=("move",))

#: What an answer cites and says for the facts of its pair, in order (``rulings``).
RULINGS = (
    Ruling("from an area's origin", "PF2-COV-6"),
    Ruling("a creature decides", "PF2-COV-3"),
    Ruling("no line of effect", "PF2-COV-5", "No line of effect: the target cannot be targeted."),
    Ruling("took cover", "PF2-COV-4", "Took cover: {before} -> {degree}."),
    Ruling("prone took cover", "PF2-ATK-4", "Prone and taking cover: greater against ranged."),
    Ruling(None, "PF2-COV-1"),
    Ruling("can hide", "PF2-COV-7"),
)

#: ``LINE_DEGREE`` as indices into ``STEPS``.
STEP = {what: STEPS.index(degree) for what, degree in LINE_DEGREE.items()}

# ---------------------------------------------------------------------------- rules


def _final_degree(step: int, loe_clear: bool, took: bool, prone_ranged: bool) -> str:
    """A pair's degree from its line's ``STEPS`` index ``step``.

    Total without line of effect (PF2-COV-5), else moved up by Take Cover (PF2-COV-4; a
    prone target against a ranged attack: greater).
    """
    if not loe_clear:
        return "total"
    if not took:
        return STEPS[step]
    return PRONE_TAKE_COVER if prone_ranged else TAKE_COVER[STEPS[step]]


#: ``_final_degree`` as a table of ``DEGREES`` indices: [step, line of effect, took cover,
#: prone against a ranged attack].
FINAL_DEGREE = np.array(
    [
        [
            [
                [DEGREES.index(_final_degree(k, bool(e), bool(t), bool(p))) for p in (0, 1)]
                for t in (0, 1)
            ]
            for e in (0, 1)
        ]
        for k in range(len(STEPS))
    ],
    dtype=np.int64,
)


def _line_steps(built: BuiltScene, batch: MeasuredBatch) -> NDArray[np.int64]:
    """What each traced line meets as its ``STEPS`` index (``LINE_DEGREE``), shape (n,)."""
    wall, creature = batch.wall_blocked, batch.creature_blocked & ~batch.wall_blocked
    rank = np.select([wall, creature], [STEP["wall"], STEP["creature"]], STEP["nothing"])
    for k in np.flatnonzero(wall).tolist() if built.extreme_walls else ():
        if not built.extreme_walls.isdisjoint(batch.wall_blockers[k]):
            rank[k] = STEP["extreme wall"]
    return rank.astype(np.int64)


def _took(asked: Asked) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Each pair's target took cover, and is prone against a ranged attack, as 0/1 (q,)."""
    took = set(asked.options.get("take_cover") or ())
    ranged = asked.attack.kind == "ranged"
    targets = [t for _, t in asked.pairs]
    flags = [(t.id in took, ranged and "prone" in t.conditions) for t in targets]
    arr = np.array(flags, dtype=np.intp).reshape(-1, 2)
    return arr[:, 0], arr[:, 1]


class Pf2e:
    """The ``pf2e`` rule system (Pathfinder 2e Remaster)."""

    id: str = "pf2e"
    title: str = "Pathfinder 2e Remaster: lesser/standard/greater cover, circumstance bonuses"
    cover_degrees: tuple[str, ...] = DEGREES
    options: dict[str, OptionSpec] = OPTIONS
    extra_capabilities: tuple[str, ...] = ()
    diagonals: str = "alternating"
    #: Which sense locates a target and whether it is seen (``service.senses.SenseOrder``).
    senses: SenseOrder = SENSES
    #: The token conditions the ruleset reads (GEO-12): the common ones and deafened.
    conditions: frozenset[str] = COMMON_CONDITIONS | {"deafened"}

    def cover_measure(
        self, built: BuiltScene, attack: Attack, options: dict[str, Any], detail: bool
    ) -> Measure:
        """The centre line; blockers read in detail or where an ``extreme`` wall may decide."""
        return replace(MEASURE, blockers=detail or bool(built.extreme_walls))

    def cover_plan(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> Plan:
        """The centre line of every pair, from an area's point of origin (PF2-COV-2/6).

        Raises
        ------
        RulesError
            An area attack without ``attack.origin`` and without an attacker.
        """
        return plan_pairs(built, pairs, attack, "every", SAMPLING)

    def _steps(self, asked: Asked) -> NDArray[np.int64]:
        """Each pair's line's ``STEPS`` index (q,): one line a pair (none: 0)."""
        groups = selection.groups(asked.measured.rows, np.ones(len(asked.pairs), dtype=np.intp))
        return groups.weakest(_line_steps(asked.built, asked.measured))[1]

    def cover_ranks(self, asked: Asked) -> NDArray[np.int64]:
        """Every pair's degree as its index in ``DEGREES`` (a matrix), from ``FINAL_DEGREE``."""
        took, prone = _took(asked)
        loe = asked.measured.clear("move").astype(np.intp)
        return FINAL_DEGREE[self._steps(asked), loe, took, prone]

    def covers(self, asked: Asked) -> list[CoverResult]:
        """Cover of every pair (PF2-COV-1..7) from its centre line.

        Returns
        -------
        list of CoverResult
            ``cover`` in ``none|lesser|standard|greater|total``; ``ac_bonus`` and
            ``save_bonus`` (Reflex) from ``BONUS``, ``None`` under total cover; the Stealth
            bonus and the prone penalties as ``modifiers``; ``can_hide`` (PF2-COV-7).
        """
        steps = self._steps(asked).tolist()
        degrees = self.cover_ranks(asked).tolist()
        loe = asked.measured.clear("move").tolist()
        found = zip(steps, degrees, loe, strict=True)
        return [self._result(asked, r, s, d, e) for r, (s, d, e) in enumerate(found)]

    def _result(self, asked: Asked, r: int, step: int, rank: int, loe_clear: bool) -> CoverResult:
        """The answer of pair ``r``: its line's ``step``, its degree's ``rank``."""
        batch, (attacker, target), degree = asked.measured, asked.pairs[r], DEGREES[rank]
        k = int(batch.rows[r])
        creature = bool(batch.creature_blocked[k]) and not bool(batch.wall_blocked[k])
        took = loe_clear and target.id in (asked.options.get("take_cover") or ())
        prone_took = took and asked.attack.kind == "ranged" and "prone" in target.conditions
        facts = {
            "from an area's origin": asked.plan.from_origin,
            "a creature decides": creature,
            "no line of effect": not loe_clear,
            "took cover": took,
            "prone took cover": prone_took,
            "can hide": degree in HIDING,
        }
        rules, notes = rulings(RULINGS, facts, {"before": STEPS[step], "degree": degree})
        bonus = BONUS[degree]
        stealth = () if not bonus or not bonus[2] else (
            Modifier("PF2-COV-1", "stealth", bonus[2], f"{degree} cover"),
        )  # fmt: skip
        return CoverResult(
            target=target.id,
            cover=degree,
            ac_bonus=None if bonus is None else bonus[0],
            save_bonus=None if bonus is None else bonus[1],
            advantage_levels=0,
            can_target=degree != "total",
            line_of_effect=loe_clear,
            rules=rule_ids(("PF2-COV-2", *rules)),
            lines=batch[r].lines(asked.built.walls, slice(0, 1)),
            notes=tuple(notes),
            can_hide=degree in HIDING,
            modifiers=(
                *stealth,
                *prone_modifiers(attacker, target, asked.attack),
            ),
        )

    #: See ``service.rules.pf2e.vision.vision``.
    vision = staticmethod(vision)

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before vision traces lines (GEO-6)."""
        return DEFAULT_CORNER_INSET_PX


RULESET = Pf2e()
