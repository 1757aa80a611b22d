"""The area a light actually lights: its radius clipped by the walls that block light.

A visibility polygon from the light's position against the walls that restrict light
(GEO-1 ``light``), computed by casting rays: one ray towards each end of each such wall
(and just beside it, on both sides), plus :data:`ARC_RAYS` evenly spaced rays for the
round edge. Between two consecutive rays the nearest wall is the same one, so the polygon
is exact up to :data:`BESIDE_RAD`; it is then cut to the light's radius (and cone).

Bounded work: at most :data:`MAX_WALLS` walls per light (the nearest) and so at most
``3 * 2 * MAX_WALLS + ARC_RAYS`` rays; a light with more walls in reach is drawn against
its nearest :data:`MAX_WALLS` only (the picture, not an answer, is approximate there). All
the lights of one picture share :data:`PICTURE_TESTS` ray–wall tests (:class:`ClipBudget`);
lights past it are drawn unclipped, and their titles say so.

Which walls (as ``service.lighting`` reads them): a closed door or wall whose ``light`` is
not ``"none"``; a one-way wall only from its blocking side (GEO-3); a proximity wall only
when the light is at least its ``threshold.light`` away, a distance wall only when it is
at most that far (GEO-4; a threshold of 0 is none); a ``"limited"`` wall only as the
second limited wall a ray crosses (GEO-4); a wall with a height range only when the
light's elevation is inside it (GEO-5, half-open). A light with ``walls: false`` is not
clipped.

References
----------
shared/RULES.md GEO-1..5; 5E-VIS-3 (bright and dim radii).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry

from service.model import Light, Scene, Wall

#: Evenly spaced rays for the round edge of the lit area.
ARC_RAYS = 128
#: Most walls a light's area is clipped against (its nearest).
MAX_WALLS = 400
#: Angle (radians) of the rays cast just beside a wall's end.
BESIDE_RAD = 1e-4
#: Segments per quarter circle of the light's round edge.
QUAD_SEGS = 24
#: Most ray–wall tests for all the lights of one picture (beyond: whole circles).
PICTURE_TESTS = 10_000_000


def _segment_distance(px: float, py: float, c: np.ndarray) -> np.ndarray:
    """Distance (px) from ``(px, py)`` to each segment ``c`` (n × 4)."""
    ax, ay, bx, by = c[:, 0], c[:, 1], c[:, 2], c[:, 3]
    ex, ey = bx - ax, by - ay
    length2 = ex * ex + ey * ey
    t = np.where(
        length2 > 0, ((px - ax) * ex + (py - ay) * ey) / np.where(length2 > 0, length2, 1), 0
    )
    t = np.clip(t, 0.0, 1.0)
    return np.hypot(ax + t * ex - px, ay + t * ey - py)  # type: ignore[no-any-return]


def blocks_from(wall: Wall, x: float, y: float) -> bool:
    """GEO-3: whether ``wall`` blocks lines from an origin at ``(x, y)`` px (its side).

    A two-way wall blocks from both sides; ``"left"`` only origins P with
    (A.y−P.y)(B.x−P.x) − (A.x−P.x)(B.y−P.y) > 0 for its segment A→B, ``"right"`` only
    origins on the other side (on the line: neither).
    """
    if wall.direction == "both":
        return True
    x0, y0, x1, y1 = wall.c
    side = (y0 - y) * (x1 - x) - (x0 - x) * (y1 - y)
    return side > 0 if wall.direction == "left" else side < 0


def _blocks_light(wall: Wall, light: Light, px_per_unit: float) -> str | None:
    """``"wall"``, ``"limited"`` or None: how ``wall`` stops ``light`` (module docstring)."""
    restriction = wall.light
    if restriction == "none" or (wall.door != "none" and wall.door_state == "open"):
        return None
    if wall.height is not None and not (wall.height.low <= light.elevation < wall.height.high):
        return None
    if not blocks_from(wall, light.x, light.y):
        return None
    threshold = wall.threshold.light if wall.threshold is not None else None
    if restriction in ("proximity", "distance") and threshold:
        far = float(_segment_distance(light.x, light.y, np.array([wall.c], float))[0])
        units = far / px_per_unit
        if restriction == "proximity" and units < threshold:
            return None
        if restriction == "distance" and units > threshold:
            return None
    return "limited" if restriction == "limited" else "wall"


def _ray_hits(ox: float, oy: float, angles: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Distance along each ray (rays × walls) to each wall it crosses, ``inf`` if none."""
    dx, dy = np.cos(angles)[:, None], np.sin(angles)[:, None]
    ax, ay = c[None, :, 0] - ox, c[None, :, 1] - oy
    ex, ey = c[None, :, 2] - c[None, :, 0], c[None, :, 3] - c[None, :, 1]
    denom = dx * ey - dy * ex
    safe = np.where(denom != 0, denom, 1.0)
    t = (ax * ey - ay * ex) / safe
    u = (ax * dy - ay * dx) / safe
    hit = (denom != 0) & (t > 1e-9) & (u >= 0) & (u <= 1)
    return np.where(hit, t, np.inf)  # type: ignore[no-any-return]


class ClipBudget:
    """Ray–wall tests left for one picture (:data:`PICTURE_TESTS`) and the walls' ends.

    Once spent, further lights are drawn as whole circles (``exhausted`` says so), so a
    scene with thousands of lights and walls still draws in bounded time.
    """

    def __init__(self, scene: Scene, tests: int | None = None) -> None:
        self.left = PICTURE_TESTS if tests is None else tests
        self.exhausted = False
        self.coords = np.array([w.c for w in scene.walls], dtype=float).reshape(-1, 4)

    def spend(self, tests: int) -> bool:
        """Take ``tests`` ray–wall tests if that many are left; False (and exhausted) if not."""
        if tests > self.left:
            self.exhausted = True
            return False
        self.left -= tests
        return True


def lit_area(
    scene: Scene, light: Light, radius_px: float, budget: ClipBudget | None = None
) -> BaseGeometry | None:
    """The area ``light`` lights within ``radius_px``, clipped by walls; None if no wall cuts.

    Parameters
    ----------
    scene : service.model.Scene
        Its walls and ``grid.px_per_unit`` (thresholds are in grid units).
    light : service.model.Light
        Position px; ``angle``/``rotation`` give its cone (clipped by the caller's sector).
    radius_px : float
        The outer radius drawn, px (> 0).
    budget : ClipBudget, optional
        The picture's ray–wall tests left (a fresh one of :data:`PICTURE_TESTS` if None);
        when it cannot pay for this light, None (the whole circle).

    Returns
    -------
    shapely geometry or None
        The lit area (a star-shaped polygon from the light, cut to the circle of
        ``radius_px``), or None when the light is not constrained by walls (``walls:
        false``) or no light-blocking wall within its radius cuts anything off: then the
        whole circle is lit.
    """
    if not light.walls or radius_px <= 0 or not scene.walls:
        return None
    ppu = scene.grid.px_per_unit
    budget = budget if budget is not None else ClipBudget(scene)
    if budget.exhausted:
        return None
    coords = budget.coords
    near = _segment_distance(light.x, light.y, coords) < radius_px
    kinds: list[str] = []
    keep: list[int] = []
    for i in np.flatnonzero(near):
        how = _blocks_light(scene.walls[int(i)], light, ppu)
        if how is not None:
            kinds.append(how)
            keep.append(int(i))
    if not keep:
        return None
    c = coords[keep]
    limited = np.array([k == "limited" for k in kinds])
    if len(keep) > MAX_WALLS:
        order = np.argsort(_segment_distance(light.x, light.y, c))[:MAX_WALLS]
        c, limited = c[order], limited[order]
    ends = np.concatenate([c[:, 0:2], c[:, 2:4]])
    to_end = np.arctan2(ends[:, 1] - light.y, ends[:, 0] - light.x)
    angles = np.concatenate(
        [
            to_end,
            to_end - BESIDE_RAD,
            to_end + BESIDE_RAD,
            np.linspace(-math.pi, math.pi, ARC_RAYS, endpoint=False),
        ]
    )
    angles = np.unique(np.mod(angles + math.pi, 2 * math.pi) - math.pi)
    far = radius_px * 1.5
    if not budget.spend(len(angles) * len(c)):
        return None
    hits = _ray_hits(light.x, light.y, angles, c)
    reach = np.full(len(angles), far)
    if np.any(~limited):
        reach = np.minimum(reach, hits[:, ~limited].min(axis=1))
    if np.count_nonzero(limited) >= 2:  # GEO-4: the second limited wall crossed stops it
        second = np.partition(hits[:, limited], 1, axis=1)[:, 1]
        reach = np.minimum(reach, second)
    xs = light.x + reach * np.cos(angles)
    ys = light.y + reach * np.sin(angles)
    ring = Polygon(np.column_stack([xs, ys]))
    if not ring.is_valid:
        ring = shapely.make_valid(ring)
    circle = Point(light.x, light.y).buffer(radius_px, quad_segs=QUAD_SEGS)
    lit = ring.intersection(circle)
    if lit.area >= circle.area * (1 - 1e-9):
        return None  # the walls in reach cut nothing off (one limited wall, say)
    return lit


def _polygons(geom: BaseGeometry) -> list[Polygon]:
    """The polygons in ``geom`` (collections flattened; lines and points left out)."""
    if isinstance(geom, Polygon):
        return [geom]
    out: list[Polygon] = []
    for part in getattr(geom, "geoms", ()):
        out += _polygons(part)
    return out


def geometry_path(geom: BaseGeometry, num: Callable[[float], str]) -> str:
    """SVG path data of the polygons of ``geom``.

    Every ring closed (draw with
    ``fill-rule="evenodd"``); ``num`` formats a coordinate.
    """
    parts: list[str] = []
    for poly in _polygons(geom):
        if poly.is_empty:
            continue
        for ring in (poly.exterior, *poly.interiors):
            pts = list(ring.coords)[:-1]
            if len(pts) < 3:
                continue
            (hx, hy), rest = pts[0], pts[1:]
            d = f"M{num(hx)} {num(hy)}" + "".join(f"L{num(x)} {num(y)}" for x, y in rest)
            parts.append(d + "Z")
    return "".join(parts)
