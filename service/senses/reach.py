"""Which senses locate each target, for many pairs at once, and a ruleset's order of them.

The rules of ``service.senses`` (5E-VIS-1..9) as boolean columns, one row per
(observer, target) pair (``sense_reaches``), and the table through which a ruleset names
the sense that locates a target (``SenseOrder``, API.md ``sense``).

References
----------
shared/RULES.md 5E-VIS-1..10; shared/API.md "Vision and detection".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from service.model import LIGHT_LEVELS, Token

#: Precise senses in the order API.md names them (the first that reaches is ``sense``).
PRECISE = ("sight", "darkvision", "devils_sight", "truesight", "blindsight", "tremorsense", "xray")
#: Senses that use eyes (fail when blinded, lose invisible targets, suffer obscurement).
VISUAL = frozenset({"sight", "darkvision", "devils_sight", "truesight", "xray"})

#: Light levels as codes for the columns of ``sense_reaches`` (``service.model.LIGHT_LEVELS``).
LIGHT_CODE = {level: code for code, level in enumerate(LIGHT_LEVELS)}

#: The ranged senses of ``Senses`` read into columns, in this order.
_RANGES = (
    "see_invisibility",
    "truesight",
    "darkvision",
    "devils_sight",
    "blindsight",
    "tremorsense",
    "xray",
    "hearing",
)

#: The conditions read into columns, in this order: the perception's vocabulary (GEO-12;
#: ``ethereal``: on the Ethereal Plane, ``burrowing``: under the ground).
_FLAGS = ("blinded", "deafened", "invisible", "flying", "ethereal", "burrowing")
#: The conditions the perception reads (every ruleset's vocabulary holds them, GEO-12).
SENSE_CONDITIONS = frozenset(_FLAGS)


@dataclass(frozen=True)
class SenseOrder:
    """Which sense a ruleset names as locating a target, in its order (API.md ``sense``).

    A ruleset's table: the first of ``precise`` that reaches is the answer's ``sense`` and
    the target is seen (``can_see``); else the first of ``imprecise`` that reaches locates
    it unseen; else nothing does (``None``).

    Attributes
    ----------
    precise : tuple of str
        Senses of ``PRECISE`` that see, in order.
    imprecise : tuple of str
        Senses that only locate, in order (``hearing`` last).
    """

    precise: tuple[str, ...] = PRECISE
    imprecise: tuple[str, ...] = ("hearing",)

    def located(self, reaches: Mapping[str, bool]) -> tuple[str | None, bool]:
        """``(sense, can_see)`` for one pair's ``SenseReport.reaches``."""
        for sense in self.precise:
            if reaches.get(sense):
                return sense, True
        for sense in self.imprecise:
            if reaches.get(sense):
                return sense, False
        return None, False

    def located_all(
        self, reaches: Mapping[str, NDArray[np.bool_]]
    ) -> tuple[list[str | None], list[bool]]:
        """``located`` for many pairs: ``reaches`` maps each sense to a (p,) bool column."""
        names = (*self.precise, *self.imprecise)
        size = len(next(iter(reaches.values())))
        pick = np.full(size, len(names), dtype=np.intp)
        for i in range(len(names) - 1, -1, -1):  # the first in order wins
            pick[reaches[names[i]]] = i
        table: list[str | None] = [*names, None]
        return [table[i] for i in pick.tolist()], (pick < len(self.precise)).tolist()


def _sense_ranges(tokens: list[Token]) -> NDArray[np.float64]:
    """Each token's ranges of ``_RANGES``, shape (t, 8) grid units; hearing ``None``: inf."""
    return np.array(
        [
            [*(getattr(t.senses, s) for s in _RANGES[:-1]), _unlimited(t.senses.hearing)]
            for t in tokens
        ],
        dtype=np.float64,
    ).reshape(-1, len(_RANGES))


def underground(tokens: list[Token], rows: NDArray[np.intp]) -> NDArray[np.bool_]:
    """Pairs of which either creature is ``burrowing`` (GEO-12): no line of effect or sight.

    ``rows`` (p, 2): each pair's rows of ``tokens``; returns (p,) bool.
    """
    burrowing = _condition_flags(tokens)[:, _FLAGS.index("burrowing")]
    return burrowing[rows[:, 0]] | burrowing[rows[:, 1]]  # type: ignore[no-any-return]


def _condition_flags(tokens: list[Token]) -> NDArray[np.bool_]:
    """Whether each token has each condition of ``_FLAGS``, shape (t, 6)."""
    return np.array(
        [tuple(flag in t.conditions for flag in _FLAGS) for t in tokens], dtype=bool
    ).reshape(-1, len(_FLAGS))


def sense_reaches(
    tokens: list[Token],
    rows: NDArray[np.intp],
    dist: NDArray[np.float64],
    level: NDArray[np.int8],
    magical: NDArray[np.bool_],
    clear: NDArray[np.bool_],
    in_fog: NDArray[np.bool_],
    floor_between: NDArray[np.bool_] | None = None,
    defeated: bool = True,
) -> tuple[dict[str, NDArray[np.bool_]], NDArray[np.bool_], NDArray[np.bool_]]:
    """Which senses locate each target (the rules of ``service.senses``), for all pairs.

    ``tokens`` and ``rows`` (p, 2) as ``SenseColumns``; ``dist`` (p,) grid units;
    ``level`` (p,) ``LIGHT_CODE`` and ``magical`` (p,) over each target; ``clear`` (3, p):
    line of sight, of effect, for sound; ``in_fog`` (t,): heavy obscurement holds the
    token's whole space (5E-VIS-1); ``floor_between`` (p,): a floor lies between the two
    (GEO-10), so tremorsense does not reach (GEO-11; None: no floor anywhere);
    ``defeated``: magical darkness defeats darkvision (5E-VIS-5; off: SF-CON-6 Decision,
    magical darkness is darkness and darkvision sees in it).

    Returns
    -------
    reaches : dict of str to ndarray (p,) of bool
        Each sense of ``PRECISE``, then ``hearing``.
    invisible : ndarray (p,) of bool
        The target has the ``invisible`` condition (or ``ethereal``, which sight likewise
        needs truesight or seeing invisibility for, GEO-12).
    sees_invisible : ndarray (p,) of bool
        The observer sees invisible creatures at this distance (see invisibility or
        truesight in range).
    """
    obs, tgt = rows[:, 0], rows[:, 1]
    ranges = _sense_ranges(tokens)[obs]
    flags = _condition_flags(tokens)

    def within(sense: str) -> NDArray[np.bool_]:
        rng = ranges[:, _RANGES.index(sense)]
        return (rng > 0) & (dist <= rng)

    blinded, deafened = flags[obs, 0], flags[obs, 1]
    invisible = flags[tgt, 2]
    # GEO-12: an ethereal target is perceived only by truesight or seeing invisibility
    ethereal = flags[tgt, 4]
    sees_invisible = within("see_invisibility")
    lit = (level >= LIGHT_CODE["dim"]) & ~magical
    truesight, darkvision, devils_sight = (
        within("truesight"),
        within("darkvision"),
        within("devils_sight"),
    )
    los, loe, sound = clear
    eyes_ok = ~blinded & ~(in_fog[obs] | in_fog[tgt]) & los
    visible = ~(invisible | ethereal) | sees_invisible
    # GEO-11: the same ground: neither flies and no floor lies between (a ledge is ground)
    on_ground = ~flags[obs, 3] & ~flags[tgt, 3]
    if floor_between is not None:
        on_ground &= ~floor_between
    here = ~ethereal  # the senses that are not sight stay on this plane (GEO-12)
    reaches = {
        "sight": eyes_ok & visible & lit,
        "darkvision": eyes_ok & visible & darkvision & ~(magical & defeated),
        "devils_sight": eyes_ok & visible & devils_sight,
        "truesight": eyes_ok & truesight,
        "blindsight": here & within("blindsight") & loe,
        "tremorsense": here & within("tremorsense") & on_ground,
        "xray": ~blinded
        & visible
        & within("xray")
        & (lit | darkvision & ~(magical & defeated) | devils_sight),
        "hearing": here & ~deafened & within("hearing") & sound,  # 0: cannot hear (``Senses``)
    }
    return reaches, invisible | ethereal, sees_invisible | truesight


def _unlimited(rng: float | None) -> float:
    return np.inf if rng is None else rng
