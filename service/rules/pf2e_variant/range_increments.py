"""Range bands and range increments (pf2e-variant, PV-RNG-1, PV-RNG-2) as two tables.

Units: distances and increments in ft. ``BANDS`` maps a distance to its band (PV-RNG-1),
``INCREMENT_LEVELS`` the number of increments a distance spans to levels of Disadvantage
(PV-RNG-2); the code only looks a measurement up in them.

PV-MEL-1 (melee reach, usually 5 ft) and PV-MEL-2 (Unarmed Strike, 1 + Might subdual
damage) have no answer of their own in the service: "engaged" (adjacent or in melee) is
the caller's input to ``range_band``.

References
----------
``shared/RULES.md`` PV-RNG-1..2, PV-MEL-1..2; seed ``pf2e-variant-en_003`` "Range Bands",
"Ranged Attacks".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from service.engine.grids import FEET_PER_SQUARE, METRES_PER_SQUARE
from service.errors import RulesError
from service.rules.arithmetic import check_number, snap

# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------

#: PV-RNG-1: each band after ``engaged`` and its upper bound in ft (inclusive).
#:
#: **Decision.** The seed lists "Close: within 30 feet. Near: 31–60 feet." and leaves
#: 30 < d < 31 open. Bands are contiguous with upper bounds included, so 30.5 ft is near
#: ("within 30 feet" it is not), the same cut as the range increments ("over 30 and up to
#: 60 feet").
BANDS: tuple[tuple[str, float], ...] = (
    ("close", 30.0),
    ("near", 60.0),
    ("far", 120.0),
    ("distant", math.inf),
)

#: PV-RNG-2: up to this many range increments (inclusive), this many levels of
#: Disadvantage; beyond the last row the attack is not possible. The seed's light
#: crossbow (30 ft): ≤ 30 ft none, ≤ 60 one, ≤ 90 two, ≤ 120 three, ≤ 150 four, ≤ 180 five.
INCREMENT_LEVELS: tuple[tuple[int, int], ...] = ((1, 0), (2, 1), (3, 2), (4, 3), (5, 4), (6, 5))

#: GEO-8: the bands are in feet; a metric distance counts 5 ft per 1.5 m.
FEET_PER_METRE = FEET_PER_SQUARE / METRES_PER_SQUARE


# --------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------


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
    """The range band of a distance (PV-RNG-1), looked up in ``BANDS``.

    ``engaged`` when the caller says so (adjacent or in melee: an input, not measured);
    otherwise close (≤ 30 ft), near (30–60], far (60–120], distant (> 120).

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

    Raises
    ------
    RulesError
        Negative or non-finite distance (path ``distance``).
    """
    distance_ft = check_number(distance_ft, ("distance",))
    if engaged:
        return "engaged"
    return next(name for name, upper in BANDS if distance_ft <= upper)


def range_increment_penalty(distance_ft: float, increment_ft: float) -> tuple[int | None, bool]:
    """Levels of Disadvantage from a range increment (PV-RNG-2), looked up in ``INCREMENT_LEVELS``.

    None up to one increment; then one level per further increment started, at most 5
    levels (distance ≤ 6 increments); beyond 6 increments the attack is impossible.
    Distances within ``SNAP_EPS`` of a multiple count as that multiple.

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
    distance_ft = check_number(distance_ft, ("distance",))
    increment_ft = check_number(increment_ft, ("range_increment",))
    if increment_ft <= 0:
        raise RulesError(
            f"range_increment must be above 0 ft, not {increment_ft:g}.", ("range_increment",)
        )
    increments = snap(distance_ft / increment_ft)  # inf for a tiny increment: impossible
    for most, levels in INCREMENT_LEVELS:
        if increments <= most:
            return levels, True
    return None, False


def range_modifiers(
    distance_ft: float,
    range_increment_ft: float | None = None,
    engaged: bool = False,
    units: str = "ft",
) -> RangeResult:
    """Band (PV-RNG-1) and, with an increment, the Disadvantage levels (PV-RNG-2).

    Parameters
    ----------
    distance_ft : float
        Distance to the target, ≥ 0, in ``units`` (feet unless ``units`` is ``m``).
    range_increment_ft : float, optional
        The weapon's range increment in the same units, > 0.
    engaged : bool
        Adjacent or in melee.
    units : str
        ``ft`` or ``m``: a metric distance is converted to feet for the bands, 1.5 m per
        5 ft (GEO-8); the increments count the same in either unit.

    Returns
    -------
    RangeResult
        ``rules`` is ``("PV-RNG-1",)`` without an increment, else both rule ids (and
        ``GEO-8`` when metres were converted).

    Raises
    ------
    RulesError
        As ``range_band`` and ``range_increment_penalty``.
    """
    extra: tuple[str, ...] = ()
    band_distance = distance_ft
    if units == "m":
        band_distance = check_number(distance_ft, ("distance",)) * FEET_PER_METRE
        extra = ("GEO-8",)
    band = range_band(band_distance, engaged)
    if range_increment_ft is None:
        note = "No range_increment: band only (PV-RNG-1)."
        return RangeResult(band, None, None, ("PV-RNG-1", *extra), (note,))
    levels, possible = range_increment_penalty(distance_ft, range_increment_ft)
    notes = () if possible else ("Beyond six range increments: not possible (PV-RNG-2).",)
    return RangeResult(band, levels, possible, ("PV-RNG-1", "PV-RNG-2", *extra), notes)
