"""Underwater combat (dnd5e, 5E-UW-1..9): weapon attacks in or across water, and effects.

The rules are mostly data: the 5e weapon list (``WEAPON_LIST``, one record per weapon with
its ranges and which underwater exception it has), the damage types and the constants of
the effects. The code is the few procedural rules: the attack's order of checks (5E-UW-1,
5E-UW-2, refraction 5E-UW-9) and one small function per effect (5E-UW-3..8).

Units: distances, ranges, speeds and area sizes in ft; time in seconds. Where the seed is
silent or ambiguous, the decision is stated in the docstring of the function that takes it,
with the seed's words.

References
----------
``shared/RULES.md`` 5E-UW-1..9; seed ``dnd5e-zh_001`` "水下战斗".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from service.errors import RulesError
from service.model import DAMAGE_TYPES
from service.rules.arithmetic import check_count, check_int, check_number, snap

# --------------------------------------------------------------------------------------
# Weapons (5E-UW-1, 5E-UW-2)
# --------------------------------------------------------------------------------------

#: 5E-UW-2 exceptions: a javelin-like thrown weapon (the seed's "与标枪类似的投掷武器（包括
#: 矛、三叉戟、飞标）": javelin, spear, trident, dart), a crossbow, the net.
RangedExemption = Literal["thrown", "crossbow", "net"]

#: The 5E-UW-2 exceptions a request may state for a weapon (``attack.thrown``,
#: ``attack.crossbow``); the net is known by its name only.
STATED_EXEMPTIONS: tuple[RangedExemption, ...] = ("thrown", "crossbow")


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon of the 5e equipment list as the underwater rules see it.

    ``normal_range``/``long_range`` in ft (``None`` for melee-only weapons);
    ``melee_exempt`` marks the five melee weapons without the 5E-UW-1 disadvantage;
    ``ranged_exempt`` the 5E-UW-2 exception the weapon has, if any.
    """

    name: str
    normal_range: float | None
    long_range: float | None
    melee_exempt: bool
    ranged_exempt: RangedExemption | None


# fmt: off
#: The 5e (SRD 2014) weapons: name, normal and long range (ft), 5E-UW-1 and 5E-UW-2 exceptions.
#:
#: **Decision (thrown weapons).** The seed's 5E-UW-2 exception is "与标枪类似的投掷武器（包括
#: 矛、三叉戟、飞标）" (thrown weapons like the javelin, including spear, trident, dart): the
#: table marks exactly those four as ``thrown``; a thrown dagger, handaxe or light hammer
#: keeps the disadvantage. A GM who reads it wider passes ``thrown=True``.
WEAPON_LIST: tuple[Weapon, ...] = (
    #      name              normal  long  5E-UW-1  5E-UW-2
    # Simple melee
    Weapon("club",            None,  None, False,   None),
    Weapon("dagger",            20,    60, True,    None),
    Weapon("greatclub",       None,  None, False,   None),
    Weapon("handaxe",           20,    60, False,   None),
    Weapon("javelin",           30,   120, True,    "thrown"),
    Weapon("light hammer",      20,    60, False,   None),
    Weapon("mace",            None,  None, False,   None),
    Weapon("quarterstaff",    None,  None, False,   None),
    Weapon("sickle",          None,  None, False,   None),
    Weapon("spear",             20,    60, True,    "thrown"),
    # Simple ranged
    Weapon("light crossbow",    80,   320, False,   "crossbow"),
    Weapon("dart",              20,    60, False,   "thrown"),
    Weapon("shortbow",          80,   320, False,   None),
    Weapon("sling",             30,   120, False,   None),
    # Martial melee
    Weapon("battleaxe",       None,  None, False,   None),
    Weapon("flail",           None,  None, False,   None),
    Weapon("glaive",          None,  None, False,   None),
    Weapon("greataxe",        None,  None, False,   None),
    Weapon("greatsword",      None,  None, False,   None),
    Weapon("halberd",         None,  None, False,   None),
    Weapon("lance",           None,  None, False,   None),
    Weapon("longsword",       None,  None, False,   None),
    Weapon("maul",            None,  None, False,   None),
    Weapon("morningstar",     None,  None, False,   None),
    Weapon("pike",            None,  None, False,   None),
    Weapon("rapier",          None,  None, False,   None),
    Weapon("scimitar",        None,  None, False,   None),
    Weapon("shortsword",      None,  None, True,    None),
    Weapon("trident",           20,    60, True,    "thrown"),
    Weapon("war pick",        None,  None, False,   None),
    Weapon("warhammer",       None,  None, False,   None),
    Weapon("whip",            None,  None, False,   None),
    # Martial ranged
    Weapon("blowgun",           25,   100, False,   None),
    Weapon("hand crossbow",     30,   120, False,   "crossbow"),
    Weapon("heavy crossbow",   100,   400, False,   "crossbow"),
    Weapon("longbow",          150,   600, False,   None),
    Weapon("net",                5,    15, False,   "net"),
    # Not a weapon, but a melee weapon attack
    Weapon("unarmed strike",  None,  None, False,   None),
)
# fmt: on


def weapon_key(name: str) -> str:
    """The lookup key of a weapon name: lower case, spaces, hyphens and underscores dropped.

    ``"Heavy Crossbow"``, ``"heavy-crossbow"`` and ``"heavycrossbow"`` are one weapon, as are
    ``"short sword"`` and ``"shortsword"``.
    """
    return "".join(name.lower().replace("-", " ").replace("_", " ").split())


#: ``WEAPON_LIST`` by ``weapon_key`` of the name.
WEAPONS: dict[str, Weapon] = {weapon_key(w.name): w for w in WEAPON_LIST}


def find_weapon(name: str) -> Weapon | None:
    """The 5e weapon called ``name`` (case- and spacing-insensitive), or ``None``."""
    return WEAPONS.get(weapon_key(name))


# --------------------------------------------------------------------------------------
# Attacks (5E-UW-1, 5E-UW-2, 5E-UW-9)
# --------------------------------------------------------------------------------------


#: The rule each kind of weapon attack follows underwater.
ATTACK_RULES = {"melee": "5E-UW-1", "ranged": "5E-UW-2"}

#: 5E-UW-9: what lifts the refraction disadvantage (the seed: "拥有盲视或真实视觉的生物",
#: creatures having blindsight or truesight, at any range; "至少有一部分伤害类型为光耀伤害",
#: at least part of the damage radiant), in the order checked, with the answer's note.
REFRACTION_EXCEPTIONS: tuple[tuple[str, str], ...] = (
    ("blindsight_or_truesight", "Blindsight or truesight: no refraction disadvantage (5E-UW-9)."),
    ("radiant", "Radiant damage: no refraction disadvantage (5E-UW-9)."),
)


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
      spear, trident, dart: the Decision of ``WEAPON_LIST``).
    - Refraction (5E-UW-9): a ranged attack that crosses the water surface has disadvantage,
      unless the attacker has blindsight or truesight (any range > 0) or some of its damage
      is radiant (``REFRACTION_EXCEPTIONS``).

    Parameters
    ----------
    kind : {"melee", "ranged"}
        Melee or ranged weapon attack.
    weapon : str
        Weapon name in ``WEAPON_LIST`` (``weapon_key``), e.g. ``"heavy crossbow"``.
    swim_speed : float
        The attacker's swimming speed in ft (natural or magical); > 0 lifts 5E-UW-1.
    distance : float, optional
        Distance to the target in ft (required for ranged attacks).
    normal_range, long_range : float, optional
        The weapon's ranges in ft (override the table's; a ranged attack needs a normal range).
    thrown, crossbow : bool, optional
        Javelin-like thrown / crossbow: override the table, describe an unknown weapon.
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
    types, sees_through = _checked_attacker(
        kind, swim_speed, senses_truesight, senses_blindsight, damage_types
    )
    info = _described_weapon(weapon, thrown, crossbow)
    if kind == "melee":
        return _melee_attack(weapon, info, swim_speed, crosses_surface)
    auto_miss, disadvantage, notes = _ranged_attack(
        weapon, info, {"thrown": thrown, "crossbow": crossbow}, distance, normal_range, long_range
    )
    rules = [ATTACK_RULES["ranged"]]
    if crosses_surface:
        rules.append("5E-UW-9")
        disadvantage = _refracted(sees_through, types, notes) or disadvantage
    return UnderwaterAttackResult(
        auto_miss, disadvantage and not auto_miss, tuple(rules), tuple(notes)
    )


def _melee_attack(
    weapon: str, info: Weapon | None, swim_speed: float, crosses_surface: bool
) -> UnderwaterAttackResult:
    """5E-UW-1 for one melee attack (refraction, 5E-UW-9, is for ranged attacks only)."""
    notes = _melee_notes(weapon, info, swim_speed)
    disadvantage = not notes
    if crosses_surface:
        notes.append("Refraction (5E-UW-9) applies to ranged attacks only.")
    return UnderwaterAttackResult(False, disadvantage, (ATTACK_RULES["melee"],), tuple(notes))


def _melee_notes(weapon: str, info: Weapon | None, swim_speed: float) -> list[str]:
    """5E-UW-1: why a melee attack has no disadvantage; empty when it has one."""
    if swim_speed > 0:
        return ["Swimming speed: no underwater disadvantage on melee (5E-UW-1)."]
    if info is not None and info.melee_exempt:
        return [f"{weapon}: melee exception (5E-UW-1)."]
    return []


def _ranged_attack(
    weapon: str,
    info: Weapon | None,
    stated: dict[str, bool | None],
    distance: float | None,
    normal_range: float | None,
    long_range: float | None,
) -> tuple[bool, bool, list[str]]:
    """5E-UW-2 for one ranged attack: ``(auto_miss, disadvantage, notes)``.

    Without a ``normal_range`` the table's ranges are taken (both, unless ``long_range``
    is given); ``stated`` is the request's ``thrown`` and ``crossbow`` (``_ranged_exempt``).

    Raises
    ------
    RulesError
        No ``distance`` or no normal range; a negative number; normal above long range.
    """
    if normal_range is None and info is not None:
        normal_range = info.normal_range
        if long_range is None:
            long_range = info.long_range
    if distance is None:
        raise RulesError(
            "A ranged attack underwater needs attack.distance (ft) for 5E-UW-2.",
            ("attack", "distance"),
        )
    dist = check_number(distance, ("attack", "distance"))
    if normal_range is None:
        raise RulesError(
            f"No normal range known for {weapon!r}: give attack.normal_range (ft).",
            ("attack", "normal_range"),
        )
    normal = check_number(normal_range, ("attack", "normal_range"))
    notes: list[str] = []
    if long_range is not None:
        long = check_number(long_range, ("attack", "long_range"))
        if normal > long:
            raise RulesError(
                f"attack.normal_range ({normal:g} ft) is above attack.long_range ({long:g} ft).",
                ("attack", "normal_range"),
            )
        if dist > long:
            notes.append(f"Beyond the long range ({long:g} ft): not possible even on land.")
    if dist > normal:
        notes.append(f"Beyond the normal range ({normal:g} ft): automatic miss (5E-UW-2).")
        return True, False, notes
    if _ranged_exempt(info, stated):
        notes.append(f"{weapon}: ranged exception (5E-UW-2).")
        return False, False, notes
    return False, True, notes


def _refracted(sees_through: bool, types: set[str], notes: list[str]) -> bool:
    """5E-UW-9: whether refraction gives disadvantage; else the exception's note is added.

    ``sees_through``: the attacker has blindsight or truesight; ``types``: the damage types.
    """
    lifted = {"blindsight_or_truesight": sees_through, "radiant": "radiant" in types}
    note = next((n for why, n in REFRACTION_EXCEPTIONS if lifted[why]), None)
    if note is None:
        return True
    notes.append(note)
    return False


def _checked_attacker(
    kind: str,
    swim_speed: float,
    truesight: float,
    blindsight: float,
    damage_types: Iterable[str],
) -> tuple[set[str], bool]:
    """The attack's damage types (lower case) and whether blindsight or truesight is had.

    The inputs are checked in this order: ``kind``, the speed, the senses (5E-UW-9), the
    damage types.

    Raises
    ------
    RulesError
        Unknown ``kind`` (``attack.kind``), a negative or non-finite number, an unknown
        damage type (``attack.damage_types``).
    """
    if kind not in ATTACK_RULES:
        raise RulesError(
            f"attack.kind must be 'melee' or 'ranged', not {kind!r}.", ("attack", "kind")
        )
    check_number(swim_speed, ("attacker", "swim_speed"))
    truesight = check_number(truesight, ("attacker", "senses", "truesight"))
    blindsight = check_number(blindsight, ("attacker", "senses", "blindsight"))
    types = {str(t).lower() for t in damage_types}
    unknown = sorted(types - set(DAMAGE_TYPES))
    if unknown:
        raise RulesError(
            f"Unknown damage type {unknown[0]!r}; known: {', '.join(DAMAGE_TYPES)}.",
            ("attack", "damage_types"),
        )
    return types, truesight > 0 or blindsight > 0


def _described_weapon(weapon: str, thrown: bool | None, crossbow: bool | None) -> Weapon | None:
    """The table's ``weapon``, or ``None`` for an unknown one the request describes.

    ``thrown`` / ``crossbow``, when given, override the table; with an unknown name at least
    one of them must be given (the other then counts as false) and the name only matters for
    the name-based exceptions (the five melee weapons of 5E-UW-1, the net of 5E-UW-2).

    Raises
    ------
    RulesError
        At ``attack.weapon``: unknown, and neither ``thrown`` nor ``crossbow`` given.
    """
    info = find_weapon(weapon)
    if info is None and thrown is None and crossbow is None:
        raise RulesError(
            f"Unknown weapon {weapon!r}: not in the 5e weapon list. Give attack.thrown and/or "
            "attack.crossbow to describe it.",
            ("attack", "weapon"),
        )
    return info


def _ranged_exempt(info: Weapon | None, stated: dict[str, bool | None]) -> bool:
    """5E-UW-2: whether the weapon has a ranged exception.

    Each of ``STATED_EXEMPTIONS`` as the request states it (``stated``), else as the table
    says; the net by the table only.
    """
    table = info.ranged_exempt if info is not None else None
    return any(
        stated[name] if stated[name] is not None else table == name for name in STATED_EXEMPTIONS
    ) or (table == "net")


# --------------------------------------------------------------------------------------
# Effects (5E-UW-3..8)
# --------------------------------------------------------------------------------------

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
    dmg = check_count(damage, ("effect", "damage"))
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
    dmg = check_count(damage, ("effect", "damage"))
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
    size = check_number(size, ("effect", "size"))
    if scale not in ("dimension", "area"):
        raise RulesError(
            f"effect.scale must be 'dimension' or 'area', not {scale!r}.", ("effect", "scale")
        )
    factor = LIGHTNING_AREA_FACTOR if scale == "dimension" else math.sqrt(LIGHTNING_AREA_FACTOR)
    return LightningAreaResult("lightning_area", snap(size * factor), factor, ("5E-UW-5",))


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
    dmg = check_count(cold_damage, ("effect", "cold_damage"))
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
    con = check_int(con, ("effect", "con"))
    elapsed = None
    if elapsed_seconds is not None:
        elapsed = check_number(elapsed_seconds, ("effect", "elapsed_seconds"))
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


#: ``underwater_effect`` kinds and their functions (5E-UW-3..8 in order).
EFFECTS: dict[str, Callable[..., EffectResult]] = {
    "fire": fire_underwater,
    "acid": acid_underwater,
    "lightning_area": lightning_area_underwater,
    "freeze": freeze_square,
    "breath": hold_breath,
    "air_magic": air_magic_underwater,
}


def underwater_effect(kind: str, **params: Any) -> EffectResult:
    """An effect underwater (5E-UW-3..8), dispatched by ``kind`` through ``EFFECTS``.

    Parameters
    ----------
    kind : {"fire", "acid", "lightning_area", "freeze", "breath", "air_magic"}
        Which rule: ``fire_underwater``, ``acid_underwater``, ``lightning_area_underwater``,
        ``freeze_square``, ``hold_breath``, ``air_magic_underwater``.
    **params
        The keyword arguments of that function (the request's ``effect`` fields).

    Returns
    -------
    EffectResult
        The result type of that function; ``kind`` echoes the request.

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
