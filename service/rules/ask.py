"""Ask a ruleset about many pairs at once: one pair and a 200-token matrix run this code.

``cover_all`` plans every pair with the ruleset as one batch (``cover_plan``), measures all
of them in one call (``service.geometry.measure``), then lets the ruleset map each pair's
measurement to its answer (``covers``). ``vision_all`` does the same with
``service.senses.perceive_all``.

The obstacle options (``ignore_hidden``, ``ignore_prone_or_dead``: ``service.rules.options``)
are applied here, once for every ruleset: the tokens they set aside join each pair's
``excluded`` creatures before measuring.

Cost: see ``service.geometry.measure`` (cover) and ``service.senses.perceive_all`` (vision);
the per-pair rule is O(lines of the pair).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import PlanProbe, WorkBudget, sample_rows, trace_units
from service.engine.scene import BuiltScene
from service.geometry.measure import MeasuredBatch, measure
from service.model import Token
from service.rules.base import Attack, CoverResult, RuleSystem, VisionResult
from service.rules.options import darkvision_defeated, without_set_aside
from service.rules.planning import Asked, Plan
from service.rules.spread import spread_answers
from service.senses import locate_all, perceive_all


def cover_all(
    system: RuleSystem,
    built: BuiltScene,
    pairs: Sequence[tuple[Token | None, Token]],
    attack: Attack,
    options: dict[str, Any],
    *,
    budget: WorkBudget | None = None,
) -> list[CoverResult]:
    """Cover of every ``(attacker, target)`` pair (attacker ``None``: an area's origin).

    Parameters
    ----------
    system : RuleSystem
    built : BuiltScene
    pairs : sequence of (Token or None, Token)
    attack : Attack
    options : dict
        The ruleset's options, checked.
    budget : WorkBudget, optional
        The request's budget of line-wall tests (``docs/decisions.md`` "Bounded work"):
        over it, ``OverBudget`` (422) before the work when the estimate says so.

    Returns
    -------
    list of CoverResult, one per pair in order, with lines, blockers and notes.

    Raises
    ------
    RulesError
        A pair the ruleset cannot answer (e.g. an area without origin or attacker).
    """
    plan, measured = _measured(system, built, pairs, attack, options, True, budget)
    results = system.covers(Asked(built, plan, measured, pairs, attack, options))
    return spread_answers(system, built, pairs, attack, results, budget)  # GEO-13


def degrees_all(
    system: RuleSystem,
    built: BuiltScene,
    pairs: Sequence[tuple[Token | None, Token]],
    attack: Attack,
    options: dict[str, Any],
    *,
    budget: WorkBudget | None = None,
) -> list[str]:
    """The cover degree of every pair alone (a matrix's cells), as ``cover_all`` would say.

    Measured without blocker lists and read as arrays (``RuleSystem.cover_ranks``): no
    answer object is made. Parameters, errors and cost as ``cover_all``.
    """
    plan, measured = _measured(system, built, pairs, attack, options, False, budget)
    ranks = system.cover_ranks(Asked(built, plan, measured, pairs, attack, options))
    return [system.cover_degrees[k] for k in ranks.tolist()]


def _measured(
    system: RuleSystem,
    built: BuiltScene,
    pairs: Sequence[tuple[Token | None, Token]],
    attack: Attack,
    options: dict[str, Any],
    detail: bool,
    budget: WorkBudget | None,
) -> tuple[Plan, MeasuredBatch]:
    """Every pair planned by the ruleset (``cover_plan``) and measured at once."""
    spec = system.cover_measure(built, attack, options, detail)
    plan = None
    if budget is not None and pairs:  # refuse before planning every pair
        # Too few pairs to sample (``sample_rows``): planning them all first is as bounded
        # as planning one, and that plan is the whole plan.
        few = sample_rows(len(pairs)) is None
        first = system.cover_plan(built, pairs if few else pairs[:1], attack, options)
        lines = int(first.pairs.counts()[0])
        creatures = len(built.scene.tokens) if spec.creatures else 0

        def sample(rows: NDArray[np.intp], trial: WorkBudget) -> float:
            traced = 0
            # The probe's planning per pair, timed, scaled, spent (refused after a few pairs
            # when costly), before any line is measured.
            plans = PlanProbe(trial).plans(
                rows,
                lambda part: system.cover_plan(
                    built, [pairs[i] for i in part.tolist()], attack, options
                ),
            )
            for some in plans:
                out = measure(built, spec, without_set_aside(built, some.pairs, options), trial)
                counts = np.diff(out.rows).tolist()  # SF-COV-9 leaves some pairs' lines out
                traced += sum(counts[r] for r in range(len(out)) if out[r].traced)
            return trace_units(traced, creatures, len(rows))

        # The cost model: a sample's count and its lines' own work, scaled (else the bound).
        budget.foresee(len(pairs), sample, trace_units(lines * len(pairs), creatures, len(pairs)))
        plan = first if few else None
    if plan is None:
        plan = system.cover_plan(built, pairs, attack, options)
    questions = without_set_aside(built, plan.pairs, options)
    return plan, measure(built, spec, questions, budget)


def vision_all(
    system: RuleSystem,
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    options: dict[str, Any],
    budget: WorkBudget | None = None,
) -> list[VisionResult]:
    """What each observer perceives of each target, for every ``(observer, target)`` pair.

    ``budget`` as for ``cover_all``. A vision matrix, which answers only ``sense`` and
    ``can_see``, asks ``located_all``.
    """
    reports = perceive_all(built, pairs, **_perception(system, options, budget))
    return [
        system.vision(built, o, t, report, options)
        for (o, t), report in zip(pairs, reports, strict=True)
    ]


def located_all(
    system: RuleSystem,
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    options: dict[str, Any],
    budget: WorkBudget | None = None,
) -> tuple[list[str | None], list[bool]]:
    """Each pair's ``sense`` and ``can_see`` alone (a vision matrix), in order.

    The same values as ``vision_all``'s answers: both read the ruleset's ``senses`` order
    (``service.senses.SenseOrder``) over the same measurement, here for all pairs at once
    (``service.senses.locate_all``) without an answer per pair.
    """
    return locate_all(built, pairs, system.senses, **_perception(system, options, budget))


def _perception(
    system: RuleSystem, options: dict[str, Any], budget: WorkBudget | None
) -> dict[str, Any]:
    """What ``perceive_all`` and ``locate_all`` take from a ruleset and its options."""
    return {
        "diagonals": system.diagonals,
        "inset": system.vision_inset(options),
        "budget": budget,
        "magical_darkness_blocks_sight": bool(options.get("magical_darkness_blocks_sight")),
        "darkvision_defeated": darkvision_defeated(options, system.options),
    }


def cover_one(
    system: RuleSystem,
    built: BuiltScene,
    attacker: Token | None,
    target: Token,
    attack: Attack,
    options: dict[str, Any],
) -> CoverResult:
    """``cover_all`` for one pair, with lines and notes."""
    return cover_all(system, built, [(attacker, target)], attack, options)[0]


def vision_one(
    system: RuleSystem,
    built: BuiltScene,
    observer: Token,
    target: Token,
    options: dict[str, Any],
) -> VisionResult:
    """``vision_all`` for one pair."""
    return vision_all(system, built, [(observer, target)], options)[0]
