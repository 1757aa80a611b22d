"""Work budgets: a request's costly step counts its work and stops, with a 422, at a limit.

Issue 16: a small body must never buy minutes of CPU. Steps whose cost depends on the
geometry (the exact line-of-effect search) count the line–wall tests they spend; past the
budget they raise ``OverBudget`` naming what to reduce, so the worker answers at once.
"""

from __future__ import annotations

from service.errors import OverBudget


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
            raise self.refusal()
        if self.parent is not None:
            self.parent.afford(units)

    def refusal(self) -> OverBudget:
        """The ``OverBudget`` error of this budget."""
        return OverBudget(f"{self.message}; the budget is {self.limit:,} line-wall tests.")
