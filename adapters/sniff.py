"""Tell which supported format a parsed export is in (imported by the adapters and ``detect``).

Sniffing is structural only (no file names, no version strings required):

* **Canonical scene** (Sightline's own format, shared/DESIGN.md "Canonical scene"), told apart
  by :func:`is_canonical` before any export: it is never an export of any format.
* **Universal VTT** (``.dd2vtt``/``.uvtt``/``.df2vtt``): a JSON object with a ``resolution``
  object and ``line_of_sight`` (or ``objects_line_of_sight``/``portals``) -- FORMATS.md (c).
* **Roll20**: a betteR20 module export (``maps`` whose entries carry ``attributes`` or
  ``paths``/``graphics``), an R20Exporter ``campaign.json`` (``R20Exporter_format`` or a
  ``pages`` list), or one such page -- FORMATS.md (b).
* **Foundry VTT**: a scene document (``walls`` or grid fields: ``grid``, ``gridType``,
  ``gridDistance``; or a ``_key`` starting ``!scenes!``), a world export with a ``scenes``
  list, or a list of scene documents -- FORMATS.md (a).

The checks run in that order; the first match wins. :func:`format_hint` is what an adapter
adds to its error when the export it was given looks like another format.

References
----------
shared/FORMATS.md (a), (b), (c); shared/DESIGN.md "Canonical scene".
"""

from __future__ import annotations

from collections.abc import Mapping

from adapters.errors import AdapterError

__all__ = ["describe", "detect", "format_hint", "is_canonical", "sniff"]

_LOOKED_FOR = (
    "Universal VTT ('resolution' + 'line_of_sight'), Roll20 (betteR20 'maps' with "
    "'attributes'/'paths', R20Exporter 'R20Exporter_format' or 'pages'), Foundry VTT "
    "('walls' or grid fields 'grid'/'gridType'/'gridDistance', a 'scenes' list, or a list "
    "of scene documents)"
)
_GRID_KEYS = ("grid", "gridType", "gridDistance")
#: Top-level keys of VTT exports that a canonical scene never has (Foundry scene fields).
_EXPORT_KEYS = frozenset(
    {
        "name", "gridType", "gridDistance", "gridUnits", "navigation", "navName", "img",
        "background", "padding", "flags", "folder", "sort", "ownership", "permission",
        "drawings", "notes", "sounds", "templates", "tiles", "thumb", "darkness",
        "globalLight", "active", "scenes", "shiftX", "shiftY", "resolution", "maps", "pages",
    }
)  # fmt: skip
#: Fields that are integers in Foundry walls (CONST values) and strings in canonical walls.
_FOUNDRY_INT_FIELDS = ("move", "sight", "light", "sound", "sense", "door", "ds", "dir")
#: Keys of an answer of ``POST /v1/import`` or ``sightline import --json`` (a wrapped scene).
_ANSWER_KEYS = frozenset({"scene", "stats", "warnings", "scene_id"})
#: What each format is called in messages.
FORMAT_NAMES = {
    "canonical": "a canonical Sightline scene",
    "foundry": "a Foundry VTT export",
    "roll20": "a Roll20 export",
    "uvtt": "a Universal VTT file",
}
#: What :func:`format_hint` calls each format (a Foundry export holds a scene).
_HINT_NAMES = dict(FORMAT_NAMES, foundry="a Foundry VTT scene export")


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


def is_canonical(doc: object, *, without_grid: bool = False) -> bool:
    """Whether ``doc`` is a canonical scene (shared/DESIGN.md) rather than a VTT export.

    ``without_grid``: a ``doc`` with no ``grid`` at all is judged by the rest (a canonical
    scene that forgot its grid, which the scene schema reports, is no export).

    A canonical scene is a JSON object with a ``grid`` object holding ``size`` (its
    ``type``, when given, a string), no top-level key of an export (``_id``, ``_key``,
    ``name``, ``gridType``, ``padding``, ``scenes``, ...), and walls, tokens, lights and
    regions without ``_id`` and without Foundry's integer ``move``/``sight``/``door``...
    codes. Anything else a canonical scene may hold (a misspelt key included) is left to
    the scene schema to report.

    Parameters
    ----------
    doc : object
        Parsed JSON.

    Returns
    -------
    bool
        Never raises.

    References
    ----------
    shared/DESIGN.md "Canonical scene"; shared/API.md "Scenes and import" (a canonical
    scene is recognised and returned unchanged).
    """
    if not isinstance(doc, Mapping):
        return False
    grid = doc.get("grid")
    if without_grid and "grid" not in doc:
        grid = {"size": 1}
    if not isinstance(grid, Mapping) or "size" not in grid:
        return False
    if not isinstance(grid.get("type", "square"), str):  # Foundry v10+: an integer
        return False
    if any(not isinstance(k, str) or k.startswith("_") or k in _EXPORT_KEYS for k in doc):
        return False
    for kind in ("walls", "tokens", "lights", "regions"):
        items = doc.get(kind)
        if not isinstance(items, list):
            continue
        for item in items:
            if not isinstance(item, Mapping):
                continue
            if "_id" in item:
                return False
            for field in _FOUNDRY_INT_FIELDS:
                value = item.get(field)
                if isinstance(value, int) and not isinstance(value, bool):
                    return False
    return True


def is_import_answer(doc: object) -> bool:
    """Whether ``doc`` is an import answer ``{"scene": <canonical>, "stats", "warnings"}``."""
    return (
        isinstance(doc, Mapping)
        and "scene" in doc
        and set(doc) <= _ANSWER_KEYS
        and is_canonical(doc["scene"])
    )


def describe(doc: object) -> str:
    """What ``doc`` looks like, in words, for error messages.

    Parameters
    ----------
    doc : object
        Parsed JSON.

    Returns
    -------
    str
        ``"a canonical Sightline scene"``, ``"a Foundry VTT export"``, ... or, when no
        format matches, ``"a JSON object with keys 'a', 'b'"``, ``"a list of 3 entries
        ..."``, ``"a JSON str"``. Never raises.
    """
    if is_canonical(doc):
        return FORMAT_NAMES["canonical"]
    if is_import_answer(doc):
        return "an import answer holding a canonical Sightline scene under 'scene'"
    found = sniff(doc)
    if found is not None:
        return FORMAT_NAMES[found]
    if isinstance(doc, Mapping):
        keys = ", ".join(repr(str(k)) for k in list(doc)[:12]) or "none"
        return f"a JSON object with keys {keys}"
    if isinstance(doc, list):
        return f"a list of {len(doc)} entries that are not Foundry scene documents"
    return "null" if doc is None else f"a JSON {type(doc).__name__}"


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
    raise AdapterError(
        f"export format not recognised: looked for {_LOOKED_FOR}; got {describe(export)}", ()
    )


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


def format_hint(export: object, own: str) -> str:
    """Tell the user when an export looks like another supported format.

    Parameters
    ----------
    export : object
        The export given to the adapter of format ``own``.
    own : {"foundry", "roll20", "uvtt"}
        The format of the adapter asking.

    Returns
    -------
    str
        ``"; this looks like <format>; use format <name>"``, or ``""`` when the export
        looks like no format or like ``own``.
    """
    found = sniff(export)
    if found in (None, own):
        return ""
    return f"; this looks like {_HINT_NAMES[found]}; use format {found}"
