"""Which scene document a Foundry export holds, and which Foundry version wrote it.

Reads NeDB ``.db`` logs (:func:`parse_nedb`), picks one scene out of a world export, a list
of scene documents or a single document (:func:`select_scene`), and guesses the core version
from ``_stats.coreVersion`` or the document's shape (:func:`detect_version`).

References
----------
shared/FORMATS.md (a) A.0, "Pitfalls" 1, 2 and 10.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapters._common import json_path, list_entries
from adapters.errors import AdapterError
from adapters.foundry._context import as_list


def parse_nedb(text: str) -> list[dict]:
    """Read a Foundry NeDB ``.db`` file (world ``scenes.db`` or a ``packs/*.db`` compendium).

    NeDB files are append-only logs: one JSON document per line; a later line with the
    same ``_id`` replaces the earlier one and ``{"$$deleted": true, "_id": ...}`` removes
    it. Index lines (``$$indexCreated``/``$$indexRemoved``) and blank lines are skipped.

    Parameters
    ----------
    text : str
        Whole file content.

    Returns
    -------
    list of dict
        The final state of every document, in the order in which each ``_id`` first
        appeared (a document deleted and created again moves to its new place).

    Raises
    ------
    AdapterError
        When ``text`` is not a string or a non-blank line is not a JSON object; the path
        is ``("line", n)`` with ``n`` counted from 1.

    References
    ----------
    shared/FORMATS.md (a) A.0 and Pitfall 10.
    """
    if not isinstance(text, str):
        raise AdapterError(f"NeDB content must be text, got {type(text).__name__}", ())
    docs: dict[Any, dict] = {}
    anonymous = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except ValueError as exc:
            raise AdapterError(
                f"line {lineno} is not valid JSON: {exc}", ("line", lineno)
            ) from None
        if not isinstance(doc, dict):
            raise AdapterError(
                f"line {lineno} is a JSON {type(doc).__name__}, not a document", ("line", lineno)
            )
        if "$$indexCreated" in doc or "$$indexRemoved" in doc:
            continue
        key = doc.get("_id")
        if not isinstance(key, str | int) or isinstance(key, bool):
            anonymous += 1
            key = ("anonymous", anonymous)
        if doc.get("$$deleted") is True:
            docs.pop(key, None)
            continue
        docs[key] = doc
    return list(docs.values())


def select_scene(
    export: object, wanted: str | None, warnings: list[str]
) -> tuple[Mapping, tuple[str | int, ...]]:
    """Pick the scene document out of an export.

    Parameters
    ----------
    export : object
        A scene document, a list of them, or a world export (``{"scenes": [...]}``).
    wanted : str or None
        The scene's ``_id``, ``name`` or 0-based index as a string; None for a lone scene.
    warnings : list of str
        Receives a warning for each entry of the list that is not a document.

    Returns
    -------
    tuple
        ``(document, prefix)``: the scene document and its JSON path inside the export.

    Raises
    ------
    AdapterError
        When the export is neither a mapping nor a list, holds no scene, holds several and
        ``wanted`` is None, or ``wanted`` matches none or several scenes.
    """
    if isinstance(export, Mapping) and "scenes" in export:
        candidates = export["scenes"]
        prefix: tuple[str | int, ...] = ("scenes",)
        if not isinstance(candidates, list):
            raise AdapterError(
                f"'scenes' must be a list, got {type(candidates).__name__}", ("scenes",)
            )
    elif isinstance(export, list):
        candidates, prefix = export, ()
    elif isinstance(export, Mapping):
        if wanted is not None and not _matches(export, str(wanted), 0):
            raise AdapterError(
                f"scene {wanted!r} not found; the export holds only {_label(export)}", ()
            )
        return export, ()
    else:
        raise AdapterError(
            f"a Foundry export must be a JSON object or a list, got {type(export).__name__}", ()
        )

    scenes: list[tuple[int, Mapping]] = list(
        list_entries(candidates, json_path(prefix), warnings.append)
    )
    if not scenes:
        raise AdapterError("the export holds no scene document", prefix)
    available = ", ".join(_label(doc) for _, doc in scenes)
    if wanted is None:
        if len(scenes) > 1:
            raise AdapterError(
                f"the export holds {len(scenes)} scenes; pick one with scene=: {available}", prefix
            )
        i, doc = scenes[0]
        return doc, prefix + (i,)
    wanted = str(wanted)
    for key in ("_id", "name"):
        hits = [(i, doc) for i, doc in scenes if doc.get(key) == wanted]
        if len(hits) > 1:
            raise AdapterError(
                f"scene {key} {wanted!r} is ambiguous: {', '.join(_label(d) for _, d in hits)}",
                prefix,
            )
        if hits:
            return hits[0][1], prefix + (hits[0][0],)
    if (
        wanted.isdigit()
        and int(wanted) < len(candidates)
        and isinstance(candidates[int(wanted)], Mapping)
    ):
        return candidates[int(wanted)], prefix + (int(wanted),)
    raise AdapterError(f"scene {wanted!r} not found; available: {available}", prefix)


def _matches(doc: Mapping, wanted: str, index: int) -> bool:
    return wanted in (doc.get("_id"), doc.get("name"), str(index))


def _label(doc: Mapping) -> str:
    name, doc_id = doc.get("name"), doc.get("_id")
    if name is None and doc_id is None:
        return "one scene with neither name nor _id (omit `scene`)"
    return f"{name!r} ({doc_id})"


def has_grid_info(doc: Mapping) -> bool:
    """Tell whether a document carries any grid field (flat <= v9 or v10+ ``grid`` object)."""
    return any(key in doc for key in ("grid", "gridType", "gridDistance"))


def detect_version(doc: Mapping) -> str:
    """Best-guess Foundry core version of a scene document (FORMATS.md Pitfalls 1-2).

    Returns
    -------
    str
        ``"0.7"``, ``"0.8"`` or the major version (``"9"`` to ``"13"``, ...): from
        ``_stats.coreVersion`` when present, else from the document's shape.
    """
    stats = doc.get("_stats")
    core = stats.get("coreVersion") if isinstance(stats, Mapping) else None
    if isinstance(core, str | int | float) and not isinstance(core, bool):
        parts = str(core).split(".")
        if parts[0] == "0" and len(parts) > 1 and parts[1].isdigit():
            return f"0.{parts[1]}"
        if parts[0].isdigit():
            return parts[0]
    walls = [w for w in as_list(doc.get("walls")) if isinstance(w, Mapping)]
    lights = [li for li in as_list(doc.get("lights")) if isinstance(li, Mapping)]
    tokens = [t for t in as_list(doc.get("tokens")) if isinstance(t, Mapping)]
    if any("sense" in w for w in walls) or any("t" in li and "config" not in li for li in lights):
        return "0.8" if any("sound" in w for w in walls) else "0.7"
    if isinstance(doc.get("environment"), Mapping) or "regions" in doc:
        return "12"
    if isinstance(doc.get("grid"), Mapping):
        if any("threshold" in w for w in walls) or any("delta" in t for t in tokens):
            return "11"
        return "10"
    if any("dimLight" in t and "light" not in t for t in tokens):
        return "0.8"
    return "9"
