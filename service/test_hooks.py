"""Test-only endpoints, registered only with ``SIGHTLINE_TEST_HOOKS=1`` (never in production).

They make a request slow or big on purpose, so that the end-to-end tests of the watchdog
and the memory ceiling (``tests/e2e/test_limits.py``) need no slow geometry:

- ``GET /v1/_test/sleep?ms=N``: sleeps N ms (at most 600,000), then answers
  ``{"slept_ms": N}``;
- ``GET /v1/_test/alloc?mb=N``: holds N MiB (at most 65,536) of touched memory during the
  request, then answers ``{"allocated_mb": N}``.

They are plain Flask routes, absent from ``/openapi.json``.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, request
from flask_smorest import abort

blp = Blueprint("test_hooks", __name__)


def _int_arg(name: str, high: int) -> int:
    text = request.args.get(name, "")
    if not text.isdigit() or int(text) > high:
        abort(400, message=f"Query parameter {name} must be a whole number from 0 to {high}.")
    return int(text)


@blp.get("/sleep")
def sleep() -> Any:
    """Sleep ``ms`` milliseconds (the watchdog's test)."""
    ms = _int_arg("ms", 600_000)
    time.sleep(ms / 1000)
    return {"slept_ms": ms}


@blp.get("/alloc")
def alloc() -> Any:
    """Hold ``mb`` MiB of written memory, 1 MiB at a time (the memory ceiling's test)."""
    mb = _int_arg("mb", 65_536)
    held = [b"\x01" * 2**20 for _ in range(mb)]
    return {"allocated_mb": len(held)}
