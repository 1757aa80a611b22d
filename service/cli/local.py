"""The local backend: answers in-process through the operation table.

Each method takes the HTTP request body (``shared/API.md``) without its scene and returns
the HTTP API's JSON answer: :meth:`service.operations.Operation.run` loads the body with the
operation's request schema, asks the core and dumps with its response schema, exactly as
the HTTP views do. Unlike the server, no configured limit (targets, matrix tokens) applies.

Importing this module brings in numpy, shapely, marshmallow and the rules: the commands
import it only when a query is answered locally.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import click
from marshmallow import ValidationError

from service.cli.errors import CliError, adapter_errors, at_path, error_text
from service.cli.files import check_scene
from service.errors import RulesError
from service.operations import OPERATIONS, build_scene

#: Matrices with more tokens than this show a progress bar on stderr.
PROGRESS_THRESHOLD = 20


@contextmanager
def core_errors(where: str = "") -> Iterator[None]:
    """Turn the schemas', the core's and the adapters' errors into :class:`CliError`."""
    prefix = f"{where}: " if where else ""
    try:
        with adapter_errors(where):
            yield
    except ValidationError as err:
        raise CliError(f"{prefix}invalid request: {error_text(err.messages)}") from None
    except RulesError as err:
        raise CliError(at_path(err.message, err.path, where)) from None


class _NoProgress:
    """Stands in for a progress bar that is not shown."""

    def update(self, n_steps: int) -> None:
        """Ignore progress."""


@contextmanager
def progress(length: int, label: str, show: bool) -> Iterator[Any]:
    """A click progress bar on stderr when ``show``, else an object that ignores updates."""
    if not show:
        yield _NoProgress()
        return
    with click.progressbar(length=length, label=label, file=sys.stderr) as bar:
        yield bar


class Local:
    """Answers in-process: the scene validated and built once, each query by the table.

    Parameters
    ----------
    scene : mapping
        A canonical scene dict (``shared/DESIGN.md``).
    where : str
        The scene file, for error messages.

    Raises
    ------
    CliError
        When the scene is invalid (naming the field path).
    """

    def __init__(self, scene: Mapping[str, Any], where: str) -> None:
        self.where = where
        self.scene = check_scene(scene, f"{where}: invalid scene")
        self.geo = build_scene(self.scene)

    def _run(self, name: str, body: Mapping[str, Any], **kw: Any) -> Any:
        with core_errors(self.where):
            return OPERATIONS[name].run(self.geo, body, **kw)

    def cover(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/cover``, in-process."""
        return self._run("cover", body)  # type: ignore[no-any-return]

    def vision(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/vision``, in-process."""
        return self._run("vision", body)  # type: ignore[no-any-return]

    def lighting(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/lighting``, in-process."""
        return self._run("lighting", body)  # type: ignore[no-any-return]

    def matrix(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/matrix``, in-process: all ordered pairs, row = attacker/observer.

        With more than :data:`PROGRESS_THRESHOLD` tokens a progress bar is shown on stderr.
        """
        count = len(body["tokens"]) if body.get("tokens") else len(self.scene.tokens)
        label = f"{body.get('kind', 'cover')} matrix of {count} tokens"
        with progress(count, label, count > PROGRESS_THRESHOLD) as bar:
            done = 0

            def rows_done(n: int) -> None:  # the core reports rows done so far
                nonlocal done
                bar.update(n - done)
                done = n

            answer = self._run("matrix", body, progress=rows_done)
            rows_done(count)
        return answer  # type: ignore[no-any-return]

    def render(self, query: Mapping[str, Any] | None) -> str:
        """``POST /v1/render``, in-process: the SVG text."""
        return self._run("render", {} if query is None else {"query": dict(query)})  # type: ignore[no-any-return]
