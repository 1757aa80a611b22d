"""What one token may know of a scene: the scene a player's picture is drawn from.

``POST /v1/render`` with a token ``viewer`` (shared/API.md "Batch and pictures") draws
:func:`seen_by`'s scene instead of the GM's, inside :func:`frame` (the asked tokens and the
lines between them, plus a margin); with ``crop`` the picture's view box is that frame, at
the size of a chat card (:data:`service.render.frame.CHAT_PX`).

What the GM hides never reaches the picture (docs/architecture.md, "What players see"):

- a hidden token (Foundry ``hidden``, Roll20 GM layer; ``Token.hidden``) is left out, its
  name, shape, carried light and its id among a traced line's blockers, unless it is the
  viewer or a token the query asks about;
- a closed secret door (``Wall.door`` ``"secret"``) is a plain wall under an id of its own
  (:func:`plain_id`), an open one is the gap the viewer sees; a one-way wall (GEO-3) is
  drawn two-way when it blocks the viewer's side, and not at all when the viewer sees
  through it;
- a switched-off light (``Light.on`` false) and a private light (``seen_by``
  ``"controllers"``) that the viewer does not carry are left out;
- anything wholly outside the frame is left out, and walls are cut at it.

Everything is in the scene's pixel frame (y down).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec
from shapely.geometry import LineString
from shapely.geometry import box as shapely_box

from service.engine.regions import region_geometry
from service.model import CarriedLight, Light, Scene, Token, Wall
from service.render.frame import Box, line_parts
from service.render.lightarea import blocks_from

__all__ = ["FRAME_MARGIN_SQUARES", "GM", "frame", "redact_answer", "redact_lines", "seen_by"]

#: The ``viewer`` that sees everything (the GM's picture, the default).
GM = "gm"

#: Margin of the frame around the asked tokens and their lines, in grid squares.
FRAME_MARGIN_SQUARES = 2.0


def frame(
    scene: Scene, token_ids: Iterable[str], lines: Sequence[Any] = (), points: Iterable[Any] = ()
) -> Box:
    """The frame ``(x0, y0, x1, y1)`` px around the asked tokens, lines and points.

    The union of the tokens' spaces, the traced lines' ends and the given points (an area's
    origin), grown by :data:`FRAME_MARGIN_SQUARES` grid squares on each side.
    """
    xs: list[float] = []
    ys: list[float] = []
    size = scene.grid.size
    for token_id in token_ids:
        tok = scene.token(token_id)
        if tok is not None:
            x0, y0, x1, y1 = tok.box(size)
            xs += [x0, x1]
            ys += [y0, y1]
    for line in lines:
        start, end, _, _ = line_parts(line)
        xs += [start[0], end[0]]
        ys += [start[1], end[1]]
    for point in points:
        xs.append(float(point[0]))
        ys.append(float(point[1]))
    if not xs:
        xs, ys = [0.0, size], [0.0, size]
    margin = FRAME_MARGIN_SQUARES * size
    return (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)


def _centre(tok: Token, size: float) -> tuple[float, float]:
    x0, y0, x1, y1 = tok.box(size)
    return ((x0 + x1) / 2, (y0 + y1) / 2)


def plain_id(wall_id: str) -> str:
    """The id a secret door is drawn under for a token viewer: ``"wall-"`` and 8 hex digits.

    A secret door keeps its place and its blocking, but not its VTT id, which would tell it
    apart from a plain wall (a VTT's client holds its walls' documents by id).
    """
    return "wall-" + hashlib.blake2s(wall_id.encode("utf-8"), digest_size=4).hexdigest()


def _seen_wall(wall: Wall, eye: tuple[float, float] | None, area: Any) -> Wall | None:
    """The wall as the viewer at ``eye`` knows it, cut to ``area``; None when unseen.

    ``eye`` None: the GM, who knows every wall as it is.
    """
    if eye is None:
        pass
    elif wall.door == "secret":
        if wall.door_state == "open":
            return None  # the opening the viewer sees
        wall = msgspec.structs.replace(wall, id=plain_id(wall.id), door="none", door_state="closed")
    if eye is not None and wall.direction != "both":
        if not blocks_from(wall, *eye):
            return None  # GEO-3: it lets the viewer's side see through
        wall = msgspec.structs.replace(wall, direction="both")
    seg = LineString([wall.c[:2], wall.c[2:]])
    if not seg.intersects(area):
        return None
    cut = seg.intersection(area)
    if cut.geom_type != "LineString" or cut.is_empty:
        return None  # only touches the frame at a point
    (ax, ay), (bx, by) = cut.coords[0], cut.coords[-1]
    return msgspec.structs.replace(wall, c=(ax, ay, bx, by))


def _inside(x: float, y: float, view: Box) -> bool:
    return view[0] <= x <= view[2] and view[1] <= y <= view[3]


def _in_area(tok: Token, size: float, area: Any) -> bool:
    return bool(shapely_box(*tok.box(size)).intersects(area))


def seen_by(scene: Scene, viewer: str | None, asked: Iterable[str], view: Box) -> Scene:
    """The scene as token ``viewer`` may know it, inside the frame ``view`` (module docstring).

    Parameters
    ----------
    scene : Scene
        The GM's scene.
    viewer : str or None
        Id of the viewing token (in ``scene``); None: the GM, who knows everything inside
        the frame.
    asked : iterable of str
        Ids of the tokens the query asks about: drawn even when hidden (the query names them).
    view : tuple of float
        ``(x0, y0, x1, y1)`` px (:func:`frame`).

    Returns
    -------
    Scene
        The same scene size, grid and environment, with only what the viewer may know.
    """
    size = scene.grid.size
    area = shapely_box(*view)
    gm = viewer is None
    keep = {viewer, *asked}
    eye_token = None if viewer is None else scene.token(viewer)
    eye = None if eye_token is None else _centre(eye_token, size)
    tokens = []
    for tok in scene.tokens:
        if (tok.hidden and not gm and tok.id not in keep) or not _in_area(tok, size, area):
            continue
        if tok.light.seen_by == "controllers" and not gm and tok.id != viewer:
            tok = msgspec.structs.replace(tok, light=CarriedLight())
        tokens.append(tok)
    walls = [w for w in (_seen_wall(wall, eye, area) for wall in scene.walls) if w is not None]
    lights: list[Light] = [
        li
        for li in scene.lights
        if (gm or (li.on and li.seen_by != "controllers")) and _inside(li.x, li.y, view)
    ]
    regions = [r for r in scene.regions if region_geometry(r.shape).intersects(area)]
    return msgspec.structs.replace(
        scene,
        walls=tuple(walls),
        tokens=tuple(tokens),
        lights=tuple(lights),
        regions=tuple(regions),
    )


def _known(blockers: Iterable[Mapping[str, Any]], scene: Scene) -> list[Mapping[str, Any]]:
    """The blockers the viewer may know, under the ids ``scene`` draws them with.

    Every one but a token left out of ``scene``; a secret door under its :func:`plain_id`.
    """
    drawn = {t.id for t in scene.tokens}
    walls = {w.id for w in scene.walls}
    out: list[Mapping[str, Any]] = []
    for b in blockers:
        kind, ident = b.get("kind", "wall"), str(b["id"])
        if kind == "token" and ident not in drawn:
            continue
        if kind == "wall" and ident not in walls and plain_id(ident) in walls:
            b = {**b, "id": plain_id(ident)}
        out.append(b)
    return out


def redact_lines(lines: Sequence[Mapping[str, Any]], scene: Scene) -> list[dict[str, Any]]:
    """The traced lines with only the blockers :func:`seen_by`'s ``scene`` still holds.

    A line a hidden creature blocks stays blocked (the answer applies to the roll), but
    says nothing of what blocks it.
    """
    return [{**line, "blockers": _known(line.get("blockers") or (), scene)} for line in lines]


def redact_answer(answer: Mapping[str, Any], scene: Scene) -> dict[str, Any]:
    """A line answer (``blockers`` at its top) with only the blockers ``scene`` holds."""
    if "blockers" not in answer:
        return dict(answer)
    return {**answer, "blockers": _known(answer["blockers"] or (), scene)}
