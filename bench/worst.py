"""Worst-case bodies of issue 16, regenerated from a seed: ``python -m bench.worst``.

Each kind is a request body that once cost minutes or gigabytes while inside every limit:

- ``scatter``: N short walls scattered at random between two tokens 2,000 px apart;
- ``copies``: N copies of one wall across the line between two tokens;
- ``fog``: R heavy-fog regions of 10,000 points each on the line between two tokens;
- ``uploads``: 30 scenes of heavy fog at the region-point limit (4 polygons of 10,000 points,
  about 0.7 MB each: the issue's 1.5 MB of regions is now over the limit), uploaded to one
  worker; the row adds what the scene cache counts and how much the process grew;
- ``lights``: N lights and 2,000 long random walls, lighting asked at 1,000 points and over
  100 tokens;
- ``crossing``: N long random walls crossing one another all over a 20,000-px map (about
  N^2 / 10 crossings: the rooms step), cover and line of effect between two far tokens;
- ``hexhuge``: a creature N by N squares on a hex grid (over ``SIGHTLINE_MAX_HEX_FOOTPRINT``
  hexes from 74), vision and Starfinder flanking;
- ``flank``: Starfinder flanking between three creatures N by N squares on a square grid
  (N^4 lines between two of them, over ``SIGHTLINE_MAX_FLANK_PAIRS`` from 18);
- ``matrix``: a dnd5e cover matrix of N tokens on a 269-wall dungeon (``bench.dungeon``);
- ``stack``: N tokens stacked on one square of a 2,000-wall dungeon, the cover matrix of each
  ruleset (every pair's lines cross the stack; 5E-COV-7 leaves it out of each pair's
  obstacles);
- ``hexcrowd``: N tokens 70 by 70 on a hex grid (3,675 hexes each), the dnd5e vision matrix
  (each pair's distance compares two footprints).

Issue 32's kinds:

- ``foundry``, ``roll20``, ``uvtt`` (imports translate everything before any limit): an
  export of N walls (Foundry walls, one Roll20 path of N ``L`` commands, UVTT
  ``line_of_sight`` segments) through ``POST /v1/import/<format>``: 200 up to
  ``SIGHTLINE_MAX_WALLS`` (50,000), 422 past it, counted before translating
  (``adapters.limits``); the row adds the ms spent in the adapter;
- ``ceiling`` (the memory ceiling crashed C code): a request holding N MB of GEOS geometries
  (shapely buffers) against the default ceiling (768 MB), then a cover question; the row adds
  the RSS after the 503 (``service.guard.MemoryWatch``);
- ``lattice`` (the cache bound missed the rooms): N distinct lattice scenes (150 by 150
  crossing walls, 15 kB, 22,201 closed rooms each) uploaded and asked a cover matrix and a
  vision question; the row adds what the cache counts and how much the process grew.

``python -m bench.worst`` measures each kind at each size in a fresh child process (seconds,
peak RSS, status) through the real app (Flask test client), and prints the table with the
fitted exponent in walls. Each request's milliseconds in the app are split: all, and the part
spent reading the body (JSON parse, scene decode, the count limits read from the bytes).
``python -m bench.worst --http`` runs issue 32's kinds through gunicorn (``run_http``): a
one-worker server of the service for the geometry, cache and import kinds, then nginx over
two one-worker servers of ``http_app`` (the service with the test routes of
``tests/e2e/memory_app`` and one that kills its worker) for the memory ceiling (kind 2) and
the proxy (kind 7): ``run_http_servers``.
Nothing is asserted here; the tests use small sizes of the same kinds
(``tests/engine/test_work_budget.py``, ``tests/service/test_early_refusals.py``).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import random
import resource
import subprocess
import sys
import time
from typing import Any

GRID = {"size": 100, "distance": 5, "units": "ft"}
A = {"id": "A", "name": "A", "x": 0, "y": 0, "width": 1, "height": 1}
T = {"id": "T", "name": "T", "x": 2000, "y": 0, "width": 1, "height": 1}


def scatter(n: int, seed: int = 1) -> dict[str, Any]:
    """``n`` short walls (10-60 px) at random in the box between A and T."""
    rng = random.Random(seed)
    walls = []
    for k in range(n):
        x, y = rng.uniform(150, 1950), rng.uniform(-300, 400)
        a = rng.uniform(0, math.pi)
        r = rng.uniform(10, 60)
        c = [round(x, 1), round(y, 1), round(x + r * math.cos(a), 1), round(y + r * math.sin(a), 1)]
        walls.append({"id": f"w{k}", "c": c})
    return {"grid": GRID, "walls": walls, "tokens": [A, T]}


def copies(n: int) -> dict[str, Any]:
    """``n`` copies of one wall across the line between A and T."""
    walls = [{"id": f"w{k}", "c": [1000, -200, 1000, 300]} for k in range(n)]
    return {"grid": GRID, "walls": walls, "tokens": [A, T]}


def fog(r: int, points: int = 10_000, seed: int = 1) -> dict[str, Any]:
    """``r`` heavy-fog polygons of ``points`` vertices each, on the line between A and T."""
    rng = random.Random(seed)
    regions = []
    for k in range(r):
        cx, cy = 200 + 1600 * (k + 0.5) / r, 50
        pts = []
        for i in range(points):
            a = 2 * math.pi * i / points
            rad = rng.uniform(20, 60)
            pts.append([round(cx + rad * math.cos(a), 2), round(cy + rad * math.sin(a), 2)])
        regions.append(
            {"id": f"fog{k}", "shape": {"type": "polygon", "points": pts}, "obscurement": "heavy"}
        )
    return {"grid": GRID, "walls": [], "tokens": [A, T], "regions": regions}


def lights(n: int, seed: int = 1) -> dict[str, Any]:
    """``n`` lights over 2,000 long random walls and 100 tokens on a 4,000-px square map."""
    rng = random.Random(seed)
    span = 4000

    def xy() -> list[float]:
        return [round(rng.uniform(0, span), 1), round(rng.uniform(0, span), 1)]

    walls = [{"id": f"w{k}", "c": xy() + xy()} for k in range(2000)]
    sources = [
        {"id": f"l{k}", "x": xy()[0], "y": xy()[1], "bright": 20, "dim": 40} for k in range(n)
    ]
    tokens = [
        {"id": f"t{k}", "x": rng.uniform(0, span - 100), "y": rng.uniform(0, span - 100)}
        for k in range(100)
    ]
    return {
        "grid": GRID,
        "walls": walls,
        "lights": sources,
        "tokens": tokens,
        "environment": {"light": "dark"},
    }


def crossing(n: int, seed: int = 1, span: float = 20_000.0) -> dict[str, Any]:
    """``n`` long walls, both ends uniform over the map, and two tokens far apart."""
    rng = random.Random(seed)
    walls = [{"id": f"w{k}", "c": [round(rng.uniform(0, span), 1) for _ in range(4)]}
             for k in range(n)]  # fmt: skip
    tokens = [{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 10_000, "y": 10_000}]
    return {"grid": GRID, "walls": walls, "tokens": tokens}


def huge_creatures(size: float, grid_type: str = "hex-row") -> dict[str, Any]:
    """Three creatures ``size`` by ``size`` squares in a column, touching (A, T, B)."""
    step = size * (87 if grid_type.startswith("hex") else 100)
    tokens = [
        {"id": tid, "x": 0, "y": k * step, "width": size, "height": size}
        for k, tid in enumerate(["A", "T", "B"])
    ]
    return {"grid": {**GRID, "type": grid_type}, "walls": [], "tokens": tokens}


#: Milliseconds spent reading request bodies (``JSONBodyParser._raw_load_json``: the JSON
#: parse, the scene's decode and the count limits read from the bytes), per request.
_PARSE_MS: list[float] = []


def stacked(n: int) -> dict[str, Any]:
    """``n`` tokens on one square of ``bench.dungeon``'s 2,000-wall dungeon."""
    from bench.dungeon import dungeon

    scene = dungeon(2000, n, seed=1)
    for token in scene["tokens"]:
        token["x"], token["y"] = 1000.0, 1000.0
    return scene


def hex_crowd(n: int, seed: int = 1) -> dict[str, Any]:
    """``n`` tokens 70 by 70 at random on a 20,000-px hex map, no walls."""
    rng = random.Random(seed)
    tokens = [
        {
            "id": f"t{k}",
            "x": rng.uniform(0, 20_000),
            "y": rng.uniform(0, 20_000),
            "width": 70,
            "height": 70,
        }  # fmt: skip
        for k in range(n)
    ]
    return {"grid": {"type": "hex-row", "size": 100, "distance": 5}, "walls": [], "tokens": tokens}


def foundry_export(n: int) -> dict[str, Any]:
    """A Foundry scene document of ``n`` short walls in rows, two tokens."""
    walls = [{"_id": f"w{k}", "c": [10 * (k % 1000), 10 * (k // 1000), 10 * (k % 1000) + 5,
                                     10 * (k // 1000)]} for k in range(n)]  # fmt: skip
    tokens = [{"_id": f"t{k}", "name": f"T{k}", "actorId": f"a{k}", "x": 100 * k, "y": 0,
               "width": 1, "height": 1} for k in range(2)]  # fmt: skip
    return {
        "_id": "s",
        "name": "Bench",
        "width": 12000,
        "height": 12000,
        "padding": 0,
        "grid": {"size": 100, "distance": 5, "type": 1},
        "walls": walls,
        "tokens": tokens,
    }


def roll20_export(n: int) -> dict[str, Any]:
    """A betteR20 page with one walls-layer path of ``n`` ``L`` commands (a zigzag)."""
    cmds = [["M", 0, 0]] + [["L", 10 * (k + 1), 10 * (k % 2)] for k in range(n)]
    path = {"id": "p", "layer": "walls", "left": 5 * n, "top": 5, "width": 10 * n, "height": 10,
            "path": json.dumps(cmds)}  # fmt: skip
    attributes = {"name": "Bench", "width": 200, "height": 200, "snapping_increment": 1,
                  "scale_number": 5, "scale_units": "ft", "grid_type": "square"}  # fmt: skip
    return {"schema_version": 1, "maps": [{"attributes": attributes, "paths": [path]}]}


def uvtt_export(n: int) -> dict[str, Any]:
    """A Universal VTT file whose ``line_of_sight`` holds ``n`` segments (polylines of 100)."""
    lines = [[{"x": (k % 100) * 0.1, "y": j * 0.1} for k in range(min(101, n - j * 100 + 1))]
             for j in range(math.ceil(n / 100))]  # fmt: skip
    return {"format": 0.3, "line_of_sight": lines, "portals": [], "lights": [],
            "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 100, "y": 100},
                           "pixels_per_grid": 100}}  # fmt: skip


def lattice(n: int = 300, seed: int = 0, span: float = 16_000.0) -> dict[str, Any]:
    """``n / 2`` horizontal and ``n / 2`` vertical walls across the map: ``(n / 2)^2`` rooms.

    ``seed`` shifts the lattice by 0.37 px a step: distinct scenes of the same lattice.
    """
    half = n // 2
    step = span / half
    off = 0.37 * seed
    at = [round(i * step + step / 2 + off, 2) for i in range(half)]
    walls = [{"id": f"h{i}", "c": [0, y, span, y]} for i, y in enumerate(at)]
    walls += [{"id": f"v{i}", "c": [x, 0, x, span]} for i, x in enumerate(at)]
    tokens = [{"id": "a", "x": 10, "y": 10}, {"id": "b", "x": 10 + 3 * step, "y": 10 + 3 * step}]
    return {"grid": {"size": 100, "distance": 5, "units": "ft"}, "walls": walls, "tokens": tokens}


#: Milliseconds spent in the adapters (``adapters.detect.to_scene``), per import.
_ADAPTER_MS: list[float] = []


def _time_adapters() -> None:
    """Time the adapters' translation, counting included (called once in the child)."""
    from adapters import detect

    inner = detect.to_scene

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            _ADAPTER_MS.append((time.perf_counter() - start) * 1000)

    detect.to_scene = timed  # type: ignore[assignment]


def _issue32(kind: str, size: int, app: Any, client: Any, row: dict[str, Any]) -> Any:
    """Run one of issue 32's kinds; its status (or statuses), extra columns in ``row``."""
    ms: list[float] = row["ms"]
    if kind in ("foundry", "roll20", "uvtt"):
        export = {"foundry": foundry_export, "roll20": roll20_export, "uvtt": uvtt_export}[kind]
        code, took = _post_timed(client, f"/v1/import/{kind}", export(size))
        ms.append(round(took, 1))
        row["adapter_ms"] = round(_ADAPTER_MS[-1], 1) if _ADAPTER_MS else None
        return code
    if kind == "ceiling":
        import numpy as np
        import shapely

        from service.guard import memory_mb

        @app.get("/_bench/geos")
        def geos() -> Any:
            start = memory_mb()[0]
            points = shapely.points(np.random.default_rng(1).random((20_000, 2)) * 1000)
            held = []
            while memory_mb()[0] - start < size:
                held.append(shapely.buffer(points, 10, quad_segs=16))
            return {"buffers": len(held)}

        start = time.perf_counter()
        resp = client.get("/_bench/geos")
        code = resp.status_code
        ms.append(round((time.perf_counter() - start) * 1000, 1))
        resp.close()  # the answer sent: the worker frees memory now (service.guard)
        row["rss_after_mb"] = round(_rss_mb(), 1)
        cover = {"ruleset": "dnd5e", "scene_id": "sample", "attacker": "archer",
                 "targets": ["goblin"]}  # fmt: skip
        return [code, _post_timed(client, "/v1/cover", cover)[0]]
    statuses = set()
    cache = app.extensions["sightline_cache"]
    for k in range(size):
        data = json.dumps({"scene": lattice(seed=k)})
        begin = time.perf_counter()
        resp = client.post("/v1/scenes", data=data, content_type="application/json")
        took = (time.perf_counter() - begin) * 1000
        code, sid = resp.status_code, (resp.get_json() or {}).get("scene_id", "")
        statuses.add(code)
        ms.append(round(took, 1))
        for path, body in (
            ("/v1/matrix", {"ruleset": "dnd5e", "scene_id": sid, "kind": "cover"}),
            ("/v1/vision", {"ruleset": "dnd5e", "scene_id": sid, "observer": "a",
                            "targets": ["b"]}),
        ):  # fmt: skip
            statuses.add(_post_timed(client, path, body)[0])
    cache.get("sample")  # an access: the last scene's rooms counted
    row["cached"] = len(cache)
    row["counted_mb"] = round(cache.counted_bytes() / 2**20, 1)
    return sorted(statuses)


#: Issue 32's kinds (``_issue32``), with the app's settings for them.
ISSUE_32 = {"foundry": {}, "roll20": {}, "uvtt": {}, "ceiling": {},
            "lattice": {}}  # fmt: skip


def _time_parsing() -> None:
    """Time the app's body reading (called once in the child, before any request)."""
    from service.http_errors import JSONBodyParser

    inner = JSONBodyParser._raw_load_json

    def timed(self: Any, req: Any) -> Any:
        start = time.perf_counter()
        try:
            return inner(self, req)
        finally:
            _PARSE_MS.append((time.perf_counter() - start) * 1000)

    JSONBodyParser._raw_load_json = timed  # type: ignore[method-assign]


def _post_timed(client: Any, path: str, body: dict[str, Any]) -> tuple[int, float]:
    """Status and the app's own milliseconds for one request (the view and its parsing)."""
    data = json.dumps(body)
    start = time.perf_counter()
    status = client.post(path, data=data, content_type="application/json").status_code
    return status, (time.perf_counter() - start) * 1000


def _one(kind: str, size: int) -> dict[str, Any]:
    """Run one measure in this process (called in a child).

    The compiled kernels are loaded first and the preloaded objects frozen out of the garbage
    collector, as ``gunicorn.conf.py`` does before forking, so the time is the requests'
    own. ``ms`` lists each request's time inside the app (body already encoded: what the
    access log's ``ms`` shows, less the network).
    """
    from service.app import create_app
    from service.geometry import exact, trace

    trace.warm_up()
    exact.warm_up()
    _time_parsing()
    _time_adapters()
    app = create_app({"TESTING": False, **ISSUE_32.get(kind, {})})
    client = app.test_client()
    gc.freeze()  # as gunicorn.conf.py's when_ready: full collections skip what is preloaded
    base_mb = _rss_mb()
    start = time.perf_counter()
    status: Any
    ms: list[float] = []
    extra: dict[str, Any] = {"ms": ms}
    if kind in ISSUE_32:
        status = _issue32(kind, size, app, client, extra)
    elif kind in ("crossing", "hexhuge", "flank", "matrix", "stack", "hexcrowd"):
        calls: list[tuple[str, dict[str, Any]]] = []
        if kind == "crossing":
            scene = crossing(size)
            calls.append(("/v1/cover", {"ruleset": "dnd5e", "scene": scene, "attacker": "A",
                                        "targets": ["T"]}))  # fmt: skip
            calls.append(("/v1/line-of-effect", {"scene": scene, "from": "A", "to": "T"}))
        elif kind in ("hexhuge", "flank"):
            scene = huge_creatures(size, "hex-row" if kind == "hexhuge" else "square")
            flank = {"ruleset": "starfinder", "attacker": "A", "ally": "B", "target": "T"}
            calls.append(("/v1/modifiers/flanking", {"scene": scene, **flank}))
            if kind == "hexhuge":
                calls.append(("/v1/vision", {"ruleset": "dnd5e", "scene": scene,
                                             "observer": "A", "targets": ["T"]}))  # fmt: skip
        elif kind == "stack":
            scene = stacked(size)
            for ruleset in ("dnd5e", "starfinder", "pf2e-variant"):
                calls.append(("/v1/matrix", {"ruleset": ruleset, "scene": scene, "kind": "cover"}))
        elif kind == "hexcrowd":
            calls.append(("/v1/matrix", {"ruleset": "dnd5e", "scene": hex_crowd(size),
                                         "kind": "vision"}))  # fmt: skip
        else:
            from bench.dungeon import dungeon

            calls.append(("/v1/matrix", {"ruleset": "dnd5e", "scene": dungeon(269, size),
                                         "kind": "cover"}))  # fmt: skip
        start = time.perf_counter()
        statuses = []
        for path, body in calls:
            code, took = _post_timed(client, path, body)
            statuses.append(code)
            ms.append(round(took, 1))
        status = statuses if len(statuses) > 1 else statuses[0]
    elif kind == "uploads":
        statuses = []
        for k in range(size):
            body = fog(4, points=10_000, seed=k)  # 40,000 points: the region-point limit
            code, took = _post_timed(client, "/v1/scenes", {"scene": body})
            statuses.append(code)
            ms.append(round(took, 1))
        status = sorted(set(statuses))
    elif kind == "lights":
        rng = random.Random(2)
        points = [[rng.uniform(0, 4000), rng.uniform(0, 4000)] for _ in range(1000)]
        body = {"scene": lights(size), "points": points, "tokens": [f"t{k}" for k in range(100)]}
        status, took = _post_timed(client, "/v1/lighting", body)
        ms.append(round(took, 1))
    else:
        scene = {"scatter": scatter, "copies": copies, "fog": fog}[kind](size)
        if kind == "fog":
            body = {"ruleset": "dnd5e", "scene": scene, "observer": "A", "targets": ["T"]}
            status, took = _post_timed(client, "/v1/vision", body)
            ms.append(round(took, 1))
        else:
            body = {"ruleset": "dnd5e", "scene": scene, "attacker": "A", "targets": ["T"]}
            line = {"scene": scene, "from": "A", "to": "T"}
            status = []
            for path, one in (("/v1/cover", body), ("/v1/line-of-effect", line)):
                code, took = _post_timed(client, path, one)
                status.append(code)
                ms.append(round(took, 1))
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row = {
        "kind": kind,
        "size": size,
        "seconds": seconds,
        "peak_mb": peak_mb,
        "status": status,
        "ms": ms,
        "parse_ms": [round(v, 1) for v in _PARSE_MS[-len(ms) :]] if ms else [],
    }
    if kind == "uploads":  # what the cache counts against what the process grew by
        cache = app.extensions["sightline_cache"]
        row["cached"] = len(cache)
        row["counted_mb"] = round(cache.counted_bytes() / 2**20, 1)
    row.update({k: v for k, v in extra.items() if k != "ms"})
    if "counted_mb" in row:
        row["grown_mb"] = round(_rss_mb() - base_mb, 1)
    return row


def _rss_mb() -> float:
    """The process's resident memory now, in MB (Linux ``/proc``; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return 0.0


SIZES = {
    "scatter": (1000, 2000, 4000),
    "copies": (3000, 5000, 10000),
    "fog": (5, 10, 20),
    "uploads": (30,),
    "lights": (250, 500, 1000),
    "crossing": (1000, 2000, 3000),
    "hexhuge": (64, 100, 1000),
    "flank": (10, 20, 100),
    "matrix": (100, 200),
    "stack": (100, 200),
    "hexcrowd": (20, 40, 200),
    "foundry": (5_000, 50_000, 50_001, 120_000),  # 120,000: 9.6 MB, under the body limit
    "roll20": (5_000, 50_000, 50_001, 300_000),
    "uvtt": (5_000, 50_000, 50_001, 300_000),
    "ceiling": (100, 2_000),
    "lattice": (10, 45, 100),
}


# ------------------------------------------------------------------ issue 32 through gunicorn


def hex_giants(n: int, seed: int = 1) -> dict[str, Any]:
    """``n`` tokens 64 by 64 squares at random on a hex-row map, no walls (about 68 B each)."""
    rng = random.Random(seed)
    span = 40 * 6400
    tokens = [{"id": f"t{k}", "x": rng.randrange(0, span, 100), "y": rng.randrange(0, span, 100),
               "width": 64, "height": 64} for k in range(n)]  # fmt: skip
    return {"grid": {"type": "hex-row", "size": 100, "distance": 5}, "walls": [], "tokens": tokens}


def many_regions(n: int, seed: int = 1) -> dict[str, Any]:
    """``n`` polygon regions of ``40,000 / n`` points (the point limit), light and fog.

    Over 200 of ``lights``' random walls and 100 tokens, with 20 lights (a light load
    inside the budget: what costs is the regions).
    """
    rng = random.Random(seed)
    scene = lights(20, seed)
    scene["walls"] = scene["walls"][:200]
    points = max(3, 40_000 // n)
    regions = []
    for k in range(n):
        cx, cy, r = rng.uniform(0, 4000), rng.uniform(0, 4000), rng.uniform(50, 400)
        angles = [2 * math.pi * i / points for i in range(points)]
        ring = [[round(cx + r * math.cos(a), 1), round(cy + r * math.sin(a), 1)] for a in angles]
        region: dict[str, Any] = {"id": f"r{k}", "shape": {"type": "polygon", "points": ring}}
        region |= {"light": "dim"} if k % 2 else {"obscurement": "light"}
        regions.append(region)
    return {**scene, "regions": regions}


def dungeon_with_heights(n_walls: int, n_tokens: int) -> dict[str, Any]:
    """``bench.dungeon`` with every third wall low (0-5 ft) and every fifth 0-15 ft high."""
    from bench.dungeon import dungeon

    scene = dungeon(n_walls, n_tokens, seed=1)
    for k, wall in enumerate(scene["walls"]):
        if k % 3 == 0:
            wall["height"] = {"bottom": 0, "top": 5}
        elif k % 5 == 0:
            wall["height"] = {"bottom": 0, "top": 15}
    return scene


def lancer_ship(n: int) -> dict[str, Any] | None:
    """The real Lancer crashed ship (hex, every wall with a height) with ``n`` tokens.

    Its own tokens, one of them 10 by 10, and 1-hex probes up to ``n``
    (``bench.calibrate.with_probes``); ``None`` without ``$SIGHTLINE_SHARED``.
    """
    from bench.calibrate import SHARED, with_probes

    path = SHARED / "scenes/real/foundry/foundry-v10-lancer-crashed-ship-hex-heights.json"
    if not path.exists():
        return None
    from adapters.detect import to_scene

    scene = with_probes(to_scene(json.loads(path.read_text()))["scene"], n)
    scene["tokens"][0] = {**scene["tokens"][0], "width": 10, "height": 10}
    return scene


def _shifted(n: int) -> dict[str, Any]:
    """``n`` walls 1,000 px long on one line, each 0.1 px on (issue 32 kind 4), two tokens."""
    walls = [{"id": f"s{k}", "c": [round(k * 0.1, 1), 500, round(k * 0.1 + 1000, 1), 500]}
             for k in range(n)]  # fmt: skip
    tokens = [{"id": "A", "x": 500, "y": 0}, {"id": "T", "x": 500, "y": 1000}]
    return {"grid": GRID, "walls": walls, "tokens": tokens}


def _matrix(scene: dict[str, Any] | None, ruleset: str, kind: str) -> list[tuple[str, Any]]:
    if scene is None:
        return []
    return [("/v1/matrix", {"ruleset": ruleset, "scene": scene, "kind": kind})]


def http_cases(tenth: bool) -> list[tuple[str, str, list[tuple[str, Any]]]]:
    """Issue 32's kinds at their documented limits (or a tenth): (kind, size, requests).

    Limits (``service.settings``): 200 matrix tokens, 1,000 targets, 50,000 walls, 1,000
    regions and 40,000 region points, 10 MB bodies; the cache bound over 100 scenes.
    """
    f = 10 if tenth else 1
    t, targets, walls = 200 // f, 1000 // f - 1, 50_000 // f
    rng = random.Random(4)
    points = [[rng.uniform(0, 4000), rng.uniform(0, 4000)] for _ in range(1000 // f)]
    lat = lattice(300)
    lat["tokens"] = [
        {"id": f"p{k}", "x": 150 * (k % 100) + 10, "y": 150 * (k // 100) + 10}
        for k in range(max(t, targets + 1))
    ]  # fmt: skip (apart, as tokens stand)
    mat = {**lat, "tokens": lat["tokens"][:t]}
    cover = {"ruleset": "dnd5e", "scene": lat, "attacker": "p0",
             "targets": [f"p{k}" for k in range(1, targets + 1)]}  # fmt: skip
    giants = hex_giants(targets + 1)
    regions = many_regions(1000 // f)
    ship = lancer_ship(t)
    out: list[tuple[str, str, list[tuple[str, Any]]]] = [
        ("1 search: vision matrix, lattice", f"{t} tokens", _matrix(mat, "dnd5e", "vision")),
        ("1 search: cover, lattice", f"{targets} targets", [("/v1/cover", cover)]),
        ("3 cache: lattice uploads", f"{100 // f} scenes",
         [("/v1/scenes", {"scene": lattice(seed=k)}) for k in range(100 // f)]),
        ("4 shifted collinear walls", f"{walls} walls",
         [("/v1/cover", {"ruleset": "dnd5e", "scene": _shifted(walls), "attacker": "A",
                         "targets": ["T"]}),
          ("/v1/line-of-effect", {"scene": _shifted(walls), "from": "A", "to": "T"})]),
        ("5 import foundry", f"{walls} walls", [("/v1/import/foundry", foundry_export(walls))]),
        ("5 import roll20", f"{walls} walls", [("/v1/import/roll20", roll20_export(walls))]),
        ("5 import uvtt", f"{walls} walls", [("/v1/import/uvtt", uvtt_export(walls))]),
        ("6 hex giants vision", f"{targets} targets",
         [("/v1/vision", {"ruleset": "dnd5e", "scene": giants, "observer": "t0",
                          "targets": [f"t{k}" for k in range(1, targets + 1)]})]),
        ("6 regions lighting", f"{1000 // f} regions",
         [("/v1/lighting", {"scene": regions, "points": points,
                            "tokens": [f"t{k}" for k in range(100)]})]),
        ("6 starfinder heights matrix", f"{t} x {walls}",
         _matrix(dungeon_with_heights(walls, t), "starfinder", "cover")),
        ("6 lancer ship vision", f"{t} tokens", _matrix(ship, "dnd5e", "vision")),
        ("6 lancer ship vision (issue: 128)", f"{128 // f} tokens",
         _matrix(lancer_ship(128 // f), "dnd5e", "vision")),
        ("6 lancer ship starfinder", f"{t} tokens", _matrix(ship, "starfinder", "cover")),
    ]  # fmt: skip
    return out


def _worker_pid(master: int) -> int | None:
    try:
        with open(f"/proc/{master}/task/{master}/children") as fh:
            kids = fh.read().split()
        return int(kids[0]) if kids else None
    except OSError:
        return None


def _status_mb(pid: int, field: str) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _http_row(
    master: int, url: str, kind: str, size: str, calls: list[tuple[str, Any]]
) -> dict[str, Any]:
    """One row of ``run_http``: ``calls`` sent in turn to ``url`` (gunicorn ``master``'s).

    A question carrying a scene uploads it first (``upload s``), then asks by ``scene_id``.
    A path alone (a ``str`` body: ``"GET"``) is a GET. The statuses (``"(html)"`` after one
    whose body is not JSON), the slowest request's seconds at the client, the worker's peak
    RSS (``VmHWM``, reset first through ``clear_refs``) and its RSS after (once a
    ``/healthz`` sent next is answered: what it frees after an answer is done), and whether
    the worker was replaced (died).
    """
    import requests

    pid = _worker_pid(master)
    if pid is not None:
        with open(f"/proc/{pid}/clear_refs", "w") as fh:
            fh.write("5")  # reset the peak RSS (VmHWM) to now
    statuses, slowest, upload = [], 0.0, 0.0
    for path, body in calls:
        if isinstance(body, dict) and "scene" in body and path not in ("/v1/scenes",):
            # The scene uploaded first (its build timed apart): the row's seconds are the
            # question's, by scene id.
            start = time.perf_counter()
            r = requests.post(url + "/v1/scenes", json={"scene": body["scene"]}, timeout=120)
            upload = max(upload, time.perf_counter() - start)
            if r.status_code in (200, 201):
                body = {**body, "scene_id": r.json()["scene_id"]}
                del body["scene"]
        start = time.perf_counter()
        try:
            if body == "GET":
                r = requests.get(url + path, timeout=120)
            else:
                r = requests.post(url + path, data=json.dumps(body), timeout=120,
                                  headers={"Content-Type": "application/json"})  # fmt: skip
            json_body = r.headers.get("Content-Type", "").startswith("application/json")
            statuses.append(f"{r.status_code}" + ("" if json_body else " (html)"))
        except requests.RequestException as exc:
            statuses.append(type(exc).__name__)
        slowest = max(slowest, time.perf_counter() - start)
    try:  # queued behind what the worker does once the answer is sent (release_memory)
        requests.get(url + "/healthz", timeout=60)
    except requests.RequestException:
        pass
    after = _worker_pid(master)
    return {"kind": kind, "size": size, "status": sorted(set(statuses)),
            "seconds": round(slowest, 2), "calls": len(calls), "upload": round(upload, 2),
            "peak_mb": None if pid is None else _status_mb(pid, "VmHWM"),
            "after_mb": None if after is None else _status_mb(after, "VmRSS"),
            "died": after != pid}  # fmt: skip


def run_http(tenth_too: bool = True, only: list[str] | None = None) -> list[dict[str, Any]]:
    """Every issue 32 kind through a one-worker gunicorn on 127.0.0.1; a row per (kind, size).

    Kinds 2 and 7 (the memory ceiling, the proxy) are ``run_http_servers``'; the other
    kinds' rows are ``_http_row``'s, here.
    """
    from bench.servers import start_gunicorn, stop

    cases = [(tenth, kind, size, calls) for tenth in ((True, False) if tenth_too else (False,))
             for kind, size, calls in http_cases(tenth)
             if not only or any(o in kind for o in only)]  # fmt: skip
    rows = []
    if cases:
        proc, url = start_gunicorn({"SIGHTLINE_WORKERS": "1"}, wait=300)
        try:
            for _, kind, size, calls in cases:
                rows.append(_http_row(proc.pid, url, kind, size, calls))
                print(json.dumps(rows[-1]), flush=True)
        finally:
            stop(proc)
    return rows + run_http_servers(tenth_too, only)


def http_app() -> Any:
    """``tests/e2e/memory_app``'s app (the service with ``/_mem`` routes) and ``/_bench/die``.

    ``POST /_bench/die`` kills its own worker (``SIGKILL``) while it holds the request, as a
    crash in C once did (issue 32 kind 7). For ``run_http_servers`` only, never the product:
    ``gunicorn 'bench.worst:http_app()'``.
    """
    import os
    import signal

    from tests.e2e.memory_app import create_app

    app = create_app()

    @app.post("/_bench/die")
    def die() -> Any:
        os.kill(os.getpid(), signal.SIGKILL)
        return {}  # never reached

    return app


#: Issue 32's kinds 2 and 7 (``run_http_servers``): (kind, size, requests) at the limits or
#: a tenth. Kind 2, to one replica: C allocations of ``mb`` MiB against the default
#: ``SIGHTLINE_WORKER_MAX_MB`` (768), in numpy and in GEOS, and (at the limit) one the
#: kernel refuses and GEOS' ``bad_alloc``: a 503 JSON past the ceiling, the worker alive.
#: Kind 7, through nginx (``deploy/nginx.conf``) over both replicas: requests that kill
#: their worker (a JSON 502 each, sent to one replica only: one worker died per request),
#: and a replica's 503 passed through (answered by one replica).
def _server_cases(tenth: bool) -> list[tuple[str, str, list[tuple[str, Any]]]]:
    mb = 400 if tenth else 4000
    cases: list[tuple[str, str, list[tuple[str, Any]]]] = [
        ("2 ceiling: numpy arrays", f"{mb} MB", [(f"/_mem/numpy?mb={mb}", "GET")]),
        ("2 ceiling: GEOS buffers", f"{mb} MB", [(f"/_mem/shapely?mb={mb}", "GET")]),
    ]
    if not tenth:
        cases += [("2 ceiling: refused in C", "2**44 B, bad_alloc",
                   [("/_mem/huge", "GET"), ("/_mem/bad_alloc", "GET")]),
                  ("7 proxy: requests killing their worker", "4 requests",
                   [("/_bench/die", {})] * 4),
                  ("7 proxy: a replica's 503 passed through", "2**44 B",
                   [("/_mem/huge", "GET")])]  # fmt: skip
    return cases


def run_http_servers(tenth_too: bool = True, only: list[str] | None = None) -> list[dict[str, Any]]:
    """Kinds 2 and 7: nginx (``bench.servers.Nginx``) over two one-worker gunicorns.

    Both replicas serve ``http_app`` with the default settings. Kind 2's rows go to the first
    replica (``_http_row``); kind 7's to nginx, where the row's ``died`` is how many
    workers its requests killed over both replicas (one a request: its own, not replayed;
    two: sent again to the other) and how many answers the replicas logged (one a request
    answered: not sent twice), read from their logs (``Booting worker``, the access log).
    Skipped (no rows) when nginx is not installed.
    """
    import tempfile
    from pathlib import Path

    from bench import servers

    cases = [(tenth, kind, size, calls) for tenth in ((True, False) if tenth_too else (False,))
             for kind, size, calls in _server_cases(tenth)
             if not only or any(o in kind for o in only)]  # fmt: skip
    if not cases:
        return []
    if servers.NGINX is None:
        print("kinds 2 and 7 skipped: nginx not installed (apt-get install -y nginx)")
        return []
    rows = []
    with tempfile.TemporaryDirectory(prefix="worst-") as tmp:
        where = Path(tmp)
        env = {"SIGHTLINE_WORKERS": "1", "PYTHONUNBUFFERED": "1"}
        procs: list[Any] = []
        nginx = None
        try:
            for name in ("a", "b"):
                procs.append(servers.start_gunicorn(env, where / f"{name}.log", wait=300,
                                                    app="bench.worst:http_app()"))  # fmt: skip
            nginx = servers.Nginx([u.removeprefix("http://") for _, u in procs], where)
            nginx.start()
            logs = [where / "a.log", where / "b.log"]
            for _, kind, size, calls in cases:
                if kind.startswith("7"):
                    path = calls[0][0]
                    before = [_served(log, path) for log in logs]
                    row = _http_row(procs[0][0].pid, nginx.url, kind, size, calls)
                    time.sleep(1.0)  # the masters log their new workers
                    after = [_served(log, path) for log in logs]
                    killed = sum(a[0] - b[0] for a, b in zip(after, before, strict=True))
                    answered = sum(a[1] - b[1] for a, b in zip(after, before, strict=True))
                    row |= {"peak_mb": None, "after_mb": None,
                            "died": f"{killed} (replicas answered {answered} of "
                                    f"{len(calls)})"}  # fmt: skip
                else:
                    row = _http_row(procs[0][0].pid, procs[0][1], kind, size, calls)
                rows.append(row)
                print(json.dumps(row), flush=True)
        finally:
            if nginx is not None:
                nginx.stop()
            for proc, _ in procs:
                servers.stop(proc)
    return rows


def _served(log: Any, path: str) -> tuple[int, int]:
    """Workers a gunicorn has booted (the first included) and its answers to ``path``, by log."""
    text = log.read_text(errors="replace")
    return text.count("Booting worker"), text.count(f'"path": "{path.split("?")[0]}"')


def http_table(rows: list[dict[str, Any]]) -> str:
    """The rows as the Markdown table of ``docs/operations.md``."""
    out = ["| kind | size | status | slowest s | upload s | peak worker MB | MB after | died |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]  # fmt: skip
    for r in rows:
        peak = "-" if r["peak_mb"] is None else f"{r['peak_mb']:.0f}"
        after = "-" if r["after_mb"] is None else f"{r['after_mb']:.0f}"
        died = r["died"] if isinstance(r["died"], str) else "yes" if r["died"] else "no"
        up = f"{r['upload']:.2f}" if r.get("upload") else "-"
        out.append(f"| {r['kind']} | {r['size']} | {', '.join(r['status'])} | "
                   f"{r['seconds']:.2f} | {up} | {peak} | {after} | {died} |")  # fmt: skip
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", nargs=2, metavar=("KIND", "SIZE"), help=argparse.SUPPRESS)
    ap.add_argument("--only", action="append", choices=sorted(SIZES))
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per measure")
    ap.add_argument("--http", action="store_true", help="issue 32's kinds through gunicorn")
    ap.add_argument("--http-only", action="append", help="only --http kinds naming this")
    args = ap.parse_args()
    if args.http:
        print(http_table(run_http(only=args.http_only)))
        return 0
    if args.one:
        print(json.dumps(_one(args.one[0], int(args.one[1]))))
        return 0
    rows = []
    for kind in args.only or list(SIZES):
        for size in SIZES[kind]:
            cmd = [sys.executable, "-m", "bench.worst", "--one", kind, str(size)]
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
                row = (
                    json.loads(out.stdout.strip().splitlines()[-1])
                    if out.returncode == 0
                    else {
                        "kind": kind,
                        "size": size,
                        "seconds": None,
                        "peak_mb": None,
                        "status": f"crashed: {out.stderr.strip().splitlines()[-1:]}",
                    }
                )
            except subprocess.TimeoutExpired:
                row = {
                    "kind": kind,
                    "size": size,
                    "seconds": None,
                    "peak_mb": None,
                    "status": f"killed after {args.timeout:g} s",
                }
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    print(
        f"{'kind':<9}{'size':>7}{'seconds':>9}{'peak MB':>9}  status  "
        "(ms in the app each: all / reading the body)"
    )
    for r in rows:
        s = "-" if r["seconds"] is None else f"{r['seconds']:.2f}"
        m = "-" if r["peak_mb"] is None else f"{r['peak_mb']:.0f}"
        each, parse = r.get("ms") or [], r.get("parse_ms") or []
        if len(each) > 4:  # uploads: the slowest and the mean
            each = [max(each), round(sum(each) / len(each), 1)]
            parse = [max(parse), round(sum(parse) / len(parse), 1)] if parse else []
        pairs = [
            f"{v:g}" + (f" / {parse[k]:g}" if k < len(parse) else "") for k, v in enumerate(each)
        ]
        text = f"  ({', '.join(pairs)})" if pairs else ""
        if "counted_mb" in r:
            text += (
                f"  cache: {r['cached']} scenes, {r['counted_mb']:g} MB counted, "
                f"process grew {r['grown_mb']:g} MB"
            )
        if r.get("adapter_ms") is not None:
            text += f"  adapter {r['adapter_ms']:g} ms"
        if "rss_after_mb" in r:
            text += f"  RSS after the 503: {r['rss_after_mb']:g} MB"
        print(f"{r['kind']:<9}{r['size']:>7}{s:>9}{m:>9}  {r['status']}{text}")
    for kind in ("scatter", "copies", "crossing"):
        pts = [(r["size"], r["seconds"]) for r in rows if r["kind"] == kind and r["seconds"]]
        if len(pts) >= 2:
            (n0, t0), (n1, t1) = pts[0], pts[-1]
            print(f"exponent in walls ({kind}): {math.log(t1 / t0) / math.log(n1 / n0):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
