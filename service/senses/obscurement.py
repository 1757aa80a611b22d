"""Obscurement from regions: at a token's space, along a pair's line (5E-VIS-1/2, GEO-9).

A region's ``obscurement`` (``light`` or ``heavy``), or its ``concealment: true`` flag read
as light obscurement (GEO-9), counts where its height range meets the creatures' vertical
extent (GEO-5, GEO-5a). This module says how obscured a token's space is
(``obscurement_at``), whether heavy obscurement holds the whole space (``wholly_inside``),
which regions conceal a pair (``concealing_regions``, PV-DET-6) and which pairs' centre lines
cross heavy fog that holds only part of their band (``fog_partly_on_line``).

References
----------
shared/RULES.md 5E-VIS-1, 5E-VIS-2, GEO-5, GEO-5a, GEO-9, PV-DET-6.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely

from service.engine.scene import BuiltScene
from service.engine.spaces import inset_box
from service.geometry.bands import region_meets, span_meets
from service.geometry.exact import centre_lines
from service.geometry.trace import TraceSpec, trace
from service.model import Region, Token


def region_obscurement(region: Region) -> str | None:
    """GEO-9: a region's obscurement, ``concealment: true`` counting as ``light``."""
    if region.obscurement is not None:
        return region.obscurement
    return "light" if region.concealment else None


def _height_meets(built: BuiltScene, token: Token, region: Region) -> str:
    """How a region's height range meets a token's vertical extent (GEO-5, GEO-5a)."""
    span = region.elevation
    if span is None:
        return "covers"
    return span_meets(built.span(token), span.bottom, span.top)


def wholly_inside(built: BuiltScene, token: Token, obscurement: str) -> bool:
    """Whether a region of ``obscurement`` holds the token's whole space and height (5E-VIS-1)."""
    regions = [r for r in built.scene.regions if r.obscurement == obscurement]
    if not regions:
        return False
    space = shapely.box(*built.token_boxes[token.id])
    return any(
        shapely.covers(built.region_shapes[r.id], space)
        and _height_meets(built, token, r) == "covers"
        for r in regions
    )


def obscurement_at(built: BuiltScene, token: Token) -> str:
    """Obscurement of a token's space from regions (5E-VIS-1, GEO-9).

    | regions at the space (inset 0.5 px)                  | obscurement |
    | ---------------------------------------------------- | ----------- |
    | a heavy region covers the whole space                | ``heavy``   |
    | a heavy region covers only part of it                | ``light``   |
    | a light region, or a ``concealment`` one, overlaps it | ``light``   |
    | none                                                 | ``none``    |

    A space partly in dense fog is lightly obscured: the part outside is seen (as GEO-5a
    reads a region covering only part of a line's band). A region with a height range
    counts only where it meets the token's vertical extent, and at most as light where it
    covers only part of it (GEO-5, GEO-5a).
    """
    if not any(region_obscurement(r) for r in built.scene.regions):
        return "none"
    space = shapely.box(*inset_box(built.token_boxes[token.id], 0.5))
    worst = "none"
    for r in built.scene.regions:
        kind = region_obscurement(r)
        if kind and shapely.intersects(built.region_shapes[r.id], space):
            meets = _height_meets(built, token, r)
            if meets == "misses":
                continue
            if (
                kind == "heavy"
                and meets == "covers"
                and shapely.covers(built.region_shapes[r.id], space)
            ):
                return "heavy"
            worst = "light"
    return worst


def concealing_regions(
    built: BuiltScene, pairs: Sequence[tuple[Token, Token]]
) -> list[tuple[str, ...]]:
    """For each pair, the ids of the concealing regions (GEO-9) on its line or at its target.

    A region conceals when it has ``obscurement`` (light or heavy) or ``concealment``; it
    counts when the segment between the two spaces' centres crosses it or when it overlaps
    the target's space (inset 0.5 px) (PV-DET-6). A region with a height range that misses
    the pair's band (from the lower of the two creatures' bottoms to the higher of their
    tops) conceals nothing (GEO-5, GEO-5a).

    Cost: one vectorised shapely test per concealing region over all pairs.
    """
    regions = [r for r in built.scene.regions if region_obscurement(r)]
    if not regions or not pairs:
        return [()] * len(pairs)
    out: list[list[str]] = [[] for _ in pairs]
    lines = shapely.linestrings([[built.centre(o), built.centre(t)] for o, t in pairs])
    spaces = shapely.box(*np.array([inset_box(built.token_boxes[t.id], 0.5) for _, t in pairs]).T)
    for r in regions:
        shape = built.region_shapes[r.id]
        hit = shapely.intersects(shape, lines) | shapely.intersects(shape, spaces)
        for k in np.flatnonzero(hit).tolist():
            if not region_meets(r, built.span(pairs[k][0]), built.span(pairs[k][1])):
                continue
            out[k].append(r.id)
    return [tuple(ids) for ids in out]


def fog_partly_on_line(
    built: BuiltScene, box_o: np.ndarray, box_t: np.ndarray, bands: np.ndarray
) -> list[bool]:
    """Per pair, whether the centre line crosses heavy fog holding only part of its band.

    ``box_o`` and ``box_t`` (p, 4) px: the observers' and targets' inset spaces; ``bands``
    (p, 4) grid units (``lines.pair_bands``). GEO-5a: a region that covers only part of a
    line's band obscures that line at most lightly (its outline then does not block
    sight). One trace of the p centre lines, only when the scene has heavy fog and heights.
    """
    if built.sight_walls is None or not built.heights or not len(box_o):
        return [False] * len(box_o)
    index = built.sight_walls
    centres = centre_lines(box_o, box_t)
    pseudo = np.zeros(index.size, dtype=bool)
    pseudo[index.room_walls or 0 :] = True
    traced = trace(index, centres, TraceSpec(sense="sight", wall_mask=pseudo), elevations=bands)
    return [bool(low) for low in traced.low_blockers]
