"""The error family of the pure core (standard library only).

Every error carries ``path``: the JSON path of the request field it is about, so the web
layer can answer in the error shape of ``shared/DESIGN.md`` ("Errors").
"""

from __future__ import annotations

from collections.abc import Sequence


def shown(value: object, limit: int = 60) -> str:
    """``repr`` of a client-sent value for a message, cut to ``limit`` characters.

    A cut string keeps its closing quote: ``'abc…'``.
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, str) and text[-1] in "'\"":
        return text[: limit - 2] + "…" + text[-1]
    return text[: limit - 1] + "…"


class RulesError(Exception):
    """Raised when a well-formed request cannot be answered (HTTP 422).

    Parameters
    ----------
    message : str
        What is wrong, naming the field and the value.
    path : sequence of str or int
        Path of the offending request field, e.g. ``("targets", 0)``.
    """

    status = 422

    def __init__(self, message: str, path: Sequence[str | int] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.path = tuple(path)


class UnknownToken(RulesError):
    """Raised when a request names a token id that is not in the scene (HTTP 404)."""

    status = 404


class SceneNotFound(RulesError):
    """Raised when a ``scene_id`` is not in this process's scene cache (HTTP 404).

    The client resends the scene inline (``shared/DESIGN.md``, "Scene cache").
    """

    status = 404


class UnknownRuleset(RulesError):
    """Raised when ``ruleset`` names no registered rule system (HTTP 422)."""


class OverBudget(RulesError):
    """Raised when a request would cost more work than its budget (HTTP 422).

    The budgets are those of ``docs/decisions.md`` "Bounded work". The message says what was
    counted, the budget, and what to reduce; it is raised before the costly step, so the
    worker answers at once.
    """
