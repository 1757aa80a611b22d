"""Abnormal gravity tables: 5E-GRV-1..6 (``service.rules.dnd5e.gravity``).

Expected values are worked by hand from shared/RULES.md and the seed (dnd5e-zh_001
"异常重力战斗"), not from the code. Rows marked "decision" pin a reading documented in
service/rules/dnd5e/gravity.py.
"""

from __future__ import annotations

import math

import pytest

from service.errors import RulesError
from service.rules.dnd5e import gravity as grv

# A creature of the handed case grav-3: Str +1, Dex +2, Con +4, speed 30 ft, longbow 150/600.
CREATURE = {"str_mod": 1, "dex_mod": 2, "con_mod": 4, "speed_ft": 30}
LONGBOW = {"normal_range": 150, "long_range": 600}


def grav(x, **kw):
    args = {**CREATURE, **LONGBOW, **kw}
    return grv.gravity_modifiers(x, **args)


@pytest.mark.parametrize(
    ("x", "weight", "cap", "jump", "normal", "long"),
    [
        pytest.param(0, 0, "0d6", 10, 150, 6000, id="5E-GRV-6 X=0 weightless: x10 caps"),
        pytest.param(0.5, 0.5, "10d6", 2, 150, 1200, id="5E-GRV-1 X=0.5 normal range unscaled"),
        pytest.param(1, 1, "20d6", 1, 150, 600, id="5E-GRV-1 X=1 standard"),
        pytest.param(2, 2, "40d6", 0.5, 150, 300, id="5E-GRV-1 X=2"),
        pytest.param(3, 3, "60d6", 1 / 3, 150, 200, id="5E-GRV-1 X=3 handed grav-3"),
        pytest.param(
            9.99, 9.99, "200d6", 1 / 9.99, 600 / 9.99, 600 / 9.99, id="5E-GRV-1 X=9.99 199.8 dice"
        ),
        pytest.param(10, 10, "200d6", 0.1, 60, 60, id="5E-GRV-1 X=10 normal capped at max"),
        pytest.param(12, 12, "240d6", 1 / 12, 50, 50, id="5E-GRV-1 X=12"),
        pytest.param(0.05, 0.05, "1d6", 10, 150, 6000, id="5E-GRV-1 X=0.05 jump capped at x10"),
    ],
)
def test_gravity_any_x(x, weight, cap, jump, normal, long):
    res = grav(x)
    assert res.weight_multiplier == pytest.approx(weight)
    assert res.fall_distance_multiplier == pytest.approx(weight)
    assert res.fall_damage_cap == cap
    assert res.jump_multiplier == pytest.approx(jump)
    assert res.range_multiplier == pytest.approx(jump)
    assert res.weapon.normal_range == pytest.approx(normal)
    assert res.weapon.long_range == pytest.approx(long)


@pytest.mark.parametrize(
    ("x", "cap"),
    [
        pytest.param(0.02, "0d6", id="decision 20d6 x 0.02 = 0.4 die rounds to 0d6"),
        pytest.param(0.025, "1d6", id="decision 20d6 x 0.025 = 0.5 die rounds up"),
        pytest.param(0.35, "7d6", id="decision 20d6 x 0.35 = 7 dice exactly"),
        pytest.param(1.5, "30d6", id="5E-GRV-1 20d6 x 1.5"),
        pytest.param(2.55, "51d6", id="decision 20d6 x 2.55 = 51 dice"),
        pytest.param(2.56, "51d6", id="decision 20d6 x 2.56 = 51.2 dice rounds down"),
    ],
)
def test_fall_damage_cap_rounding(x, cap):
    assert grav(x).fall_damage_cap == cap


@pytest.mark.parametrize(
    ("x", "speed", "expected", "can_dash"),
    [
        pytest.param(1.99, 30, 30, True, id="5E-GRV-2 X<2: no speed loss, Dash allowed"),
        pytest.param(2, 30, 20, False, id="5E-GRV-2 X=2: -10 ft, no Dash"),
        pytest.param(3, 30, 15, False, id="5E-GRV-2 X=3: -15 ft (handed grav-3)"),
        pytest.param(2.5, 40, 27.5, False, id="5E-GRV-2 X=2.5: -12.5 ft, not rounded"),
        pytest.param(2.2, 30, 19, False, id="5E-GRV-2 X=2.2: -11 ft"),
        pytest.param(4, 25, 5, False, id="5E-GRV-2 X=4: 25-20 = 5 ft"),
        pytest.param(9.99, 30, 5, False, id="5E-GRV-2 speed floor 5 ft"),
        pytest.param(12, 30, 5, False, id="5E-GRV-2 X=12: floor 5 ft (handed grav-12)"),
        pytest.param(12, 5, 5, False, id="5E-GRV-2 speed 5 keeps 5"),
        pytest.param(3, 0, 0, False, id="5E-GRV-2 speed 0 is not raised to 5"),
        pytest.param(12, 3, 3, False, id="5E-GRV-2 already slower than 5 ft keeps its speed"),
    ],
)
def test_gravity_speed_and_dash(x, speed, expected, can_dash):
    res = grav(x, speed_ft=speed)
    assert res.speed == pytest.approx(expected)
    assert res.can_dash is can_dash


@pytest.mark.parametrize(
    ("x", "str_mod", "grounded"),
    [
        pytest.param(1.9, -5, False, id="5E-GRV-2 X<2 never grounded"),
        pytest.param(2, 1, True, id="5E-GRV-2 Str +1 below X=2: grounded"),
        pytest.param(2, 2, False, id="5E-GRV-2 Str +2 not below X=2"),
        pytest.param(3, 1, True, id="5E-GRV-2 handed grav-3 grounded"),
        pytest.param(2.5, 2, True, id="5E-GRV-2 Str +2 below X=2.5"),
        pytest.param(2.5, 3, False, id="5E-GRV-2 Str +3 above X=2.5"),
        pytest.param(12, 11, True, id="5E-GRV-2 Str +11 below X=12"),
    ],
)
def test_gravity_grounded(x, str_mod, grounded):
    assert grav(x, str_mod=str_mod).grounded is grounded


@pytest.mark.parametrize(
    ("x", "mod", "rounding", "levels"),
    [
        pytest.param(1.99, -5, "up", 0, id="5E-GRV-3 X<2: no levels"),
        pytest.param(2, 2, "up", 0, id="5E-GRV-3 mod equal to X: none"),
        pytest.param(2, 5, "up", 0, id="5E-GRV-3 mod above X: none (never negative)"),
        pytest.param(3, 1, "up", 2, id="5E-GRV-3 X=3 Str+1: 2 levels"),
        pytest.param(3, 2, "up", 1, id="5E-GRV-4 X=3 Dex+2: 1 level"),
        pytest.param(3, 4, "up", 0, id="5E-GRV-4 X=3 Con+4: 0"),
        pytest.param(12, -1, "up", 13, id="5E-GRV-3 X=12 Str-1: 13 levels"),
        pytest.param(2.5, 2, "down", 0, id="decision X=2.5 mod+2: whole points only, 0"),
        pytest.param(2.5, 1, "down", 1, id="decision X=2.5 mod+1: floor(1.5) = 1"),
        pytest.param(2.5, 2, "up", 1, id="decision option up: a started point counts"),
        pytest.param(2.5, 0, "up", 3, id="decision X=2.5 mod 0 up: 3"),
        pytest.param(2.5, 0, "down", 2, id="decision X=2.5 mod 0 down: 2"),
        pytest.param(9.99, 1, "up", 9, id="decision option up X=9.99 Str+1: ceil(8.99)=9"),
        pytest.param(9.99, 1, "down", 8, id="decision X=9.99 Str+1: floor(8.99)=8"),
    ],
)
def test_disadvantage_levels(x, mod, rounding, levels):
    assert grv.disadvantage_levels(x, mod, rounding) == levels


@pytest.mark.parametrize(
    ("x", "attack", "saves"),
    [
        pytest.param(0, 0, (0, 0, 0), id="5E-GRV-3/4 X=0: none"),
        pytest.param(1, 0, (0, 0, 0), id="5E-GRV-3/4 X=1: none"),
        pytest.param(2, 1, (1, 0, 0), id="5E-GRV-3/4 X=2"),
        pytest.param(3, 2, (2, 1, 0), id="5E-GRV-3/4 X=3 handed grav-3"),
        pytest.param(9.99, 8, (8, 7, 5), id="5E-GRV-3/4 X=9.99: floor of the shortfall"),
        pytest.param(10, 9, (9, 8, 6), id="5E-GRV-3/4 X=10"),
        pytest.param(12, 11, (11, 10, 8), id="5E-GRV-3/4 X=12"),
    ],
)
def test_gravity_levels(x, attack, saves):
    res = grav(x)
    assert res.attack_disadvantage_levels == attack
    levels = res.save_disadvantage_levels
    assert (levels.str, levels.dex, levels.con) == saves


@pytest.mark.parametrize(
    ("x", "dc", "damage"),
    [
        pytest.param(3, None, None, id="5E-GRV-5 X=3: no entry save"),
        pytest.param(9.99, None, None, id="5E-GRV-5 X=9.99: no entry save"),
        pytest.param(10, 20, "20d6", id="5E-GRV-5 X=10: DC 20, 20d6"),
        pytest.param(12, 24, "24d6", id="5E-GRV-5 X=12: DC 24, 24d6 (handed grav-12)"),
        pytest.param(10.2, 20, "20d6", id="decision X=10.2: 20.4 rounds to 20"),
        pytest.param(10.25, 21, "21d6", id="decision X=10.25: 20.5 rounds half up"),
    ],
)
def test_gravity_entry_save(x, dc, damage):
    save = grav(x).entry_save
    if dc is None:
        assert save is None
        return
    assert (save.ability, save.dc, save.damage, save.type, save.on_success) == (
        "con",
        dc,
        damage,
        "bludgeoning",
        "half",
    )


@pytest.mark.parametrize(
    ("x", "rules"),
    [
        pytest.param(0, ("5E-GRV-1", "5E-GRV-6"), id="X=0 cites 5E-GRV-6"),
        pytest.param(1, ("5E-GRV-1",), id="X=1"),
        pytest.param(2, ("5E-GRV-1", "5E-GRV-2", "5E-GRV-3", "5E-GRV-4"), id="X=2"),
        pytest.param(10, ("5E-GRV-1", "5E-GRV-2", "5E-GRV-3", "5E-GRV-4", "5E-GRV-5"), id="X=10"),
    ],
)
def test_gravity_rules_cited(x, rules):
    assert grav(x).rules == rules


@pytest.mark.parametrize(
    ("x", "normal", "long", "expected"),
    [
        pytest.param(3, None, None, None, id="no weapon"),
        pytest.param(3, 30, None, (10, 10), id="5E-GRV-1 one range is the maximum"),
        pytest.param(0.5, 30, None, (30, 60), id="5E-GRV-1 low gravity: normal stays"),
        pytest.param(3, None, 120, (None, 40), id="5E-GRV-1 long range only"),
        pytest.param(4, 80, 320, (80, 80), id="5E-GRV-1 light crossbow X=4: 80/80"),
        pytest.param(5, 80, 320, (64, 64), id="5E-GRV-1 light crossbow X=5: normal cut to 64"),
    ],
)
def test_gravity_weapon(x, normal, long, expected):
    weapon = grav(x, normal_range=normal, long_range=long).weapon
    if expected is None:
        assert weapon is None
    else:
        assert (weapon.normal_range, weapon.long_range) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("kw", "path"),
    [
        pytest.param({"x": -1}, ("gravity",), id="negative gravity"),
        pytest.param({"x": math.nan}, ("gravity",), id="NaN gravity"),
        pytest.param({"x": math.inf}, ("gravity",), id="infinite gravity"),
        pytest.param({"speed_ft": -5}, ("creature", "speed"), id="negative speed"),
        pytest.param({"str_mod": 1.5}, ("creature", "str"), id="fractional modifier"),
        pytest.param({"long_range": -1}, ("weapon", "long_range"), id="negative range"),
        pytest.param(
            {"normal_range": 700}, ("weapon", "normal_range"), id="normal above long range"
        ),
        pytest.param(
            {"levels_rounding": "sideways"}, ("options", "levels_rounding"), id="bad rounding"
        ),
    ],
)
def test_gravity_errors(kw, path):
    args = {"x": 3, **CREATURE, **LONGBOW, **kw}
    with pytest.raises(RulesError) as err:
        grv.gravity_modifiers(**args)
    assert err.value.path == path


def test_rule_thresholds_are_the_rule_texts():
    # 5E-GRV-1 any X; 5E-GRV-2..4 from X = 2; 5E-GRV-5 from X = 10.
    assert dict(grv.GRAVITY_RULES) == {
        "5E-GRV-1": 0,
        "5E-GRV-2": 2,
        "5E-GRV-3": 2,
        "5E-GRV-4": 2,
        "5E-GRV-5": 10,
    }
