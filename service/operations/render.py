"""``POST /v1/render``: a picture of the scene with the traced lines of one question.

A render query (``RenderQuerySchema``: a cover, vision, line-of-effect or line-of-sight
question with one target) is asked through the operation table, as ``/v1/cover`` and the
others answer it; :data:`RENDERED` says, per query type, which operation, how the query reads
as that operation's request, and which lines of the answer to draw. The picture itself is
``service.render`` (``render_svg``, ``render_answer``).

No Flask here. Errors are the asked operation's (``RulesError`` 422, ``UnknownToken`` 404),
at their path under ``query``, and ``marshmallow.ValidationError`` for ``query.options``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from marshmallow import ValidationError

from schemas.requests import LineOptionsSchema
from service import rules
from service.engine.budget import WorkBudget
from service.engine.scene import BuiltScene, find_token
from service.engine.spaces import box_centre
from service.errors import RulesError
from service.model import Level, Scene
from service.operations.options import load_options
from service.render import render_answer, render_svg
from service.render.floors import picked_level
from service.render.viewpoint import GM, frame, redact_answer, redact_lines, seen_by

__all__ = ["RENDERED", "RenderedQuery", "render"]


def _query_path(path: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """A path of the asked operation's request as a path of the render query."""
    if path[:1] == ("targets",):  # the query's one target is the request's targets[0]
        return ("query", "target")
    return ("query", *path)


@contextmanager
def _under_query() -> Iterator[None]:
    """Errors of the operation a render query asks, at their path under ``query``."""
    try:
        yield
    except RulesError as err:
        err.path = _query_path(err.path)
        raise


def _centre(geo: BuiltScene, token_id: str) -> list[float]:
    return list(box_centre(geo.token_boxes[token_id]))


def _end_point(geo: BuiltScene, ref: Mapping[str, Any]) -> list[float]:
    return _centre(geo, ref["token"]) if "token" in ref else list(ref["point"])


def _cover_lines(geo: BuiltScene, query: dict[str, Any], answer: dict[str, Any]) -> Any:
    """The traced lines of the one cover result."""
    return answer["results"][0]["lines"]


def _vision_lines(geo: BuiltScene, query: dict[str, Any], answer: dict[str, Any]) -> Any:
    """The centre-to-centre line, blocked when the observer does not see the target."""
    result = answer["results"][0]
    line = {
        "from": _centre(geo, query["observer"]),
        "to": _centre(geo, query["target"]),
        "blocked": not result["can_see"],
        "blockers": result["blockers"],
    }
    return [line]


def _line_lines(geo: BuiltScene, query: dict[str, Any], answer: dict[str, Any]) -> Any:
    """The clear witness segment, else the blocked line between the ends' centres."""
    if answer["witness"] is not None:
        start, end = answer["witness"]
        return [{"from": start, "to": end, "blocked": False, "blockers": []}]
    ends = [_end_point(geo, query["from"]), _end_point(geo, query["to"])]
    return [{"from": ends[0], "to": ends[1], "blocked": True, "blockers": answer["blockers"]}]


def _cover_request(query: dict[str, Any]) -> dict[str, Any]:
    rules.get(query["ruleset"])  # an unknown ruleset before invalid options, as /v1/cover
    return {
        "ruleset": query["ruleset"],
        "attacker": query["attacker"],
        "targets": [query["target"]],
        "attack": query["attack"] or {"kind": "ranged", "origin": None},
        "options": load_options("cover", query["options"], ("query", "options")),
    }


def _vision_request(query: dict[str, Any]) -> dict[str, Any]:
    rules.get(query["ruleset"])
    return {
        "ruleset": query["ruleset"],
        "observer": query["observer"],
        "targets": [query["target"]],
        "options": load_options("vision", query["options"], ("query", "options")),
    }


def _line_request(query: dict[str, Any]) -> dict[str, Any]:
    """A line query as the line endpoints take it, its options checked as theirs.

    Its ``ruleset`` (optional) picks the cited ids; its ``options`` (``corner_inset``) give
    the same 422 as theirs, under ``query.options``.
    """
    if query.get("ruleset") is not None:
        rules.get(query["ruleset"])  # an unknown ruleset is the 422 /v1/line-of-effect gives
    try:
        options = LineOptionsSchema().load(dict(query["options"]))
    except ValidationError as err:
        raise ValidationError({"query": {"options": err.messages}}) from None
    return {
        "source": query["from"],
        "target": query["to"],
        "effect": None,
        "options": options,
        "ruleset": query.get("ruleset"),
    }


@dataclasses.dataclass(frozen=True, slots=True)
class RenderedQuery:
    """How ``POST /v1/render`` answers one query type through the table."""

    #: Key of the operation asked.
    operation: str
    #: The loaded render query as that operation's loaded request.
    request: Callable[[dict[str, Any]], dict[str, Any]]
    #: The traced lines to draw: API line dicts (``from``, ``to`` px, ``blocked``,
    #: ``blockers``), from the built scene, the query and the dumped answer.
    lines: Callable[[BuiltScene, dict[str, Any], dict[str, Any]], Any]


RENDERED: dict[str, RenderedQuery] = {
    "cover": RenderedQuery("cover", _cover_request, _cover_lines),
    "vision": RenderedQuery("vision", _vision_request, _vision_lines),
    "line-of-effect": RenderedQuery("line-of-effect", _line_request, _line_lines),
    "line-of-sight": RenderedQuery("line-of-sight", _line_request, _line_lines),
}


def _asked(query: Mapping[str, Any] | None) -> tuple[list[str], list[Any]]:
    """The token ids a render query asks about, and its points (an area's origin, px)."""
    if query is None:
        return [], []
    ids = [query[k] for k in ("attacker", "observer", "target") if query.get(k) is not None]
    points = []
    origin = (query.get("attack") or {}).get("origin")
    if origin:
        points.append(origin)
    for end in (query.get("from"), query.get("to")):
        if end is None:
            continue
        if "token" in end:
            ids.append(end["token"])
        else:
            points.append(end["point"])
    return ids, points


@dataclasses.dataclass(frozen=True, slots=True)
class _View:
    """Whose picture (``viewer``, None for the GM), its scene and the area it frames."""

    viewer: str | None
    scene: Scene
    area: tuple[float, float, float, float] | None
    crop: bool
    level: Level | None = None


def _view(geo: BuiltScene, args: Mapping[str, Any], lines: Any) -> _View:
    """The scene drawn for ``args["viewer"]`` and ``args["crop"]`` (``service.render.viewpoint``).

    A token viewer gets :func:`seen_by`'s scene inside the frame around the asked tokens; a
    GM's cropped picture the whole scene cut to that frame; a GM's whole picture the scene.
    """
    viewer = args.get("viewer", GM)
    crop = bool(args.get("crop", False))
    who = None if viewer == GM else viewer
    ids, points = _asked(args.get("query"))
    level = _level(geo.scene, args.get("level"), ([who] if who else []) + ids)
    if who is None and not crop:
        return _View(None, geo.scene, None, False, level)
    if not ids and who is not None:
        ids = [who]  # the bare scene around the viewer
    area = frame(geo.scene, ids, lines, points)
    return _View(who, seen_by(geo.scene, who, ids, area), area, crop, level)


def _level(scene: Scene, asked: str | None, token_ids: list[str]) -> Level | None:
    """The one level a building's picture draws (GEO-10): asked, the viewer's, the asker's."""
    try:
        return picked_level(scene, asked, token_ids)
    except KeyError:
        known = ", ".join(repr(lv.id) for lv in scene.levels) or "none"
        raise RulesError(
            f"Unknown level {asked!r}: the scene's levels are {known}.", ("level",)
        ) from None


def render(geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None) -> str:
    """``POST /v1/render``: the scene as SVG, with the traced lines of ``args["query"]``.

    Parameters
    ----------
    geo : BuiltScene
    args : dict
        Loaded by ``RenderRequestSchema``; ``query`` (loaded by ``RenderQuerySchema``) is
        None for the bare scene, else a cover, vision, line-of-effect or line-of-sight
        query with one target; ``viewer`` (``"gm"`` or a token id) and ``crop``, whose
        picture and how framed (``service.render.viewpoint``); ``level``, the one floor
        of a building drawn (else the viewer's or the asking token's, GEO-10). The
        answer is the asked operation's, whoever views it (it is what applies to the
        roll); a token viewer's picture leaves out what the GM hides, its blockers among
        them.

    Returns
    -------
    str
        The SVG document (``service.render``), captioned with the answer.

    Raises
    ------
    RulesError, UnknownToken
        As the asked operation raises them, at their path under ``query`` (its one
        target at ``query.target``); ``UnknownToken`` at ``viewer`` for a viewer not in
        the scene; ``RulesError`` at ``level`` for a level the scene does not have.
    marshmallow.ValidationError
        Invalid ``query.options``.
    """
    viewer = args.get("viewer", GM)
    if viewer != GM:
        find_token(geo.scene, viewer, ("viewer",))  # 404 with the nearest id or name
    query = args.get("query")
    if query is None:
        seen = _view(geo, args, ())
        view = seen.area if seen.crop else None
        return render_svg(seen.scene, view=view, chat=seen.crop, level=seen.level)
    from service.operations import OPERATIONS  # the table, which holds this operation too

    how = RENDERED[query["type"]]
    operation = OPERATIONS[how.operation]
    with _under_query():
        answer = operation.dump(operation.answer(geo, how.request(query), budget=budget))
    lines = how.lines(geo, query, answer)
    seen = _view(geo, args, lines)
    if seen.viewer is not None:
        lines = redact_lines(lines, seen.scene)
        answer = redact_answer(answer, seen.scene)
    view = seen.area if seen.crop else None
    return render_answer(
        seen.scene, query, answer, lines, view=view, chat=seen.crop, level=seen.level
    )
