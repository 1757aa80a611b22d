"""The scene limits of the service and their messages (``docs/decisions.md`` "Bounded work").

A scene over a count limit (``SIGHTLINE_MAX_WALLS``, ``_TOKENS``, ``_LIGHTS``, ``_REGIONS``) or
over the outline points of all its polygon regions together (``SIGHTLINE_MAX_REGION_POINTS``)
answers 422 at ``scene.<field>``, naming the setting and what to reduce. The counts come from
``schemas.size``: from a request body's bytes before its scene is decoded
(``service.http_errors``), or from a scene made here (``service.api``), with the same
message either way. No Flask here: the limits are any mapping (the app's config).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.size import SceneSize
from service.errors import RulesError, shown

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
