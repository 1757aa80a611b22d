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

from service import rules
from service.engine.budget import WorkBudget
from service.engine.scene import BuiltScene
from service.engine.spaces import box_centre
from service.errors import RulesError
from service.operations.options import load_options
from service.render import render_answer, render_svg

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
    return {"source": query["from"], "target": query["to"], "effect": None, "options": {}}


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


def render(geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None) -> str:
    """``POST /v1/render``: the scene as SVG, with the traced lines of ``args["query"]``.

    Parameters
    ----------
    geo : BuiltScene
    args : dict
        Loaded by ``RenderRequestSchema``; ``query`` (loaded by ``RenderQuerySchema``) is
        None for the bare scene, else a cover, vision, line-of-effect or line-of-sight
        query with one target.

    Returns
    -------
    str
        The SVG document (``service.render``), captioned with the answer.

    Raises
    ------
    RulesError, UnknownToken
        As the asked operation raises them, at their path under ``query`` (its one
        target at ``query.target``).
    marshmallow.ValidationError
        Invalid ``query.options``.
    """
    query = args.get("query")
    if query is None:
        return render_svg(geo.scene)
    from service.operations import OPERATIONS  # the table, which holds this operation too

    how = RENDERED[query["type"]]
    operation = OPERATIONS[how.operation]
    with _under_query():
        answer = operation.dump(operation.answer(geo, how.request(query), budget=budget))
    return render_answer(geo.scene, query, answer, how.lines(geo, query, answer))
