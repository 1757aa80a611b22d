"""What an answer cites and says, read from a ruleset's table of rulings.

A ruleset's cover answer cites rule ids and says notes for the facts of its pair (a creature
decided the degree, someone shares a space, there is no line of effect ...). Each ruleset
lists them as a table of ``Ruling`` rows, in the order the answer gives them; ``rulings``
reads the rows whose fact holds. The facts themselves are the ruleset's few hooks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ruling:
    """One row of a table of rulings.

    ``when`` names the fact (``None``: always); ``rule`` the rule id cited, ``note`` the note
    said (a ``str.format`` template over the answer's values), either or both.
    """

    when: str | None
    rule: str | None = None
    note: str | None = None


def rulings(
    table: Sequence[Ruling], facts: Mapping[str, bool], values: Mapping[str, Any] | None = None
) -> tuple[list[str], list[str]]:
    """The rule ids and notes of the rows of ``table`` whose fact holds, in table order.

    ``facts``: fact name -> whether it holds (a name not given does not); ``values``: what
    the notes' templates read.
    """
    rules: list[str] = []
    notes: list[str] = []
    for row in table:
        if row.when is not None and not facts.get(row.when):
            continue
        if row.rule is not None:
            rules.append(row.rule)
        if row.note is not None:
            notes.append(row.note.format(**(values or {})))
    return rules, notes
