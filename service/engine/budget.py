"""Work budgets: a request's costly step counts its work and stops, with a 422, at a limit.

A small body must never buy minutes of CPU (``docs/decisions.md`` "Bounded work"). Steps
whose cost depends on the geometry (the exact line-of-effect search) count the line–wall
tests they spend; past the budget they raise ``OverBudget`` naming what to reduce, so the
worker answers at once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.errors import OverBudget
from service.settings import BY_NAME

#: The ``SIGHTLINE_*`` settings that bound the core's own steps (``service.settings``):
#: closed rooms (``geometry.rooms``), hex footprints (``engine.grids``) and Starfinder flanking.
CORE_LIMITS = ("MAX_ROOM_CROSSINGS", "MAX_HEX_FOOTPRINT", "MAX_FLANK_PAIRS")
_limits: dict[str, int] = {name: int(BY_NAME[name].default) for name in CORE_LIMITS}


def core_limit(name: str) -> int:
    """The current value of the core limit ``name`` (one of ``CORE_LIMITS``)."""
    return _limits[name]


def set_core_limits(values: Mapping[str, Any]) -> None:
    """Set the core limits found in ``values`` (checked settings: ``create_app``'s config).

    One value per process, as every worker serves one app; names not in ``CORE_LIMITS`` are
    ignored.
    """
    for name in CORE_LIMITS:
        if name in values:
            _limits[name] = int(values[name])


#: Budget units of one line-creature test (GEO-7: every traced line against every creature
#: space). The compiled look-up (``geometry.creature_tests.creature_pairs``) visits only the spaces
#: in the grid cells along each line: a 200-token matrix's 159,200 corner lines take about
#: 0.3 s against 200 spaces spread over a dungeon, about 10 ns a (line, space); but spaces
#: lined up along the lines (200 creatures in a row) are all visited and tested, about
#: 20 ns each (a hostile trial: 287 million in 5.7 s). Three hundredths of a
#: line-wall test's time covers that.
CREATURE_TEST_UNITS = 0.03
#: Budget units of one pair's own rule work (planning its lines, ruling on what they meet):
#: about 30 line-wall tests' time (measured on a 200-token matrix, 39,800 pairs:
#: 0.7 s for dnd5e's plans, lines and degrees, 0.9 s for Starfinder's).
PAIR_UNITS = 30
#: Budget units of one light ray's own work beyond its line-wall tests (making it, its band,
#: reading its answer): about 10 µs a ray with no wall near (500,000 rays of 50 lights over
#: 10,000 points took 4.7 s), so about 10 line-wall tests' time.
RAY_UNITS = 10


#: Budget units of one vision pair's own work: its report from the measured lines,
#: light and distance, and the ruleset's answer, about 30 µs (a 200-token matrix, 39,800
#: pairs, is about 1.2 million units).
VISION_PAIR_UNITS = 30
#: Budget units of one exact line-of-effect search beyond the line-wall tests it spends
#: (``geometry.exact``: the walls near the two spaces, their vertices and incident walls,
#: the candidate lines): about 1 ms, so 1,000 line-wall tests' time. A request
#: within the default budget runs at most 6,000 searches.
SEARCH_UNITS = 1000


#: Budget units of one item of a scene change (``PATCH /v1/scenes/{id}``): loading it by
#: its schema, merging it and rehashing its chunk (``engine.digest``), about 100 µs.
PATCH_ITEM_UNITS = 100
#: Budget units per wall when a change adds, removes or moves walls and the wall index and
#: its rooms are built again (``engine.live``): about 25 µs a wall (a 20,000-wall dungeon:
#: 26 ms for the index, 440 ms for its rooms).
WALL_BUILD_UNITS = 25


#: Budget units per hex of two big footprints whose distance is measured (GEO-8 on hexes,
#: ``grids.hex_cells_distance``: numpy over both footprints' hexes): about 0.3 µs a hex (a
#: vision matrix of 60 tokens of 675 hexes, 3,540 pairs, took 1.4 s). Counted for footprints
#: past ``grids.SMALL_FOOTPRINT`` hexes; smaller ones are within ``VISION_PAIR_UNITS``.
HEX_CELL_UNITS = 0.3


def vision_units(pairs: int, big_hexes: int = 0) -> float:
    """Budget units of the own work of ``pairs`` vision pairs (``VISION_PAIR_UNITS`` each).

    ``big_hexes``: the hexes of the big footprints summed over the pairs (each pair counts
    both of its tokens'), ``HEX_CELL_UNITS`` each.
    """
    return pairs * VISION_PAIR_UNITS + big_hexes * HEX_CELL_UNITS


def trace_units(lines: int, creatures: int, pairs: int) -> float:
    """Budget units, beyond the line-wall tests, of tracing ``lines`` for ``pairs`` pairs.

    ``lines`` x ``creatures`` line-creature tests (``CREATURE_TEST_UNITS`` each; 0 when
    creatures do not block) and ``PAIR_UNITS`` per pair. O(1).
    """
    return lines * creatures * CREATURE_TEST_UNITS + pairs * PAIR_UNITS


class WorkBudget:
    """A budget of ``limit`` units of work (line–wall candidate tests).

    Parameters
    ----------
    limit : int
        Units that may be spent.
    message : str
        What to reduce; ``spend`` raises ``OverBudget`` with it, after the count and limit.
    parent : WorkBudget, optional
        A larger budget (the whole request's) that every unit spent here also counts in.
    """

    def __init__(self, limit: int, message: str, parent: WorkBudget | None = None) -> None:
        self.limit = limit
        self.used = 0
        self.message = message
        self.parent = parent

    def spend(self, units: int) -> None:
        """Count ``units`` of work.

        Raises
        ------
        OverBudget
            When the work spent passes the limit.
        """
        self.used += units
        if self.used > self.limit:
            raise self.refusal()
        if self.parent is not None:
            self.parent.spend(units)

    def afford(self, units: float) -> None:
        """Refuse now, before any work, when ``units`` (an estimate) would pass the limit.

        Raises
        ------
        OverBudget
            When ``used + units`` passes the limit (nothing is counted).
        """
        if self.used + units > self.limit:
            raise self.refusal(self.used + units)
        if self.parent is not None:
            self.parent.afford(units)

    def afford_bounded(self, upper: float, estimate: Callable[[], float]) -> None:
        """``afford`` of work at most ``upper`` units, about ``estimate()``.

        When ``upper`` fits, nothing is estimated (a small request pays no estimate);
        otherwise ``afford(estimate())``.

        Raises
        ------
        OverBudget
            When the estimate passes the limit.
        """
        try:
            self.afford(upper)
        except OverBudget:
            self.afford(estimate())

    def refusal(self, needed: float | None = None) -> OverBudget:
        """The ``OverBudget`` error of this budget (saying ``needed``, an estimate, if given)."""
        about = "" if needed is None else f" (it needs about {needed:,.0f})"
        return OverBudget(f"{self.message}; the budget is {self.limit:,} line-wall tests{about}.")
