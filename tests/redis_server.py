"""A real ``redis-server`` for the tests (Debian package ``redis-server``; ``.ci/run`` installs it).

``bench.servers.RedisServer`` on 127.0.0.1, a free port, a temporary directory, no persistence
(``--save ''``): a restart comes back empty, as a Redis that lost its data. Here it skips,
saying why, when ``redis-server`` cannot be found.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import servers
from bench.servers import free_port

__all__ = ["MISSING", "free_port", "redis_server_in"]

MISSING = (
    "redis-server not found (PATH, /usr/sbin, /usr/bin): tests of the shared scene store "
    "skipped; install it with `apt-get install -y redis-server` (.ci/run does)"
)


def redis_server_in(directory: Path) -> servers.RedisServer:
    """A started ``RedisServer`` in ``directory``; skips the test when it is not installed."""
    if servers.REDIS_SERVER is None:
        pytest.skip(MISSING)
    server = servers.RedisServer(directory)
    server.start()
    return server
