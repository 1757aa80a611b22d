"""The compiled helpers every kernel of the geometry shares (numba).

numba is a dependency of the service (``pyproject.toml``): the measurement runs compiled
only. Its numpy reference, the oracle the Hypothesis properties hold it equal to, lives in
``tests/reference/`` (``docs/architecture.md``, "One compiled path").

- ``njit``: numba's ``njit`` with numpy's float semantics;
- ``cell_of``: the cell of a uniform grid a coordinate falls in;
- ``sign``: a sign with a dead band;
- ``fmin`` / ``fmax``: ``np.minimum`` / ``np.maximum`` of two floats (NaN-propagating);
- ``pieces`` / ``piece_box``: a segment's pieces of about one length and each piece's box
  (the grid walks of ``walk``, ``cells`` and ``creature_tests``);
- ``append_pair`` / ``grown_int`` / ``grown_bool``: output buffers that double when full;
- ``sides_split`` / ``split_at``: whether the walls at a vertex lie on both sides of a line
  (the exact search's, ``geometry.search``);
- ``crossing_t`` / ``band_verdict``: where a line crosses a wall and how the wall's height
  range meets the line's band there (GEO-5, GEO-5a: the exact tests' and the walk's).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit as _numba_njit
from numpy.typing import NDArray


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit`` with numpy's float semantics: x / 0 is inf or NaN, never an error.

    The compiled functions mirror numpy (and GEOS) arithmetic, where a length whose square
    underflows to 0 divides to inf or NaN; Python's semantics would raise
    ``ZeroDivisionError`` there instead.
    """
    kwargs.setdefault("error_model", "numpy")
    return _numba_njit(*args, **kwargs)


@njit(cache=True, nogil=True)
def cell_of(v: float, origin: float, cell: float, n: int) -> int:  # pragma: no cover
    """The cell (0 to ``n - 1``) of a grid from ``origin`` with cells ``cell`` px wide."""
    f = (v - origin) / cell
    if f < 0.0:
        return 0
    if f >= n:
        return n - 1
    return int(f)


@njit(cache=True, nogil=True)
def sign(v: float, band: float) -> int:  # pragma: no cover - compiled
    """1, -1 or 0 (within ``band`` of 0): the side of a signed distance in px."""
    if v > band:
        return 1
    if v < -band:
        return -1
    return 0


@njit(cache=True, nogil=True)
def fmin(a: float, b: float) -> float:  # pragma: no cover - compiled
    """``np.minimum`` of two floats (NaN if either is)."""
    if a != a or b != b:
        return math.nan
    return a if a < b else b


@njit(cache=True, nogil=True)
def fmax(a: float, b: float) -> float:  # pragma: no cover - compiled
    """``np.maximum`` of two floats (NaN if either is)."""
    if a != a or b != b:
        return math.nan
    return a if a > b else b


@njit(cache=True, nogil=True)
def grown_int(a: NDArray[np.int64], n: int, cap: int) -> NDArray[np.int64]:  # pragma: no cover
    """A new int64 buffer of ``cap`` holding the first ``n`` values of ``a``."""
    out = np.empty(cap, dtype=np.int64)
    out[:n] = a[:n]
    return out


@njit(cache=True, nogil=True)
def grown_bool(a: NDArray[np.bool_], n: int, cap: int) -> NDArray[np.bool_]:  # pragma: no cover
    """A new bool buffer of ``cap`` holding the first ``n`` values of ``a``."""
    out = np.empty(cap, dtype=np.bool_)
    out[:n] = a[:n]
    return out


@njit(cache=True, nogil=True)
def append_pair(
    first: NDArray[np.int64], second: NDArray[np.int64], kept: int, u: int, v: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover - compiled
    """Put the pair ``(u, v)`` at ``kept`` in two growing arrays (doubled when full)."""
    if kept == len(first):
        first = grown_int(first, kept, 2 * len(first))
        second = grown_int(second, kept, 2 * len(second))
    first[kept] = u
    second[kept] = v
    return first, second


@njit(cache=True, nogil=True)
def pieces(length: float, piece_px: float, max_pieces: int) -> int:  # pragma: no cover
    """How many pieces of about ``piece_px`` a segment of ``length`` px is looked up in."""
    if length / piece_px >= max_pieces:
        return max_pieces
    return max(1, int(math.ceil(length / piece_px)))


@njit(cache=True, nogil=True)
def piece_box(
    seg: NDArray[np.float64], q: int, k: int, qtol: float
) -> tuple[float, float, float, float]:  # pragma: no cover - compiled
    """The box (min x, min y, max x, max y, px) of piece ``q`` of ``k`` of ``seg``.

    Grown by ``qtol``; the last piece ends exactly at the segment's end.
    """
    x0, y0, x1, y1 = seg[0], seg[1], seg[2], seg[3]
    dx, dy = x1 - x0, y1 - y0
    kf = float(k)
    t0 = q / kf
    sx, sy = x0 + dx * t0, y0 + dy * t0
    if q == k - 1:
        ex, ey = x1, y1
    else:
        t1 = (q + 1) / kf
        ex, ey = x0 + dx * t1, y0 + dy * t1
    return min(sx, ex) - qtol, min(sy, ey) - qtol, max(sx, ex) + qtol, max(sy, ey) + qtol


@njit(cache=True, nogil=True)
def sides_split(
    rays: NDArray[np.float64],
    start: NDArray[np.int64],
    rows: NDArray[np.int64],
    u: NDArray[np.float64],
    tol_rel: float,
) -> NDArray[np.bool_]:  # pragma: no cover - compiled
    """Whether the rays at each line's vertex lie on both sides of its direction, (m,) bool.

    ``rays`` (r, 2) px, listed vertex by vertex (CSR: vertex ``v``'s are
    ``rays[start[v]:start[v + 1]]``); ``rows`` (m,) each line's vertex (-1: none, never
    split); ``u`` (m, 2) each line's direction. A ray is on one side when the cross product
    passes ``tol_rel`` times the product of the two lengths (the exact search's test at a
    vertex, ``search._Searches.candidates``, GEO-6). O(m + rays looked at), no padding.
    """
    m = rows.shape[0]
    out = np.zeros(m, dtype=np.bool_)
    for k in range(m):
        out[k] = split_at(rays, start, rows[k], u[k, 0], u[k, 1], tol_rel)
    return out


@njit(cache=True, nogil=True)
def split_at(
    rays: NDArray[np.float64],
    start: NDArray[np.int64],
    v: int,
    dx: float,
    dy: float,
    tol_rel: float,
) -> bool:  # pragma: no cover - compiled
    """``sides_split`` of one line of direction ``dx, dy`` at vertex ``v`` (-1: never)."""
    if v < 0:
        return False
    dn = math.hypot(dx, dy)
    left = False
    right = False
    for t in range(start[v], start[v + 1]):
        rx, ry = rays[t, 0], rays[t, 1]
        cross = dx * ry - dy * rx
        tol = tol_rel * (dn * math.hypot(rx, ry))
        if cross > tol:
            left = True
        elif cross < -tol:
            right = True
    return left and right


@njit(cache=True, nogil=True)
def crossing_t(
    x0: float, y0: float, x1: float, y1: float, c: NDArray[np.float64]
) -> float:  # pragma: no cover - compiled
    """The parameter (0 at ``x0, y0``, 1 at ``x1, y1``) where the segment's line meets wall ``c``.

    ``c``: ``ax, ay, bx, by`` px. Parallel lines: 0. The one arithmetic of every test of a
    band at a crossing (``wall_tests``, ``walk``), so they agree to the bit.
    """
    dx, dy = x1 - x0, y1 - y0
    ex, ey = c[2] - c[0], c[3] - c[1]
    denom = dx * ey - dy * ex
    return ((c[0] - x0) * ey - (c[1] - y0) * ex) / denom if denom != 0 else 0.0


@njit(cache=True, nogil=True)
def band_verdict(
    t_cross: float, band: NDArray[np.float64], lo_w: float, hi_w: float, low_ok: bool
) -> tuple[bool, bool]:  # pragma: no cover - compiled
    """GEO-5, GEO-5a at the crossing (``bands.band_at``, ``bands.meets``): (counts, partial).

    ``band``: ``bottom0, bottom1, top0, top1`` of the segment (grid units); the wall's
    height range ``[lo_w, hi_w)``. It counts when it covers the band there, or covers part
    of it and ``low_ok`` (a low obstacle may block); ``partial``: it counts as a low
    obstacle.
    """
    tc = fmin(fmax(t_cross, 0.0), 1.0)
    b0, b1, h0, h1 = band[0], band[1], band[2], band[3]
    low = b0 + tc * (b1 - b0)
    high = fmax(h0 + tc * (h1 - h0), low)
    thin = b0 == h0 and b1 == h1
    thick = (not thin) and low < hi_w and lo_w < high and lo_w < hi_w
    covers = (thin and lo_w <= low and low < hi_w) or (thick and lo_w <= low and high <= hi_w)
    partly = thick and not covers and low_ok
    return covers or partly, partly
