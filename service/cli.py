"""``sightline``: the command line of Sightline (click).

Every query command reads a scene file -- a canonical scene JSON, the output of ``sightline
import``, or any supported export (Foundry VTT, Roll20, Universal VTT; imported first) --
and answers either **locally** (the scene is validated with ``schemas.scene.SceneSchema``,
built with ``service.engine.scene.build_scene`` and the core is called in-process) or, with
``--url``, **through a server** with :class:`service.client.SightlineClient`. The answer is
a human-readable table, or with ``--json`` the same JSON as the HTTP API
(``shared/API.md``).

Tokens are named by id or by name (a name must be unique in the scene).

Errors (file missing, not JSON, invalid scene with the field path, unknown token, server
error) are one line on stderr, ``sightline: error: ...``, and a non-zero exit status:
2 for usage and input errors (including 4xx answers), 1 for server, connection and
internal errors. No traceback is ever shown.

Heavy imports (numpy, shapely, marshmallow, the rules) happen inside the commands, so
``sightline --help`` and ``--url`` queries start fast.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import click

from service import __version__

#: Exit status of usage and input errors (bad file, invalid scene, unknown token, 4xx).
EXIT_INPUT = 2
#: Exit status of server, connection and internal errors.
EXIT_FAILURE = 1

#: Top-level keys of a canonical scene (shared/DESIGN.md "Canonical scene").
CANONICAL_KEYS = frozenset(
    {"grid", "width", "height", "environment", "walls", "tokens", "lights", "regions"}
)
#: Keys of the answer of ``sightline import`` / ``POST /v1/import``, which wraps a scene.
WRAPPER_KEYS = frozenset({"scene", "stats", "warnings", "scene_id"})
#: Matrices with more tokens than this show a progress bar (locally).
PROGRESS_THRESHOLD = 20

FORMATS = ("auto", "foundry", "roll20", "uvtt")
ATTACK_KINDS = ("ranged", "melee", "area", "spell")


class CliError(click.ClickException):
    """Raised for a usage or input error: printed as one line, exit status 2.

    Parameters
    ----------
    message : str
        What went wrong; whitespace (newlines included) is collapsed to single spaces.
    """

    exit_code = EXIT_INPUT

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))

    def show(self, file: IO[Any] | None = None) -> None:
        """Print ``sightline: error: <message>`` on stderr."""
        click.echo(f"sightline: error: {self.message}", err=True)


class CliFailure(CliError):
    """Raised for a server, connection or internal error: one line, exit status 1."""

    exit_code = EXIT_FAILURE


class SightlineGroup(click.Group):
    """The command group; an unexpected exception becomes a one-line error, not a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand, turning unexpected exceptions into :class:`CliError`."""
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as err:  # the one place that turns a bug into one line
            text = str(err).splitlines()[0] if str(err) else ""
            raise CliFailure(f"internal error: {type(err).__name__}: {text}") from err


# --------------------------------------------------------------------------- reading


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
            from adapters.errors import AdapterError
            from adapters.foundry import parse_nedb

            try:
                return parse_nedb(text)
            except AdapterError:
                pass
        raise CliError(
            f"{path}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None


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


def error_text(messages: Any) -> str:
    """``path: message`` for the first error of a nested error dict, ``(+n more)``."""
    from service.client import error_lines

    lines = error_lines(messages)
    if not lines:
        return "invalid"
    path, msg = lines[0]
    more = f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""
    return f"{path}: {msg}{more}" if path else f"{msg}{more}"


@contextmanager
def core_errors(where: str = "") -> Iterator[None]:
    """Turn the core's and the schemas' errors into :class:`CliError` (exit 2)."""
    from marshmallow import ValidationError

    from adapters.errors import AdapterError
    from service.errors import RulesError

    prefix = f"{where}: " if where else ""
    try:
        yield
    except ValidationError as err:
        raise CliError(f"{prefix}invalid request: {error_text(err.messages)}") from None
    except RulesError as err:
        at = ".".join(str(p) for p in err.path)
        raise CliError(f"{prefix}{err.message}" + (f" (at {at})" if at else "")) from None
    except AdapterError as err:
        at = ".".join(str(p) for p in err.path)
        raise CliError(f"{prefix}{err.message}" + (f" (at {at})" if at else "")) from None


# --------------------------------------------------------------------------- import


def _detect_module() -> Any:
    """``adapters.detect`` when this installation has it, else None."""
    if importlib.util.find_spec("adapters.detect") is None:
        return None
    from adapters import detect

    return detect


def import_local(
    export: Any, fmt: str, page: str | None, scene: str | None, where: str
) -> dict[str, Any]:
    """Translate an export in-process: ``{"scene", "stats", "warnings"}``.

    Uses ``adapters.detect.to_scene`` (any format, sniffed for ``auto``); without that
    module only Foundry exports can be read, and asking for another format is an error.
    """
    detect = _detect_module()
    with core_errors(where):
        if detect is not None:
            result: dict[str, Any] = detect.to_scene(export, format=fmt, scene=scene, page=page)
        else:
            if fmt not in ("auto", "foundry"):
                raise CliError(
                    f"{where}: the {fmt} format needs adapters.detect, which this "
                    "installation lacks; only Foundry exports can be imported"
                )
            if page is not None:
                raise CliError(f"{where}: --page applies to Roll20 exports only")
            from adapters import foundry

            result = foundry.to_scene(export, scene=scene)
            result["stats"].setdefault("format", "foundry")
    return result


def import_remote(
    client: Any, export: Any, fmt: str, page: str | None, scene: str | None, where: str
) -> dict[str, Any]:
    """Translate an export with the server's ``POST /v1/import/<format>``.

    With ``auto``, the format is sniffed here when ``adapters.detect`` is installed (the
    server is then asked for that format), else the server sniffs it.
    """
    sent = fmt
    detect = _detect_module()
    if fmt == "auto" and detect is not None:
        with core_errors(where):
            sent = detect.detect(export)
    with server_errors(client):
        result: dict[str, Any] = client.import_export(sent, export, page=page, scene=scene)
    result.setdefault("stats", {}).setdefault("format", sent)
    return result


@contextmanager
def server_errors(client: Any) -> Iterator[None]:
    """Turn a :class:`SightlineError` into :class:`CliError` (4xx: 2, else 1)."""
    from service.client import SightlineError

    try:
        yield
    except SightlineError as err:
        error = CliError if 400 <= err.code < 500 else CliFailure
        raise error(f"server {client.base_url}: {err.describe()}") from None


# --------------------------------------------------------------------------- backends


class Local:
    """Answers in-process: schema validation, ``build_scene`` and the core.

    Every method takes the HTTP request body (``shared/API.md``) and returns the HTTP
    answer's JSON, validated and dumped with the same schemas as the API.
    """

    def __init__(self, scene: Mapping[str, Any], where: str) -> None:
        from marshmallow import ValidationError

        from schemas.scene import SceneSchema
        from service.engine.scene import build_scene

        self.where = where
        try:
            self.scene = SceneSchema().load(scene)
        except ValidationError as err:
            raise CliError(f"{where}: invalid scene: {error_text(err.messages)}") from None
        self.geo = build_scene(self.scene)

    def _load(self, schema: Any, body: Mapping[str, Any]) -> dict[str, Any]:
        # The scene is already loaded: a placeholder id satisfies "scene or scene_id".
        return schema.load({**body, "scene_id": "local"})  # type: ignore[no-any-return]

    def cover(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/cover``, in-process."""
        from schemas import requests as rq
        from schemas import responses as rs
        from service import queries

        with core_errors(self.where):
            answer = queries.cover(self.geo, self._load(rq.CoverRequestSchema(), body))
        return rs.CoverResponseSchema().dump(answer)  # type: ignore[no-any-return]

    def vision(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/vision``, in-process."""
        from schemas import requests as rq
        from schemas import responses as rs
        from service import queries

        with core_errors(self.where):
            answer = queries.vision(self.geo, self._load(rq.VisionRequestSchema(), body))
        return rs.VisionResponseSchema().dump(answer)  # type: ignore[no-any-return]

    def lighting(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/lighting``, in-process."""
        from schemas import requests as rq
        from schemas import responses as rs
        from service import queries

        with core_errors(self.where):
            answer = queries.lighting(self.geo, self._load(rq.LightingRequestSchema(), body))
        return rs.LightingResponseSchema().dump(answer)  # type: ignore[no-any-return]

    def matrix(
        self,
        ruleset: str,
        tokens: Sequence[str] | None,
        kind: str,
        options: Mapping[str, Any],
    ) -> dict[str, Any]:
        """``POST /v1/matrix``, in-process: all ordered pairs, row = attacker/observer.

        With more than :data:`PROGRESS_THRESHOLD` tokens a progress bar is shown on
        stderr. Unlike the server, no token limit applies.
        """
        from marshmallow import ValidationError

        from schemas import requests as rq
        from schemas import responses as rs
        from service import queries

        with core_errors(self.where):
            schema = rq.CoverOptionsSchema if kind == "cover" else rq.VisionOptionsSchema
            try:
                loaded = schema().load(dict(options))
            except ValidationError as err:
                raise ValidationError({"options": err.messages}) from None
            ids = list(tokens) if tokens else [t.id for t in self.scene.tokens]
            show = len(ids) > PROGRESS_THRESHOLD
            with progress(len(ids), f"{kind} matrix of {len(ids)} tokens", show) as bar:
                done = 0

                def rows_done(n: int) -> None:  # the core reports rows done so far
                    nonlocal done
                    bar.update(n - done)
                    done = n

                answer = queries.matrix(self.geo, ruleset, ids, kind, loaded, progress=rows_done)
                rows_done(len(ids))
        return rs.MatrixResponseSchema().dump(answer)  # type: ignore[no-any-return]

    def render(self, query: Mapping[str, Any] | None) -> str:
        """``POST /v1/render``, in-process: the SVG text."""
        from service.render import render_query, render_svg

        with core_errors(self.where):
            if query is None:
                return render_svg(self.scene)
            return render_query(self.geo, query)


class Remote:
    """Answers through a server with :class:`service.client.SightlineClient`."""

    def __init__(self, client: Any, scene: Mapping[str, Any]) -> None:
        self.client = client
        self.scene = scene

    def cover(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/cover`` (the scene uploaded once, resent after a 404)."""
        with server_errors(self.client):
            return self.client.cover(  # type: ignore[no-any-return]
                body["ruleset"],
                self.scene,
                body.get("attacker"),
                body["targets"],
                attack=body.get("attack"),
                options=body.get("options"),
            )

    def vision(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/vision``."""
        with server_errors(self.client):
            return self.client.vision(  # type: ignore[no-any-return]
                body["ruleset"],
                self.scene,
                body["observer"],
                body["targets"],
                options=body.get("options"),
            )

    def lighting(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/lighting``."""
        with server_errors(self.client):
            return self.client.lighting(  # type: ignore[no-any-return]
                self.scene, points=body.get("points", ()), tokens=body.get("tokens", ())
            )

    def matrix(
        self,
        ruleset: str,
        tokens: Sequence[str] | None,
        kind: str,
        options: Mapping[str, Any],
    ) -> dict[str, Any]:
        """``POST /v1/matrix``."""
        with server_errors(self.client):
            return self.client.matrix(  # type: ignore[no-any-return]
                ruleset, self.scene, tokens, kind, options=options
            )

    def render(self, query: Mapping[str, Any] | None) -> str:
        """``POST /v1/render``: the SVG text."""
        with server_errors(self.client):
            return self.client.render(self.scene, query)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- helpers


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


def resolve_token(scene: Mapping[str, Any], ref: str, option: str) -> str:
    """The id of the token ``ref`` (an id, or a unique name, case-insensitive).

    Raises
    ------
    CliError
        When no token has that id or name, or several tokens have that name.
    """
    tokens = [t for t in scene.get("tokens") or () if isinstance(t, Mapping)]
    if any(t.get("id") == ref for t in tokens):
        return ref
    for same in (
        lambda t: t.get("name") == ref,
        lambda t: str(t.get("name", "")).casefold() == ref.casefold(),
    ):
        found = [t for t in tokens if same(t)]
        if len(found) == 1:
            return str(found[0].get("id"))
        if len(found) > 1:
            ids = ", ".join(str(t.get("id")) for t in found[:8])
            raise CliError(
                f"{option} {ref!r}: {len(found)} tokens have that name; use an id: {ids}"
            )
    known = ", ".join(
        f"{t.get('id')} ({t.get('name')})" if t.get("name") else str(t.get("id"))
        for t in tokens[:12]
    )
    more = f", ... ({len(tokens)} in all)" if len(tokens) > 12 else ""
    raise CliError(
        f"{option} {ref!r}: no token with that id or name in the scene"
        + (f"; tokens: {known}{more}" if tokens else "; the scene has no tokens")
    )


def parse_point(text: str, option: str) -> list[float]:
    """``"x,y"`` (scene px) as ``[x, y]``."""
    import math

    parts = text.replace(" ", "").split(",")
    try:
        x, y = (float(p) for p in parts)
    except ValueError:
        raise CliError(f"{option} {text!r}: expected x,y in scene pixels, e.g. 150,250") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise CliError(f"{option} {text!r}: coordinates must be finite numbers")
    return [x, y]


def parse_pair(text: str, option: str) -> tuple[str, str]:
    """``"A:B"`` as ``("A", "B")`` (split at the first colon)."""
    first, sep, second = text.partition(":")
    if not sep or not first or not second:
        raise CliError(f"{option} {text!r}: expected FROM:TO (two token ids or names)")
    return first, second


def parse_options(pairs: Sequence[str], list_fields: frozenset[str]) -> dict[str, Any]:
    """``k=v`` pairs as an options dict; values are JSON when they parse, else strings.

    A key given twice, or a list option (``take_cover`` ...) given a string, collects a
    list (a string is split at commas).
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CliError(f"--option {pair!r}: expected KEY=VALUE, e.g. corner_inset=1")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        if key in list_fields and isinstance(value, str):
            value = [v for v in value.split(",") if v]
        if key in out:
            prior = out[key] if isinstance(out[key], list) else [out[key]]
            value = prior + (value if isinstance(value, list) else [value])
        out[key] = value
    return out


def list_option_names(schema_name: str) -> frozenset[str]:
    """Names of the list-valued fields of ``schemas.requests.<schema_name>``."""
    from marshmallow import fields

    from schemas import requests as rq

    schema = getattr(rq, schema_name)
    return frozenset(
        name for name, f in schema._declared_fields.items() if isinstance(f, fields.List)
    )


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Rows under headers, columns left-aligned and padded to their widest cell."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    return "\n".join(lines)


def yes(value: Any) -> str:
    """``yes``/``no`` for a boolean, ``-`` for None."""
    if value is None:
        return "-"
    return "yes" if value else "no"


def signed(value: Any) -> str:
    """``+2`` / ``0`` / ``-`` (None: not applicable, e.g. total cover)."""
    if value is None:
        return "-"
    return f"{value:+d}" if value else "0"


def emit(data: Any, as_json: bool, human: Callable[[Any], str]) -> None:
    """Print ``data`` as indented JSON or as the human-readable text ``human(data)``."""
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        click.echo(human(data))


# --------------------------------------------------------------------------- context


@dataclasses.dataclass
class Session:
    """What every query command needs: the scene dict, its label and the backend."""

    scene: dict[str, Any]
    where: str
    backend: Local | Remote
    #: Lines for stderr once the command has succeeded (what was imported ...).
    notes: list[str] = dataclasses.field(default_factory=list)

    def done(self) -> None:
        """Print the notes on stderr (after the answer, so errors stay one line)."""
        for note in self.notes:
            click.echo(f"sightline: {note}", err=True)

    def names(self) -> dict[str, str]:
        """Token id -> ``name (id)`` (or the id when the token has no name)."""
        out = {}
        for t in self.scene.get("tokens") or ():
            if isinstance(t, Mapping) and "id" in t:
                name = t.get("name")
                out[str(t["id"])] = f"{name} ({t['id']})" if name else str(t["id"])
        return out

    def token(self, ref: str, option: str) -> str:
        """Token id of an id or name given to ``option``."""
        return resolve_token(self.scene, ref, option)


def open_session(
    path: str,
    fmt: str,
    page: str | None,
    scene_sel: str | None,
    url: str | None,
    api_key: str | None,
    timeout: float,
) -> Session:
    """Read the scene file (importing an export) and pick the local or remote backend."""
    doc = unwrap(read_json(path))
    notes = []
    client = None
    if url:
        from service.client import SightlineClient

        client = SightlineClient(url, api_key=api_key, timeout=timeout)
    if fmt == "auto" and page is None and scene_sel is None and is_canonical(doc):
        scene = dict(doc)
    else:
        if client is not None:
            result = import_remote(client, doc, fmt, page, scene_sel, path)
        else:
            result = import_local(doc, fmt, page, scene_sel, path)
        warnings = result.get("warnings") or ()
        fmt_used = (result.get("stats") or {}).get("format", fmt)
        note = f"; {len(warnings)} import warnings (see `sightline import`)" if warnings else ""
        notes.append(f"imported {path} as a {fmt_used} export{note}")
        scene = result["scene"]
    if client is not None:
        return Session(scene, path, Remote(client, scene), notes)
    return Session(scene, path, Local(scene, path), notes)


def scene_command(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add the SCENE argument, scene-file options and server options to a command."""
    options = [
        click.argument("scene_file", metavar="SCENE"),
        click.option(
            "--format",
            "fmt",
            type=click.Choice(FORMATS),
            default="auto",
            show_default=True,
            help="Format of SCENE when it is an export (canonical scenes are recognised).",
        ),
        click.option("--page", help="Roll20: page name or index of a campaign export."),
        click.option("--scene", "scene_sel", help="Foundry: scene name or id of a world export."),
        click.option(
            "--url",
            envvar="SIGHTLINE_URL",
            help="Ask this Sightline server instead of answering locally [env SIGHTLINE_URL].",
        ),
        click.option(
            "--api-key",
            envvar="SIGHTLINE_API_KEY",
            help="Bearer key for --url [env SIGHTLINE_API_KEY].",
        ),
        click.option(
            "--timeout", type=float, default=30.0, show_default=True, help="Seconds, with --url."
        ),
        click.option("--json", "as_json", is_flag=True, help="Print the API's JSON answer."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def session_from(kw: dict[str, Any]) -> Session:
    """Pop the :func:`scene_command` parameters from ``kw`` and open the session."""
    return open_session(
        kw.pop("scene_file"),
        kw.pop("fmt"),
        kw.pop("page"),
        kw.pop("scene_sel"),
        kw.pop("url"),
        kw.pop("api_key"),
        kw.pop("timeout"),
    )


# --------------------------------------------------------------------------- commands


@click.group(cls=SightlineGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sightline")
def main() -> None:
    """Sightline: cover, line of effect, lighting and vision for VTT scenes.

    SCENE is a canonical scene JSON or a Foundry VTT, Roll20 or Universal VTT export.
    Commands answer locally, or through a server with --url.
    """


def _gunicorn_config() -> Path | None:
    for base in (Path(__file__).resolve().parent.parent, Path.cwd()):
        conf = base / "gunicorn.conf.py"
        if conf.is_file():
            return conf
    return None


@main.command()
@click.option("--bind", "-b", help="Address to listen on [default: gunicorn.conf.py's].")
@click.option("--workers", "-w", type=click.IntRange(min=1), help="Worker processes.")
def serve(bind: str | None, workers: int | None) -> None:
    """Serve the HTTP API with gunicorn (replaces this process)."""
    exe = shutil.which("gunicorn") or str(Path(sys.executable).with_name("gunicorn"))
    if not Path(exe).exists():
        raise CliFailure("gunicorn is not installed (pip install gunicorn)")
    args = [exe]
    conf = _gunicorn_config()
    if conf is not None:
        args += ["-c", str(conf)]
    if bind:
        args += ["--bind", bind]
    if workers:
        args += ["--workers", str(workers)]
    args.append("service.app:create_app()")
    try:
        os.execv(exe, args)
    except OSError as err:
        raise CliFailure(f"cannot start gunicorn: {err.strerror or err}") from None


@main.command("import")
@click.argument("file", metavar="FILE")
@click.option("-o", "--output", default="-", help="Write the canonical scene here [stdout].")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True)
@click.option("--page", help="Roll20: page name or index of a campaign export.")
@click.option("--scene", "scene_sel", help="Foundry: scene name or id of a world export.")
@click.option("--url", envvar="SIGHTLINE_URL", help="Import with this server [env SIGHTLINE_URL].")
@click.option("--api-key", envvar="SIGHTLINE_API_KEY", help="Bearer key for --url.")
@click.option("--timeout", type=float, default=30.0, show_default=True)
def import_cmd(
    file: str,
    output: str,
    fmt: str,
    page: str | None,
    scene_sel: str | None,
    url: str | None,
    api_key: str | None,
    timeout: float,
) -> None:
    """Translate a VTT export FILE into a canonical scene JSON.

    Stats and warnings (what was dropped or defaulted) go to stderr.
    """
    export = read_json(file)
    if url:
        from service.client import SightlineClient

        client = SightlineClient(url, api_key=api_key, timeout=timeout)
        result = import_remote(client, export, fmt, page, scene_sel, file)
    else:
        result = import_local(export, fmt, page, scene_sel, file)
        from marshmallow import ValidationError

        from schemas.scene import SceneSchema

        try:  # the adapter's output must be a valid scene (as POST /v1/import checks)
            SceneSchema().load(result["scene"])
        except ValidationError as err:
            raise CliFailure(
                f"{file}: the imported scene is invalid: {error_text(err.messages)}"
            ) from None
    text = json.dumps(result["scene"], indent=2, ensure_ascii=False) + "\n"
    if output == "-":
        click.echo(text, nl=False)
    else:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as err:
            raise CliError(f"{output}: cannot write: {err.strerror or err}") from None
    stats = result.get("stats") or {}
    counts = ", ".join(
        f"{stats[k]} {k}" for k in ("walls", "doors", "tokens", "lights", "regions") if k in stats
    )
    target = "stdout" if output == "-" else output
    click.echo(
        f"sightline: imported {stats.get('format', fmt)} scene from {file} to {target}: {counts}",
        err=True,
    )
    for warning in result.get("warnings") or ():
        click.echo(f"sightline: warning: {warning}", err=True)


@main.command()
@scene_command
@click.option("--ruleset", "-r", required=True, help="dnd5e, starfinder or pf2e-variant.")
@click.option("--attacker", "-a", help="Attacker token id or name (not needed for --kind area).")
@click.option("--target", "-t", "targets", multiple=True, required=True, help="Target (repeat).")
@click.option("--kind", type=click.Choice(ATTACK_KINDS), default="ranged", show_default=True)
@click.option("--origin", help="x,y point of origin of an area attack (scene px).")
@click.option("--option", "options", multiple=True, help="Ruleset option KEY=VALUE (repeat).")
def cover(**kw: Any) -> None:
    """Cover of each target against the attacker."""
    as_json = kw.pop("as_json")
    session = session_from(kw)
    attack: dict[str, Any] = {"kind": kw["kind"]}
    if kw["origin"]:
        attack["origin"] = parse_point(kw["origin"], "--origin")
    attacker = session.token(kw["attacker"], "--attacker") if kw["attacker"] else None
    body = {
        "ruleset": kw["ruleset"],
        "attacker": attacker,
        "targets": [session.token(t, "--target") for t in kw["targets"]],
        "attack": attack,
        "options": parse_options(kw["options"], list_option_names("CoverOptionsSchema")),
    }
    answer = session.backend.cover(body)
    emit(answer, as_json, lambda a: cover_text(a, session.names(), kw["kind"]))
    session.done()


def cover_text(answer: Mapping[str, Any], names: Mapping[str, str], kind: str) -> str:
    """The cover answer as a table."""
    who = answer.get("attacker")
    head = f"{answer['ruleset']} cover against {names.get(who, who) if who else 'an area'} ({kind})"
    rows = []
    for r in answer["results"]:
        lines = r.get("lines") or []
        blocked = sum(1 for line in lines if line.get("blocked"))
        extra = []
        if r.get("advantage_levels"):
            extra.append(f"advantage on defense {r['advantage_levels']}")
        if r.get("concealment") not in (None, "none"):
            extra.append(f"{r['concealment']} concealment {r.get('miss_chance', 0)}% miss")
        if r.get("can_hide"):
            extra.append("can hide")
        rows.append(
            [
                names.get(r["target"], r["target"]),
                r["cover"],
                signed(r.get("ac_bonus")),
                signed(r.get("save_bonus")),
                yes(r.get("line_of_effect")),
                f"{blocked}/{len(lines)}",
                "; ".join(extra),
                " ".join(r.get("rules") or ()),
            ]
        )
    headers = ["target", "cover", "AC", "save", "effect", "blocked", "notes", "rules"]
    return head + "\n" + table(headers, rows)


@main.command()
@scene_command
@click.option("--ruleset", "-r", required=True, help="dnd5e, starfinder or pf2e-variant.")
@click.option("--observer", required=True, help="Observer token id or name.")
@click.option("--target", "-t", "targets", multiple=True, required=True, help="Target (repeat).")
@click.option("--option", "options", multiple=True, help="Ruleset option KEY=VALUE (repeat).")
def vision(**kw: Any) -> None:
    """What the observer perceives of each target."""
    as_json = kw.pop("as_json")
    session = session_from(kw)
    body = {
        "ruleset": kw["ruleset"],
        "observer": session.token(kw["observer"], "--observer"),
        "targets": [session.token(t, "--target") for t in kw["targets"]],
        "options": parse_options(kw["options"], list_option_names("VisionOptionsSchema")),
    }
    answer = session.backend.vision(body)
    emit(answer, as_json, lambda a: vision_text(a, session.names()))
    session.done()


def vision_text(answer: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """The vision answer as a table."""
    observer = str(answer.get("observer"))
    head = f"{answer['ruleset']} vision of {names.get(observer, observer)}"
    rows = []
    for r in answer["results"]:
        extra = []
        if r.get("obscurement") not in (None, "none"):
            extra.append(f"{r['obscurement']} obscurement")
        if r.get("perception_disadvantage"):
            extra.append("disadvantage on Perception")
        if r.get("detection") not in (None, "observed"):
            extra.append(r["detection"])
        if r.get("concealed"):
            extra.append(f"concealed (DC {r.get('flat_check_dc')})")
        if r.get("concealment") not in (None, "none"):
            extra.append(f"{r['concealment']} concealment {r.get('miss_chance', 0)}% miss")
        if r.get("magical_darkness"):
            extra.append("magical darkness")
        rows.append(
            [
                names.get(r["target"], r["target"]),
                yes(r.get("can_see")),
                r.get("sense") or "-",
                r.get("light", "-"),
                yes(r.get("line_of_sight")),
                "; ".join(extra),
                " ".join(r.get("rules") or ()),
            ]
        )
    headers = ["target", "sees", "sense", "light", "sight line", "notes", "rules"]
    return head + "\n" + table(headers, rows)


@main.command()
@scene_command
@click.option("--token", "-t", "tokens", multiple=True, help="Token id or name (repeat).")
@click.option("--point", "-p", "points", multiple=True, help="x,y in scene px (repeat).")
def lighting(**kw: Any) -> None:
    """Light level at points and over token spaces (all tokens when none is given)."""
    as_json = kw.pop("as_json")
    session = session_from(kw)
    tokens = [session.token(t, "--token") for t in kw["tokens"]]
    points = [parse_point(p, "--point") for p in kw["points"]]
    if not tokens and not points:
        tokens = [str(t["id"]) for t in session.scene.get("tokens") or () if isinstance(t, Mapping)]
        if not tokens:
            raise CliError(f"{session.where}: the scene has no tokens; give --point x,y")
    answer = session.backend.lighting({"points": points, "tokens": tokens})
    emit(answer, as_json, lambda a: lighting_text(a, session.names()))
    session.done()


def lighting_text(answer: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """The lighting answer as a table."""
    rows = []
    for r in answer["results"]:
        if r.get("token") is not None:
            where = names.get(r["token"], r["token"])
        else:
            where = ", ".join(f"{v:g}" for v in r["point"])
        rows.append(
            [
                where,
                r["level"],
                yes(r.get("magical_darkness")),
                ", ".join(r.get("lights") or ()) or "-",
                " ".join(r.get("rules") or ()),
            ]
        )
    return table(["where", "light", "magical darkness", "lights", "rules"], rows)


#: Short cells of the matrix table.
ABBREVIATIONS = {
    "none": ".",
    "half": "1/2",
    "three-quarters": "3/4",
    "total": "X",
    "partial": "P",
    "cover": "C",
    "soft": "S",
    "improved": "I",
    "lesser": "L",
    "standard": "S",
    "greater": "G",
}


@main.command()
@scene_command
@click.option("--ruleset", "-r", required=True, help="dnd5e, starfinder or pf2e-variant.")
@click.option("--kind", type=click.Choice(["cover", "vision"]), default="cover", show_default=True)
@click.option("--token", "-t", "tokens", multiple=True, help="Token id or name (repeat) [all].")
@click.option("--option", "options", multiple=True, help="Ruleset option KEY=VALUE (repeat).")
def matrix(**kw: Any) -> None:
    """All-pairs cover or vision between tokens (row: attacker or observer)."""
    as_json = kw.pop("as_json")
    session = session_from(kw)
    tokens = [session.token(t, "--token") for t in kw["tokens"]] or None
    schema = "CoverOptionsSchema" if kw["kind"] == "cover" else "VisionOptionsSchema"
    options = parse_options(kw["options"], list_option_names(schema))
    answer = session.backend.matrix(kw["ruleset"], tokens, kw["kind"], options)
    emit(answer, as_json, lambda a: matrix_text(a, session.names(), kw["kind"]))
    session.done()


def matrix_text(answer: Mapping[str, Any], names: Mapping[str, str], kind: str) -> str:
    """The matrix as a grid: numbered rows with names, numbered columns, short cells.

    Cover cells abbreviate the degree; vision cells are ``Y`` (sees), ``~`` (only hears)
    or ``.`` (does not perceive); the diagonal is ``-``.
    """
    ids = list(answer["tokens"])
    if kind == "vision":
        senses = answer.get("vision") or []
        can_see = answer.get("can_see") or []
        grid = [
            [
                None if see is None else "Y" if see else "~" if sense == "hearing" else "."
                for see, sense in zip(see_row, sense_row, strict=False)
            ]
            for see_row, sense_row in zip(can_see, senses, strict=False)
        ]
        legend = {"Y": "sees", "~": "only hears", ".": "does not perceive"}
    else:
        grid = [
            [None if c is None else ABBREVIATIONS.get(c, str(c)) for c in row]
            for row in answer.get("cover") or []
        ]
        legend = {ABBREVIATIONS.get(d, d): d for row in answer.get("cover") or [] for d in row if d}
    used = {c for row in grid for c in row if c is not None}
    rows = [
        [str(k), names.get(tid, tid), *("-" if c is None else c for c in cells)]
        for k, (tid, cells) in enumerate(zip(ids, grid, strict=False), start=1)
    ]
    headers = ["#", "from \\ to", *(str(k) for k in range(1, len(ids) + 1))]
    key = ", ".join(f"{c} = {legend[c]}" for c in sorted(used) if c in legend)
    return table(headers, rows) + (f"\n{key}" if key else "")


@main.command()
@scene_command
@click.option("--cover", "cover_pair", metavar="A:T", help="Draw the cover of T against A.")
@click.option("--vision", "vision_pair", metavar="O:T", help="Draw what O perceives of T.")
@click.option("--line-of-effect", "loe_pair", metavar="A:B", help="Draw line of effect A to B.")
@click.option("--ruleset", "-r", help="Ruleset of --cover / --vision.")
@click.option("-o", "--output", default="-", help="SVG file to write [stdout].")
def render(**kw: Any) -> None:
    """Draw the scene as SVG, with the traced lines of one query."""
    kw.pop("as_json")  # the answer is the SVG itself
    session = session_from(kw)
    given = [k for k in ("cover_pair", "vision_pair", "loe_pair") if kw[k]]
    if len(given) > 1:
        raise CliError("give at most one of --cover, --vision, --line-of-effect")
    query: dict[str, Any] | None = None
    if given:
        name = given[0]
        option = (
            "--"
            + {"cover_pair": "cover", "vision_pair": "vision", "loe_pair": "line-of-effect"}[name]
        )
        first, second = parse_pair(kw[name], option)
        a, b = session.token(first, option), session.token(second, option)
        if name == "loe_pair":
            query = {"type": "line-of-effect", "from": a, "to": b}
        else:
            if not kw["ruleset"]:
                raise CliError(f"{option} needs --ruleset")
            role = "attacker" if name == "cover_pair" else "observer"
            query = {"type": option[2:], "ruleset": kw["ruleset"], role: a, "target": b}
    svg = session.backend.render(query)
    if kw["output"] == "-":
        click.echo(svg)
    else:
        try:
            Path(kw["output"]).write_text(svg, encoding="utf-8")
        except OSError as err:
            raise CliError(f"{kw['output']}: cannot write: {err.strerror or err}") from None
        caption = svg_title(svg)
        session.notes.append(f"wrote {kw['output']}" + (f": {caption}" if caption else ""))
    session.done()


def svg_title(svg: str) -> str | None:
    """The caption (first ``<title>``) of a rendered SVG, if any."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return None
    title = root.find("{http://www.w3.org/2000/svg}title")
    return title.text if title is not None else None


if __name__ == "__main__":  # pragma: no cover
    main()
