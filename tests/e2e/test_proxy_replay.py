"""The real nginx with ``deploy/nginx.conf`` in front of two replicas that misbehave on purpose.

The replicas are small socket servers of this test (``Replica``), so each can be told to do
what a gunicorn worker does when a request kills it (read the request, then close the
connection without an answer), to be slow past the proxy's read timeout, to answer the
service's own JSON 503, or to answer 200; each counts the requests it was sent. What is
checked (docs/operations.md, "Several machines"):

- a request whose replica died once it was sent is never sent to the other replica (the
  proxy's ``proxy_next_upstream`` has no ``non_idempotent``), and the client gets a JSON
  502 with ``Retry-After`` at once;
- a replica that refuses the connection (the request never sent) is skipped: the other
  answers;
- a replica's own JSON 503 passes through unchanged and is not retried;
- what nginx answers itself (502, 504, 413) is JSON of the service's error shape
  (``shared/DESIGN.md`` "Errors"), never nginx's HTML page.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from pathlib import Path

import pytest
import requests

from bench import servers

pytestmark = pytest.mark.e2e

COVER = {"ruleset": "dnd5e", "scene_id": "sample", "attacker": "archer", "targets": ["goblin"]}
SERVICE_503 = {"code": 503, "status": "Service Unavailable", "message": "watchdog", "errors": {}}


class Replica(socketserver.ThreadingTCPServer):
    """A stand-in replica on 127.0.0.1: ``mode`` says what it does with each request.

    ``"die"``: reads the request, closes the connection (a worker killed by it);
    ``"slow"``: reads it, waits ``delay`` seconds, closes; ``"503"``: the service's JSON 503;
    ``"ok"``: a JSON 200. ``seen`` counts the requests read.
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, mode: str, delay: float = 0.0) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode, self.delay, self.seen = mode, delay, 0
        self._lock = threading.Lock()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server_address[1]}"

    def count(self) -> None:
        with self._lock:
            self.seen += 1

    def close(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        server: Replica = self.server  # type: ignore[assignment]
        sock: socket.socket = self.request
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                return
            body += chunk
        if head.startswith(b"GET /healthz"):  # the fixture's readiness probe: not counted
            self._answer(sock, 200, {"status": "ok"})
            return
        server.count()
        if server.mode == "die":
            return  # connection closed, no answer
        if server.mode == "slow":
            time.sleep(server.delay)
            return
        if server.mode == "503":
            self._answer(sock, 503, SERVICE_503, "Retry-After: 7\r\n")
            return
        self._answer(sock, 200, {"results": []})

    @staticmethod
    def _answer(sock: socket.socket, code: int, payload: dict, extra: str = "") -> None:
        body = json.dumps(payload).encode()
        head = (
            f"HTTP/1.1 {code} X\r\nContent-Type: application/json\r\n{extra}"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode()
        sock.sendall(head + body)


def _closed_port() -> str:
    return f"127.0.0.1:{servers.free_port()}"  # nothing listens there: connection refused


@pytest.fixture
def proxy(tmp_path: Path):
    """``start(upstreams, read_timeout=None)``: nginx with the project's config over them."""
    if servers.NGINX is None:
        pytest.skip("nginx not installed (apt-get install -y nginx): proxy test skipped")
    started: list[servers.Nginx] = []

    def start(upstreams: list[str], read_timeout: int | None = None) -> servers.Nginx:
        nginx = servers.Nginx(upstreams, tmp_path)
        if read_timeout is not None:  # the same config with a shorter read timeout
            text = nginx.conf.read_text()
            assert "proxy_read_timeout 35s;" in text
            nginx.conf.write_text(
                text.replace("proxy_read_timeout 35s;", f"proxy_read_timeout {read_timeout}s;")
            )
        nginx.start()
        started.append(nginx)
        return nginx

    yield start
    for nginx in started:
        nginx.stop()


@pytest.fixture
def replicas():
    made: list[Replica] = []

    def make(mode: str, delay: float = 0.0) -> Replica:
        made.append(Replica(mode, delay))
        return made[-1]

    yield make
    for replica in made:
        replica.close()


def _is_error_json(resp: requests.Response, code: int) -> dict:
    assert resp.status_code == code, resp.text[:300]
    assert resp.headers["Content-Type"].startswith("application/json"), resp.headers
    payload = resp.json()  # never nginx's HTML page
    assert payload["code"] == code and payload["message"] and payload["errors"] == {}
    return payload


def test_a_request_that_kills_its_worker_is_not_replayed(proxy, replicas):
    a, b = replicas("die"), replicas("die")
    nginx = proxy([a.address, b.address])
    for k in range(4):
        resp = requests.post(nginx.url + "/v1/cover", json=COVER, timeout=20)
        payload = _is_error_json(resp, 502)
        assert "not sent again" in payload["message"]
        assert resp.headers["Retry-After"] == "5"
        assert a.seen + b.seen == k + 1, (a.seen, b.seen)  # sent once, to one replica


def test_a_refused_connection_is_tried_on_the_other_replica(proxy, replicas):
    ok = replicas("ok")
    nginx = proxy([_closed_port(), ok.address])
    for _ in range(4):
        resp = requests.post(nginx.url + "/v1/cover", json=COVER, timeout=20)
        assert resp.status_code == 200 and resp.json() == {"results": []}
    assert ok.seen == 4


def test_every_replica_down_answers_json_502(proxy):
    nginx = proxy([_closed_port(), _closed_port()])
    _is_error_json(requests.post(nginx.url + "/v1/cover", json=COVER, timeout=20), 502)
    _is_error_json(requests.get(nginx.url + "/healthz", timeout=20), 502)


def test_the_replicas_own_503_passes_through_and_is_not_retried(proxy, replicas):
    a, b = replicas("503"), replicas("503")
    nginx = proxy([a.address, b.address])
    resp = requests.post(nginx.url + "/v1/cover", json=COVER, timeout=20)
    assert resp.status_code == 503 and resp.json() == SERVICE_503
    assert resp.headers["Retry-After"] == "7"  # the replica's, not the proxy's page
    assert a.seen + b.seen == 1


def test_a_replica_past_the_read_timeout_answers_json_504_once(proxy, replicas):
    a, b = replicas("slow", delay=4), replicas("slow", delay=4)
    nginx = proxy([a.address, b.address], read_timeout=1)
    resp = requests.post(nginx.url + "/v1/cover", json=COVER, timeout=20)
    _is_error_json(resp, 504)  # the count below: one replica asked, no replay
    assert resp.headers["Retry-After"] == "5"
    assert a.seen + b.seen == 1


def test_a_body_over_the_proxy_limit_answers_json_413(proxy, replicas):
    ok = replicas("ok")
    nginx = proxy([ok.address])
    big = b"[" + b"0," * (5 * 2**20) + b"0]"  # just over 10 MiB
    resp = requests.post(
        nginx.url + "/v1/scenes",
        data=big,
        headers={"Content-Type": "application/json"},
        timeout=20,
    )
    _is_error_json(resp, 413)
    assert ok.seen == 0
