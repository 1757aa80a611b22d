"""Every error family answers flask-smorest's error shape, exactly (shared/DESIGN.md "Errors").

One handler answers them all: ``service.http_errors.Api.handle_http_exception``, the
flask-smorest ``Api``'s own hook. The bodies below are pinned whole.
"""

from __future__ import annotations

import json
import logging
import re

import pytest
from werkzeug.exceptions import HTTPException

from service import http_errors
from service.app import create_app

SCENE = {
    "grid": {"size": 100},
    "tokens": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 400, "y": 0}],
}
LIMIT = 64 * 1024

#: The 422 of an unknown ruleset: it lists the known ones.
UNKNOWN_GURPS = "Unknown ruleset 'gurps'; known: dnd2024, dnd5e, pf2e, pf2e-variant, starfinder."


def cover(**kw):
    return {"ruleset": "dnd5e", "attacker": "A", "targets": ["B"], "scene": SCENE, **kw}


def body(code, status, message, errors=None):
    return {"code": code, "status": status, "message": message, "errors": errors or {}}


@pytest.fixture(scope="module")
def app():
    return create_app({"TESTING": False, "MAX_CONTENT_LENGTH": LIMIT})


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


NOT_FOUND = (
    "The requested URL was not found on the server. If you entered the URL manually please "
    "check your spelling and try again."
)
TOO_LARGE = f"Request body is over the limit of {LIMIT} bytes (SIGHTLINE_MAX_CONTENT_LENGTH)."
RANGE = "Must be greater than or equal to 1 and less than or equal to 100000.0."
#: The import's grid_distance has the scene grid's bounds (model.MIN_GRID_DISTANCE).
GRID_DISTANCE = "Must be greater than or equal to 0.001 and less than or equal to 1000000.0."

#: Where the body stops being JSON, not a bare "Invalid JSON body." (DESIGN.md "Errors").
MALFORMED = (
    "Invalid JSON body: Expecting property name enclosed in double quotes at line 1, column 2 "
    "(character 1)."
)

CASES = [
    pytest.param(
        "post",
        "/v1/cover",
        {"data": "{not json", "content_type": "application/json"},
        body(400, "Bad Request", MALFORMED, {"json": [MALFORMED]}),
        id="400 malformed JSON",
    ),
    pytest.param(
        "post",
        "/v1/cover",
        {"data": "[" * 3000 + "]" * 3000, "content_type": "application/json"},
        body(400, "Bad Request", "JSON nested too deeply.", {"json": ["JSON nested too deeply."]}),
        id="400 nested too deeply",
    ),
    pytest.param(
        "post",
        "/v1/cover",
        {"data": "hello", "content_type": "text/plain"},
        body(
            415,
            "Unsupported Media Type",
            "Send the body as JSON (Content-Type: application/json).",
        ),
        id="415",
    ),
    pytest.param(
        "post",
        "/v1/cover",
        {"json": cover(scene={**SCENE, "walls": [{"id": "w", "c": [0, 0, 0, 1]}] * 3000})},
        body(413, "Request Entity Too Large", TOO_LARGE),
        id="413",
    ),
    pytest.param("get", "/nowhere", {}, body(404, "Not Found", NOT_FOUND), id="404 route"),
    pytest.param(
        "get",
        "/v1/cover",
        {},
        body(405, "Method Not Allowed", "The method is not allowed for the requested URL."),
        id="405",
    ),
    pytest.param(
        "post",
        "/v1/cover",
        {"json": cover(bogus=1)},
        body(
            422,
            "Unprocessable Entity",
            "Request body is invalid at bogus: Unknown field.",
            {"json": {"bogus": ["Unknown field."]}},
        ),
        id="422 body",
    ),
    pytest.param(
        "post",
        "/v1/cover",
        {"json": cover(scene={"grid": {"size": 0}})},
        body(
            422,
            "Unprocessable Entity",
            f"Request body is invalid at scene.grid.size: {RANGE}",
            {"json": {"scene": {"grid": {"size": [RANGE]}}}},
        ),
        id="422 scene path",
    ),
    pytest.param(
        "post",
        "/v1/import/uvtt?grid_distance=0",
        {"json": {}},
        body(
            422,
            "Unprocessable Entity",
            f"Query string is invalid at grid_distance: {GRID_DISTANCE}",
            {"query": {"grid_distance": [GRID_DISTANCE]}},
        ),
        id="422 query",
    ),
    pytest.param(
        "post",
        "/v1/cover",
        {"json": cover(ruleset="gurps")},
        body(422, "Unprocessable Entity", UNKNOWN_GURPS, {"json": {"ruleset": [UNKNOWN_GURPS]}}),
        id="422 RulesError",
    ),
    pytest.param(
        "post",
        "/v1/cover",
        {"json": cover(targets=["nope"])},
        body(
            404,
            "Not Found",
            "No token with id 'nope' in the scene.",
            {"json": {"targets": {"0": ["No token with id 'nope' in the scene."]}}},
        ),
        id="404 RulesError",
    ),
]


@pytest.mark.parametrize(("method", "path", "kwargs", "expected"), CASES)
def test_error_bodies(client, method, path, kwargs, expected):
    resp = getattr(client, method)(path, **kwargs)
    assert resp.status_code == expected["code"]
    assert resp.mimetype == "application/json"
    assert resp.get_json() == expected


#: A body with every kind of JSON value (literals, negative and decimal numbers, nesting).
EVERY_VALUE = {
    "scene": {
        **SCENE,
        "lights": [{"id": "l", "x": -12.5, "y": 3e2, "bright": 10, "on": False, "dim": None}],
        "tokens": [*SCENE["tokens"], {"id": "C", "x": 9, "y": 9, "hidden": True}],
    }
}


@pytest.mark.parametrize(
    "json_body", [cover(), {"scene": SCENE}, EVERY_VALUE], ids=["cover", "upload", "every value"]
)
def test_a_body_cut_short_says_where_and_that_it_ends_there(client, json_body):
    """Every cut of a JSON body answers 400 naming the character where it ends (DESIGN.md
    "Errors"): a truncated upload is told as one, never as a bare "Invalid JSON body."."""
    text = json.dumps(json_body, indent=1)
    for cut in range(1, len(text) - 1, 3):
        resp = client.post("/v1/cover", data=text[:cut], content_type="application/json")
        message = resp.get_json()["message"]
        assert resp.status_code == 400, (cut, message)
        assert message.startswith("Invalid JSON body: "), message
        assert message.endswith("The body ends there: was it cut short?"), (cut, message)
        # Where json stopped: the cut, the start of a literal or number cut within, or of a
        # string left open (no key or id here holds a quote).
        at = int(re.search(r"\(character (\d+)\)", message).group(1))
        opened = text.rfind('"', 0, cut)
        assert at == opened if "Unterminated string" in message else cut - 5 <= at <= cut
        line = text[:at].count("\n") + 1
        column = at - (text[:at].rfind("\n") + 1) + 1
        assert f"at line {line}, column {column} (character {at})" in message, (cut, message)
        assert resp.get_json()["errors"] == {"json": [message]}


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b'{"ruleset": "dnd5e", "attacker": "\xffA"}', "byte 0xff at offset 34"),
        (b'{"ruleset": "\xc3"}', "byte 0xc3 at offset 13"),
    ],
)
def test_a_body_that_is_not_utf8_names_the_byte(client, data, where):
    """Bytes that are not UTF-8 are named with their offset (RFC 8259 section 8.1)."""
    resp = client.post("/v1/cover", data=data, content_type="application/json")
    assert resp.status_code == 400
    assert resp.get_json()["message"] == f"Invalid JSON body: not UTF-8 text ({where})."


def test_405_keeps_its_allow_header(client):
    allowed = client.get("/v1/cover").headers["Allow"]
    assert sorted(allowed.split(", ")) == ["OPTIONS", "POST"]  # werkzeug's order is a set's


def test_401_keeps_its_challenge():
    resp = create_app({"API_KEYS": "k"}).test_client().post("/v1/cover", json={})
    assert resp.get_json() == body(
        401, "Unauthorized", "A valid API key is required: send 'Authorization: Bearer <key>'."
    )
    assert resp.headers["WWW-Authenticate"] == 'Bearer realm="sightline"'


def test_500_is_fixed_and_logged(monkeypatch, caplog):
    from service.rules.dnd5e import cover as dnd5e

    def boom(*a, **k):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(dnd5e.Dnd5e, "covers", boom)
    app = create_app({"TESTING": False})
    with caplog.at_level(logging.ERROR):
        resp = app.test_client().post("/v1/cover", json=cover())
    assert resp.status_code == 500
    assert resp.get_json() == body(500, "Internal Server Error", http_errors.INTERNAL_MESSAGE)
    assert "secret" not in resp.get_data(as_text=True)
    logged = [r for r in caplog.records if r.exc_info and r.exc_info[0] is RuntimeError]
    assert logged and "secret internals" in str(logged[0].exc_info[1])


def test_one_handler_the_apis_own(app):
    """HTTP errors are handled by the flask-smorest Api subclass's hook, nothing else."""
    handlers = app.error_handler_spec[None][None]
    handler = handlers[HTTPException]
    assert handler.__func__ is http_errors.Api.handle_http_exception
    assert isinstance(handler.__self__, http_errors.Api)
    others = {cls for cls in handlers if issubclass(cls, HTTPException)} - {HTTPException}
    assert not others


@pytest.mark.parametrize(
    ("value", "want"),
    [
        ("short", "'short'"),
        ("x" * 100, "'" + "x" * 57 + "…'"),
        (list(range(100)), repr(list(range(100)))[:59] + "…"),
    ],
    ids=["short", "long string keeps its quote", "long list"],
)
def test_client_values_in_messages_are_cut_and_still_read_as_quoted(value, want):
    """Issue 16: a client's value is echoed at most 60 characters, a string still closed."""
    from service.errors import shown

    assert shown(value) == want and len(shown(value)) <= 60


#: Hand-made exports of each format, as a user would send them where a scene belongs.
FOUNDRY_EXPORT = {
    "_id": "abc",
    "name": "Crypt",
    "grid": {"size": 100, "type": 1, "distance": 5},
    "walls": [{"_id": "w1", "c": [0, 0, 100, 0], "move": 20, "sight": 20}],
}
ROLL20_EXPORT = {"R20Exporter_format": "1.0", "pages": [{"name": "Map", "paths": []}]}
UVTT_EXPORT = {"format": 0.3, "resolution": {"pixels_per_grid": 70}, "line_of_sight": []}


@pytest.mark.parametrize(
    "export, fmt",
    [(FOUNDRY_EXPORT, "foundry"), (ROLL20_EXPORT, "roll20"), (UVTT_EXPORT, "uvtt")],
    ids=["foundry", "roll20", "uvtt"],
)
@pytest.mark.parametrize("where", ["scenes body", "scenes scene", "cover scene"])
def test_an_export_where_a_scene_belongs_says_what_to_send(client, export, fmt, where):
    """A VTT export sent as the canonical scene: a 422 naming the format and what to send
    instead, with the field errors kept."""
    path, body, label = {
        "scenes body": ("/v1/scenes", export, "The body"),
        "scenes scene": ("/v1/scenes", {"scene": export}, "`scene`"),
        "cover scene": ("/v1/cover", {**cover(), "scene": export}, "`scene`"),
    }[where]
    got = client.post(path, json=body)
    assert got.status_code == 422
    answer = got.get_json()
    assert answer["message"].startswith(f"{label} looks like ")
    assert f'"format": "{fmt}"' in answer["message"]
    assert f"/v1/import/{fmt}" in answer["message"]
    assert answer["errors"]["json"]  # the field errors are kept


def test_a_canonical_scene_with_a_typo_gets_no_export_hint(client):
    body = {**cover(), "scene": {**SCENE, "wals": []}}
    got = client.post("/v1/cover", json=body).get_json()
    assert "looks like" not in got["message"] and "/v1/import" not in got["message"]
    # the typo is named with the field it is near (schemas.suggest)
    assert (
        got["message"] == "Request body is invalid: unknown field scene.wals (did you mean walls?)."
    )
    assert got["errors"]["json"]["scene"]["wals"] == ["Unknown field. Did you mean 'walls'?"]
