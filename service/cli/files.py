"""Reading scene files: JSON (or Foundry NeDB), canonical scenes, exports imported locally."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from adapters import detect, sniff
from adapters.errors import AdapterError
from service.cli.errors import CliError, adapter_errors, error_text

#: Keys of the answer of ``sightline import`` / ``POST /v1/import``, which wraps a scene.
WRAPPER_KEYS = frozenset({"scene", "stats", "warnings", "scene_id"})
#: SCENE that names the bundled sample scene (``service/data/sample-scene.json``; the
#: server's ``scene_id: "sample"``) when no file of that name is in the working directory.
SAMPLE = "sample"
#: Where the sample scene lives, inside the ``service`` package.
SAMPLE_PATH = "data/sample-scene.json"


def read_json(path: str) -> Any:
    """Parsed JSON of the file ``path`` (``-`` is stdin); Foundry NeDB ``.db`` files too.

    ``sample`` (``SAMPLE``) with no such file is the bundled sample scene, so the examples of
    ``sightline --help`` work from any directory and an installed copy. A file that is not one
    JSON document but one JSON document a line is read as NeDB
    (``adapters.detect.parse_text``), whatever its name.

    Raises
    ------
    CliError
        When the file is missing or unreadable, or is neither JSON nor NeDB (with line and
        column).
    """
    try:
        if path == "-":
            text = sys.stdin.read()
        elif path == SAMPLE and not Path(path).exists():
            text = resources.files("service").joinpath(SAMPLE_PATH).read_text("utf-8")
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
        return detect.parse_text(text)
    except AdapterError as err:
        raise CliError(f"{path}: {err.message}") from None


def write_text(path: str, text: str) -> None:
    """Write ``text`` to the file ``path`` (UTF-8); :class:`CliError` when it cannot."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as err:
        raise CliError(f"{path}: cannot write: {err.strerror or err}") from None


def is_canonical(doc: Any) -> bool:
    """Whether ``doc`` is a canonical scene rather than a VTT export.

    The one test used everywhere (``adapters.sniff.is_canonical``): the CLI, ``POST
    /v1/import/auto`` and ``POST /v1/scenes`` with ``format: "auto"``.
    """
    return sniff.is_canonical(doc)


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
        The export file's parsed JSON, or a canonical scene (returned unchanged by
        ``auto``).
    fmt : {"auto", "foundry", "roll20", "uvtt"}
        Its format (sniffed for ``auto``).
    page, scene : str or None
        Which scene of a Foundry export or page of a Roll20 export (either name).
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
