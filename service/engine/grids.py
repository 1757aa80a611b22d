"""Grids and distances (GEO-8): square, gridless and hex lattices, token footprints, feet.

The one distance between two creatures that every ruleset and endpoint uses (vision and
detection ranges, reach and flanking, range bands, matrices) is ``space_distance_units``.

Units: positions in scene px (y down); distances in the scene's grid units
(``Grid.distance`` units per square or hex, ``Grid.units`` feet or metres).

Grids (``Grid.type``, FORMATS.md A.2 and pitfall 12):

- ``square``: squares of ``size`` px from the scene's (0, 0). Two spaces are as far apart as
  a move counts squares between their nearest squares, with the diagonal rule
  (``Grid.diagonals``, else the ruleset's default). A creature smaller than a square (tiny)
  counts from the square that holds its centre.
- ``gridless``: nothing snaps. The distance is the ruler's: the shortest gap between the two
  spaces plus one square (``Grid.distance``), so that creatures whose spaces touch are one
  square (5 ft) apart, as on a grid and as Foundry's dnd5e and pf2e systems measure between
  token centres on a gridless scene (docs/decisions.md, "Gridless distance"). No rounding.
- ``hex-row`` (Foundry HEXODDR 2 / HEXEVENR 3: pointy-topped hexes, rows offset) and
  ``hex-col`` (HEXODDQ 4 / HEXEVENQ 5: flat-topped, columns offset). ``size`` is the px
  between the centres of two adjacent hexes (the hex's short diagonal, Foundry v10+);
  ``Grid.hex_offset`` says whether odd (Foundry's ODD types) or even rows/columns are
  shifted by half a hex. The lattice's origin is the scene's (0, 0), as Foundry v12+ lays
  its hex grid on the canvas (the scene rectangle's padding is a whole number of strides).
  Distances count hexes between the nearest hexes of the two spaces (Foundry's cube
  distance); diagonals do not arise on hexes.

Hex cells are named by axial coordinates ``(q, r)`` (cube ``s = -q - r``): for ``hex-row``,
``r`` is the row and ``q`` runs along it; for ``hex-col``, ``q`` is the column and ``r``
runs down it (Foundry's ``HexagonalGrid`` cube convention).

References
----------
shared/RULES.md GEO-8, SF-FLK-1, PV-RNG-1/2, PV-MEL-1; shared/FORMATS.md A.1, A.2, A.4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import core_limit
from service.engine.tolerances import SQUARE_COUNT_TOL
from service.errors import OverBudget, shown
from service.model import Grid, Token

FloatArray = NDArray[np.float64]
Box = tuple[float, float, float, float]
Cell = tuple[int, int]

#: Feet in one square: the rules' distances are given in feet (GEO-8).
FEET_PER_SQUARE = 5.0
#: Metres standing for 5 ft on a metric scene (GEO-8: 1.5 m per 5 ft).
METRES_PER_SQUARE = 1.5
#: Reach of a creature whose token does not say (PV-MEL-1, SF-FLK-1: usually 5 ft).
DEFAULT_REACH_FT = 5.0
#: A footprint with more hexes than this is measured from its rim hexes only.
MAX_FOOTPRINT_CELLS = 4096
#: Most hexes one token may cover on a hex grid (``hex_count``) is the setting
#: ``SIGHTLINE_MAX_HEX_FOOTPRINT`` (``core_limit``): a footprint is a list of hexes, and
#: distances, corners and flanking on hexes work over it, so a bigger creature (e.g. 1000 by
#: 1000 squares, about 750,000 hexes) is refused with a 422 naming it.

SQRT3 = math.sqrt(3.0)


# ---------------------------------------------------------------------------- units


def feet_to_units(feet: float, grid: Grid) -> float:
    """A distance the rules give in feet, in the scene's units (GEO-8).

    ``ft`` scenes take it as is; ``m`` scenes take 1.5 m per 5 ft (30 ft -> 9 m).
    """
    if grid.units == "m":
        return feet * METRES_PER_SQUARE / FEET_PER_SQUARE
    return feet


def units_to_feet(units: float, grid: Grid) -> float:
    """The inverse of ``feet_to_units``: scene units in feet (for tables kept in feet)."""
    if grid.units == "m":
        return units * FEET_PER_SQUARE / METRES_PER_SQUARE
    return units


def reach_units(token: Token, grid: Grid) -> float:
    """A creature's reach in scene units: its token's ``reach``, else 5 ft converted."""
    if token.reach is not None:
        return token.reach
    return feet_to_units(DEFAULT_REACH_FT, grid)


def diagonal_rule(grid: Grid, default: str) -> str:
    """The diagonal rule in force (GEO-8): the scene's when it sets one, else ``default``."""
    return grid.diagonals if grid.diagonals is not None else default


def is_hex(grid: Grid) -> bool:
    """Whether the scene's grid is a hex grid (``hex-row`` or ``hex-col``)."""
    return grid.type in ("hex-row", "hex-col")


# ---------------------------------------------------------------------------- hex lattice


@dataclass(frozen=True)
class HexLattice:
    """A hex grid's geometry in px (see the module docstring for the conventions).

    Attributes
    ----------
    columns : bool
        ``True`` for ``hex-col`` (flat-topped hexes in columns), ``False`` for ``hex-row``.
    size : float
        px between the centres of adjacent hexes.
    even : bool
        Even rows (columns) are the shifted ones (Foundry HEXEVENR / HEXEVENQ).
    """

    columns: bool
    size: float
    even: bool

    @property
    def radius(self) -> float:
        """Px from a hex's centre to each of its six vertices (``size / sqrt 3``)."""
        return self.size / SQRT3

    @property
    def size_x(self) -> float:
        """Width of one hex's bounding box, px."""
        return 2 * self.radius if self.columns else self.size

    @property
    def size_y(self) -> float:
        """Height of one hex's bounding box, px."""
        return self.size if self.columns else 2 * self.radius

    def _shift(self) -> float:
        return self.size / 2 if self.even else 0.0

    def centres(self, cells: NDArray[np.int64]) -> FloatArray:
        """Centres in px of hexes given as axial ``(q, r)`` rows, shape (k, 2)."""
        q = cells[:, 0].astype(np.float64)
        r = cells[:, 1].astype(np.float64)
        if self.columns:
            x = self.radius + q * 1.5 * self.radius
            y = self.size * (r + q / 2) + self._shift()
        else:
            x = self.size * (q + r / 2) + self._shift()
            y = self.radius + r * 1.5 * self.radius
        return np.stack([x, y], axis=1)

    def cells_at(self, points: FloatArray) -> NDArray[np.int64]:
        """Axial ``(q, r)`` of the hexes holding each point ``(x, y)`` px, shape (k, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if self.columns:
            qf = (pts[:, 0] - self.radius) / (1.5 * self.radius)
            rf = (pts[:, 1] - self._shift()) / self.size - qf / 2
        else:
            rf = (pts[:, 1] - self.radius) / (1.5 * self.radius)
            qf = (pts[:, 0] - self._shift()) / self.size - rf / 2
        return _cube_round(qf, rf)

    def vertex_directions(self) -> FloatArray:
        """Unit vectors from a hex's centre to its six vertices, clockwise (y down), (6, 2).

        ``hex-row`` (pointy): from the top vertex; ``hex-col`` (flat): from the right one.
        """
        start = 0.0 if self.columns else -90.0
        angles = np.radians(start + 60.0 * np.arange(6))
        return np.stack([np.cos(angles), np.sin(angles)], axis=1)

    def vertices(self, cell: Cell) -> FloatArray:
        """The six vertices in px of one hex, clockwise (``vertex_directions``), (6, 2)."""
        (centre,) = self.centres(np.array([cell], dtype=np.int64))
        return centre + self.radius * self.vertex_directions()


def _cube_round(qf: FloatArray, rf: FloatArray) -> NDArray[np.int64]:
    """Round fractional axial coordinates to the hex holding them (cube rounding)."""
    sf = -qf - rf
    # Halves round up, as Foundry's Math.round does (numpy's round goes to even).
    q, r, s = np.floor(qf + 0.5), np.floor(rf + 0.5), np.floor(sf + 0.5)
    dq, dr, ds = np.abs(q - qf), np.abs(r - rf), np.abs(s - sf)
    fix_q = (dq > dr) & (dq > ds)
    fix_r = ~fix_q & (dr > ds)
    q = np.where(fix_q, -r - s, q)
    r = np.where(fix_r, -q - s, r)
    return np.stack([q, r], axis=1).astype(np.int64)


def lattice(grid: Grid) -> HexLattice | None:
    """The hex lattice of a hex grid, ``None`` for square and gridless grids."""
    if not is_hex(grid):
        return None
    return HexLattice(grid.type == "hex-col", grid.size, grid.hex_offset == "even")


def hex_distance(a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.int64]:
    """Hexes between axial cells ``a`` and ``b`` (broadcast), Foundry's cube distance."""
    dq = a[..., 0] - b[..., 0]
    dr = a[..., 1] - b[..., 1]
    return (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2


# ---------------------------------------------------------------------------- footprints


@lru_cache(maxsize=256)
def _ellipse_rows(width: int, height: int) -> tuple[tuple[float, int], ...]:
    """Foundry v12+'s default hex token shape (``ELLIPSE_1``), row orientation.

    Each row of hexes, top to bottom, as (offset of its first hex from the token's left
    edge in hexes, number of hexes). The widest row has ``width`` hexes; the shape widens
    by one hex a row for ``(height - 1) // 2`` rows below the first and narrows by one hex a
    row for the last ``height // 2`` rows (a 2-hex token is two hexes over one, a 3-hex
    token a hexagon of seven, a 4-hex token 3-4-3-2).
    """
    grow, shrink = (height - 1) // 2, height // 2
    count = width - grow
    offset = grow / 2
    rows = [(offset, count)]
    for _ in range(grow):
        offset -= 0.5
        count += 1
        rows.append((offset, count))
    for _ in range(shrink):
        offset += 0.5
        count -= 1
        rows.append((offset, count))
    return tuple(rows)


def _shape_centres(token: Token, lat: HexLattice) -> FloatArray:
    """Centres in px of the hexes Foundry v12+ draws a hex token over (``ELLIPSE_1``).

    A token whose footprint Foundry draws as a shape (whole numbers of hexes, the ellipse
    defined for that width and height) gets the shape's hexes; any other token the centre
    of its box (its hexes are then those whose centres lie in its box, see ``footprint``).
    """
    # In the rows' frame: "along" runs along a row of hexes, "across" from row to row.
    along, across = (token.height, token.width) if lat.columns else (token.width, token.height)
    whole = float(along).is_integer() and float(across).is_integer()
    if not whole or across >= 2 * along:
        return np.empty((0, 2))
    rows = _ellipse_rows(int(along), int(across))
    offsets = np.array([offset for offset, _ in rows], dtype=np.float64)
    counts = np.array([count for _, count in rows], dtype=np.int64)
    # Hex m of row k, row by row (the same sums as one hex at a time, in one pass).
    k = np.repeat(np.arange(len(rows)), counts)
    m = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    a = (offsets[k] + 0.5 + m) * lat.size
    c = lat.radius + k * (1.5 * lat.radius)
    pts = np.column_stack((c, a) if lat.columns else (a, c))
    return pts + np.array([token.x, token.y])


def token_extent(token: Token, grid: Grid) -> tuple[float, float]:
    """Width and height in px of a token's box (FORMATS.md A.4; Foundry v12+ on hexes).

    Squares and gridless: ``width``/``height`` squares of ``size`` px. Hexes: ``width``
    hex widths by ``height`` hex heights, the rows interleaving (three quarters of a hex
    height per further whole row).
    """
    lat = lattice(grid)
    if lat is None:
        return token.width * grid.size, token.height * grid.size
    w, h = token.width, token.height
    if lat.columns:
        w = 0.75 * math.floor(w) + 0.5 * (w % 1) + 0.25 if w >= 1 else w
    else:
        h = 0.75 * math.floor(h) + 0.5 * (h % 1) + 0.25 if h >= 1 else h
    return w * lat.size_x, h * lat.size_y


def hex_count(token: Token, grid: Grid) -> int:
    """How many hexes ``footprint`` gives ``token`` (at most; exact for whole-hex shapes).

    Cost: O(rows) for a whole-hex shape (``_ellipse_rows``), O(1) otherwise; no hex is
    listed, so a huge token is measured before its footprint is built. Square or gridless
    grids: 0.
    """
    lat = lattice(grid)
    if lat is None:
        return 0
    if token.width < 1 or token.height < 1:
        return 1
    along, across = (token.height, token.width) if lat.columns else (token.width, token.height)
    if float(along).is_integer() and float(across).is_integer() and across < 2 * along:
        return sum(count for _, count in _ellipse_rows(int(along), int(across)))
    # Hexes whose centres lie in the box: a row per ``across`` step, ``along`` per row.
    return (math.ceil(along) + 1) * (math.ceil(across) + 1)


def check_hex_footprint(token: Token, grid: Grid) -> None:
    """Refuse a token covering more than ``SIGHTLINE_MAX_HEX_FOOTPRINT`` hexes (``hex_count``).

    Raises
    ------
    OverBudget
        (HTTP 422) naming the token, its hexes and the limit.
    """
    count = hex_count(token, grid)
    limit = core_limit("MAX_HEX_FOOTPRINT")
    if count > limit:
        raise OverBudget(
            f"Token {shown(token.id)} ({token.width:g} by {token.height:g} squares) covers about "
            f"{count:,} hexes on this hex grid; a token may cover at most "
            f"{limit:,} hexes (SIGHTLINE_MAX_HEX_FOOTPRINT): make it smaller.",
            ("scene", "tokens"),
        )


def footprint(token: Token, grid: Grid) -> NDArray[np.int64]:
    """The hexes a token occupies on a hex grid, axial ``(q, r)``, shape (k, 2), k >= 1.

    A token smaller than a hex counts from the hex that holds its centre (GEO-8). Whole
    sizes take Foundry v12+'s default hex shape (``_ellipse_rows``); any other size the
    hexes whose centres lie inside its box, else the hex holding its centre. The array is
    read-only and shared: it is kept per (token, grid), as every pair of a matrix asks.

    Cost: O(k) for k <= ``SIGHTLINE_MAX_HEX_FOOTPRINT`` hexes, checked first in O(rows)
    (``check_hex_footprint``); a bigger token is refused, never listed. Memory: the kept
    footprints are bounded whatever the requests (``SMALL_FOOTPRINT``).

    Raises ``ValueError`` on a square or gridless grid, ``OverBudget`` (422) past
    ``SIGHTLINE_MAX_HEX_FOOTPRINT`` hexes.
    """
    if hex_count(token, grid) <= SMALL_FOOTPRINT:
        return _small_footprint(token, grid)
    return _big_footprint(token, grid)


#: Footprints kept (issue 16: memory outside the scene cache is bounded too): the 8,192 most
#: recent of at most ``SMALL_FOOTPRINT`` hexes (about 1 kB each) and the 256 most recent
#: bigger ones (up to 64 kB each at the default ``SIGHTLINE_MAX_HEX_FOOTPRINT``; a matrix's
#: 200 tokens all fit, so its pairs never compute one again): about 25 MB in all, where one
#: list of 8,192 footprints of any size could hold 500 MB.
SMALL_FOOTPRINT = 64


@lru_cache(maxsize=8192)
def _small_footprint(token: Token, grid: Grid) -> NDArray[np.int64]:
    return _kept(_compute_footprint(token, grid))


@lru_cache(maxsize=256)
def _big_footprint(token: Token, grid: Grid) -> NDArray[np.int64]:
    return _kept(_compute_footprint(token, grid))


def _kept(cells: NDArray[np.int64]) -> NDArray[np.int64]:
    """``cells`` made read-only: one array is shared by every caller."""
    cells.setflags(write=False)
    return cells


def _compute_footprint(token: Token, grid: Grid) -> NDArray[np.int64]:
    lat = lattice(grid)
    if lat is None:
        raise ValueError("footprint() needs a hex grid.")
    check_hex_footprint(token, grid)
    w_px, h_px = token_extent(token, grid)
    box = (token.x, token.y, token.x + w_px, token.y + h_px)
    centre = np.array([[(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]])
    if token.width < 1 or token.height < 1:
        return lat.cells_at(centre)
    pts = _shape_centres(token, lat)
    if len(pts):
        # The shape moves as one piece: its first hex snaps to the hex holding it, the
        # others follow (a token off the lattice, or one whose first row starts half a
        # hex in, still covers whole neighbouring hexes).
        first = lat.cells_at(pts[:1])
        pts = pts + (lat.centres(first)[0] - pts[0])
        return np.unique(lat.cells_at(pts), axis=0)
    cells = _cells_in_box(lat, box)
    return cells if len(cells) else lat.cells_at(centre)


def _cells_in_box(lat: HexLattice, box: Box) -> NDArray[np.int64]:
    """Hexes whose centres lie inside ``box`` (px), at most ``MAX_FOOTPRINT_CELLS`` + rim."""
    x0, y0, x1, y1 = box
    corners = np.array([[x0, y0], [x1, y0], [x0, y1], [x1, y1]])
    cells = lat.cells_at(corners)
    lo, hi = cells.min(axis=0) - 2, cells.max(axis=0) + 2
    span = (hi - lo + 1).prod()
    if span > 16 * MAX_FOOTPRINT_CELLS:  # a huge token: its box's outline is enough
        return lat.cells_at(_outline_points(box, lat.size / 2))
    q, r = np.meshgrid(np.arange(lo[0], hi[0] + 1), np.arange(lo[1], hi[1] + 1), indexing="ij")
    cand = np.stack([q.ravel(), r.ravel()], axis=1)
    c = lat.centres(cand)
    inside = (c[:, 0] >= x0) & (c[:, 0] <= x1) & (c[:, 1] >= y0) & (c[:, 1] <= y1)
    return cand[inside]


def _outline_points(box: Box, step: float) -> FloatArray:
    """Points every ``step`` px along a box's outline."""
    x0, y0, x1, y1 = box
    nx = max(1, math.ceil((x1 - x0) / step))
    ny = max(1, math.ceil((y1 - y0) / step))
    xs, ys = np.linspace(x0, x1, nx + 1), np.linspace(y0, y1, ny + 1)
    return np.concatenate(
        [
            np.stack([xs, np.full_like(xs, y0)], 1),
            np.stack([xs, np.full_like(xs, y1)], 1),
            np.stack([np.full_like(ys, x0), ys], 1),
            np.stack([np.full_like(ys, x1), ys], 1),
        ]
    )


def hex_box(cells: NDArray[np.int64], lat: HexLattice) -> Box:
    """Bounding box in px of the hexes ``cells`` (their vertices)."""
    c = lat.centres(cells)
    d = lat.radius * lat.vertex_directions()
    lo = c.min(axis=0) + d.min(axis=0)
    hi = c.max(axis=0) + d.max(axis=0)
    return (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))


def hex_inner_boxes(cells: NDArray[np.int64], lat: HexLattice) -> FloatArray:
    """An axis-aligned box inside each hex of ``cells``, px, shape (k, 4).

    Pointy hexes: the full width between the two vertical sides by the sides' length; flat
    hexes: the mirror. Lines between two such boxes start and end inside the two spaces
    (the hexes' bounding boxes would reach into the neighbouring hexes).
    """
    c = lat.centres(cells)
    half_side, half_width = lat.radius / 2, lat.size / 2
    hx, hy = (half_side, half_width) if lat.columns else (half_width, half_side)
    return np.stack([c[:, 0] - hx, c[:, 1] - hy, c[:, 0] + hx, c[:, 1] + hy], axis=1)


def token_space_box(token: Token, grid: Grid) -> Box:
    """A token's space as ``(x0, y0, x1, y1)`` px (``BuiltScene.token_boxes``).

    Squares and gridless: its box (``Token.box``). Hexes: the bounding box of the hexes
    it occupies (``footprint``), so that its centre is the centre of its hexes.
    """
    lat = lattice(grid)
    if lat is None:
        return token.box(grid.size)
    return hex_box(footprint(token, grid), lat)


# ---------------------------------------------------------------------------- distance


def _square_span(lo: float, hi: float, size: float) -> tuple[float, float]:
    """One axis of a space, for counting squares (GEO-8).

    A space narrower than a square counts from the square that holds its centre.
    """
    if hi - lo < size * (1 - SQUARE_COUNT_TOL):
        k = math.floor((lo + hi) / 2 / size)
        return k * size, (k + 1) * size
    return lo, hi


def counting_box(box: Box, grid: Grid) -> Box:
    """The space a creature counts from (GEO-8), for distances and flanking's geometry.

    On a square grid, a space narrower than a square along an axis counts, along that axis,
    as the square that holds its centre (a tiny creature anywhere in a square counts as that
    square). Other spaces, and every space on gridless and hex grids, are their own box.
    """
    if grid.type != "square":
        return box
    x0, x1 = _square_span(box[0], box[2], grid.size)
    y0, y1 = _square_span(box[1], box[3], grid.size)
    return (x0, y0, x1, y1)


def square_distance(box_a: Box, box_b: Box, grid: Grid, diagonals: str) -> float:
    """Distance in grid units between two spaces on a square grid (GEO-8).

    Counted between the nearest squares of the two spaces, as a move would count them:
    adjacent spaces are one square apart, overlapping spaces 0. A space narrower than a
    square along an axis counts from the square holding its centre along that axis.
    Diagonals: ``equidistant`` (5-5-5), ``alternating`` (5-10-5: every second diagonal
    costs two squares) or ``euclidean``.
    """
    size = grid.size

    def squares(a: tuple[float, float], b: tuple[float, float]) -> float:
        gap = max(b[0] - a[1], a[0] - b[1])
        if gap < 0:
            return 0.0
        return math.ceil(gap / size - SQUARE_COUNT_TOL) + 1.0

    a, b = counting_box(box_a, grid), counting_box(box_b, grid)
    steps_x = squares((a[0], a[2]), (b[0], b[2]))
    steps_y = squares((a[1], a[3]), (b[1], b[3]))
    return combine_steps(steps_x, steps_y, diagonals) * grid.distance


def combine_steps(dx: float, dy: float, diagonals: str) -> float:
    """Steps of a move ``dx`` along one axis and ``dy`` along another, by the diagonal rule.

    ``equidistant``: the larger; ``alternating``: every second diagonal step counts two;
    ``euclidean``: Pythagoras. In the unit of ``dx`` and ``dy``.
    """
    if diagonals == "euclidean":
        return math.hypot(dx, dy)
    diag, straight = min(dx, dy), abs(dx - dy)
    if diagonals == "alternating":
        return straight + diag + math.floor(diag / 2 + SQUARE_COUNT_TOL)
    return straight + diag


def gridless_distance(box_a: Box, box_b: Box, grid: Grid) -> float:
    """Ruler distance in grid units between two spaces on a gridless scene (GEO-8).

    The shortest gap between the two boxes plus one square (``grid.distance``): spaces that
    touch are one square apart, overlapping spaces 0. Nothing is rounded.
    """
    gx = max(box_b[0] - box_a[2], box_a[0] - box_b[2])
    gy = max(box_b[1] - box_a[3], box_a[1] - box_b[3])
    if gx < 0 and gy < 0:
        return 0.0
    gap_px = math.hypot(max(gx, 0.0), max(gy, 0.0))
    return gap_px / grid.px_per_unit + grid.distance


def _nearest(cells: NDArray[np.int64], toward: NDArray[np.int64]) -> NDArray[np.int64]:
    """At most ``MAX_FOOTPRINT_CELLS`` of ``cells``, those nearest the hex ``toward``."""
    if len(cells) <= MAX_FOOTPRINT_CELLS:
        return cells
    order = np.argsort(hex_distance(cells, toward), kind="stable")
    return cells[order[:MAX_FOOTPRINT_CELLS]]


def _cube_gap(cells: NDArray[np.int64], other: NDArray[np.int64]) -> NDArray[np.int64]:
    """For each of ``cells``, a lower bound of its hex distance to every hex of ``other``.

    The hex distance is the largest difference of the three cube coordinates ``(q, r,
    -q - r)``; each is at least the gap between the cell's coordinate and ``other``'s range
    of it. O(k_cells + k_other).
    """

    def cube(c: NDArray[np.int64]) -> NDArray[np.int64]:
        return np.column_stack([c[:, 0], c[:, 1], -c[:, 0] - c[:, 1]])

    own, theirs = cube(cells), cube(other)
    lo, hi = theirs.min(axis=0), theirs.max(axis=0)
    return np.maximum(np.maximum(lo - own, own - hi), 0).max(axis=1)  # type: ignore[no-any-return]


def _share_a_hex(a: NDArray[np.int64], b: NDArray[np.int64]) -> bool:
    """Whether footprints ``a`` and ``b`` (k, 2) axial hexes have a hex in common.

    Only the hexes inside both footprints' common ``(q, r)`` range can be shared; they are
    numbered within that range and intersected. O((k_a + k_b) log(k_a + k_b)).
    """
    lo = np.maximum(a.min(axis=0), b.min(axis=0))
    hi = np.minimum(a.max(axis=0), b.max(axis=0))
    if np.any(lo > hi):
        return False
    in_a = a[np.all((a >= lo) & (a <= hi), axis=1)] - lo
    in_b = b[np.all((b >= lo) & (b <= hi), axis=1)] - lo
    width = int(hi[1] - lo[1]) + 1  # the range holds at most both footprints' hexes
    keys_a = in_a[:, 0] * width + in_a[:, 1]
    keys_b = in_b[:, 0] * width + in_b[:, 1]
    return bool(np.intersect1d(keys_a, keys_b).size)


def hex_cells_distance(a: NDArray[np.int64], b: NDArray[np.int64]) -> int:
    """Hexes between the nearest hexes of two footprints (0 when they share a hex).

    Only the hexes that could be nearer than a first pair's distance are compared: those
    within it of the other footprint's range of cube coordinates (``_cube_gap``), a strip
    along the sides that face each other; the answer is the same as over all pairs.

    Footprints that share a hex are found first (0), in O((k_a + k_b) log(k_a + k_b)):
    overlapping footprints otherwise leave every shared hex in both strips.

    Cost: O((k_a + k_b) log(k_a + k_b)) plus the pairs of the two strips (at worst about
    k_a * k_b for footprints facing along a long side), k at most ``MAX_FOOTPRINT_CELLS``;
    memory O(256 * k_b) (a block of ``a`` at a time).
    """
    if _share_a_hex(a, b):
        return 0
    a = _nearest(a, b.mean(axis=0).round().astype(np.int64))
    b = _nearest(b, a.mean(axis=0).round().astype(np.int64))
    gap = _cube_gap(a, b)
    first = int(np.argmin(gap))
    bound = int(hex_distance(a[first], b).min())  # a distance reached: the answer is <= it
    a = a[gap <= bound]
    b = b[_cube_gap(b, a) <= bound]
    return min(
        int(hex_distance(a[i : i + 256, None, :], b[None, :, :]).min())
        for i in range(0, len(a), 256)
    )


def flat_distance(a: Token, b: Token, grid: Grid, boxes: dict[str, Box], diagonals: str) -> float:
    """Distance in grid units between two tokens' spaces on the map, elevation aside."""
    if grid.type == "gridless":
        return gridless_distance(boxes[a.id], boxes[b.id], grid)
    if is_hex(grid):
        return hex_cells_distance(footprint(a, grid), footprint(b, grid)) * grid.distance
    return square_distance(boxes[a.id], boxes[b.id], grid, diagonals)


def space_distance_units(
    a: Token, b: Token, grid: Grid, boxes: dict[str, Box], diagonals: str
) -> float:
    """The distance between two creatures in grid units, elevation included (GEO-8).

    ``flat_distance`` on the map; the elevation difference is a third axis, combined with
    the diagonal rule in squares or hexes (``combine_steps``; on a gridless scene by
    Pythagoras). ``diagonals`` is the rule in force (``diagonal_rule``).

    Parameters
    ----------
    a, b : Token
    grid : Grid
    boxes : dict of str to (x0, y0, x1, y1) px
        The tokens' spaces (``BuiltScene.token_boxes``).
    diagonals : str
        ``equidistant``, ``alternating`` or ``euclidean``.
    """
    flat = flat_distance(a, b, grid, boxes, diagonals)
    dz = abs(a.elevation - b.elevation)
    if dz == 0:
        return flat
    if grid.type == "gridless" or diagonals == "euclidean":
        return math.hypot(flat, dz)
    return combine_steps(flat / grid.distance, dz / grid.distance, diagonals) * grid.distance


def square_distances_units(
    boxes_a: FloatArray,
    boxes_b: FloatArray,
    elevations: FloatArray,
    grid: Grid,
    diagonals: str,
) -> FloatArray:
    """``space_distance_units`` of many pairs on a square grid, shape (p,) grid units.

    ``boxes_a``, ``boxes_b`` (p, 4) px: the pairs' ``counting_box``es; ``elevations``
    (p, 2): their elevations in grid units; ``diagonals`` ``equidistant`` or
    ``alternating`` (the same arithmetic as ``square_distance`` and ``combine_steps``, so
    the same floats).

    Raises
    ------
    ValueError
        Another grid or diagonal rule (measure those pair by pair).
    """
    if grid.type != "square" or diagonals not in ("equidistant", "alternating"):
        raise ValueError("square_distances_units: square grids, 5-5-5 or 5-10-5 only")
    size = grid.size

    def squares(a0: FloatArray, a1: FloatArray, b0: FloatArray, b1: FloatArray) -> FloatArray:
        gap = np.maximum(b0 - a1, a0 - b1)
        steps = np.ceil(gap / size - SQUARE_COUNT_TOL) + 1.0
        return np.where(gap < 0, 0.0, steps)

    def combine(dx: FloatArray, dy: FloatArray) -> FloatArray:
        diag, straight = np.minimum(dx, dy), np.abs(dx - dy)
        if diagonals == "alternating":
            return straight + diag + np.floor(diag / 2 + SQUARE_COUNT_TOL)
        return straight + diag

    sx = squares(boxes_a[:, 0], boxes_a[:, 2], boxes_b[:, 0], boxes_b[:, 2])
    sy = squares(boxes_a[:, 1], boxes_a[:, 3], boxes_b[:, 1], boxes_b[:, 3])
    flat = combine(sx, sy) * grid.distance
    dz = np.abs(elevations[:, 0] - elevations[:, 1])
    lifted = combine(flat / grid.distance, dz / grid.distance) * grid.distance
    return np.where(dz == 0, flat, lifted)


def within_units(distance: float, limit: float) -> bool:
    """Whether ``distance`` is within ``limit`` (grid units), float noise forgiven."""
    return distance <= limit * (1 + SQUARE_COUNT_TOL) + SQUARE_COUNT_TOL


# ---------------------------------------------------------------------------- corners


def _inset_toward(points: FloatArray, centres: FloatArray, inset_px: float) -> FloatArray:
    """``points`` each moved ``inset_px`` toward its centre (at most to it), GEO-6."""
    d = centres - points
    length = np.hypot(d[:, 0], d[:, 1])
    step = np.minimum(inset_px, length) / np.where(length > 0, length, 1.0)
    return points + d * step[:, None]


def hex_space_corners(cells: NDArray[np.int64], lat: HexLattice, inset_px: float) -> FloatArray:
    """The six corners of a space of hexes, clockwise as ``HexLattice.vertex_directions``.

    For one hex, its six vertices. For several, the vertex of the space that lies furthest
    in each of the six vertex directions (the six outer corners of a hex-shaped token; on
    a flat side facing that way, the vertex nearest the side's middle). Each corner is
    moved ``inset_px`` toward the centre of its own hex (GEO-6). Shape (6, 2), px.
    """
    dirs = lat.vertex_directions()
    centres = lat.centres(cells)
    pts = (centres[:, None, :] + lat.radius * dirs[None, :, :]).reshape(-1, 2)
    owner = np.repeat(centres, 6, axis=0)
    out, own = [], []
    for d in dirs:
        score = pts @ d
        best = np.flatnonzero(score >= score.max() - 1e-9 * lat.size)
        side = pts[best] @ np.array([-d[1], d[0]])
        pick = best[np.argmin(np.abs(side - (side.max() + side.min()) / 2))]
        out.append(pts[pick])
        own.append(owner[pick])
    return _inset_toward(np.array(out), np.array(own), inset_px)


def hex_every_corner(cells: NDArray[np.int64], lat: HexLattice, inset_px: float) -> FloatArray:
    """Every vertex of every hex of a space, each inset toward its own hex's centre, (k, 2).

    A vertex shared by two hexes of the space appears once per hex (inset apart); with no
    inset the duplicates are dropped. Sorted by x then y.
    """
    centres = lat.centres(cells)
    pts = (centres[:, None, :] + lat.radius * lat.vertex_directions()[None, :, :]).reshape(-1, 2)
    pts = _inset_toward(pts, np.repeat(centres, 6, axis=0), inset_px)
    return np.unique(np.round(pts, 9), axis=0)
