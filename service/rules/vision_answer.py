"""The steps of a vision answer that every ruleset takes the same way (API.md "Vision").

Each ruleset's ``vision`` reads one ``SenseReport`` (``service.senses.perceive_all``) and
decides its own fields (dnd5e's obscurement, starfinder's concealment, pf2e-variant's
detection). What they share is here: the answer's common fields, filled from the report in
one place (``vision_answer``), and the pick of the strongest of several ranked degrees
(``strongest``: dnd5e's obscurement, 5E-VIS-1; starfinder's concealment, SF-CON-3).
Rulesets import this module, never one another (the import-linter contract).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from service.model import Token
from service.rules.base import VisionResult
from service.senses import SenseReport


def strongest(rank: Mapping[str, int], degrees: Iterable[str]) -> str:
    """The strongest of ``degrees`` by ``rank``, the first of equals.

    Parameters
    ----------
    rank : mapping of str to int
        Each degree's strength, e.g. ``{"none": 0, "light": 1, "heavy": 2}``.
    degrees : iterable of str
        At least one degree, each a key of ``rank``.

    Raises
    ------
    ValueError
        When ``degrees`` is empty.
    KeyError
        For a degree that ``rank`` does not name.
    """
    return max(degrees, key=rank.__getitem__)


def vision_answer(
    target: Token,
    report: SenseReport,
    located: str | None,
    can_see: bool,
    rules: Sequence[str],
    notes: Sequence[str],
    **ruleset_fields: Any,
) -> VisionResult:
    """The ``VisionResult`` of one pair: the common fields from ``report``, and the ruleset's.

    Parameters
    ----------
    target : Token
    report : SenseReport
        What the observer's senses do toward ``target``: its distance (grid units), light,
        line of sight and blockers.
    located, can_see : str or None, bool
        The sense that located the target and whether it sees it (``SenseOrder.located``).
    rules : sequence of str
        Rule ids cited, in order; each is kept once, at its first place.
    notes : sequence of str
    **ruleset_fields
        The ruleset's own fields of ``VisionResult`` (e.g. ``obscurement``, ``concealment``,
        ``detection``); the others keep their neutral values.
    """
    return VisionResult(
        target=target.id,
        can_see=can_see,
        sense=located,
        light=report.light.level,
        magical_darkness=report.light.magical_darkness,
        distance=report.distance,
        line_of_sight=report.line_of_sight,
        rules=tuple(dict.fromkeys(rules)),
        blockers=report.blockers,
        notes=tuple(notes),
        **ruleset_fields,
    )
