"""Sightline benchmarks (issue 7), run by hand: ``.venv/bin/python -m bench.run``.

Starts one gunicorn worker on 127.0.0.1 (a free port) and measures, side by side in one run:

- matrix ratio: ``POST /v1/matrix`` (dnd5e, 50 tokens, 2,000 walls) / the numpy floor of the
  same scene in-process (``bench.peers.numpy_floor``: every corner line against every wall;
  ``python -m bench.peers`` compares with every peer and reports their agreement);
- ingest ratio: ``POST /v1/scenes`` of a 5,000-wall scene / ``json.loads`` of the same body;
- cached ratio: median ``POST /v1/cover`` by ``scene_id`` (one target, 5,000 walls) / median
  ``GET /healthz``;
- scaling: matrix time for 25/50/100/200 tokens and 1,000/5,000/20,000 walls, with the fitted
  exponents;
- memory: RSS of the worker holding 20 cached 5,000-wall scenes.

Nothing here is asserted; the numbers are printed (and written as JSON with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import requests

from bench.dungeon import dungeon
from bench.peers import numpy_floor
from bench.peers.corners import corner_segments

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(max_mb: int = 2048) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {
        **os.environ,
        "SIGHTLINE_WORKERS": "1",
        "SIGHTLINE_SCENE_CACHE_SIZE": "64",
        "SIGHTLINE_SCENE_CACHE_MAX_MB": str(max_mb),
        "SIGHTLINE_MATRIX_MAX_TOKENS": "400",
        "SIGHTLINE_WORK_BUDGET": "1000000000",  # the scaling grid goes past the default
        "SIGHTLINE_WORKER_TIMEOUT": "300",
    }
    gunicorn = Path(sys.executable).with_name("gunicorn")
    proc = subprocess.Popen(
        [
            str(gunicorn),
            "-c",
            "gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{port}",
            "--access-logfile",
            "/dev/null",
            "service.app:create_app()",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120  # a busy machine (other work on the 2 cores) starts slowly
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if requests.get(url + "/healthz", timeout=5).ok:
                return proc, url
        except requests.RequestException:  # not listening yet, or too busy to answer
            time.sleep(0.2)
    proc.kill()
    proc.wait()
    raise RuntimeError("gunicorn did not start")


def timed(fn, repeat: int = 5) -> float:
    """Median wall time of ``fn()`` in seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def post(url: str, path: str, body: dict | str) -> requests.Response:
    data = body if isinstance(body, str) else json.dumps(body)
    resp = requests.post(
        url + path, data=data, timeout=600, headers={"Content-Type": "application/json"}
    )
    resp.raise_for_status()
    return resp


def upload(url: str, scene: dict) -> str:
    return post(url, "/v1/scenes", {"scene": scene}).json()["scene_id"]


def matrix_time(url: str, scene: dict, repeat: int = 3) -> float:
    sid = upload(url, scene)
    return timed(lambda: post(url, "/v1/matrix", {"ruleset": "dnd5e", "scene_id": sid}), repeat)


def rss_mb(pid: int) -> float:
    """Resident memory of the gunicorn worker (the child of ``pid``), in MB."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    target = int(children[0]) if children else pid
    for line in Path(f"/proc/{target}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return math.nan


def fit_exponent(xs: list[float], ys: list[float]) -> float:
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--quick", action="store_true", help="smaller scaling grid")
    ap.add_argument(
        "--only",
        action="append",
        choices=MEASURES,
        help="run only this measure (repeatable); default all",
    )
    args = ap.parse_args()
    want = set(args.only or MEASURES)
    out: dict = {"cores": os.cpu_count()}
    if "memory" in want:  # first, on a fresh worker: 20 cached 5,000-wall scenes
        proc, url = start_server()
        try:
            before = rss_mb(proc.pid)
            for k in range(20):
                upload(url, dungeon(5000, 50, seed=1000 + k))
            out["memory"] = {"rss_mb_fresh_worker": before, "rss_mb_20_scenes": rss_mb(proc.pid)}
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    proc, url = start_server()
    try:
        if "matrix" in want:
            measure_matrix(url, out)
        if "ingest" in want:
            measure_ingest(url, out)
        if "cached" in want:
            measure_cached(url, out)
        if "scaling" in want:
            measure_scaling(url, out, args.quick)
            out.setdefault("memory", {})["rss_mb_after_scaling"] = rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


MEASURES = ("memory", "matrix", "ingest", "cached", "scaling")


def measure_matrix(url: str, out: dict) -> None:
    """Matrix ratio: dnd5e, 50 tokens, 2,000 walls, against the numpy floor (bench.peers)."""
    scene = dungeon(2000, 50, seed=1)
    t_matrix = matrix_time(url, scene)
    t_floor = timed(lambda: numpy_floor.cover_matrix(scene))
    out["matrix"] = {
        "seconds": t_matrix,
        "floor_seconds": t_floor,
        "ratio": t_matrix / t_floor,
        "segments": len(corner_segments(scene)[1]),
    }


def measure_ingest(url: str, out: dict) -> None:
    """Ingest ratio: POST /v1/scenes of 5,000 walls (new, then again) against json.loads."""
    big = dungeon(5000, 50, seed=2)
    body = json.dumps({"scene": big})
    t_json = timed(lambda: json.loads(body), 15)
    fresh = [json.dumps({"scene": dungeon(5000, 50, seed=100 + k)}) for k in range(11)]
    first = statistics.median(timed(lambda b=b: post(url, "/v1/scenes", b), 1) for b in fresh)
    again = timed(lambda: post(url, "/v1/scenes", body), 9)
    out["ingest"] = {
        "json_loads_seconds": t_json,
        "first_post_seconds": first,
        "repeat_post_seconds": again,
        "ratio_first": first / t_json,
        "ratio_repeat": again / t_json,
        "body_bytes": len(body),
    }


def measure_cached(url: str, out: dict) -> None:
    """Cached ratio: median POST /v1/cover by scene_id against median GET /healthz."""
    big = dungeon(5000, 50, seed=2)
    sid = upload(url, big)
    ids = [t["id"] for t in big["tokens"]]
    cover = {"ruleset": "dnd5e", "scene_id": sid, "attacker": ids[0], "targets": [ids[1]]}
    cover_times, health_times = [], []
    for k in range(60):
        cover["targets"] = [ids[1 + k % (len(ids) - 1)]]
        t = time.perf_counter()
        post(url, "/v1/cover", cover)
        cover_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        requests.get(url + "/healthz", timeout=10)
        health_times.append(time.perf_counter() - t)
    out["cached"] = {
        "cover_median_seconds": statistics.median(cover_times),
        "healthz_median_seconds": statistics.median(health_times),
        "ratio": statistics.median(cover_times) / statistics.median(health_times),
    }


def measure_scaling(url: str, out: dict, quick: bool) -> None:
    """Matrix seconds over tokens x walls, with the fitted exponents."""
    tokens = [25, 50, 100] if quick else [25, 50, 100, 200]
    walls = [1000, 5000] if quick else [1000, 5000, 20000]
    grid = {}
    for w in walls:
        for n in tokens:
            grid[f"{n}x{w}"] = matrix_time(url, dungeon(w, n, seed=7), repeat=1)
    by_tokens = [grid[f"{n}x{walls[1]}"] for n in tokens]
    by_walls = [grid[f"{tokens[1]}x{w}"] for w in walls]
    out["scaling"] = {
        "seconds": grid,
        "exponent_tokens": fit_exponent(tokens, by_tokens),
        "exponent_walls": fit_exponent(walls, by_walls),
    }


if __name__ == "__main__":
    main()
