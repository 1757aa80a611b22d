"""Starfinder concealment from regions and conditions (SF-CON-1, -2, -5)."""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

from service.engine.regions import region_geometry
from service.engine.scene import BuiltScene
from service.geometry.trace import segments_touch_regions
from service.model import Token
from service.rules.base import Attack

#: SF-CON-3/4: miss chance per concealment degree (several do not stack).
MISS_CHANCE = {"none": 0, "concealment": 20, "total": 50}

#: Concealment degrees, weakest first (SF-CON-3: the strongest applies).
CONCEALMENT_RANK = {"none": 0, "concealment": 1, "total": 2}

#: SF-CON-5: a target condition that gives concealment against all attacks.
CONCEALED_CONDITIONS = frozenset({"concealed", "blurred", "displaced"})


def adjacent(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two spaces touch (share an edge or a corner) without a square between."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def concealment(
    built: BuiltScene,
    attacker: Token | None,
    target: Token,
    attack: Attack,
    source_box: tuple[float, float, float, float],
    sources: np.ndarray,
    target_corners: np.ndarray,
    options: dict[str, Any],
    rules: list[str],
) -> str:
    """Concealment of ``target`` from regions and conditions (SF-CON-1, -2, -5).

    Parameters
    ----------
    sources : ndarray of shape (s, 2)
        The attacker's corner points in px (SF-COV-1).
    target_corners : ndarray of shape (k, 2)
        px: the target space's 4 corners (6 on hex grids).
    rules : list of str
        Rule ids applied are appended.

    Returns
    -------
    str
        ``none`` or ``concealment``.
    """
    if CONCEALED_CONDITIONS & set(target.conditions):
        rules.append("SF-CON-5")
        return "concealment"
    regions = [r for r in built.scene.regions if r.concealment]
    if not regions:
        return "none"
    polys = [region_geometry(r.shape) for r in regions]
    target_box = built.token_boxes[target.id]
    if attack.kind == "melee" and attacker is not None and adjacent(source_box, target_box):
        rules.append("SF-CON-2")
        space = shapely.box(*target_box)
        inside = any(shapely.covers(p, space) for p in polys)
        return "concealment" if inside else "none"
    rules.append("SF-CON-1")
    segs = np.array([[*s, *t] for s in sources for t in target_corners], dtype=np.float64)
    touched = segments_touch_regions(segs, polys).any(axis=1)
    per_corner = touched.reshape(len(sources), len(target_corners)).any(axis=1)
    reading = options.get("concealment_corner") or "defender"
    hit = per_corner.any() if reading == "defender" else per_corner.all()
    return "concealment" if hit else "none"
