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

``python -m bench.worst`` measures each kind at each size in a fresh child process (seconds,
peak RSS, status) through the real app (Flask test client), and prints the table with the
fitted exponent in walls. Each request's milliseconds in the app are split: all, and the part
spent reading the body (JSON parse, scene decode, the count limits read from the bytes).
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
    app = create_app({"TESTING": False})
    client = app.test_client()
    gc.freeze()  # as gunicorn.conf.py's when_ready: full collections skip what is preloaded
    base_mb = _rss_mb()
    start = time.perf_counter()
    status: Any
    ms: list[float] = []
    if kind in ("crossing", "hexhuge", "flank", "matrix", "stack", "hexcrowd"):
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
        row["counted_mb"] = round(sum(cache._bytes.values()) / 2**20, 1)
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
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", nargs=2, metavar=("KIND", "SIZE"), help=argparse.SUPPRESS)
    ap.add_argument("--only", action="append", choices=sorted(SIZES))
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per measure")
    args = ap.parse_args()
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
        print(f"{r['kind']:<9}{r['size']:>7}{s:>9}{m:>9}  {r['status']}{text}")
    for kind in ("scatter", "copies", "crossing"):
        pts = [(r["size"], r["seconds"]) for r in rows if r["kind"] == kind and r["seconds"]]
        if len(pts) >= 2:
            (n0, t0), (n1, t1) = pts[0], pts[-1]
            print(f"exponent in walls ({kind}): {math.log(t1 / t0) / math.log(n1 / n0):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
