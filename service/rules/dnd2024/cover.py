"""dnd2024 cover: the attacker's best corner, as the 2024 DMG describes it (24-COV-1..6).

A member of the dnd5e family: the degrees, their bonuses, the best-corner method's table
and the one cover selection are dnd5e's (``service.rules.dnd5e.cover``: ``DEGREES``,
``BONUS``, ``METHODS["dmg-corner"]``, ``GROUP_DEGREE`` read by ``Dnd5e._decided``), since
SRD 5.2 agrees with them. What differs is a table each:

- the method is always the best corner (24-COV-3), from an area's point of origin too
  (24-COV-5, ``SAMPLING``: the origin once, to every target corner; dnd5e's seed pairs
  corners there);
- the answer cites the 24- ids (``RULINGS``) and carries what the pair's conditions do to
  the attack roll (``attacks.CONDITION_EFFECTS``) instead of the seed's gravity and water;
- the options are the GM's and ``corner_inset`` (no ``cover_method``).
"""

from __future__ import annotations

from typing import Any

from service.engine.scene import BuiltScene
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.geometry.measure import Measure
from service.rules.base import (
    Attack,
    CoverResult,
    OptionSpec,
    has_low_obstacles,
    rule_ids,
)
from service.rules.dnd5e.cover import BONUS, DEGREES, METHODS, Dnd5e, Method
from service.rules.dnd2024.attacks import (
    CONDITION_EFFECTS,
    INCAPACITATED,
    attack_modifiers,
    close_combat_all,
)
from service.rules.dnd2024.vision import EXTRA_OPTIONS, SENSES, vision
from service.rules.planning import Asked, Sampling
from service.rules.rulings import Ruling, rulings
from service.senses import SenseOrder

# ---------------------------------------------------------------------------- tables

#: 24-COV-3: the one method, dnd5e's best corner (5E-COV-8's table and ``sealed_total``).
METHOD: Method = METHODS["dmg-corner"]

#: The method's options as dnd5e reads them.
DND5E_OPTIONS = {"cover_method": "dmg-corner"}

#: 24-COV-3: every corner of the attacker's space to every corner of the target's, inset
#: by ``corner_inset`` (GEO-6) with the exact corners beside; 24-COV-5: an area's point of
#: origin is the one corner (traced once to every target corner).
SAMPLING = Sampling("space corners", "space corners", origin_per_target_point=False)

OPTIONS = {
    "corner_inset": OptionSpec(
        DEFAULT_CORNER_INSET_PX,
        "GEO-6: px by which traced corner points move toward the square's centre.",
    ),
    **EXTRA_OPTIONS,  # GM options (service.rules.options)
}

#: Diagonals as SRD 5.2 counts them on a grid (every square 5 ft), unless the scene says
#: (dnd5e's ``diagonals``).
DIAGONALS = Dnd5e.diagonals

#: 24-COV-2: each degree's fields of an answer (total: cannot be targeted directly).
DEGREE_FIELDS: dict[str, dict[str, Any]] = {
    degree: {
        "cover": degree,
        "ac_bonus": BONUS[degree],
        "save_bonus": BONUS[degree],
        "advantage_levels": 0,
        "can_target": degree != "total",
    }
    for degree in DEGREES
}

#: What an answer cites and says for the facts of its pair, in order (``rulings``).
RULINGS = (
    Ruling("from an area's origin", "24-COV-5"),
    Ruling("creatures decide", "24-COV-4"),
    Ruling(
        "a low wall decides",
        note="Creatures and low walls give at most half cover (24-COV-4).",
    ),
    Ruling("shared", "24-COV-6"),
    Ruling("shared", note="Sharing a space, no cover from: {shared}"),
    Ruling("covered", "24-COV-1"),
    Ruling(
        "total with a line of effect",
        note="Every corner line is blocked, yet a straight line between the spaces is clear.",
    ),
    Ruling(
        "close combat",
        "24-ATK-2",
        "Within 5 ft of the attacker: {near}. A ranged attack roll has Disadvantage if one is "
        "an enemy that sees the attacker (24-ATK-2).",
    ),
)

# ---------------------------------------------------------------------------- rules


class Dnd2024(Dnd5e):
    """The ``dnd2024`` rule system (SRD 5.2), dnd5e's cover selection with 2024 tables."""

    id: str = "dnd2024"
    title: str = "D&D 2024 (SRD 5.2): best-corner cover, 2024 senses and conditions"
    options: dict[str, OptionSpec] = OPTIONS
    extra_capabilities: tuple[str, ...] = ()
    #: Which sense locates a target and whether it is seen (``service.senses.SenseOrder``).
    senses: SenseOrder = SENSES
    #: The token conditions the ruleset reads (GEO-12): dnd5e's, the conditions that change
    #: an attack roll (24-VIS-7/8, 24-ATK-4) and those that include Incapacitated (24-ATK-2).
    conditions: frozenset[str] = (
        Dnd5e.conditions | {c for _, c in CONDITION_EFFECTS} | INCAPACITATED
    )
    #: 24-COV-5: the origin once, to every target corner.
    sampling: Sampling = SAMPLING

    def cover_measure(
        self, built: BuiltScene, attack: Attack, options: dict[str, Any], detail: bool
    ) -> Measure:
        """dnd5e's measurement for the best-corner method (every line, the exact line)."""
        return super().cover_measure(built, attack, {**options, **DND5E_OPTIONS}, detail)

    def method_of(self, options: dict[str, Any], attack: Attack) -> Method:
        """Best corner (24-COV-5), from an area's origin too: dnd5e's ``dmg-corner``."""
        return METHOD

    def covers(self, asked: Asked) -> list[CoverResult]:
        """Cover of every pair (24-COV-1..6) from its measured corner lines.

        Returns
        -------
        list of CoverResult
            ``cover`` in ``none|half|three-quarters|total``; ``ac_bonus``/``save_bonus``
            +2 / +5 (24-COV-2); ``lines`` the deciding corner's lines; ``modifiers`` the
            Advantage and Disadvantage of the pair's conditions (24-ATK-3/4, 24-VIS-7/8).
        """
        rank, by_creature, group, groups = self._decided(asked, METHOD)
        loe = asked.measured.clear("move").tolist()
        near = close_combat_all(asked.built, asked.pairs, asked.attack, DIAGONALS)
        found = zip(rank.tolist(), by_creature.tolist(), group.tolist(), loe, near, strict=True)
        return [
            self._answer(asked, r, d, c, groups.lines_of(r, g), e, n)
            for r, (d, c, g, e, n) in enumerate(found)
        ]

    def _answer(
        self, asked: Asked, r: int, rank: int, by_creature: bool, lines: slice,
        loe_clear: bool, near: tuple[str, ...],
    ) -> CoverResult:  # fmt: skip
        """The answer of pair ``r``, whose degree ``_decided`` found from the group ``lines``."""
        built, (attacker, target), degree = asked.built, asked.pairs[r], DEGREES[rank]
        shared = asked.plan.shared.get(r, ())
        facts = {
            "from an area's origin": asked.plan.from_origin,
            "creatures decide": by_creature,
            "a low wall decides": by_creature and has_low_obstacles(built) and (
                built.tall_walls is not None or asked.measured[r].any_low_walls(lines, built.walls)
            ),
            "shared": bool(shared),
            "covered": rank > 0,
            "total with a line of effect": degree == "total" and loe_clear,
            "close combat": bool(near),
        }  # fmt: skip
        values = {"shared": ", ".join(shared), "near": ", ".join(near)}
        rules, notes = rulings(RULINGS, facts, values)
        return CoverResult(
            target=target.id,
            **DEGREE_FIELDS[degree],
            line_of_effect=loe_clear,
            rules=rule_ids(("24-COV-2", "24-COV-3", *rules)),
            lines=asked.measured[r].lines(built.walls, lines),
            notes=tuple(notes),
            modifiers=attack_modifiers(built, attacker, target, asked.attack, DIAGONALS),
        )

    #: See ``service.rules.dnd2024.vision.vision``.
    vision = staticmethod(vision)


RULESET = Dnd2024()
