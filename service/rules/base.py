"""What every rule system provides, and the result types they share (no Flask).

Measure, then rule: ``service.geometry`` measures (which traced segments are blocked and by
what); a rule system maps those measurements to a degree, bonuses and the rule ids applied.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, cast, overload

import numpy as np
from numpy.typing import NDArray

from service.engine.scene import BuiltScene, distinct_tokens
from service.engine.spaces import boxes_overlap
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.engine.walls import FloatArray
from service.errors import RulesError
from service.geometry.measure import (
    Blocker,
    Measure,
    Measured,
    MeasuredBatch,
    Question,
    QuestionBatch,
    TracedLine,
)
from service.model import Token
from service.senses import SenseOrder, SenseReport

AttackKind = Literal["melee", "ranged", "area", "spell"]


@dataclass(frozen=True)
class Attack:
    """The attack or effect being resolved.

    ``origin`` is the point of origin of an area effect in px (``kind == "area"``);
    ``elevation`` its height in grid units (GEO-5a), ``None``: the attacker's elevation, or
    0 without an attacker.
    """

    kind: AttackKind = "ranged"
    origin: tuple[float, float] | None = None
    elevation: float | None = None


@dataclass(frozen=True)
class Modifier:
    """A situational modifier that comes with an answer (prone, gravity ...).

    ``applies_to`` names what it modifies (``"ac"``, ``"attack"``, ``"reflex"`` ...), ``value``
    is the signed bonus, ``rule`` the rule id and ``reason`` a short explanation.
    """

    rule: str
    applies_to: str
    value: int
    reason: str


@dataclass(frozen=True)
class CoverResult:
    """Cover of one target against one attacker or area origin (API.md "Cover").

    ``ac_bonus``/``save_bonus`` are ``None`` under total cover (the target cannot be
    targeted at all); ``save_bonus`` is the Dex save (dnd5e) or Reflex (starfinder) bonus.
    ``concealment`` (``none|concealment|total``) and ``miss_chance`` (0, 20, 50) are
    starfinder's (SF-CON-1..5); ``can_hide`` is pf2e-variant's (PV-COV-5); a ruleset that
    does not use a field leaves its neutral value.
    """

    target: str
    cover: str
    ac_bonus: int | None
    save_bonus: int | None
    advantage_levels: int
    can_target: bool
    line_of_effect: bool
    rules: tuple[str, ...]
    lines: tuple[TracedLine, ...] = ()
    notes: tuple[str, ...] = ()
    concealment: str = "none"
    miss_chance: int = 0
    can_hide: bool | None = None
    modifiers: tuple[Modifier, ...] = ()


@dataclass(frozen=True)
class VisionResult:
    """What one observer perceives of one target (API.md "Vision and detection").

    Every field is present for every ruleset; a ruleset leaves those it does not use at
    their neutral value (dnd5e: ``obscurement``, ``perception_disadvantage``; starfinder:
    ``concealment``, ``miss_chance``; pf2e-variant: ``detection``, ``concealed``,
    ``flat_check_dc``, ``off_guard``, ``save_disadvantage_levels``,
    ``auditory_flat_check_dc``). ``distance`` is in grid units (GEO-8).
    """

    target: str
    can_see: bool
    sense: str | None
    light: str
    magical_darkness: bool
    distance: float
    line_of_sight: bool
    rules: tuple[str, ...]
    obscurement: str = "none"
    perception_disadvantage: bool = False
    detection: str = "observed"
    concealed: bool = False
    flat_check_dc: int | None = None
    off_guard: bool = False
    save_disadvantage_levels: int = 0
    auditory_flat_check_dc: int | None = None
    concealment: str = "none"
    miss_chance: int = 0
    blockers: tuple[Blocker, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class OptionSpec:
    """A ruleset option: its default, allowed values (if a choice) and what it does."""

    default: Any
    description: str
    choices: tuple[str, ...] | None = None


class CoverAsk(Protocol):
    """What a ruleset plans for one cover question: the pair to measure, and its own notes."""

    @property
    def question(self) -> Question:
        """The pair's sample points, excluded creatures and wall mask."""
        ...


class RuleSystem(Protocol):
    """A rule system: an id, its cover degrees, options and capabilities, and its rules.

    Cover is asked in three steps so that one pair and a 200-token matrix run the same code
    (``service.rules.ask``): ``cover_measure`` names what to measure, ``cover_asks`` plans
    every pair, ``service.geometry.measure`` measures all pairs at once, and ``covers`` maps
    each pair's measurement to its answer (``cover`` for one pair). A matrix asks only the
    degrees, as arrays (``cover_ranks``): no answer object is made for it. Vision gets a
    ``SenseReport`` from ``service.senses.perceive_all`` the same way.
    """

    id: str
    title: str
    cover_degrees: tuple[str, ...]
    options: dict[str, OptionSpec]
    diagonals: str
    #: Which sense locates a target and whether it is seen (``service.senses.SenseOrder``):
    #: a vision answer's ``sense`` and ``can_see``, and a vision matrix's cells.
    senses: SenseOrder
    #: Endpoints beyond cover, vision, lighting and lines (e.g. ``modifiers/flanking``).
    extra_capabilities: tuple[str, ...]

    def cover_measure(
        self, built: BuiltScene, attack: Attack, options: dict[str, Any], detail: bool
    ) -> Measure:
        """What to measure for every pair of ``built``.

        ``detail``: answers (``covers``) with their lines and blockers; ``False``: the bare
        degrees of ``cover_ranks`` (a matrix), measured without blocker lists.
        """
        ...

    def cover_asks(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> Sequence[CoverAsk]:
        """Plan every ``(attacker, target)`` pair, one plan per pair in order.

        Each plan holds the pair's sample points, creatures that do not count, wall mask.

        Raises
        ------
        service.errors.RulesError
            When the request is well formed but cannot be answered.
        """
        ...

    def cover(
        self,
        built: BuiltScene,
        ask: Any,
        measured: Measured,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
    ) -> CoverResult:
        """Cover of ``target`` from one pair's measurement, with its lines and notes."""
        ...

    def covers(
        self,
        built: BuiltScene,
        asks: Sequence[Any],
        measured: Sequence[Measured],
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> list[CoverResult]:
        """``cover`` of every pair, in order (a ruleset may rule on all of them at once)."""
        ...

    def cover_ranks(
        self,
        built: BuiltScene,
        asks: Sequence[Any],
        measured: MeasuredBatch,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> NDArray[np.int64]:
        """The degree of every pair as its index in ``cover_degrees``, shape (p,).

        The degree ``covers`` would answer, read from the measurement's arrays without an
        answer object (a matrix's cells). O(lines).
        """
        ...

    def vision(
        self,
        built: BuiltScene,
        observer: Token,
        target: Token,
        report: SenseReport,
        options: dict[str, Any],
    ) -> VisionResult:
        """What ``observer`` perceives of ``target`` (API.md "Vision and detection")."""
        ...

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before vision traces lines (GEO-6)."""
        ...


class FlankingRule(Protocol):
    """A ruleset whose ``extra_capabilities`` name ``modifiers/flanking`` (Starfinder)."""

    def flanking(
        self, built: BuiltScene, attacker: Token, ally: Token, target: Token
    ) -> tuple[bool, list[str], str]:
        """Whether ``attacker`` and ``ally`` flank ``target``: (flanking, rule ids, reason)."""
        ...


def corner_inset(options: dict[str, Any]) -> float:
    """The ``corner_inset`` option in px (GEO-6), default 0.5."""
    value = options.get("corner_inset")
    return DEFAULT_CORNER_INSET_PX if value is None else float(value)


def attack_source(
    built: BuiltScene, attacker: Token | None, target: Token, attack: Attack
) -> tuple[tuple[float, float, float, float], tuple[float, float], bool]:
    """Where an attack comes from, for the three rulesets' cover.

    Returns
    -------
    box : (x0, y0, x1, y1) px
        An area's point of origin as a box of no size when it has one, else the attacker's
        space.
    span : (bottom, top)
        Grid units: the attacker's vertical extent (GEO-5a); an area's point of origin is a
        band of no thickness at ``attack.elevation`` when given, else at the attacker's
        elevation (the effect leaves from it), else at 0 (GEO-5a's default).
    from_origin : bool
        Whether ``box`` is the area's point of origin.

    Raises
    ------
    RulesError
        An area attack without ``attack.origin`` and without an attacker (path ``attack``).
    """
    if attack.kind == "area" and attack.origin is not None:
        z = attack.elevation
        if z is None:
            z = attacker.elevation if attacker is not None else 0.0
        return (*attack.origin, *attack.origin), (z, z), True
    if attacker is not None:
        return built.token_boxes[attacker.id], built.span(attacker), False
    raise RulesError("An area attack needs attack.origin or an attacker.", ("attack",))


def pair_band(
    source_span: tuple[float, float], target: Token, built: BuiltScene
) -> tuple[tuple[float, float], tuple[float, float]]:
    """``(bottoms, tops)`` of the band from a source's span to ``target``'s (GEO-5a).

    For ``Question.elevations`` and ``Question.tops``, in grid units.
    """
    t_bottom, t_top = built.span(target)
    return (source_span[0], t_bottom), (source_span[1], t_top)


def has_low_obstacles(built: BuiltScene) -> bool:
    """Whether a traced line of ``built`` can meet a low obstacle (``Measured.low_walls``).

    A ``cover: "low"`` wall (``tall_walls``), or a wall of limited height that can cover
    only part of a line's band (GEO-5a, ``heights``); without either, no line has one.
    """
    return built.tall_walls is not None or built.heights


def _holds(span: tuple[float, float] | None, z: float) -> bool:
    """Whether the half-open extent ``[bottom, top)`` holds elevation ``z`` (GEO-5)."""
    return span is None or span[0] <= z < span[1]


def shared_space(
    built: BuiltScene,
    attacker: Token | None,
    target: Token,
    source_box: tuple[float, ...],
    from_origin: bool,
    source_span: tuple[float, float] | None = None,
) -> tuple[Sequence[str], frozenset[str]]:
    """Creatures sharing the target's or the source's space, and all that do not block.

    Every creature but the attacker and the target can block a cover line (GEO-7); one in
    the same space as the target or the attacker (the same squares), or whose space holds
    an area's point of origin (``from_origin``, ``source_box`` a point), gives no cover
    (5E-COV-7). A creature whose space only partly overlaps theirs (a Large creature
    beside the target) is still an obstacle (GEO-7), and so is one on the same squares whose
    vertical extent does not overlap theirs (GEO-5a, ``BuiltScene.sharing``), or that does
    not hold the point of origin's elevation (``source_span``, from ``attack_source``; the
    origin is at 0 when it is not given).

    Returns
    -------
    shared : tuple of str
        Those sharing a space, in scene order (for the answer's notes).
    excluded : frozenset of str
        ``shared`` plus the attacker and the target: the creatures that block none of the
        pair's lines (``Question.excluded``).

    Cost: O(overlapping tokens) from ``BuiltScene.sharing``; O(tokens) for a point of origin.
    """
    if not from_origin and attacker is not None:
        if not built.sharing[target.id] and not built.sharing[attacker.id]:
            return (), frozenset((target.id, attacker.id))  # the common case: nobody shares
        return built.shared_with(attacker.id, target.id)
    found = set(built.sharing[target.id])
    if from_origin:
        z = source_span[0] if source_span is not None else 0.0
        found.update(
            tid
            for tid, box in built.token_boxes.items()
            if boxes_overlap(box, source_box) and _holds(built.token_spans.get(tid), z)
        )
    elif attacker is not None:
        found.update(built.sharing[attacker.id])
    found.discard(target.id)
    if attacker is not None:
        found.discard(attacker.id)
    shared = tuple(sorted(found, key=built.token_order.__getitem__))
    pair = {target.id} if attacker is None else {target.id, attacker.id}
    return shared, frozenset(found | pair)


class PairTokens:
    """The distinct tokens of many ``(attacker, target)`` pairs, and each pair's two.

    ``tokens`` in first-seen order; ``ends`` (p, 2) their rows in ``tokens``. Made by
    ``pair_tokens``.
    """

    def __init__(self, tokens: list[Token], ends: NDArray[np.intp]) -> None:
        self.tokens, self.ends = tokens, ends


def pair_tokens(
    built: BuiltScene, pairs: Sequence[tuple[Token | None, Token]]
) -> PairTokens | None:
    """``PairTokens`` of ``pairs`` when a ruleset may plan them as one batch, else ``None``.

    ``None`` for fewer than two pairs, a pair without attacker (an area's point of origin)
    or a token outside the scene. Cost: O(pairs) dictionary look-ups.
    """
    if len(pairs) < 2 or any(attacker is None for attacker, _ in pairs):
        return None
    tokens, ends = distinct_tokens(cast(Sequence[tuple[Token, Token]], pairs))
    if any(tok.id not in built.token_order for tok in tokens):
        return None
    return PairTokens(tokens, ends)


A = TypeVar("A")


class PlannedAsks(Sequence[A]):
    """A ruleset's asks of many token pairs planned as one ``QuestionBatch`` (a matrix).

    ``questions`` the batch; ``shared`` the pairs sharing a space (5E-COV-7), by row, with
    who shares it; ``make(row, question, shared)`` one pair's ask, made only when indexed.
    """

    def __init__(
        self,
        questions: QuestionBatch,
        shared: dict[int, Sequence[str]],
        make: Callable[[int, Question, Sequence[str]], A],
    ) -> None:
        self.questions, self.shared, self._make = questions, shared, make

    def __len__(self) -> int:
        return len(self.questions)

    @overload
    def __getitem__(self, r: int) -> A: ...

    @overload
    def __getitem__(self, r: slice) -> list[A]: ...

    def __getitem__(self, r: int | slice) -> A | list[A]:
        if isinstance(r, slice):
            return [self[i] for i in range(len(self))[r]]
        r = range(len(self))[r]
        return self._make(r, self.questions[r], self.shared.get(r, ()))


def plan_pairs(
    built: BuiltScene,
    pairs: Sequence[tuple[Token | None, Token]],
    found: PairTokens,
    points: tuple[FloatArray, FloatArray],
    pairing: Literal["paired", "every"],
    inner: tuple[FloatArray, FloatArray],
    exact: tuple[FloatArray, FloatArray] | None = None,
    n_sources: NDArray[np.intp] | None = None,
) -> tuple[QuestionBatch, dict[int, Sequence[str]]]:
    """The ``QuestionBatch`` of token pairs from per-token arrays, and who shares a space.

    Parameters
    ----------
    built : BuiltScene
    pairs : sequence of (Token, Token)
    found : PairTokens
        ``pair_tokens(built, pairs)``.
    points : (ndarray (k, s, 2), ndarray (k, t, 2))
        Per token of ``found.tokens``, its sample points in px as a source and as a target.
    pairing : {"paired", "every"}
    inner : (ndarray (k, 4), ndarray (k, 4))
        Per token, its inner space in px as a source and as a target (the exact line's).
    exact : (ndarray (k, s, 2), ndarray (k, t, 2)), optional
        Per token, the exact corners its points were inset from (GEO-6).
    n_sources : ndarray (k,) of int, optional
        Per token, how many of its ``s`` source points it has (``QuestionBatch.n_sources``:
        tokens of different sizes, their points padded to the most).

    Returns
    -------
    questions : QuestionBatch
        The question each pair would plan alone: the band from the attacker's vertical
        extent to the target's (GEO-5a), every creature but the two blocking (GEO-7), less
        those sharing either space (5E-COV-7, ``shared_space``).
    shared : dict of int to sequence of str
        Rows of the pairs with someone in either space, and who.

    Cost: O(tokens) Python and O(pairs) array work, plus O(pairs sharing a space).
    """
    a, t = found.ends[:, 0], found.ends[:, 1]
    spans = np.array([built.span(tok) for tok in found.tokens], dtype=np.float64).reshape(-1, 2)
    order = np.array([built.token_order[tok.id] for tok in found.tokens], dtype=np.intp)
    sharing = np.array([bool(built.sharing[tok.id]) for tok in found.tokens], dtype=bool)
    shared: dict[int, Sequence[str]] = {}
    excluded: dict[int, frozenset[str]] = {}
    for r in np.flatnonzero(sharing[a] | sharing[t]).tolist():
        attacker, target = pairs[r]
        assert attacker is not None
        box = built.token_boxes[attacker.id]
        shared[r], excluded[r] = shared_space(built, attacker, target, box, False)
    questions = QuestionBatch(
        points[0][a],
        points[1][t],
        pairing,
        np.column_stack([spans[a, 0], spans[t, 0]]),
        np.column_stack([spans[a, 1], spans[t, 1]]),
        inner[0][a],
        inner[1][t],
        np.column_stack([order[a], order[t]]),
        [tok.id for tok in built.scene.tokens],
        excluded,
        None if exact is None else exact[0][a],
        None if exact is None else exact[1][t],
        n_sources=None if n_sources is None else n_sources[a],
    )
    return questions, shared


@functools.lru_cache(maxsize=512)
def rule_ids(rules: tuple[str, ...]) -> tuple[str, ...]:
    """``rules`` without repeats, in order (an answer's ``rules``).

    Kept: the few combinations of a ruleset recur over every pair of a matrix.
    """
    return tuple(dict.fromkeys(rules))


def cover_through_covers(
    system: Any,
    built: BuiltScene,
    ask: Any,
    measured: Measured,
    attacker: Token | None,
    target: Token,
    attack: Attack,
    options: dict[str, Any],
) -> CoverResult:
    """``RuleSystem.cover`` of a ruleset that rules on all pairs at once.

    Its ``covers`` of the one pair; a method body: ``return cover_through_covers(self, ...)``.
    """
    pair = [(attacker, target)]
    found = system.covers(built, [ask], [measured], pair, attack, options)
    return found[0]  # type: ignore[no-any-return]


def cover_each(
    system: Any,
    built: BuiltScene,
    asks: Sequence[Any],
    measured: Sequence[Measured],
    pairs: Sequence[tuple[Token | None, Token]],
    attack: Attack,
    options: dict[str, Any],
) -> list[CoverResult]:
    """``RuleSystem.covers`` for a ruleset that rules on each pair alone, in order.

    Its ``cover`` of every pair; assign it in the class body: ``covers = cover_each``.
    """
    return [
        system.cover(built, ask, m, a, t, attack, options)
        for ask, m, (a, t) in zip(asks, measured, pairs, strict=True)
    ]
