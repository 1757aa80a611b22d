"""The Python client's transport retries, against fake servers on 127.0.0.1.

Every endpoint is a pure function of its request, so the client retries a connection that
fails or drops before an answer, and 502/503/504 answers, with backoff (urllib3 ``Retry``);
it does not retry other errors, nor a read timeout. Connection errors are described from
the exception types, never from urllib3's repr strings.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from service.client import SightlineClient, SightlineError

OK_BODY = json.dumps({"status": "ok", "version": "fake"}).encode()


def _answer(status: str, body: bytes, ctype: str = "application/json") -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


def _read_request(conn: socket.socket) -> bytes:
    """The whole request (head and Content-Length body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


@contextmanager
def fake_server(plan: list[Callable[[socket.socket], None]]) -> Iterator[tuple[str, list]]:
    """A server whose n-th connection is handled by ``plan[n]``; yields (url, requests seen)."""
    seen: list[bytes] = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(10)

    def serve() -> None:
        for handle in plan:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                handle(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", seen
    finally:
        listener.close()
        thread.join(5)


def drop(conn: socket.socket) -> None:
    """Accept and close at once: the client sees the connection dropped, no answer."""


def answer(status: str, body: bytes, seen: list[bytes]) -> Callable[[socket.socket], None]:
    def handle(conn: socket.socket) -> None:
        seen.append(_read_request(conn))
        conn.sendall(_answer(status, body))

    return handle


def test_two_dropped_connections_then_an_answer_succeeds():
    # a fake server that drops the first two connections
    seen: list[bytes] = []
    plan = [drop, drop, answer("200 OK", OK_BODY, seen)]
    with fake_server(plan) as (url, _):
        with SightlineClient(url, timeout=5, backoff=0.01) as client:
            assert client.health() == {"status": "ok", "version": "fake"}
    assert len(seen) == 1 and seen[0].startswith(b"GET /healthz ")


def test_a_post_is_retried_with_its_body():
    seen: list[bytes] = []
    cover = json.dumps({"ruleset": "dnd5e", "attacker": "archer", "results": []}).encode()
    plan = [drop, drop, answer("200 OK", cover, seen)]
    with fake_server(plan) as (url, _):
        with SightlineClient(url, timeout=5, backoff=0.01) as client:
            got = client.cover("dnd5e", "sample", "archer", ["goblin"])
    assert got["attacker"] == "archer"
    assert seen[0].startswith(b"POST /v1/cover ")
    assert json.loads(seen[0].partition(b"\r\n\r\n")[2])["targets"] == ["goblin"]


@pytest.mark.parametrize(
    "status", ["502 Bad Gateway", "503 Service Unavailable", "504 Gateway Timeout"]
)
def test_gateway_errors_are_retried(status):
    seen: list[bytes] = []
    plan = [answer(status, b"<h1>busy</h1>", seen), answer("200 OK", OK_BODY, seen)]
    with fake_server(plan) as (url, _):
        with SightlineClient(url, timeout=5, backoff=0.01) as client:
            assert client.health()["status"] == "ok"
    assert len(seen) == 2


def test_other_errors_are_not_retried():
    seen: list[bytes] = []
    error = json.dumps({"code": 500, "status": "Internal Server Error", "message": "bug"})
    plan = [answer("500 Internal Server Error", error.encode(), seen)]
    with fake_server(plan) as (url, _):
        with SightlineClient(url, timeout=5, backoff=0.01) as client:
            with pytest.raises(SightlineError) as info:
                client.health()
    assert (info.value.code, info.value.message) == (500, "bug")
    assert len(seen) == 1


def test_retries_run_out_with_the_last_answer():
    seen: list[bytes] = []
    plan = [answer("503 Service Unavailable", b"busy", seen) for _ in range(3)]
    with fake_server(plan) as (url, _):
        with SightlineClient(url, timeout=5, retries=2, backoff=0.01) as client:
            with pytest.raises(SightlineError) as info:
                client.health()
    assert (info.value.code, info.value.status) == (503, "Service Unavailable")
    assert len(seen) == 3  # the first try and two retries


def test_dropped_every_time_says_so_from_the_exception_types():
    with fake_server([drop] * 4) as (url, _):
        with SightlineClient(url, timeout=5, backoff=0.01) as client:
            with pytest.raises(SightlineError) as info:
                client.health()
    assert (info.value.code, info.value.status) == (0, "Connection error")
    # A dropped connection reads as closed, or as reset when the close races the request
    # (a loaded machine); either way the cause, not urllib3's repr.
    message = info.value.message
    assert (
        "Remote end closed connection without response" in message
        or "Connection reset by peer" in message
    ), message
    assert "object at 0x" not in message


def test_retries_0_gives_up_at_once():
    with fake_server([drop]) as (url, _):
        with SightlineClient(url, timeout=5, retries=0) as client:
            with pytest.raises(SightlineError) as info:
                client.health()
    assert info.value.code == 0


def test_refused_names_the_cause():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with SightlineClient(f"http://127.0.0.1:{port}", retries=1, backoff=0.01) as client:
        with pytest.raises(SightlineError) as info:
            client.health()
    assert info.value.message.endswith("cannot connect (Connection refused).")


def test_import_export_sends_file_text_as_it_is():
    # a NeDB file's text goes to the server untouched (the server sniffs it)
    seen: list[bytes] = []
    text = '{"_id": "a", "name": "A"}\n{"_id": "b", "name": "B"}\n'
    reply = json.dumps({"scene": {}, "stats": {}, "warnings": []}).encode()
    with fake_server([answer("200 OK", reply, seen)]) as (url, _):
        with SightlineClient(url, timeout=5) as client:
            client.import_export("auto", text, scene="A")
    head, _, body = seen[0].partition(b"\r\n\r\n")
    assert head.startswith(b"POST /v1/import/auto?scene=A ")
    assert body == text.encode()
