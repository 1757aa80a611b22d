"""Magical darkness between two spaces, for the GM option ``magical_darkness_blocks_sight``.

Foundry v12's behaviour, off by default (5E-VIS-4 reads darkness as the target's light
only): magical darkness between the spaces blocks sight, darkvision and x-ray vision
through it when every sampled line (inset corners and centre of each space, 25 lines)
crosses it; devil's sight and truesight see through it (5E-VIS-6, 5E-VIS-7).

References
----------
shared/RULES.md 5E-VIS-3..7, GEO-5; shared/API.md "Vision and detection" (GM options).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.scene import BuiltScene
from service.engine.spaces import inset_box
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.lighting import in_span
from service.model import Token

#: Senses that magical darkness between the spaces blocks under the GM option.
DARKNESS_BLOCKS = ("sight", "darkvision", "xray")


def _sample_points(box: tuple[float, ...], inset: float) -> list[tuple[float, float]]:
    x0, y0, x1, y1 = inset_box(box, inset)
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1), ((x0 + x1) / 2, (y0 + y1) / 2)]


def magical_darkness_area(built: BuiltScene, elevations: tuple[float, float]) -> object | None:
    """Union of magical darkness (regions and darkness lights' outer discs), or ``None``.

    A region counts when its height range ``[bottom, top)`` holds either elevation (GEO-5);
    a darkness light is its full disc (walls are not subtracted). Only lights that shine
    for everyone count (``service.lighting``: ``on``, ``seen_by``).
    """
    parts = []
    elev = np.array(elevations, dtype=np.float64)
    for r in built.scene.regions:
        if r.magical_darkness and in_span(r.elevation, elev).any():
            parts.append(built.region_shapes[r.id])
    ppu = built.scene.grid.px_per_unit
    for light in built.scene.lights:
        outer = max(light.bright, light.dim)
        if light.darkness and light.on and light.seen_by == "everyone" and outer > 0:
            parts.append(shapely.Point(light.x, light.y).buffer(outer * ppu))
    return shapely.union_all(parts) if parts else None


def darkness_between(
    built: BuiltScene, observer: Token, target: Token, inset: float = DEFAULT_CORNER_INSET_PX
) -> bool:
    """Whether magical darkness lies across every sampled line between the two spaces.

    The lines join the inset corners and centre of each space (25 lines); a line counts as
    crossing when it meets the darkness area (``magical_darkness_area``).
    """
    area = magical_darkness_area(built, (observer.elevation, target.elevation))
    if area is None:
        return False
    a = _sample_points(built.token_boxes[observer.id], inset)
    b = _sample_points(built.token_boxes[target.id], inset)
    lines = shapely.linestrings([[p, q] for p in a for q in b])
    return bool(shapely.intersects(area, lines).all())


def darkness_cuts(
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    reaches: dict[str, NDArray[np.bool_]],
    inset: float,
) -> NDArray[np.bool_]:
    """GM option ``magical_darkness_blocks_sight``: cut sight-based senses in ``reaches``.

    For each pair that some sense of ``DARKNESS_BLOCKS`` reaches and with magical darkness
    across every sampled line (``darkness_between``), those senses become ``False`` (in
    place). Returns which pairs were cut, shape (p,).
    """
    cut = np.zeros(len(pairs), dtype=bool)
    seen = np.logical_or.reduce([reaches[s] for s in DARKNESS_BLOCKS])
    for k in np.flatnonzero(seen).tolist():
        observer, target = pairs[k]
        cut[k] = darkness_between(built, observer, target, inset)
    for s in DARKNESS_BLOCKS:
        reaches[s] &= ~cut
    return cut
