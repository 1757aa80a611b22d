"""Worst-case bodies of issue 16, regenerated from a seed: ``python -m bench.worst``.

Each kind is a request body that once cost minutes or gigabytes while inside every limit:

- ``scatter``: N short walls scattered at random between two tokens 2,000 px apart;
- ``copies``: N copies of one wall across the line between two tokens;
- ``fog``: R heavy-fog regions of 10,000 points each on the line between two tokens;
- ``uploads``: 30 scenes carrying 1.5 MB of regions each, uploaded to one worker;
- ``lights``: N lights and 2,000 long random walls, lighting asked at 1,000 points and over
  100 tokens.

``python -m bench.worst`` measures each kind at each size in a fresh child process (seconds,
peak RSS, status) through the real app (Flask test client), and prints the table with the
fitted exponent in walls. Nothing is asserted here; the tests use small sizes of the same
kinds (``tests/test_bounded.py``).
"""

from __future__ import annotations

import argparse
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


def _one(kind: str, size: int) -> dict[str, Any]:
    """Run one measure in this process (called in a child)."""
    from service.app import create_app

    client = create_app({"TESTING": False}).test_client()
    start = time.perf_counter()
    status: Any
    if kind == "uploads":
        statuses = []
        for k in range(size):
            body = fog(4, points=10_000, seed=k)  # about 1.5 MB of regions each
            statuses.append(client.post("/v1/scenes", json={"scene": body}).status_code)
        status = sorted(set(statuses))
    elif kind == "lights":
        rng = random.Random(2)
        points = [[rng.uniform(0, 4000), rng.uniform(0, 4000)] for _ in range(1000)]
        body = {"scene": lights(size), "points": points, "tokens": [f"t{k}" for k in range(100)]}
        status = client.post("/v1/lighting", json=body).status_code
    else:
        scene = {"scatter": scatter, "copies": copies, "fog": fog}[kind](size)
        if kind == "fog":
            body = {"ruleset": "dnd5e", "scene": scene, "observer": "A", "targets": ["T"]}
            status = client.post("/v1/vision", json=body).status_code
        else:
            body = {"ruleset": "dnd5e", "scene": scene, "attacker": "A", "targets": ["T"]}
            status = client.post("/v1/cover", json=body).status_code
            line = {"scene": scene, "from": "A", "to": "T"}
            status = [status, client.post("/v1/line-of-effect", json=line).status_code]
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"kind": kind, "size": size, "seconds": seconds, "peak_mb": peak_mb, "status": status}


SIZES = {
    "scatter": (1000, 2000, 4000),
    "copies": (3000, 5000, 10000),
    "fog": (5, 10, 20),
    "uploads": (30,),
    "lights": (250, 500, 1000),
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
    print(f"{'kind':<9}{'size':>7}{'seconds':>9}{'peak MB':>9}  status")
    for r in rows:
        s = "-" if r["seconds"] is None else f"{r['seconds']:.2f}"
        m = "-" if r["peak_mb"] is None else f"{r['peak_mb']:.0f}"
        print(f"{r['kind']:<9}{r['size']:>7}{s:>9}{m:>9}  {r['status']}")
    for kind in ("scatter", "copies"):
        pts = [(r["size"], r["seconds"]) for r in rows if r["kind"] == kind and r["seconds"]]
        if len(pts) >= 2:
            (n0, t0), (n1, t1) = pts[0], pts[-1]
            print(f"exponent in walls ({kind}): {math.log(t1 / t0) / math.log(n1 / n0):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
