"""The operation table: request → core → answer, written once for every caller.

Each :class:`Operation` of :data:`OPERATIONS` (keyed by its path under ``/v1/``) owns the
request schema (``schemas.requests`` / ``schemas.modifiers``), the core call and the
response schema of one question. Three callers use the table and nothing else:

- the HTTP views (``service.api``, ``service.api_modifiers``): flask-smorest loads
  ``request`` (with :attr:`Operation.loader`, its one instance), the view resolves the scene
  and applies the service's configured limits, calls :meth:`Operation.prepare` and
  :meth:`Operation.answer`, and flask-smorest dumps the answer with ``response``; an
  operation with ``encode`` (``cover``: ``schemas.answers``, ``docs/architecture.md`` "HTTP
  views") has its answer written in C instead, the same bytes (:meth:`Operation.to_json`);
- the command line's local mode (``service.cli.local``): :meth:`Operation.run` loads the
  same request schema, answers and dumps with the same response schema, so its JSON is the
  HTTP API's;
- ``POST /v1/render`` (:func:`render`): it asks the cover, vision or line operation of its
  query through this table and hands the answer and its traced lines to
  :func:`service.render.render_answer`.

The package holds one idea per module, and this one re-exports their public names:

- ``options``: which endpoint takes which ruleset option, and the checks of a request's
  options and token ids;
- ``answers``: the answering operations (cover, vision, lighting, lines of effect and sight,
  matrices, the modifiers);
- ``render``: ``POST /v1/render``, asked through this table.

The built scene (``BuiltScene``, ``build_scene`` of ``service.engine.scene``) is imported
once below; the views and the command line take it from here.

No Flask here. Errors are the core's family (``service.errors``: ``RulesError`` → 422,
``UnknownToken`` → 404) plus ``marshmallow.ValidationError`` for a nested part an
operation loads itself (matrix and render options), with the field path in its messages.

References
----------
shared/API.md (the HTTP contract); shared/DESIGN.md "Errors".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import Schema

from schemas import answers as fast
from schemas import modifiers as sm
from schemas import requests as rq
from schemas import responses as rs
from service.engine.scene import BuiltScene, build_scene, find_token  # the built scene
from service.operations.answers import (
    cover,
    endpoint,
    flanking,
    gravity,
    lighting,
    line_of_effect,
    line_of_sight,
    matrix,
    prepare_flanking,
    prepare_known_ruleset,
    prepare_matrix,
    range_bands,
    underwater,
    vision,
)
from service.operations.options import (
    KIND_SCHEMAS,
    OPTION_ENDPOINTS,
    TOKEN_OPTIONS,
    load_options,
    option_endpoints,
    option_kinds,
    ruleset_options,
)
from service.operations.render import RENDERED, RenderedQuery, render

__all__ = [
    "KIND_SCHEMAS",
    "LOCAL_SCENE_ID",
    "OPERATIONS",
    "OPTION_ENDPOINTS",
    "RENDERED",
    "TOKEN_OPTIONS",
    "BuiltScene",
    "Operation",
    "RenderedQuery",
    "build_scene",
    "cover",
    "endpoint",
    "find_token",
    "flanking",
    "gravity",
    "lighting",
    "line_of_effect",
    "line_of_sight",
    "load_options",
    "matrix",
    "option_endpoints",
    "option_kinds",
    "range_bands",
    "render",
    "ruleset_options",
    "underwater",
    "vision",
]

#: ``scene_id`` that stands for "the scene is already built" when a caller without a scene
#: cache (the command line) loads a request schema, which asks for ``scene`` or ``scene_id``.
LOCAL_SCENE_ID = "local"


def _loaded(args: dict[str, Any]) -> dict[str, Any]:
    return args


@dataclasses.dataclass(frozen=True, slots=True)
class Operation:
    """One question of the API: its request schema, its core call, its response schema.

    Parameters
    ----------
    request : marshmallow.Schema subclass
        Loads the request body (the HTTP view's ``@blp.arguments``).
    answer : callable
        ``answer(geo, args, **kw)``: the core's answer for the built scene ``geo`` (None
        when ``scene`` is False) and the loaded ``args``.
    response : marshmallow.Schema subclass or None
        Dumps the answer (the view's ``@blp.response``); None when the answer is the
        document itself (render's SVG).
    prepare : callable
        Checks and loading that need no scene (known ruleset, nested options), run before
        the scene is resolved; returns the args to answer.
    scene : bool
        Whether the operation works on a scene (``scene`` or ``scene_id`` in the request).
    encode : callable, optional
        ``encode(answer)``: the answer as JSON bytes written in C (``schemas.answers``),
        equal to ``json.dumps(dump(answer), sort_keys=True, separators=(",", ":"))``, or
        None where only :attr:`response` can write it (see :meth:`to_json`).

    Attributes
    ----------
    loader : marshmallow.Schema
        The one instance of :attr:`request`, made once (a new instance per request would
        deep-copy every declared field); the HTTP view and :meth:`load` load with it.
    dumper : marshmallow.Schema or None
        The one instance of :attr:`response`.
    """

    request: type[Schema]
    answer: Callable[..., Any]
    response: type[Schema] | None
    prepare: Callable[[dict[str, Any]], dict[str, Any]] = _loaded
    scene: bool = True
    encode: Callable[[Any], bytes | None] | None = None
    loader: Schema = dataclasses.field(init=False, repr=False, compare=False)
    dumper: Schema | None = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "loader", self.request())
        object.__setattr__(self, "dumper", None if self.response is None else self.response())

    def load(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``body`` (a request without its scene) loaded by :attr:`request`.

        Raises ``marshmallow.ValidationError`` naming the field paths.
        """
        raw = {**body, "scene_id": LOCAL_SCENE_ID} if self.scene else dict(body)
        return self.loader.load(raw)  # type: ignore[no-any-return]

    def dump(self, answer: Any) -> Any:
        """The JSON-ready answer: ``answer`` dumped by :attr:`response` (as is without)."""
        return answer if self.dumper is None else self.dumper.dump(answer)

    def to_json(self, answer: Any) -> bytes | None:
        """``answer`` as compact JSON bytes with sorted keys, or None without a fast path.

        The bytes equal ``json.dumps(self.dump(answer), sort_keys=True, separators=(",",
        ":"))`` (ASCII only): the body Flask's ``jsonify`` writes, without its final
        newline. None when the operation has no :attr:`encode` or it declines the answer
        (``schemas.answers.cover_json``); the caller then dumps with :attr:`response`.
        """
        return None if self.encode is None else self.encode(answer)

    def run(self, geo: BuiltScene | None, body: Mapping[str, Any], **kw: Any) -> Any:
        """Load, prepare, answer and dump: the HTTP API's JSON answer for ``body``.

        Parameters
        ----------
        geo : BuiltScene or None
            The built scene the request is about (None for scene-free operations).
        body : mapping
            The HTTP request body without ``scene``/``scene_id``.
        **kw
            Passed to :attr:`answer` (``progress`` for the matrix).

        Raises
        ------
        marshmallow.ValidationError, RulesError
            As the HTTP API answers 422 / 404.
        """
        args = self.prepare(self.load(body))
        return self.dump(self.answer(geo, args, **kw))


#: Every operation, by its path under ``/v1/``.
OPERATIONS: dict[str, Operation] = {
    "cover": Operation(
        rq.CoverRequestSchema,
        cover,
        rs.CoverResponseSchema,
        prepare=prepare_known_ruleset,
        encode=fast.cover_json,
    ),
    "vision": Operation(
        rq.VisionRequestSchema, vision, rs.VisionResponseSchema, prepare=prepare_known_ruleset
    ),
    "lighting": Operation(rq.LightingRequestSchema, lighting, rs.LightingResponseSchema),
    "line-of-effect": Operation(rq.LineRequestSchema, line_of_effect, rs.LineResponseSchema),
    "line-of-sight": Operation(rq.SightRequestSchema, line_of_sight, rs.LineResponseSchema),
    "matrix": Operation(
        rq.MatrixRequestSchema, matrix, rs.MatrixResponseSchema, prepare=prepare_matrix
    ),
    "render": Operation(rq.RenderRequestSchema, render, None),
    "modifiers/flanking": Operation(
        rq.FlankingRequestSchema, flanking, rs.FlankingResponseSchema, prepare=prepare_flanking
    ),
    "modifiers/gravity": Operation(
        sm.GravityRequestSchema, gravity, sm.GravityResponseSchema, scene=False
    ),
    "modifiers/underwater": Operation(
        sm.UnderwaterRequestSchema, underwater, sm.UnderwaterResponseSchema, scene=False
    ),
    "modifiers/range": Operation(
        sm.RangeRequestSchema, range_bands, sm.RangeResponseSchema, scene=False
    ),
}
