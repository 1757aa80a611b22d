"""A real gunicorn worker past its memory ceiling in C code answers 503 JSON and lives on.

The ceiling is a soft limit on the worker's RSS (``service.guard.MemoryWatch``), not an
address-space limit: under ``RLIMIT_AS`` an allocation failing inside GEOS crashed the worker
(SIGSEGV in ``STRtree.query``) or became a 500. The app served here is the real one with
routes that allocate in numpy and shapely on purpose (``tests/e2e/memory_app.py``). Each
allocation past the ceiling answers 503 with ``Retry-After``; the same worker (same pid,
never replaced) answers next, with its memory given back; a chunked body sent slowly is
stopped by the watchdog (503), not by gunicorn's kill.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
import requests

from service.guard import RETAIN_FRACTION
from tests.e2e.conftest import gunicorn

pytestmark = pytest.mark.e2e

MAX_MB = 450
REQUEST_TIMEOUT = 8
COVER = {"ruleset": "dnd5e", "scene_id": "sample", "attacker": "archer", "targets": ["goblin"]}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One worker, a 450 MB ceiling, an 8 s watchdog, the ``/_mem`` routes."""
    logs = tmp_path_factory.mktemp("memory")
    env = {
        "SIGHTLINE_WORKERS": "1",
        "SIGHTLINE_WORKER_TIMEOUT": "11",
        "SIGHTLINE_REQUEST_TIMEOUT": str(REQUEST_TIMEOUT),
        "SIGHTLINE_WORKER_MAX_MB": str(MAX_MB),
    }
    app = "tests.e2e.memory_app:create_app()"
    with gunicorn(env, app, logs, wait=60) as served:
        yield served


def _worker(url: str) -> dict:
    resp = requests.get(url + "/_mem/pid", timeout=30)
    assert resp.status_code == 200, resp.text[:300]
    return resp.json()


def _assert_503(resp: requests.Response, setting: str) -> None:
    assert resp.status_code == 503, resp.text[:300]
    assert resp.headers["Content-Type"].startswith("application/json")
    assert resp.headers["Retry-After"] == "5"
    body = resp.json()
    assert body["code"] == 503 and setting in body["message"], body


def test_the_worker_has_no_address_space_limit(server):
    pid = _worker(server["url"])["pid"]
    limits = Path(f"/proc/{pid}/limits").read_text()
    line = next(ln for ln in limits.splitlines() if ln.startswith("Max address space"))
    assert line.split()[3] == "unlimited", line  # soft limit: no RLIMIT_AS (SIGSEGV in GEOS)


@pytest.mark.parametrize(
    "path",
    [
        "/_mem/numpy?mb=4000",  # numpy arrays, written in C loops
        "/_mem/shapely?mb=4000",  # GEOS geometries (buffers)
        "/_mem/huge",  # one allocation the kernel refuses: numpy's MemoryError out of C
        "/_mem/bad_alloc",  # GEOS' std::bad_alloc, as shapely reports it
    ],
)
def test_a_failed_or_excessive_c_allocation_is_a_503_and_the_worker_lives_on(server, path):
    url = server["url"]
    before = _worker(url)
    resp = requests.get(url + path, timeout=60)
    _assert_503(resp, "SIGHTLINE_WORKER_MAX_MB")  # the ceiling's message, not the watchdog's
    after = _worker(url)
    assert after["pid"] == before["pid"]  # the same worker answers
    # Its memory given back: within RETAIN_FRACTION of the ceiling of where it started.
    assert after["rss_mb"] < before["rss_mb"] + RETAIN_FRACTION * MAX_MB, (before, after)
    cover = requests.post(url + "/v1/cover", json=COVER, timeout=30)
    assert cover.status_code == 200 and cover.json()["results"][0]["target"] == "goblin"


def test_within_the_ceiling_the_allocation_succeeds(server):
    resp = requests.get(server["url"] + "/_mem/numpy?mb=64", timeout=30)
    assert resp.status_code == 200 and resp.json() == {"held_mb": 64}


def test_a_slow_chunked_body_is_stopped_by_the_watchdog(server):
    with socket.create_connection(("127.0.0.1", server["port"]), timeout=30) as s:
        s.sendall(
            b"POST /v1/cover HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Type: application/json\r\n\r\n1\r\n{\r\n"
        )
        start = time.monotonic()
        s.settimeout(REQUEST_TIMEOUT + 10)
        chunks = []
        try:
            while chunk := s.recv(65536):  # the client sends nothing more
                chunks.append(chunk)
        except (ConnectionResetError, TimeoutError):
            pass
        took = time.monotonic() - start
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503"), head
    assert json.loads(body)["code"] == 503
    assert took > REQUEST_TIMEOUT - 0.5  # the watchdog's 503 (above), not gunicorn's kill
    assert requests.post(server["url"] + "/v1/cover", json=COVER, timeout=30).status_code == 200


def test_no_worker_was_killed_or_replaced(server):
    err = server["err"].read_text(encoding="utf-8")
    assert err.count("Booting worker") == 1, err
    assert "SIGSEGV" not in err and "WORKER TIMEOUT" not in err, err
