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

from service.engine.scene import BuiltScene
from service.engine.spaces import inset_box
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.engine.walls import FloatArray
from service.geometry import sampling
from service.geometry.measure import Measure, Measured, Question
from service.model import SIZES, Token
from service.rules.base import (
    Attack,
    CoverResult,
    OptionSpec,
    VisionResult,
    attack_source,
    corner_inset,
    cover_each,
    pair_band,
    shared_space,
)
from service.rules.pf2e_variant.vision import EXTRA_OPTIONS, vision
from service.senses import SenseReport

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

    def cover_measure(self, attack: Attack, options: dict[str, Any], detail: bool) -> Measure:
        """One line (or one per attacker corner) against walls and creatures (PV-COV-2)."""
        return Measure("move", exact=("move",))

    def cover_asks(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> list[_Ask]:
        """What ``cover`` traces for every pair (PV-COV-2, PV-COV-7, PV-COV-8).

        Lines, creatures, walls; each token's sample points are found once.

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

        return [self._ask(built, a, t, attack, options, points) for a, t in pairs]

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

    covers = cover_each  # ``cover`` of every pair, in order

    def cover(
        self,
        built: BuiltScene,
        ask: _Ask,
        measured: Measured,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
        detail: bool = True,
    ) -> CoverResult:
        """Cover of ``target`` (PV-COV-1..8) from its measured lines.

        Returns
        -------
        CoverResult
            ``cover`` in ``none|lesser|standard|greater|total``, ``advantage_levels``
            from the table, ``can_hide`` (PV-COV-5), ``ac_bonus``/``save_bonus`` 0.
        """
        rules = ["PV-COV-2", *ask.rules]
        # PV-COV-3: "two or more sizes larger than both" the attacker and the target.
        largest = max(
            [SIZES.index(target.size)] + ([SIZES.index(attacker.size)] if attacker else [])
        )
        degrees = []
        for k in range(len(measured.segments)):
            if measured.wall_blocked[k]:
                extreme = any(w in built.extreme_walls for w in measured.wall_blockers[k])
                degrees.append(LINE_DEGREE["extreme wall" if extreme else "wall"])
            elif measured.creature_blocked[k]:
                big = any(_size(built, c) - largest >= 2 for c in measured.creature_blockers[k])
                degrees.append(LINE_DEGREE["much larger creature" if big else "creature"])
            else:
                degrees.append(LINE_DEGREE["nothing"])
        best = min(range(len(degrees)), key=lambda k: (STEPS.index(degrees[k]), k))
        degree = degrees[best]
        wall, creature = measured.wall_blocked[best], measured.creature_blocked[best]
        if creature and not wall and degree == "standard":
            rules.append("PV-COV-3")
        notes = []
        low = measured.low_walls(best, built.walls) if wall else []
        if low and len(low) == len(measured.wall_blockers[best]):
            # Only low obstacles (`cover: "low"`, or walls covering part of the band, GEO-5a)
            # block the line: small terrain, standard cover (PV-COV-2), PV-COV-8's ruling.
            rules.append("PV-COV-8")
            names = ", ".join(built.walls.names(low))
            notes.append(
                f"Low obstacle {names}: small terrain, standard cover (PV-COV-2); "
                "none for a Large or larger target with ignore_small_terrain (PV-COV-8)."
            )

        loe_clear = measured.clear("move")
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
            lines=measured.lines(built.walls, slice(best, best + 1)) if detail else (),
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
