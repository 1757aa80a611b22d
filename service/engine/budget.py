"""Work budgets: a request's costly step counts its work and stops, with a 422, at a limit.

A small body must never buy minutes of CPU (``docs/decisions.md`` "Bounded work"). Steps
whose cost depends on the geometry (the exact line-of-effect search) count the line–wall
tests they spend; past the budget they raise ``OverBudget`` naming what to reduce, so the
worker answers at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from service.errors import OverBudget
from service.settings import BY_NAME

_P = TypeVar("_P")

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


#: What a unit stands for: one line-wall test the compiled trace counts, about 0.27 µs on
#: the project's 2 bench cores (``python -m bench.calibrate`` fits each term's time over the
#: bench dungeon, one-door rooms, random walls and the real exports). The default
#: ``SIGHTLINE_WORK_BUDGET`` of 6,000,000 units is then about 1.6 s of work, so a request
#: the model lets through (its estimate within 2x of the work) ends within about 3 s.
UNIT_SECONDS = 0.27e-6

#: Budget units of one line-creature test (GEO-7: every traced line against every creature
#: space). The compiled look-up (``geometry.creature_tests.creature_pairs``) visits only the
#: spaces in the grid cells along each line: a 200-token matrix's 159,200 corner lines took
#: about 0.3 s against 200 spaces spread over a dungeon, about 10 ns a (line, space); spaces
#: lined up along the lines (200 creatures in a row) about 20 ns each. Counted for the lines
#: traced (``rules.ask``: the lines a sample of the pairs traced, scaled).
CREATURE_TEST_UNITS = 0.03
#: Budget units of one pair's own rule work (planning its lines, ruling on what they meet):
#: about 3 µs a pair (``bench.calibrate``'s fit over cover matrices of every ruleset).
PAIR_UNITS = 10
#: Budget units of one light ray's own work beyond its line-wall tests (making it, its band,
#: reading its answer): about 10 µs a ray with no wall near (500,000 rays of 50 lights over
#: 10,000 points took 4.7 s), so about 10 line-wall tests' time.
RAY_UNITS = 10


#: Budget units of one vision pair's own work: its report from the measured lines, light
#: and distance, and the ruleset's answer, about 3 µs (a 100-token vision matrix of 9,900
#: pairs on the bench dungeon takes 60-90 ms in all).
VISION_PAIR_UNITS = 10
#: Budget units of one exact line-of-effect search beyond the line-wall tests it spends
#: (``geometry.search``: the walls near the two spaces, their vertices, the candidate
#: lines). ``bench.calibrate``'s fit: about 0.2 ms a search done with others
#: (``search_many``, which now runs every search, near or far); a request of a single
#: search pays about 1.9 ms, under-counted about 3x (refit with ``bench.calibrate``).
SEARCH_UNITS = 700


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


#: A sampled estimate (``WorkBudget.foresee``) runs one pair in ``SAMPLE_SHARE`` of the
#: request's, at least ``SAMPLE_MIN``, spread evenly over them; a request of fewer than
#: ``2 * SAMPLE_MIN`` pairs is not sampled (its steps' own estimates and counts bound it).
SAMPLE_SHARE = 100
SAMPLE_MIN = 8
#: The first pairs of a sample whose planning is timed (``PlanProbe``), in groups of these
#: sizes (30 pairs), each group planned in one call: a ruleset's planning is work no step
#: counts (SF-COV-5's low obstacles measure each pair's distance to every wall of limited
#: height in its box), so its CPU time a pair, scaled to the request, is spent on the
#: sample's budget. The groups grow so that a costly plan is refused after a few pairs (a
#: Starfinder 200-token matrix on 50,000 walls with heights plans 2-10 ms a pair: refused
#: after 2 pairs, not 32).
PLAN_PROBE = (2, 4, 8, 16)
#: A probe group before the last refuses at once when the planning it foresees (its groups'
#: whole time a pair, the calls' own overhead included: more than a pair's) passes what the
#: sample may still spend by this factor; the last group's estimate is spent, and refuses
#: past the budget itself.
PROBE_MARGIN = 2.0
#: How much cheaper a pair's planning is in the whole request's one batch than in the
#: probe's groups (``bench.calibrate``: 8-16x on Starfinder and dnd5e cover matrices of
#: 100-200 tokens, where trees and masks are shared): the probe's time is divided by it.
#: Not the same for every plan: about 1x for Starfinder's walls of limited height (a
#: distance per pair and wall, shared by nothing), 2x on the Lancer ship, 10-27x for dnd5e
#: and Starfinder without heights on a 20,000-wall dungeon (a 200-token matrix's plan against
#: the sample's 368 pairs planned in one call), so such plans are foreseen up to 10x low.
PLAN_BATCHING = 10


def cpu_units(seconds: float) -> float:
    """Budget units of ``seconds`` of CPU (``UNIT_SECONDS`` each)."""
    return seconds / UNIT_SECONDS


class PlanProbe:
    """The planning of a sample's pairs, its first ``PLAN_PROBE`` pairs timed and spent.

    A pair's planning is the slope of the groups' CPU times (``time.thread_time``) against
    their sizes (least squares, at least 0): what a pair adds, without a call's own
    overhead. ``cpu_units`` of it, times the sample's pairs, divided by ``PLAN_BATCHING``,
    is spent on ``trial`` (``WorkBudget.foresee``'s budget of the sample).
    """

    def __init__(self, trial: WorkBudget) -> None:
        self.trial = trial

    def plans(self, rows: NDArray[np.intp], plan: Callable[[NDArray[np.intp]], _P]) -> list[_P]:
        """``plan(part)`` over ``rows`` in parts: each ``PLAN_PROBE`` group, then the rest.

        Each group is timed; after each group but the last, the planning foreseen from the
        groups' whole time a pair is afforded with ``PROBE_MARGIN``; after the last the
        fitted planning is spent, before the rest is planned. Returns the parts' plans in
        order (they cover ``rows`` once). O(groups) calls of ``plan``.

        Raises
        ------
        OverBudget
            When the planning foreseen passes the sample's budget (nothing more is planned).
        """
        ends = np.minimum(np.cumsum(PLAN_PROBE), len(rows)).tolist()
        bounds = sorted({0, *ends, len(rows)})
        parts = [rows[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        groups = len({e for e in ends if e > 0})  # the first parts; the rest is the last
        sizes: list[int] = []
        seconds: list[float] = []
        out = []
        for k, part in enumerate(parts):
            start = time.thread_time()
            out.append(plan(part))
            if k >= groups:
                continue
            seconds.append(time.thread_time() - start)
            sizes.append(len(part))
            if k < groups - 1:  # an early look: the whole time a pair, overhead included
                units = self._units(sum(seconds) / sum(sizes), len(rows))
                if self.trial.used + units / PROBE_MARGIN > self.trial.limit:
                    self.trial.wanted = self.trial.used + units
                    raise self.trial.refusal(self.trial.wanted)
            else:
                self.trial.spend(int(self._units(_slope(sizes, seconds), len(rows))))
        return out

    @staticmethod
    def _units(each: float, pairs: int) -> float:
        """Units of ``pairs`` planned in the request's batch at ``each`` s a pair in the probe."""
        return cpu_units(each) * pairs / PLAN_BATCHING


def _slope(sizes: list[int], seconds: list[float]) -> float:
    """Least-squares slope of ``seconds`` against ``sizes``, at least 0 (one group: its mean)."""
    n, t = np.asarray(sizes, dtype=np.float64), np.asarray(seconds, dtype=np.float64)
    spread = float(((n - n.mean()) ** 2).sum())
    if spread == 0.0:
        return float(t.sum() / n.sum())
    return max(0.0, float(((n - n.mean()) * (t - t.mean())).sum() / spread))


def sample_rows(total: int) -> NDArray[np.intp] | None:
    """Rows of the sample of ``total`` pairs (``SAMPLE_SHARE``), or ``None`` when too few.

    Evenly spread, distinct and sorted, shape (k,). O(k).
    """
    k = max(SAMPLE_MIN, -(-total // SAMPLE_SHARE))
    if 2 * k > total:
        return None
    return np.unique(np.linspace(0, total - 1, k).round().astype(np.intp))


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
        #: Whether a sampled run foresaw the request's line work (``foresee``): the lines'
        #: own estimates (``afford_bounded``) then defer to it.
        self.foreseen = False
        #: The units this budget was asked to reach when it last refused (``afford`` refuses
        #: before counting): what a refused sample would have needed, for its message.
        self.wanted = 0.0

    def spend(self, units: int) -> None:
        """Count ``units`` of work.

        Raises
        ------
        OverBudget
            When the work spent passes the limit.
        """
        self.used += units
        if self.used > self.limit:
            self.wanted = float(self.used)
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
            self.wanted = self.used + units
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
        if self.foreseen:  # a sample of the same pairs, run whole, foresaw these lines
            return
        try:
            self.afford(upper)
        except OverBudget:
            self.afford(estimate())

    def foresee(
        self,
        total: int,
        run: Callable[[NDArray[np.intp], WorkBudget], float],
        own: float = 0.0,
    ) -> None:
        """Refuse before the work when a sample of its ``total`` pairs foresees too much.

        ``run(rows, trial)`` does the work of the pairs ``rows`` (``sample_rows``), counting
        in ``trial`` (a budget of their share of what is left), and returns the units of
        its work that the steps do not count (``trace_units`` of the lines it traced);
        both, scaled to ``total`` pairs, are afforded. Counts, not the sample's time: the
        same request is refused or not on any machine, and what is built once per scene
        (closed rooms, junction labels) is not scaled as if every pair built it. A sample
        that passes its share refuses the request at once, after about ``1 /
        SAMPLE_SHARE`` of the budget's work (docs/decisions.md "Bounded work"). With fewer
        than ``2 * SAMPLE_MIN`` pairs nothing is sampled: ``afford(own)``, an upper bound
        of the uncounted work.

        Raises
        ------
        OverBudget
            When the foreseen work passes the limit.
        """
        rows = sample_rows(total)
        if rows is None:
            self.afford(own)
            return
        scale = total / len(rows)
        left = self.limit - self.used
        trial = WorkBudget(max(1, int(left / scale)), self.message)
        trial.foreseen = True  # the sample is counted as it works, not estimated
        try:
            uncounted = run(rows, trial)
        except OverBudget:
            if max(trial.used, trial.wanted) <= trial.limit:
                raise  # another limit's refusal (one exact search's own): its message stands
            # the sample passed its share: at least what it had asked for then, scaled
            raise self.refusal(self.used + max(trial.used, trial.wanted) * scale) from None
        self.afford((trial.used + uncounted) * scale)
        self.foreseen = True

    def refusal(self, needed: float | None = None) -> OverBudget:
        """The ``OverBudget`` error of this budget (saying ``needed``, an estimate, if given)."""
        about = "" if needed is None else f" (it needs about {needed:,.0f})"
        return OverBudget(f"{self.message}; the budget is {self.limit:,} line-wall tests{about}.")
