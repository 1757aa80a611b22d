"""HTTP endpoints (flask-smorest): load the request schema, answer with the operation table.

Each query view is thin: flask-smorest loads the request schema of its operation
(``service.operations.OPERATIONS``), the view applies the service's configured limits
(``SIGHTLINE_MAX_*``), resolves the scene (inline, or ``scene_id`` from the cache) and calls
the operation; flask-smorest dumps the answer with the operation's response schema, except
where the operation writes its JSON in C (``json_answer``: ``POST /v1/cover``; the
same bytes). No geometry or rule here. Contract: ``docs/api.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, Response, current_app, jsonify, request
from flask.json.provider import DefaultJSONProvider
from flask_smorest import abort
from marshmallow import ValidationError, fields, validate

from adapters import detect
from adapters.errors import AdapterError
from schemas import requests as rq
from schemas import responses as rs
from schemas.patch import ScenePatchResponseSchema, ScenePatchSchema
from schemas.scene import SceneSchema, StrictSchema
from schemas.size import size_of_scene
from service import __version__, rulebook, rules
from service.cache import SceneCache
from service.engine.budget import WorkBudget
from service.errors import RulesError
from service.guard import AFTER_SENT_KEY
from service.http_errors import Blueprint, invalid_message
from service.limits import check_scene, size_problems
from service.model import Scene
from service.operations import OPERATIONS, BuiltScene, Operation, option_endpoints, option_kinds
from service.operations.patches import PatchInvalid, patch_stats, resolve_change
from service.store import NO_STORE, StoreState

blp = Blueprint("v1", __name__, description="Sightline rules API, contract v1 (docs/api.md).")
health = Blueprint("health", __name__, description="Liveness and readiness.")

#: Query options each import format takes (others answer 422 naming them). ``scene`` and
#: ``page`` are one option under two names: the scene of a Foundry world, compendium or NeDB
#: export, or the page of a Roll20 export (one way to choose, for every format).
IMPORT_OPTIONS = {
    "foundry": ("scene", "page"),
    "roll20": ("scene", "page"),
    "uvtt": ("grid_distance",),
    "auto": ("scene", "page", "grid_distance"),
}
#: Content type of a Foundry NeDB ``.db`` file (one JSON document a line).
NDJSON = "application/x-ndjson"
#: Request examples for the OpenAPI document; each runs as is against the bundled sample
#: scene (``scene_id: "sample"``) and is checked by tests/api/test_openapi.py.
EXAMPLES: dict[str, dict[str, Any]] = {
    "scenes": {
        "scene": {
            "grid": {"size": 100, "distance": 5},
            "walls": [{"id": "w1", "c": [250, -100, 250, 60]}],
            "tokens": [{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 400, "y": 0}],
        }
    },
    "patch": {
        "tokens": {"goblin": {"x": 700, "y": 300}, "bat": None},
        "walls": {"inner-door": {"door_state": "open"}},
        "lights": {"torch": {"on": False}},
    },
    "cover": {
        "ruleset": "dnd5e",
        "scene_id": "sample",
        "attacker": "archer",
        "targets": ["goblin", "kobold"],
        "attack": {"kind": "ranged"},
        "options": {},
    },
    "line": {"scene_id": "sample", "from": "archer", "to": "goblin", "effect": {"damage": 12}},
    "sight": {"scene_id": "sample", "from": "archer", "to": {"point": [950, 100]}},
    "flanking": {
        "ruleset": "starfinder",
        "scene_id": "sample",
        "attacker": "fighter",
        "ally": "archer",
        "target": "ogre",
    },
    "vision": {
        "ruleset": "dnd5e",
        "scene_id": "sample",
        "observer": "goblin",
        "targets": ["archer", "kobold"],
    },
    "lighting": {"scene_id": "sample", "points": [[150, 150], [900, 700]], "tokens": ["goblin"]},
    "render": {
        "scene_id": "sample",
        "query": {"type": "cover", "ruleset": "dnd5e", "attacker": "archer", "target": "goblin"},
    },
    "matrix": {
        "ruleset": "dnd5e",
        "scene_id": "sample",
        "kind": "cover",
        "tokens": ["archer", "goblin", "kobold"],
    },
}

ERRORS = {"422": "Invalid request or unanswerable question", "404": "Unknown scene id or token"}


def _cache() -> SceneCache:
    return current_app.extensions["sightline_cache"]  # type: ignore[no-any-return]


def load_scene(raw: Any, path: str = "scene") -> Scene:
    """Validate a canonical scene dict; a schema error answers 422 naming the field path."""
    try:
        return SceneSchema().load(raw)  # type: ignore[no-any-return]
    except ValidationError as err:
        abort(422, message=f"The {path} is invalid.", errors={"json": {path: err.messages}})
    raise AssertionError("unreachable")


def limit_problems(scene: Scene) -> list[tuple[str, str]]:
    """``(message, kind)`` for each configured count limit ``scene`` passes (``size_problems``).

    A request body's scene is checked the same way from its bytes before it is decoded
    (``service.http_errors``); this covers the scenes made here (imports, exports).
    """
    return size_problems(size_of_scene(scene), current_app.config)


def check_limits(scene: Scene, path: str = "scene") -> None:
    """422 at ``<path>...`` for the first scene limit ``scene`` passes (``check_scene``)."""
    check_scene(scene, current_app.config, path)


def request_budget() -> WorkBudget:
    """The current request's work budget (``SIGHTLINE_WORK_BUDGET`` line-wall tests)."""
    return WorkBudget(
        int(current_app.config["WORK_BUDGET"]),
        "This request needs more work than one request may take (SIGHTLINE_WORK_BUDGET): ask "
        "about fewer tokens or targets at once, or about a part of the map with fewer walls",
    )


def store_state() -> StoreState:
    """The scene store's state now (a ``PING`` to Redis, or a read of the SQLite file)."""
    store = _cache().store
    return NO_STORE if store is None else store.ping()


def resolve_scene(args: dict[str, Any]) -> BuiltScene:
    """The scene geometry of a request carrying ``scene`` (loaded) or ``scene_id``.

    A ``scene_id`` this process misses is loaded from the scene store when one is
    configured (``SIGHTLINE_REDIS_URL``, or the ``SIGHTLINE_SCENE_FILE`` gunicorn's workers
    share); unknown there too, or the store unreachable, it
    answers 404 and the client resends the scene. An inline scene never waits on the store
    beyond its timeout, and answers whether the store took it or not.
    """
    cache = _cache()
    if args.get("scene_id") is not None:
        return cache.get(args["scene_id"])
    check_limits(args["scene"])
    _, geo = cache.put(args["scene"])
    return geo


def check_targets(ids: list[str], path: str = "targets") -> None:
    """422 when a request names more targets than ``SIGHTLINE_MAX_TARGETS``."""
    limit = int(current_app.config["MAX_TARGETS"])
    if len(ids) > limit:
        raise RulesError(
            f"At most {limit} {path} per request (SIGHTLINE_MAX_TARGETS); got {len(ids)}.",
            (path,),
        )


def run_adapter(fmt: str, export: Any, **kw: Any) -> dict[str, Any]:
    """Run ``adapters.detect.to_scene`` with format ``fmt``; a 422 at its path when it fails.

    ``fmt`` ``"auto"`` returns a canonical scene unchanged (``stats.format: "canonical"``);
    an explicit format given a canonical scene answers 422 saying so.
    """
    try:
        return detect.to_scene(export, format=fmt, **kw)
    except AdapterError as err:
        what = "export" if fmt == "auto" else f"{fmt} export"
        abort(422, message=f"The {what} is not understood: {err.message}", errors=err.as_errors())
    raise AssertionError("unreachable")


def valid_import(result: dict[str, Any], path: str | None) -> Scene:
    """The imported scene loaded by the schema: a 422 naming the field when it is invalid.

    An adapter's output answers at ``json.export...``; a canonical scene given as is at
    ``json.<path>...``, or at its own field paths (``json.walls.3.c``) when ``path`` is
    None (the body is the scene).
    """
    if result["stats"].get("format") != "canonical":
        return load_scene(result["scene"], path or "export")
    try:
        return SceneSchema().load(result["scene"])  # type: ignore[no-any-return]
    except ValidationError as err:
        errors = err.messages if path is None else {path: err.messages}
        abort(422, message="The scene is invalid.", errors={"json": errors})
    raise AssertionError("unreachable")


def read_export_body() -> Any:
    """The request body of an import: JSON, or a Foundry NeDB ``.db`` file.

    ``Content-Type: application/x-ndjson`` reads the body as NeDB (one JSON document a
    line); ``application/json`` reads JSON, and NeDB when the body is not one JSON document
    but every line is one (sniffed). A body that is neither answers 400 saying both.
    """
    try:
        text = request.get_data(cache=True).decode("utf-8")
    except UnicodeDecodeError:
        abort(400, message="Invalid body: not UTF-8 text.", errors={"json": ["Not UTF-8 text."]})
    nedb = True if request.mimetype == NDJSON else None
    try:
        return detect.parse_text(text, nedb=nedb)
    except AdapterError as err:
        detail = (
            f"a Foundry NeDB file ({NDJSON}) holds one JSON document a line: {err.message}"
            if nedb
            else err.message
        )
        message = f"Invalid body: {detail}."
        abort(400, message=message, errors={"json": [message]})
    raise AssertionError("unreachable")


def selector(query: dict[str, Any], body_page: Any = None) -> dict[str, Any]:
    """The scene/page choice of an import: ``{"scene": ...}`` or ``{}``.

    ``?scene=`` (or its other name ``?page=``, or a ``/v1/scenes`` body's ``page``) picks a
    Foundry scene or a Roll20 page by name, id or 0-based index; names that disagree
    answer 422.
    """
    given = {
        k: str(v)
        for k, v in (
            ("scene", query.get("scene")),
            ("page", query.get("page")),
            ("page", body_page),
        )
        if v is not None
    }
    values = set(given.values())
    if len(values) > 1:
        abort(
            422,
            message="scene and page name different scenes: give one of them.",
            errors={"query": {k: ["Disagrees with the other scene/page choice."] for k in given}},
        )
    return {"scene": values.pop()} if values else {}


def scene_stats(scene: Scene) -> dict[str, int]:
    """Counts of a canonical scene's walls, doors, tokens, lights and regions."""
    return {
        "walls": len(scene.walls),
        "doors": sum(1 for w in scene.walls if w.door != "none"),
        "tokens": len(scene.tokens),
        "lights": len(scene.lights),
        "regions": len(scene.regions),
    }


@contextmanager
def nested_invalid() -> Iterator[None]:
    """422 "Request body is invalid at ..." for a part an operation loads itself (options)."""
    try:
        yield
    except ValidationError as err:
        errors = {"json": err.messages}
        abort(422, message=invalid_message(errors), errors=errors)


def prepared(op: Operation, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` after the operation's checks that need no scene (known ruleset, options)."""
    with nested_invalid():
        return op.prepare(args)


def writes_default_json(app: Flask) -> bool:
    """Whether ``app`` writes JSON as Flask's default provider does, compact.

    That is ``json.dumps`` with ``sort_keys`` and ``ensure_ascii`` and the separators
    ``(",", ":")`` (not debug's indented form), then a newline: the form
    ``Operation.to_json`` writes.
    """
    provider = app.json
    if type(provider) is not DefaultJSONProvider:
        return False
    indented = provider.compact is False or (provider.compact is None and app.debug)
    return bool(provider.sort_keys and provider.ensure_ascii and not indented)


def json_answer(op: Operation, answer: Any) -> Any:
    """The 200 answer of ``op``: its JSON written in C when it can be, else ``answer``.

    When the app writes Flask's default JSON (``writes_default_json``) and the operation's
    fast path takes the answer (``Operation.to_json``), the response holds those
    bytes and a newline: the same body, byte for byte, as flask-smorest's dump with the
    response schema followed by ``jsonify``. Otherwise ``answer`` is returned for
    flask-smorest to dump as before.
    """
    app = current_app
    if not writes_default_json(app):  # type: ignore[arg-type]
        return answer
    body = op.to_json(answer)
    if body is None:
        return answer
    return app.response_class(body + b"\n", mimetype=app.json.mimetype)  # type: ignore[attr-defined]


def system_capabilities(system: rules.RuleSystem) -> list[str]:
    """Endpoints a rule system answers."""
    return [
        "cover",
        "vision",
        "matrix",
        "line-of-effect",
        "lighting",
        *system.extra_capabilities,
    ]


COVER, VISION, LIGHTING = OPERATIONS["cover"], OPERATIONS["vision"], OPERATIONS["lighting"]
LINE, SIGHT = OPERATIONS["line-of-effect"], OPERATIONS["line-of-sight"]
MATRIX, RENDER, FLANKING = (
    OPERATIONS["matrix"],
    OPERATIONS["render"],
    OPERATIONS["modifiers/flanking"],
)


@health.route("/healthz")
@health.response(200, rs.HealthSchema)
def healthz() -> dict[str, Any]:
    """Liveness and version, and whether the scene store (Redis or SQLite file) answers.

    Always 200 while the process serves: a store down does not make the service dead
    (inline scenes keep working). Readiness is ``/readyz``.
    """
    return {"status": "ok", "version": __version__, "store": store_state().as_dict()}


@health.route("/readyz")
@health.response(200, rs.ReadySchema)
@health.alt_response(503, description="A scene store is configured and does not answer")
def readyz() -> Any:
    """Ready to serve: 200 without a store or when the store answers, else 503 JSON."""
    state = store_state()
    if state.ready:
        return {"status": "ready", "store": state.as_dict()}
    body = {
        "code": 503,
        "status": "Service Unavailable",
        "message": f"The scene store ({state.backend}, {state.variable}) does not answer.",
        "errors": {"store": state.as_dict()},
    }
    response = jsonify(body)
    response.status_code = 503
    return response


@blp.route("/rulesets")
@blp.response(200, rs.RulesetsSchema)
def list_rulesets() -> dict[str, Any]:
    """Ids, cover degrees, options (with defaults) and capabilities of each ruleset."""
    out = []
    for system in rules.REGISTRY.values():
        out.append(
            {
                "id": system.id,
                "title": system.title,
                "cover_degrees": list(system.cover_degrees),
                "diagonals": system.diagonals,
                "options": {
                    name: {
                        "default": o.default,
                        "description": o.description,
                        "choices": list(o.choices) if o.choices else None,
                        "endpoints": option_endpoints(system, name),
                        "kinds": option_kinds(name),
                    }
                    for name, o in system.options.items()
                },
                "capabilities": system_capabilities(system),
                "conditions": sorted(system.conditions),
            }
        )
    return {"rulesets": out}


class RulesQuerySchema(StrictSchema):
    """The query of ``GET /v1/rules``: an optional ruleset."""

    ruleset = fields.String(
        load_default=None,
        validate=validate.OneOf(list(rulebook.PREFIX_RULESETS["GEO"])),
        metadata={"description": "Only the rules of this ruleset (shared geometry included)."},
    )


@blp.route("/rules")
@blp.arguments(RulesQuerySchema, location="query")
@blp.response(200, rs.RulesSchema)
@blp.alt_response(422, description="Unknown ruleset")
def list_rules(query: dict[str, Any]) -> dict[str, Any]:
    """Every rule id an answer may cite, with what it means and the Decisions (docs/rules.md)."""
    return {"rules": rulebook.select(query.get("ruleset"))}


@blp.route("/rules/<rule_id>")
@blp.response(200, rs.RuleSchema)
@blp.alt_response(404, description="No rule has this id (the nearest ids are suggested)")
def get_rule(rule_id: str) -> dict[str, Any]:
    """One rule by its id as answers cite it (`5E-COV-5`; any letter case)."""
    try:
        return rulebook.lookup(rule_id)
    except rulebook.UnknownRule as err:
        abort(404, message=err.message(), errors={"path": {"rule_id": [err.message()]}})
    raise AssertionError("unreachable")


@blp.route("/scenes", methods=["POST"])
@blp.arguments(rq.ImportQuerySchema, location="query")
@blp.arguments(rq.SceneUploadSchema, example=EXAMPLES["scenes"])
@blp.response(200, rs.SceneUploadResponseSchema)
@blp.alt_response(422, description=ERRORS["422"])
def upload_scene(query: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Validate and cache a scene (canonical, or an export with its format); returns its id.

    ``export`` is the export file's JSON, or its text as a JSON string (a Foundry NeDB
    ``.db`` file). As for ``/v1/import``, ``?scene=`` picks one scene or page of an export
    (name, id or 0-based index) and ``?grid_distance=`` sets a Universal VTT map's scale.
    """
    warnings: list[str] = []
    extra: dict[str, Any] = {}
    scene = args.get("scene")
    given = {k: v for k, v in query.items() if v is not None}
    if scene is not None:
        if given:
            abort(
                422,
                message=f"Query {', '.join(sorted(given))} applies to an export, not to `scene`.",
                errors={"query": {k: ["Only with `format` + `export`."] for k in given}},
            )
    else:
        export = args["export"]
        if isinstance(export, str):  # the file's text: JSON or NeDB
            try:
                export = detect.parse_text(export)
            except AdapterError as err:
                abort(
                    422,
                    message=f"The export text is not understood: {err.message}.",
                    errors={"json": {"export": [err.message]}},
                )
        kw = selector(query, args.get("page"))
        if query.get("grid_distance") is not None:
            kw["grid_distance"] = query["grid_distance"]
        imported = run_adapter(args["format"], export, **kw)
        warnings, extra = imported["warnings"], imported["stats"]
        scene = valid_import(imported, "export")
    check_limits(scene, "scene" if args.get("scene") is not None else "export")
    sid, _ = _cache().put(scene, publish=True)  # stored again: the store may have dropped it
    return {"scene_id": sid, "stats": {**extra, **scene_stats(scene)}, "warnings": warnings}


@blp.route("/scenes/<scene_id>", methods=["PATCH"])
@blp.arguments(ScenePatchSchema, example=EXAMPLES["patch"])
@blp.response(200, ScenePatchResponseSchema)
@blp.alt_response(404, description="Unknown scene id (send the whole scene), or unknown item id")
@blp.alt_response(422, description="The change is invalid, or the scene after it")
def patch_scene(args: dict[str, Any], scene_id: str) -> dict[str, Any]:
    """Change a stored scene by id: a JSON merge patch per collection; returns the new id.

    ``{"tokens": {"goblin": {"x": 700}}, "walls": {"door-3": {"door_state": "open"}},
    "lights": {"torch-2": {"on": false}}}``: an id the scene holds merges the object into its
    item (``null`` fields take their default again), a new id adds a whole item (after the
    others), ``null`` removes it; ``environment`` merges likewise. The new ``scene_id`` is the
    id a whole upload of the changed scene gets; the parent stays as it was. Unknown
    ``scene_id``: 404, send the whole scene (``POST /v1/scenes``).
    """
    cache = _cache()
    parent = cache.get(scene_id)
    stored = parent.source or parent.scene  # as uploaded: levels not resolved into its walls
    try:
        change, warnings = resolve_change(
            stored, args, current_app.config, request_budget(), cache.positions(scene_id)
        )
    except PatchInvalid as err:
        node: Any = err.messages
        for key in reversed(err.path):
            node = {key: node}
        abort(422, message=err.message, errors={"json": node})
    sid, _, applied = cache.patch(scene_id, change, later=True)
    request.environ.setdefault(AFTER_SENT_KEY, []).append(cache.build_pending)  # service.guard
    return {
        "scene_id": sid,
        "parent": cache.resolved(scene_id),
        "stats": patch_stats(applied.scene, change, cache.doors(sid)),
        "warnings": warnings,
    }


@blp.route("/import/<any(foundry, roll20, uvtt, auto):fmt>", methods=["POST"])
@blp.doc(
    requestBody={
        "required": True,
        "description": "The export file as it is: JSON (a Foundry scene or world export, a "
        "Roll20 module or campaign export, a Universal VTT file, or a canonical scene, which "
        "`auto` returns unchanged), or a Foundry NeDB `.db` file (one JSON document a line; "
        "sent as application/x-ndjson, or sniffed).",
        "content": {
            NDJSON: {"schema": {"type": "string"}},
            "application/json": {
                "schema": {},
                "example": {
                    "name": "Tiny room",
                    "grid": {"type": 1, "size": 100, "distance": 5, "units": "ft"},
                    "width": 1000,
                    "height": 1000,
                    "walls": [
                        {
                            "_id": "w1",
                            "c": [100, 100, 900, 100],
                            "move": 20,
                            "sight": 20,
                            "light": 20,
                            "sound": 20,
                        }
                    ],
                    "tokens": [{"_id": "t1", "name": "Goblin", "x": 200, "y": 300}],
                },
            },
        },
    }
)
@blp.arguments(rq.ImportQuerySchema, location="query")
@blp.response(200, rs.ImportResponseSchema)
@blp.alt_response(422, description="Export not understood")
def import_export(query: dict[str, Any], fmt: str) -> dict[str, Any]:
    """Translate an export (the file as the body) into a canonical scene + warnings.

    ``fmt``: ``foundry``, ``roll20``, ``uvtt`` or ``auto`` (sniffed; a canonical scene is
    returned unchanged). The body is JSON, or a Foundry NeDB ``.db`` file (one JSON
    document a line: ``Content-Type: application/x-ndjson``, or sniffed). Query ``scene``
    (or ``page``, the same) picks a scene of a Foundry world, compendium or NeDB export or
    a page of a Roll20 export: name, id or 0-based index; ``grid_distance`` the grid units
    per square of a Universal VTT map (default 5).
    """
    export = read_export_body()
    given = {k: v for k, v in query.items() if v is not None}
    unused = sorted(k for k in given if k not in IMPORT_OPTIONS[fmt])
    if unused:
        abort(
            422,
            message=f"Query {', '.join(unused)} does not apply to format {fmt!r}.",
            errors={"query": {k: [f"Not used by format {fmt!r}."] for k in unused}},
        )
    kw = selector(given)
    if "grid_distance" in given:
        kw["grid_distance"] = given["grid_distance"]
    result = run_adapter(fmt, export, **kw)
    scene = valid_import(result, None)
    # The translation is returned whole (nothing dropped), but a scene over the limits is
    # refused by every other endpoint: say so, and what to reduce.
    for message, _ in limit_problems(scene):
        result["warnings"].append(f"{message} Other endpoints refuse this scene until it fits.")
    return result


@blp.route("/cover", methods=["POST"])
@blp.arguments(COVER.loader, example=EXAMPLES["cover"])
@blp.response(200, COVER.response)
@blp.alt_response(404, description=ERRORS["404"])
@blp.alt_response(422, description=ERRORS["422"])
def cover(args: dict[str, Any]) -> Any:
    """Cover of each target against the attacker (or an area's point of origin)."""
    args = prepared(COVER, args)
    check_targets(args["targets"])
    return json_answer(COVER, COVER.answer(resolve_scene(args), args, budget=request_budget()))


@blp.route("/line-of-effect", methods=["POST"])
@blp.arguments(LINE.loader, example=EXAMPLES["line"])
@blp.response(200, LINE.response)
@blp.alt_response(404, description=ERRORS["404"])
@blp.alt_response(422, description=ERRORS["422"])
def line_of_effect(args: dict[str, Any]) -> Any:
    """Line of effect between tokens or points (exact between spaces, 5E-LOE-2).

    With ``effect.damage``, breakthrough: walls with hp absorb damage in order (5E-LOE-4/5,
    dnd5e only). ``ruleset`` (optional, default dnd5e) picks the rule ids ``rules`` cites.
    """
    return LINE.answer(resolve_scene(args), args, budget=request_budget())


@blp.route("/line-of-sight", methods=["POST"])
@blp.arguments(SIGHT.loader, example=EXAMPLES["sight"])
@blp.response(200, SIGHT.response)
@blp.alt_response(404, description=ERRORS["404"])
@blp.alt_response(422, description=ERRORS["422"])
def line_of_sight(args: dict[str, Any]) -> Any:
    """Line of sight between tokens or points: walls that restrict sight (GEO-1).

    ``ruleset`` (optional, default dnd5e) picks the rule ids ``rules`` cites.
    """
    return SIGHT.answer(resolve_scene(args), args, budget=request_budget())


@blp.route("/modifiers/flanking", methods=["POST"], tags=["modifiers"])
@blp.arguments(FLANKING.loader, example=EXAMPLES["flanking"])
@blp.response(200, FLANKING.response)
@blp.alt_response(404, description=ERRORS["404"])
@blp.alt_response(422, description=ERRORS["422"])
def flanking(args: dict[str, Any]) -> dict[str, Any]:
    """Whether attacker and ally flank the target (SF-FLK-1): +2 to melee attacks."""
    args = prepared(FLANKING, args)
    return FLANKING.answer(resolve_scene(args), args)  # type: ignore[no-any-return]


@blp.route("/vision", methods=["POST"])
@blp.arguments(VISION.loader, example=EXAMPLES["vision"])
@blp.response(200, VISION.response)
@blp.alt_response(404, description=ERRORS["404"])
@blp.alt_response(422, description=ERRORS["422"])
def vision(args: dict[str, Any]) -> dict[str, Any]:
    """What one observer perceives of each target: sense, light, obscurement, detection."""
    args = prepared(VISION, args)
    check_targets(args["targets"])
    return VISION.answer(resolve_scene(args), args, budget=request_budget())  # type: ignore[no-any-return]


@blp.route("/lighting", methods=["POST"])
@blp.arguments(LIGHTING.loader, example=EXAMPLES["lighting"])
@blp.response(200, LIGHTING.response)
@blp.alt_response(404, description=ERRORS["404"])
@blp.alt_response(422, description=ERRORS["422"])
def lighting(args: dict[str, Any]) -> dict[str, Any]:
    """Light level at points and over token spaces (bright/dim/dark, magical darkness).

    ``ruleset`` (optional, default dnd5e) picks the rule ids ``rules`` cites.
    """
    check_targets(args["tokens"], "tokens")
    return LIGHTING.answer(resolve_scene(args), args, budget=request_budget())  # type: ignore[no-any-return]


@blp.route("/matrix", methods=["POST"])
@blp.arguments(MATRIX.loader, example=EXAMPLES["matrix"])
@blp.response(200, MATRIX.response)
@blp.alt_response(404, description=ERRORS["404"])
@blp.alt_response(422, description=ERRORS["422"])
def matrix(args: dict[str, Any]) -> dict[str, Any]:
    """Cover degrees or vision senses for all ordered pairs of the chosen tokens.

    The work is bounded: more tokens than ``SIGHTLINE_MATRIX_MAX_TOKENS`` (cover) or
    ``SIGHTLINE_MATRIX_MAX_VISION_TOKENS`` (vision) is a 422 telling the limit.
    """
    args = prepared(MATRIX, args)
    geo = resolve_scene(args)
    kind = args["kind"]
    count = len(args["tokens"]) if args["tokens"] is not None else len(geo.scene.tokens)
    key = "MATRIX_MAX_TOKENS" if kind == "cover" else "MATRIX_MAX_VISION_TOKENS"
    limit = int(current_app.config[key])
    if count > limit:
        raise RulesError(
            f"A {kind} matrix takes at most {limit} tokens (SIGHTLINE_{key}); got {count}.",
            ("tokens",),
        )
    return MATRIX.answer(geo, args, budget=request_budget())  # type: ignore[no-any-return]


@blp.route("/render", methods=["POST"])
@blp.arguments(RENDER.loader, example=EXAMPLES["render"])
@blp.response(
    200, {"type": "string"}, content_type="image/svg+xml", description="SVG picture of the scene"
)
@blp.alt_response(404, description=ERRORS["404"])
@blp.alt_response(422, description=ERRORS["422"])
def render(args: dict[str, Any]) -> Response:
    """SVG of the scene with the traced lines of a cover, vision or line query."""
    geo = resolve_scene(args)
    with nested_invalid():
        svg = RENDER.answer(geo, args, budget=request_budget())
    return Response(svg, mimetype="image/svg+xml")
