"""Answers as text: the tables ``sightline`` prints without ``--json``.

Each function takes the HTTP API's JSON answer (``shared/API.md``) and the token names
(id -> ``name (id)``) and returns plain text; nothing here asks anything.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click


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


def svg_title(svg: str) -> str | None:
    """The caption (first ``<title>``) of a rendered SVG, if any."""
    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return None
    title = root.find("{http://www.w3.org/2000/svg}title")
    return title.text if title is not None else None
