"""Range band and range increment tables: PV-RNG-1..2.

Module: ``service.rules.pf2e_variant.range_increments``.

Expected values are worked by hand from shared/RULES.md and the seed (pf2e-variant-en_003
"Range Bands" / "Ranged Attacks"), not from the code. Rows marked "decision" pin a reading
documented in service/rules/pf2e_variant/range.py.
"""

from __future__ import annotations

import math

import pytest

from service.errors import RulesError
from service.rules.pf2e_variant import range_increments as rng


@pytest.mark.parametrize(
    ("distance", "engaged", "band"),
    [
        pytest.param(0, False, "close", id="PV-RNG-1 0 ft close"),
        pytest.param(30, False, "close", id="PV-RNG-1 30 close"),
        pytest.param(30.5, False, "near", id="decision 30.5 is not within 30 ft: near"),
        pytest.param(31, False, "near", id="PV-RNG-1 31 near"),
        pytest.param(60, False, "near", id="PV-RNG-1 60 near"),
        pytest.param(61, False, "far", id="PV-RNG-1 61 far"),
        pytest.param(120, False, "far", id="PV-RNG-1 120 far"),
        pytest.param(120.5, False, "distant", id="decision 120.5 distant"),
        pytest.param(121, False, "distant", id="PV-RNG-1 121 distant"),
        pytest.param(5, True, "engaged", id="PV-RNG-1 engaged"),
        pytest.param(100, True, "engaged", id="PV-RNG-1 engaged is an input"),
    ],
)
def test_range_band(distance, engaged, band):
    assert rng.range_band(distance, engaged) == band


@pytest.mark.parametrize(
    ("distance", "levels", "possible"),
    [
        pytest.param(0, 0, True, id="PV-RNG-2 0 ft none"),
        pytest.param(30, 0, True, id="PV-RNG-2 <=30 none"),
        pytest.param(30.5, 1, True, id="PV-RNG-2 over 30: one"),
        pytest.param(31, 1, True, id="PV-RNG-2 31 one"),
        pytest.param(45, 1, True, id="PV-RNG-2 45 one (handed range-crossbow-45)"),
        pytest.param(60, 1, True, id="PV-RNG-2 <=60 one"),
        pytest.param(61, 2, True, id="PV-RNG-2 61 two"),
        pytest.param(90, 2, True, id="PV-RNG-2 <=90 two"),
        pytest.param(91, 3, True, id="PV-RNG-2 91 three"),
        pytest.param(120, 3, True, id="PV-RNG-2 <=120 three"),
        pytest.param(121, 4, True, id="PV-RNG-2 121 four"),
        pytest.param(150, 4, True, id="PV-RNG-2 <=150 four"),
        pytest.param(151, 5, True, id="PV-RNG-2 151 five"),
        pytest.param(180, 5, True, id="PV-RNG-2 <=180 five (maximum)"),
        pytest.param(180.5, None, False, id="PV-RNG-2 >180 impossible"),
        pytest.param(181, None, False, id="PV-RNG-2 181 impossible (handed)"),
        pytest.param(1000, None, False, id="PV-RNG-2 far beyond impossible"),
    ],
)
def test_light_crossbow_range_table(distance, levels, possible):
    assert rng.range_increment_penalty(distance, 30) == (levels, possible)


@pytest.mark.parametrize(
    ("distance", "increment", "expected"),
    [
        pytest.param(0.6, 0.1, (5, True), id="6 increments of 0.1 despite float error"),
        pytest.param(1.1, 0.1, (None, False), id="11 increments of 0.1"),
        pytest.param(0.3, 0.1, (2, True), id="3 increments of 0.1"),
        pytest.param(2.1, 0.35, (5, True), id="6 increments of 0.35 (6.000000000000001)"),
        pytest.param(1e6, 1e-300, (None, False), id="a tiny increment overflows: impossible"),
        pytest.param(0, 1e-300, (0, True), id="no distance, tiny increment"),
    ],
)
def test_range_increment_snaps_float_error(distance, increment, expected):
    assert rng.range_increment_penalty(distance, increment) == expected


def test_range_modifiers_without_increment_is_band_only():
    res = rng.range_modifiers(45)
    assert (res.band, res.disadvantage_levels, res.possible, res.rules) == (
        "near",
        None,
        None,
        ("PV-RNG-1",),
    )


def test_range_modifiers_cite_both_rules():
    res = rng.range_modifiers(45, 30)
    assert (res.band, res.disadvantage_levels, res.possible) == ("near", 1, True)
    assert res.rules == ("PV-RNG-1", "PV-RNG-2")


@pytest.mark.parametrize(
    ("distance", "increment", "path"),
    [
        pytest.param(-1, 30, ("distance",), id="negative distance"),
        pytest.param(10, 0, ("range_increment",), id="zero increment"),
        pytest.param(10, -30, ("range_increment",), id="negative increment"),
        pytest.param(math.nan, 30, ("distance",), id="NaN distance"),
    ],
)
def test_range_errors(distance, increment, path):
    with pytest.raises(RulesError) as err:
        rng.range_modifiers(distance, increment)
    assert err.value.path == path


def test_tables_are_the_rule_texts():
    # PV-RNG-1: close <= 30, near <= 60, far <= 120, distant beyond.
    assert rng.BANDS == (("close", 30), ("near", 60), ("far", 120), ("distant", math.inf))
    # PV-RNG-2: none up to one increment, one level per further increment, five at most.
    assert rng.INCREMENT_LEVELS == tuple((n, n - 1) for n in range(1, 7))
