"""What each observer's senses do toward each target: ``perceive_all`` and ``locate_all``.

``perceive_all`` reads the one measurement of every pair (``SenseColumns.measure``) into a
``SenseReport`` per pair, for the rulesets to turn into their answers; ``locate_all`` reads
the same measurement through a ruleset's ``SenseOrder`` into a bare vision matrix, without a
report per pair.

References
----------
shared/RULES.md 5E-VIS-1..10, GEO-8, GEO-9; shared/API.md "Vision and detection".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from service.engine.budget import WorkBudget
from service.engine.scene import BuiltScene
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.geometry.exact import LineOfEffect
from service.geometry.measure import Blocker, surface_blockers
from service.lighting import LightSample, silent_light_notes, token_sample_points
from service.model import Token
from service.senses.columns import SenseColumns
from service.senses.lines import BlockerNames
from service.senses.obscurement import concealing_regions, fog_partly_on_line, obscurement_at
from service.senses.reach import SenseOrder

#: The note of a pair whose sight-based senses the GM option cut (``darkness_cuts``).
_DARKNESS_NOTE = (
    "Option magical_darkness_blocks_sight: magical darkness between them blocks sight "
    "and darkvision (devil's sight and truesight see through it)."
)


@dataclass(frozen=True)
class SenseReport:
    """What one observer's senses do toward one target.

    Attributes
    ----------
    distance : float
        Grid units between the spaces (GEO-8, elevation included).
    light : LightSample
        Light over the target's space.
    obscurement : str
        ``none|light|heavy`` from regions at the target's space (not from light).
    reaches : dict of str to bool
        For each sense of ``PRECISE`` and ``hearing``: whether it locates the target.
    line_of_sight, line_of_effect : bool
        Exact lines between the spaces for sight (walls + heavy fog) and for effect.
    blockers : tuple of Blocker
        What blocks the centre-to-centre sight line when there is no line of sight.
    invisible : bool
        The target has the ``invisible`` condition.
    sees_invisible : bool
        The observer sees invisible creatures at this distance (``see_invisibility`` or
        truesight in range): for it the target is not invisible.
    concealed_by : tuple of str
        Ids of the concealing regions (GEO-9) that the centre line crosses or that overlap
        the target's space.
    notes : tuple of str
        What the GM options changed.
    blocked_by_region : bool
        Some blocker of the centre sight line is a region (the outline of heavy
        obscurement, 5E-VIS-2).
    """

    distance: float
    light: LightSample
    obscurement: str
    reaches: dict[str, bool]
    line_of_sight: bool
    line_of_effect: bool
    blockers: tuple[Blocker, ...] = ()
    invisible: bool = False
    sees_invisible: bool = False
    concealed_by: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    blocked_by_region: bool = False

    @property
    def visible_to_observer(self) -> bool:
        """The target is not invisible, or the observer sees invisible in range."""
        return not self.invisible or self.sees_invisible


def perceive(
    built: BuiltScene,
    observer: Token,
    target: Token,
    *,
    diagonals: str = "equidistant",
    inset: float = DEFAULT_CORNER_INSET_PX,
    magical_darkness_blocks_sight: bool = False,
) -> SenseReport:
    """Which of ``observer``'s senses locate ``target``: ``perceive_all`` for one pair."""
    return perceive_all(
        built,
        [(observer, target)],
        diagonals=diagonals,
        inset=inset,
        magical_darkness_blocks_sight=magical_darkness_blocks_sight,
    )[0]


def perceive_all(
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    *,
    diagonals: str = "equidistant",
    inset: float = DEFAULT_CORNER_INSET_PX,
    budget: WorkBudget | None = None,
    magical_darkness_blocks_sight: bool = False,
    darkvision_defeated: bool = True,
) -> list[SenseReport]:
    """Which of each observer's senses locate each target (see ``service.senses``).

    The exact lines of all pairs (sight, effect, sound) are measured together, cheap centre
    lines first (``service.geometry.exact.lines_of_effect``); each target's light is sampled
    once; which senses reach is decided for all pairs at once (``SenseColumns``).

    Parameters
    ----------
    built : BuiltScene
    pairs : sequence of (observer, target) Token pairs
    diagonals : str
        The ruleset's default diagonal rule for ranges, used when the scene's grid sets
        none (GEO-8).
    inset : float
        px by which both spaces shrink before tracing lines (GEO-6).
    budget : WorkBudget, optional
        The request's budget of line-wall tests (``service.engine.budget``).
    magical_darkness_blocks_sight : bool
        GM option (see ``service.senses``); default off.
    darkvision_defeated : bool
        Whether darkvision fails in magical darkness (5E-VIS-5; SF-CON-6 Decision: only with
        the GM option in starfinder and pf2e-variant, ``rules.options.darkvision_defeated``).

    Returns
    -------
    list of SenseReport, one per pair in order.

    Raises
    ------
    OverBudget
        The request would pass ``budget``.

    Cost: O(pairs x walls near their centre lines), plus the exact search for pairs whose
    centre line is blocked, plus one light sample per distinct target. A pair and its
    reverse are measured once when the walls block alike both ways (``exact_lines``).
    With ``budget``: ``VISION_PAIR_UNITS`` per pair are spent first (refused before any
    tracing), then the centre lines' tests, and ``SEARCH_UNITS`` per exact search with its
    tests (``service.engine.budget``).
    """
    if not pairs:
        return []
    cols = SenseColumns.measure(
        built,
        pairs,
        diagonals,
        inset,
        budget,
        magical_darkness_blocks_sight,
        listed=True,
        defeated=darkvision_defeated,
    )
    assert cols.lines is not None
    return _reports(
        cols,
        concealing_regions(built, pairs),
        _obscurements(built, pairs, cols),
        _pair_notes(built, cols),
        _sight_blockers(built, cols.lines[0], cols),
    )


def _obscurements(
    built: BuiltScene, pairs: Sequence[tuple[Token, Token]], cols: SenseColumns
) -> list[str]:
    """Each pair's obscurement at its target (``obscurement_at``, each token once).

    A target in no obscurement is lightly obscured when the pair's centre line crosses
    heavy fog that holds only part of its band (GEO-5a, ``fog_partly_on_line``).
    """
    box_o, box_t = cols.boxes[cols.rows[:, 0]], cols.boxes[cols.rows[:, 1]]
    partial_fog = fog_partly_on_line(built, box_o, box_t, cols.bands)
    fog = {t.id: obscurement_at(built, t) for t in cols.tokens}
    return [
        "light" if part and fog[target.id] == "none" else fog[target.id]
        for (_, target), part in zip(pairs, partial_fog, strict=True)
    ]


def _pair_notes(built: BuiltScene, cols: SenseColumns) -> list[tuple[str, ...]]:
    """Each pair's notes: silent lights near its target, then the GM option's cut, if any.

    The lights that reach the target but do not shine for the observer
    (``silent_light_notes``, once per light sample), then ``_DARKNESS_NOTE`` where the GM
    option ``magical_darkness_blocks_sight`` cut sight-based senses.
    """
    silent = [
        silent_light_notes(built, token_sample_points(built, target, sources), who)
        for target, who, sources in cols.light_keys
    ]
    return [
        (*silent[at], _DARKNESS_NOTE) if cut else silent[at]
        for at, cut in zip(cols.light_of.tolist(), cols.darkened.tolist(), strict=True)
    ]


def _sight_blockers(
    built: BuiltScene, sight: list[LineOfEffect], cols: SenseColumns
) -> list[tuple[tuple[Blocker, ...], bool]]:
    """What blocks each pair's sight line (none when clear), and whether one is a region.

    Walls name their levels; the floors the pair's centre line goes through follow them
    (GEO-10, ``surface_blockers``).
    """
    wall_names = BlockerNames(built.sight)
    out = [((), False) if line.clear else wall_names(line.blockers) for line in sight]
    shut = [k for k, line in enumerate(sight) if not line.clear]
    if built.sight.surfaces is None or not shut:
        return out
    box_o, box_t = cols.boxes[cols.rows[shut, 0]], cols.boxes[cols.rows[shut, 1]]
    centres = np.column_stack([box_o[:, :2] + box_o[:, 2:], box_t[:, :2] + box_t[:, 2:]]) / 2
    floors = surface_blockers(built.sight, centres, cols.bands[shut], "sight")
    for k, met in zip(shut, floors, strict=True):
        if met:
            out[k] = ((*out[k][0], *met), out[k][1])
    return out


def _reports(
    cols: SenseColumns,
    concealed: list[tuple[str, ...]],
    obscurement: list[str],
    notes: list[tuple[str, ...]],
    blockers: list[tuple[tuple[Blocker, ...], bool]],
) -> list[SenseReport]:
    """One ``SenseReport`` per pair: the columns' row and the pair's other readings."""
    assert cols.lines is not None
    names = tuple(cols.reaches)
    reach_rows = zip(*(cols.reaches[s].tolist() for s in names), strict=True)
    rows = zip(reach_rows, concealed, obscurement, notes, blockers, strict=True)
    return [
        SenseReport(
            distance=cols.distance[k],
            light=cols.samples[at],
            obscurement=fog,
            reaches=dict(zip(names, reached, strict=True)),
            line_of_sight=bool(cols.clear[0, k]),  # the line, unless a burrower (GEO-12)
            line_of_effect=bool(cols.clear[1, k]),
            blockers=named,
            invisible=bool(cols.invisible[k]),
            sees_invisible=bool(cols.sees_invisible[k]),
            concealed_by=by,
            notes=note,
            blocked_by_region=by_region,
        )
        for k, ((reached, by, fog, note, (named, by_region)), at) in enumerate(
            zip(rows, cols.light_of.tolist(), strict=True)
        )
    ]


def locate_all(
    built: BuiltScene,
    pairs: Sequence[tuple[Token, Token]],
    order: SenseOrder,
    *,
    diagonals: str = "equidistant",
    inset: float = DEFAULT_CORNER_INSET_PX,
    budget: WorkBudget | None = None,
    magical_darkness_blocks_sight: bool = False,
    darkvision_defeated: bool = True,
) -> tuple[list[str | None], list[bool]]:
    """The sense that locates each target, and whether it sees it: a bare vision matrix.

    The same measurement and senses as ``perceive_all`` (same arguments and errors), read
    through a ruleset's ``order`` for all pairs at once, without a report per pair.

    Returns
    -------
    (senses, can_see) : two lists, one item per pair in order
        ``SenseOrder.located`` of each pair's senses.

    Cost: as ``perceive_all``'s measurement; no per-pair Python besides the two lists.
    """
    if not pairs:
        return [], []
    cols = SenseColumns.measure(
        built,
        pairs,
        diagonals,
        inset,
        budget,
        magical_darkness_blocks_sight,
        listed=False,
        defeated=darkvision_defeated,
    )
    return order.located_all(cols.reaches)
