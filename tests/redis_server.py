"""A real ``redis-server`` for the tests (Debian package ``redis-server``; ``.ci/run`` installs it).

``RedisServer`` runs one on 127.0.0.1, a free port, in a temporary directory, without
persistence (``--save ''``, no append-only file), so a restart comes back empty, as a Redis
that lost its data would. ``stop``/``start`` keep the port, for the tests that take Redis
away mid-run and bring it back.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis

REDIS_SERVER = shutil.which("redis-server") or next(
    (p for p in ("/usr/bin/redis-server", "/usr/sbin/redis-server") if Path(p).exists()), None
)
MISSING = (
    "redis-server not found (PATH, /usr/bin, /usr/sbin): tests of the shared scene store skipped; "
    "install it with `apt-get install -y redis-server` (.ci/run does)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """One ``redis-server`` process on ``127.0.0.1:port``, data in ``directory``."""

    def __init__(self, directory: Path) -> None:
        if REDIS_SERVER is None:
            pytest.skip(MISSING)
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        assert REDIS_SERVER is not None
        self.proc = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--logfile",
                str(self.directory / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_timeout=1, socket_connect_timeout=1)
        deadline = time.monotonic() + 15
        while True:
            try:
                if client.ping():
                    break
            except redis.ConnectionError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = (self.directory / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"redis-server did not start on port {self.port}:\n{log}")
            time.sleep(0.05)
        client.close()

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def client(self) -> redis.Redis:
        """A plain redis-py client to look at what the service stored."""
        return redis.Redis(port=self.port, socket_timeout=2, socket_connect_timeout=2)
