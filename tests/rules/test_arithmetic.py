"""Shared arithmetic of the modifier rules (``service.rules.arithmetic``)."""

from __future__ import annotations

import math

import pytest

from service.errors import RulesError
from service.rules import arithmetic as ar


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(20 * 0.35, 7.0, id="20 x 0.35 is 7"),
        pytest.param(30 - 5 * 2.2, 19.0, id="30 - 5 x 2.2 is 19"),
        pytest.param(2.5, 2.5, id="a half is kept"),
        pytest.param(1e12 + 1e-4, 1e12, id="relative tolerance for large values"),
        pytest.param(math.inf, math.inf, id="infinity unchanged"),
    ],
)
def test_snap(value, expected):
    assert ar.snap(value) == expected


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        pytest.param(0.4, "0d6", id="0.4 die rounds down"),
        pytest.param(0.5, "1d6", id="half a die rounds up"),
        pytest.param(20 * 2.56, "51d6", id="51.2 dice"),
        pytest.param(-3, "0d6", id="never negative"),
    ],
)
def test_dice(count, expected):
    assert ar.dice(count) == expected


@pytest.mark.parametrize(
    ("check", "value", "message"),
    [
        pytest.param(ar.check_number, True, "must be a number", id="a boolean is no number"),
        pytest.param(ar.check_number, "3", "must be a number", id="a string is no number"),
        pytest.param(ar.check_number, math.nan, "must be finite", id="NaN"),
        pytest.param(ar.check_number, -1, "must be at least 0", id="negative"),
        pytest.param(ar.check_int, 1.0, "must be an integer", id="float is no integer"),
        pytest.param(ar.check_count, -1, "must be at least 0", id="negative count"),
    ],
)
def test_checks_name_the_field(check, value, message):
    with pytest.raises(RulesError, match=f"effect.damage {message}") as err:
        check(value, ("effect", "damage"))
    assert err.value.path == ("effect", "damage")


def test_checks_pass_good_values():
    assert ar.check_number(-5, ("x",), minimum=None) == -5.0
    assert ar.check_count(None, ("x",)) is None
    assert ar.check_count(0, ("x",)) == 0
