"""Every (observer, target) pair's measured senses as columns, one row per pair.

``SenseColumns.measure`` is the one measurement behind ``perceive_all`` and ``locate_all``:
the pairs' own work against the budget (``VISION_PAIR_UNITS``, big hex footprints), each
token's inset space and vertical extent once, the exact lines for sight, effect and sound
(``service.senses.lines``), the distances (GEO-8), the light over each target once
(``service.lighting``) and which senses reach (``service.senses.reach``).

References
----------
shared/RULES.md 5E-VIS-1..10, GEO-5a, GEO-8; ``service.engine.budget``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.budget import HEX_CELL_UNITS, WorkBudget, vision_units
from service.engine.grids import SMALL_FOOTPRINT
from service.engine.scene import BuiltScene, distinct_tokens
from service.engine.spaces import inset_box
from service.errors import OverBudget
from service.geometry.exact import LineOfEffect
from service.geometry.surfaces import planes
from service.lighting import LightSample, has_private_light, light_over_token, shining_lights
from service.model import Light, Token
from service.senses.darkness import darkness_cuts
from service.senses.distances import big_hexes, pair_distances
from service.senses.lines import measure_lines, pair_bands
from service.senses.obscurement import wholly_inside
from service.senses.reach import LIGHT_CODE, sense_reaches, underground

#: Each distinct light sample asked: the target, the observer whose private light shines
#: there (else ``None``) and the lights shining.
LightKey = tuple[Token, Token | None, list[Light]]


@dataclass(frozen=True)
class SenseColumns:
    """Every pair's measured senses as columns (one row per pair, ``p`` pairs).

    Attributes
    ----------
    tokens : list of Token
        The pairs' distinct tokens; ``rows`` (p, 2) gives the observer's and the target's.
    boxes : ndarray (t, 4)
        Each token's space inset by the request's inset, px.
    bands : ndarray (p, 4)
        GEO-5a: observer bottom, target bottom, observer top, target top (grid units).
    distance : list of float (p,)
        Grid units (GEO-8).
    light_keys : list of (target, observer or None, lights)
        Each distinct light sample asked: the target, the observer whose private light
        shines there (else ``None``) and the lights shining; ``samples`` the same order.
    light_of : ndarray (p,)
        Each pair's row in ``samples``.
    clear : ndarray (3, p)
        Line of sight, line of effect, line for sound.
    lines : three lists of LineOfEffect, or None
        The same lines, measured (``listed``), else ``None``.
    reaches : dict of str to ndarray (p,) of bool
        Each sense of ``PRECISE`` and ``hearing``: whether it locates the target.
    invisible, sees_invisible, darkened : ndarray (p,) of bool
        The target is invisible; the observer sees invisible at this distance; the GM
        option ``magical_darkness_blocks_sight`` cut sight-based senses.
    """

    tokens: list[Token]
    rows: NDArray[np.intp]
    boxes: NDArray[np.float64]
    bands: NDArray[np.float64]
    distance: list[float]
    light_keys: list[LightKey]
    samples: list[LightSample]
    light_of: NDArray[np.intp]
    clear: NDArray[np.bool_]
    lines: tuple[list[LineOfEffect], ...] | None
    reaches: dict[str, NDArray[np.bool_]]
    invisible: NDArray[np.bool_]
    sees_invisible: NDArray[np.bool_]
    darkened: NDArray[np.bool_]

    @classmethod
    def measure(
        cls,
        built: BuiltScene,
        pairs: Sequence[tuple[Token, Token]],
        diagonals: str,
        inset: float,
        budget: WorkBudget | None,
        darkness_blocks: bool,
        *,
        listed: bool,
        defeated: bool = True,
    ) -> SenseColumns:
        """Measure every pair (``perceive_all``'s parameters).

        ``listed``: keep the lines; ``defeated``: magical darkness defeats darkvision
        (``perceive_all``'s ``darkvision_defeated``).
        """
        if budget is not None:
            _spend_pair_units(built, pairs, budget)
        # Each token once (first seen): its inset space and its vertical extent, rows of
        # per-token arrays.
        tokens, rows = distinct_tokens(pairs)
        boxes = np.array([inset_box(built.token_boxes[t.id], inset) for t in tokens])
        extents = np.array([built.span(t) for t in tokens], dtype=np.float64).reshape(-1, 2)
        if budget is not None:  # the cost model: a sample's exact lines, scaled

            def sample(some: NDArray[np.intp], trial: WorkBudget) -> float:
                measure_lines(built, boxes, extents, rows[some], trial, listed=False)
                return 0.0  # the pairs' own work is spent already (``_spend_pair_units``)

            budget.foresee(len(rows), sample)
        measured = measure_lines(built, boxes, extents, rows, budget, listed=listed)
        clear = np.stack([m[1] for m in measured])
        clear[:2] &= ~underground(tokens, rows)  # GEO-12: no sight or effect to a burrower
        distance = pair_distances(built, pairs, diagonals, (tokens, rows))
        light_keys, samples, light_of = _light_samples(built, tokens, rows, budget)
        reaches, invisible, sees_invisible = sense_reaches(
            tokens,
            rows,
            np.asarray(distance, dtype=np.float64),
            np.array([LIGHT_CODE[s.level] for s in samples], dtype=np.int8)[light_of],
            np.array([s.magical_darkness for s in samples], dtype=bool)[light_of],
            clear,
            np.array([wholly_inside(built, t, "heavy") for t in tokens], dtype=bool),
            floor_between(built, tokens, rows),
            defeated,
        )
        darkened = np.zeros(len(pairs), dtype=bool)
        if darkness_blocks:
            darkened = darkness_cuts(built, pairs, reaches, inset)
        return cls(
            tokens,
            rows,
            boxes,
            pair_bands(extents, rows[:, 0], rows[:, 1]),
            distance,
            light_keys,
            samples,
            light_of,
            clear,
            tuple(m[0] for m in measured) if listed else None,  # type: ignore[misc]
            reaches,
            invisible,
            sees_invisible,
            darkened,
        )


def floor_between(
    built: BuiltScene, tokens: list[Token], rows: NDArray[np.intp]
) -> NDArray[np.bool_]:
    """Pairs with a floor between them (GEO-10, for GEO-11's "the same ground"), (p,) bool.

    A surface that blocks movement lies between two creatures when its elevation is above
    the lower one's and at most the higher one's, and it holds either one's centre (the
    floor the higher one stands on, the ceiling over the lower one). O(surfaces x pairs).
    """
    out = np.zeros(len(rows), dtype=bool)
    surfaces = built.surfaces
    if surfaces is None or not surfaces.size or not len(rows):
        return out
    elevation = np.array([t.elevation for t in tokens], dtype=np.float64)
    centre = np.array([built.centre(t) for t in tokens], dtype=np.float64).reshape(-1, 2)
    lo = np.minimum(elevation[rows[:, 0]], elevation[rows[:, 1]])
    hi = np.maximum(elevation[rows[:, 0]], elevation[rows[:, 1]])
    for level, shape in planes(surfaces, "move"):
        between = (lo < level) & (level <= hi)
        if not between.any():
            continue
        inside = shapely.contains_xy(shape, centre[:, 0], centre[:, 1])
        out |= between & (inside[rows[:, 0]] | inside[rows[:, 1]])
    return out


def _spend_pair_units(
    built: BuiltScene, pairs: Sequence[tuple[Token, Token]], budget: WorkBudget
) -> None:
    """Spend each pair's own work (``vision_units``) before any tracing.

    Raises
    ------
    OverBudget
        The pairs would pass ``budget``; when most of it is the distances between big hex
        footprints (``big_hexes``), the message says so.
    """
    big = big_hexes(built, pairs)
    own = vision_units(len(pairs), big)
    try:
        budget.afford(own)
    except OverBudget as exc:
        if big * HEX_CELL_UNITS < own / 2:
            raise
        raise OverBudget(  # say what costs most: the footprints' distances
            f"{exc} Most of it is the distances between tokens of more than "
            f"{SMALL_FOOTPRINT} hexes (each pair compares their hexes): make them "
            "smaller."
        ) from exc
    budget.spend(int(own))


def _light_samples(
    built: BuiltScene, tokens: list[Token], rows: NDArray[np.intp], budget: WorkBudget | None
) -> tuple[list[LightKey], list[LightSample], NDArray[np.intp]]:
    """Light over each target, once per target (``light_over_token``).

    Once more per observer whose private carried light shines only for itself
    (``has_private_light``). Returns the light samples asked (in the pairs' order), what
    each sampled, and each pair's row among them, shape (p,).
    """
    n = len(tokens)
    obs, tgt = rows[:, 0], rows[:, 1]
    private = np.array([has_private_light(t) for t in tokens], dtype=bool)
    code = np.where(private[obs], (obs.astype(np.int64) + 1) * n + tgt, tgt)
    distinct, first, light_of = np.unique(code, return_index=True, return_inverse=True)
    seen = np.argsort(first)  # the distinct codes in the pairs' order
    public = shining_lights(built)  # gathered once: each gathering scans every token
    light_keys: list[LightKey] = []
    samples = []
    for c in distinct[seen].tolist():
        target, who = tokens[c % n], (tokens[c // n - 1] if c >= n else None)
        sources = public if who is None else shining_lights(built, who)
        light_keys.append((target, who, sources))
        samples.append(light_over_token(built, target, budget, who, sources))
    order = np.empty(len(distinct), dtype=np.intp)
    order[seen] = np.arange(len(distinct))
    return light_keys, samples, order[light_of.reshape(-1)]
