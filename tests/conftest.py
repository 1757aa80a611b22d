"""Shared fixtures: where ../shared lives, and a skip when it is absent."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SIGHTLINE_SHARED", ROOT.parent / "shared"))
REAL = SHARED / "scenes" / "real"

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def real_file(*parts: str) -> Path:
    """Path of a real export under ../shared/scenes/real; skip the test when it is absent."""
    path = REAL.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"../shared is not beside this checkout ({path} missing): real-export tests skipped"
        )
    return path


def load_real(*parts: str) -> dict:
    """Parsed JSON of a real export (skips when ../shared is absent)."""
    with real_file(*parts).open(encoding="utf-8") as fh:
        return json.load(fh)


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.exists():
        pytest.skip("../shared is not beside this checkout: shared-data tests skipped")
    return SHARED


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    """A real redis-server on a free port for one test module (skips when it is not installed)."""
    from tests.redis_server import redis_server_in

    server = redis_server_in(tmp_path_factory.mktemp("redis"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_db(redis_server):
    """``redis_server``, running and emptied for this test."""
    if redis_server.proc is None:
        redis_server.start()
    client = redis_server.client()
    client.flushall()
    client.close()
    return redis_server
