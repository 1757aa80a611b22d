"""Abnormal gravity (dnd5e, 5E-GRV-1..6): the modifiers of a gravity X for one creature.

Units: speeds and ranges in ft; gravity ``X`` is the local gravity divided by the standard
10 m/s² (dimensionless). Which rules apply is the table ``GRAVITY_RULES`` (rule id, least
X); which multipliers scale by X or by 1/X is ``MULTIPLIERS``, whose saves get levels of
disadvantage ``SAVE_ABILITIES``; the "N × X" scalings are the constants below; what remains
in code is the arithmetic of the levels of disadvantage, the speed floor and the weapon's
ranges.

**Decision (whole numbers).** Whole numbers the seed writes as "N × X" — the dice counts of
the falling cap (20d6 × X) and of the entry damage (2d6 × X), and the DC (2 × X) — round to
the nearest integer, halves up, minimum 0 dice: X = 0.5 caps falling at 10d6, X = 0.025 at
1d6 (0.5 die rounds up), X = 0 at 0d6; X = 10.25 gives DC 21 and 21d6. The weapon's normal
range: the Decision of ``gravity_weapon``; fractional levels: of ``disadvantage_levels``.

References
----------
``shared/RULES.md`` 5E-GRV-1..6; seed ``dnd5e-zh_001`` "异常重力战斗".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from service.errors import RulesError
from service.rules.arithmetic import check_int, check_number, dice, round_half_up, snap

Rounding = Literal["up", "down"]
Scaling = Literal["x", "inverse"]

# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------

#: 5E-GRV-2..4 apply from this X up.
HIGH_GRAVITY = 2.0
#: 5E-GRV-5 applies from this X up.
CRUSHING_GRAVITY = 10.0

#: Rule id and the least X it applies from, in the order answers cite them. 5E-GRV-6
#: (X = 0) is cited besides, only at X = 0.
GRAVITY_RULES: tuple[tuple[str, float], ...] = (
    ("5E-GRV-1", 0.0),  # weight, fall, falling cap ×X; jump, weapon maximum range ×1/X
    ("5E-GRV-2", HIGH_GRAVITY),  # speed −5 × X ft (5 ft left), no Dash, grounded
    ("5E-GRV-3", HIGH_GRAVITY),  # levels of disadvantage on weapon attacks
    ("5E-GRV-4", HIGH_GRAVITY),  # levels of disadvantage on Str, Dex, Con saves
    ("5E-GRV-5", CRUSHING_GRAVITY),  # Con save on entering or starting a turn in the area
)

#: 5E-GRV-1: the answer's multipliers and how each scales with X: ``"x"`` (×X) or
#: ``"inverse"`` (×1/X, at most ×10, ``inverse_multiplier``).
MULTIPLIERS: tuple[tuple[str, Scaling], ...] = (
    ("weight_multiplier", "x"),  # weight of creatures and objects
    ("fall_distance_multiplier", "x"),  # distance fallen per round
    ("jump_multiplier", "inverse"),  # jump height and distance
    ("range_multiplier", "inverse"),  # a ranged weapon's maximum range
)
#: 5E-GRV-4: the saves that get levels of disadvantage, each by its own modifier.
SAVE_ABILITIES = ("str", "dex", "con")

#: 5E-GRV-1: the ×1/X multipliers (jump, weapon maximum range) are at most ×10.
MAX_INVERSE_MULTIPLIER = 10.0
#: 5E-GRV-1: falling damage cap is 20d6 at standard gravity, ×X elsewhere.
FALL_CAP_DICE = 20
#: 5E-GRV-2: speed lost per unit of X, in ft.
SPEED_LOSS_FT_PER_X = 5.0
#: 5E-GRV-2: the least speed left by the loss, in ft.
MIN_SPEED_FT = 5.0
#: 5E-GRV-5: the save's DC is 2 × X, its damage 2d6 × X.
ENTRY_DC_PER_X = 2
ENTRY_DICE_PER_X = 2


# --------------------------------------------------------------------------------------
# Answers
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WeaponRange:
    """A ranged weapon's ranges in ft: ``normal_range`` and ``long_range`` (the maximum)."""

    normal_range: float | None
    long_range: float


@dataclass(frozen=True, slots=True)
class SaveLevels:
    """Levels of disadvantage on Strength, Dexterity and Constitution saves (5E-GRV-4)."""

    str: int
    dex: int
    con: int


@dataclass(frozen=True, slots=True)
class EntrySave:
    """The high-gravity save of 5E-GRV-5.

    ``dc`` is the save DC, ``damage`` a dice string (``"24d6"``) of ``type`` damage taken on
    a failure; on a success the creature takes ``on_success`` (``"half"``) of it.
    """

    ability: str
    dc: int
    damage: str
    type: str
    on_success: str


@dataclass(frozen=True, slots=True)
class GravityResult:
    """Every 5E-GRV modifier for one creature (and optionally one ranged weapon) at gravity X.

    Multipliers are dimensionless; ``speed`` is in ft; ``weapon`` is ``None`` when no weapon
    was given; ``entry_save`` is ``None`` below X = 10. ``range_multiplier`` is the factor on
    the weapon's maximum range (given even without a weapon).
    """

    gravity: float
    weight_multiplier: float
    fall_distance_multiplier: float
    fall_damage_cap: str
    jump_multiplier: float
    range_multiplier: float
    weapon: WeaponRange | None
    speed: float
    can_dash: bool
    grounded: bool
    attack_disadvantage_levels: int
    save_disadvantage_levels: SaveLevels
    entry_save: EntrySave | None
    rules: tuple[str, ...]
    notes: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------


def inverse_multiplier(x: float) -> float:
    """The ×1/X multiplier of 5E-GRV-1 with its ×10 cap (5E-GRV-6: X = 0 gives ×10).

    Parameters
    ----------
    x : float
        Gravity X, ≥ 0.

    Returns
    -------
    float
        ``min(1 / x, 10)``; 10 for ``x <= 0.1``.
    """
    if x <= 1.0 / MAX_INVERSE_MULTIPLIER:
        return MAX_INVERSE_MULTIPLIER
    return 1.0 / x


def disadvantage_levels(x: float, modifier: int, rounding: Rounding = "down") -> int:
    """Levels of disadvantage for an ability modifier below gravity X (5E-GRV-3, 5E-GRV-4).

    The seed: "生物的力量属性调整值每比X低1点，发动的武器攻击就具有一重劣势" (one level for
    each point by which the modifier is below X). With an integer X this is ``X - modifier``.

    **Decision** (RULES.md 5E-GRV-3/4, fractional X): ``rounding="down"`` (default) counts
    whole points only, ``floor(X - modifier)``: X = 2.5 and a modifier of 2 give 0 levels,
    a modifier of 1 gives 1. ``rounding="up"`` is the other reading, kept as an option: a
    started point counts, ``ceil(X - modifier)`` (the points the modifier must rise before it
    is no longer below X).

    Parameters
    ----------
    x : float
        Gravity X, ≥ 0. Below 2 the rules do not apply and the answer is 0.
    modifier : int
        The ability modifier (Strength for attacks; the save's ability for saves).
    rounding : {"up", "down"}
        How a fractional shortfall counts (see above).

    Returns
    -------
    int
        Levels of disadvantage, ≥ 0 (5E-GRV-6: an integer count; the client rolls them).
    """
    if x < HIGH_GRAVITY:
        return 0
    shortfall = snap(x - modifier)
    if shortfall <= 0:
        return 0
    return math.ceil(shortfall) if rounding == "up" else math.floor(shortfall)


def gravity_speed(x: float, speed_ft: float) -> float:
    """Speed in ft after 5E-GRV-2: lose 5 × X ft at X ≥ 2, keeping at least 5 ft.

    A creature already at 5 ft or slower keeps its speed: the floor never raises a speed
    (the seed: "至少保留5尺速度", at least 5 ft of speed *remains*). The loss is not rounded
    to 5-ft squares: X = 2.5 takes 12.5 ft off.

    Parameters
    ----------
    x : float
        Gravity X, ≥ 0.
    speed_ft : float
        Base speed in ft, ≥ 0.

    Returns
    -------
    float
        The speed in ft.
    """
    if x < HIGH_GRAVITY or speed_ft <= MIN_SPEED_FT:
        return float(speed_ft)
    return max(MIN_SPEED_FT, snap(speed_ft - SPEED_LOSS_FT_PER_X * x))


def gravity_weapon(
    x: float, normal_range: float | None, long_range: float | None
) -> WeaponRange | None:
    """5E-GRV-1 for a weapon: maximum range ×1/X (≤ ×10); normal range capped by it.

    **Decision (normal range).** The seed scales only the maximum range, "远程武器攻击的最大
    射程变为1/X倍（最多10倍），有效射程不会超过最大射程" (the maximum range becomes 1/X
    times, at most 10 times; the normal range does not exceed the maximum range), so the
    normal range is unchanged unless it is above the new maximum, where it becomes the
    maximum. At X = 3 a 150/600 longbow is 150/200; at X = 0.5 it is 150/1200. A weapon with
    one range (``long_range`` missing) has that range as its maximum.

    Parameters
    ----------
    x : float
        Gravity X, ≥ 0.
    normal_range, long_range : float, optional
        The weapon's ranges in ft, ≥ 0.

    Returns
    -------
    WeaponRange or None
        ``None`` when neither range is given.

    Raises
    ------
    RulesError
        A negative or non-finite range (``weapon.*``); the normal above the long range.
    """
    if normal_range is None and long_range is None:
        return None
    if normal_range is not None:
        check_number(normal_range, ("weapon", "normal_range"))
    if long_range is not None:
        check_number(long_range, ("weapon", "long_range"))
        if normal_range is not None and normal_range > long_range:
            raise RulesError(
                f"weapon.normal_range ({normal_range:g} ft) is above weapon.long_range "
                f"({long_range:g} ft).",
                ("weapon", "normal_range"),
            )
    maximum = long_range if long_range is not None else normal_range
    assert maximum is not None
    # Divide rather than multiply by 1/X: 600 / 3 is exactly 200.
    low = x <= 1.0 / MAX_INVERSE_MULTIPLIER
    new_max = snap(maximum * MAX_INVERSE_MULTIPLIER if low else maximum / x)
    new_normal = None if normal_range is None else min(float(normal_range), new_max)
    return WeaponRange(normal_range=new_normal, long_range=new_max)


def _entry_save(x: float) -> EntrySave:
    """5E-GRV-5: Con save DC 2 × X, 2d6 × X bludgeoning on a failure, half on a success."""
    return EntrySave(
        ability="con",
        dc=round_half_up(ENTRY_DC_PER_X * x),
        damage=dice(ENTRY_DICE_PER_X * x),
        type="bludgeoning",
        on_success="half",
    )


def gravity_modifiers(
    x: float,
    *,
    str_mod: int,
    dex_mod: int,
    con_mod: int,
    speed_ft: float,
    normal_range: float | None = None,
    long_range: float | None = None,
    levels_rounding: Rounding = "down",
) -> GravityResult:
    """Modifiers of abnormal gravity X for one creature (5E-GRV-1..6).

    - Any X (5E-GRV-1): weight ×X, fall distance per round ×X, falling damage cap 20d6 × X,
      jump height and distance ×1/X (at most ×10), a ranged weapon's maximum range ×1/X (at
      most ×10) with the normal range never above the new maximum.
    - X ≥ 2 (5E-GRV-2..4): speed −5 × X ft (at least 5 ft left), no Dash, grounded when the
      Strength modifier is below X, levels of disadvantage on weapon attacks and on Str, Dex
      and Con saves (``disadvantage_levels``).
    - X ≥ 10 (5E-GRV-5): a Con save on starting a turn in or first entering the area,
      DC 2 × X, 2d6 × X bludgeoning on a failure, half on a success.
    - X = 0 (5E-GRV-6): every ×1/X is ×10.

    **Decisions**: the weapon's normal range (``gravity_weapon``), "N × X" whole numbers
    (the module docstring), fractional levels (``disadvantage_levels``).

    Parameters
    ----------
    x : float
        Gravity X = local gravity / 10 m/s², finite and ≥ 0.
    str_mod, dex_mod, con_mod : int
        The creature's Strength, Dexterity and Constitution modifiers.
    speed_ft : float
        The creature's (walking) speed in ft, ≥ 0.
    normal_range, long_range : float, optional
        A ranged weapon's normal and long (maximum) range in ft, ≥ 0.
    levels_rounding : {"down", "up"}
        How a fractional X counts in the levels of disadvantage (``disadvantage_levels``):
        ``down`` (default, 5E-GRV-3/4 Decision) whole points, ``up`` a started point.

    Returns
    -------
    GravityResult
        ``rules`` lists the rule ids applied (``GRAVITY_RULES``).

    Raises
    ------
    RulesError
        When X, the speed or a range is negative or not finite (path ``gravity``,
        ``creature.speed``, ``weapon.*``), or the normal range is above the long range.

    References
    ----------
    ``shared/RULES.md`` 5E-GRV-1..6; seed ``dnd5e-zh_001`` "异常重力战斗".
    """
    mods = {"str": str_mod, "dex": dex_mod, "con": con_mod}
    x, speed_ft = _checked(x, speed_ft, mods, levels_rounding)
    rules, notes = _cited(x, speed_ft)
    levels = SaveLevels(
        **{a: disadvantage_levels(x, mods[a], levels_rounding) for a in SAVE_ABILITIES}
    )
    inverse = inverse_multiplier(x)
    high = x >= HIGH_GRAVITY
    return GravityResult(
        gravity=x,
        **{field: x if how == "x" else inverse for field, how in MULTIPLIERS},
        fall_damage_cap=dice(FALL_CAP_DICE * x),
        weapon=gravity_weapon(x, normal_range, long_range),
        speed=gravity_speed(x, speed_ft),
        can_dash=not high,
        grounded=high and snap(x - str_mod) > 0,
        attack_disadvantage_levels=levels.str,
        save_disadvantage_levels=levels,
        entry_save=_entry_save(x) if x >= CRUSHING_GRAVITY else None,
        rules=tuple(rules),
        notes=tuple(notes),
    )


def _checked(
    x: float, speed_ft: float, mods: dict[str, int], levels_rounding: str
) -> tuple[float, float]:
    """X and the speed as floats, once every input of ``gravity_modifiers`` is checked.

    Raises
    ------
    RulesError
        At ``gravity``, ``creature.speed``, ``creature.<ability>`` or
        ``options.levels_rounding``, in that order.
    """
    x = check_number(x, ("gravity",))
    speed_ft = check_number(speed_ft, ("creature", "speed"))
    for name in SAVE_ABILITIES:
        check_int(mods[name], ("creature", name))
    if levels_rounding not in ("up", "down"):
        raise RulesError(
            f"levels_rounding must be 'up' or 'down', not {levels_rounding!r}.",
            ("options", "levels_rounding"),
        )
    return x, speed_ft


def _cited(x: float, speed_ft: float) -> tuple[list[str], list[str]]:
    """The rule ids that apply at gravity X (``GRAVITY_RULES``, 5E-GRV-6 at 0) and the notes."""
    rules = [rule for rule, least_x in GRAVITY_RULES if x >= least_x]
    notes: list[str] = []
    if x == 0:
        rules.append("5E-GRV-6")
        notes.append("Weightless (X = 0): every ×1/X multiplier is capped at ×10.")
    if x >= HIGH_GRAVITY and speed_ft <= MIN_SPEED_FT:
        notes.append(f"Speed {speed_ft:g} ft is at most {MIN_SPEED_FT:g} ft: unchanged.")
    return rules, notes
