"""Foundry region shapes (v12 to v14) as outlines in canvas px (FORMATS.md A.7, pitfall 15).

Every shape type of Foundry v14's ``BaseShapeData.TYPES`` becomes rings of points: the
v12/v13 ``rectangle``, ``circle``, ``ellipse`` and ``polygon``, and v14's ``emanation``,
``cone``, ``ring``, ``line``, ``token`` and ``grid``, with v14's anchored rectangles
(``anchorX``/``anchorY``). Standard library only. The fields are those of Foundry v14's
shape data models (``foundry.data.*ShapeData``); where the source does not say how Foundry
draws a shape, the docstring says what is assumed.

Angles: degrees, clockwise on screen (y down), 0 pointing right (+x), as Foundry's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from adapters._common import CLEAN_DECIMALS, finite_number

#: Vertices of the polygon that approximates a non-circular ellipse region.
ELLIPSE_VERTICES = 32
#: Vertices per full turn of the arcs of cones, rings and rounded emanations.
ARC_VERTICES = 64

#: ``CONST.TOKEN_SHAPES`` values that are ellipses (the others: rectangles, trapezoids).
TOKEN_ELLIPSES = (0, 1)
#: ``CONST.TOKEN_SHAPES`` values that are rectangles.
TOKEN_RECTANGLES = (4, 5)

Ring = list[list[float]]


def numbers(shape: Mapping, *keys: str) -> list[float] | None:
    """The finite numbers of ``keys`` in ``shape``, or ``None`` when one is missing."""
    values = [finite_number(shape.get(k)) for k in keys]
    out = [float(v) for v in values if v is not None]
    return out if len(out) == len(keys) else None


_num = numbers


def rotated(offsets: Sequence[tuple[float, float]], cx: float, cy: float, degrees: float) -> Ring:
    """Offsets rotated clockwise on screen (y down) by ``degrees`` about (cx, cy), in px."""
    theta = math.radians(degrees)
    cos, sin = math.cos(theta), math.sin(theta)
    return [
        [
            round(cx + dx * cos - dy * sin, CLEAN_DECIMALS),
            round(cy + dx * sin + dy * cos, CLEAN_DECIMALS),
        ]
        for dx, dy in offsets
    ]


def arc(cx: float, cy: float, r: float, start: float, end: float) -> list[tuple[float, float]]:
    """Points of a circular arc from ``start`` to ``end`` degrees (both kept), as offsets.

    ``ARC_VERTICES`` per full turn, at least one step; offsets from (cx, cy) are returned
    as absolute points.
    """
    steps = max(1, math.ceil(abs(end - start) / 360 * ARC_VERTICES))
    out = []
    for k in range(steps + 1):
        a = math.radians(start + (end - start) * k / steps)
        out.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return out


def _clean(points: Sequence[tuple[float, float]]) -> Ring:
    return [[round(x, CLEAN_DECIMALS), round(y, CLEAN_DECIMALS)] for x, y in points]


def ellipse(cx: float, cy: float, rx: float, ry: float, rotation: float = 0.0) -> Ring:
    """An ellipse as a ``ELLIPSE_VERTICES``-gon (a circle as an ``ARC_VERTICES``-gon)."""
    n = ARC_VERTICES if rx == ry else ELLIPSE_VERTICES
    outline = [
        (rx * math.cos(2 * math.pi * k / n), ry * math.sin(2 * math.pi * k / n)) for k in range(n)
    ]
    return rotated(outline, cx, cy, rotation)


def rectangle(shape: Mapping) -> tuple[list[float], float] | None:
    """``([x0, y0, width, height], rotation)``: a rectangle's box before its rotation.

    ``None`` without numbers or without a positive size.

    v14 (``anchorX``/``anchorY`` present): the point ``(x, y)`` is the anchor, at the
    fraction ``(anchorX, anchorY)`` of the width and height from the top-left corner, and
    the rectangle rotates about it. v12/v13 (no anchor): ``(x, y)`` is the top-left corner
    and the rectangle rotates about its centre.
    """
    found = _num(shape, "x", "y", "width", "height")
    if found is None or found[2] <= 0 or found[3] <= 0:
        return None
    x, y, w, h = found
    ax, ay = (finite_number(shape.get(k)) or 0 for k in ("anchorX", "anchorY"))
    return [x - ax * w, y - ay * h, w, h], finite_number(shape.get("rotation")) or 0.0


def rectangle_ring(shape: Mapping) -> Ring | None:
    """A rectangle's four corners, rotated as Foundry rotates it (``rectangle``)."""
    found = rectangle(shape)
    if found is None:
        return None
    (x0, y0, w, h), rotation = found
    anchored = "anchorX" in shape or "anchorY" in shape
    px, py = (float(shape["x"]), float(shape["y"])) if anchored else (x0 + w / 2, y0 + h / 2)
    corners = [(x0 - px, y0 - py), (x0 + w - px, y0 - py), (x0 + w - px, y0 + h - py)]
    corners.append((x0 - px, y0 + h - py))
    return rotated(corners, px, py, rotation)


def cone(shape: Mapping) -> Ring | None:
    """A cone from its origin ``(x, y)``: ``radius`` px, ``angle`` wide, facing ``rotation``.

    ``curvature`` ``round``: a circular sector of that radius. ``flat``: the triangle whose
    far edge, square to the facing, lies ``radius`` from the origin (Foundry's flat cone
    template: corners at ``radius / cos(angle / 2)``). ``semicircle`` (unverified): the
    sides ``radius`` long, the far edge a half circle on the chord between their ends.
    """
    found = _num(shape, "x", "y", "radius", "angle")
    if found is None or found[2] <= 0 or not 0 < found[3] <= 360:
        return None
    x, y, r, angle = found
    facing = finite_number(shape.get("rotation")) or 0.0
    lo, hi = facing - angle / 2, facing + angle / 2
    curvature = shape.get("curvature", "round")
    if curvature == "flat" and angle < 180:
        far = r / math.cos(math.radians(angle / 2))
        return _clean([(x, y), *arc(x, y, far, lo, lo), *arc(x, y, far, hi, hi)])
    if curvature == "semicircle" and angle < 180:
        (ax, ay), (bx, by) = arc(x, y, r, lo, lo)[0], arc(x, y, r, hi, hi)[0]
        half = math.hypot(bx - ax, by - ay) / 2
        cap = arc((ax + bx) / 2, (ay + by) / 2, half, facing - 90, facing + 90)
        return _clean([(x, y), *cap])
    if angle >= 360:
        return ellipse(x, y, r, r)
    return _clean([(x, y), *arc(x, y, r, lo, hi)])


def ring(shape: Mapping) -> list[Ring] | None:
    """A ring about ``(x, y)``: from ``radius - innerWidth`` to ``radius + outerWidth`` px.

    Two half rings (each a simple polygon: the outer half circle, then the inner one back),
    whose union is the annulus; a ring with no inner radius is one disc.
    """
    found = _num(shape, "x", "y", "radius", "innerWidth", "outerWidth")
    if found is None:
        return None
    x, y, r, inner, outer = found
    r_in, r_out = max(0.0, r - inner), r + outer
    if r_out <= r_in:
        return None
    if r_in == 0:
        return [ellipse(x, y, r_out, r_out)]
    halves = []
    for start in (0.0, 180.0):
        out_arc = arc(x, y, r_out, start, start + 180)
        in_arc = arc(x, y, r_in, start + 180, start)
        halves.append(_clean(out_arc + in_arc))
    return halves


def line(shape: Mapping) -> Ring | None:
    """A line from its origin ``(x, y)``: ``length`` px along ``rotation``, ``width`` across.

    The rectangle whose one short side is centred on the origin.
    """
    found = _num(shape, "x", "y", "length", "width")
    if found is None or found[2] <= 0 or found[3] <= 0:
        return None
    x, y, length, width = found
    rotation = finite_number(shape.get("rotation")) or 0.0
    half = width / 2
    return rotated([(0, -half), (length, -half), (length, half), (0, half)], x, y, rotation)


def token_box(shape: Mapping, cell_px: float) -> list[float] | None:
    """A token shape's box ``[x0, y0, x1, y1]`` px: ``width``/``height`` grid spaces."""
    found = _num(shape, "x", "y", "width", "height")
    if found is None or found[2] <= 0 or found[3] <= 0:
        return None
    x, y, w, h = found
    return [x, y, x + w * cell_px, y + h * cell_px]


def token(shape: Mapping, cell_px: float, warn: Any) -> Ring | None:
    """A token shape: its rectangle, or the ellipse inside it (``TOKEN_ELLIPSES``).

    Trapezoids (hex tokens) are read as their rectangle, with a warning.
    """
    box = token_box(shape, cell_px)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    kind = shape.get("shape")
    if kind in TOKEN_ELLIPSES:
        return ellipse((x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2)
    if kind not in TOKEN_RECTANGLES:
        warn(f"token shape {kind!r} read as its rectangle")
    return _clean([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])


def emanation(shape: Mapping, cell_px: float, warn: Any) -> Ring | None:
    """An emanation: its ``base`` shape grown by ``radius`` px all round.

    A rectangle or token base (unrotated) grows into a rectangle with quarter-circle
    corners of that radius; a circle base into a circle of the summed radius; an ellipse
    base into its outline offset outward along the normals. Other bases: ``None``.
    """
    base = shape.get("base")
    r = finite_number(shape.get("radius"))
    if not isinstance(base, Mapping) or r is None or r < 0:
        return None
    kind = base.get("type")
    if kind in ("token", "rectangle"):
        if kind == "token":
            box = token_box(base, cell_px)
            if box is not None and base.get("shape") in TOKEN_ELLIPSES:
                return _offset_ellipse(base_ellipse(box), r)
        else:
            placed = rectangle(base)
            box = None
            if placed is not None and placed[1] % 360 == 0:
                bx, by, bw, bh = placed[0]
                box = [bx, by, bx + bw, by + bh]
        if box is None:
            return None
        return _rounded_box(box, r)
    if kind == "circle":
        disc = _num(base, "x", "y", "radius")
        return None if disc is None else ellipse(disc[0], disc[1], disc[2] + r, disc[2] + r)
    if kind == "ellipse":
        oval = _num(base, "x", "y", "radiusX", "radiusY")
        if oval is None:
            return None
        rotation = float(finite_number(base.get("rotation")) or 0.0)
        return _offset_ellipse((oval[0], oval[1], oval[2], oval[3], rotation), r)
    warn(f"emanation around a {kind!r} base not mapped")
    return None


def base_ellipse(box: list[float]) -> tuple[float, float, float, float, float]:
    """The ellipse ``(cx, cy, rx, ry, rotation)`` inside a box ``[x0, y0, x1, y1]`` px."""
    x0, y0, x1, y1 = box
    return ((x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2, 0.0)


def _rounded_box(box: list[float], r: float) -> Ring:
    """The box grown by ``r`` px with quarter-circle corners (a box when ``r`` is 0)."""
    x0, y0, x1, y1 = box
    if r == 0:
        return _clean([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    pts = [
        *arc(x1, y1, r, 0, 90),
        *arc(x0, y1, r, 90, 180),
        *arc(x0, y0, r, 180, 270),
        *arc(x1, y0, r, 270, 360),
    ]
    return _clean(pts)


def _offset_ellipse(e: tuple[float, float, float, float, float], r: float) -> Ring:
    """An ellipse's outline moved ``r`` px outward along its normals."""
    cx, cy, rx, ry, rotation = e
    offsets = []
    for k in range(ARC_VERTICES):
        t = 2 * math.pi * k / ARC_VERTICES
        px, py = rx * math.cos(t), ry * math.sin(t)
        nx, ny = ry * math.cos(t), rx * math.sin(t)
        norm = math.hypot(nx, ny) or 1.0
        offsets.append((px + r * nx / norm, py + r * ny / norm))
    return rotated(offsets, cx, cy, rotation)


def grid_cells(shape: Mapping, cell_px: float) -> list[list[float]] | None:
    """A grid shape's squares as boxes ``[x, y, width, height]`` px, runs of a row joined.

    ``offsets``: the grid spaces ``{i, j}`` (row, column; or a flat ``[i0, j0, i1, j1, …]``
    list, unverified), square ``(i, j)`` spanning ``j * size .. (j + 1) * size`` in x and
    ``i * size ..`` in y on the canvas (square grids only). ``None`` when unreadable.
    """
    raw = shape.get("offsets")
    cells: list[tuple[int, int]] = []
    if isinstance(raw, list) and all(isinstance(o, Mapping) for o in raw):
        for o in raw:
            i, j = finite_number(o.get("i")), finite_number(o.get("j"))
            if i is None or j is None:
                return None
            cells.append((int(i), int(j)))
    elif (
        isinstance(raw, list)
        and len(raw) % 2 == 0
        and all(finite_number(v) is not None for v in raw)
    ):
        cells = [(int(raw[k]), int(raw[k + 1])) for k in range(0, len(raw), 2)]
    else:
        return None
    boxes = []
    for i in sorted({i for i, _ in cells}):
        cols = sorted({j for r, j in cells if r == i})
        start = prev = cols[0]
        for j in [*cols[1:], None]:
            if j is not None and j == prev + 1:
                prev = j
                continue
            boxes.append([start * cell_px, i * cell_px, (prev - start + 1) * cell_px, cell_px])
            if j is not None:
                start = prev = j
    return boxes
