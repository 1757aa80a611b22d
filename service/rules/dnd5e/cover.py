"""dnd5e cover: the seed's paired-corner method and the published corner variant.

Rules 5E-COV-1..8 of ``shared/RULES.md`` (Chinese seed ``dnd5e-zh_001``). The measurement
(``service.geometry.measure``) says which of the traced corner lines cross a wall restricting
movement/effect (GEO-1), a full wall (low obstacles set aside), or the space of another
creature (GEO-7); the tables below map those counts to a degree.
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
from service.model import Token
from service.rules.base import (
    Attack,
    CoverResult,
    OptionSpec,
    PlannedAsks,
    VisionResult,
    attack_source,
    corner_inset,
    cover_through_covers,
    has_low_obstacles,
    pair_band,
    pair_tokens,
    plan_pairs,
    rule_ids,
    shared_space,
)
from service.rules.dnd5e.modifiers import scene_modifiers
from service.rules.dnd5e.vision import EXTRA_OPTIONS, SENSES, vision
from service.senses import SenseOrder, SenseReport

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
    source corner; the attacker picks the best). ``sealed_total``: 4 blocked lines in a
    group are total only without any line of effect. ``hex_table``: the table for the six
    corners of hex spaces.
    """

    rule: str
    pairing: str
    table: dict[int, str]
    sealed_total: bool
    hex_table: dict[int, str]

    def degree(self, blocked: int, lines: int) -> str:
        """The degree of ``blocked`` lines out of a group of ``lines`` (4 or 6 on hexes)."""
        return (self.hex_table if lines == 6 else self.table)[blocked]


METHODS = {
    "paired-corners": Method(
        "5E-COV-5", "paired", PAIRED_CORNERS, sealed_total=False, hex_table=PAIRED_CORNERS_HEX
    ),
    "dmg-corner": Method(
        "5E-COV-8", "every", DMG_CORNER, sealed_total=True, hex_table=DMG_CORNER_HEX
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

# ---------------------------------------------------------------------------- rules


#: Each degree's rank in ``DEGREES``.
RANK = {degree: k for k, degree in enumerate(DEGREES)}


def _decide(
    method: Method,
    lines: int,
    full: NDArray[np.int64],
    anything: NDArray[np.int64],
    loe_clear: NDArray[np.bool_],
) -> tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]:
    """The degree of p pairs from their blocked counts, read from ``method``'s table.

    Parameters
    ----------
    method : Method
    lines : int
        Lines per group (4, or 6 on hexes).
    full, anything : ndarray of shape (p, g)
        Per pair and group of lines, the lines blocked by full walls, and by anything.
    loe_clear : ndarray of shape (p,)
        Line of effect between the pair's spaces (5E-LOE-2).

    Returns
    -------
    rank : ndarray of shape (p,)
        The degree's rank in ``DEGREES``: the group giving the least cover (the attacker's
        best corner, 5E-COV-8; the first of equals), highest single source (5E-COV-4),
        creatures and low walls capped at ``CREATURE_CAP`` (5E-COV-6).
    by_creature : ndarray of shape (p,)
        Creatures (or low walls) reach or decide that degree (5E-COV-6's note).
    group : ndarray of shape (p,)
        The deciding group.
    """
    table = method.hex_table if lines == 6 else method.table
    ranks = np.array([RANK[table[n]] for n in range(lines + 1)], dtype=np.int64)
    wall = ranks[full]
    # No clear path at all (5E-LOE-2, exact): total cover (5E-COV-3), even when GEO-6's
    # corner sentence cleared some corner lines.
    sealed = ~loe_clear[:, None] & (method.sealed_total | (full < lines))
    wall = np.where(sealed, RANK["total"], wall)
    any_rank = ranks[anything]
    capped = np.minimum(any_rank, RANK[CREATURE_CAP])
    degree = np.maximum(wall, capped)
    by_creature = np.where(capped > wall, True, any_rank > wall)
    group = np.argmin(degree, axis=1)
    pick = np.arange(len(degree))
    return degree[pick, group], by_creature[pick, group], group


def _shapes(asks: Sequence[Any], counts: list[int]) -> dict[tuple[str, int, int], list[int]]:
    """The pairs by method's rule, lines per group (4, 6 on hexes) and lines: ``key -> rows``."""
    if isinstance(asks, _Asks):  # one method, every pair with as many lines
        k = asks.questions.targets.shape[1]
        lines = counts[0] if counts else 0
        return {(asks.method.rule, k, lines): list(range(len(asks)))}
    shapes: dict[tuple[str, int, int], list[int]] = {}
    for r, ask in enumerate(asks):
        key = (ask.method.rule, len(ask.question.targets), counts[r])
        shapes.setdefault(key, []).append(r)
    return shapes


@dataclass(frozen=True)
class _Ask:
    question: Question
    method: Method
    shared: Sequence[str]


class _Asks(PlannedAsks[_Ask]):
    """The asks of many pairs planned at once (``plan_pairs``), all with one method."""

    def __init__(
        self, questions: QuestionBatch, method: Method, shared: dict[int, Sequence[str]]
    ) -> None:
        super().__init__(questions, shared, lambda _, q, who: _Ask(q, method, who))
        self.method = method


class Dnd5e:
    """The ``dnd5e`` rule system (Chinese seed)."""

    id: str = "dnd5e"
    title: str = "D&D 5e with the seed's house rules"
    cover_degrees: tuple[str, ...] = DEGREES
    options: dict[str, OptionSpec] = OPTIONS
    extra_capabilities: tuple[str, ...] = ("modifiers/gravity", "modifiers/underwater")
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

    def cover_asks(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> Sequence[_Ask]:
        """The corner lines of 5E-COV-5 (or 5E-COV-8) of every pair.

        From an area's origin for areas; each token's corners are found once. Many token
        pairs are planned as one batch of arrays (``_planned``).

        Raises
        ------
        RulesError
            An area effect without ``origin`` and without an attacker.
        """
        inset = corner_inset(options)
        method = METHODS[options.get("cover_method") or "paired-corners"]
        found: dict[tuple[str, float], FloatArray] = {}
        inner: dict[str, tuple[float, float, float, float]] = {}

        def corners(token: Token, d: float) -> FloatArray:
            key = (token.id, d)
            if key not in found:
                found[key] = sampling.space_corners(built, token, built.token_boxes[token.id], d)
            return found[key]

        def inset_space(token: Token) -> tuple[float, float, float, float]:
            box = inner.get(token.id)
            if box is None:
                box = inner[token.id] = inset_box(built.token_boxes[token.id], inset)
            return box

        planned = self._planned(built, pairs, attack, inset, method, corners, inset_space)
        if planned is not None:
            return planned
        return [
            self._ask(built, attacker, target, attack, inset, method, corners, inset_space)
            for attacker, target in pairs
        ]

    def _planned(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        inset: float,
        method: Method,
        corners: Callable[[Token, float], FloatArray],
        inset_space: Callable[[Token], tuple[float, float, float, float]],
    ) -> _Asks | None:
        """``cover_asks`` of many token pairs as arrays (a matrix, a multi-target cover).

        The same questions as ``_ask`` pair by pair, planned once per token: each token's
        corners, extent and inset space are gathered once and every pair indexes them.
        ``None`` (plan pair by pair) for a single pair, an area's point of origin, a token
        outside the scene, or corners of different counts (hex spaces).

        Cost: O(tokens) Python and O(pairs) array work, plus O(pairs sharing a space).
        """
        if attack.kind == "area" and attack.origin is not None:
            return None
        found = pair_tokens(built, pairs)
        if found is None:
            return None
        inset_points = [corners(tok, inset) for tok in found.tokens]
        exact_points = [corners(tok, 0.0) for tok in found.tokens]
        if len({p.shape for p in inset_points + exact_points}) != 1:
            return None
        at = np.stack(inset_points)
        exact = np.stack(exact_points)
        inner = np.array([inset_space(tok) for tok in found.tokens], dtype=np.float64)
        questions, shared = plan_pairs(
            built,
            pairs,
            found,
            (at, at),
            method.pairing,  # type: ignore[arg-type]
            (inner, inner),
            (exact, exact),
        )
        return _Asks(questions, method, shared)

    def _ask(
        self,
        built: BuiltScene,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        inset: float,
        method: Method,
        corners: Callable[[Token, float], FloatArray],
        inset_space: Callable[[Token], tuple[float, float, float, float]],
    ) -> _Ask:
        """One pair of ``cover_asks``.

        ``corners(token, inset)``: its space's corners; ``inset_space(token)``: its space
        inset by ``inset``.
        """
        source_box, source_span, from_origin = attack_source(built, attacker, target, attack)
        target_corners = corners(target, inset)
        if from_origin:  # one line from the point of origin per target corner
            sources = exact_sources = sampling.origin(source_box[:2], len(target_corners))
            method = METHODS["paired-corners"]
        else:
            assert attacker is not None
            sources = corners(attacker, inset)
            exact_sources = corners(attacker, 0.0)
        # GEO-7 / 5E-COV-1: other creatures are solid obstacles; 5E-COV-7: a creature in
        # the attacker's or the target's space gives no cover.
        shared, excluded = shared_space(
            built, attacker, target, source_box, from_origin, source_span
        )
        bottoms, tops = pair_band(source_span, target, built)
        question = Question(
            sources,
            target_corners,
            method.pairing,  # type: ignore[arg-type]
            bottoms,
            inset_space(attacker) if attacker is not None else source_box,
            inset_space(target),
            excluded,
            tops=tops,
            exact_points=(exact_sources, corners(target, 0.0)),
        )
        return _Ask(question, method, shared)

    def _decided(
        self, asks: Sequence[_Ask], batch: MeasuredBatch
    ) -> tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64], NDArray[np.bool_]]:
        """Every pair's degree rank, creatures' part, deciding group and line of effect.

        The degrees of all pairs with the same method and number of lines are read from the
        tables at once (``_decide``).
        """
        counts = np.diff(batch.rows).tolist()
        loe = batch.clear("move")
        rank = np.zeros(len(asks), dtype=np.int64)
        by_creature = np.zeros(len(asks), dtype=bool)
        group = np.zeros(len(asks), dtype=np.int64)
        anything_blocked = batch.wall_blocked | batch.creature_blocked
        for (method, k, lines), members in _shapes(asks, counts).items():
            n = len(members)
            at = np.asarray(members, dtype=np.intp)
            idx = batch.rows[at][:, None] + np.arange(lines)
            rank[at], by_creature[at], group[at] = _decide(
                BY_RULE[method],
                k,
                batch.full_blocked[idx].reshape(n, lines // k, k).sum(axis=2),
                anything_blocked[idx].reshape(n, lines // k, k).sum(axis=2),
                loe[at],
            )
        return rank, by_creature, group, loe

    def cover_ranks(
        self,
        built: BuiltScene,
        asks: Sequence[_Ask],
        measured: MeasuredBatch,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> NDArray[np.int64]:
        """Every pair's degree (5E-COV-1..8) as its index in ``DEGREES`` (a matrix)."""
        return self._decided(asks, measured)[0]

    def covers(
        self,
        built: BuiltScene,
        asks: Sequence[_Ask],
        measured: Sequence[Measured],
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> list[CoverResult]:
        """Cover of every pair (5E-COV-1..8) from its measured corner lines, as ``cover``."""
        batch = MeasuredBatch.of(measured)
        rank, by_creature, group, loe = self._decided(asks, batch)
        if isinstance(asks, _Asks):
            k = asks.questions.targets.shape[1]
            each = [(asks.method, k, asks.shared.get(r, ())) for r in range(len(asks))]
        else:
            each = [(ask.method, len(ask.question.targets), ask.shared) for ask in asks]
        decided = zip(
            rank.tolist(), by_creature.tolist(), group.tolist(), loe.tolist(), strict=True
        )
        return [
            self._result(built, method, k, shared, batch, r, a, t, attack, *d)
            for r, ((method, k, shared), (a, t), d) in enumerate(
                zip(each, pairs, decided, strict=True)
            )
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
        """Cover of ``target`` (5E-COV-1..8) from its measured corner lines.

        Returns
        -------
        CoverResult
            ``cover`` in ``none|half|three-quarters|total``; ``ac_bonus``/``save_bonus``
            +2 / +5 (5E-COV-3); ``lines`` the four traced lines that decided it.
        """
        return cover_through_covers(self, built, ask, measured, attacker, target, attack, options)

    def _result(
        self,
        built: BuiltScene,
        method: Method,
        k: int,
        shared: Sequence[str],
        batch: MeasuredBatch,
        r: int,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        rank: int,
        by_creature: bool,
        group: int,
        loe_clear: bool,
    ) -> CoverResult:
        """The answer for pair ``r`` of ``batch``, whose degree ``_decide`` found.

        ``method`` and ``k`` (lines per group) of its ask, ``shared`` who shares a space
        (5E-COV-7); ``rank`` in ``DEGREES``.
        """
        degree = DEGREES[rank]
        rules = ["5E-COV-1", "5E-COV-3", method.rule]
        notes = []
        if by_creature:
            rules.append("5E-COV-6")
            # Low walls: `cover: "low"` in the scene, or a wall covering only part of one of
            # the deciding lines' band (GEO-5a).
            if has_low_obstacles(built) and (
                built.tall_walls is not None
                or any(batch[r].low_walls(j, built.walls) for j in range(k * group, k * group + k))
            ):
                notes.append(
                    "Creatures and low walls give at most half cover (5E-COV-3, 5E-COV-6)."
                )
        if shared:
            rules.append("5E-COV-7")
        if rank > 0:
            rules.append("5E-COV-4")
        if degree == "total" and loe_clear:
            notes.append(
                "All four corner lines are blocked (total cover by 5E-COV-5), although some "
                "other straight line between the spaces is clear (5E-LOE-2)."
            )
        if shared:
            notes.append("Sharing a space, no cover from: " + ", ".join(shared))
        return CoverResult(
            target=target.id,
            cover=degree,
            ac_bonus=BONUS[degree],
            save_bonus=BONUS[degree],
            advantage_levels=0,
            can_target=degree != "total",
            line_of_effect=loe_clear,
            rules=rule_ids(tuple(rules)),
            lines=batch[r].lines(built.walls, slice(k * group, k * group + k)),
            notes=tuple(notes),
            modifiers=scene_modifiers(built, attacker, target, attack),
        )

    def vision(
        self,
        built: BuiltScene,
        observer: Token,
        target: Token,
        report: SenseReport,
        options: dict[str, Any],
    ) -> VisionResult:
        """See ``service.rules.dnd5e.vision.vision``."""
        return vision(built, observer, target, report, options)

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before vision traces lines (GEO-6)."""
        return corner_inset(options)


RULESET = Dnd5e()
