"""Hypothesis properties of ``service.rules.dnd5e.gravity`` (5E-GRV-1..6).

Every multiplier is monotonic in X (weight and fall up, jump and range down), every cap of
5E-GRV-1/2 holds for any X in [0, 1000], levels are never negative and grow with X.
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from service.rules.dnd5e import gravity as grv

gravity = st.floats(min_value=0, max_value=1000, allow_nan=False, allow_infinity=False)
modifier = st.integers(-10, 30)
speed = st.floats(min_value=0, max_value=200, allow_nan=False)
ranges = st.tuples(
    st.floats(min_value=0, max_value=1000, allow_nan=False),
    st.floats(min_value=0, max_value=1000, allow_nan=False),
).map(sorted)


def dice(cap: str) -> int:
    count, die = cap.split("d")
    assert die == "6"
    return int(count)


def result(x, mods=(1, 2, 4), speed_ft=30.0, weapon=(150.0, 600.0), rounding="up"):
    return grv.gravity_modifiers(
        x,
        str_mod=mods[0],
        dex_mod=mods[1],
        con_mod=mods[2],
        speed_ft=speed_ft,
        normal_range=weapon[0],
        long_range=weapon[1],
        levels_rounding=rounding,
    )


@given(gravity, gravity, st.tuples(modifier, modifier, modifier), speed, ranges)
@example(0.0, 0.1, (1, 2, 4), 30.0, [150.0, 600.0])
@example(1.99, 2.0, (1, 2, 4), 30.0, [150.0, 600.0])
@example(9.99, 10.0, (1, 2, 4), 30.0, [150.0, 600.0])
def test_gravity_monotonic_in_x(x1, x2, mods, speed_ft, weapon):
    lo, hi = sorted((x1, x2))
    a, b = result(lo, mods, speed_ft, weapon), result(hi, mods, speed_ft, weapon)
    # 5E-GRV-1: weight and fall grow with X; jump and range shrink.
    assert a.weight_multiplier <= b.weight_multiplier
    assert a.fall_distance_multiplier <= b.fall_distance_multiplier
    assert dice(a.fall_damage_cap) <= dice(b.fall_damage_cap)
    assert a.jump_multiplier >= b.jump_multiplier
    assert a.range_multiplier >= b.range_multiplier
    assert a.weapon.long_range >= b.weapon.long_range
    assert a.weapon.normal_range >= b.weapon.normal_range
    # 5E-GRV-2..4: more gravity never helps.
    assert a.speed >= b.speed
    assert a.can_dash >= b.can_dash
    assert a.grounded <= b.grounded
    assert a.attack_disadvantage_levels <= b.attack_disadvantage_levels
    for name in ("str", "dex", "con"):
        la = getattr(a.save_disadvantage_levels, name)
        lb = getattr(b.save_disadvantage_levels, name)
        assert la <= lb


@given(gravity, st.tuples(modifier, modifier, modifier), speed, ranges)
@example(0.0, (0, 0, 0), 30.0, [150.0, 600.0])
@example(1000.0, (-10, -10, -10), 3.0, [0.0, 0.0])
@example(12.0, (1, 2, 4), 5.0, [150.0, 600.0])
def test_gravity_caps_hold(x, mods, speed_ft, weapon):
    res = result(x, mods, speed_ft, weapon)
    # 5E-GRV-1: x1/X at most x10; normal range never above the maximum, never raised.
    assert 0 < res.jump_multiplier <= 10
    assert 0 < res.range_multiplier <= 10
    assert res.weapon.normal_range <= res.weapon.long_range
    assert res.weapon.normal_range <= weapon[0]
    assert dice(res.fall_damage_cap) >= 0
    # 5E-GRV-2: speed never raised; at least 5 ft unless it was already slower.
    assert res.speed <= speed_ft
    if speed_ft >= 5:
        assert res.speed >= 5
    else:
        assert res.speed == speed_ft
    # 5E-GRV-3/4: integer counts, never negative, zero below X = 2.
    levels = res.save_disadvantage_levels
    for n in (res.attack_disadvantage_levels, levels.str, levels.dex, levels.con):
        assert isinstance(n, int) and n >= 0
        if x < 2:
            assert n == 0
    assert res.attack_disadvantage_levels == levels.str
    # Reading "up": at least one level exactly when grounded (Str modifier below X).
    assert res.grounded == (res.attack_disadvantage_levels > 0)
    # 5E-GRV-5 from X = 10 only.
    assert (res.entry_save is not None) == (x >= 10)
    assert res.can_dash == (x < 2)


@given(gravity, modifier)
@example(2.5, 2)
@example(3.0, 1)
def test_levels_readings_differ_by_at_most_one(x, mod):
    up = grv.disadvantage_levels(x, mod, "up")
    down = grv.disadvantage_levels(x, mod, "down")
    assert 0 <= down <= up <= down + 1
    if x >= 2 and float(x).is_integer():
        assert up == down == max(0, int(x) - mod)
