"""Arithmetic shared by the rulesets' modifier rules: snapping, rounding, dice text, checks.

Pure functions on numbers, standard library only. The checks raise ``RulesError`` with the
JSON path of the request field at fault (``shared/API.md`` "Modifiers"), so a rule checks
its own inputs and the web layer only loads and dumps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from service.errors import RulesError

#: Relative tolerance for snapping a derived quantity to a whole number: ``20 * 0.35`` or
#: ``30 - 5 * 2.2`` come out a few ulps off the integer a person would write; a value this
#: close to an integer is that integer before any ``ceil``/``floor``/comparison.
SNAP_EPS = 1e-9


def snap(value: float) -> float:
    """``value``, or the nearest integer when within ``SNAP_EPS`` (relative) of it.

    Parameters
    ----------
    value : float
        Any float; infinities and NaN are returned unchanged.

    Returns
    -------
    float
    """
    if not math.isfinite(value):
        return value
    nearest = round(value)
    if abs(value - nearest) <= SNAP_EPS * max(1.0, abs(value)):
        return float(nearest)
    return value


def round_half_up(value: float) -> int:
    """Nearest integer of a finite ``value`` (snapped first), halves up: 20.5 -> 21."""
    return math.floor(snap(value) + 0.5)


def dice(count: float, die: str = "d6") -> str:
    """A dice string such as ``"60d6"`` for a real dice count, rounded half up, minimum 0."""
    return f"{max(0, round_half_up(count))}{die}"


def check_number(value: float, path: Sequence[str], *, minimum: float | None = 0.0) -> float:
    """``value`` as a float.

    Parameters
    ----------
    value : float
        The number to check (``bool`` is not a number here).
    path : sequence of str
        JSON path of the request field, for the error.
    minimum : float or None
        Least value accepted; ``None`` for no bound.

    Raises
    ------
    RulesError
        At ``path`` when ``value`` is not a number, not finite or below ``minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RulesError(f"{'.'.join(path)} must be a number, not {value!r}.", path)
    if not math.isfinite(value):
        raise RulesError(f"{'.'.join(path)} must be finite, not {value!r}.", path)
    if minimum is not None and value < minimum:
        raise RulesError(f"{'.'.join(path)} must be at least {minimum:g}, not {value!r}.", path)
    return float(value)


def check_int(value: int, path: Sequence[str]) -> int:
    """``value`` as an int; ``RulesError`` at ``path`` if it is not an integer."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{'.'.join(path)} must be an integer, not {value!r}.", path)
    return value


def check_count(value: int | None, path: Sequence[str]) -> int | None:
    """An optional non-negative integer (damage, a count); ``None`` passes through.

    Raises
    ------
    RulesError
        At ``path`` when ``value`` is not an integer or is negative.
    """
    if value is None:
        return None
    value = check_int(value, path)
    if value < 0:
        raise RulesError(f"{'.'.join(path)} must be at least 0, not {value!r}.", path)
    return value
