"""Tell which supported format a parsed export is in, and dispatch to its adapter.

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

from collections.abc import Callable, Mapping
from typing import Any

from adapters.errors import AdapterError

__all__ = ["FORMATS", "detect", "sniff", "to_scene"]

#: Format names accepted by :func:`to_scene`, ``"auto"`` excepted.
FORMATS = ("foundry", "roll20", "uvtt")

#: Keyword options each adapter accepts.
_OPTIONS = {
    "foundry": ("scene",),
    "roll20": ("page", "private_lights"),
    "uvtt": ("grid_distance", "grid_units"),
}
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


def to_scene(export: object, *, format: str = "auto", **options: Any) -> dict:
    """Translate ``export`` with the adapter of ``format`` (sniffed when ``"auto"``).

    Parameters
    ----------
    export : object
        Parsed JSON of a Foundry, Roll20 or Universal VTT export.
    format : {"auto", "foundry", "roll20", "uvtt"}
        Which adapter to use; ``"auto"`` calls :func:`detect`.
    **options
        Adapter options; options given as None are dropped. ``scene`` (Foundry),
        ``page`` and ``private_lights`` (Roll20), ``grid_distance`` and ``grid_units``
        (UVTT). With ``format="auto"`` the scene/page selector may be given under either
        name: ``scene`` is passed as ``page`` to the Roll20 adapter and ``page`` as
        ``scene`` to the Foundry adapter.

    Returns
    -------
    dict
        The adapter's ``{"scene", "stats", "warnings"}``; ``stats["format"]`` names the
        adapter used.

    Raises
    ------
    AdapterError
        For an unknown ``format``, an option the chosen adapter does not take, an export
        no adapter recognises, or anything the adapter itself raises.

    References
    ----------
    shared/FORMATS.md; shared/DESIGN.md "Canonical scene".
    """
    if format not in ("auto", *FORMATS):
        raise AdapterError(
            f"unknown format {format!r}: expected auto, {', '.join(FORMATS)}", ("format",)
        )
    fmt = detect(export) if format == "auto" else format
    kw = {k: v for k, v in options.items() if v is not None}
    if format == "auto":
        if fmt == "roll20" and "scene" in kw and "page" not in kw:
            kw["page"] = kw.pop("scene")
        if fmt == "foundry" and "page" in kw and "scene" not in kw:
            kw["scene"] = kw.pop("page")
    unknown = sorted(k for k in kw if k not in _OPTIONS[fmt])
    if unknown:
        raise AdapterError(
            f"option {', '.join(unknown)} does not apply to the {fmt} adapter "
            f"(its options: {', '.join(_OPTIONS[fmt])})",
            (),
        )
    result = _adapter(fmt)(export, **kw)
    result["stats"]["format"] = fmt
    return result


def _adapter(fmt: str) -> Callable[..., dict]:
    """The ``to_scene`` of adapter ``fmt`` (imported here: the adapters import this module)."""
    if fmt == "foundry":
        from adapters import foundry

        return foundry.to_scene
    if fmt == "roll20":
        from adapters import roll20

        return roll20.to_scene
    from adapters import uvtt

    return uvtt.to_scene


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
