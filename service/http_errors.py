"""Error handlers: every error family answers JSON in the shape of ``shared/DESIGN.md``.

``{"code": 422, "status": "Unprocessable Entity", "message": "...", "errors": {"json": {...}}}``.
HTTP errors (400, 404, 405, 413, 415 ...) keep their codes through flask-smorest's handler;
an unexpected exception answers a fixed 500 message with no traceback or exception text.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

import flask_smorest as smorest
from flask import Flask, Request, current_app, jsonify
from flask_smorest import abort
from webargs.flaskparser import FlaskParser, is_json_request
from werkzeug.exceptions import HTTPException, InternalServerError

from schemas.scene import decode_json_body
from service.errors import RulesError


def error_body(code: int, message: str, errors: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON error body for ``code``; ``errors`` is ``{}`` when no field is to blame."""
    return {
        "code": code,
        "status": HTTPStatus(code).phrase,
        "message": message,
        "errors": errors or {},
    }


def _path_errors(path: tuple[str | int, ...], message: str) -> dict[str, Any]:
    node: Any = [message]
    for key in reversed(path or ("_request",)):
        node = {str(key): node}
    return {"json": node}


def handle_rules_error(err: RulesError) -> Any:
    """``RulesError`` and subclasses: 422, or 404 for unknown tokens and scene ids."""
    body = error_body(err.status, err.message, _path_errors(err.path, err.message))
    return jsonify(body), err.status


def handle_http_exception(err: HTTPException) -> Any:
    """HTTP errors keep their code; flask-smorest/webargs details become ``errors``."""
    code = err.code or 500
    if code >= 500:
        return handle_internal_error(InternalServerError(original_exception=err))
    data = getattr(err, "data", None) or {}
    errors = data.get("errors") or data.get("messages")
    message = data.get("message")
    if message is None and code == 422 and errors:
        where = "Query string" if "query" in errors else "Request body"
        message = f"{where} is invalid."
    if message is None and isinstance(errors, dict) and isinstance(errors.get("json"), list):
        message = " ".join(str(m) for m in errors["json"])  # e.g. "Invalid JSON body."
    if message is None and code == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        message = f"Request body is over the limit of {limit} bytes (SIGHTLINE_MAX_CONTENT_LENGTH)."
    if message is None:
        message = err.description or HTTPStatus(code).phrase
    response = jsonify(error_body(code, message, errors))
    for name, value in (data.get("headers") or {}).items():
        response.headers[name] = value
    if code == 405 and hasattr(err, "valid_methods") and err.valid_methods:
        response.headers["Allow"] = ", ".join(err.valid_methods)
    return response, code


def handle_internal_error(err: InternalServerError) -> Any:
    """A bug: fixed message, logged server-side with its traceback, never sent."""
    original = getattr(err, "original_exception", None)
    if original is not None:
        current_app.logger.error("Unhandled error", exc_info=original)
    return jsonify(error_body(500, "Internal error; it has been logged.")), 500


def handle_recursion_error(err: RecursionError) -> Any:
    """A body nested too deeply for the JSON parser: 400, not a crash."""
    message = "JSON nested too deeply."
    return jsonify(error_body(400, message, {"json": [message]})), 400


class JSONBodyParser(FlaskParser):
    """webargs' Flask parser, answering 400 for every body the JSON parser refuses.

    Besides syntax errors: numbers longer than Python's integer-digit limit (a ValueError
    that is not a JSONDecodeError) and nesting deeper than the parser's recursion limit.
    A body carrying a ``scene`` has it decoded by ``schemas.scene.decode_json_body``
    (issue 7); when that declines, the body is parsed the ordinary way.
    """

    def _raw_load_json(self, req: Request) -> Any:
        if is_json_request(req):
            body = decode_json_body(req.get_data(cache=True))
            if body is not None:
                return body
        try:
            return super()._raw_load_json(req)
        except (ValueError, RecursionError) as err:
            if isinstance(err, json.JSONDecodeError | UnicodeDecodeError):
                raise
            message = (
                "JSON nested too deeply."
                if isinstance(err, RecursionError)
                else ("Invalid JSON body: a number is too long.")
            )
            abort(400, message=message, errors={"json": [message]})


class Blueprint(smorest.Blueprint):
    """flask-smorest Blueprint whose arguments use ``JSONBodyParser``."""

    ARGUMENTS_PARSER = JSONBodyParser()


def register(app: Flask) -> None:
    """Register the handlers on ``app`` (after flask-smorest's HTTPException handler)."""
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(RulesError, handle_rules_error)
    app.register_error_handler(RecursionError, handle_recursion_error)
    app.register_error_handler(InternalServerError, handle_internal_error)
