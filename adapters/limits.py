"""The scene limits an export is counted against before it is translated (standard library only).

An import's cost grows with what the export holds: a 254,898-wall Foundry scene or a
Universal VTT file of a million segments would be translated whole, then refused (or
answered with a body of a hundred megabytes). So ``adapters.detect.to_scene`` counts the
scene the adapter would read (the same scene or page picked) from the export's own structure
first, with one helper per format (``adapters.foundry.count_export``,
``adapters.roll20.count_export``, ``adapters.uvtt.count_export``: list lengths and command
counts, nothing translated), and :func:`check_counts` refuses a count past the server's
scene limits with :class:`ExportOverLimits`, a 422 naming the count, the limit and its
setting. The counts are
what the export holds, before any item is skipped (an item the adapter would skip costs its
reading all the same).

The limits are the server's (``SIGHTLINE_MAX_WALLS``, ``_TOKENS``, ``_LIGHTS``, ``_REGIONS``,
``_REGION_POINTS``): ``service.app`` sets them for the time of each request
(:func:`use_limits`, a context variable, so an app's limits never reach another app or
the CLI's own imports); outside a request nothing is refused here.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar

from adapters.errors import AdapterError

__all__ = ["COUNTED", "ExportOverLimits", "check_counts", "import_limits", "use_limits"]

#: What is counted: (count key, the setting without ``SIGHTLINE_``, what it counts).
COUNTED = (
    ("walls", "MAX_WALLS", "walls"),
    ("tokens", "MAX_TOKENS", "tokens"),
    ("lights", "MAX_LIGHTS", "lights"),
    ("regions", "MAX_REGIONS", "regions"),
    ("region_points", "MAX_REGION_POINTS", "region outline points"),
)

_limits: ContextVar[Mapping[str, int] | None] = ContextVar("sightline_import_limits", default=None)


class ExportOverLimits(AdapterError):
    """An export whose scene holds more than the server's scene limits allow (HTTP 422).

    ``path`` is the canonical scene's field to reduce (``("walls",)`` ...); ``count`` and
    ``limit`` the numbers the message gives.
    """

    def __init__(self, message: str, path: tuple[str, ...], count: int, limit: int) -> None:
        super().__init__(message, path)
        self.count = count
        self.limit = limit


def use_limits(values: Mapping[str, object] | None) -> None:
    """Count exports against ``values`` (the app's checked config) from now on in this context.

    Only the :data:`COUNTED` settings are kept; ``None`` stops the counting
    (``service.app`` calls it with ``None`` when the request ends).
    """
    if values is None:
        _limits.set(None)
        return
    _limits.set(
        {
            key: int(value)
            for _, key, _ in COUNTED
            if isinstance(value := values.get(key), int) and not isinstance(value, bool)
        }
    )


def import_limits() -> Mapping[str, int] | None:
    """The limits of this context (:func:`use_limits`), or ``None`` outside a request."""
    return _limits.get()


def check_counts(
    counts: Mapping[str, int], source: Mapping[str, str], limits: Mapping[str, int] | None
) -> None:
    """Refuse ``counts`` past ``limits`` (the first one passed, in :data:`COUNTED` order).

    Parameters
    ----------
    counts : mapping
        What the export holds, by count key (``walls`` ... ``region_points``).
    source : mapping
        Where in the export each count was read, by count key (for the message).
    limits : mapping or None
        Limits by setting name (``MAX_WALLS`` ...); ``None`` or a missing name: no limit.

    Raises
    ------
    ExportOverLimits
        Naming the count, where it was read, the limit and its setting.
    """
    for key, setting, what in COUNTED:
        limit = (limits or {}).get(setting)
        count = counts.get(key, 0)
        if limit is None or count <= limit:
            continue
        field = "regions" if key == "region_points" else key
        raise ExportOverLimits(
            f"the export holds {count:,} {what} ({source.get(key, key)}), over the "
            f"{limit:,} a scene may hold on this server (SIGHTLINE_{setting}); counted before "
            "translating: split the map or remove some, or raise the limit",
            (field,),
            count,
            limit,
        )
