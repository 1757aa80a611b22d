"""pf2e-variant cover (English seed ``pf2e-variant-en_003``): PV-COV-1..8 of ``shared/RULES.md``.

One line from the centre of the attacker's space (or an area's point of origin) to the
centre of the target's space: terrain that blocks the effect gives standard cover (greater
when the wall is marked ``extreme``), creatures give lesser cover (standard when two or more
sizes larger than both attacker and target). Degrees give levels of Advantage on defense.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from service import geometry
from service.model import SIZES, Token
from service.rules.base import (
    Attack,
    CoverResult,
    OptionSpec,
    SceneGeometry,
    VisionResult,
    attack_source,
    corner_inset,
    lines_from_trace,
    obstacle_tokens,
    planned,
    prefetch_planned_cover,
)

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
        geometry.DEFAULT_CORNER_INSET_PX, "GEO-6: px corners move inward with 'best-corner'."
    ),
    "unnoticed": OptionSpec([], "PV-DET-5 (vision): ids of targets the observer has no idea of."),
    "was_observing": OptionSpec(
        [], "PV-DET-7 (vision): invisible targets the observer saw turn invisible (hidden)."
    ),
}


@dataclass(frozen=True)
class _CoverPlan:
    """What one pf2e-variant cover question traces (``_plan``)."""

    request: geometry.TraceRequest
    others: list[Token]
    rules: list[str]
    elevations: tuple[float, float]
    inner_source: tuple[float, ...]
    inner_target: tuple[float, ...]


class Pf2eVariant:
    """The ``pf2e-variant`` rule system."""

    id: str = "pf2e-variant"
    title: str = "Pathfinder 2e-like variant: lesser/standard/greater cover, levels of Advantage"
    cover_degrees: tuple[str, ...] = DEGREES
    options: dict[str, OptionSpec] = OPTIONS
    extra_capabilities: tuple[str, ...] = ("modifiers/range",)
    diagonals: str = "alternating"

    def cover(
        self,
        geo: SceneGeometry,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
    ) -> CoverResult:
        """Cover of ``target`` (PV-COV-1..8).

        Parameters
        ----------
        geo : SceneGeometry
        attacker : Token or None
            ``None`` only for an area effect with ``attack.origin`` (PV-COV-7).
        target : Token
        attack : Attack
        options : dict
            ``measure_from``, ``take_cover``, ``ignore_small_terrain``,
            ``advantage_levels``, ``corner_inset``.

        Returns
        -------
        CoverResult
            ``cover`` in ``none|lesser|standard|greater|total``, ``advantage_levels``
            from the table, ``can_hide`` (PV-COV-5), ``ac_bonus``/``save_bonus`` 0.

        Raises
        ------
        RulesError
            An area effect without ``origin`` and without an attacker.
        """
        scene = geo.scene
        plan = planned(self._plan, geo, attacker, target, attack, options)
        rules = ["PV-COV-2", *plan.rules]
        segs, others = plan.request.segments, plan.others
        traced = plan.request.run(geo.walls)
        by_id = {t.id: t for t in others}
        degrees = []
        for k in range(len(segs)):
            if traced.wall_blocked[k]:
                extreme = any(scene.walls[w].cover == "extreme" for w in traced.wall_blockers[k])
                degrees.append("greater" if extreme else "standard")
            elif traced.creature_blocked[k]:
                big = any(
                    _much_larger(by_id[c], attacker, target) for c in traced.creature_blockers[k]
                )
                degrees.append("standard" if big else "lesser")
            else:
                degrees.append("none")
        best = min(range(len(segs)), key=lambda k: (STEPS.index(degrees[k]), k))
        degree = degrees[best]
        lines = lines_from_trace(traced, geo.walls, slice(best, best + 1))
        if traced.creature_blocked[best] and not traced.wall_blocked[best] and degree == "standard":
            rules.append("PV-COV-3")

        # A clear traced line joins the two spaces: line of effect without the exact search.
        loe_clear = (
            not traced.wall_blocked.all()
            or geometry.line_of_effect_between(
                geo.walls,
                plan.inner_source,
                plan.inner_target,
                "move",
                elevations=plan.elevations,
                wall_mask=geo.tall_walls,
            ).clear
        )
        notes = []
        if not loe_clear:
            degree = "total"
            rules.append("PV-COV-6")
            notes.append("No line of effect: the target cannot be targeted.")
        elif target.id in (options.get("take_cover") or ()):
            before = degree
            degree = STEPS[min(STEPS.index(degree) + 1, len(STEPS) - 1)]
            rules.append("PV-COV-4")
            notes.append(f"Took cover: {before} -> {degree}.")
        table = {**ADVANTAGE_LEVELS, **(options.get("advantage_levels") or {})}
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
            rules=tuple(dict.fromkeys(rules)),
            lines=lines,
            notes=tuple(notes),
            can_hide=degree in ("standard", "greater", "total"),
        )

    def _plan(
        self,
        geo: SceneGeometry,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
    ) -> _CoverPlan:
        """What ``cover`` traces (PV-COV-2, PV-COV-7, PV-COV-8): lines, creatures, walls.

        Raises
        ------
        RulesError
            An area attack without ``attack.origin`` and without an attacker.
        """
        target_box = geo.token_boxes[target.id]
        target_centre = geometry.box_centre(target_box)
        rules = []
        source_box, source_elev, from_origin = attack_source(geo, attacker, target, attack)
        if from_origin:
            sources = [source_box[:2]]
            rules.append("PV-COV-7")
        else:
            if options.get("measure_from") == "best-corner":
                inset = corner_inset(options)
                sources = [tuple(p) for p in geometry.inset_corners(source_box, inset)]
                rules.append("PV-COV-8")
            else:
                sources = [geometry.box_centre(source_box)]
        others = obstacle_tokens(geo, attacker, target, source_box)[0]
        boxes = np.array([geo.token_boxes[t.id] for t in others], dtype=np.float64).reshape(-1, 4)
        wall_mask = None
        if options.get("ignore_small_terrain") and SIZES.index(target.size) >= LARGE_ENOUGH:
            wall_mask = geo.tall_walls  # low obstacles set aside (None: there are none)
            rules.append("PV-COV-8")
        segs = np.array([[*s, *target_centre] for s in sources], dtype=np.float64)
        elev = np.tile([source_elev, target.elevation], (len(segs), 1)).astype(np.float64)
        request = geometry.TraceRequest(
            segs, "move", elev, boxes, tuple(t.id for t in others), wall_mask
        )
        inner_source = (
            geometry.inset_box(source_box, geometry.DEFAULT_CORNER_INSET_PX)
            if attacker is not None and attack.kind != "area"
            else source_box
        )
        return _CoverPlan(
            request=request,
            others=others,
            rules=rules,
            elevations=(source_elev, target.elevation),
            inner_source=inner_source,
            inner_target=geometry.inset_box(target_box, geometry.DEFAULT_CORNER_INSET_PX),
        )

    def prefetch_cover(
        self,
        geo: SceneGeometry,
        pairs: list[tuple[Token | None, Token]],
        options: dict[str, Any],
        attack: Attack | None = None,
    ) -> None:
        """See ``service.rules.base.prefetch_planned_cover``."""
        prefetch_planned_cover(geo, self._plan, pairs, options, attack, ("move",))

    def vision(
        self, geo: SceneGeometry, observer: Token, target: Token, options: dict[str, Any]
    ) -> VisionResult:
        """See the module-level ``vision``."""
        return vision(geo, observer, target, options)

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before ``vision`` traces lines (GEO-6)."""
        return corner_inset(options)


def _much_larger(blocker: Token, attacker: Token | None, target: Token) -> bool:
    """PV-COV-3: two or more size categories larger than both attacker and target."""
    size = SIZES.index(blocker.size)
    others = [target] + ([attacker] if attacker is not None else [])
    return all(size - SIZES.index(o.size) >= 2 for o in others)


def vision(
    geo: SceneGeometry, observer: Token, target: Token, options: dict[str, Any]
) -> VisionResult:
    """Detection state of ``target`` for ``observer`` (PV-DET-1..9).

    Observed when a precise sense reaches it (PV-DET-2). An invisible target is undetected
    to observers whose only precise senses are visual (PV-DET-7), hidden instead when the
    GM lists it in ``was_observing``. Otherwise, without a precise sense: hidden if heard,
    else undetected (PV-DET-9). ``unnoticed`` (GM input) overrides all (PV-DET-5).
    Concealed (PV-DET-6/9): dim light for observers without low-light vision or darkvision,
    or lightly obscured regions (mist, smoke) at the target.

    Returns
    -------
    VisionResult
        ``detection``, ``concealed``, ``flat_check_dc`` (hidden or undetected 11, concealed 5),
        ``off_guard`` and ``save_disadvantage_levels`` (PV-DET-3/4),
        ``auditory_flat_check_dc`` 5 for a deafened observer (PV-DET-8).
    """
    from service.senses import perceive

    inset = RULESET.vision_inset(options)
    report = perceive(geo, observer, target, diagonals=RULESET.diagonals, inset=inset)
    senses = observer.senses
    sense = report.first_precise()
    rules = ["PV-DET-1"]
    notes = []
    if target.id in (options.get("unnoticed") or ()):
        detection = "unnoticed"
        rules.append("PV-DET-5")
    elif sense is not None:
        detection = "observed"
        rules.append("PV-DET-2")
        if report.invisible:
            rules.append("PV-DET-7")
    elif report.invisible:
        rules.append("PV-DET-7")
        if target.id in (options.get("was_observing") or ()):
            detection = "hidden"
            notes.append("Turned invisible while observed: starts hidden.")
        else:
            detection = "undetected"
    else:
        rules.append("PV-DET-9")
        detection = "hidden" if report.reaches["hearing"] else "undetected"
    concealed = False
    if detection in ("observed", "hidden") and sense not in ("blindsight", "tremorsense"):
        dim = report.light.level == "dim" and not report.light.magical_darkness
        if dim and not (senses.low_light_vision or senses.darkvision > 0):
            concealed = True
            rules.append("PV-DET-9")
        if report.obscurement == "light":
            concealed = True
        if concealed:
            rules.append("PV-DET-6")
    dc = None
    if detection == "hidden":
        dc = 11
        rules.append("PV-DET-3")
    elif detection == "undetected":
        dc = 11
        rules.append("PV-DET-4")
        notes.append(
            "Cannot be targeted normally; a guessed space is a DC 11 flat check "
            "rolled by the GM in secret."
        )
    elif detection == "observed" and concealed:
        dc = 5
    deafened = "deafened" in observer.conditions
    if deafened:
        rules.append("PV-DET-8")
    heard = sense is None and report.reaches["hearing"]
    return VisionResult(
        target=target.id,
        can_see=sense is not None,
        sense=sense if sense is not None else ("hearing" if heard else None),
        light=report.light.level,
        magical_darkness=report.light.magical_darkness,
        distance=report.distance,
        line_of_sight=report.line_of_sight,
        rules=tuple(dict.fromkeys(rules)),
        detection=detection,
        concealed=concealed,
        flat_check_dc=dc,
        off_guard=detection in ("hidden", "undetected"),
        save_disadvantage_levels=1 if detection in ("hidden", "undetected") else 0,
        auditory_flat_check_dc=5 if deafened else None,
        blockers=report.blockers,
        notes=tuple(notes),
    )


RULESET = Pf2eVariant()
