"""The web layer's flask-smorest pieces: the ``Api`` (with the one error handler) and ``Blueprint``.

Every error answers flask-smorest's JSON error shape (``shared/DESIGN.md`` "Errors")::

    {"code": 422, "status": "Unprocessable Entity", "message": "...", "errors": {"json": {...}}}

``Api.handle_http_exception`` is flask-smorest's own handler, completed: every answer has a
``message`` and an ``errors`` object; ``RulesError`` (and its 404 subclasses) and JSON nested
too deeply become HTTP errors and go through the same handler; a request stopped by the
watchdog (``service.guard.RequestTimedOut``) or out of memory (``MemoryError``) answers 503
with ``Retry-After``, also when it happens inside another error handler; an unexpected
exception answers a fixed 500 message, logged server-side with its traceback and never sent.
No message (in ``message`` or ``errors``, keys included) is longer than
``MAX_MESSAGE_CHARS``, whatever client value it quotes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, NoReturn

import flask_smorest as smorest
from apispec import BasePlugin
from flask import Request, current_app, request
from flask_smorest import abort
from marshmallow import Schema, ValidationError, fields, validate
from webargs.flaskparser import FlaskParser, is_json_request
from webargs.flaskparser import abort as webargs_abort
from werkzeug.exceptions import HTTPException, InternalServerError, default_exceptions

from adapters.detect import json_error_parts
from adapters.sniff import FORMAT_NAMES, is_canonical, is_import_answer, sniff
from schemas.responses import ErrorSchema
from schemas.scene import decode_json_body
from schemas.size import size_of_json
from schemas.suggest import hint_text, suggest_fields
from service.body_rules import body_rules
from service.errors import RulesError
from service.guard import RELEASE_KEY, RETRY_AFTER_SECONDS, RequestTimedOut, overload_message
from service.limits import check_size
from service.model import RULESET_IDS

#: The message of every 500 answer (the cause is logged, never sent).
INTERNAL_MESSAGE = "Internal error; it has been logged."
#: The message of a 400 for JSON nested deeper than the parser's recursion limit.
TOO_DEEP_MESSAGE = "JSON nested too deeply."
#: Longest ``message`` answered: a message quoting a client's value is cut here.
MAX_MESSAGE_CHARS = 500
#: Paths answered without an API key: liveness and readiness probes, the API description.
OPEN_PATHS = frozenset({"/healthz", "/readyz", "/openapi.json", "/docs"})
#: The OpenAPI security scheme of the optional API keys (``SIGHTLINE_API_KEYS``).
SECURITY_SCHEME = "ApiKey"
SECURITY = {
    "type": "http",
    "scheme": "bearer",
    "description": "An API key of the server's `SIGHTLINE_API_KEYS`, sent as "
    "`Authorization: Bearer <key>`. A server without `SIGHTLINE_API_KEYS` needs none; one with "
    "it answers 401 to a request without a valid key (the health probes and this document "
    "are always open).",
}
#: Error answers every operation may give, by what it takes: (status, when).
ERRORS_OF_ANY = (("401", "No valid API key (only when the server sets SIGHTLINE_API_KEYS)"),)
ERRORS_OF_INPUT = (("422", "Invalid request: the field path is in `errors`"),)
ERRORS_OF_BODY = (
    ("400", "The body is not JSON (or nested too deeply)"),
    ("413", "The body is over SIGHTLINE_MAX_CONTENT_LENGTH"),
    ("415", "The body's Content-Type is not one the operation takes (application/json)"),
    ("503", "Stopped by the request watchdog or out of memory: retry after Retry-After"),
)


def http_error(code: int, message: str, errors: dict[str, Any] | None = None) -> HTTPException:
    """The werkzeug exception for ``code`` with ``message`` and ``errors``, as ``abort`` makes."""
    error = default_exceptions[code]()
    error.data = {"message": message, "errors": errors or {}}  # type: ignore[attr-defined]
    return error


def _path_errors(path: tuple[str | int, ...], message: str) -> dict[str, Any]:
    """``{"json": {...path...: [message]}}``; ``_request`` when no field is to blame."""
    node: Any = [message]
    for key in reversed(path or ("_request",)):
        node = {str(key): node}
    return {"json": node}


def _default_message(error: HTTPException, errors: Any) -> str:
    """The ``message`` of an error raised without one (by webargs, werkzeug or Flask)."""
    code = error.code or 500
    if code == 422 and errors:
        return invalid_message(errors)
    if isinstance(errors, dict) and isinstance(errors.get("json"), list):
        return " ".join(str(m) for m in errors["json"])  # e.g. "Invalid JSON body."
    if code == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        return f"Request body is over the limit of {limit} bytes (SIGHTLINE_MAX_CONTENT_LENGTH)."
    return error.description or error.name


def invalid_message(errors: Mapping[str, Any]) -> str:
    """The 422 ``message`` for ``errors`` (``{"json" | "query": tree}``): its first cause.

    "Request body is invalid at options.cover_method: Must be one of: ...", and how many
    more there are; a client that shows only ``message`` shows the cause. O(size of errors).
    """
    where = "query" if "query" in errors else "json"
    head = "Query string is invalid" if where == "query" else "Request body is invalid"
    leaves = _leaves(errors.get(where), ())
    if not leaves:
        return head + "."
    path, first = leaves[0]
    path = tuple(p for p in path if p != "_schema")  # marshmallow's key for a whole object
    if not path and first == "Invalid input type.":
        first = "Invalid input type: a JSON object is expected."
    more = f" (and {len(leaves) - 1} more in errors)" if len(leaves) > 1 else ""
    return f"{head} at {'.'.join(path) or '(top)'}: {first}{more}"


def _leaves(node: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], str]]:
    """Each message of an ``errors`` tree with its field path, in the tree's order.

    So the top-level ``message`` says what is wrong where (a client that shows only it,
    as Foundry's notifications do, shows the cause). O(size of the tree).
    """
    if isinstance(node, dict):
        return [leaf for k, v in node.items() for leaf in _leaves(v, (*path, str(k)))]
    if isinstance(node, list | tuple):
        if all(isinstance(v, str) for v in node):
            return [(path, " ".join(node))] if node else []
        return [leaf for k, v in enumerate(node) for leaf in _leaves(v, (*path, str(k)))]
    return [(path, str(node))]


def _bounded(node: Any) -> Any:
    """``node`` (a message or ``errors``), every string and key cut to ``MAX_MESSAGE_CHARS``."""
    if isinstance(node, str):
        return node if len(node) <= MAX_MESSAGE_CHARS else node[: MAX_MESSAGE_CHARS - 1] + "…"
    if isinstance(node, dict):
        return {_bounded(str(k)): _bounded(v) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_bounded(v) for v in node]
    return node


def exclusive_range(self: Any, field: Any, ret: dict, **_: Any) -> dict:
    """Document an exclusive ``Range`` bound as exclusive (an apispec attribute function).

    apispec writes ``minimum``/``maximum`` of every ``Range`` whether or not it includes
    them; a ``Range(0, ..., min_inclusive=False)`` (the server refusing 0) gets
    ``exclusiveMinimum`` too: ``true`` next to ``minimum`` in OpenAPI 3.0, the number itself
    in 3.1.
    """
    out: dict[str, Any] = {}
    for validator in field.validators:
        for bound, inclusive, key in (
            ("min", "min_inclusive", "minimum"),
            ("max", "max_inclusive", "maximum"),
        ):
            if getattr(validator, bound, None) is None or getattr(validator, inclusive, True):
                continue
            if key not in ret:  # not a number (x-minimum ...): left as apispec wrote it
                continue
            exclusive = "exclusive" + key[0].upper() + key[1:]
            if self.openapi_version.major >= 3 and self.openapi_version.minor >= 1:
                out[exclusive] = ret.pop(key)
            else:
                out[exclusive] = True
    return out


def named_keys(self: Any, field: Any, ret: dict, **_: Any) -> dict:
    """Document a ``Dict`` whose keys are a ``OneOf`` as an object of those keys only.

    OpenAPI 3.0 has no ``propertyNames``: apispec writes such a ``Dict`` as an object of any
    keys (``additionalProperties``), which the server refuses past its choices
    (``options.advantage_levels``: ``lesser``, ``standard``, ``greater``). Its keys become
    ``properties``, each with the values' schema, and no other key (an apispec attribute
    function, run after apispec's own).
    """
    keys = getattr(field, "key_field", None) if isinstance(field, fields.Dict) else None
    choices = [v.choices for v in getattr(keys, "validators", ()) if isinstance(v, validate.OneOf)]
    if not choices:
        return {}
    values = ret.pop("additionalProperties", {})
    return {"properties": {str(k): values for k in choices[0]}, "additionalProperties": False}


def _markdown(text: str) -> str:
    """A docstring's reStructuredText markup as Markdown: ````x```` and ``:func:`x``` to ```x```."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")


#: The scene's lists the server counts against its limits: (property, config key).
SCENE_LIST_LIMITS = (
    ("walls", "MAX_WALLS"),
    ("tokens", "MAX_TOKENS"),
    ("lights", "MAX_LIGHTS"),
    ("regions", "MAX_REGIONS"),
)
#: apispec's OpenAPI 3.0 form of ``allow_none`` beside a nested schema: any object, which
#: the document then accepts where the server takes only the nested schema or null.
_ANY_OBJECT_OR_NULL = {"type": "object", "nullable": True}


def _null_only(node: Any) -> None:
    """Every ``anyOf`` branch "any object or null" of ``node`` made "null" only, in place."""
    if isinstance(node, dict):
        for key, value in node.items():
            if (
                key == "anyOf"
                and isinstance(value, list)
                and any(isinstance(v, dict) and v.get("$ref") for v in value)
            ):
                node[key] = [
                    {**v, "enum": [None]} if v == _ANY_OBJECT_OR_NULL else v for v in value
                ]
            _null_only(node[key])
    elif isinstance(node, list):
        for value in node:
            _null_only(value)


class ContractPlugin(BasePlugin):
    """Completes each operation and schema of the OpenAPI document (an apispec plugin).

    Each operation gets an ``operationId`` (its view function's name, method-prefixed when
    one view answers several methods), Markdown instead of the docstrings' reStructuredText
    in its summary and description, the error answers it may give with the error schema
    (``ERRORS_OF_*``; a 4xx or 5xx the view documents without a body gets the schema too),
    and its ``security``: the optional API key, or none on :data:`OPEN_PATHS`.

    Each schema says the limits this server refuses past (``limits``: the app's config):
    the scene's lists (:data:`SCENE_LIST_LIMITS`) and a region's outline
    (``SIGHTLINE_MAX_REGION_POINTS``, the bound on all regions together, so on each one) as
    ``maxItems``, and ``targets`` (``SIGHTLINE_MAX_TARGETS``); a nested object that may be
    null accepts the nested schema or null, not any object; fields of which a body gives
    exactly one side, the shape types and the other rules across fields that OpenAPI 3.0
    can say are in the document (``service.body_rules``); a ``ruleset`` lists the rulesets
    (``service.model.RULESET_IDS``, or the one its description names: "Must be `dnd5e`.").
    """

    def __init__(self, limits: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.limits = dict(limits or {})

    def schema_helper(self, name: str, definition: dict, **kwargs: Any) -> dict | None:
        """The limits of this server and null-only branches in ``definition``, in place."""
        _null_only(definition)
        body_rules(name, definition)
        props = definition.get("properties") or {}
        limits = self.limits
        if name == "Scene":
            for prop, key in SCENE_LIST_LIMITS:
                _max_items(props.get(prop), limits.get(key), f"SIGHTLINE_{key}")
        if name == "Shape" and isinstance(props.get("points"), dict):
            _max_items(props["points"], limits.get("MAX_REGION_POINTS"),
                       "SIGHTLINE_MAX_REGION_POINTS, all regions together")  # fmt: skip
        ruleset = props.get("ruleset")
        if isinstance(ruleset, dict) and ruleset.get("type") == "string" and "enum" not in ruleset:
            only = re.fullmatch(r"Must be `([a-z0-9-]+)`\.", str(ruleset.get("description", "")))
            ruleset["enum"] = [only[1]] if only else sorted(RULESET_IDS)
            if ruleset.get("nullable"):  # OpenAPI 3.0: a nullable enum lists null itself
                ruleset["enum"].append(None)
        if isinstance(props.get("targets"), dict):
            _max_items(props["targets"], limits.get("MAX_TARGETS"), "SIGHTLINE_MAX_TARGETS")
        return None

    def operation_helper(
        self, path: str | None = None, operations: dict | None = None, **kwargs: Any
    ) -> None:
        """Complete ``operations`` (method -> operation) of ``path`` in place."""
        rule = kwargs.get("rule")
        name = rule.endpoint.rsplit(".", 1)[-1] if rule is not None else None
        methods = [m for m in (operations or {}) if m != "parameters"]
        for method in methods:
            op = (operations or {})[method]
            if name and "operationId" not in op:
                op["operationId"] = name if len(methods) == 1 else f"{method}_{name}"
            for key in ("summary", "description"):
                if isinstance(op.get(key), str):
                    op[key] = _markdown(op[key])
            self._complete_errors(op, str(path))

    @staticmethod
    def _complete_errors(op: dict[str, Any], path: str) -> None:
        responses = op.setdefault("responses", {})
        open_path = path in OPEN_PATHS
        wanted = [] if open_path else list(ERRORS_OF_ANY)
        if "requestBody" in op or op.get("parameters"):
            wanted += ERRORS_OF_INPUT
        if "requestBody" in op:
            wanted += ERRORS_OF_BODY
        given = {str(code) for code in responses}  # flask-smorest's keys are ints
        for code, when in wanted:
            if code not in given:
                responses[code] = {"description": when}
        for code, response in responses.items():
            if str(code)[0] in "45" and isinstance(response, dict) and "content" not in response:
                response["content"] = {"application/json": {"schema": "Error"}}
        op["security"] = [] if open_path else [{SECURITY_SCHEME: []}, {}]


def _max_items(prop: Any, limit: Any, setting: str) -> None:
    """``maxItems: limit`` (or the schema's own, if lower) on array schema ``prop``.

    Its description names ``setting``.
    """
    if not isinstance(prop, dict) or limit is None or prop.get("type") != "array":
        return
    server, own = int(limit), prop.get("maxItems")
    if own is not None and int(own) < server:  # the schema's own bound is the lower one here
        prop["maxItems"] = int(own)
        note = (
            f"At most {int(own):,} (the contract's bound), and at most {server:,} on this "
            f"server ({setting}); past either, 422."
        )
    else:
        prop["maxItems"] = server
        note = f"At most {server:,} on this server ({setting}); past it 422."
    prop["description"] = f"{prop['description']} {note}" if prop.get("description") else note


class Api(smorest.Api):
    """flask-smorest's ``Api`` with Sightline's error answers.

    One error handler, flask-smorest's ``handle_http_exception``: registered for every
    ``HTTPException`` (Flask hands it unexpected exceptions as ``InternalServerError``), and
    reached by ``RulesError`` and ``RecursionError`` through ``http_error``.
    """

    ERROR_SCHEMA = ErrorSchema

    def _init_spec(self, **kwargs: Any) -> None:
        super()._init_spec(**kwargs)
        self.ma_plugin.converter.add_attribute_function(exclusive_range)
        self.ma_plugin.converter.add_attribute_function(named_keys)
        contract = ContractPlugin(self._app.config)
        contract.init_spec(self.spec)
        self.spec.plugins.append(contract)
        self.spec.components.security_scheme(SECURITY_SCHEME, SECURITY)

    def _register_error_handlers(self) -> None:
        super()._register_error_handlers()
        self._app.register_error_handler(RulesError, self.handle_rules_error)
        self._app.register_error_handler(RecursionError, self.handle_recursion_error)
        self._app.register_error_handler(RequestTimedOut, self.handle_overload)
        self._app.register_error_handler(MemoryError, self.handle_overload)
        self._app.register_error_handler(SystemError, self.handle_system_error)

    def _register_pagination_header(self) -> None:
        """No endpoint paginates: no ``PAGINATION`` header nor ``PaginationMetadata`` schema."""

    def handle_http_exception(self, error: HTTPException) -> Any:
        """flask-smorest's JSON error, always with a ``message`` and an ``errors`` object.

        A 5xx other than 503 answers ``INTERNAL_MESSAGE`` and logs the exception behind it; a
        405 keeps its ``Allow`` header.
        """
        if (error.code or 500) >= 500 and error.code != 503:  # 503: handle_overload's own
            original = getattr(error, "original_exception", None) or error
            overload = _overload_cause(original)
            if overload is not None:  # the watchdog or memory stopped another error handler
                return self.handle_overload(overload)
            current_app.logger.error("Unhandled error", exc_info=original)
            error = InternalServerError()
            error.data = {"message": INTERNAL_MESSAGE}  # type: ignore[attr-defined]
        if error.code == 404 and not getattr(error, "data", None):
            message = unknown_route_message(request.path)
            if message:
                error.data = {"message": message, "errors": {}}  # type: ignore[attr-defined]
        payload, code, headers = super().handle_http_exception(error)
        payload["errors"] = payload.get("errors") or {}
        if "message" not in payload:
            payload["message"] = _default_message(error, payload["errors"])
        payload["message"] = _bounded(payload["message"])
        payload["errors"] = _bounded(payload["errors"])
        if code == 405 and getattr(error, "valid_methods", None):
            headers = {**headers, "Allow": ", ".join(error.valid_methods)}  # type: ignore[attr-defined]
        return payload, code, headers

    def handle_rules_error(self, error: RulesError) -> Any:
        """``RulesError``: its status (422, 404), message and field path."""
        errors = _path_errors(error.path, error.message)
        return self.handle_http_exception(http_error(error.status, error.message, errors))

    def handle_overload(self, error: RequestTimedOut | MemoryError) -> Any:
        """503 with ``Retry-After``: the watchdog stopped the request, or memory ran out.

        The worker frees memory once the answer is sent (``service.guard.Guard``).
        """
        request.environ[RELEASE_KEY] = True
        current_app.logger.warning("Request stopped: %s", type(error).__name__)
        config = current_app.config
        message = overload_message(
            error, config.get("REQUEST_TIMEOUT", 0), config.get("WORKER_MAX_MB", 0)
        )
        http = http_error(503, message, {"json": {"_request": [message]}})
        http.data["headers"] = {"Retry-After": str(RETRY_AFTER_SECONDS)}  # type: ignore[attr-defined]
        return self.handle_http_exception(http)

    def handle_system_error(self, error: SystemError) -> Any:
        """A compiled (numba) call that the watchdog or memory stopped: the same 503.

        The watchdog's ``RequestTimedOut`` raised while compiled code runs comes out of it
        as a ``SystemError`` caused by it; any other ``SystemError`` is a 500.
        """
        cause = _overload_cause(error)
        if cause is not None:
            return self.handle_overload(cause)
        return self.handle_http_exception(InternalServerError(original_exception=error))

    def handle_recursion_error(self, error: RecursionError) -> Any:
        """A body nested too deeply for the JSON parser: 400, not a crash."""
        return self.handle_http_exception(
            http_error(400, TOO_DEEP_MESSAGE, {"json": [TOO_DEEP_MESSAGE]})
        )


#: Messages of a failed allocation that C libraries report as another exception: GEOS'
#: ``std::bad_alloc`` (shapely's ``GEOSException``), shapely's own "Could not allocate".
ALLOCATION_FAILED = ("bad_alloc", "could not allocate")


def _overload_cause(error: BaseException) -> RequestTimedOut | MemoryError | None:
    """The watchdog's ``RequestTimedOut`` or a failed allocation behind ``error``, if any.

    ``error`` itself, or its chain of causes and contexts: a ``SystemError`` out of compiled
    code, or an exception raised while another error handler ran (Flask hands the handler's
    own exception to the 500 handler). A failed allocation is a ``MemoryError``, or an
    exception whose message names one (:data:`ALLOCATION_FAILED`), answered as a
    ``MemoryError``. At most 16 links are followed.
    """
    cause: BaseException | None = error
    for _ in range(16):
        if cause is None:
            return None
        if isinstance(cause, (RequestTimedOut, MemoryError)):
            return cause
        text = str(cause).lower()
        if isinstance(cause, Exception) and any(word in text for word in ALLOCATION_FAILED):
            return MemoryError(str(cause)[:200])
        cause = cause.__cause__ or cause.__context__
    return None


def invalid_json_message(error: json.JSONDecodeError | UnicodeDecodeError) -> str:
    """What is wrong with a body that is not JSON, and where (line, column, character).

    A body that ends where json stops (``adapters.detect.json_error_parts``: a truncated
    upload) is told it may have been cut short; bytes that are not UTF-8 are named with
    their offset.
    """
    undecoded = error if isinstance(error, UnicodeDecodeError) else error.__cause__
    if isinstance(undecoded, UnicodeDecodeError):  # webargs wraps it in a JSONDecodeError
        bad = undecoded.object[undecoded.start : undecoded.start + 1].hex()
        return f"Invalid JSON body: not UTF-8 text (byte 0x{bad} at offset {undecoded.start})."
    assert isinstance(error, json.JSONDecodeError)
    what, where, cut = json_error_parts(error)
    ends = " The body ends there: was it cut short?" if cut else ""
    return f"Invalid JSON body: {what.removesuffix(' here')} at {where}.{ends}"


class JSONBodyParser(FlaskParser):
    """webargs' Flask parser, answering 400 for every body the JSON parser refuses.

    Besides syntax errors: numbers longer than Python's integer-digit limit (a ValueError
    that is not a JSONDecodeError) and nesting deeper than the parser's recursion limit.
    A body carrying a ``scene`` has it decoded by ``schemas.scene.decode_json_body``
    (msgspec, in C); when that declines, the body is parsed the ordinary way. Either way a
    scene over the scene limits (``service.limits``) is refused with 422 before it is
    converted: counted from the bytes, or from the parsed lists.
    """

    def _raw_load_json(self, req: Request) -> Any:
        if is_json_request(req):
            limits = current_app.config
            body = decode_json_body(req.get_data(cache=True), lambda s: check_size(s, limits))
            if body is not None:
                return body
        try:
            body = super()._raw_load_json(req)
            if type(body) is dict and "scene" in body:  # before the schema converts it
                check_size(size_of_json(body["scene"]), current_app.config)
            return body
        except (ValueError, RecursionError) as err:
            if isinstance(err, json.JSONDecodeError | UnicodeDecodeError):
                raise
            message = (
                TOO_DEEP_MESSAGE
                if isinstance(err, RecursionError)
                else "Invalid JSON body: a number is too long."
            )
            abort(400, message=message, errors={"json": [message]})

    def _handle_invalid_json_error(
        self, error: json.JSONDecodeError | UnicodeDecodeError, req: Request, *args: Any, **kw: Any
    ) -> NoReturn:
        """400 saying where the body stops being JSON (``invalid_json_message``)."""
        message = invalid_json_message(error)
        abort(400, message=message, errors={"json": [message]})
        raise AssertionError("unreachable")  # abort raises

    def handle_error(
        self,
        error: ValidationError,
        req: Request,
        schema: Schema,
        *,
        error_status_code: int | None,
        error_headers: Mapping[str, str] | None,
    ) -> NoReturn:
        """Webargs' 422, saying so when a VTT export came where a canonical scene belongs.

        A Foundry, Roll20 or Universal VTT file sent as ``scene`` (or as the whole body)
        fails the scene schema field by field; the message names the format and what to send
        instead (``export_hint``), and ``errors`` keeps the field errors. Otherwise an
        unknown field with a near known name is named in the message and its error
        (``schemas.suggest``: ``attaker`` -> ``attacker``).
        """
        hint = export_hint(error.data, schema)  # the body the schema was given
        messages, hint = _with_suggestions(error.messages, schema, hint)
        webargs_abort(
            error_status_code or self.DEFAULT_VALIDATION_STATUS,
            exc=error,
            messages=messages,
            schema=schema,
            headers=error_headers,
            **({"message": hint} if hint else {}),
        )


def _with_suggestions(messages: Any, schema: Schema, hint: str | None) -> tuple[Any, str | None]:
    """Location-keyed ``messages`` with did-you-mean names, and the message to answer.

    The message is ``hint`` (an export sent as a scene) when there is one, else "<the body
    or query string> is invalid: unknown field ... (did you mean ...?)" when an unknown field
    has a near name, else ``None`` (the default message).
    """
    if not isinstance(messages, dict):
        return messages, hint
    out: dict[str, Any] = {}
    found: list[tuple[tuple[str, ...], str]] = []
    for location, node in messages.items():
        out[location], near = suggest_fields(node, schema)
        found += near
    if hint is None and found:
        what = "Query string" if "query" in messages else "Request body"
        hint = f"{what} is invalid: {hint_text(found)}."
    return out, hint


def export_hint(body: Any, schema: Schema | None = None) -> str | None:
    """What to send instead when ``body`` or its ``scene`` is a VTT export, else ``None``.

    ``adapters.sniff`` recognises the export (a canonical scene is never taken for one:
    ``is_canonical``). The whole body is looked at only where a scene belongs (``schema``
    has a ``scene`` field) and the body names none (no ``scene`` or ``scene_id``): a change
    of ``PATCH /v1/scenes/{id}`` (its ``walls`` by id) or a question with a stray key is no
    export. Cost: O(keys looked at).
    """
    if not isinstance(body, dict):
        return None
    fields = None if schema is None else {f.data_key or n for n, f in schema.fields.items()}
    named = "scene" in body or "scene_id" in body
    whole = fields is None or ("scene" in fields and not named)
    for label, doc in (("`scene`", body.get("scene")), ("The body", body if whole else None)):
        if doc is None or is_canonical(doc, without_grid=True) or is_import_answer(doc):
            continue
        found = sniff(doc)
        if found is not None:
            return (
                f"{label} looks like {FORMAT_NAMES[found]}, not a canonical Sightline scene: "
                f'POST {{"format": "{found}", "export": <the file\'s JSON>}} to /v1/scenes '
                '("auto" guesses the format) and ask by the scene_id it answers, or POST the '
                f"file to /v1/import/{found} for the canonical scene."
            )
    return None


def unknown_route_message(path: str) -> str | None:
    """The 404 message of a path no route matches, where more can be said than "not found".

    ``/v1/import/<format>`` with an unknown format lists the formats (``auto`` guesses);
    ``None`` for any other path (werkzeug's message stays).
    """
    prefix = "/v1/import/"
    if not path.startswith(prefix) or "/" in path[len(prefix) :].strip("/"):
        return None
    given = path[len(prefix) :].strip("/")
    formats = [f for f in FORMAT_NAMES if f != "canonical"]
    listed = "; ".join(f"{f} ({FORMAT_NAMES[f].removeprefix('a ')})" for f in formats)
    return (
        f"No import format {given!r}. POST the file to /v1/import/<format>, one of: {listed}; "
        "or auto, which recognises the file (a canonical scene comes back unchanged)."
    )


class Blueprint(smorest.Blueprint):
    """flask-smorest Blueprint whose arguments use ``JSONBodyParser``."""

    ARGUMENTS_PARSER = JSONBodyParser()
