"""Tell which supported format a parsed export is in (imported by the adapters and ``detect``).

Sniffing is structural only (no file names, no version strings required):

* **Universal VTT** (``.dd2vtt``/``.uvtt``/``.df2vtt``): a JSON object with a ``resolution``
  object and ``line_of_sight`` (or ``objects_line_of_sight``/``portals``) -- FORMATS.md (c).
* **Roll20**: a betteR20 module export (``maps`` whose entries carry ``attributes`` or
  ``paths``/``graphics``), an R20Exporter ``campaign.json`` (``R20Exporter_format`` or a
  ``pages`` list), or one such page -- FORMATS.md (b).
* **Foundry VTT**: a scene document (``walls`` or grid fields: ``grid``, ``gridType``,
  ``gridDistance``; or a ``_key`` starting ``!scenes!``), a world export with a ``scenes``
  list, or a list of scene documents -- FORMATS.md (a).

The checks run in that order; the first match wins.

References
----------
shared/FORMATS.md (a), (b), (c); shared/DESIGN.md "Canonical scene".
"""

from __future__ import annotations

from collections.abc import Mapping

from adapters.errors import AdapterError

__all__ = ["detect", "sniff"]

_LOOKED_FOR = (
    "Universal VTT ('resolution' + 'line_of_sight'), Roll20 (betteR20 'maps' with "
    "'attributes'/'paths', R20Exporter 'R20Exporter_format' or 'pages'), Foundry VTT "
    "('walls' or grid fields 'grid'/'gridType'/'gridDistance', a 'scenes' list, or a list "
    "of scene documents)"
)
_GRID_KEYS = ("grid", "gridType", "gridDistance")


def sniff(export: object) -> str | None:
    """Best guess of the format of ``export``, or None.

    Parameters
    ----------
    export : object
        Parsed JSON (normally a dict, or a list for Foundry scene lists).

    Returns
    -------
    str or None
        ``"uvtt"``, ``"roll20"``, ``"foundry"``, or None when nothing matches. Never raises.

    References
    ----------
    shared/FORMATS.md (a), (b), (c).
    """
    if isinstance(export, list):
        docs = [d for d in export if isinstance(d, Mapping)]
        if docs and all(_foundry_scene(d) for d in docs):
            return "foundry"
        return None
    if not isinstance(export, Mapping):
        return None
    if isinstance(export.get("resolution"), Mapping) and any(
        k in export for k in ("line_of_sight", "objects_line_of_sight", "portals")
    ):
        return "uvtt"
    if _roll20(export):
        return "roll20"
    if isinstance(export.get("scenes"), list) or _foundry_scene(export):
        return "foundry"
    return None


def detect(export: object) -> str:
    """Name of the format of ``export``: ``"foundry"``, ``"roll20"`` or ``"uvtt"``.

    Parameters
    ----------
    export : object
        Parsed JSON of an export.

    Returns
    -------
    str
        One of :data:`FORMATS`.

    Raises
    ------
    AdapterError
        When no format matches; the message lists what was looked for and the top-level
        keys found (path ``()``).

    References
    ----------
    shared/FORMATS.md (a), (b), (c).
    """
    found = sniff(export)
    if found is not None:
        return found
    if isinstance(export, Mapping):
        keys = ", ".join(repr(str(k)) for k in list(export)[:12]) or "none"
        seen = f"a JSON object with keys {keys}"
    elif isinstance(export, list):
        seen = f"a list of {len(export)} entries that are not Foundry scene documents"
    else:
        seen = "null" if export is None else f"a JSON {type(export).__name__}"
    raise AdapterError(f"export format not recognised: looked for {_LOOKED_FOR}; got {seen}", ())


def _roll20(export: Mapping) -> bool:
    if "R20Exporter_format" in export or isinstance(export.get("pages"), list):
        return True
    maps = export.get("maps")
    if isinstance(maps, list):
        entries = [m for m in maps if isinstance(m, Mapping)]
        return not entries or any(
            "attributes" in m or "paths" in m or "graphics" in m for m in entries
        )
    has_content = "paths" in export or "graphics" in export
    has_page = isinstance(export.get("attributes"), Mapping) or any(
        k in export for k in ("snapping_increment", "scale_number", "showlighting")
    )
    return has_content and has_page


def _foundry_scene(doc: Mapping) -> bool:
    key = doc.get("_key")
    if isinstance(key, str) and key.startswith("!scenes!"):
        return True
    return "walls" in doc or any(k in doc for k in _GRID_KEYS)
