"""Environment modifiers: abnormal gravity, underwater combat (dnd5e), range (pf2e-variant).

Pure arithmetic on numbers, standard library only: no scene, no geometry, no Flask. Every
function checks its own inputs and raises ``RulesError`` with the JSON path of the request
field at fault (``shared/API.md`` "Modifiers"), so the web layer only loads and dumps.

Units: distances, ranges, speeds and area sizes in feet; time in seconds; gravity ``X`` is the
local gravity divided by the standard 10 m/s² (dimensionless). Rule ids are those of
``shared/RULES.md``: 5E-GRV-1..6, 5E-UW-1..9, PV-RNG-1..2, PV-MEL-1..2.

Where the seeds are silent or ambiguous, the decision is stated in the docstring of the
function that takes it, with the seed's words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from service.errors import RulesError
from service.model import DAMAGE_TYPES

# --------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------

#: Relative tolerance for snapping a derived quantity to a whole number: ``20 * 0.35`` or
#: ``30 - 5 * 2.2`` come out a few ulps off the integer a person would write; a value this
#: close to an integer is that integer before any ``ceil``/``floor``/comparison.
SNAP_EPS = 1e-9

Rounding = Literal["up", "down"]


def _snap(value: float) -> float:
    """``value``, or the nearest integer when within ``SNAP_EPS`` (relative) of it."""
    if not math.isfinite(value):
        return value
    nearest = round(value)
    if abs(value - nearest) <= SNAP_EPS * max(1.0, abs(value)):
        return float(nearest)
    return value


def _round_half_up(value: float) -> int:
    """Nearest integer, halves away from zero for the non-negative values used here."""
    return math.floor(_snap(value) + 0.5)


def _check_number(value: float, path: Sequence[str], *, minimum: float | None = 0.0) -> float:
    """``value`` as a float; ``RulesError`` at ``path`` if not finite or below ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RulesError(f"{'.'.join(path)} must be a number, not {value!r}.", path)
    if not math.isfinite(value):
        raise RulesError(f"{'.'.join(path)} must be finite, not {value!r}.", path)
    if minimum is not None and value < minimum:
        raise RulesError(f"{'.'.join(path)} must be at least {minimum:g}, not {value!r}.", path)
    return float(value)


def _check_int(value: int, path: Sequence[str]) -> int:
    """``value`` as an int; ``RulesError`` at ``path`` if it is not an integer."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{'.'.join(path)} must be an integer, not {value!r}.", path)
    return value


def _dice(count: float, die: str = "d6") -> str:
    """A dice string such as ``"60d6"`` for a real dice count, rounded half up, minimum 0."""
    return f"{max(0, _round_half_up(count))}{die}"


# --------------------------------------------------------------------------------------
# Abnormal gravity (dnd5e, 5E-GRV-1..6)
# --------------------------------------------------------------------------------------

#: 5E-GRV-1: the ×1/X multipliers (jump, weapon maximum range) are at most ×10.
MAX_INVERSE_MULTIPLIER = 10.0
#: 5E-GRV-1: falling damage cap is 20d6 at standard gravity, ×X elsewhere.
FALL_CAP_DICE = 20
#: 5E-GRV-2..4 apply from this X up.
HIGH_GRAVITY = 2.0
#: 5E-GRV-5 applies from this X up.
CRUSHING_GRAVITY = 10.0
#: 5E-GRV-2: speed lost per unit of X, in ft.
SPEED_LOSS_FT_PER_X = 5.0
#: 5E-GRV-2: the least speed left by the loss, in ft.
MIN_SPEED_FT = 5.0


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


def disadvantage_levels(x: float, modifier: int, rounding: Rounding = "up") -> int:
    """Levels of disadvantage for an ability modifier below gravity X (5E-GRV-3, 5E-GRV-4).

    The seed: "生物的力量属性调整值每比X低1点，发动的武器攻击就具有一重劣势" (one level for
    each point by which the modifier is below X). With an integer X this is ``X - modifier``.

    **Decision** for a fractional X: ``rounding="up"`` (default) counts a started point,
    ``ceil(X - modifier)``: the number of points the modifier must rise before it is no
    longer below X. Then "at least one level" coincides exactly with the seed's grounded
    test "力量调整值不足X" (modifier below X). ``rounding="down"`` counts whole points only,
    ``floor(X - modifier)``: the other reading, for a GM who wants it.

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
    shortfall = _snap(x - modifier)
    if shortfall <= 0:
        return 0
    return math.ceil(shortfall) if rounding == "up" else math.floor(shortfall)


def _gravity_weapon(
    x: float, normal_range: float | None, long_range: float | None
) -> WeaponRange | None:
    """5E-GRV-1 for a weapon: maximum range ×1/X (≤ ×10); normal range capped by it."""
    if normal_range is None and long_range is None:
        return None
    if normal_range is not None:
        _check_number(normal_range, ("weapon", "normal_range"))
    if long_range is not None:
        _check_number(long_range, ("weapon", "long_range"))
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
    scaled = maximum * MAX_INVERSE_MULTIPLIER if low else maximum / x
    new_max = _snap(scaled)
    new_normal = None if normal_range is None else min(float(normal_range), new_max)
    return WeaponRange(normal_range=new_normal, long_range=new_max)


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
    return max(MIN_SPEED_FT, _snap(speed_ft - SPEED_LOSS_FT_PER_X * x))


def gravity_modifiers(
    x: float,
    *,
    str_mod: int,
    dex_mod: int,
    con_mod: int,
    speed_ft: float,
    normal_range: float | None = None,
    long_range: float | None = None,
    levels_rounding: Rounding = "up",
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

    **Decisions.** (1) Normal range: the seed scales only the maximum range, "远程武器攻击
    的最大射程变为1/X倍（最多10倍），有效射程不会超过最大射程" (the maximum range becomes
    1/X times, at most 10 times; the normal range does not exceed the maximum range), so the
    normal range is unchanged unless it is above the new maximum, where it becomes the
    maximum. At X = 3 a 150/600 longbow is 150/200; at X = 0.5 it is 150/1200. A weapon with
    one range (``long_range`` missing) has that range as its maximum. (2) Whole numbers the
    seed writes as "N × X" — the dice counts of the falling cap (20d6 × X) and of the entry
    damage (2d6 × X), and the DC (2 × X) — round to the nearest integer, halves up, minimum
    0 dice: X = 0.5 caps falling at 10d6, X = 0.025 at 1d6 (0.5 die rounds up), X = 0 at
    0d6; X = 10.25 gives DC 21 and 21d6. (3) Fractional levels: see ``disadvantage_levels``.

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
    levels_rounding : {"up", "down"}
        How a fractional X counts in the levels of disadvantage (``disadvantage_levels``).

    Returns
    -------
    GravityResult
        ``rules`` lists the rule ids applied.

    Raises
    ------
    RulesError
        When X, the speed or a range is negative or not finite (path ``gravity``,
        ``creature.speed``, ``weapon.*``), or the normal range is above the long range.

    References
    ----------
    ``shared/RULES.md`` 5E-GRV-1..6; seed ``dnd5e-zh_001`` "异常重力战斗".
    """
    x = _check_number(x, ("gravity",))
    speed_ft = _check_number(speed_ft, ("creature", "speed"))
    for value, name in ((str_mod, "str"), (dex_mod, "dex"), (con_mod, "con")):
        _check_int(value, ("creature", name))
    if levels_rounding not in ("up", "down"):
        raise RulesError(
            f"levels_rounding must be 'up' or 'down', not {levels_rounding!r}.",
            ("options", "levels_rounding"),
        )

    rules = ["5E-GRV-1"]
    notes: list[str] = []
    high = x >= HIGH_GRAVITY
    if high:
        rules += ["5E-GRV-2", "5E-GRV-3", "5E-GRV-4"]
    entry_save = None
    if x >= CRUSHING_GRAVITY:
        rules.append("5E-GRV-5")
        entry_save = EntrySave(
            ability="con",
            dc=_round_half_up(2 * x),
            damage=_dice(2 * x),
            type="bludgeoning",
            on_success="half",
        )
    inverse = inverse_multiplier(x)
    if x == 0:
        rules.append("5E-GRV-6")
        notes.append("Weightless (X = 0): every ×1/X multiplier is capped at ×10.")
    if high and speed_ft <= MIN_SPEED_FT:
        notes.append(f"Speed {speed_ft:g} ft is at most {MIN_SPEED_FT:g} ft: unchanged.")

    levels = SaveLevels(
        str=disadvantage_levels(x, str_mod, levels_rounding),
        dex=disadvantage_levels(x, dex_mod, levels_rounding),
        con=disadvantage_levels(x, con_mod, levels_rounding),
    )
    return GravityResult(
        gravity=x,
        weight_multiplier=x,
        fall_distance_multiplier=x,
        fall_damage_cap=_dice(FALL_CAP_DICE * x),
        jump_multiplier=inverse,
        range_multiplier=inverse,
        weapon=_gravity_weapon(x, normal_range, long_range),
        speed=gravity_speed(x, speed_ft),
        can_dash=not high,
        grounded=high and _snap(x - str_mod) > 0,
        attack_disadvantage_levels=levels.str,
        save_disadvantage_levels=levels,
        entry_save=entry_save,
        rules=tuple(rules),
        notes=tuple(notes),
    )


# --------------------------------------------------------------------------------------
# Underwater combat (dnd5e, 5E-UW-1..9)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon of the 5e equipment list as the underwater rules see it.

    ``normal_range``/``long_range`` in ft (``None`` for melee-only weapons); ``thrown`` marks
    the javelin-like thrown weapons of 5E-UW-2 (javelin, spear, trident, dart), not every
    weapon with the thrown property; ``crossbow`` marks the crossbows.
    """

    name: str
    normal_range: float | None = None
    long_range: float | None = None
    thrown: bool = False
    crossbow: bool = False


def _w(name: str, ranges: tuple[float, float] | None = None, **flags: bool) -> Weapon:
    normal, long = ranges if ranges else (None, None)
    return Weapon(name, normal, long, **flags)


#: The 5e (SRD 2014) weapons, with their ranges (ft) where they have one.
WEAPONS: dict[str, Weapon] = {
    w.name.replace(" ", ""): w
    for w in (
        # Simple melee
        _w("club"),
        _w("dagger", (20, 60)),
        _w("greatclub"),
        _w("handaxe", (20, 60)),
        _w("javelin", (30, 120), thrown=True),
        _w("light hammer", (20, 60)),
        _w("mace"),
        _w("quarterstaff"),
        _w("sickle"),
        _w("spear", (20, 60), thrown=True),
        # Simple ranged
        _w("light crossbow", (80, 320), crossbow=True),
        _w("dart", (20, 60), thrown=True),
        _w("shortbow", (80, 320)),
        _w("sling", (30, 120)),
        # Martial melee
        _w("battleaxe"),
        _w("flail"),
        _w("glaive"),
        _w("greataxe"),
        _w("greatsword"),
        _w("halberd"),
        _w("lance"),
        _w("longsword"),
        _w("maul"),
        _w("morningstar"),
        _w("pike"),
        _w("rapier"),
        _w("scimitar"),
        _w("shortsword"),
        _w("trident", (20, 60), thrown=True),
        _w("war pick"),
        _w("warhammer"),
        _w("whip"),
        # Martial ranged
        _w("blowgun", (25, 100)),
        _w("hand crossbow", (30, 120), crossbow=True),
        _w("heavy crossbow", (100, 400), crossbow=True),
        _w("longbow", (150, 600)),
        _w("net", (5, 15)),
        # Not a weapon, but a melee weapon attack
        _w("unarmed strike"),
    )
}

#: 5E-UW-1: melee weapons without the underwater disadvantage.
MELEE_EXCEPTIONS = frozenset({"dagger", "javelin", "shortsword", "spear", "trident"})


def weapon_key(name: str) -> str:
    """The lookup key of a weapon name: lower case, spaces, hyphens and underscores dropped.

    ``"Heavy Crossbow"``, ``"heavy-crossbow"`` and ``"heavycrossbow"`` are one weapon, as are
    ``"short sword"`` and ``"shortsword"``.
    """
    return "".join(name.lower().replace("-", " ").replace("_", " ").split())


def find_weapon(name: str) -> Weapon | None:
    """The 5e weapon called ``name`` (case- and spacing-insensitive), or ``None``."""
    return WEAPONS.get(weapon_key(name))


@dataclass(frozen=True, slots=True)
class UnderwaterAttackResult:
    """An attack underwater: ``auto_miss`` (5E-UW-2), ``disadvantage`` (5E-UW-1/2/9).

    ``disadvantage`` is ``False`` when ``auto_miss`` is true (there is no roll).
    """

    auto_miss: bool
    disadvantage: bool
    rules: tuple[str, ...]
    notes: tuple[str, ...] = ()


def underwater_attack(
    kind: str,
    weapon: str,
    *,
    swim_speed: float,
    distance: float | None = None,
    normal_range: float | None = None,
    long_range: float | None = None,
    thrown: bool | None = None,
    crossbow: bool | None = None,
    senses_truesight: float = 0.0,
    senses_blindsight: float = 0.0,
    damage_types: Iterable[str] = (),
    crosses_surface: bool = False,
) -> UnderwaterAttackResult:
    """A weapon attack made underwater (5E-UW-1, 5E-UW-2) or across the surface (5E-UW-9).

    - Melee (5E-UW-1): disadvantage without a swimming speed, unless the weapon is a dagger,
      javelin, shortsword, spear or trident.
    - Ranged (5E-UW-2): beyond the normal range an automatic miss; within it disadvantage,
      unless the weapon is a crossbow, a net or a javelin-like thrown weapon (javelin,
      spear, trident, dart).
    - Refraction (5E-UW-9): a ranged attack that crosses the water surface has disadvantage,
      unless the attacker has blindsight or truesight (any range > 0: the seed says "拥有盲视
      或真实视觉的生物", creatures *having* them) or some of its damage is radiant.

    **Decision (thrown weapons).** The seed's exception is "与标枪类似的投掷武器（包括矛、
    三叉戟、飞标）" (thrown weapons like the javelin, including spear, trident, dart): the
    table marks exactly those four as ``thrown``; a thrown dagger, handaxe or light hammer
    keeps the disadvantage. A GM who reads it wider passes ``thrown=True``.

    Weapon properties. ``weapon`` is looked up in the 5e list (case-insensitive; spaces and
    hyphens ignored). ``thrown`` / ``crossbow``, when given, override the table; with an
    unknown name at least one of them must be given (the other then defaults to false) and
    the name only matters for the name-based exceptions (the five melee weapons, the net).
    For a ranged attack ``normal_range`` defaults to the table's; ``distance`` is required.

    Parameters
    ----------
    kind : {"melee", "ranged"}
        Melee or ranged weapon attack.
    weapon : str
        Weapon name, e.g. ``"heavy crossbow"``.
    swim_speed : float
        The attacker's swimming speed in ft (natural or magical); > 0 lifts 5E-UW-1.
    distance : float, optional
        Distance to the target in ft (required for ranged attacks).
    normal_range, long_range : float, optional
        The weapon's ranges in ft (override the table).
    thrown, crossbow : bool, optional
        Javelin-like thrown weapon / crossbow (override the table).
    senses_truesight, senses_blindsight : float
        The attacker's truesight and blindsight ranges in ft (0 = none).
    damage_types : iterable of str
        The attack's damage types (case-insensitive).
    crosses_surface : bool
        The attack goes from above the water into it, or from under it to above it.

    Returns
    -------
    UnderwaterAttackResult

    Raises
    ------
    RulesError
        Unknown ``kind`` (path ``attack.kind``); unknown weapon without properties
        (``attack.weapon``); missing ``distance`` or normal range for a ranged attack;
        a negative number; a normal range above the long range.

    References
    ----------
    ``shared/RULES.md`` 5E-UW-1, 5E-UW-2, 5E-UW-9; seed ``dnd5e-zh_001`` "水下战斗".
    """
    if kind not in ("melee", "ranged"):
        raise RulesError(
            f"attack.kind must be 'melee' or 'ranged', not {kind!r}.", ("attack", "kind")
        )
    swim_speed = _check_number(swim_speed, ("attacker", "swim_speed"))
    truesight = _check_number(senses_truesight, ("attacker", "senses", "truesight"))
    blindsight = _check_number(senses_blindsight, ("attacker", "senses", "blindsight"))
    types = {str(t).lower() for t in damage_types}
    unknown = sorted(types - set(DAMAGE_TYPES))
    if unknown:
        raise RulesError(
            f"Unknown damage type {unknown[0]!r}; known: {', '.join(DAMAGE_TYPES)}.",
            ("attack", "damage_types"),
        )
    info = find_weapon(weapon)
    key = weapon_key(weapon)
    if info is None and thrown is None and crossbow is None:
        raise RulesError(
            f"Unknown weapon {weapon!r}: not in the 5e weapon list. Give attack.thrown and/or "
            "attack.crossbow to describe it.",
            ("attack", "weapon"),
        )
    is_thrown = thrown if thrown is not None else bool(info and info.thrown)
    is_crossbow = crossbow if crossbow is not None else bool(info and info.crossbow)

    rules: list[str] = []
    notes: list[str] = []
    auto_miss = disadvantage = False
    if kind == "melee":
        rules.append("5E-UW-1")
        if swim_speed > 0:
            notes.append("Swimming speed: no underwater disadvantage on melee (5E-UW-1).")
        elif key in MELEE_EXCEPTIONS:
            notes.append(f"{weapon}: melee exception (5E-UW-1).")
        else:
            disadvantage = True
        if crosses_surface:
            notes.append("Refraction (5E-UW-9) applies to ranged attacks only.")
    else:
        rules.append("5E-UW-2")
        if distance is None:
            raise RulesError(
                "A ranged attack underwater needs attack.distance (ft) for 5E-UW-2.",
                ("attack", "distance"),
            )
        dist = _check_number(distance, ("attack", "distance"))
        if normal_range is None and info is not None:
            normal_range = info.normal_range
            if long_range is None:
                long_range = info.long_range
        if normal_range is None:
            raise RulesError(
                f"No normal range known for {weapon!r}: give attack.normal_range (ft).",
                ("attack", "normal_range"),
            )
        normal = _check_number(normal_range, ("attack", "normal_range"))
        if long_range is not None:
            long = _check_number(long_range, ("attack", "long_range"))
            if normal > long:
                raise RulesError(
                    f"attack.normal_range ({normal:g} ft) is above attack.long_range "
                    f"({long:g} ft).",
                    ("attack", "normal_range"),
                )
            if dist > long:
                notes.append(f"Beyond the long range ({long:g} ft): not possible even on land.")
        if dist > normal:
            auto_miss = True
            notes.append(f"Beyond the normal range ({normal:g} ft): automatic miss (5E-UW-2).")
        elif is_crossbow or is_thrown or key == "net":
            notes.append(f"{weapon}: ranged exception (5E-UW-2).")
        else:
            disadvantage = True
        if crosses_surface:
            rules.append("5E-UW-9")
            if truesight > 0 or blindsight > 0:
                notes.append("Blindsight or truesight: no refraction disadvantage (5E-UW-9).")
            elif "radiant" in types:
                notes.append("Radiant damage: no refraction disadvantage (5E-UW-9).")
            else:
                disadvantage = True
        if auto_miss:
            disadvantage = False
    return UnderwaterAttackResult(auto_miss, disadvantage, tuple(rules), tuple(notes))


# Underwater effects (5E-UW-3..8) ------------------------------------------------------

#: 5E-UW-5: factor on a lightning area's size.
LIGHTNING_AREA_FACTOR = 1.5
#: 5E-UW-6: cold damage that freezes a water-filled 5-ft square.
FREEZE_COLD_DAMAGE = 30
#: 5E-UW-7: least breath-holding time, in seconds.
MIN_BREATH_SECONDS = 30
#: Seconds per combat round.
ROUND_SECONDS = 6

AcidTiming = Literal["start_of_turn", "end_of_turn", "other"]
AreaScale = Literal["dimension", "area"]


@dataclass(frozen=True, slots=True)
class FireResult:
    """5E-UW-3: ``resistance`` to fire; ``damage`` taken (halved, rounded down) or ``None``."""

    kind: str
    resistance: bool
    damage: int | None
    rules: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AcidResult:
    """5E-UW-4: ``negated`` acid damage; ``damage`` taken (0 when negated) or ``None``."""

    kind: str
    negated: bool
    damage: int | None
    rules: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LightningAreaResult:
    """5E-UW-5: the lightning area's ``size`` in ft underwater and the ``multiplier`` applied."""

    kind: str
    size: float
    multiplier: float
    rules: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FreezeResult:
    """5E-UW-6: whether the 5-ft square freezes into a block of ice."""

    kind: str
    frozen: bool
    rules: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BreathResult:
    """5E-UW-7: breath held for ``hold_breath_seconds`` (``hold_breath_rounds`` of 6 s).

    Both are ``None`` for a creature that breathes water or needs no air. ``suffocating`` is
    ``None`` unless ``elapsed_seconds`` was given.
    """

    kind: str
    hold_breath_seconds: int | None
    hold_breath_rounds: int | None
    suffocating: bool | None
    rules: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AirMagicResult:
    """5E-UW-8: wind, air or cloud abilities do not ``work`` underwater."""

    kind: str
    works: bool
    rules: tuple[str, ...]
    notes: tuple[str, ...] = ()


EffectResult = (
    FireResult | AcidResult | LightningAreaResult | FreezeResult | BreathResult | AirMagicResult
)


def _damage(value: int | None, path: Sequence[str]) -> int | None:
    if value is None:
        return None
    value = _check_int(value, path)
    if value < 0:
        raise RulesError(f"{'.'.join(path)} must be at least 0, not {value!r}.", path)
    return value


def fire_underwater(*, submerged: bool = True, damage: int | None = None) -> FireResult:
    """5E-UW-3: fully submerged creatures and objects resist fire damage.

    Parameters
    ----------
    submerged : bool
        The creature or object is fully submerged.
    damage : int, optional
        Fire damage dealt; the answer's ``damage`` is what is taken (half, rounded down, as
        for any 5e resistance).
    """
    dmg = _damage(damage, ("effect", "damage"))
    taken = dmg // 2 if dmg is not None and submerged else dmg
    notes = () if submerged else ("Not fully submerged: no resistance (5E-UW-3).",)
    return FireResult("fire", submerged, taken, ("5E-UW-3",), notes)


def acid_underwater(*, timing: AcidTiming, damage: int | None = None) -> AcidResult:
    """5E-UW-4: acid damage taken at the start or end of a turn is negated underwater.

    Parameters
    ----------
    timing : {"start_of_turn", "end_of_turn", "other"}
        When the acid damage would be taken; ``other`` (e.g. the hit of an acid splash) is
        taken as normal.
    damage : int, optional
        Acid damage dealt; the answer's ``damage`` is what is taken.
    """
    if timing not in ("start_of_turn", "end_of_turn", "other"):
        raise RulesError(
            f"effect.timing must be start_of_turn, end_of_turn or other, not {timing!r}.",
            ("effect", "timing"),
        )
    dmg = _damage(damage, ("effect", "damage"))
    negated = timing != "other"
    taken = 0 if negated and dmg is not None else dmg
    return AcidResult("acid", negated, taken, ("5E-UW-4",))


def lightning_area_underwater(
    *, size: float, scale: AreaScale = "dimension"
) -> LightningAreaResult:
    """5E-UW-5: an area effect dealing lightning damage is half as large again underwater.

    **Decision.** The seed: "造成闪电伤害的范围效应，在水中的作用范围增加一半" (the area
    of effect increases by half). ``scale="dimension"`` (default) multiplies the area's
    defining length — sphere radius, cone or line length, cube side — by 1.5, which is how a
    table measures an area. ``scale="area"`` makes the covered area 1.5 times larger, that is
    every length ×√1.5 ≈ 1.2247.

    Parameters
    ----------
    size : float
        The area's radius, length or side in ft, ≥ 0.
    scale : {"dimension", "area"}
        What the ×1.5 applies to.
    """
    size = _check_number(size, ("effect", "size"))
    if scale not in ("dimension", "area"):
        raise RulesError(
            f"effect.scale must be 'dimension' or 'area', not {scale!r}.", ("effect", "scale")
        )
    factor = LIGHTNING_AREA_FACTOR if scale == "dimension" else math.sqrt(LIGHTNING_AREA_FACTOR)
    return LightningAreaResult("lightning_area", _snap(size * factor), factor, ("5E-UW-5",))


def freeze_square(
    *, cold_damage: int, water_filled: bool = True, occupied: bool = False
) -> FreezeResult:
    """5E-UW-6: 30 cold damage to a water-filled 5-ft square with no creature freezes it.

    **Decision.** "造成30点冷冻伤害" (deals 30 cold damage) is read as *at least* 30 cold
    damage in one effect; damage is not accumulated across effects.

    Parameters
    ----------
    cold_damage : int
        Cold damage dealt to the square, ≥ 0.
    water_filled : bool
        The square is filled with water.
    occupied : bool
        A creature is in the square.
    """
    dmg = _damage(cold_damage, ("effect", "cold_damage"))
    assert dmg is not None
    notes = []
    if dmg < FREEZE_COLD_DAMAGE:
        notes.append(f"Less than {FREEZE_COLD_DAMAGE} cold damage.")
    if not water_filled:
        notes.append("The square is not filled with water.")
    if occupied:
        notes.append("A creature is in the square.")
    frozen = not notes
    if frozen:
        notes.append("The 5-ft square freezes into a block of ice.")
    return FreezeResult("freeze", frozen, ("5E-UW-6",), tuple(notes))


def hold_breath(
    *, con: int, elapsed_seconds: float | None = None, water_breathing: bool = False
) -> BreathResult:
    """5E-UW-7: a creature holds its breath 1 + Con modifier minutes, at least 30 seconds.

    After that it suffocates until it reaches air again. ``suffocating`` is true once
    ``elapsed_seconds`` is *past* the holding time (the seed: "在闭气时间后", after it).

    Parameters
    ----------
    con : int
        Constitution modifier.
    elapsed_seconds : float, optional
        Time spent without air so far, in seconds.
    water_breathing : bool
        The creature breathes water or needs no air: the rule does not apply.
    """
    con = _check_int(con, ("effect", "con"))
    elapsed = None
    if elapsed_seconds is not None:
        elapsed = _check_number(elapsed_seconds, ("effect", "elapsed_seconds"))
    if water_breathing:
        note = "Breathes water or needs no air: no breath to hold (5E-UW-7)."
        return BreathResult("breath", None, None, False, ("5E-UW-7",), (note,))
    seconds = max(MIN_BREATH_SECONDS, 60 * (1 + con))
    suffocating = None if elapsed is None else elapsed > seconds
    notes = ("Then suffocating until it reaches air (5E-UW-7).",)
    return BreathResult(
        "breath", seconds, seconds // ROUND_SECONDS, suffocating, ("5E-UW-7",), notes
    )


def air_magic_underwater(*, ability: str | None = None) -> AirMagicResult:
    """5E-UW-8: abilities that manipulate wind, air or clouds do not work underwater.

    Parameters
    ----------
    ability : str, optional
        Name of the ability (echoed in the notes).
    """
    what = ability or "An ability that manipulates wind, air or clouds"
    return AirMagicResult("air_magic", False, ("5E-UW-8",), (f"{what}: no effect underwater.",))


#: ``underwater_effect`` kinds and their functions.
EFFECTS: dict[str, Callable[..., EffectResult]] = {
    "fire": fire_underwater,
    "acid": acid_underwater,
    "lightning_area": lightning_area_underwater,
    "freeze": freeze_square,
    "breath": hold_breath,
    "air_magic": air_magic_underwater,
}


def underwater_effect(kind: str, **params: Any) -> EffectResult:
    """An effect underwater (5E-UW-3..8), dispatched by ``kind`` to the function above.

    Parameters
    ----------
    kind : {"fire", "acid", "lightning_area", "freeze", "breath", "air_magic"}
        Which rule: ``fire_underwater``, ``acid_underwater``, ``lightning_area_underwater``,
        ``freeze_square``, ``hold_breath``, ``air_magic_underwater``.
    **params
        The keyword arguments of that function (the request's ``effect`` fields).

    Raises
    ------
    RulesError
        Unknown ``kind`` (path ``effect.kind``) or a bad value.
    """
    try:
        func = EFFECTS[kind]
    except KeyError:
        raise RulesError(
            f"Unknown underwater effect {kind!r}; known: {', '.join(EFFECTS)}.", ("effect", "kind")
        ) from None
    return func(**params)


# --------------------------------------------------------------------------------------
# Range and melee (pf2e-variant, PV-RNG-1..2, PV-MEL-1..2)
# --------------------------------------------------------------------------------------

#: PV-RNG-2: most levels of Disadvantage from range.
MAX_RANGE_LEVELS = 5
#: PV-MEL-1: usual reach in ft.
DEFAULT_REACH_FT = 5.0

#: PV-RNG-1: upper bound (ft, inclusive) of each band after ``engaged``.
BANDS: tuple[tuple[str, float], ...] = (("close", 30.0), ("near", 60.0), ("far", 120.0))


@dataclass(frozen=True, slots=True)
class RangeResult:
    """PV-RNG-1/2: the range ``band`` and the range-increment penalty.

    ``disadvantage_levels`` is ``None`` when the attack is impossible or no increment was
    given; ``possible`` is ``None`` when no increment was given.
    """

    band: str
    disadvantage_levels: int | None
    possible: bool | None
    rules: tuple[str, ...]
    notes: tuple[str, ...] = ()


def range_band(distance_ft: float, engaged: bool = False) -> str:
    """The range band of a distance (PV-RNG-1).

    ``engaged`` when the caller says so (adjacent or in melee: an input, not measured);
    otherwise close (≤ 30 ft), near (31–60), far (61–120), distant (> 120).

    **Decision.** The seed lists "Close: within 30 feet. Near: 31–60 feet." and leaves
    30 < d < 31 open. Bands are contiguous with upper bounds included: close d ≤ 30, near
    30 < d ≤ 60, far 60 < d ≤ 120, distant d > 120, so 30.5 ft is near ("within 30 feet" it
    is not), the same cut as the range increments ("over 30 and up to 60 feet").

    Parameters
    ----------
    distance_ft : float
        Distance in ft, ≥ 0.
    engaged : bool
        The two creatures are adjacent or in melee.

    Returns
    -------
    str
        ``"engaged"``, ``"close"``, ``"near"``, ``"far"`` or ``"distant"``.
    """
    distance_ft = _check_number(distance_ft, ("distance",))
    if engaged:
        return "engaged"
    for name, upper in BANDS:
        if distance_ft <= upper:
            return name
    return "distant"


def range_increment_penalty(distance_ft: float, increment_ft: float) -> tuple[int | None, bool]:
    """Levels of Disadvantage from a range increment (PV-RNG-2).

    None up to one increment; then one level per further increment started, at most 5
    levels (distance ≤ 6 increments); beyond 6 increments the attack is impossible. Light
    crossbow, 30 ft: ≤ 30 none, ≤ 60 one, ≤ 90 two, ≤ 120 three, ≤ 150 four, ≤ 180 five,
    > 180 impossible. Distances within ``SNAP_EPS`` of a multiple count as that multiple.

    Parameters
    ----------
    distance_ft : float
        Distance in ft, ≥ 0.
    increment_ft : float
        Range increment in ft, > 0.

    Returns
    -------
    tuple of (int or None, bool)
        ``(levels, possible)``; ``levels`` is ``None`` when not possible.

    Raises
    ------
    RulesError
        Negative distance (path ``distance``) or increment ≤ 0 (``range_increment``).
    """
    distance_ft = _check_number(distance_ft, ("distance",))
    increment_ft = _check_number(increment_ft, ("range_increment",))
    if increment_ft <= 0:
        raise RulesError(
            f"range_increment must be above 0 ft, not {increment_ft:g}.", ("range_increment",)
        )
    ratio = _snap(distance_ft / increment_ft)  # inf for a tiny increment: impossible
    if ratio > MAX_RANGE_LEVELS + 1:
        return None, False
    started = max(1, math.ceil(ratio))
    levels = started - 1
    if levels > MAX_RANGE_LEVELS:
        return None, False
    return levels, True


def range_modifiers(
    distance_ft: float, range_increment_ft: float | None = None, engaged: bool = False
) -> RangeResult:
    """Band (PV-RNG-1) and, with an increment, the Disadvantage levels (PV-RNG-2).

    Parameters
    ----------
    distance_ft : float
        Distance to the target in ft, ≥ 0.
    range_increment_ft : float, optional
        The weapon's range increment in ft, > 0.
    engaged : bool
        Adjacent or in melee.

    Returns
    -------
    RangeResult
    """
    band = range_band(distance_ft, engaged)
    if range_increment_ft is None:
        note = "No range_increment: band only (PV-RNG-1)."
        return RangeResult(band, None, None, ("PV-RNG-1",), (note,))
    levels, possible = range_increment_penalty(distance_ft, range_increment_ft)
    notes = () if possible else ("Beyond six range increments: not possible (PV-RNG-2).",)
    return RangeResult(band, levels, possible, ("PV-RNG-1", "PV-RNG-2"), notes)


def unarmed_strike_damage(might: int) -> int:
    """Subdual damage of an Unarmed Strike: 1 + Might (PV-MEL-2).

    **Decision.** The seed gives no minimum; damage is never negative, so a Might of −2 or
    lower deals 0.

    Parameters
    ----------
    might : int
        The creature's Might.

    Returns
    -------
    int
        Subdual damage, ≥ 0.
    """
    might = _check_int(might, ("might",))
    return max(0, 1 + might)


def in_reach(distance_ft: float, reach_ft: float = DEFAULT_REACH_FT) -> bool:
    """Whether a foe ``distance_ft`` away can be attacked in melee (PV-MEL-1, usual reach 5).

    Parameters
    ----------
    distance_ft : float
        Distance between the two spaces in ft, ≥ 0.
    reach_ft : float
        The attacker's reach in ft, ≥ 0.
    """
    distance_ft = _check_number(distance_ft, ("distance",))
    reach_ft = _check_number(reach_ft, ("reach",))
    return distance_ft <= reach_ft
