"""Reading scene files: JSON (or Foundry NeDB), canonical scenes, exports imported locally."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from adapters import detect
from adapters.errors import AdapterError
from adapters.foundry import parse_nedb
from service.cli.errors import CliError, adapter_errors, error_text

#: Top-level keys of a canonical scene (shared/DESIGN.md "Canonical scene").
CANONICAL_KEYS = frozenset(
    {"grid", "width", "height", "environment", "walls", "tokens", "lights", "regions"}
)
#: Keys of the answer of ``sightline import`` / ``POST /v1/import``, which wraps a scene.
WRAPPER_KEYS = frozenset({"scene", "stats", "warnings", "scene_id"})


def read_json(path: str) -> Any:
    """Parsed JSON of the file ``path`` (``-`` is stdin); Foundry NeDB ``.db`` files too.

    Raises
    ------
    CliError
        When the file is missing or unreadable, or is not JSON (with line and column).
    """
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory, not a scene file") from None
    except UnicodeDecodeError:
        raise CliError(f"{path}: not a text file (not UTF-8)") from None
    except OSError as err:
        raise CliError(f"{path}: cannot read: {err.strerror or err}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        if path.endswith(".db"):  # a Foundry NeDB world file: one JSON document per line
            try:
                return parse_nedb(text)
            except AdapterError:
                pass
        raise CliError(
            f"{path}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None


def write_text(path: str, text: str) -> None:
    """Write ``text`` to the file ``path`` (UTF-8); :class:`CliError` when it cannot."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as err:
        raise CliError(f"{path}: cannot write: {err.strerror or err}") from None


def is_canonical(doc: Any) -> bool:
    """Whether ``doc`` looks like a canonical scene rather than a VTT export.

    A canonical scene has a ``grid`` object with a ``size`` and only canonical top-level
    keys, or at least no key of an export (``_id``, ``name``, ...) and walls/tokens with
    ``id`` rather than ``_id``; a typo in a canonical key is then reported by the schema.
    """
    if not isinstance(doc, Mapping) or not isinstance(doc.get("grid"), Mapping):
        return False
    if "size" not in doc["grid"]:
        return False
    if set(doc) <= CANONICAL_KEYS:
        return True
    if "_id" in doc or "name" in doc or "gridType" in doc or "_key" in doc:
        return False
    for key in ("walls", "tokens"):
        items = doc.get(key)
        if isinstance(items, list) and any(
            isinstance(item, Mapping) and "_id" in item for item in items
        ):
            return False
    return True


def unwrap(doc: Any) -> Any:
    """The scene inside an import answer (``{"scene": ..., "stats", "warnings"}``)."""
    if (
        isinstance(doc, Mapping)
        and isinstance(doc.get("scene"), Mapping)
        and set(doc) <= WRAPPER_KEYS
        and is_canonical(doc["scene"])
    ):
        return doc["scene"]
    return doc


def import_local(
    export: Any, fmt: str, page: str | None, scene: str | None, where: str
) -> dict[str, Any]:
    """Translate an export in-process with ``adapters.detect.to_scene``.

    Parameters
    ----------
    export : object
        The export file's parsed JSON.
    fmt : {"auto", "foundry", "roll20", "uvtt"}
        Its format (sniffed for ``auto``).
    page, scene : str or None
        Roll20 page, Foundry scene of a world export.
    where : str
        The file, for error messages.

    Returns
    -------
    dict
        ``{"scene", "stats", "warnings"}``, as ``POST /v1/import`` answers.

    Raises
    ------
    CliError
        When the adapter cannot read the export (with the JSON path).
    """
    with adapter_errors(where):
        result: dict[str, Any] = detect.to_scene(export, format=fmt, scene=scene, page=page)
    return result


def check_scene(doc: Any, message: str, error: type[CliError] = CliError) -> Any:
    """``doc`` loaded by ``schemas.scene.SceneSchema`` (a ``service.model.Scene``).

    Raises
    ------
    CliError
        ``error("<message>: <field path>: <problem>")`` when the scene is invalid.
    """
    # Imported here: marshmallow and the schemas are not needed by `sightline --help`.
    from marshmallow import ValidationError

    from schemas.scene import SceneSchema

    try:
        return SceneSchema().load(doc)
    except ValidationError as err:
        raise error(f"{message}: {error_text(err.messages)}") from None
