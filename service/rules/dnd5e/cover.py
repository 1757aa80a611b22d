"""dnd5e cover: the seed's paired-corner method and the published corner variant.

Rules 5E-COV-1..8 of ``shared/RULES.md`` (Chinese seed ``dnd5e-zh_001``). The measurement
(``service.geometry.measure``) says which of the traced corner lines cross a wall restricting
movement/effect (GEO-1), a full wall (low obstacles set aside), or the space of another
creature (GEO-7); the tables below map those counts to a degree (``GROUP_DEGREE``), and
``service.rules.selection`` keeps the attacker's best group of lines.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from service.engine.scene import BuiltScene
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.geometry.measure import Measure
from service.geometry.questions import Pairing
from service.model import Token
from service.rules import selection
from service.rules.base import (
    Attack,
    CoverResult,
    OptionSpec,
    corner_inset,
    has_low_obstacles,
    rule_ids,
)
from service.rules.dnd5e.modifiers import scene_modifiers
from service.rules.dnd5e.vision import EXTRA_OPTIONS, SENSES, vision
from service.rules.options import COMMON_CONDITIONS
from service.rules.planning import Asked, Plan, Sampling, plan_pairs
from service.rules.rulings import Ruling, rulings
from service.senses import SenseOrder

# ---------------------------------------------------------------------------- tables

#: Degrees, weakest first.
DEGREES = ("none", "half", "three-quarters", "total")

#: 5E-COV-3: bonus to AC and Dexterity saves per degree (None: cannot be targeted).
BONUS: dict[str, int | None] = {"none": 0, "half": 2, "three-quarters": 5, "total": None}

#: 5E-COV-5: blocked paired-corner lines (of 4) -> degree.
PAIRED_CORNERS = {0: "none", 1: "none", 2: "half", 3: "three-quarters", 4: "total"}

#: 5E-COV-8 (dmg-corner): blocked lines from the chosen corner (of 4) -> degree; 4 blocked
#: is total only when there is no line of effect at all.
DMG_CORNER = {0: "none", 1: "half", 2: "half", 3: "three-quarters", 4: "three-quarters"}

#: Hex grids (six corners, docs/decisions.md "Hex grids"): 5E-COV-5 by the share of the six
#: paired lines blocked, at the seed's cuts (half from 1/2, three-quarters from 3/4, total
#: all); 5E-COV-8 half up to half of the six lines, three-quarters beyond.
PAIRED_CORNERS_HEX = {
    0: "none",
    1: "none",
    2: "none",
    3: "half",
    4: "half",
    5: "three-quarters",
    6: "total",
}
DMG_CORNER_HEX = {0: "none", 1: "half", 2: "half", 3: "half", 4: "three-quarters"}
DMG_CORNER_HEX |= {5: "three-quarters", 6: "three-quarters"}

#: 5E-COV-6: creatures and low walls give at most this degree.
CREATURE_CAP = "half"


@dataclass(frozen=True)
class Method:
    """A cover method: which lines are traced and how blocked counts map to a degree.

    ``pairing`` ``paired``: line k from source corner k to target corner k (4 lines, one
    group); ``every``: every source corner to every target corner (4 groups of 4, one per
    source corner; the attacker picks the best). ``tables``: blocked lines -> degree, by
    lines per group (4 corners, 6 on hexes). ``sealed_total``: every line of a group blocked
    is total only without any line of effect.
    """

    rule: str
    pairing: Pairing
    tables: dict[int, dict[int, str]]
    sealed_total: bool


METHODS = {
    "paired-corners": Method(
        "5E-COV-5", "paired", {4: PAIRED_CORNERS, 6: PAIRED_CORNERS_HEX}, sealed_total=False
    ),
    "dmg-corner": Method(
        "5E-COV-8", "every", {4: DMG_CORNER, 6: DMG_CORNER_HEX}, sealed_total=True
    ),
}

#: Each method by its rule id.
BY_RULE = {method.rule: method for method in METHODS.values()}

OPTIONS = {
    "cover_method": OptionSpec(
        "paired-corners",
        "5E-COV-8: 'paired-corners' (the seed, A1A2..D1D2) or 'dmg-corner' (the attacker's "
        "best corner to all four target corners).",
        tuple(METHODS),
    ),
    "corner_inset": OptionSpec(
        DEFAULT_CORNER_INSET_PX,
        "GEO-6: px by which traced corner points move toward the square's centre.",
    ),
    **EXTRA_OPTIONS,  # GM options (service.rules.options) and this ruleset's vision ones
}

#: 5E-COV-5: the corners of both spaces, inset by ``corner_inset`` (GEO-6) with the exact
#: corners beside; the exact line between the spaces inset as much; an area's point of
#: origin once per target corner.
SAMPLING = Sampling("space corners", "space corners", origin_per_target_point=True)

#: Each degree's rank in ``DEGREES``.
RANK = {degree: k for k, degree in enumerate(DEGREES)}

#: Lines per group: the four corners of a square or gridless space, the six of a hex.
GROUP_LINES = (4, 6)

#: What an answer cites and says for the facts of its pair, in order (``rulings``).
RULINGS = (
    Ruling("creatures decide", "5E-COV-6"),
    Ruling(
        "a low wall decides",
        note="Creatures and low walls give at most half cover (5E-COV-3, 5E-COV-6).",
    ),
    Ruling("shared", "5E-COV-7"),
    Ruling("covered", "5E-COV-4"),
    Ruling(
        "total with a line of effect",
        note=(
            "All four corner lines are blocked (total cover by 5E-COV-5), although some "
            "other straight line between the spaces is clear (5E-LOE-2)."
        ),
    ),
    Ruling("shared", note="Sharing a space, no cover from: {shared}"),
)


def _group_degree(
    method: Method, lines: int, full: int, anything: int, loe_clear: bool
) -> tuple[int, bool]:
    """The degree rank of one group of ``lines`` corner lines, and whether creatures decide.

    ``full`` lines blocked by full walls, ``anything`` by walls or creatures. No clear path
    between the spaces at all (5E-LOE-2, exact) is total cover (5E-COV-3), even where GEO-6's
    corner sentence cleared some corner lines (with ``dmg-corner`` only when every line is
    blocked: ``Method.sealed_total``); creatures and low walls give at most
    ``CREATURE_CAP`` (5E-COV-6); the highest single source counts (5E-COV-4).
    """
    table = method.tables[lines]
    wall = RANK[table[full]]
    if not loe_clear and (method.sealed_total or full < lines):
        wall = RANK["total"]
    any_rank = RANK[table[anything]]
    return max(wall, min(any_rank, RANK[CREATURE_CAP])), any_rank > wall


#: ``_group_degree`` of every method as a table: [lines, full, anything, line of effect] ->
#: (rank, creatures decide); rows of other line counts are never read.
GROUP_DEGREE = {
    rule: np.array(
        [
            [
                [
                    [
                        _group_degree(method, n, f, a, bool(e))
                        if n in GROUP_LINES and f <= n and a <= n
                        else (0, False)
                        for e in (0, 1)
                    ]
                    for a in range(max(GROUP_LINES) + 1)
                ]
                for f in range(max(GROUP_LINES) + 1)
            ]
            for n in range(max(GROUP_LINES) + 1)
        ],
        dtype=np.int64,
    )
    for rule, method in BY_RULE.items()
}

# ---------------------------------------------------------------------------- rules


def _method(options: dict[str, Any], attack: Attack) -> Method:
    """The cover method: the option's, paired corners from an area's point of origin."""
    if attack.kind == "area" and attack.origin is not None:
        return METHODS["paired-corners"]
    return METHODS[options.get("cover_method") or "paired-corners"]


class Dnd5e:
    """The ``dnd5e`` rule system (Chinese seed)."""

    id: str = "dnd5e"
    title: str = "D&D 5e with the seed's house rules"
    cover_degrees: tuple[str, ...] = DEGREES
    options: dict[str, OptionSpec] = OPTIONS
    extra_capabilities: tuple[str, ...] = ("modifiers/gravity", "modifiers/underwater")
    conditions: frozenset[str] = COMMON_CONDITIONS
    #: Which points of each pair's spaces ``cover_plan`` joins (``rules.planning``).
    sampling: Sampling = SAMPLING
    diagonals: str = "equidistant"
    #: Which sense locates a target and whether it is seen (``service.senses.SenseOrder``).
    senses: SenseOrder = SENSES

    def cover_measure(
        self, built: BuiltScene, attack: Attack, options: dict[str, Any], detail: bool
    ) -> Measure:
        """Corner lines against walls and creatures, and again against full walls only.

        The exact line of effect is measured whenever no traced line shows one and it can
        change the degree: ``dmg-corner``'s total needs no line at all, and with either
        method no line of effect between the spaces is total cover (5E-COV-3), which the
        corner lines can miss where GEO-6's corner sentence clears them. With paired
        corners and every line blocked by walls the degree is total anyway, so a bare
        degree (a matrix) skips the search there; an answer in detail measures it for its
        ``line_of_effect``.
        """
        method = METHODS[options.get("cover_method") or "paired-corners"]
        if detail or method.sealed_total:
            return Measure("move", full_walls=True, exact=("move",), blockers=detail)
        return Measure(
            "move", full_walls=True, exact=("move",), exact_when="corner-cleared", blockers=False
        )

    def cover_plan(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> Plan:
        """The corner lines of 5E-COV-5 (or 5E-COV-8) of every pair (``plan_pairs``).

        Raises
        ------
        RulesError
            An area effect without ``origin`` and without an attacker.
        """
        how = dataclasses.replace(self.sampling, inset=corner_inset(options))
        return plan_pairs(built, pairs, attack, self.method_of(options, attack).pairing, how)

    def method_of(self, options: dict[str, Any], attack: Attack) -> Method:
        """The cover method of a request (``_method``).

        ``cover_method``'s, paired corners from an area's point of origin; a ruleset of the
        family with one method returns that one.
        """
        return _method(options, attack)

    def _decided(
        self, asked: Asked, method: Method
    ) -> tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64], selection.Groups]:
        """Every pair's degree rank, creatures' part and deciding group, and the groups.

        One group per source corner (``dmg-corner``) or all the lines (paired corners); each
        group's degree read from ``GROUP_DEGREE``; the group giving the least cover kept
        (5E-COV-8: the attacker's best corner, the first of equals).
        """
        pairs, batch = asked.plan.pairs, asked.measured
        per = pairs.lines_per_source() if method.pairing == "every" else pairs.counts()
        groups = selection.groups(batch.rows, per)
        full = groups.reduce(batch.full_blocked.astype(np.int64), np.add)
        blocked = batch.wall_blocked | batch.creature_blocked
        anything = groups.reduce(blocked.astype(np.int64), np.add)
        each = np.diff(groups.rows)
        loe = np.repeat(batch.clear("move").astype(np.intp), each)
        found = GROUP_DEGREE[method.rule][np.repeat(groups.size, each), full, anything, loe]
        group, rank = groups.weakest(found[:, 0])
        by_creature = selection.by_pair(groups, found[:, 1], group).astype(bool)
        return rank, by_creature, group, groups

    def cover_ranks(self, asked: Asked) -> NDArray[np.int64]:
        """Every pair's degree (5E-COV-1..8) as its index in ``DEGREES`` (a matrix)."""
        return self._decided(asked, self.method_of(asked.options, asked.attack))[0]

    def covers(self, asked: Asked) -> list[CoverResult]:
        """Cover of every pair (5E-COV-1..8) from its measured corner lines.

        Returns
        -------
        list of CoverResult
            ``cover`` in ``none|half|three-quarters|total``; ``ac_bonus``/``save_bonus``
            +2 / +5 (5E-COV-3); ``lines`` the traced lines of the deciding group.
        """
        method = self.method_of(asked.options, asked.attack)
        rank, by_creature, group, groups = self._decided(asked, method)
        found = zip(rank.tolist(), by_creature.tolist(), group.tolist(), strict=True)
        loe = asked.measured.clear("move").tolist()
        return [
            self._result(asked, method, r, d, c, groups.lines_of(r, g), loe[r])
            for r, (d, c, g) in enumerate(found)
        ]

    def _result(
        self, asked: Asked, method: Method, r: int, rank: int, by_creature: bool, lines: slice,
        loe_clear: bool,
    ) -> CoverResult:  # fmt: skip
        """The answer for pair ``r``, whose degree ``_decided`` found from the group ``lines``."""
        built, (attacker, target), degree = asked.built, asked.pairs[r], DEGREES[rank]
        shared = asked.plan.shared.get(r, ())
        facts = {
            "creatures decide": by_creature,
            # `cover: "low"` in the scene, or a wall covering part of a deciding line (GEO-5a)
            "a low wall decides": by_creature and has_low_obstacles(built) and (
                built.tall_walls is not None or asked.measured[r].any_low_walls(lines, built.walls)
            ),
            "shared": bool(shared),
            "covered": rank > 0,
            "total with a line of effect": degree == "total" and loe_clear,
        }  # fmt: skip
        rules, notes = rulings(RULINGS, facts, {"shared": ", ".join(shared)})
        return CoverResult(
            target=target.id,
            cover=degree,
            ac_bonus=BONUS[degree],
            save_bonus=BONUS[degree],
            advantage_levels=0,
            can_target=degree != "total",
            line_of_effect=loe_clear,
            rules=rule_ids(("5E-COV-1", "5E-COV-3", method.rule, *rules)),
            lines=asked.measured[r].lines(built.walls, lines),
            notes=tuple(notes),
            modifiers=scene_modifiers(built, attacker, target, asked.attack),
        )

    #: See ``service.rules.dnd5e.vision.vision``.
    vision = staticmethod(vision)

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before vision traces lines (GEO-6)."""
        return corner_inset(options)


RULESET = Dnd5e()
