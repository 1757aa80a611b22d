"""What every rule system provides, and the result types they share (no Flask).

Measure, then rule: ``service.geometry`` measures (which traced segments are blocked and by
what); a rule system maps those measurements to a degree, bonuses and the rule ids applied.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np
from numpy.typing import NDArray

from service.engine.scene import BuiltScene
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.geometry.measure import Blocker, Measure, TracedLine
from service.model import Token
from service.senses import SenseOrder, SenseReport

if TYPE_CHECKING:  # planning imports this module's Attack
    from service.rules.planning import Asked, Plan

AttackKind = Literal["melee", "ranged", "area", "spell"]


@dataclass(frozen=True)
class Attack:
    """The attack or effect being resolved.

    ``origin`` is the point of origin of an area effect in px (``kind == "area"``);
    ``elevation`` its height in grid units (GEO-5a), ``None``: the attacker's elevation, or
    0 without an attacker. ``spread`` with a ``radius`` (grid units): an area that goes
    around corners (GEO-13, ``service.rules.spread``).
    """

    kind: AttackKind = "ranged"
    origin: tuple[float, float] | None = None
    elevation: float | None = None
    spread: bool = False
    radius: float | None = None


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
    ``auditory_flat_check_dc``). ``detection`` and ``flat_check_dc`` are None outside
    pf2e-variant (API.md: a neutral "observed" would claim what was not seen).
    ``distance`` is in grid units (GEO-8).
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
    detection: str | None = None
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


class RuleSystem(Protocol):
    """A rule system: an id, its cover degrees, options and capabilities, and its rules.

    Cover is asked in three steps so that one pair and a 200-token matrix run the same code
    (``service.rules.ask``): ``cover_measure`` names what to measure, ``cover_plan`` plans
    every pair as one batch, ``service.geometry.measure`` measures all pairs at once, and
    ``covers`` maps each pair's measurement to its answer. A matrix asks only the degrees,
    as arrays (``cover_ranks``): no answer object is made for it. Vision gets a
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
    #: The token conditions the ruleset reads (GEO-12); others are named in ``notes``.
    conditions: frozenset[str]

    def cover_measure(
        self, built: BuiltScene, attack: Attack, options: dict[str, Any], detail: bool
    ) -> Measure:
        """What to measure for every pair of ``built``.

        ``detail``: answers (``covers``) with their lines and blockers; ``False``: the bare
        degrees of ``cover_ranks`` (a matrix), measured without blocker lists.
        """
        ...

    def cover_plan(
        self,
        built: BuiltScene,
        pairs: Sequence[tuple[Token | None, Token]],
        attack: Attack,
        options: dict[str, Any],
    ) -> Plan:
        """Plan every ``(attacker, target)`` pair as one batch (``rules.planning.plan_pairs``).

        Raises
        ------
        service.errors.RulesError
            When the request is well formed but cannot be answered.
        """
        ...

    def covers(self, asked: Asked) -> list[CoverResult]:
        """Cover of every pair of ``asked``, in order, with its lines and notes."""
        ...

    def cover_ranks(self, asked: Asked) -> NDArray[np.int64]:
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


def has_low_obstacles(built: BuiltScene) -> bool:
    """Whether a traced line of ``built`` can meet a low obstacle (``Measured.low_walls``).

    A ``cover: "low"`` wall (``tall_walls``), or a wall of limited height that can cover
    only part of a line's band (GEO-5a, ``heights``); without either, no line has one.
    """
    return built.tall_walls is not None or built.heights


@functools.lru_cache(maxsize=512)
def rule_ids(rules: tuple[str, ...]) -> tuple[str, ...]:
    """``rules`` without repeats, in order (an answer's ``rules``).

    Kept: the few combinations of a ruleset recur over every pair of a matrix.
    """
    return tuple(dict.fromkeys(rules))
