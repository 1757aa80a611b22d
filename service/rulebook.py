"""The rule book: what each rule id an answer cites means (``docs/rules.md``), as data.

Answers name the rules they applied (``rules: ["5E-COV-5", ...]``); this module serves the
text behind those ids to ``GET /v1/rules``, ``GET /v1/rules/{id}`` and ``sightline rules``.
Its source is ``docs/rules.md``, written for readers; :func:`parse` reads that page into
entries and ``python -m service.rulebook docs/rules.md`` writes them to
``service/data/rules.json``, the copy an installed package carries (a test holds the two
equal). Standard library only: the CLI and the web layer both import it.

An entry is a dict::

    {"id": "5E-COV-5", "ruleset": "dnd5e", "title": "Paired corners", "summary": "...",
     "text": "...", "section": "dnd5e", "rulesets": ["dnd5e"], "decisions": [...]}

``summary`` is one line (at most ``SUMMARY_CHARS`` characters) saying what the rule does, for
a tooltip, a rule chip or a list: the page's ``> ...`` line under the entry's heading.
``text`` is the whole entry: what the rule says, then its ``decisions`` (the readings this
project takes where its source text is silent or ambiguous, each starting with
``**Decision``), Markdown, paragraphs separated by a blank line. ``ruleset`` is null for the
shared geometry (``GEO-n``), which ``rulesets`` lists as every ruleset.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

#: Rulesets a rule applies to, by its id's prefix (GEO: shared geometry, every ruleset).
PREFIX_RULESETS = {
    "GEO": ("dnd5e", "starfinder", "pf2e-variant", "dnd2024", "pf2e"),
    "SF": ("starfinder",),
    "5E": ("dnd5e",),
    "PV": ("pf2e-variant",),
    "24": ("dnd2024",),
    "PF2": ("pf2e",),
}
#: A rule id as answers cite it: ``GEO-5a``, ``SF-CON-6``, ``5E-UW-9``, ``PV-DET-9``.
RULE_ID = re.compile(r"\b(?:GEO-\d+[a-z]?|(?:SF|5E|PV|24|PF2)-[A-Z]{2,3}-\d+[a-z]?)\b")
#: An entry's heading in docs/rules.md: ``### ID — title``.
_HEADING = re.compile(r"^### (\S+) — (.+)$")
_DECISION = "**Decision"
#: An entry's one-line summary in docs/rules.md: the ``> ...`` line under its heading.
_SUMMARY = "> "
#: Longest summary: one line of a tooltip or a terminal table.
SUMMARY_CHARS = 120
#: Where the packaged copy lives, inside the ``service`` package.
DATA_PATH = "data/rules.json"


class UnknownRule(KeyError):
    """No entry has this id; ``suggestions`` holds the nearest ids (may be empty)."""

    def __init__(self, rule_id: str, suggestions: list[str]) -> None:
        super().__init__(rule_id)
        self.rule_id = rule_id
        self.suggestions = suggestions

    def message(self) -> str:
        """One sentence: the unknown id, the nearest ids, and where the list is."""
        near = f" Did you mean {' or '.join(self.suggestions)}?" if self.suggestions else ""
        return f"No rule {self.rule_id!r}.{near} GET /v1/rules (sightline rules) lists them all."


def _split_decisions(paragraph: str) -> list[str]:
    """``paragraph`` cut before each ``**Decision``: the text before, then each decision."""
    parts = paragraph.split(_DECISION)
    return [parts[0].strip()] + [_DECISION + p.rstrip() for p in parts[1:]]


def _entry(rule_id: str, title: str, section: str, lines: list[str]) -> dict[str, Any]:
    """One entry from its heading and body lines (paragraphs joined into one line each).

    The first body line is the summary (``> ...``); the paragraphs after it are the text.
    """
    prefix = rule_id.split("-", 1)[0]
    if prefix not in PREFIX_RULESETS or not RULE_ID.fullmatch(rule_id):
        raise ValueError(
            f"docs/rules.md: {rule_id!r} is not a rule id (GEO-n, SF-/5E-/PV-/24-/PF2-XXX-n)"
        )
    body = "\n".join(lines).strip()
    first, _, body = body.partition("\n")
    if not first.startswith(_SUMMARY) or body[:1] not in ("", "\n"):
        raise ValueError(
            f"docs/rules.md: {rule_id} needs its one-line summary, `> ...`, under its heading"
        )
    paragraphs = [" ".join(p.split()) for p in body.split("\n\n") if p.strip()]
    statement: list[str] = []
    decisions: list[str] = []
    for paragraph in paragraphs:
        head, *rest = _split_decisions(paragraph)
        if head:
            if decisions:  # a paragraph after a decision continues it
                decisions[-1] += "\n\n" + head
            else:
                statement.append(head)
        decisions.extend(rest)
    rulesets = list(PREFIX_RULESETS[prefix])
    return {
        "id": rule_id,
        "ruleset": rulesets[0] if len(rulesets) == 1 else None,
        "title": title.strip(),
        "summary": first[len(_SUMMARY) :].strip(),
        "text": "\n\n".join([*statement, *decisions]),
        "section": section,
        "rulesets": rulesets,
        "decisions": decisions,
    }


def parse(markdown: str) -> list[dict[str, Any]]:
    """The entries of ``docs/rules.md``, in the page's order.

    ``## `` headings name the section (backticks dropped: ``dnd5e``); ``### ID — title``
    starts an entry, whose body runs to the next heading. HTML comments are skipped.

    Raises
    ------
    ValueError
        A heading that is not a rule id, or an id given twice.
    """
    text = re.sub(r"<!--.*?-->", "", markdown, flags=re.S)
    entries: list[dict[str, Any]] = []
    section, current = "", None
    body: list[str] = []
    for line in [*text.splitlines(), "## end"]:
        heading = _HEADING.match(line)
        if line.startswith("## ") or heading:
            if current is not None:
                entries.append(_entry(*current, section, body))
            current, body = (heading.group(1), heading.group(2)) if heading else None, []
            if not heading:
                section = line[3:].strip().strip("`").strip()
            continue
        body.append(line)
    seen: set[str] = set()
    for entry in entries:
        if entry["id"] in seen:
            raise ValueError(f"docs/rules.md: {entry['id']} has two entries")
        seen.add(entry["id"])
    return entries


@lru_cache(maxsize=1)
def entries() -> tuple[dict[str, Any], ...]:
    """Every entry, from the packaged ``service/data/rules.json`` (read once)."""
    text = resources.files("service").joinpath(DATA_PATH).read_text("utf-8")
    return tuple(json.loads(text)["rules"])


@lru_cache(maxsize=1)
def _by_key() -> dict[str, dict[str, Any]]:
    return {e["id"].upper(): e for e in entries()}


def lookup(rule_id: str) -> dict[str, Any]:
    """The entry of ``rule_id`` (any letter case: ``5e-cov-5`` is ``5E-COV-5``).

    Raises
    ------
    UnknownRule
        No such entry; its ``suggestions`` are the nearest ids (difflib), at most three.
    """
    key = rule_id.strip().upper()
    found = _by_key().get(key)
    if found is None:
        near = difflib.get_close_matches(key, list(_by_key()), n=3, cutoff=0.6)
        raise UnknownRule(rule_id, [_by_key()[k]["id"] for k in near])
    return found


def select(ruleset: str | None = None) -> list[dict[str, Any]]:
    """The entries that apply to ``ruleset`` (all entries for ``None``), in the page's order."""
    return [e for e in entries() if ruleset is None or ruleset in e["rulesets"]]


def as_text(entry: dict[str, Any]) -> str:
    """An entry as plain text for a terminal: ``ID — title``, the summary, the text's paragraphs."""
    plain = [_plain(entry["summary"])] + [_plain(p) for p in entry["text"].split("\n\n")]
    where = ", ".join(entry["rulesets"])
    return f"{entry['id']} — {entry['title']} ({where})\n\n" + "\n\n".join(plain)


def _plain(markdown: str) -> str:
    """``markdown`` without bold markers and backticks."""
    return markdown.replace("**", "").replace("`", "")


def write_json(source: Path, target: Path) -> int:
    """Write the entries of the page ``source`` to ``target`` (JSON); returns their count."""
    found = parse(source.read_text("utf-8"))
    body = {"source": "docs/rules.md", "rules": found}
    target.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return len(found)


if __name__ == "__main__":  # python -m service.rulebook docs/rules.md
    page = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/rules.md")
    out = Path(__file__).with_name("data") / "rules.json"
    print(f"{write_json(page, out)} rules written to {out}")
