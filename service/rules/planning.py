"""Plan the pairs of a cover request as one ``Pairs`` batch: one pair is a batch of one.

A ruleset says which sample points each end of a pair has (``Sampling``: a token's space as
a source or as a target, an area's point of origin) and which walls its lines consider (a
``WallChoice`` per pair, SF-COV-5 and PV-COV-8); ``plan_pairs`` gathers each token's points
once and makes every pair an index into them, the band from the attacker's vertical extent
to the target's (GEO-5a), the creatures that do not block (GEO-7, 5E-COV-7) and the table of
wall choices. The same code plans one pair and a 200-token matrix
(``docs/architecture.md`` "One implementation per algorithm").

Cost: O(tokens) Python for the ends, O(pairs) array work, plus O(pairs sharing a space) and
O(pairs) for an area's point of origin or a ruleset's per-pair ends and wall choices.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from service.engine.scene import BuiltScene, distinct_tokens
from service.engine.spaces import box_centre, boxes_overlap, inset_box
from service.engine.walls import FloatArray
from service.errors import RulesError
from service.geometry import sampling
from service.geometry.measured import MeasuredBatch
from service.geometry.questions import ALL_WALLS, Box, Pairing, Pairs, WallChoice
from service.model import Token
from service.rules.base import Attack

Role = Literal["source", "target"]
TokenPair = tuple[Token | None, Token]


@dataclass(frozen=True)
class End:
    """The sample points of one end of some pairs: a token's space or a point of origin.

    ``points`` (s, 2) px; ``exact`` (s, 2) px the exact corners they were inset from (GEO-6),
    ``None``: the points themselves; ``inner`` the space (px box) between which and the
    other end's the exact line is searched (5E-LOE-2); ``notes`` said of every pair that
    uses this end (SF-COV-1's cut corners).
    """

    points: FloatArray
    inner: Box
    exact: FloatArray | None = None
    notes: tuple[str, ...] = ()


#: What a space gives as sample points (``Sampling``).
PointKind = Literal["space corners", "every corner", "centre"]


@dataclass(frozen=True)
class Sampling:
    """Which sample points a ruleset's lines join: a table per ruleset (GEO-6).

    Attributes
    ----------
    source, target : {"space corners", "every corner", "centre"}
        A space's corners (``sampling.space_corners``: four, six on hexes, 5E-COV-5), every
        corner of every square of it (``sampling.every_corner``, SF-COV-1) or its centre
        (PV-COV-2).
    inset : float
        px by which corners move toward their square's centre (GEO-6).
    exact : {"always", "when inset"}
        When the exact corners go beside inset corners (a centre has none).
    inner_inset : float
        px by which the spaces the exact line is searched between are inset, at least
        (5E-LOE-2).
    inner_follows_inset : bool
        Those spaces are inset by ``inset`` when it is more than ``inner_inset``.
    origin_per_target_point : bool
        An area's point of origin is repeated once per target point (paired lines); else one
        point.
    area_caster_whole : bool
        An area's caster (an area without origin) searches the exact line from its whole
        space, not inset.
    cut_note : str
        Said of a pair whose source has more than ``sampling.MAX_SOURCE_CORNERS`` corners,
        cut to the ones nearest the target (``{total}``, ``{kept}``).
    """

    source: PointKind
    target: PointKind
    inset: float = 0.0
    exact: Literal["always", "when inset"] = "always"
    inner_inset: float = 0.0
    inner_follows_inset: bool = True
    origin_per_target_point: bool = False
    area_caster_whole: bool = False
    cut_note: str = "{kept} of the {total} corners nearest the target were tried."


@dataclass
class _Ends:
    """The ends of a request's pairs as ``Sampling`` says, each token's found once."""

    built: BuiltScene
    how: Sampling
    area: bool
    found: dict[tuple[str, str, bool], End | None] = field(default_factory=dict)

    def token_end(self, token: Token, role: Role) -> End | None:
        """The end ``token``'s space gives; ``None``: one per pair (corners cut per target)."""
        kind = self.how.source if role == "source" else self.how.target
        whole = role == "source" and self.area and self.how.area_caster_whole
        key = (token.id, kind, whole)  # a source and a target sampled alike share one end
        if key not in self.found:
            self.found[key] = self._end(token, role, None)
        return self.found[key]

    def pair_source(self, attacker: Token | None, target: Token, origin: Box | None) -> End:
        """An area's point of origin, or an attacker's corners nearest ``target``."""
        if origin is None:
            assert attacker is not None
            toward = box_centre(self.built.token_boxes[target.id])
            end = self._end(attacker, "source", toward)
            assert end is not None
            return end
        count = 1
        if self.how.origin_per_target_point:
            target_end = self.token_end(target, "target")
            assert target_end is not None
            count = len(target_end.points)
        return End(sampling.origin(origin[:2], count), origin)

    def _end(self, token: Token, role: Role, toward: tuple[float, float] | None) -> End | None:
        how, built = self.how, self.built
        box = built.token_boxes[token.id]
        kind = how.source if role == "source" else how.target
        inner = self._inner(box, role)
        if kind == "centre":
            return End(sampling.centre(box), inner)
        with_exact = how.exact == "always" or how.inset > 0
        if kind == "space corners":
            exact = sampling.space_corners(built, token, box, 0.0) if with_exact else None
            return End(sampling.space_corners(built, token, box, how.inset), inner, exact)
        points, total = sampling.every_corner(built, token, box, how.inset, toward)
        if toward is None and total > sampling.MAX_SOURCE_CORNERS:
            return None  # cut to the corners nearest each target
        exact = None
        if with_exact:  # GEO-6: what the inset corners came from
            exact = sampling.exact_points(points, sampling.every_corner(built, token, box, 0.0)[0])
        notes = (how.cut_note.format(total=total, kept=len(points)),) if total > len(points) else ()
        return End(points, inner, exact, notes)

    def _inner(self, box: Box, role: Role) -> Box:
        how = self.how
        if role == "source" and self.area and how.area_caster_whole:
            return box
        d = max(how.inset, how.inner_inset) if how.inner_follows_inset else how.inner_inset
        return inset_box(box, d)


@dataclass(frozen=True)
class WallChoices:
    """Each pair's wall choice (``Pairs.walls`` and ``Pairs.wall_choice``) and its notes."""

    walls: tuple[WallChoice, ...] = (ALL_WALLS,)
    choice: NDArray[np.intp] | None = None
    notes: dict[int, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        per_pair: Sequence[WallChoice],
        notes: dict[int, tuple[str, ...]] | None = None,
    ) -> WallChoices:
        """The table of the distinct choices of ``per_pair`` (one per pair, in order)."""
        rows: dict[tuple[bytes | None, bytes | bool], int] = {ALL_WALLS.key(): 0}
        walls = [ALL_WALLS]
        choice = np.zeros(len(per_pair), dtype=np.intp)
        for r, c in enumerate(per_pair):
            key = c.key()
            if key not in rows:
                rows[key] = len(walls)
                walls.append(c)
            choice[r] = rows[key]
        return cls(tuple(walls), choice if len(walls) > 1 else None, notes or {})


@dataclass(frozen=True)
class Plan:
    """A request's pairs planned (``plan_pairs``).

    Attributes
    ----------
    pairs : Pairs
        What ``geometry.measure`` measures.
    shared : dict of int to sequence of str
        The pairs with another creature in either space (5E-COV-7), by row, with who, in
        scene order.
    notes : dict of int to tuple of str
        The ruleset's notes of the pairs that have some (``End.notes``, wall choices).
    source_boxes : ndarray of shape (q, 4)
        px, each pair's source: the attacker's space, or an area's point of origin as a box
        of no size (``attack_source``).
    from_origin : bool
        The sources are an area's point of origin.
    """

    pairs: Pairs
    shared: dict[int, Sequence[str]]
    notes: dict[int, tuple[str, ...]]
    source_boxes: FloatArray
    from_origin: bool

    def __len__(self) -> int:
        return len(self.pairs)


@dataclass(frozen=True)
class Asked:
    """A cover request planned and measured: what ``covers`` and ``cover_ranks`` rule on.

    Made by ``service.rules.ask``; ``pairs`` ``(attacker or None, target)`` in order;
    ``options`` the ruleset's, checked.
    """

    built: BuiltScene
    plan: Plan
    measured: MeasuredBatch
    pairs: Sequence[TokenPair]
    attack: Attack
    options: dict[str, Any]


def attack_source(
    built: BuiltScene, attacker: Token | None, target: Token, attack: Attack
) -> tuple[Box, tuple[float, float], bool]:
    """Where an attack comes from, for the three rulesets' cover.

    Returns
    -------
    box : (x0, y0, x1, y1) px
        An area's point of origin as a box of no size when it has one, else the attacker's
        space.
    span : (bottom, top)
        Grid units: the attacker's vertical extent (GEO-5a); an area's point of origin is a
        band of no thickness at ``attack.elevation`` when given, else at the attacker's
        elevation (the effect leaves from it), else at 0 (GEO-5a's default).
    from_origin : bool
        Whether ``box`` is the area's point of origin.

    Raises
    ------
    RulesError
        An area attack without ``attack.origin`` and without an attacker (path ``attack``).
    """
    if attack.kind == "area" and attack.origin is not None:
        z = attack.elevation
        if z is None:
            z = attacker.elevation if attacker is not None else 0.0
        return (*attack.origin, *attack.origin), (z, z), True
    if attacker is not None:
        return built.token_boxes[attacker.id], built.span(attacker), False
    raise RulesError("An area attack needs attack.origin or an attacker.", ("attack",))


def _holds(span: tuple[float, float] | None, z: float) -> bool:
    """Whether the half-open extent ``[bottom, top)`` holds elevation ``z`` (GEO-5)."""
    return span is None or span[0] <= z < span[1]


def shared_space(
    built: BuiltScene,
    attacker: Token | None,
    target: Token,
    source_box: Box,
    from_origin: bool,
    source_span: tuple[float, float] | None = None,
) -> tuple[Sequence[str], frozenset[str]]:
    """Creatures sharing the target's or the source's space, and all that do not block.

    Every creature but the attacker and the target can block a cover line (GEO-7); one in
    the same space as the target or the attacker (the same squares), or whose space holds
    an area's point of origin (``from_origin``, ``source_box`` a point), gives no cover
    (5E-COV-7). A creature whose space only partly overlaps theirs (a Large creature
    beside the target) is still an obstacle (GEO-7), and so is one on the same squares whose
    vertical extent does not overlap theirs (GEO-5a, ``BuiltScene.sharing``), or that does
    not hold the point of origin's elevation (``source_span``, from ``attack_source``; the
    origin is at 0 when it is not given).

    Returns
    -------
    shared : sequence of str
        Those sharing a space, in scene order (for the answer's notes).
    excluded : frozenset of str
        ``shared`` plus the attacker and the target: the creatures that block none of the
        pair's lines.

    Cost: O(overlapping tokens) from ``BuiltScene.sharing``; O(tokens) for a point of origin.
    """
    if not from_origin and attacker is not None:
        if not built.sharing[target.id] and not built.sharing[attacker.id]:
            return (), frozenset((target.id, attacker.id))  # the common case: nobody shares
        return built.shared_with(attacker.id, target.id)
    found = set(built.sharing[target.id])
    if from_origin:
        z = source_span[0] if source_span is not None else 0.0
        found.update(
            tid
            for tid, box in built.token_boxes.items()
            if boxes_overlap(box, source_box) and _holds(built.token_spans.get(tid), z)
        )
    elif attacker is not None:
        found.update(built.sharing[attacker.id])
    found.discard(target.id)
    if attacker is not None:
        found.discard(attacker.id)
    shared = tuple(sorted(found, key=built.token_order.__getitem__))
    pair = {target.id} if attacker is None else {target.id, attacker.id}
    return shared, frozenset(found | pair)


@dataclass
class _Table:
    """Distinct ends, one row each, stacked as padded arrays (``Pairs``' points)."""

    ends: list[End] = field(default_factory=list)

    def add(self, end: End) -> int:
        self.ends.append(end)
        return len(self.ends) - 1

    def arrays(
        self,
    ) -> tuple[FloatArray, FloatArray | None, NDArray[np.intp], FloatArray]:
        """``(points, exact, counts, inner)``.

        Shapes (k, m, 2) NaN-padded, (k, m, 2) or None, (k,) and (k, 4).
        """
        counts = np.array([len(e.points) for e in self.ends], dtype=np.intp)
        most = int(counts.max()) if len(counts) else 0
        points = np.full((len(self.ends), most, 2), np.nan)
        with_exact = any(e.exact is not None for e in self.ends)
        exact = np.full_like(points, np.nan) if with_exact else None
        for k, e in enumerate(self.ends):
            points[k, : len(e.points)] = e.points
            if exact is not None:
                exact[k, : len(e.points)] = e.points if e.exact is None else e.exact
        inner = np.array([e.inner for e in self.ends], dtype=np.float64).reshape(-1, 4)
        return points, exact, counts, inner


def _sources(
    built: BuiltScene,
    pairs: Sequence[TokenPair],
    attack: Attack,
    tokens: list[Token],
    ends_of: NDArray[np.intp],
    ends: _Ends,
) -> tuple[_Table, NDArray[np.intp], FloatArray, FloatArray]:
    """Each pair's source end (a row of the table), source box (q, 4) and span (q, 2)."""
    table = _Table()
    q = len(pairs)
    row = np.empty(q, dtype=np.intp)
    boxes = np.empty((q, 4), dtype=np.float64)
    spans = np.empty((q, 2), dtype=np.float64)
    if attack.kind == "area" and attack.origin is not None:
        for r, (attacker, target) in enumerate(pairs):
            box, span, _ = attack_source(built, attacker, target, attack)
            row[r] = table.add(ends.pair_source(attacker, target, box))
            boxes[r], spans[r] = box, span
        return table, row, boxes, spans
    if any(a is None for a, _ in pairs):
        raise RulesError("An area attack needs attack.origin or an attacker.", ("attack",))
    per_token = [ends.token_end(tok, "source") for tok in tokens]
    at_token = np.array(
        [-1 if e is None else table.add(e) for e in per_token], dtype=np.intp
    ).reshape(-1)
    token_boxes = np.array([built.token_boxes[t.id] for t in tokens], dtype=np.float64)
    token_spans = np.array([built.span(t) for t in tokens], dtype=np.float64)
    a = ends_of[:, 0]
    row[:] = at_token[a]
    for r in np.flatnonzero(row < 0).tolist():  # one end per pair (SF-COV-1's cut corners)
        attacker, target = pairs[r]
        row[r] = table.add(ends.pair_source(attacker, target, None))
    return table, row, token_boxes[a].reshape(-1, 4), token_spans[a].reshape(-1, 2)


def _shared(
    built: BuiltScene,
    pairs: Sequence[TokenPair],
    tokens: list[Token],
    ends_of: NDArray[np.intp],
    boxes: FloatArray,
    spans: FloatArray,
    from_origin: bool,
) -> tuple[dict[int, Sequence[str]], dict[int, frozenset[str]]]:
    """Who shares a space (5E-COV-7) and the whole excluded set, for the pairs that differ."""
    sharing = np.array([bool(built.sharing[t.id]) for t in tokens] + [False], dtype=bool)
    rows = (
        range(len(pairs))
        if from_origin
        else np.flatnonzero(sharing[ends_of[:, 0]] | sharing[ends_of[:, 1]]).tolist()
    )
    shared: dict[int, Sequence[str]] = {}
    excluded: dict[int, frozenset[str]] = {}
    for r in rows:
        attacker, target = pairs[r]
        box = (boxes[r, 0], boxes[r, 1], boxes[r, 2], boxes[r, 3])
        span = (float(spans[r, 0]), float(spans[r, 1]))
        who, excluded[r] = shared_space(built, attacker, target, box, from_origin, span)
        if who:
            shared[r] = who
    return shared, excluded


def plan_pairs(
    built: BuiltScene,
    pairs: Sequence[TokenPair],
    attack: Attack,
    pairing: Pairing,
    how: Sampling,
    walls: Callable[[FloatArray], WallChoices] | None = None,
) -> Plan:
    """The ``Plan`` of every ``(attacker, target)`` pair (attacker ``None``: an area's origin).

    Parameters
    ----------
    built : BuiltScene
    pairs : sequence of (Token or None, Token)
    attack : Attack
        An area with ``origin``: every pair's source is that point.
    pairing : {"paired", "every"}
        ``Pairs.pairing``.
    how : Sampling
        The ruleset's sample points.
    walls : callable, optional
        Each pair's wall choice from the pairs' source boxes (q, 4) px (default: every wall,
        low obstacles included).

    Returns
    -------
    Plan
        The band of each pair from the source's vertical extent to the target's (GEO-5a),
        every creature but the two blocking (GEO-7), less those sharing either space
        (5E-COV-7, ``shared_space``).

    Raises
    ------
    RulesError
        An area attack without ``attack.origin`` and without an attacker.
    """
    tokens, ends_of = distinct_tokens(pairs)
    ends = _Ends(built, how, attack.kind == "area")
    sources, source_row, boxes, spans = _sources(built, pairs, attack, tokens, ends_of, ends)
    from_origin = attack.kind == "area" and attack.origin is not None
    targets = _Table()
    target_row = np.array(
        [targets.add(ends.token_end(tok, "target") or _no_end(tok)) for tok in tokens],
        dtype=np.intp,
    ).reshape(-1)[ends_of[:, 1]]
    s_points, s_exact, s_count, s_inner = sources.arrays()
    t_points, t_exact, t_count, t_inner = targets.arrays()
    t_spans = np.array([built.span(t) for t in tokens], dtype=np.float64).reshape(-1, 2)
    t_spans = t_spans[ends_of[:, 1]]
    shared, excluded = _shared(built, pairs, tokens, ends_of, boxes, spans, from_origin)
    order = np.array([built.token_order.get(t.id, -1) for t in tokens] + [-1], dtype=np.intp)
    exact = s_exact is not None or t_exact is not None
    chosen = WallChoices() if walls is None else walls(boxes)
    notes = dict(chosen.notes)
    for r in np.flatnonzero([bool(e.notes) for e in sources.ends]).tolist():
        for p in np.flatnonzero(source_row == r).tolist():
            notes[p] = sources.ends[r].notes + notes.get(p, ())
    ragged = len(set(s_count.tolist())) > 1 or len(set(t_count.tolist())) > 1
    questions = Pairs(
        s_points[source_row],
        t_points[target_row],
        pairing,
        np.column_stack([spans[:, 0], t_spans[:, 0]]),
        np.column_stack([spans[:, 1], t_spans[:, 1]]),
        s_inner[source_row],
        t_inner[target_row],
        order[ends_of],
        [tok.id for tok in built.scene.tokens],
        excluded,
        (s_points if s_exact is None else s_exact)[source_row] if exact else None,
        (t_points if t_exact is None else t_exact)[target_row] if exact else None,
        n_sources=s_count[source_row] if ragged else None,
        n_targets=t_count[target_row] if ragged else None,
        walls=chosen.walls,
        wall_choice=chosen.choice,
    )
    return Plan(questions, shared, notes, boxes, from_origin)


def _no_end(token: Token) -> End:
    raise ValueError(f"the ruleset gives no target end for {token.id}")
