"""Dispatch a parsed export to the adapter of its format (sniffed by ``adapters.sniff``).

References
----------
shared/FORMATS.md (a), (b), (c); shared/DESIGN.md "Canonical scene".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters import foundry, roll20, uvtt
from adapters.errors import AdapterError
from adapters.sniff import detect, sniff

__all__ = ["FORMATS", "detect", "sniff", "to_scene"]

#: Format names accepted by :func:`to_scene`, ``"auto"`` excepted.
FORMATS = ("foundry", "roll20", "uvtt")

#: Keyword options each adapter accepts.
_OPTIONS = {
    "foundry": ("scene",),
    "roll20": ("page", "private_lights"),
    "uvtt": ("grid_distance", "grid_units"),
}

#: The ``to_scene`` of each adapter.
_ADAPTERS: dict[str, Callable[..., dict]] = {
    "foundry": foundry.to_scene,
    "roll20": roll20.to_scene,
    "uvtt": uvtt.to_scene,
}


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
    result = _ADAPTERS[fmt](export, **kw)
    result["stats"]["format"] = fmt
    return result
