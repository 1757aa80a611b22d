"""The operation table: request → core → answer, written once for every caller.

Each :class:`Operation` of :data:`OPERATIONS` (keyed by its path under ``/v1/``) owns the
request schema (``schemas.requests`` / ``schemas.modifiers``), the core call and the
response schema of one question. Three callers use the table and nothing else:

- the HTTP views (``service.api``, ``service.api_modifiers``): flask-smorest loads
  ``request`` (with :attr:`Operation.loader`, its one instance), the view resolves the scene
  and applies the service's configured limits, calls :meth:`Operation.prepare` and
  :meth:`Operation.answer`, and flask-smorest dumps the answer with ``response``; an
  operation with ``encode`` (``cover``: ``schemas.answers``, issue 20) has its answer
  written in C instead, the same bytes (:meth:`Operation.to_json`);
- the command line's local mode (``service.cli.local``): :meth:`Operation.run` loads the
  same request schema, answers and dumps with the same response schema, so its JSON is the
  HTTP API's;
- ``POST /v1/render`` (:func:`render`): it asks the cover, vision or line operation of its
  query through this table and hands the answer and its traced lines to
  :func:`service.render.render_answer`.

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
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, cast

import numpy as np
from marshmallow import Schema, ValidationError

from schemas import answers as fast
from schemas import modifiers as sm
from schemas import requests as rq
from schemas import responses as rs
from service import rules
from service.engine.budget import WorkBudget
from service.engine.scene import BuiltScene, build_scene, find_token  # the built scene
from service.engine.spaces import box_centre
from service.errors import RulesError
from service.lighting import (
    light_at_points,
    light_over_token,
    refuse_early,
    shining_lights,
    silent_light_notes,
    silent_notes_at,
    token_sample_points,
)
from service.line_of_effect import Endpoint, LineAnswer, line_between
from service.matrix import matrix as all_pairs
from service.model import Scene, Token
from service.render import render_answer, render_svg
from service.rules.ask import cover_all, vision_all
from service.rules.base import Attack, FlankingRule
from service.rules.dnd5e import gravity as dnd5e_gravity
from service.rules.dnd5e import underwater as dnd5e_underwater
from service.rules.pf2e_variant import range_increments as pf2e_range

__all__ = [
    "LOCAL_SCENE_ID",
    "OPERATIONS",
    "Operation",
    "BuiltScene",
    "build_scene",
    "find_token",
    "ruleset_options",
]

#: ``scene_id`` that stands for "the scene is already built" when a caller without a scene
#: cache (the command line) loads a request schema, which asks for ``scene`` or ``scene_id``.
LOCAL_SCENE_ID = "local"


# --------------------------------------------------------------------------- checks


#: Where ruleset options are taken: endpoint, the capability a ruleset needs for it (``None``:
#: every ruleset), and the option schemas of its request (``/v1/matrix`` and ``/v1/render``
#: take ``/v1/cover``'s with kind cover, ``/v1/vision``'s with kind vision). An option
#: listed by ``GET /v1/rulesets`` applies where its name is a field of one of these schemas.
OPTION_ENDPOINTS: tuple[tuple[str, str | None, tuple[type[Schema], ...]], ...] = (
    ("/v1/cover", None, (rq.CoverOptionsSchema,)),
    ("/v1/vision", None, (rq.VisionOptionsSchema,)),
    ("/v1/matrix", None, (rq.CoverOptionsSchema, rq.VisionOptionsSchema)),
    ("/v1/render", None, (rq.CoverOptionsSchema, rq.VisionOptionsSchema)),
    ("/v1/line-of-effect", None, (rq.LineOptionsSchema,)),
    ("/v1/line-of-sight", None, (rq.LineOptionsSchema,)),
    ("/v1/modifiers/flanking", "modifiers/flanking", (rq.FlankingOptionsSchema,)),
    ("/v1/modifiers/gravity", "modifiers/gravity", (sm.GravityOptionsSchema,)),
)

#: The option schemas of each kind of question (``/v1/matrix``, ``/v1/render``).
KIND_SCHEMAS: dict[str, type[Schema]] = {
    "cover": rq.CoverOptionsSchema,
    "vision": rq.VisionOptionsSchema,
}


def _takes(schemas: tuple[type[Schema], ...], name: str) -> bool:
    return any(name in schema().fields for schema in schemas)


def option_endpoints(system: rules.RuleSystem, name: str) -> list[str]:
    """The endpoints that take ``system``'s option ``name`` (``GET /v1/rulesets``)."""
    return [
        endpoint
        for endpoint, capability, schemas in OPTION_ENDPOINTS
        if (capability is None or capability in system.extra_capabilities) and _takes(schemas, name)
    ]


def option_kinds(name: str) -> list[str]:
    """The kinds of question (``cover``, ``vision``) whose options include ``name``.

    That is, which ``kind`` of ``/v1/matrix`` (``type`` of a ``/v1/render`` query) takes it.
    """
    return [kind for kind, schema in KIND_SCHEMAS.items() if name in schema().fields]


def ruleset_options(
    system: rules.RuleSystem,
    raw: dict[str, Any],
    path: tuple[str | int, ...] = ("options",),
    schemas: tuple[type[Schema], ...] = (),
) -> dict[str, Any]:
    """The options given for ``system``, unset ones (None, ``[]``) dropped.

    ``schemas``: the option schemas of the request (``OPTION_ENDPOINTS``), so that a refusal
    lists only the ruleset's options that this request takes.

    Raises
    ------
    RulesError
        An option the ruleset does not use, at ``(*path, name)``.
    """
    given = {k: v for k, v in raw.items() if v not in (None, [])}
    for name in given:
        if name not in system.options:
            taken = sorted(n for n in system.options if not schemas or _takes(schemas, n))
            raise RulesError(
                f"Option {name!r} does not apply to ruleset {system.id!r}; "
                f"its options here: {', '.join(taken) or 'none'}.",
                (*path, name),
            )
    return given


def load_options(kind: str, raw: Mapping[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """``raw`` loaded by the options schema of ``kind`` (``"cover"`` or ``"vision"``).

    Raises
    ------
    marshmallow.ValidationError
        Its messages nested under ``path`` (e.g. ``{"query": {"options": {...}}}``).
    """
    schema = KIND_SCHEMAS[kind]
    try:
        return schema().load(dict(raw))  # type: ignore[no-any-return]
    except ValidationError as err:
        messages: Any = err.messages
        if isinstance(messages, dict):  # an option of the other kind: say which kind takes it
            for name, said in list(messages.items()):
                others = [k for k in option_kinds(name) if k != kind]
                if said == ["Unknown field."] and others:
                    messages[name] = [f"Unknown field with kind {kind!r}: kind {others[0]!r} only."]
        for key in reversed(path):
            messages = {key: messages}
        raise ValidationError(messages) from None


#: Options holding token ids, per kind of question (checked against the scene: 404).
TOKEN_OPTIONS = {
    "cover": ("take_cover", "partial_cover"),
    "vision": ("unnoticed", "was_observing"),
}


def _token_options(scene: Scene, options: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        for i, tid in enumerate(options.get(name, ())):
            find_token(scene, tid, ("options", name, i))


def _targets(scene: Scene, ids: list[str], source: Token | None) -> list[Token]:
    targets = [find_token(scene, t, ("targets", i)) for i, t in enumerate(ids)]
    for i, tok in enumerate(targets):
        if source is not None and tok.id == source.id:
            raise RulesError("A token cannot be its own target.", ("targets", i))
    return targets


def _known_ruleset(args: dict[str, Any]) -> dict[str, Any]:
    rules.get(args["ruleset"])
    return args


def _loaded(args: dict[str, Any]) -> dict[str, Any]:
    return args


# --------------------------------------------------------------------------- answers


def cover(
    geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None
) -> dict[str, Any]:
    """``POST /v1/cover``: each target's cover against the attacker or area origin.

    Parameters
    ----------
    geo : BuiltScene
        The built scene.
    args : dict
        Loaded by ``CoverRequestSchema``: ``ruleset``, ``attacker`` (token id or None for
        an area), ``targets`` (ids), ``attack`` (``kind``, ``origin`` px), ``options``.

    Returns
    -------
    dict
        ``{"ruleset", "attacker", "results": [CoverResult]}``, one result per target in
        order; ``CoverResponseSchema`` dumps it.

    Raises
    ------
    UnknownToken
        An unknown attacker, target or token option (404, at its field).
    RulesError
        Unknown ruleset, a target that is the attacker, an option of another ruleset.
    """
    system = rules.get(args["ruleset"])
    attacker = None
    if args.get("attacker") is not None:
        attacker = find_token(geo.scene, args["attacker"], ("attacker",))
    targets = _targets(geo.scene, args["targets"], attacker)
    origin = args["attack"].get("origin")
    attack = Attack(
        args["attack"]["kind"],
        tuple(origin) if origin else None,  # type: ignore[arg-type]
        args["attack"].get("elevation"),
    )
    options = ruleset_options(system, args["options"], schemas=(rq.CoverOptionsSchema,))
    _token_options(geo.scene, options, TOKEN_OPTIONS["cover"])
    pairs = [(attacker, t) for t in targets]
    answers = cover_all(system, geo, pairs, attack, options, budget=budget)
    results = [_flag_hidden(geo.scene, r) for r in answers]
    return {"ruleset": system.id, "attacker": args.get("attacker"), "results": results}


def _flag_hidden(scene: Scene, result: Any) -> Any:
    """Say so when a hidden token (GM layer) is among the blockers: players cannot see it."""
    hidden = sorted(
        {
            b.id
            for line in result.lines
            for b in line.blockers
            if b.kind == "token" and (tok := scene.token(b.id)) is not None and tok.hidden
        }
    )
    if not hidden:
        return result
    note = "Hidden tokens block some lines (a GM may rule them out): " + ", ".join(hidden)
    return dataclasses.replace(result, notes=(*result.notes, note))


def vision(
    geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None
) -> dict[str, Any]:
    """``POST /v1/vision``: what one observer perceives of each target.

    ``args`` is loaded by ``VisionRequestSchema`` (``ruleset``, ``observer``, ``targets``,
    ``options``). Returns ``{"ruleset", "observer", "results": [VisionResult]}``; raises as
    :func:`cover` does.
    """
    system = rules.get(args["ruleset"])
    observer = find_token(geo.scene, args["observer"], ("observer",))
    targets = _targets(geo.scene, args["targets"], observer)
    options = ruleset_options(system, args["options"], schemas=(rq.VisionOptionsSchema,))
    _token_options(geo.scene, options, TOKEN_OPTIONS["vision"])
    results = vision_all(system, geo, [(observer, t) for t in targets], options, budget)
    return {"ruleset": system.id, "observer": observer.id, "results": results}


def lighting(
    geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None
) -> dict[str, Any]:
    """``POST /v1/lighting``: the light at each point (px), then over each token's space.

    ``args`` is loaded by ``LightingRequestSchema`` (``points`` ``[[x, y]]`` px, ``tokens``
    ids). Returns ``{"results": [{"point", "token", "level", "magical_darkness", "lights",
    "rules"}]}``, points first, with ``notes`` when lights within reach do not shine there
    (switched off, private: ``service.lighting``). Raises ``UnknownToken`` at ``tokens.<i>``.
    """
    tokens = [find_token(geo.scene, t, ("tokens", i)) for i, t in enumerate(args["tokens"])]
    out: list[dict[str, Any]] = []
    points = args["points"]
    refuse_early(geo, np.array(points, dtype=np.float64), tokens, budget)  # issue 16
    if points:
        xy = np.array(points, dtype=np.float64)
        samples = light_at_points(geo, xy, budget)
        each = silent_notes_at(geo, list(xy.reshape(-1, 1, 2)))  # once for all points
        for point, sample, notes in zip(points, samples, each, strict=True):
            out.append({"point": point, "token": None, **sample.__dict__, **_notes(notes)})
    sources = shining_lights(geo) if tokens else []  # gathered once: it scans every token
    for tok in tokens:
        light = light_over_token(geo, tok, budget, sources=sources)
        notes = silent_light_notes(geo, token_sample_points(geo, tok, sources))
        out.append({"point": None, "token": tok.id, **light.__dict__, **_notes(notes)})
    return {"results": out}


def _notes(notes: tuple[str, ...]) -> dict[str, Any]:
    """``{"notes": [...]}`` when there are notes (lights that do not shine), else ``{}``."""
    return {"notes": list(notes)} if notes else {}


def endpoint(scene: Scene, ref: dict[str, Any], field: str) -> Endpoint:
    """A loaded ``from``/``to`` reference (``{"token"}`` or ``{"point", "elevation"}``).

    Raises ``UnknownToken`` at ``field`` for a token id not in ``scene``.
    """
    if "token" in ref:
        return Endpoint(token=find_token(scene, ref["token"], (field,)))
    return Endpoint(point=(ref["point"][0], ref["point"][1]), elevation=ref["elevation"])


def _line(
    geo: BuiltScene, args: dict[str, Any], sense: str, budget: WorkBudget | None
) -> LineAnswer:
    source = endpoint(geo.scene, args["source"], "from")
    target = endpoint(geo.scene, args["target"], "to")
    effect = args.get("effect") or {}
    if sense == "sight" and effect.get("damage") is not None:
        raise RulesError("Breakthrough applies to line of effect only.", ("effect", "damage"))
    inset = args["options"].get("corner_inset")
    kw: dict[str, Any] = {} if inset is None else {"corner_inset": inset}
    return line_between(
        geo, source, target, sense, damage=effect.get("damage"), budget=budget, **kw
    )


def line_of_effect(
    geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None
) -> LineAnswer:
    """``POST /v1/line-of-effect``: exact line of effect between spaces (5E-LOE-2).

    ``args`` is loaded by ``LineRequestSchema`` (``source``/``target`` as
    :func:`endpoint` reads them, ``effect``, ``options.corner_inset`` px). With
    ``effect.damage``, breakthrough (5E-LOE-4/5). Returns a ``LineAnswer``; raises
    ``UnknownToken`` at ``from``/``to``.
    """
    return _line(geo, args, "move", budget)


def line_of_sight(
    geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None
) -> LineAnswer:
    """``POST /v1/line-of-sight``: walls that restrict sight (GEO-1).

    As :func:`line_of_effect`; ``effect.damage`` is a ``RulesError`` here.
    """
    return _line(geo, args, "sight", budget)


def _matrix_prepare(args: dict[str, Any]) -> dict[str, Any]:
    rules.get(args["ruleset"])
    return {**args, "options": load_options(args["kind"], args["options"], ("options",))}


def matrix(
    geo: BuiltScene,
    args: dict[str, Any],
    *,
    progress: Callable[[int], None] | None = None,
    budget: WorkBudget | None = None,
) -> dict[str, Any]:
    """``POST /v1/matrix``: cover degrees or vision senses of every ordered pair.

    Parameters
    ----------
    geo : BuiltScene
    args : dict
        Loaded by ``MatrixRequestSchema``, options loaded by :meth:`Operation.prepare`.
    progress : callable, optional
        Called with the number of rows done (the command line's progress bar).
    budget : WorkBudget, optional
        The request's budget of line-wall tests (issue 16; ``OverBudget`` is a 422).

    Returns
    -------
    dict
        ``{"ruleset", "kind", "tokens", "cover"}`` or ``{..., "vision", "can_see"}``
        (row = attacker or observer; the diagonal None); see ``service.matrix.matrix``.
    """
    system = rules.get(args["ruleset"])
    checked = ruleset_options(system, args["options"], schemas=(KIND_SCHEMAS[args["kind"]],))
    # Token ids in options name scene tokens, as for /v1/cover and /v1/vision (404).
    _token_options(geo.scene, checked, TOKEN_OPTIONS[args["kind"]])
    result = all_pairs(
        geo, system, args["tokens"], args["kind"], checked, progress=progress, budget=budget
    )
    return {"ruleset": system.id, "kind": args["kind"], **result}


def _flanking_prepare(args: dict[str, Any]) -> dict[str, Any]:
    system = rules.get(args["ruleset"])
    if "modifiers/flanking" not in system.extra_capabilities:
        raise RulesError(f"Ruleset {system.id!r} has no flanking rule.", ("ruleset",))
    return args


def flanking(geo: BuiltScene, args: dict[str, Any]) -> dict[str, Any]:
    """``POST /v1/modifiers/flanking``: whether attacker and ally flank the target (SF-FLK-1).

    Returns ``{"flanking", "attack_bonus" (+2 or 0), "rules", "reason"}``; with option
    ``ignore_hidden``, a hidden attacker or ally does not flank. Raises ``UnknownToken`` for
    an unknown id, ``RulesError`` unless the three tokens differ.
    """
    system = rules.get(args["ruleset"])
    toks = [find_token(geo.scene, args[k], (k,)) for k in ("attacker", "ally", "target")]
    if len({t.id for t in toks}) < 3:
        raise RulesError("Attacker, ally and target must be three different tokens.", ("ally",))
    options = ruleset_options(
        system, args.get("options") or {}, schemas=(rq.FlankingOptionsSchema,)
    )
    if options.get("ignore_hidden"):  # service.rules.options: hidden tokens do not flank
        hidden = [t.id for t in toks[:2] if t.hidden]
        if hidden:
            reason = f"Option ignore_hidden: {', '.join(hidden)} is hidden and does not flank."
            return {"flanking": False, "attack_bonus": 0, "rules": ["SF-FLK-1"], "reason": reason}
    rule = cast(FlankingRule, system)  # declared by its extra_capabilities (_flanking_prepare)
    ok, rule_ids, reason = rule.flanking(geo, *toks)
    return {"flanking": ok, "attack_bonus": 2 if ok else 0, "rules": rule_ids, "reason": reason}


def gravity(_geo: None, args: dict[str, Any]) -> dnd5e_gravity.GravityResult:
    """``POST /v1/modifiers/gravity``: abnormal gravity (5E-GRV-1..6).

    ``args`` are the keyword arguments of ``rules.dnd5e.gravity.gravity_modifiers``, as
    ``GravityRequestSchema`` loads them; no scene.
    """
    return dnd5e_gravity.gravity_modifiers(**args)


def underwater(_geo: None, args: dict[str, Any]) -> Any:
    """``POST /v1/modifiers/underwater``: an attack or an effect underwater.

    ``args`` (``UnderwaterRequestSchema``) hold the keyword arguments of
    ``rules.dnd5e.underwater.underwater_attack`` (5E-UW-1/2/9) under ``attack`` or of
    ``rules.dnd5e.underwater.underwater_effect`` (5E-UW-3..8) under ``effect``; no scene.
    """
    if "effect" in args:
        return dnd5e_underwater.underwater_effect(**args["effect"])
    return dnd5e_underwater.underwater_attack(**args["attack"])


def range_bands(_geo: None, args: dict[str, Any]) -> pf2e_range.RangeResult:
    """``POST /v1/modifiers/range``: range band (PV-RNG-1) and increment Disadvantage (PV-RNG-2).

    ``args`` are the keyword arguments of
    ``rules.pf2e_variant.range_increments.range_modifiers`` (distances in feet), as
    ``RangeRequestSchema`` loads them; no scene.
    """
    return pf2e_range.range_modifiers(**args)


# --------------------------------------------------------------------------- render


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
    how = RENDERED[query["type"]]
    operation = OPERATIONS[how.operation]
    with _under_query():
        answer = operation.dump(operation.answer(geo, how.request(query), budget=budget))
    return render_answer(geo.scene, query, answer, how.lines(geo, query, answer))


# --------------------------------------------------------------------------- the table


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
        The one instance of :attr:`request`, made once (issue 20: a new instance per request
        deep-copies every declared field); the HTTP view and :meth:`load` load with it.
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
        prepare=_known_ruleset,
        encode=fast.cover_json,
    ),
    "vision": Operation(
        rq.VisionRequestSchema, vision, rs.VisionResponseSchema, prepare=_known_ruleset
    ),
    "lighting": Operation(rq.LightingRequestSchema, lighting, rs.LightingResponseSchema),
    "line-of-effect": Operation(rq.LineRequestSchema, line_of_effect, rs.LineResponseSchema),
    "line-of-sight": Operation(rq.LineRequestSchema, line_of_sight, rs.LineResponseSchema),
    "matrix": Operation(
        rq.MatrixRequestSchema, matrix, rs.MatrixResponseSchema, prepare=_matrix_prepare
    ),
    "render": Operation(rq.RenderRequestSchema, render, None),
    "modifiers/flanking": Operation(
        rq.FlankingRequestSchema, flanking, rs.FlankingResponseSchema, prepare=_flanking_prepare
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
