"""The commands of ``sightline``: serve, import, cover, vision, lighting, matrix, render, rules.

Each query command builds the HTTP request body (``shared/API.md``) from its options, asks
the session's backend (local: the operation table in-process; remote: a server) and prints
the answer as a table (:mod:`service.cli.text`) or, with ``--json``, as the API's JSON.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from service import __version__, rulebook
from service.cli.errors import CliError, CliFailure, SightlineGroup
from service.cli.files import check_scene, import_local, read_json, write_text
from service.cli.session import (
    FORMATS,
    list_option_names,
    parse_options,
    parse_pair,
    parse_point,
    scene_command,
    session_from,
)
from service.cli.text import (
    cover_text,
    emit,
    lighting_text,
    matrix_text,
    svg_title,
    table,
    vision_text,
)

ATTACK_KINDS = ("ranged", "melee", "area", "spell")
#: ``--ruleset``'s help: every ruleset (the rule book's list: no heavy import for --help).
RULESET_HELP = ", ".join(rulebook.PREFIX_RULESETS["GEO"]) + "."


@click.group(cls=SightlineGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sightline")
def main() -> None:
    """Sightline: cover, line of effect, lighting and vision for VTT scenes.

    SCENE is a canonical scene JSON or a Foundry VTT, Roll20 or Universal VTT export, or
    `sample`: the bundled sample scene (a room with a pillar, a door, a window and six
    creatures). Commands answer locally, or through a server with --url.

    \b
    Examples (the sample scene; a scene file or an EXPORT works the same):
      sightline cover sample -r dnd5e --attacker archer --target goblin --target kobold
      sightline vision sample -r pf2e-variant --observer goblin --target archer
      sightline lighting sample -r starfinder --token goblin --point 150,150
      sightline matrix sample -r starfinder
      sightline render sample -r dnd5e --cover archer:goblin -o cover.svg
      sightline import EXPORT -o scene.json
      sightline rules 5E-COV-5
    """  # noqa: D301 (click's \b keeps the examples' lines as written)


def _gunicorn_config() -> Path | None:
    for base in (Path(__file__).resolve().parents[2], Path.cwd()):
        conf = base / "gunicorn.conf.py"
        if conf.is_file():
            return conf
    return None


#: gunicorn.conf.py's bind when neither --bind nor SIGHTLINE_BIND is given.
DEFAULT_BIND = "127.0.0.1:8000"


def check_bind(bind: str) -> None:
    """Fail at once, saying what to do, when the TCP address ``bind`` is taken.

    gunicorn would retry for 5 s and then say only "Can't connect". ``unix:`` and ``fd://``
    binds are left to gunicorn.

    Raises
    ------
    CliFailure
        When ``host:port`` is in use or cannot be bound (with the OS's reason).
    """
    if bind.startswith(("unix:", "fd://")):
        return
    host, sep, port_text = bind.rpartition(":")
    if not sep or not port_text.isdigit():
        raise CliError(f"--bind {bind!r}: expected HOST:PORT, e.g. 127.0.0.1:8010")
    host = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds
        try:
            probe.bind((host, int(port_text)))
        except OSError as err:
            port = int(port_text) + 10
            if err.errno == errno.EADDRINUSE:
                raise CliFailure(
                    f"cannot serve on {bind}: the port is in use (another Sightline or "
                    f"`make run`?). Pick another: make run PORT={port}, or sightline serve "
                    f"--bind {host}:{port}"
                ) from None
            raise CliFailure(f"cannot serve on {bind}: {err.strerror or err}") from None


@main.command()
@click.option(
    "--bind", "-b", help="HOST:PORT to listen on [default: $SIGHTLINE_BIND or 127.0.0.1:8000]."
)
@click.option("--workers", "-w", type=click.IntRange(min=1), help="Worker processes.")
def serve(bind: str | None, workers: int | None) -> None:
    """Serve the HTTP API with gunicorn (replaces this process).

    A port already in use is an error at once (exit 1), naming another port to try.
    """
    exe = shutil.which("gunicorn") or str(Path(sys.executable).with_name("gunicorn"))
    if not Path(exe).exists():
        raise CliFailure("gunicorn is not installed (pip install gunicorn)")
    if "bind" not in os.environ.get("GUNICORN_CMD_ARGS", ""):
        check_bind(bind or os.environ.get("SIGHTLINE_BIND") or DEFAULT_BIND)
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
@click.option("--page", help="The same as --scene.")
@click.option(
    "--scene",
    "scene_sel",
    help="Scene (Foundry) or page (Roll20) of a multi-scene export: name, id or index.",
)
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
        # Imported here: service.client brings in requests, which `sightline --help` skips.
        from service.cli import remote

        client = remote.connect(url, api_key, timeout)
        result = remote.import_remote(client, export, fmt, page, scene_sel, file)
    else:
        result = import_local(export, fmt, page, scene_sel, file)
        # the adapter's output must be a valid scene (as POST /v1/import checks)
        check_scene(result["scene"], f"{file}: the imported scene is invalid", CliFailure)
    text = json.dumps(result["scene"], indent=2, ensure_ascii=False) + "\n"
    if output == "-":
        click.echo(text, nl=False)
    else:
        write_text(output, text)
    stats = result.get("stats") or {}
    counts = ", ".join(
        f"{stats[k]} {k if stats[k] != 1 else k[:-1]}"  # "1 door", "2 doors"
        for k in ("walls", "doors", "tokens", "lights", "regions")
        if k in stats
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
@click.option("--ruleset", "-r", required=True, help=RULESET_HELP)
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


@main.command()
@scene_command
@click.option("--ruleset", "-r", required=True, help=RULESET_HELP)
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


@main.command()
@scene_command
@click.option("--token", "-t", "tokens", multiple=True, help="Token id or name (repeat).")
@click.option("--point", "-p", "points", multiple=True, help="x,y in scene px (repeat).")
@click.option("--ruleset", "-r", help="Whose rule ids to cite [dnd5e]: " + RULESET_HELP)
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
    body: dict[str, Any] = {"points": points, "tokens": tokens}
    if kw["ruleset"]:
        body["ruleset"] = kw["ruleset"]
    answer = session.backend.lighting(body)
    emit(answer, as_json, lambda a: lighting_text(a, session.names()))
    session.done()


@main.command()
@scene_command
@click.option("--ruleset", "-r", required=True, help=RULESET_HELP)
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
    body = {"ruleset": kw["ruleset"], "tokens": tokens, "kind": kw["kind"], "options": options}
    answer = session.backend.matrix(body)
    emit(answer, as_json, lambda a: matrix_text(a, session.names(), kw["kind"]))
    session.done()


@main.command()
@scene_command
@click.option("--cover", "cover_pair", metavar="A:T", help="Draw the cover of T against A.")
@click.option("--vision", "vision_pair", metavar="O:T", help="Draw what O perceives of T.")
@click.option("--line-of-effect", "loe_pair", metavar="A:B", help="Draw line of effect A to B.")
@click.option("--line-of-sight", "los_pair", metavar="A:B", help="Draw line of sight A to B.")
@click.option("--ruleset", "-r", help="Ruleset of --cover / --vision.")
@click.option("-o", "--output", default="-", help="SVG file to write [stdout].")
def render(**kw: Any) -> None:
    """Draw the scene as SVG, with the traced lines of one query."""
    kw.pop("as_json")  # the answer is the SVG itself
    session = session_from(kw)
    options = {
        "cover_pair": "cover",
        "vision_pair": "vision",
        "loe_pair": "line-of-effect",
        "los_pair": "line-of-sight",
    }
    given = [k for k in options if kw[k]]
    if len(given) > 1:
        raise CliError("give at most one of --cover, --vision, --line-of-effect, --line-of-sight")
    query: dict[str, Any] | None = None
    if given:
        name = given[0]
        option = "--" + options[name]
        first, second = parse_pair(kw[name], option)
        a, b = session.token(first, option), session.token(second, option)
        if name in ("loe_pair", "los_pair"):
            query = {"type": options[name], "from": a, "to": b}
        else:
            if not kw["ruleset"]:
                raise CliError(f"{option} needs --ruleset")
            role = "attacker" if name == "cover_pair" else "observer"
            query = {"type": option[2:], "ruleset": kw["ruleset"], role: a, "target": b}
    svg = session.backend.render(query)
    if kw["output"] == "-":
        click.echo(svg)
    else:
        write_text(kw["output"], svg)
        caption = svg_title(svg)
        session.notes.append(f"wrote {kw['output']}" + (f": {caption}" if caption else ""))
    session.done()


@main.command()
@click.argument("rule_id", metavar="[ID]", required=False)
@click.option(
    "--ruleset", "-r", type=click.Choice(rulebook.PREFIX_RULESETS["GEO"]), help="Only its rules."
)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON of GET /v1/rules[/ID].")
def rules(rule_id: str | None, ruleset: str | None, as_json: bool) -> None:
    """What a rule id of an answer means (5E-COV-5, SF-CON-6 ...): docs/rules.md.

    Without ID, lists every id with its title. No server needed: the text ships with
    Sightline, the same that GET /v1/rules serves.
    """
    if rule_id is None:
        found = rulebook.select(ruleset)
        if as_json:
            click.echo(json.dumps({"rules": found}, indent=2, ensure_ascii=False))
            return
        click.echo(table(("id", "title", "rulesets"), [_rule_row(e) for e in found]))
        return
    try:
        entry = rulebook.lookup(rule_id)
    except rulebook.UnknownRule as err:
        raise CliError(
            err.message().replace("GET /v1/rules (sightline rules)", "sightline rules")
        ) from None
    if as_json:
        click.echo(json.dumps(entry, indent=2, ensure_ascii=False))
        return
    width = min(shutil.get_terminal_size((88, 24)).columns, 88)
    paragraphs = rulebook.as_text(entry).split("\n\n")
    click.echo("\n\n".join(textwrap.fill(p, width) for p in paragraphs))


def _rule_row(entry: dict[str, Any]) -> tuple[str, str, str]:
    shared = len(entry["rulesets"]) > 1
    return entry["id"], entry["title"], "all" if shared else entry["rulesets"][0]


if __name__ == "__main__":  # pragma: no cover
    main()
