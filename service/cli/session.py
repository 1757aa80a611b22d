"""What a query command reads: the scene file, token names, points, pairs and options.

:func:`scene_command` adds the SCENE argument and the scene-file and server options to a
command; :func:`session_from` reads the scene (importing an export first) and picks the
local or remote backend; the ``parse_*`` functions read the other options.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import click

from service.cli.errors import CliError
from service.cli.files import import_local, is_canonical, read_json, unwrap

if TYPE_CHECKING:
    from service.cli.local import Local
    from service.cli.remote import Remote

    Backend = Local | Remote

FORMATS = ("auto", "foundry", "roll20", "uvtt")


@dataclasses.dataclass
class Session:
    """What every query command needs: the scene dict, its label and the backend."""

    scene: dict[str, Any]
    where: str
    backend: Backend
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
    # The backends are imported here, as needed: the local one brings in numpy, shapely,
    # marshmallow and the rules, the remote one requests; `sightline --help` needs neither.
    doc = unwrap(read_json(path))
    notes = []
    client = None
    if url:
        from service.cli import remote

        client = remote.connect(url, api_key, timeout)
    if fmt == "auto" and page is None and scene_sel is None and is_canonical(doc):
        scene = dict(doc)
    else:
        if client is not None:
            result = remote.import_remote(client, doc, fmt, page, scene_sel, path)
        else:
            result = import_local(doc, fmt, page, scene_sel, path)
        warnings = result.get("warnings") or ()
        fmt_used = (result.get("stats") or {}).get("format", fmt)
        note = f"; {len(warnings)} import warnings (see `sightline import`)" if warnings else ""
        notes.append(f"imported {path} as a {fmt_used} export{note}")
        scene = result["scene"]
    if client is not None:
        return Session(scene, path, remote.Remote(client, scene), notes)
    from service.cli.local import Local

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
        click.option("--page", help="The same as --scene."),
        click.option(
            "--scene",
            "scene_sel",
            help="Scene (Foundry) or page (Roll20) of a multi-scene export: name, id or index.",
        ),
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
    from schemas.suggest import token_hint  # the API's did-you-mean (marshmallow: not at --help)

    pairs = [(str(t.get("id")), str(t.get("name") or t.get("id"))) for t in tokens]
    hint = token_hint(ref, pairs)
    raise CliError(
        f"{option} {ref!r}: no token with that id or name in the scene"
        + (f" (d{hint.strip()[1:]})" if hint else "")  # " (did you mean 'goblin'?)"
        + (f"; tokens: {known}{more}" if tokens else "; the scene has no tokens")
    )


def parse_point(text: str, option: str) -> list[float]:
    """``"x,y"`` (scene px) as ``[x, y]``."""
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
    # Imported here: marshmallow and the schemas are not needed by `sightline --help`.
    from marshmallow import fields

    from schemas import requests as rq

    schema = getattr(rq, schema_name)
    return frozenset(
        name for name, f in schema._declared_fields.items() if isinstance(f, fields.List)
    )
