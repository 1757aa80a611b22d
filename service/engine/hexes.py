"""Hex grids (GEO-8): the hex lattice, token footprints on hexes and the hexes' corners.

Grids ``hex-row`` (Foundry HEXODDR 2 / HEXEVENR 3: pointy-topped hexes, rows offset) and
``hex-col`` (HEXODDQ 4 / HEXEVENQ 5: flat-topped, columns offset), FORMATS.md A.2 and
pitfall 12. ``size`` is the px between the centres of two adjacent hexes (the hex's short
diagonal, Foundry v10+); ``Grid.hex_offset`` says whether odd (Foundry's ODD types) or even
rows/columns are shifted by half a hex. The lattice's origin is the scene's (0, 0), as
Foundry v12+ lays its hex grid on the canvas.

Hex cells are named by axial coordinates ``(q, r)`` (cube ``s = -q - r``): for ``hex-row``,
``r`` is the row and ``q`` runs along it; for ``hex-col``, ``q`` is the column and ``r``
runs down it (Foundry's ``HexagonalGrid`` cube convention).

Units: positions and sizes in scene px (y down). The distances between spaces, hexes
included, are ``service.engine.grids``'s (``hex_cells_distance``, ``space_distance_units``),
which re-exports this module's public names.

References
----------
shared/RULES.md GEO-6, GEO-8; shared/FORMATS.md A.2, A.4; docs/decisions.md "Footprints".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from service.engine.budget import core_limit
from service.errors import OverBudget, shown
from service.model import Grid, Token

FloatArray = NDArray[np.float64]
Box = tuple[float, float, float, float]
Cell = tuple[int, int]

#: A footprint with more hexes than this is measured from its rim hexes only.
MAX_FOOTPRINT_CELLS = 4096
#: Most hexes one token may cover on a hex grid (``hex_count``) is the setting
#: ``SIGHTLINE_MAX_HEX_FOOTPRINT`` (``core_limit``): a footprint is a list of hexes, and
#: distances, corners and flanking on hexes work over it, so a bigger creature (e.g. 1000 by
#: 1000 squares, about 750,000 hexes) is refused with a 422 naming it.

SQRT3 = math.sqrt(3.0)


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


def footprint_rim(cells: NDArray[np.int64]) -> NDArray[np.int64]:
    """The hexes of a footprint (k, 2) axial with a neighbour outside it, shape (m, 2), m >= 1.

    The nearest hexes of two disjoint footprints are rim hexes (an inner hex has a neighbour
    one hex nearer the other footprint, inside its own), so distances compare rims only.
    Cost: O(k log k).
    """
    if len(cells) <= 6:  # no hex of six or fewer is surrounded by the others
        return cells
    return cells[0] + _shape_rim((cells - cells[0]).tobytes())


@lru_cache(maxsize=256)
def _shape_rim(shape: bytes) -> NDArray[np.int64]:
    """``footprint_rim`` of a footprint given as its hexes less its first one (bytes, int64).

    Kept per shape: tokens of one size share it wherever they stand.
    """
    cells = np.frombuffer(shape, dtype=np.int64).reshape(-1, 2)
    lo = cells.min(axis=0) - 1
    width = int(cells[:, 1].max() - lo[1]) + 2
    keys = (cells[:, 0] - lo[0]) * width + (cells[:, 1] - lo[1])
    known = np.sort(keys)
    inner = np.ones(len(cells), dtype=bool)
    for dq, dr in _NEIGHBOURS:
        step = keys + dq * width + dr
        at = np.minimum(np.searchsorted(known, step), len(known) - 1)
        inner &= known[at] == step
    rim = cells[~inner]
    return _kept(rim if len(rim) else cells.copy())


#: Axial steps to a hex's six neighbours.
_NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
#: Elements of one block of hex pairs compared at once (``footprint_distances``: memory).
_BLOCK = 1 << 21


def _cube_ranges(cells: NDArray[np.int64]) -> NDArray[np.int64]:
    """The ranges of a footprint's cube coordinates: ``[lo_q, lo_r, lo_s, hi_q, hi_r, hi_s]``."""
    cube = np.column_stack([cells[:, 0], cells[:, 1], -cells[:, 0] - cells[:, 1]])
    return np.concatenate([cube.min(axis=0), cube.max(axis=0)])


def footprint_distances(
    footprints: list[NDArray[np.int64]], ends: NDArray[np.intp]
) -> NDArray[np.int64]:
    """Hexes between the nearest hexes of each pair's two footprints, shape (p,) (GEO-8).

    ``footprints``: each token's hexes (``footprint``), axial (k, 2); ``ends`` (p, 2): each
    pair's two rows among them. 0 when the footprints share a hex. Foundry's cube distance
    (``hex_distance``) between the nearest hexes, for all pairs in one pass.

    Only rim hexes are compared (``footprint_rim``); tokens are grouped by rim size (powers
    of two, padded with their own first hex), and each group of pairs is compared in blocks
    of about ``_BLOCK`` hex pairs; pairs of two big rims (past ``_PRUNE_AT`` hex pairs) over
    the strips that face each other only (``_strip_distance``). Footprints whose cube
    ranges overlap but whose rims do not meet are checked for a shared hex (one inside the
    other's rim).

    Cost: O(sum of footprint sizes) for the rims, plus the pairs' rim products
    (``rim_a * rim_b`` each, in numpy). Memory: O(``_BLOCK``).
    """
    p = len(ends)
    out = np.zeros(p, dtype=np.int64)
    if not p:
        return out
    rims = [footprint_rim(np.asarray(f, dtype=np.int64)) for f in footprints]
    # A footprint's extreme cube coordinates lie on its rim.
    ranges = np.array([_cube_ranges(r) for r in rims], dtype=np.int64).reshape(-1, 6)
    sizes = np.array([len(r) for r in rims], dtype=np.int64)
    bucket = np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    pair_bucket = bucket[ends]
    for ba, bb in {tuple(x) for x in pair_bucket.tolist()}:
        rows = np.flatnonzero((pair_bucket[:, 0] == ba) & (pair_bucket[:, 1] == bb))
        if (1 << ba) * (1 << bb) > _PRUNE_AT:  # big rims: the facing strips, pair by pair
            for k in rows.tolist():
                ta, tb = int(ends[k, 0]), int(ends[k, 1])
                out[k] = _strip_distance(rims[ta], rims[tb], ranges[tb])
            continue
        pads = [_padded(rims, ends[rows, side], k) for side, k in ((0, 1 << ba), (1, 1 << bb))]
        step = max(1, _BLOCK // ((1 << ba) * (1 << bb)))
        for i in range(0, len(rows), step):
            a = pads[0][i : i + step, :, None, :]
            b = pads[1][i : i + step, None, :, :]
            out[rows[i : i + step]] = hex_distance(a, b).min(axis=(1, 2))
    _zero_shared(footprints, rims, ranges, ends, out)
    return out


#: Hex pairs of two rims past which a pair is measured over the strips facing each other.
_PRUNE_AT = 4096


def _strip_distance(a: NDArray[np.int64], b: NDArray[np.int64], b_ranges: NDArray[np.int64]) -> int:
    """Hexes between the nearest of ``a`` and ``b`` (two rims), over their facing strips.

    A first pair's distance bounds the answer; only the hexes within it of the other's
    range of cube coordinates (a lower bound of their distance to it) are compared, the
    same minimum as over all pairs. O(k_a + k_b) plus the strips' product.
    """
    gap_a = _range_gap(a, b_ranges)
    first = int(np.argmin(gap_a))
    bound = int(hex_distance(a[first], b).min())
    a = a[gap_a <= bound]
    b = b[_range_gap(b, _cube_ranges(a)) <= bound]
    return int(hex_distance(a[:, None, :], b[None, :, :]).min())


def _range_gap(cells: NDArray[np.int64], ranges: NDArray[np.int64]) -> NDArray[np.int64]:
    """For each hex, the largest gap of its cube coordinates to ``ranges`` (a lower bound)."""
    cube = np.column_stack([cells[:, 0], cells[:, 1], -cells[:, 0] - cells[:, 1]])
    return np.maximum(np.maximum(ranges[:3] - cube, cube - ranges[3:]), 0).max(axis=1)  # type: ignore[no-any-return]


def _padded(rims: list[NDArray[np.int64]], tokens: NDArray[np.intp], k: int) -> NDArray[np.int64]:
    """The rims of ``tokens`` padded to ``k`` hexes with their first hex, shape (t, k, 2)."""
    distinct, back = np.unique(tokens, return_inverse=True)
    pad = np.empty((len(distinct), k, 2), dtype=np.int64)
    for row, t in enumerate(distinct.tolist()):
        rim = rims[t]
        pad[row, : len(rim)] = rim
        pad[row, len(rim) :] = rim[0]
    return pad[back.reshape(-1)]


def _zero_shared(
    footprints: list[NDArray[np.int64]],
    rims: list[NDArray[np.int64]],
    ranges: NDArray[np.int64],
    ends: NDArray[np.intp],
    out: NDArray[np.int64],
) -> None:
    """Set ``out`` to 0 for pairs whose footprints share a hex their rims do not show.

    Footprints are connected, so two that share a hex either have a rim hex of one inside
    the other, or one lies wholly inside the other. Only pairs with overlapping cube ranges
    and a distance above 0 are looked at.
    """
    ra, rb = ranges[ends[:, 0]], ranges[ends[:, 1]]
    overlap = np.all(ra[:, :3] <= rb[:, 3:], axis=1) & np.all(rb[:, :3] <= ra[:, 3:], axis=1)
    for k in np.flatnonzero(overlap & (out > 0)).tolist():
        a, b = int(ends[k, 0]), int(ends[k, 1])
        if _holds_any(footprints[b], rims[a]) or _holds_any(footprints[a], rims[b]):
            out[k] = 0


def _holds_any(cells: NDArray[np.int64], probe: NDArray[np.int64]) -> bool:
    """Whether any hex of ``probe`` (m, 2) is one of ``cells`` (k, 2)."""
    lo = np.minimum(cells.min(axis=0), probe.min(axis=0))
    width = int(max(cells[:, 1].max(), probe[:, 1].max()) - lo[1]) + 1
    keys = (cells[:, 0] - lo[0]) * width + (cells[:, 1] - lo[1])
    return bool(np.isin((probe[:, 0] - lo[0]) * width + (probe[:, 1] - lo[1]), keys).any())


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


@lru_cache(maxsize=256)
def _ellipse_count(width: int, height: int) -> int:
    """Hexes of ``_ellipse_rows(width, height)``."""
    return sum(count for _, count in _ellipse_rows(width, height))


def _shape_centres(token: Token, lat: HexLattice) -> FloatArray:
    """Centres in px of the hexes Foundry v12+ draws a hex token over (``ELLIPSE_1``).

    A token whose footprint Foundry draws as a shape (whole numbers of hexes, the ellipse
    defined for that width and height) gets the shape's hexes; any other token the centre
    of its box (its hexes are then those whose centres lie in its box, see ``footprint``).
    """
    return _shape_offsets(token.width, token.height, lat) + np.array([token.x, token.y])


@lru_cache(maxsize=256)
def _shape_offsets(width: float, height: float, lat: HexLattice) -> FloatArray:
    """``_shape_centres`` of a token of this size at (0, 0), read-only (shared), (k, 2) px."""
    # In the rows' frame: "along" runs along a row of hexes, "across" from row to row.
    along, across = (height, width) if lat.columns else (width, height)
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
    pts.setflags(write=False)
    return pts


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
        return _ellipse_count(int(along), int(across))
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


#: Footprints kept (docs/decisions.md "Bounded work": memory outside the scene cache is
#: bounded too): the 8,192 most recent of at most ``SMALL_FOOTPRINT`` hexes (about 1 kB
#: each) and the 256 most recent bigger ones (up to 64 kB each at the default
#: ``SIGHTLINE_MAX_HEX_FOOTPRINT``; a matrix's 200 tokens all fit, so its pairs never
#: compute one again): about 25 MB in all, where one list of 8,192 footprints of any size
#: could hold 500 MB.
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
    pts = _shape_offsets(token.width, token.height, lat)[:1] + np.array([token.x, token.y])
    if len(pts):
        # The shape moves as one piece: its first hex snaps to the hex holding it, the
        # others follow (a token off the lattice, or one whose first row starts half a
        # hex in, still covers whole neighbouring hexes). A lattice step moves every hex
        # by the same axial step, so the shape's hexes are found once per size.
        first = lat.cells_at(pts[:1])
        return first + _shape_cells(token.width, token.height, lat)
    cells = _cells_in_box(lat, box)
    return cells if len(cells) else lat.cells_at(centre)


@lru_cache(maxsize=256)
def _shape_cells(width: float, height: float, lat: HexLattice) -> NDArray[np.int64]:
    """A whole-hex shape's hexes (``_shape_centres``) relative to its first hex, sorted, (k, 2).

    Its first hex at the lattice's hex ``(0, 0)``; read-only (shared). O(k log k) once per
    (size, lattice).
    """
    pts = _shape_offsets(width, height, lat)
    origin = lat.centres(np.zeros((1, 2), dtype=np.int64))[0]
    cells = np.unique(lat.cells_at(pts - pts[0] + origin), axis=0)
    return _kept(cells)


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
