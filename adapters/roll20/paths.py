"""Roll20 path geometry: a path's command list -> page-px polylines.

``left``/``top`` are the centre of the path's box, the points local to the box; rotation in
degrees, clockwise on screen; curves flattened into :data:`CURVE_SEGMENTS` segments each
(FORMATS.md B.2).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence

from adapters._common import clean, finite_number, kind_name
from adapters.roll20._context import Context, left_top, parse_number, read_number
from service.model import MAX_COORD_PX

#: Straight segments used for each quadratic or cubic curve of a path.
CURVE_SEGMENTS = 4

_ARITY = {"M": 2, "L": 2, "Q": 4, "C": 6, "Z": 0}


def path_polylines(
    raw: Mapping, where: str, ctx: Context
) -> list[list[tuple[float, float]]] | None:
    """Page-px polylines of one path, or None (path skipped with a warning).

    The commands are read from ``path``, or from ``_path`` where the path was saved from a
    Roll20 API object (whose read-only fields carry a leading underscore: ``_id``,
    ``_path``); a JSON string or an array.
    """
    source = "path" if raw.get("path") is not None or "_path" not in raw else "_path"
    commands = raw.get(source)
    if commands is None:
        if "points" in raw or "shape" in raw:
            ctx.warn(f"{where}: pathv2 shapes (shape/points) are not supported, path skipped")
        else:
            ctx.warn(f"{where}.path: missing, path skipped")
        return None
    where_cmds = f"{where}.{source}"
    if isinstance(commands, str):
        try:
            commands = json.loads(commands)
        except ValueError:
            ctx.warn(f"{where_cmds}: not valid JSON, path skipped")
            return None
    if not isinstance(commands, list):
        ctx.warn(f"{where_cmds}: {kind_name(commands)} is not a list of commands, path skipped")
        return None
    position = left_top(raw, where, "path", ctx)
    if position is None:
        return None
    local, curves = _local_polylines(commands, where_cmds, ctx)
    points = [p for line in local for p in line]
    if not points:
        ctx.warn(f"{where_cmds}: no points, path skipped")
        return None
    if curves:
        ctx.warn(
            f"{where_cmds}: {curves} curves (Q/C) flattened into {CURVE_SEGMENTS} segments each"
        )

    place = _placement(raw, where, points, position, ctx)
    return [[place(p) for p in line] for line in local]


def _placement(
    raw: Mapping,
    where: str,
    points: list[tuple[float, float]],
    centre_px: tuple[float, float],
    ctx: Context,
) -> Callable[[tuple[float, float]], tuple[float, float]]:
    """Box-local point -> page px: about the box centre, ``scaleX``/``scaleY``, ``rotation``.

    The box centre in local coordinates is ``width/2, height/2`` (FORMATS.md B.2), or the
    middle of the points' extent when a size is missing or unusable (warned); it lands on
    ``centre_px`` (the path's ``left``/``top``). An unusable scale is 1 (warned).
    """
    centre = []
    for key, axis in (("width", 0), ("height", 1)):
        size, ok = parse_number(raw.get(key))
        if size is None or size < 0:
            shown = "missing" if ok and size is None else f"{raw.get(key)!r} is not a size"
            ctx.warn(f"{where}.{key}: {shown}, box centre taken from the points' extent")
            values = [p[axis] for p in points]
            centre.append((min(values) + max(values)) / 2)
        else:
            centre.append(size / 2)
    scale = []
    for key in ("scaleX", "scaleY"):
        value, ok = parse_number(raw.get(key))
        if value is None or value == 0 or abs(value) > MAX_COORD_PX:
            if not ok or value is not None:
                ctx.warn(f"{where}.{key}: {raw.get(key)!r} is not a usable scale, 1 used")
            value = 1
        scale.append(value)
    rotation = read_number(raw.get("rotation"), f"{where}.rotation", ctx) or 0
    theta = math.radians(math.fmod(rotation, 360))
    cos, sin = math.cos(theta), math.sin(theta)
    left, top = centre_px

    def place(p: tuple[float, float]) -> tuple[float, float]:
        dx, dy = (p[0] - centre[0]) * scale[0], (p[1] - centre[1]) * scale[1]
        return (clean(left + dx * cos - dy * sin), clean(top + dx * sin + dy * cos))

    return place


def _local_polylines(
    commands: list, where: str, ctx: Context
) -> tuple[list[list[tuple[float, float]]], int]:
    """Box-local polylines of a Roll20 path command list, and the number of curves."""
    lines: list[list[tuple[float, float]]] = []
    current: list[tuple[float, float]] | None = None
    curves = 0
    bad: list[int] = []
    for j, item in enumerate(commands):
        if not isinstance(item, list | tuple) or not item or not isinstance(item[0], str):
            bad.append(j)
            current = None
            continue
        cmd = item[0].upper() if item[0] in ("z",) else item[0]
        if cmd not in _ARITY or len(item) - 1 < _ARITY[cmd]:
            bad.append(j)
            current = None
            continue
        values = [finite_number(v) for v in item[1 : 1 + _ARITY[cmd]]]
        if any(v is None for v in values):
            bad.append(j)
            current = None
            continue
        nums: list[float] = [float(v) for v in values if v is not None]
        if cmd == "Z":
            if current and len(current) > 1 and current[-1] != current[0]:
                current.append(current[0])
            continue
        end = (nums[-2], nums[-1])
        if cmd == "M" or current is None:
            current = [end]
            lines.append(current)
            continue
        start = current[-1]
        if cmd == "L":
            current.append(end)
        else:
            curves += 1
            controls = [(nums[k], nums[k + 1]) for k in range(0, len(nums) - 2, 2)]
            current.extend(_bezier(start, controls, end))
    if bad:
        shown = ", ".join(str(j) for j in bad[:5]) + (", ..." if len(bad) > 5 else "")
        ctx.warn(
            f"{where}: {len(bad)} unreadable commands skipped (indices {shown}); "
            "the line restarts after each"
        )
    return [line for line in lines if line], curves


def _bezier(
    start: tuple[float, float], controls: Sequence[tuple[float, float]], end: tuple[float, float]
) -> list[tuple[float, float]]:
    """Points of a quadratic (1 control) or cubic (2 controls) curve after ``start``."""
    pts = [start, *controls, end]
    out = []
    for step in range(1, CURVE_SEGMENTS + 1):
        t = step / CURVE_SEGMENTS
        layer = list(pts)
        while len(layer) > 1:  # de Casteljau
            layer = [
                ((1 - t) * a[0] + t * b[0], (1 - t) * a[1] + t * b[1])
                for a, b in zip(layer, layer[1:], strict=False)
            ]
        out.append(layer[0])
    out[-1] = end
    return out
