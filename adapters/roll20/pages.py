"""Which page a Roll20 export holds: betteR20 ``maps``, R20Exporter ``pages`` or one page.

References
----------
shared/FORMATS.md (b) B.0.
"""

from __future__ import annotations

from collections.abc import Mapping

from adapters._common import kind_name, list_entries
from adapters.errors import AdapterError
from adapters.roll20._context import Page
from adapters.sniff import format_hint


def select_page(export: object, wanted: str | int | None) -> tuple[Page, list[str]]:
    """Pick the page out of a Roll20 export (FORMATS.md B.0).

    Parameters
    ----------
    export : object
        A betteR20 module export, an R20Exporter ``campaign.json`` or one page of either.
    wanted : str, int or None
        The page's name or 0-based index; None for a lone page.

    Returns
    -------
    tuple
        ``(page, warnings)``: the chosen :class:`Page` and the warnings raised while listing
        pages.

    Raises
    ------
    AdapterError
        When the export is not a Roll20 export, holds no page, holds several and ``wanted``
        is None, or ``wanted`` names no page (or several).
    """
    warnings: list[str] = []
    if not isinstance(export, Mapping):
        raise AdapterError(
            f"a Roll20 export must be a JSON object, got {kind_name(export)}"
            + format_hint(export, "roll20"),
            (),
        )
    if "maps" in export:
        key, layout = "maps", "betteR20"
    elif "pages" in export or "R20Exporter_format" in export:
        key, layout = "pages", "R20Exporter"
    elif _is_single_page(export):
        return _single_page(export, wanted, warnings), warnings
    else:
        raise AdapterError(
            "not a Roll20 export: expected betteR20 'maps' (entries with 'attributes' and "
            "'paths'), an R20Exporter 'pages' list or a single page with 'paths'/'graphics'"
            + format_hint(export, "roll20"),
            (),
        )
    collection = export.get(key)
    if not isinstance(collection, list):
        raise AdapterError(f"'{key}' must be a list, got {kind_name(collection)}", (key,))
    pages = dict(list_entries(collection, key, warnings.append))
    if not pages:
        raise AdapterError(f"the export holds no page ('{key}' is empty)", (key,))
    i = _page_index(pages, collection, key, wanted)
    return _page_of(pages[i], f"{key}[{i}]", (key, i), i, warnings, layout), warnings


def _single_page(export: Mapping, wanted: str | int | None, warnings: list[str]) -> Page:
    """The page of an export that is one page; ``wanted`` may only be its name, 0 or None."""
    name = _page_name(export)
    if wanted is not None and wanted != name and str(wanted).strip() != "0":
        raise AdapterError(
            f"page {wanted!r} not found; the export is a single page, {name!r} "
            "(expected its name, 0 or no page)",
            (),
        )
    return _page_of(export, "", (), None, warnings)


def _page_index(
    pages: Mapping[int, Mapping], collection: list, key: str, wanted: str | int | None
) -> int:
    """Index in ``collection`` (``maps`` or ``pages``) of the wanted page.

    ``pages`` maps the index of each entry that is a page to it. ``wanted``: None for a lone
    page; a name (which wins over digits) or a 0-based index, as an int or a string.
    """
    listing = ", ".join(f"{i}: {_page_name(p)!r}" for i, p in pages.items())
    if wanted is None:
        if len(pages) > 1:
            raise AdapterError(
                f"the export holds {len(pages)} pages; pick one with page= (name or index): "
                f"{listing}",
                (key,),
            )
        return next(iter(pages))
    if isinstance(wanted, bool) or not isinstance(wanted, str | int):
        raise AdapterError(
            f"page must be a page name or a 0-based index, got {kind_name(wanted)}", (key,)
        )
    if isinstance(wanted, str):
        named = _named_index(pages, wanted, key)
        if named is not None:
            return named
        if not wanted.strip().isdigit():
            raise AdapterError(f"page {wanted!r} not found; available: {listing}", (key,))
        wanted = int(wanted.strip())
    if not 0 <= wanted < len(collection):
        raise AdapterError(
            f"page index {wanted} is out of range: expected 0 to {len(collection) - 1} ({listing})",
            (key,),
        )
    if wanted not in pages:
        raise AdapterError(
            f"page index {wanted} is a {kind_name(collection[wanted])} entry, not a page; "
            f"available: {listing}",
            (key, wanted),
        )
    return wanted


def _named_index(pages: Mapping[int, Mapping], name: str, key: str) -> int | None:
    """Index of the one page called ``name``; None when none is; an error when several are."""
    hits = [i for i, p in pages.items() if _page_name(p) == name]
    if len(hits) > 1:
        raise AdapterError(
            f"page name {name!r} is ambiguous (indices "
            f"{', '.join(str(i) for i in hits)}); use the index",
            (key,),
        )
    return hits[0] if hits else None


def _page_of(
    entry: Mapping,
    prefix: str,
    error_prefix: tuple[str | int, ...],
    index: int | None,
    warnings: list[str],
    layout: str = "single",
) -> Page:
    """The page's attributes/content pair; a single page's layout is told by its shape."""
    if "attributes" in entry:
        attributes = entry.get("attributes")
        if not isinstance(attributes, Mapping):
            raise AdapterError(
                f"page attributes must be an object, got {kind_name(attributes)}",
                error_prefix + ("attributes",),
            )
        attr_prefix: tuple[str | int, ...] = ("attributes",)
        if layout == "single":
            layout = "betteR20"
    else:
        if layout == "betteR20":
            raise AdapterError(
                "a betteR20 map needs an 'attributes' object (page settings)", error_prefix
            )
        attributes, attr_prefix = entry, ()
        if layout == "single":
            layout = "R20Exporter"
    return Page(attributes, entry, prefix, error_prefix, attr_prefix, index, layout)


def _page_name(entry: Mapping) -> object:
    """Name of a betteR20 map entry or an R20Exporter page (None when absent)."""
    attributes = entry.get("attributes")
    if isinstance(attributes, Mapping):
        return attributes.get("name")
    return entry.get("name")


def _is_single_page(export: Mapping) -> bool:
    has_content = any(k in export for k in ("paths", "graphics"))
    has_page = isinstance(export.get("attributes"), Mapping) or any(
        k in export for k in ("snapping_increment", "scale_number", "showlighting")
    )
    return has_content and has_page
