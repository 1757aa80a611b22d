"""The Sightline app with routes that allocate in C on purpose (tests/e2e/test_memory_ceiling.py).

``gunicorn -c gunicorn.conf.py 'tests.e2e.memory_app:create_app()'`` serves the real app and,
under ``/_mem``, routes that make numpy and shapely allocate until told to stop, so the memory
ceiling (``service.guard``) is shown on C allocations without hunting a slow geometry case:

- ``GET /_mem/numpy?mb=N``: numpy arrays of 32 MiB, written, until N MiB are held;
- ``GET /_mem/shapely?mb=N``: shapely buffers of many points (GEOS allocations), until the
  process holds N MiB more than when it started the request;
- ``GET /_mem/huge``: one numpy array of 2**44 bytes, which the kernel refuses: numpy's own
  ``MemoryError`` out of C;
- ``GET /_mem/bad_alloc``: what shapely raises when GEOS throws ``std::bad_alloc``;
- ``GET /_mem/pid``: this worker's pid and RSS in MB.

Never part of the product (tests only).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import shapely
from flask import Flask, request

from service import app as sightline
from service.guard import memory_mb

CHUNK_MB = 32


def create_app() -> Flask:
    """``service.app.create_app()`` with the ``/_mem`` routes."""
    app = sightline.create_app()

    @app.get("/_mem/numpy")
    def numpy_alloc() -> Any:
        mb = int(request.args.get("mb", "0"))
        held = [np.ones(CHUNK_MB * 2**20 // 8) for _ in range(mb // CHUNK_MB)]
        return {"held_mb": len(held) * CHUNK_MB}

    @app.get("/_mem/shapely")
    def shapely_alloc() -> Any:
        mb = int(request.args.get("mb", "0"))
        start = memory_mb()[0]
        points = shapely.points(np.random.default_rng(1).random((20_000, 2)) * 1000)
        held = []
        while memory_mb()[0] - start < mb:
            held.append(shapely.buffer(points, 10, quad_segs=16))
        return {"buffers": len(held)}

    @app.get("/_mem/huge")
    def huge() -> Any:
        array = np.empty(2**44, dtype=np.uint8)
        return {"bytes": int(array.nbytes)}

    @app.get("/_mem/bad_alloc")
    def bad_alloc() -> Any:
        raise shapely.errors.GEOSException("std::bad_alloc")

    @app.get("/_mem/pid")
    def pid() -> Any:
        return {"pid": os.getpid(), "rss_mb": memory_mb()[0]}

    return app
