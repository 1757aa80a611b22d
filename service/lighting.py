"""Light level at points and over token spaces (pure; no Flask).

Sources: the scene's ambient ``environment.light``, replaced inside a region with ``light``
(GEO-9: Foundry v12+ "Adjust Darkness Level"; the last such region in scene order that holds
the point decides, within its half-open elevation range ``[bottom, top)``, GEO-5); point
lights (``bright`` and outer ``dim`` radius in grid units, an emission cone of ``angle``
degrees facing ``rotation``); lights carried by tokens (from the token's centre); walls that
restrict light (GEO-1, GEO-3, GEO-4 thresholds) when a light is ``walls``-constrained;
magical darkness from regions with ``magical_darkness`` and from lights with
``darkness: true`` (their outer radius), where no light shines (5E-VIS-3, 5E-VIS-5).

Rotation follows Foundry VTT: degrees clockwise, 0 facing down the screen (+y).

Which lights shine (``shining_lights``), decided here for every ruleset:

- a scene light with ``on: false`` (switched off in the VTT: Foundry ``hidden``) lights
  nothing and is never listed in ``lights``;
- a scene light with ``seen_by: "controllers"`` (private) lights nothing for any observer:
  no observer controls a scene light;
- a token's carried light with ``seen_by: "controllers"`` lights only for the token that
  carries it, as observer (its own vision); not for other observers, and not in
  ``/v1/lighting``, which has no observer.

Lights add to the ambient level (the brightest applies); magical darkness darkens what it
covers wherever it lies.

References
----------
shared/RULES.md 5E-VIS-3..6, GEO-1..5, GEO-9; shared/API.md "Lighting".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import NDArray

from service.engine.budget import RAY_UNITS, WorkBudget
from service.engine.density import WallDensity
from service.engine.scene import BuiltScene
from service.engine.spaces import inset_box
from service.engine.tolerances import DEFAULT_CORNER_INSET_PX
from service.engine.walls import FloatArray
from service.geometry.trace import TraceSpec, trace
from service.geometry.walk import MAX_QUERY_PIECES, QUERY_PIECE_PX, estimate_tests
from service.model import LIGHT_LEVELS, Light, LightLevel, Span, Token

RANK = {level: k for k, level in enumerate(LIGHT_LEVELS)}  # dark 0, dim 1, bright 2

#: Most lattice points per side when sampling a token's space.
MAX_LATTICE = 9
#: Cells per side of the grids that count points and tokens in ``estimate_lighting_tests``.
ESTIMATE_CELLS = 64
#: ``refuse_early`` refuses a request whose early estimate passes this many times its
#: budget: the estimate is from counts alone (within about 10% on evenly spread lights and
#: points, up to a few times over on small scenes of few lights), so a request near the
#: budget is left to the exact estimate of its rays (``light_at_points``).
EARLY_MARGIN = 2.0


@dataclass(frozen=True)
class LightSample:
    """Light at one point or over one token's space.

    ``lights`` are the ids of the lights shining there (and of darkness sources covering it).
    """

    level: LightLevel
    magical_darkness: bool
    lights: tuple[str, ...]
    rules: tuple[str, ...]


def shining_lights(geo: BuiltScene, observer: Token | None = None) -> list[Light]:
    """The lights that shine for ``observer`` (``None``: no observer, ``/v1/lighting``).

    Scene lights that are ``on`` and seen by ``everyone``, plus token-carried lights
    (centred on the token at its elevation, wall-constrained, id = the token's id) seen by
    everyone or, for a private carried light (``seen_by: "controllers"``), only when
    ``observer`` carries it (see the module docstring).
    """
    out = [light for light in geo.scene.lights if light.on and light.seen_by == "everyone"]
    for tok in geo.scene.tokens:
        carried = tok.light
        if carried.bright <= 0 and carried.dim <= 0:
            continue
        if carried.seen_by != "everyone" and (observer is None or observer.id != tok.id):
            continue
        x0, y0, x1, y1 = geo.token_boxes[tok.id]
        out.append(
            Light(
                id=tok.id,
                x=(x0 + x1) / 2,
                y=(y0 + y1) / 2,
                bright=carried.bright,
                dim=carried.dim,
                elevation=tok.elevation,  # GEO-5a: carried at the bearer's elevation
            )
        )
    return out


_LightTable = tuple[FloatArray, FloatArray, FloatArray]
_last_table: tuple[list[Light], _LightTable] | None = None  # the last lights and their arrays


def light_table(lights: list[Light]) -> _LightTable:
    """``x``, ``y`` (px) and outer radius (grid units) of each light, arrays of shape (n,).

    A request gathers its lights once (``shining_lights``) and asks about many points and
    tokens with that same list: the arrays of the last list asked about are kept (per
    target, O(lights) in numpy, not in Python). The list must not change afterwards.
    """
    global _last_table
    entry = _last_table  # one read and one write of one reference: safe between threads
    if entry is None or entry[0] is not lights:
        entry = (
            lights,
            (
                np.array([light.x for light in lights], dtype=np.float64),
                np.array([light.y for light in lights], dtype=np.float64),
                np.array([max(light.bright, light.dim) for light in lights], dtype=np.float64),
            ),
        )
        _last_table = entry
    return entry[1]


def silent_light_notes(
    geo: BuiltScene, points: np.ndarray, observer: Token | None = None
) -> tuple[str, ...]:
    """Why lights within reach of ``points`` (px, shape (k, 2)) do not shine there.

    One note for each light whose outer radius reaches one of the points (walls aside)
    but which does not shine for ``observer`` (``shining_lights``): switched off, private
    scene light, or a private carried light of another token. For answers' ``notes``.
    """
    return silent_notes_at(geo, [points], observer)[0]


def silent_notes_at(
    geo: BuiltScene, point_sets: Sequence[np.ndarray], observer: Token | None = None
) -> list[tuple[str, ...]]:
    """``silent_light_notes`` of each set of points (each px, shape (k_i, 2)), in order.

    Cost: O(lights + tokens) to find the lights that do not shine, then O(points) per such
    light (vectorised): lights that shine cost nothing per point.
    """
    ppu = geo.scene.grid.px_per_unit
    silent: list[tuple[float, float, float, str]] = []  # x, y, outer radius (px), note
    for light in geo.scene.lights:
        if light.on and light.seen_by == "everyone":
            continue
        if not light.on:
            note = f"Light {light.id} is switched off (on: false): it lights nothing."
        else:
            note = (
                f"Light {light.id} is private (seen_by: controllers): no observer controls a "
                "scene light, so it lights nothing."
            )
        silent.append((light.x, light.y, max(light.bright, light.dim) * ppu, note))
    for tok in geo.scene.tokens:
        if not has_private_light(tok) or (observer is not None and observer.id == tok.id):
            continue
        x0, y0, x1, y1 = geo.token_boxes[tok.id]
        note = (
            f"{tok.id} carries a private light (seen_by: controllers): it lights only for {tok.id}."
        )
        silent.append(
            ((x0 + x1) / 2, (y0 + y1) / 2, max(tok.light.bright, tok.light.dim) * ppu, note)
        )
    sets = [np.asarray(p, dtype=np.float64).reshape(-1, 2) for p in point_sets]
    out: list[list[str]] = [[] for _ in sets]
    if silent and sets:
        pts = np.vstack(sets)
        owner = np.repeat(np.arange(len(sets)), [len(p) for p in sets])
        for x, y, outer, note in silent:
            if outer <= 0:
                continue
            within = np.hypot(pts[:, 0] - x, pts[:, 1] - y) <= outer
            for k in np.unique(owner[within]).tolist():
                out[k].append(note)
    return [tuple(notes) for notes in out]


def has_private_light(token: Token) -> bool:
    """Whether ``token`` carries a light only it sees (``seen_by: "controllers"``)."""
    carried = token.light
    return carried.seen_by != "everyone" and (carried.bright > 0 or carried.dim > 0)


def in_span(span: Span | None, elevation: np.ndarray) -> np.ndarray:
    """Whether each elevation (grid units) lies in ``span``, half-open ``[bottom, top)``.

    GEO-5: ``None`` (no height range) holds every elevation.
    """
    if span is None:
        return np.ones(elevation.shape, dtype=bool)
    return (elevation >= span.low) & (elevation < span.high)


def _in_cone(light: Light, dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """Whether offsets (px) from the light fall inside its emission cone."""
    if light.angle >= 360:
        return np.ones(dx.shape, dtype=bool)
    facing = math.radians(light.rotation)
    fx, fy = -math.sin(facing), math.cos(facing)  # rotation 0 faces +y (down)
    norm = np.hypot(dx, dy)
    cos = np.where(norm > 0, (dx * fx + dy * fy) / np.where(norm > 0, norm, 1), 1.0)
    return cos >= math.cos(math.radians(light.angle) / 2) - 1e-12


#: The rule every light sample follows (5E-VIS-3: bright, dim and darkness).
_LIGHT_RULE = "5E-VIS-3"

#: Rays from lights to points, one row per (light, point) pair in range, light-major: the
#: light's index in ``sources``, the point's index, and the ``RANK`` the light brings there.
_Rays = tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.int64]]


@dataclass
class _PointLight:
    """The light gathered at k points while ``light_at_points`` adds its sources.

    Attributes
    ----------
    level : ndarray (k,) of int
        ``RANK`` of the brightest light so far (the ambient or a region's ``light``).
    magical : ndarray (k,) of bool
        Magical darkness covers the point (5E-VIS-5).
    who : list of list of str
        Ids of the regions and lights that shine on (or darken) each point, in order.
    by_region : ndarray (k,) of bool
        A region's ``light`` replaced the ambient light (GEO-9).
    """

    level: NDArray[np.int64]
    magical: NDArray[np.bool_]
    who: list[list[str]]
    by_region: NDArray[np.bool_]

    def samples(self) -> list[LightSample]:
        """One ``LightSample`` per point: magical darkness makes it ``dark`` (5E-VIS-5)."""
        out = []
        for n in range(len(self.level)):
            point_rules = {_LIGHT_RULE}
            if self.by_region[n]:
                point_rules.add("GEO-9")
            best = int(self.level[n])
            if self.magical[n]:
                best = RANK["dark"]
                point_rules.add("5E-VIS-5")
            out.append(
                LightSample(
                    LIGHT_LEVELS[best],
                    bool(self.magical[n]),
                    tuple(self.who[n]),
                    tuple(sorted(point_rules)),
                )
            )
        return out


def light_at_points(
    geo: BuiltScene,
    points: np.ndarray,
    budget: WorkBudget | None = None,
    sources: list[Light] | None = None,
    elevations: np.ndarray | float = 0.0,
    span: tuple[float, float] | None = None,
) -> list[LightSample]:
    """Light level at each point.

    The ambient level is the scene's, or a ``light`` region's where one holds the point
    (GEO-9); each light that reaches the point adds its level (the brightest applies): its
    radii are measured in 3-D, from the light's elevation to the point's elevation or the
    nearest height of ``span`` (GEO-5a: a lamp 100 ft up with a 10-ft radius lights nothing
    on the ground);
    magical darkness makes the point ``dark`` (5E-VIS-3/5).

    Parameters
    ----------
    geo : BuiltScene
    points : ndarray of shape (k, 2)
        Scene px.
    budget : WorkBudget, optional
        The request's budget of line-wall tests (``service.engine.budget``).
    sources : list of Light, optional
        The lights that shine (``shining_lights``); default: those with no observer.
    elevations : float or ndarray of shape (k,)
        Grid units of the points, against the regions' height ranges (GEO-5); default 0.
    span : (bottom, top), optional
        Vertical extent in grid units of what the points light (a token's, GEO-5a); default
        each point's own elevation. Each ray is a band from the light's elevation (no
        thickness) to it: a wall blocks the light only where its height range holds the
        whole band (GEO-5).

    Returns
    -------
    list of LightSample, length k

    Raises
    ------
    OverBudget
        The light rays to trace would pass ``budget``.

    Cost: O(lights) to skip far lights, O(points) per light in reach, one vectorised trace
    of the (light, point) pairs in range.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    elev = np.broadcast_to(np.asarray(elevations, dtype=np.float64), (len(pts),))
    lit = _region_light(geo, pts, elev)
    sources = shining_lights(geo) if sources is None else sources
    rays = _rays_in_reach(geo, pts, elev, sources, span)
    if rays is not None:
        blocked, floors = _blocked_rays(geo, pts, elev, sources, span, rays, budget)
        _add_lights(lit, sources, rays, blocked, floors)
    return lit.samples()


def _region_light(geo: BuiltScene, pts: FloatArray, elev: FloatArray) -> _PointLight:
    """The scene's ambient light at each point, as the regions set it (GEO-5, GEO-9).

    A region's ``light`` replaces the ambient light where it holds the point within its
    height range; where regions of different ``light`` overlap, the darkest wins, whatever
    their order (GEO-9 "overlapping regions"); a ``magical_darkness`` region darkens it.
    """
    k = len(pts)
    lit = _PointLight(
        level=np.full(k, RANK[geo.scene.environment.light], dtype=np.int64),
        magical=np.zeros(k, dtype=bool),
        who=[[] for _ in range(k)],
        by_region=np.zeros(k, dtype=bool),
    )
    for region in geo.scene.regions:
        if not (region.magical_darkness or region.light is not None):
            continue
        inside = shapely.intersects_xy(geo.region_shapes[region.id], pts[:, 0], pts[:, 1])
        inside &= in_span(region.elevation, elev)
        if region.light is not None:  # GEO-9: replaces the ambient light, the darkest wins
            first = inside & ~lit.by_region
            lit.level[first] = RANK[region.light]
            lit.level[inside] = np.minimum(lit.level[inside], RANK[region.light])
            lit.by_region |= inside
        if region.magical_darkness:
            lit.magical |= inside
            for i in np.nonzero(inside)[0]:
                lit.who[i].append(region.id)
    return lit


def _near_lights(pts: FloatArray, sources: list[Light], ppu: float) -> list[int]:
    """Indices of the lights with a radius whose reach meets the points' bounding box."""
    if not sources:
        return []
    lo, hi = (pts.min(axis=0), pts.max(axis=0)) if len(pts) else (np.zeros(2), np.zeros(2))
    lx, ly, radius = light_table(sources)
    reach_px = radius * ppu
    near = (radius > 0) & (lo[0] - reach_px <= lx) & (lx <= hi[0] + reach_px)
    near &= (lo[1] - reach_px <= ly) & (ly <= hi[1] + reach_px)
    return np.flatnonzero(near).tolist()  # type: ignore[no-any-return]


def _rays_in_reach(
    geo: BuiltScene,
    pts: FloatArray,
    elev: FloatArray,
    sources: list[Light],
    span: tuple[float, float] | None,
) -> _Rays | None:
    """The (light, point) pairs within each light's outer radius and cone, or ``None``.

    GEO-5a: the reach is measured in 3-D, to the nearest height of what the light lights
    (``span``, or each point's own elevation). Per light, the points are tested in one
    vectorised step; lights far from every point are skipped at once (``_near_lights``).
    """
    ppu = geo.scene.grid.px_per_unit
    lis: list[NDArray[np.intp]] = []
    pis: list[NDArray[np.intp]] = []
    lvls: list[NDArray[np.int64]] = []
    for li in _near_lights(pts, sources, ppu):
        light = sources[li]
        dx = pts[:, 0] - light.x
        dy = pts[:, 1] - light.y
        if span is None:
            dz = np.abs(elev - light.elevation)
        else:
            dz = np.full(len(pts), max(0.0, span[0] - light.elevation, light.elevation - span[1]))
        dist_units = np.hypot(np.hypot(dx, dy) / ppu, dz)
        idx = np.flatnonzero((dist_units <= max(light.bright, light.dim)) & _in_cone(light, dx, dy))
        if not len(idx):
            continue
        bright = (dist_units[idx] <= light.bright) if light.bright > 0 else np.zeros(len(idx), bool)
        lis.append(np.full(len(idx), li, dtype=np.intp))
        pis.append(idx)
        lvls.append(np.where(bright, RANK["bright"], RANK["dim"]).astype(np.int64))
    if not lis:
        return None
    return np.concatenate(lis), np.concatenate(pis), np.concatenate(lvls)


def _blocked_rays(
    geo: BuiltScene,
    pts: FloatArray,
    elev: FloatArray,
    sources: list[Light],
    span: tuple[float, float] | None,
    rays: _Rays,
    budget: WorkBudget | None,
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Whether a wall restricting light blocks each ray (GEO-1, GEO-3, GEO-4, GEO-5/5a).

    A light is a band of no thickness at its elevation; the ray runs from it to the lit
    span (or the point's elevation), and a wall blocks only where its height range holds
    the whole band. With ``budget``: ``RAY_UNITS`` per ray are afforded before the rays are
    made, then the trace's estimated tests.

    Returns the rays blocked (by walls or floors) and those a floor blocks (GEO-10), each
    shape (r,) bool.
    """
    li_all, pi_all, _ = rays
    if budget is not None:  # each ray's own work, before the rays are made
        budget.afford(RAY_UNITS * len(pi_all))
    xy = np.array([(light.x, light.y) for light in sources])[li_all]
    seg_arr = np.hstack([xy, pts[pi_all]])
    if budget is not None:
        budget.afford(estimate_tests(geo.density, seg_arr) + RAY_UNITS * len(seg_arr))
    lz = np.array([light.elevation for light in sources], dtype=np.float64)[li_all]
    if span is None:
        bottom = top = elev[pi_all]
    else:
        bottom, top = np.full_like(lz, span[0]), np.full_like(lz, span[1])
    bands = np.column_stack([lz, bottom, lz, top])
    traced = trace(
        geo.walls,
        seg_arr,
        TraceSpec(sense="light", low_obstacles=False),
        origins=xy,
        elevations=bands,
        budget=budget,
    )
    floors = traced.floor_blocked
    return traced.wall_blocked, np.zeros(len(seg_arr), bool) if floors is None else floors


def _add_lights(
    lit: _PointLight,
    sources: list[Light],
    rays: _Rays,
    blocked: NDArray[np.bool_],
    floors: NDArray[np.bool_],
) -> None:
    """Add each ray's light to its point (in place): the brightest applies.

    A ``walls``-constrained light stops at a blocking wall; no light shines through a floor
    (GEO-10), whether it is constrained by walls or not; a darkness light marks magical
    darkness instead (5E-VIS-5). Light-major, as the answer lists the lights.
    """
    li_all, pi_all, lvl_all = rays
    for li, pi, lvl, is_blocked, floor in zip(
        li_all.tolist(),
        pi_all.tolist(),
        lvl_all.tolist(),
        blocked.tolist(),
        floors.tolist(),
        strict=True,
    ):
        light = sources[li]
        if (light.walls and is_blocked) or floor:
            continue
        lit.who[pi].append(light.id)
        if light.darkness:
            lit.magical[pi] = True
            continue
        lit.level[pi] = max(int(lit.level[pi]), lvl)


def token_sample_points(
    geo: BuiltScene, token: Token, sources: list[Light] | None = None
) -> np.ndarray:
    """Points sampling a token's space, shape (n, 2).

    A lattice of 2w+1 by 2h+1 points over the space (inset 0.5 px) plus, for each light, the
    point of the space nearest to it, so that a light whose edge just touches the space is
    found.
    """
    x0, y0, x1, y1 = inset_box(geo.token_boxes[token.id], DEFAULT_CORNER_INSET_PX)
    # Two samples per square, at most MAX_LATTICE per side (a 1000-square token must not
    # cost millions of points: the per-light nearest points find the lit edges anyway).
    nx = min(MAX_LATTICE, max(1, math.ceil(token.width)) * 2 + 1)
    ny = min(MAX_LATTICE, max(1, math.ceil(token.height)) * 2 + 1)
    xs, ys = np.meshgrid(np.linspace(x0, x1, nx), np.linspace(y0, y1, ny))
    lattice = np.column_stack([xs.ravel(), ys.ravel()])
    ppu = geo.scene.grid.px_per_unit
    lights = shining_lights(geo) if sources is None else sources
    if not lights:
        return lattice
    lx, ly, outer = light_table(lights)
    near = np.column_stack([np.clip(lx, x0, x1), np.clip(ly, y0, y1)])
    reach = np.hypot(near[:, 0] - lx, near[:, 1] - ly) <= outer * ppu
    return np.vstack([lattice, near[reach]])  # only lights that reach the space add a point


def light_over_token(
    geo: BuiltScene,
    token: Token,
    budget: WorkBudget | None = None,
    observer: Token | None = None,
    sources: list[Light] | None = None,
) -> LightSample:
    """The brightest level over a token's space (API.md "Lighting").

    Sampled at the token's ``elevation`` against the regions' height ranges (GEO-5, GEO-9).
    ``observer``: whose private carried light also shines (``shining_lights``); ``None``
    for ``/v1/lighting``. ``sources``: ``shining_lights(geo, observer)`` when the caller has
    it already (it scans every token: callers asking about many tokens gather it once).
    Magical darkness is reported when it covers every sampled point of the space.
    """
    if sources is None:
        sources = shining_lights(geo, observer)  # once for both steps below
    samples = light_at_points(
        geo,
        token_sample_points(geo, token, sources),
        budget,
        sources,
        token.elevation,
        geo.span(token),
    )
    best = max(samples, key=lambda s: RANK[s.level])
    magical = all(s.magical_darkness for s in samples)
    lights = tuple(dict.fromkeys(i for s in samples for i in s.lights))
    rules = tuple(sorted({r for s in samples for r in s.rules}))
    return LightSample(best.level, magical, lights, rules)


class _BoxCount:
    """Weighted count of points in axis-aligned boxes, O(1) per box after an O(n) set-up.

    The points are binned on a grid of ``cells`` x ``cells`` over their extent; a box counts
    the cells it covers, its sides rounded to the nearest cell boundary (an estimate).
    """

    def __init__(self, xy: FloatArray, weights: FloatArray | None = None, cells: int = 0) -> None:
        cells = cells or ESTIMATE_CELLS
        self.lo = xy.min(axis=0)
        self.cell = np.maximum(xy.max(axis=0) - self.lo, 1.0) * (1 + 1e-9) / cells
        self.cells = cells
        ij = np.clip(np.floor((xy - self.lo) / self.cell).astype(np.intp), 0, cells - 1)
        grid = np.zeros((cells + 1, cells + 1))
        np.add.at(grid, (ij[:, 0] + 1, ij[:, 1] + 1), 1.0 if weights is None else weights)
        self.sums = grid.cumsum(axis=0).cumsum(axis=1)

    def count(self, cx: FloatArray, cy: FloatArray, half: FloatArray) -> FloatArray:
        """Weight of the points in the squares of centre (cx, cy) and half side ``half``."""
        i0, i1 = (
            np.clip(np.rint((c - self.lo[0]) / self.cell[0]), 0, self.cells).astype(np.intp)
            for c in (cx - half, cx + half)
        )
        j0, j1 = (
            np.clip(np.rint((c - self.lo[1]) / self.cell[1]), 0, self.cells).astype(np.intp)
            for c in (cy - half, cy + half)
        )
        s = self.sums
        return s[i1, j1] - s[i0, j1] - s[i1, j0] + s[i0, j0]  # type: ignore[no-any-return]

    def in_disc(self, cx: FloatArray, cy: FloatArray, radius: FloatArray) -> FloatArray:
        """About the weight of the points within ``radius`` of each centre.

        Between the counts of the inscribed and circumscribed squares: for points spread
        evenly the disc holds ``pi/4`` of the outer square, that is the inner square's count
        plus ``(pi/4 - 1/2) / (1/2)`` of the rest; exact when they agree.
        """
        outer = self.count(cx, cy, radius)
        inner = self.count(cx, cy, radius / math.sqrt(2))
        return inner + (math.pi / 2 - 1) * (outer - inner)  # type: ignore[no-any-return]


def _mean_walls(
    density: WallDensity, cx: FloatArray, cy: FloatArray, half: FloatArray
) -> FloatArray:
    """Mean of ``density`` (walls covering a cell) over each square, clipped to its grid."""
    cover = density.cover.astype(np.float64)
    n = cover.shape[0]
    sums = np.zeros((n + 1, n + 1))
    sums[1:, 1:] = cover.cumsum(axis=0).cumsum(axis=1)

    def cells(c: FloatArray, origin: float, size: float) -> NDArray[np.intp]:
        return np.clip(np.rint((c - origin) / size), 0, n).astype(np.intp)

    # At least one cell each way: a square off the grid takes its nearest edge cells.
    i0 = np.minimum(cells(cx - half, density.x0, density.cell_w), n - 1)
    i1 = np.maximum(cells(cx + half, density.x0, density.cell_w), i0 + 1)
    j0 = np.minimum(cells(cy - half, density.y0, density.cell_h), n - 1)
    j1 = np.maximum(cells(cy + half, density.y0, density.cell_h), j0 + 1)
    total = sums[i1, j1] - sums[i0, j1] - sums[i1, j0] + sums[i0, j0]
    return total / ((i1 - i0) * (j1 - j0))  # type: ignore[no-any-return]


def estimate_lighting_tests(
    geo: BuiltScene, points: FloatArray, tokens: list[Token], sources: list[Light] | None = None
) -> float:
    """About how many line-wall tests ``/v1/lighting`` at ``points`` and over ``tokens`` costs.

    Estimated from the counts alone, before any (light, point) ray is made, so a
    request far over its budget is refused at once. For each light that shines: the points
    within its reach (elevation 0, GEO-5a in 3-D; a cone's share of them), counted on a
    grid; the sample points of the tokens within its reach (their lattice, and one nearest
    point per light that reaches them, ``token_sample_points``); each of those rays costs
    ``1 + RAY_UNITS + walls x pieces`` units (``walk.estimate_tests``, and the ray's own
    work, ``budget.RAY_UNITS``), with the walls a piece meets
    averaged over the light's reach (``WallDensity``) and a ray two thirds of its reach
    long (the mean distance to a point spread over a disc).

    Parameters
    ----------
    geo : BuiltScene
    points : ndarray of shape (k, 2)
        Scene px.
    tokens : list of Token
        The tokens whose spaces are lit.
    sources : list of Light, optional
        The lights that shine; default ``shining_lights(geo)``.

    Returns
    -------
    float
        Estimated tests: an estimate of what ``light_at_points`` and ``light_over_token``
        afford, not a bound.

    Cost: O(lights + points + tokens + ESTIMATE_CELLS^2).
    """
    sources = shining_lights(geo) if sources is None else sources
    if not sources or (not len(points) and not tokens):
        return 0.0
    ppu = geo.scene.grid.px_per_unit
    lx = np.array([light.x for light in sources], dtype=np.float64)
    ly = np.array([light.y for light in sources], dtype=np.float64)
    outer = np.array([max(light.bright, light.dim) for light in sources], dtype=np.float64)
    lz = np.array([light.elevation for light in sources], dtype=np.float64)
    share = np.array([min(light.angle, 360.0) / 360.0 for light in sources])
    # GEO-5a: a light at elevation z reaches ground points within sqrt(r^2 - z^2).
    ground = np.sqrt(np.maximum(outer**2 - lz**2, 0.0)) * ppu
    rays = np.zeros(len(sources))
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts):
        rays += _BoxCount(pts).in_disc(lx, ly, ground) * share
    if tokens:
        boxes = np.array([geo.token_boxes[t.id] for t in tokens], dtype=np.float64)
        centres = (boxes[:, 0:2] + boxes[:, 2:4]) / 2
        half = np.max(boxes[:, 2:4] - boxes[:, 0:2], axis=1).mean() / 2
        lattice = np.array(
            [
                min(MAX_LATTICE, max(1, math.ceil(t.width)) * 2 + 1)
                * min(MAX_LATTICE, max(1, math.ceil(t.height)) * 2 + 1)
                for t in tokens
            ],
            dtype=np.float64,
        )
        reach = outer * ppu + half  # a light reaching any part of the space
        near = _BoxCount(centres).in_disc(lx, ly, reach)
        samples = _BoxCount(centres, lattice).in_disc(lx, ly, reach)
        # Each token reached by L lights gets L nearest points, each lit by about L lights:
        # sum of L^2 over the tokens, at least (sum of L)^2 / tokens, spread over the lights.
        mean_lights = near.sum() / len(tokens)
        rays += samples + near * mean_lights
    walls = _mean_walls(geo.density, lx, ly, outer * ppu)
    pieces = np.clip(2 / 3 * outer * ppu / QUERY_PIECE_PX + 0.5, 1, MAX_QUERY_PIECES)
    return float((rays * (1 + RAY_UNITS + walls * pieces)).sum())


def refuse_early(
    geo: BuiltScene, points: FloatArray, tokens: list[Token], budget: WorkBudget | None
) -> None:
    """Refuse ``/v1/lighting`` before any ray is made when it is far over ``budget``.

    Raises
    ------
    OverBudget
        When ``estimate_lighting_tests`` passes ``EARLY_MARGIN`` times what is left of the
        budget, saying the estimate (docs/decisions.md "Bounded work"). Cost: that of the
        estimate.
    """
    if budget is None:
        return
    units = estimate_lighting_tests(geo, points, tokens)
    if budget.used + units > EARLY_MARGIN * budget.limit:
        raise budget.refusal(budget.used + units)
