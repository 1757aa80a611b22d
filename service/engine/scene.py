"""The built scene: a canonical scene with its wall index, token spaces and region shapes.

What every geometry user works on; built once per scene and cached (``service.cache``).
Frames: scene pixels, y down; elevations in grid units.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Any, overload

import numpy as np
import shapely
from numpy.typing import NDArray

from schemas.suggest import token_hint
from service.engine.density import WallDensity, wall_density
from service.engine.grids import feet_to_units, token_space_box
from service.engine.levels import Surfaces, build_surfaces, resolve_levels
from service.engine.regions import region_edges, region_geometry
from service.engine.spaces import box_centre
from service.engine.tolerances import QUERY_TOL_PX
from service.engine.walls import (
    FloatArray,
    WallGrid,
    WallIndex,
    build_grid,
    build_wall_index,
    index_walls,
)
from service.errors import UnknownToken, shown
from service.model import Grid, Scene, Span, Token, Wall

#: Id prefix of the pseudo-walls outlining heavily obscured regions (sight only, 5E-VIS-2).
REGION_PREFIX = "\x00region:"


class Sharers(Sequence[str]):
    """Tokens of a space group, in scene order, less the pair's own two; listed when read.

    ``len`` and truth need no listing: the pair's two are always among ``ordered``.
    """

    __slots__ = ("_items", "_ordered", "_own")

    def __init__(self, ordered: tuple[str, ...], own: tuple[str, str]) -> None:
        self._ordered, self._own = ordered, own
        self._items: tuple[str, ...] | None = None

    def _listed(self) -> tuple[str, ...]:
        if self._items is None:
            self._items = tuple(x for x in self._ordered if x not in self._own)
        return self._items

    def __len__(self) -> int:
        return len(self._ordered) - len(set(self._own))

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        return self._listed()[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self._listed())

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Sequence) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Sharers({self._listed()!r})"


@dataclass(frozen=True)
class BuiltScene:
    """A scene with its built wall index; what the geometry and the rule systems work on.

    Attributes
    ----------
    scene : Scene
    walls : WallIndex
        Every wall, in scene order.
    token_boxes : dict of str to (x0, y0, x1, y1)
        Each token's space in px.
    tall_walls : ndarray of shape (n,), bool, or None
        Over ``walls`` (n indexed walls: identical copies count once).
        Walls that can block line of effect or sight: every wall but low obstacles
        (``cover: "low"``, about half a creature's height), which give cover but can be shot
        and seen over; ``None`` when the scene has no low wall.
    sight_walls : WallIndex or None
        The walls plus the outlines of heavily obscured regions (``None``: no such region).
    region_shapes : dict of str to shapely geometry
    token_order : dict of str to int
        Each token's index in ``scene.tokens``.
    sharing : dict of str to tuple of str
        For each token, the other tokens in the same space (the same squares, 5E-COV-7, and
        overlapping vertical extents, GEO-5a), in scene order; a creature whose space only
        partly overlaps, or that stands wholly above or below the other, is not among them
        (GEO-7).
    token_spans : dict of str to (bottom, top)
        Each token's vertical extent in grid units, ``[elevation, elevation + height)``
        (GEO-5a, ``vertical_span``).
    heights : bool
        Some wall (or heavy-fog outline) has a finite height range: traced lines can meet a
        wall that covers only part of their band (GEO-5a).
    surfaces : Surfaces or None
        The scene's floors (``service.engine.levels``, GEO-10), also kept on ``walls`` and
        ``sight_walls`` so that every trace meets them.
    source : Scene or None
        The scene as given, when giving its levels' ranges to their walls and regions
        changed it (``scene`` is the scene so resolved); its id and its changes are the
        given scene's (``service.cache``).
    density : WallDensity
        Walls per cell, for the cost model (``service.engine.density``).
    improved_walls, extreme_walls : frozenset of int
        Indices of the walls marked ``cover: "improved"`` or ``"extreme"`` (SF-COV-8 reads
        both as improved; PV-COV-2 gives greater cover behind ``extreme``).
    """

    scene: Scene
    walls: WallIndex
    token_boxes: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    tall_walls: NDArray[np.bool_] | None = None
    sight_walls: WallIndex | None = None
    region_shapes: dict[str, Any] = field(default_factory=dict)
    improved_walls: frozenset[int] = frozenset()
    extreme_walls: frozenset[int] = frozenset()
    token_order: dict[str, int] = field(default_factory=dict)
    density: WallDensity = field(default_factory=lambda: wall_density(np.empty((0, 4))))
    sharing: dict[str, tuple[str, ...]] = field(default_factory=dict)
    token_spans: dict[str, tuple[float, float]] = field(default_factory=dict)
    heights: bool = False
    surfaces: Surfaces | None = None
    source: Scene | None = None
    _creatures: Any = field(default=None, repr=False, compare=False)
    _space_sets: dict[Any, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)
    _space_order: dict[frozenset[str], tuple[str, ...]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def shared_with(self, attacker: str, target: str) -> tuple[Sharers, frozenset[str]]:
        """Who shares the attacker's or the target's space, and all that give no cover.

        ``(shared, excluded)`` of ``rules.base.shared_space`` between two tokens: ``shared``
        the other tokens in either space (``sharing``) in scene order, ``excluded`` those
        plus the two (5E-COV-7, GEO-7). Each space's set and its scene order are made once
        (one frozenset for all the tokens stacked on one square when their extents
        overlap), so a pair costs O(tokens in the two spaces) in C, not sets and a sort in
        Python; ``shared`` is listed only when read (``Sharers``). Kept: at most two entries
        per token.
        """
        t_set, a_set = self._space_of(target), self._space_of(attacker)
        excluded = t_set if t_set is a_set else t_set | a_set
        ordered = self._space_order.get(excluded)
        if ordered is None:
            ordered = tuple(sorted(excluded, key=self.token_order.__getitem__))
            if t_set is a_set:  # kept per space, not per pair of spaces
                self._space_order[excluded] = ordered
        return Sharers(ordered, (target, attacker)), excluded

    def _space_of(self, token: str) -> frozenset[str]:
        """``sharing[token]`` with the token, one frozenset for equal sets (``shared_with``)."""
        found = self._space_sets.get(token)
        if found is None:
            made = frozenset((*self.sharing[token], token))
            found = self._space_sets.setdefault(made, made)
            self._space_sets[token] = found
        return found

    def creatures(self) -> tuple[list[str], FloatArray, FloatArray, WallGrid]:
        """What ``trace`` reads of the creatures, in scene order, built once.

        Every token's id, space (k, 4) px, vertical extent (k, 2) grid units and the
        uniform grid over the spaces (``walls.build_grid``), for GEO-7; needs at least one
        token. Idempotent: two threads racing here build equal values and either one is kept.
        """
        if self._creatures is None:
            ids = [t.id for t in self.scene.tokens]
            boxes = np.array([self.token_boxes[t] for t in ids], dtype=np.float64).reshape(-1, 4)
            spans = np.array([self.span(t) for t in self.scene.tokens], dtype=np.float64)
            object.__setattr__(self, "_creatures", (ids, boxes, spans, build_grid(boxes)))
        return self._creatures  # type: ignore[no-any-return]

    def span(self, token: Token) -> tuple[float, float]:
        """A token's vertical extent ``(bottom, top)`` in grid units (GEO-5a)."""
        found = self.token_spans.get(token.id)
        return found if found is not None else vertical_span(token, self.scene.grid)

    @property
    def sight(self) -> WallIndex:
        """Walls for sight: the scene's walls plus the outlines of heavily obscured regions.

        A line crossing into or out of heavy obscurement (fog, ink) loses sight (5E-VIS-2).
        """
        return self.sight_walls if self.sight_walls is not None else self.walls

    def tall_mask(self, index: WallIndex) -> NDArray[np.bool_] | None:
        """``tall_walls`` for ``index`` (``walls`` or ``sight``); pseudo-walls are tall."""
        if self.tall_walls is None:
            return None
        extra = index.size - len(self.tall_walls)
        return np.concatenate([self.tall_walls, np.ones(extra, dtype=bool)])

    def centre(self, token: Token) -> tuple[float, float]:
        """Centre of a token's space, px."""
        return box_centre(self.token_boxes[token.id])


#: GEO-5a: a creature's height in feet by size, when the scene does not give it.
SIZE_HEIGHT_FT: dict[str, float] = {
    "tiny": 2.5,
    "small": 5.0,
    "medium": 5.0,
    "large": 10.0,
    "huge": 15.0,
    "gargantuan": 20.0,
}


def vertical_span(token: Token, grid: Grid) -> tuple[float, float]:
    """A creature's vertical extent ``(bottom, top)`` in grid units (GEO-5a).

    From its ``elevation`` up ``vertical_extent`` when set, else its size's height
    (``SIZE_HEIGHT_FT``, in feet, converted to the scene's units: ``feet_to_units``).
    """
    height = token.vertical_extent
    if height is None:
        height = feet_to_units(SIZE_HEIGHT_FT[token.size], grid)
    return (float(token.elevation), float(token.elevation) + float(height))


def build_scene(scene: Scene, walls: WallIndex | None = None) -> BuiltScene:
    """Build the ``BuiltScene`` of ``scene`` (wall arrays + STRtree, token spaces in px).

    Walls and regions of a level take its range (GEO-10, ``levels.resolve_levels``): the
    built scene's ``scene`` is the scene so resolved. ``walls``: the scene's wall index when
    it is already built (``service.cache`` keeps indexes by the walls' digest,
    ``docs/decisions.md`` "Live scenes"). Cost: O(walls log walls) for the tree (none with
    ``walls``), plus the outlines of heavily obscured regions and of the surfaces.
    """
    given, scene = scene, resolve_levels(scene)
    surfaces = build_surfaces(scene)
    if walls is None:
        walls = build_wall_index(scene, surfaces)
    shapes = {r.id: region_geometry(r.shape) for r in scene.regions}
    sight = sight_index(scene, walls, shapes, surfaces)
    built = assemble(scene, walls, shapes, sight, wall_kinds(walls), surfaces=surfaces)
    return built if given is scene else dataclasses.replace(built, source=given)


def assemble(
    scene: Scene,
    walls: WallIndex,
    shapes: dict[str, Any],
    sight: WallIndex | None,
    kinds: dict[str, Any],
    tokens: dict[str, Any] | None = None,
    surfaces: Surfaces | None = None,
) -> BuiltScene:
    """The ``BuiltScene`` of its built parts; the token parts are made unless given.

    ``kinds`` is ``wall_kinds(walls)``, ``tokens`` ``token_parts(scene)``. Cost: O(tokens)
    without ``tokens``, plus the wall density (O(walls)).
    """
    return BuiltScene(
        scene,
        walls,
        sight_walls=sight,
        region_shapes=shapes,
        density=wall_density((sight or walls).coords),
        heights=_has_heights(sight or walls),
        surfaces=surfaces,
        **kinds,
        **(tokens if tokens is not None else token_parts(scene)),
    )


def wall_kinds(walls: WallIndex) -> dict[str, Any]:
    """``tall_walls``, ``improved_walls`` and ``extreme_walls`` of ``walls``. O(walls)."""
    tall = None
    covers = list(map(attrgetter("cover"), walls.walls))
    kinds = set(covers)
    if "low" in kinds:
        tall = np.array([cover != "low" for cover in covers], dtype=bool)
    improved = extreme = frozenset[int]()
    if "improved" in kinds:
        improved = frozenset(i for i, c in enumerate(covers) if c == "improved")
    if "extreme" in kinds:
        extreme = frozenset(i for i, c in enumerate(covers) if c == "extreme")
    return {"tall_walls": tall, "improved_walls": improved, "extreme_walls": extreme}


def token_parts(scene: Scene) -> dict[str, Any]:
    """Each token's space, index, vertical extent and sharers (``BuiltScene``). O(tokens)."""
    boxes = {t.id: token_space_box(t, scene.grid) for t in scene.tokens}
    spans = {t.id: vertical_span(t, scene.grid) for t in scene.tokens}
    return {
        "token_boxes": boxes,
        "token_order": {t.id: k for k, t in enumerate(scene.tokens)},
        "sharing": _sharing(boxes, spans),
        "token_spans": spans,
    }


def sight_index(
    scene: Scene, walls: WallIndex, shapes: dict[str, Any], surfaces: Surfaces | None = None
) -> WallIndex | None:
    """The sight index: ``walls`` plus the outlines of heavy fog (``None`` without any).

    ``surfaces``: the scene's floors, kept on the index as on ``walls`` (GEO-10).

    Cost: O((walls + outline edges) log) when some region is heavily obscured, else O(1).
    """
    fog = [r for r in scene.regions if r.obscurement == "heavy"]
    if not fog:
        return None
    pseudo = list(walls.walls)
    for r in fog:
        height = Span(r.elevation.bottom, r.elevation.top) if r.elevation else None
        for k, c in enumerate(region_edges(r.id, shapes[r.id])):
            pseudo.append(
                Wall(
                    f"{REGION_PREFIX}{r.id}:{k}",
                    c,
                    move="none",
                    sight="normal",
                    light="none",
                    sound="none",
                    height=height,
                )
            )
    return index_walls(pseudo, scene.grid.px_per_unit, room_walls=walls.size, surfaces=surfaces)


def _has_heights(index: WallIndex) -> bool:
    """Whether some wall of ``index`` has a finite bottom or top (GEO-5)."""
    return bool(np.isfinite(index.bottom).any() or np.isfinite(index.top).any())


def _sharing(
    boxes: dict[str, tuple[float, float, float, float]],
    spans: dict[str, tuple[float, float]],
) -> dict[str, tuple[str, ...]]:
    """For each token, the other tokens in the same space (the same squares), in scene order.

    5E-COV-7 / GEO-7: only a creature in the same space is left out of the obstacles; one
    whose space partly overlaps (a Large creature beside a Medium one) still is one. Spaces
    are the same when their px boxes agree to ``QUERY_TOL_PX`` and their vertical extents
    overlap (GEO-5a, half-open ``[bottom, top)``: a creature flying wholly above another's
    square is not in its space). Cost: O(k log k) plus O(m²) within each group of m tokens
    on the same squares.
    """
    ids = list(boxes)
    out: dict[str, tuple[str, ...]] = {tid: () for tid in ids}
    groups: dict[tuple[float, ...], list[str]] = {}
    for tid in ids:
        key = tuple(round(v / QUERY_TOL_PX) * QUERY_TOL_PX for v in boxes[tid])
        groups.setdefault(key, []).append(tid)
    for members in groups.values():
        if len(members) > 1:
            for tid in members:
                out[tid] = tuple(
                    o for o in members if o != tid and _spans_overlap(spans[tid], spans[o])
                )
    return out


def _spans_overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two half-open vertical extents ``[bottom, top)`` overlap (GEO-5, GEO-5a)."""
    return a[0] < b[1] and b[0] < a[1]


def local_gravity(built: BuiltScene, token: Token) -> float:
    """Gravity X at a token's centre (5E-GRV-1..6 from the scene).

    The last region with ``gravity`` holding the centre, else ``environment.gravity``.
    """
    x, y = built.centre(token)
    gravity = built.scene.environment.gravity
    for region in built.scene.regions:
        if region.gravity is not None and shapely.intersects_xy(
            built.region_shapes[region.id], x, y
        ):
            gravity = region.gravity
    return gravity


def in_water(built: BuiltScene, token: Token) -> bool:
    """Whether a token's centre is under water (5E-UW-1..9 from the scene).

    ``environment.underwater``, or a ``water`` region holding the centre (within the region's
    elevation range when it has one).
    """
    if built.scene.environment.underwater:
        return True
    x, y = built.centre(token)
    for region in built.scene.regions:
        if region.water and shapely.intersects_xy(built.region_shapes[region.id], x, y):
            span = region.elevation
            if span is None or span.low <= token.elevation < span.high:  # GEO-5
                return True
    return False


def distinct_tokens(
    pairs: Sequence[tuple[Token | None, Token]],
) -> tuple[list[Token], NDArray[np.intp]]:
    """The distinct tokens of ``pairs`` (by id, first seen), and each pair's two rows (p, 2).

    A ``None`` end (an area's point of origin instead of an attacker) has row -1. O(pairs)
    in C-level passes (the ends, their ids, the first of each id, a look-up each): a
    200-token matrix's 79,600 ends in a few milliseconds.
    """
    ends = list(chain.from_iterable(pairs))
    ids: list[str | None]
    try:
        ids = list(map(_TOKEN_ID, ends))
    except AttributeError:  # an area's point of origin (None) among the ends
        ids = [None if tok is None else tok.id for tok in ends]
    # Each id's first token (written last when read backwards); an area's None is dropped.
    first: dict[str | None, Token] = dict(zip(reversed(ids), reversed(ends), strict=True))  # type: ignore[arg-type]
    first.pop(None, None)
    order = [tid for tid in dict.fromkeys(ids) if tid is not None]
    row: dict[str | None, int] = {tid: k for k, tid in enumerate(order)}
    row[None] = -1
    rows = np.fromiter(map(row.__getitem__, ids), dtype=np.intp, count=len(ids))
    return [first[tid] for tid in order], rows.reshape(-1, 2)


_TOKEN_ID = attrgetter("id")


def find_token(scene: Scene, token_id: str, path: tuple[str | int, ...]) -> Token:
    """The token ``token_id`` of ``scene``.

    Raises
    ------
    UnknownToken
        Naming the request field ``path`` (HTTP 404), and the nearest id or name of a
        token that is not hidden (``schemas.suggest.token_hint``).
    """
    tok = scene.token(token_id)
    if tok is None:  # never a hidden token's id or name: the asker may be a player
        hint = token_hint(token_id, [(t.id, t.name) for t in scene.tokens if not t.hidden])
        raise UnknownToken(f"No token with id {shown(token_id)} in the scene.{hint}", path)
    return tok
