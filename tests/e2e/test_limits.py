"""Issue 16: a real gunicorn with a low memory ceiling and a low timeout.

Requests made slow or big on purpose (``SIGHTLINE_TEST_HOOKS=1``: ``/v1/_test/sleep`` and
``/v1/_test/alloc``) get JSON 503s with ``Retry-After``; the one worker keeps answering
(gunicorn never replaces it); framing errors gunicorn answers itself are JSON; every
access-log line parses. Bad settings stop gunicorn with one line.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time

import pytest
import requests

from service import settings
from tests.e2e.conftest import GUNICORN, ROOT, _free_port, gunicorn

pytestmark = pytest.mark.e2e

APP = "service.app:create_app()"
MAX_BODY = 100_000
REQUEST_TIMEOUT = 1.5
COVER = {"ruleset": "dnd5e", "scene_id": "sample", "attacker": "archer", "targets": ["goblin"]}


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """One worker: 3 s gunicorn timeout, 1.5 s watchdog, 256 MB ceiling, 100 kB bodies."""
    logs = tmp_path_factory.mktemp("limited")
    env = {
        "SIGHTLINE_WORKERS": "1",
        "SIGHTLINE_WORKER_TIMEOUT": "3",
        "SIGHTLINE_REQUEST_TIMEOUT": str(REQUEST_TIMEOUT),
        "SIGHTLINE_WORKER_MAX_MB": "256",
        "SIGHTLINE_MAX_CONTENT_LENGTH": str(MAX_BODY),
        "SIGHTLINE_TEST_HOOKS": "1",
    }
    with gunicorn(env, APP, logs, wait=30) as served:
        yield served


def raw(port: int, data: bytes) -> tuple[int, dict]:
    """Send ``data`` as it is; the status and the JSON body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    assert b"content-type: application/json" in head.lower(), head
    return status, json.loads(body)


def assert_json_error(resp: requests.Response, code: int) -> dict:
    assert resp.status_code == code, resp.text[:300]
    assert resp.headers["Content-Type"].startswith("application/json")
    body = resp.json()
    assert body["code"] == code and set(body) >= {"status", "message", "errors"}
    return body


def test_a_request_past_the_watchdog_is_a_503_in_its_time(limited):
    start = time.monotonic()
    resp = requests.get(limited["url"] + "/v1/_test/sleep?ms=10000", timeout=30)
    elapsed = time.monotonic() - start
    body = assert_json_error(resp, 503)
    assert resp.headers["Retry-After"] == "5"
    assert "SIGHTLINE_REQUEST_TIMEOUT" in body["message"]
    assert elapsed >= REQUEST_TIMEOUT  # the watchdog's JSON (above), not gunicorn's kill


def test_a_request_past_the_memory_ceiling_is_a_503(limited):
    resp = requests.get(limited["url"] + "/v1/_test/alloc?mb=1024", timeout=30)
    body = assert_json_error(resp, 503)
    assert resp.headers["Retry-After"] == "5"
    assert "SIGHTLINE_WORKER_MAX_MB" in body["message"]


def test_the_worker_keeps_answering_afterwards(limited):
    url = limited["url"]
    for _ in range(3):
        assert requests.get(url + "/v1/_test/alloc?mb=1024", timeout=30).status_code == 503
        # Memory freed at once: a request within the ceiling right after succeeds.
        ok = requests.get(url + "/v1/_test/alloc?mb=64", timeout=30)
        assert ok.status_code == 200 and ok.json() == {"allocated_mb": 64}
    assert requests.get(url + "/v1/_test/sleep?ms=20", timeout=30).json() == {"slept_ms": 20}
    cover = requests.post(url + "/v1/cover", json=COVER, timeout=30)
    assert cover.status_code == 200, cover.text[:300]
    assert cover.json()["results"][0]["target"] == "goblin"


def test_framing_errors_gunicorn_answers_are_json(limited):
    port = limited["port"]
    status, body = raw(port, b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (status, body["code"]) == (414, 414)
    many = b"".join(b"X-%d: 1\r\n" % i for i in range(150))
    status, body = raw(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + many + b"\r\n")
    assert (status, body["code"]) == (431, 431)
    big = b"X-Big: " + b"a" * 9000 + b"\r\n"
    status, body = raw(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + big + b"\r\n")
    assert (status, body["code"]) == (431, 431)
    for length in (b"abc", b"-1", b"1, 2"):
        status, body = raw(
            port, b"POST /v1/cover HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + b"\r\n\r\n"
        )
        assert (status, body["code"]) == (400, 400), length
        assert body["message"] and body["errors"] == {}
    status, body = raw(
        port,
        b"POST /v1/cover HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    )
    assert (status, body["code"]) == (400, 400)


def _chunks(data: bytes, size: int = 8192):
    for i in range(0, len(data), size):
        yield data[i : i + size]


def test_a_chunked_body_over_the_limit_is_413(limited):
    # Valid JSON for its first MAX_BODY bytes: cut at the limit, it would parse.
    padding = json.dumps({**COVER, "pad": ""})
    body = padding[:-2] + "x" * (MAX_BODY + 50_000) + '"}'
    resp = requests.post(
        limited["url"] + "/v1/cover",
        data=_chunks(body.encode()),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    body = assert_json_error(resp, 413)
    assert "SIGHTLINE_MAX_CONTENT_LENGTH" in body["message"]


def test_a_chunked_body_within_the_limit_is_read_whole(limited):
    resp = requests.post(
        limited["url"] + "/v1/cover",
        data=_chunks(json.dumps(COVER).encode(), 7),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert resp.status_code == 200, resp.text[:300]


def test_access_log_lines_all_parse_and_time_the_503s(limited):
    # A path with a quote, a backslash and a control character, and a long query.
    status, _ = raw(
        limited["port"], b'GET /a"b\\c%01d?q=%22' + b"x" * 2000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    assert status == 404
    time.sleep(0.5)  # the log line is written after the answer
    lines = limited["out"].read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]  # every line parses
    assert len(records) >= 10
    for r in records:
        assert set(r) >= {"time", "remote", "request", "method", "path", "status", "ms"}
        assert r["time"].endswith("+00:00") and "T" in r["time"]
    slept = [r for r in records if r["path"] == "/v1/_test/sleep" and r["status"] == 503]
    assert len(slept) == 1
    assert REQUEST_TIMEOUT * 1000 <= slept[0]["ms"] < 3000  # its real time
    odd = [r for r in records if r["path"] == '/a"b\\c\x01d']
    assert len(odd) == 1 and odd[0]["request"].startswith('GET /a"b\\c%01d?q=%22xxx')
    assert sum(r["status"] == 503 for r in records) == 5
    err = limited["err"].read_text(encoding="utf-8")
    assert err.count("Booting worker") == 1, err  # never killed nor replaced
    assert "WORKER TIMEOUT" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SIGHTLINE_API_KEYS", "0"),
        ("SIGHTLINE_API_KEYS", "false"),
        ("SIGHTLINE_API_KEYS", "null"),
        ("SIGHTLINE_API_KEYS", '[""]'),
        ("SIGHTLINE_API_KEYS", "12345"),
        ("SIGHTLINE_MAX_WALLS", "lots"),
        ("SIGHTLINE_WORKERS", "0"),
        ("SIGHTLINE_WORKERS", "1.5"),
        ("SIGHTLINE_WORKER_TIMEOUT", "thirty"),
        ("SIGHTLINE_WORKER_MAX_MB", "1"),
    ],
)
def test_gunicorn_refuses_a_bad_setting_in_one_line(variable, value):
    port = _free_port()
    env = {**os.environ, variable: value}
    out = subprocess.run(
        [GUNICORN, "-c", "gunicorn.conf.py", "--bind", f"127.0.0.1:{port}", APP],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0
    lines = out.stderr.strip().splitlines()
    setting = settings.BY_NAME[variable.removeprefix("SIGHTLINE_")]
    # A value that may be a key is not printed (tests/service/test_hardening.py).
    shown = settings.shown_secret(setting, value) if setting.kind == "keys" else value
    assert lines == [f"sightline: {variable}={shown!r} is invalid: " + lines[0].split(": ", 2)[2]]
    assert "expected" in lines[0] and "Traceback" not in out.stderr
