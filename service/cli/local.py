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
from marshmallow import Schema, ValidationError

from schemas.suggest import suggest_fields
from service.cli.errors import CliError, adapter_errors, at_path, error_text
from service.cli.files import check_scene
from service.errors import RulesError
from service.operations import OPERATIONS, build_scene

#: Matrices with more tokens than this show a progress bar on stderr.
PROGRESS_THRESHOLD = 20


#: The command-line option that gave each field of a request body: an error at that field
#: is the option's, not the scene file's.
OPTION_OF = {
    "ruleset": "--ruleset",
    "attacker": "--attacker",
    "targets": "--target",
    "target": "--target",
    "observer": "--observer",
    "tokens": "--token",
    "points": "--point",
    "options": "--option",
    "attack": "--kind/--origin",
    "kind": "--kind",
}


def _blame(path: tuple[Any, ...] | list[Any], where: str) -> str:
    """Whom an error at ``path`` of the request is about: a command option, else the file."""
    return OPTION_OF.get(str(path[0]), where) if path else where


@contextmanager
def core_errors(where: str = "", schema: Schema | None = None) -> Iterator[None]:
    """Turn the schemas', the core's and the adapters' errors into :class:`CliError`.

    An error at a field the command's options gave (``ruleset``, ``options``: see
    :data:`OPTION_OF`) names that option, not the scene file; an unknown field of
    ``schema`` (the request's) names the nearest known one (``schemas.suggest``).
    """
    try:
        with adapter_errors(where):
            yield
    except ValidationError as err:
        messages, _ = suggest_fields(err.messages, schema)
        keys = list(messages) if isinstance(messages, dict) else []
        whom = _blame(keys, where) if len(keys) == 1 else where
        prefix = f"{whom}: " if whom else ""
        raise CliError(f"{prefix}invalid request: {error_text(messages)}") from None
    except RulesError as err:
        whom = _blame(err.path, where)
        # at the option, only names below it (an option's key), not list indices
        path = tuple(p for p in err.path[1:] if not str(p).isdigit()) if whom != where else err.path
        raise CliError(at_path(err.message, path, whom)) from None


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
        with core_errors(self.where, OPERATIONS[name].loader):
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
