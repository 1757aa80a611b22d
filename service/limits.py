"""The scene limits of the service and their messages (``docs/decisions.md`` "Bounded work").

A scene over a count limit (``SIGHTLINE_MAX_WALLS``, ``_TOKENS``, ``_LIGHTS``, ``_REGIONS``) or
over the outline points of all its polygon regions together (``SIGHTLINE_MAX_REGION_POINTS``)
answers 422 at ``scene.<field>``, naming the setting and what to reduce. The counts come from
``schemas.size``: from a request body's bytes before its scene is decoded
(``service.http_errors``), or from a scene made here (``service.api``), with the same
message either way. No Flask here: the limits are any mapping (the app's config).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import shapely

from schemas.size import SceneSize, size_of_scene
from service.errors import RulesError, shown
from service.geometry.crossings import ring_crossings
from service.model import Region, Scene, Surface

#: Per-scene count limits: (scene field, config key without ``SIGHTLINE_``).
SCENE_LIMITS = (
    ("walls", "MAX_WALLS"),
    ("tokens", "MAX_TOKENS"),
    ("lights", "MAX_LIGHTS"),
    ("regions", "MAX_REGIONS"),
)


def size_problems(size: SceneSize, limits: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(message, field)`` for each limit that a scene of ``size`` passes, in a fixed order.

    ``limits`` maps the ``SCENE_LIMITS`` keys and ``MAX_REGION_POINTS`` to numbers (the
    app's config). The field is the scene's field to reduce (``walls`` ... ``regions``).
    """
    out = []
    for field, key in SCENE_LIMITS:
        limit = int(limits[key])
        count = getattr(size, field)
        if count > limit:
            out.append(
                (
                    f"A scene may hold at most {limit} {field} (SIGHTLINE_{key}); "
                    f"this one has {count}.",
                    field,
                )
            )
    limit = int(limits["MAX_REGION_POINTS"])
    if size.region_points > limit:
        out.append(
            (
                f"The regions' outlines may hold at most {limit:,} points in all "
                f"(SIGHTLINE_MAX_REGION_POINTS); these hold {size.region_points:,}: simplify "
                f"them (the largest, {shown(size.largest_id)}, has {size.largest_points:,}).",
                "regions",
            )
        )
    return out


def check_scene(scene: Scene, limits: Mapping[str, Any], path: str = "scene") -> None:
    """Raise the 422 of the first limit ``scene`` passes: its counts, then its outlines.

    The counts of walls, tokens, lights and regions and the region points
    (``size_problems``: the build and every sight line grow with them), at
    ``<path>.<field>``; then the self-crossings of its region outlines and floor rings
    (:data:`MAX_OUTLINE_CROSSINGS`), at the ring that passes them. O(regions + points).

    Raises
    ------
    RulesError
        422, the first problem found.
    """
    check_size(size_of_scene(scene), limits, path)
    where = outline_past_crossings(scene_rings(enumerate(scene.regions), enumerate(scene.surfaces)))
    if where is not None:
        raise RulesError(OUTLINE_MESSAGE, (path, *where))


def check_size(size: SceneSize | None, limits: Mapping[str, Any], path: str = "scene") -> None:
    """Raise the 422 of the first limit a scene of ``size`` passes (nothing for ``None``).

    Raises
    ------
    RulesError
        At ``<path>.<field>`` (``scene.regions``), with ``size_problems``' message.
    """
    if size is None:
        return
    problems = size_problems(size, limits)
    if problems:
        message, field = problems[0]
        raise RulesError(message, (path, field))


#: Most self-crossings of a scene's polygon region outlines and floor rings together. GEOS
#: repairs a ring that crosses itself (``shapely.make_valid``, as the regions and floors are
#: built) in time that grows with the square of its crossings: measured, a star outline of
#: 45 points (945 crossings) 0.4 s, of 65 (2,015) 1.3 s, of 101 (4,949) 13.6 s, of 201
#: 177 s. Real outlines cross themselves a few times at most.
MAX_OUTLINE_CROSSINGS = 1_000

#: The 422 for outlines past :data:`MAX_OUTLINE_CROSSINGS` (at the ring that passes it).
OUTLINE_MESSAGE = (
    f"The outlines of a scene's regions and floors may cross themselves at most "
    f"{MAX_OUTLINE_CROSSINGS:,} times in all; with this one they cross more: draw it without "
    "crossing its own edges, or as several simple polygons."
)

Path = tuple[str | int, ...]


def scene_rings(
    regions: Iterable[tuple[str | int, Region]], surfaces: Iterable[tuple[str | int, Surface]]
) -> Iterator[tuple[Path, Sequence[Sequence[float]]]]:
    """Each polygon region's outline and each floor ring, with its path under the scene.

    ``regions``, ``surfaces``: ``(key, item)`` with the key of the item in its collection
    (its index, or its id for a ``PATCH``). Paths: ``("regions", key, "shape", "points")``,
    ``("surfaces", key, "outline", polygon, ring)``. O(rings).
    """
    for key, region in regions:
        if region.shape.type == "polygon":
            yield ("regions", key, "shape", "points"), region.shape.points
    for key, surface in surfaces:
        for p, polygon in enumerate(surface.outline):
            for r, ring in enumerate(polygon):
                yield ("surfaces", key, "outline", p, r), ring


def outline_past_crossings(
    rings: Iterable[tuple[Path, Sequence[Sequence[float]]]], limit: int = MAX_OUTLINE_CROSSINGS
) -> Path | None:
    """The path of the ring with which the rings' self-crossings pass ``limit``, or ``None``.

    A ring GEOS takes as valid crosses nothing; the others are counted
    (``geometry.crossings.ring_crossings``, up to what the rings before left of
    ``limit``), before any repair. Cost: O(points) for the valid rings (``is_valid``),
    O(edges in their grid cells) compiled for the others, stopping past the limit.
    """
    left = limit
    for path, ring in rings:
        xy = np.asarray(ring, dtype=np.float64).reshape(-1, 2)
        if len(xy) < 4 or shapely.is_valid(shapely.polygons(xy)):
            continue
        left -= ring_crossings(xy, left)
        if left < 0:
            return path
    return None
