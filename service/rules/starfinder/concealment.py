"""Starfinder concealment from regions and conditions (SF-CON-1, -2, -5, -7).

Regions (GEO-9, one vocabulary for every ruleset): a region with ``concealment: true`` or
``obscurement`` ``light`` gives concealment (20 %); one with ``obscurement`` ``heavy``
gives total concealment (50 %) where it blocks sight (the line of sight is lost at its
outline: SF-CON-4 in the callers), and concealment where it does not (a target partly
inside it: heavy conceals at least as much as light).

``miss_chance`` (SF-CON-7): a GM override, a percentage from 0 to 100 that replaces the
computed miss chance (``miss_chance_of``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import shapely

from service.engine.regions import region_geometry
from service.engine.scene import BuiltScene
from service.geometry.bands import region_meets
from service.geometry.creature_tests import segments_touch_regions
from service.model import Token
from service.rules.base import Attack, OptionSpec
from service.rules.vision_answer import strongest

#: SF-CON-3/4: miss chance per concealment degree (several do not stack).
MISS_CHANCE = {"none": 0, "concealment": 20, "total": 50}

#: Concealment degrees, weakest first (SF-CON-3: the strongest applies).
CONCEALMENT_RANK = {"none": 0, "concealment": 1, "total": 2}

#: SF-CON-5: a target condition that gives concealment against all attacks.
CONCEALED_CONDITIONS = frozenset({"concealed", "blurred", "displaced"})

#: SF-CON-7: the GM's miss chance override (cover and vision).
MISS_CHANCE_OPTION = OptionSpec(
    None,
    "SF-CON-7: a miss chance in % (0-100) set by the GM for a special situation; it "
    "replaces the computed one (20 % concealment, 50 % total).",
)


def miss_chance_of(degree: str, options: dict[str, Any], rules: list[str]) -> int:
    """The miss chance in % of a concealment degree, or the GM's ``miss_chance`` (SF-CON-7).

    ``rules`` gets ``SF-CON-7`` when the override applies.
    """
    override = options.get("miss_chance")
    if override is None:
        return MISS_CHANCE[degree]
    rules.append("SF-CON-7")
    return int(override)


def adjacent(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two spaces touch (share an edge or a corner) without a square between."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def conceals(built: BuiltScene) -> bool:
    """Whether some region of ``built`` may conceal (``concealment`` or ``obscurement``, GEO-9).

    Without one, ``concealment`` depends only on the target's conditions (SF-CON-5).
    """
    return any(r.concealment or r.obscurement is not None for r in built.scene.regions)


def concealment(
    built: BuiltScene,
    attacker: Token | None,
    target: Token,
    attack: Attack,
    source_box: tuple[float, float, float, float],
    corner_points: Callable[[], tuple[np.ndarray, np.ndarray]],
    options: dict[str, Any],
    rules: list[str],
) -> str:
    """Concealment of ``target`` from regions and conditions (SF-CON-1, -2, -5, GEO-9).

    Every region with ``concealment`` or ``obscurement`` conceals (see the module
    docstring); ``rules`` gets ``GEO-9`` when one does. A region whose height range misses
    the band between the two creatures (the lower bottom to the higher top) conceals nothing
    (GEO-5, GEO-5a).

    Parameters
    ----------
    corner_points : callable
        Returns ``(sources, target_corners)``: the attacker's corner points in px (SF-COV-1),
        shape (s, 2), and the target space's 4 corners (6 on hex grids), shape (k, 2); called
        only when a region may conceal.
    rules : list of str
        Rule ids applied are appended.

    Returns
    -------
    str
        ``none`` or ``concealment``.
    """
    if target.conditions and not CONCEALED_CONDITIONS.isdisjoint(target.conditions):
        rules.append("SF-CON-5")
        return "concealment"
    if not conceals(built):
        return "none"
    spans = [built.span(t) for t in (target, attacker) if t is not None]
    regions = [
        r
        for r in built.scene.regions
        if (r.concealment or r.obscurement is not None) and region_meets(r, *spans)
    ]
    if not regions:
        return "none"
    polys = [region_geometry(r.shape) for r in regions]
    target_box = built.token_boxes[target.id]
    if attack.kind == "melee" and attacker is not None and adjacent(source_box, target_box):
        rules.append("SF-CON-2")
        space = shapely.box(*target_box)
        inside = any(shapely.covers(p, space) for p in polys)
        if inside:
            rules.append("GEO-9")
        return "concealment" if inside else "none"
    rules.append("SF-CON-1")
    sources, target_corners = corner_points()
    segs = np.array([[*s, *t] for s in sources for t in target_corners], dtype=np.float64)
    touched = segments_touch_regions(segs, polys).any(axis=1)
    per_corner = touched.reshape(len(sources), len(target_corners)).any(axis=1)
    reading = options.get("concealment_corner") or "defender"
    hit = per_corner.any() if reading == "defender" else per_corner.all()
    if hit:
        rules.append("GEO-9")
    return "concealment" if hit else "none"


def cover_concealment(
    built: BuiltScene,
    attacker: Token | None,
    target: Token,
    attack: Attack,
    source_box: tuple[float, float, float, float],
    corner_points: Callable[[], tuple[np.ndarray, np.ndarray]],
    options: dict[str, Any],
    rules: list[str],
    found: tuple[bool, bool, bool],
    sensed: tuple[list[str], bool] | None = None,
) -> tuple[str, int]:
    """A cover answer's concealment and miss chance (SF-CON-1..8).

    ``found``: whether the cover is total, and the pair's line of effect and of sight. Under
    total cover there is no concealment to tell; line of effect without line of sight is
    total concealment (SF-CON-4); else ``concealment``. ``sensed``: what the attacker's
    senses found (``vision.perceived``: the concealments from light, sight and
    invisibility, and whether by sight), so that the answer agrees with ``/v1/vision``
    (SF-CON-8); a target perceived without sight has no concealment from regions either.
    ``rules`` gets the rule ids applied.
    """
    total, loe_clear, los_clear = found
    degree = "none"
    if not total:
        by_sight = sensed is None or sensed[1]
        if by_sight:
            degree = concealment(
                built, attacker, target, attack, source_box, corner_points, options, rules
            )
        if loe_clear and not los_clear and by_sight:
            degree = "total"
            rules.append("SF-CON-4")
        if sensed is not None:
            degree = strongest(CONCEALMENT_RANK, [degree, *sensed[0]])
    if degree != "none":
        rules.append("SF-CON-3")
    return degree, miss_chance_of(degree, options, rules)  # SF-CON-7: the GM's override
