"""Dispatch a parsed export to the adapter of its format (sniffed by ``adapters.sniff``).

Also: :func:`parse_text` reads an export file's text (JSON, or a Foundry NeDB ``.db``: one
JSON document a line), and :func:`to_scene` recognises a canonical scene and returns it
unchanged.

References
----------
shared/FORMATS.md (a), (b), (c); shared/DESIGN.md "Canonical scene".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from adapters import foundry, roll20, uvtt
from adapters.errors import AdapterError
from adapters.foundry.scenes import select_scene
from adapters.limits import check_counts, import_limits
from adapters.roll20.pages import select_page
from adapters.sniff import FORMAT_NAMES, describe, detect, is_canonical, is_import_answer, sniff

__all__ = ["FORMATS", "describe", "detect", "is_canonical", "parse_text", "sniff", "to_scene"]

#: Format names accepted by :func:`to_scene`, ``"auto"`` excepted.
FORMATS = ("foundry", "roll20", "uvtt")

#: The option of each adapter that picks one scene (Foundry) or page (Roll20) of an export;
#: ``scene`` and ``page`` are both accepted for either (one way to choose).
_SELECTORS = {"foundry": "scene", "roll20": "page"}
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
        Parsed JSON of a Foundry, Roll20 or Universal VTT export (a Foundry NeDB file as
        the list of its documents, :func:`parse_text`), or a canonical scene.
    format : {"auto", "foundry", "roll20", "uvtt"}
        Which adapter to use; ``"auto"`` calls :func:`detect`. With ``"auto"`` a canonical
        scene (:func:`is_canonical`), or an import answer wrapping one, is returned
        unchanged with ``stats["format"] == "canonical"``.
    **options
        Adapter options; options given as None are dropped, and so is a blank ``scene``
        or ``page`` (an empty ``?scene=`` chooses nothing). ``scene`` or ``page`` picks one
        scene of a Foundry world, compendium or NeDB export, or one page of a Roll20
        export (either name, for either format: its name, id or 0-based index);
        ``private_lights`` (Roll20); ``grid_distance`` and ``grid_units`` (UVTT).

    Returns
    -------
    dict
        The adapter's ``{"scene", "stats", "warnings"}``; ``stats["format"]`` names the
        adapter used (``"canonical"`` for a canonical scene).

    Raises
    ------
    AdapterError
        For an unknown ``format``; an explicit ``format`` that the body does not match (the
        message says what the body looks like, e.g. a canonical scene sent as
        ``foundry``); an option the chosen adapter does not take, or ``scene`` and ``page``
        naming different scenes; an export no adapter recognises; or anything the adapter
        itself raises, among it ``adapters.limits.ExportOverLimits`` for an export holding
        more than this server's scene limits (counted before it is translated).

    References
    ----------
    shared/FORMATS.md; shared/DESIGN.md "Canonical scene"; shared/API.md "Scenes and
    import".
    """
    if format not in ("auto", *FORMATS):
        raise AdapterError(
            f"unknown format {format!r}: expected auto, {', '.join(FORMATS)}", ("format",)
        )
    kw = {k: v for k, v in options.items() if v is not None and not _blank_pick(k, v)}
    if format == "auto" and (is_canonical(export) or is_import_answer(export)):
        return _canonical(export, kw)
    fmt = detect(export) if format == "auto" else _check_format(export, format)
    selector = _SELECTORS.get(fmt)
    picks = {k: kw.pop(k) for k in ("scene", "page") if k in kw}
    if len({str(v) for v in picks.values()}) > 1:
        raise AdapterError(
            f"scene={picks['scene']!r} and page={picks['page']!r} disagree: give one of them", ()
        )
    if picks:
        if selector is None:
            given = next(iter(picks))
            raise AdapterError(
                f"option {given} does not apply to {FORMAT_NAMES[fmt]}: it holds one map", ()
            )
        kw[selector] = next(iter(picks.values()))
    unknown = sorted(k for k in kw if k not in _OPTIONS[fmt])
    if unknown:
        raise AdapterError(
            f"option {', '.join(unknown)} does not apply to the {fmt} adapter "
            f"(its options: {', '.join(_OPTIONS[fmt])})",
            (),
        )
    limits = import_limits()
    if limits:  # the scene the adapter would read, counted before it is translated
        check_counts(*_COUNTERS[fmt](export, kw), limits)
    result = _ADAPTERS[fmt](export, **kw)
    result["stats"]["format"] = fmt
    return result


def _blank_pick(key: str, value: object) -> bool:
    """Whether ``key`` is a scene/page choice left empty (``?scene=``): no choice at all."""
    return key in ("scene", "page") and isinstance(value, str) and not value.strip()


def _count_foundry(export: Any, kw: Mapping[str, Any]) -> tuple[dict, dict]:
    """``foundry.count_export`` of the scene ``to_scene`` would pick (its own errors if none)."""
    doc, _ = select_scene(export, kw.get("scene"), [])
    return foundry.count_export(doc)


def _count_roll20(export: Any, kw: Mapping[str, Any]) -> tuple[dict, dict]:
    """``roll20.count_export`` of the page ``to_scene`` would pick (its own errors if none)."""
    return roll20.count_export(select_page(export, kw.get("page"))[0].content)


def _count_uvtt(export: Any, kw: Mapping[str, Any]) -> tuple[dict, dict]:
    """``uvtt.count_export`` of the file (nothing for a file that is not an object)."""
    return uvtt.count_export(export) if isinstance(export, Mapping) else ({}, {})


#: What each format's scene holds, counted from the export (``adapters.limits``).
_COUNTERS: dict[str, Callable[[Any, Mapping[str, Any]], tuple[dict, dict]]] = {
    "foundry": _count_foundry,
    "roll20": _count_roll20,
    "uvtt": _count_uvtt,
}


def _check_format(export: object, fmt: str) -> str:
    """``fmt``, unless the body is plainly something else: a canonical scene, another format."""
    if is_canonical(export) or is_import_answer(export):
        raise AdapterError(
            f"this is {describe(export)}, not {FORMAT_NAMES[fmt]}: a canonical scene needs "
            "no import (format auto returns it unchanged; POST /v1/scenes takes it as "
            '{"scene": ...})',
            (),
        )
    found = sniff(export)
    if found is not None and found != fmt:
        raise AdapterError(
            f"this looks like {FORMAT_NAMES[found]}, not {FORMAT_NAMES[fmt]}: "
            f"use format {found!r} (or 'auto')",
            (),
        )
    return fmt


def _canonical(doc: Any, options: dict[str, Any]) -> dict:
    """A canonical scene (or an import answer wrapping one) as an import answer, unchanged."""
    if options:
        raise AdapterError(
            f"option {', '.join(sorted(options))} does not apply to a canonical scene "
            "(it is one scene, used as it is)",
            (),
        )
    scene = doc["scene"] if not is_canonical(doc) else doc
    stats: dict[str, Any] = {"format": "canonical"}
    for kind in ("walls", "tokens", "lights", "regions"):
        items = scene.get(kind)
        stats[kind] = len(items) if isinstance(items, list) else 0
    walls = scene.get("walls") if isinstance(scene.get("walls"), list) else []
    stats["doors"] = sum(
        1 for w in walls if isinstance(w, Mapping) and w.get("door", "none") != "none"
    )
    return {"scene": scene, "stats": stats, "warnings": []}


#: What is left after the position json names when a value was cut within: part of
#: ``true``, ``false`` or ``null``, a lone minus, or a number's ``.`` or exponent.
_CUT_VALUE = re.compile(r"t(r(u)?)?|f(a(l(s)?)?)?|n(u(l)?)?|-|\.|[eE][-+]?")


def json_error_parts(err: json.JSONDecodeError) -> tuple[str, str, bool]:
    """What json found wrong, where, and whether the text ends there (cut short?).

    ``where``: ``line L, column C (character P)``. The text may have been cut short (a
    truncated file or upload) at a syntax error at its very end, at a literal or number
    cut within (:data:`_CUT_VALUE`), or at a string still open (json names where it
    starts). O(1).
    """
    where = f"line {err.lineno}, column {err.colno} (character {err.pos})"
    open_string = err.msg.startswith("Unterminated string")
    what = "Unterminated string starting here" if open_string else err.msg
    rest = err.doc[err.pos :].rstrip()
    return what, where, open_string or not rest or bool(_CUT_VALUE.fullmatch(rest))


def parse_text(text: str, *, nedb: bool | None = None) -> Any:
    """Parse an export file's text: JSON, or a Foundry NeDB ``.db`` (one document a line).

    Parameters
    ----------
    text : str
        The whole file (a leading byte-order mark is ignored).
    nedb : bool, optional
        True: read as NeDB (``Content-Type: application/x-ndjson``); False: JSON only;
        None (default): JSON, and NeDB when the text is not one JSON document but its
        first line is one JSON object (sniffed).

    Returns
    -------
    object
        The parsed JSON; for NeDB the list of the final documents (the last line per
        ``_id``, deletions applied: :func:`adapters.foundry.parse_nedb`), which
        :func:`to_scene` reads as a Foundry export.

    Raises
    ------
    AdapterError
        When the text is neither; the message gives the JSON error (line and column) and,
        when NeDB was tried, the line that is not a JSON object. Path ``()``.

    References
    ----------
    shared/FORMATS.md (a) "NeDB" and Pitfall 10; shared/API.md "Scenes and import".
    """
    text = text.removeprefix("\ufeff")
    if nedb:
        return foundry.parse_nedb(text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        what, _, cut = json_error_parts(err)
        ends = "; the file ends there: was it cut short?" if cut else ""
        json_error = f"line {err.lineno}, column {err.colno}: {what}{ends}"
    except RecursionError:
        raise AdapterError("JSON nested too deeply", ()) from None
    except ValueError:  # e.g. an integer longer than Python's digit limit
        raise AdapterError("not valid JSON (a number is too long)", ()) from None
    if nedb is None and _first_line_is_a_document(text):
        try:
            return foundry.parse_nedb(text)
        except AdapterError as err:
            raise AdapterError(
                f"neither JSON ({json_error}) nor a Foundry NeDB file, one JSON document a "
                f"line ({err.message})",
                (),
            ) from None
    raise AdapterError(f"not valid JSON ({json_error})", ())


def _first_line_is_a_document(text: str) -> bool:
    """Whether the first non-blank line of a multi-line ``text`` is a JSON object by itself."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        return isinstance(json.loads(lines[0]), dict)
    except (ValueError, RecursionError):
        return False
