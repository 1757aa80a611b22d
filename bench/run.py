"""Sightline benchmarks (issue 7), run by hand: ``.venv/bin/python -m bench.run``.

Starts one gunicorn worker on 127.0.0.1 (a free port) and measures, side by side in one run:

- matrix ratio: ``POST /v1/matrix`` (dnd5e, 50 tokens, 2,000 walls) / the numpy floor of the
  same scene in-process (``bench.peers.numpy_floor``: every corner line against every wall;
  ``python -m bench.peers`` compares with every peer and reports their agreement);
- ingest ratio: ``POST /v1/scenes`` of a 5,000-wall scene / ``json.loads`` of the same body;
- cached ratio: median ``POST /v1/cover`` by ``scene_id`` (one target, 5,000 walls) / median
  ``GET /healthz``, requests alternating between the two (and the sample scene's cover);
- throughput ratio: requests/s of a single-target ``POST /v1/cover`` of the preloaded sample
  scene / requests/s of ``GET /healthz``, with ``wrk`` (16 connections) against gunicorn with
  2 workers, in alternating rounds (skipped, saying so, without ``wrk``);
- scaling: matrix time for 25/50/100/200 tokens and 1,000/5,000/20,000 walls, with the fitted
  exponents;
- memory: RSS of the worker holding 20 cached 5,000-wall scenes.

Nothing here is asserted; the numbers are printed (and written as JSON with ``--json``).

``--baseline DIR`` serves another checkout of the project too (e.g. ``git worktree add
/tmp/base main``), with this environment's dependencies, and measures the cached and
throughput ratios of both in the same run, alternating between them: before and after a
change, under the same load of the machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import requests

from bench.dungeon import dungeon
from bench.peers import numpy_floor
from bench.peers.corners import corner_segments
from bench.servers import start_gunicorn, stop

ROOT = Path(__file__).resolve().parent.parent
#: The load generator of the throughput measure (``apt-get install -y wrk``).
WRK = shutil.which("wrk")
#: A single-target cover of the sample scene every worker preloads (``scene_id: "sample"``).
SAMPLE_COVER = {
    "ruleset": "dnd5e",
    "scene_id": "sample",
    "attacker": "archer",
    "targets": ["goblin"],
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(max_mb: int = 2048, root: Path = ROOT) -> tuple[subprocess.Popen, str]:
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
        cwd=root,
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
    ap.add_argument(
        "--baseline",
        type=Path,
        help="another checkout to measure beside this one (cached and throughput ratios)",
    )
    ap.add_argument("--seconds", type=float, default=10, help="each wrk run (throughput)")
    ap.add_argument("--rounds", type=int, default=3, help="wrk rounds per server (throughput)")
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
    roots = {"this": ROOT}
    if args.baseline is not None:
        roots["baseline"] = args.baseline.resolve()
    if want & {"matrix", "ingest", "cached", "scaling"}:
        servers = {label: start_server(root=root) for label, root in roots.items()}
        proc, url = servers["this"]
        try:
            if "matrix" in want:
                measure_matrix(url, out)
            if "ingest" in want:
                measure_ingest(url, out)
            if "cached" in want:
                measure_cached({label: u for label, (_, u) in servers.items()}, out)
            if "scaling" in want:
                measure_scaling(url, out, args.quick)
                out.setdefault("memory", {})["rss_mb_after_scaling"] = rss_mb(proc.pid)
        finally:
            for server, _ in servers.values():
                server.terminate()
                server.wait(timeout=10)
    if "throughput" in want:
        measure_throughput(roots, out, args.seconds, args.rounds)
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


MEASURES = ("memory", "matrix", "ingest", "cached", "scaling", "throughput")


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


def _time_request(send) -> float:
    t = time.perf_counter()
    resp = send()
    elapsed = time.perf_counter() - t
    resp.raise_for_status()
    return elapsed


def measure_cached(urls: dict[str, str], out: dict, repeat: int = 200) -> None:
    """Cached ratio: median POST /v1/cover by scene_id against median GET /healthz.

    One target of a 5,000-wall scene (``cover_median_seconds``, the issue's ratio) and of the
    sample scene (``sample_cover_median_seconds``); the requests alternate between the
    kinds, and between the servers of ``urls`` (label: URL) when there are several, so that
    all see the same load of the machine. Results under ``out["cached"]``, the other
    servers' under ``out["cached"][label]``.
    """
    big = dungeon(5000, 50, seed=2)
    ids = [t["id"] for t in big["tokens"]]
    sids = {label: upload(url, big) for label, url in urls.items()}
    times: dict[str, dict[str, list[float]]] = {
        label: {"cover": [], "sample": [], "healthz": []} for label in urls
    }
    for k in range(repeat):
        for label, url in urls.items():
            cover = {"ruleset": "dnd5e", "scene_id": sids[label], "attacker": ids[0]}
            cover["targets"] = [ids[1 + k % (len(ids) - 1)]]
            got = times[label]
            got["cover"].append(_time_request(lambda u=url, c=cover: post(u, "/v1/cover", c)))
            got["sample"].append(_time_request(lambda u=url: post(u, "/v1/cover", SAMPLE_COVER)))
            got["healthz"].append(
                _time_request(lambda u=url: requests.get(u + "/healthz", timeout=10))
            )
    for label, got in times.items():
        cover, sample, health = (statistics.median(got[k]) for k in ("cover", "sample", "healthz"))
        result = {
            "cover_median_seconds": cover,
            "sample_cover_median_seconds": sample,
            "healthz_median_seconds": health,
            "ratio": cover / health,
            "sample_ratio": sample / health,
            "requests_each": repeat,
        }
        if label == "this":
            out["cached"] = {**result, **out.get("cached", {})}
        else:
            out.setdefault("cached", {})[label] = result


def wrk_script(directory: Path, body: dict) -> Path:
    """A wrk Lua script that POSTs ``body`` as JSON; its path in ``directory``."""
    script = Path(directory) / "post.lua"
    script.write_text(
        'wrk.method = "POST"\n'
        f"wrk.body = [==[{json.dumps(body)}]==]\n"
        'wrk.headers["Content-Type"] = "application/json"\n'
    )
    return script


def run_wrk(url: str, seconds: float, connections: int, script: Path | None = None) -> dict:
    """One ``wrk`` run: requests/s, requests, and socket errors; ``RuntimeError`` on a non-2xx.

    gunicorn's sync worker closes each connection after its answer, so every request is a
    new connection, for ``/healthz`` as for the cover.
    """
    assert WRK is not None
    cmd = [WRK, "-t1", f"-c{connections}", f"-d{seconds:g}s", url]
    if script is not None:
        cmd += ["-s", str(script)]
    text = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60).stdout
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    count = re.search(r"(\d+) requests in", text)
    if bad or rps is None or count is None:
        raise RuntimeError(f"wrk on {url} did not answer 2xx throughout:\n{text}")
    errors = re.search(r"Socket errors: (.*)", text)
    return {
        "rps": float(rps.group(1)),
        "requests": int(count.group(1)),
        "socket_errors": errors.group(1) if errors else None,
    }


def measure_throughput(
    roots: dict[str, Path],
    out: dict,
    seconds: float = 10,
    rounds: int = 3,
    connections: int = 16,
    workers: int = 2,
) -> None:
    """Throughput ratio: wrk's requests/s on a single-target cover and on /healthz.

    gunicorn with ``workers`` workers on 127.0.0.1 for each checkout of ``roots`` (label:
    directory), the sample scene preloaded in every worker (``scene_id: "sample"``: no
    scene store needed); ``rounds`` rounds, each a ``seconds`` wrk run with ``connections``
    connections on ``GET /healthz`` then on ``POST /v1/cover`` (``SAMPLE_COVER``) of every
    server in turn. The ratio is of the medians over the rounds. Without ``wrk``, says so in
    ``out["throughput"]["skipped"]`` and on stderr.
    """
    if WRK is None:
        message = "wrk is not installed (apt-get install -y wrk): throughput not measured"
        print(message, file=sys.stderr)
        out["throughput"] = {"skipped": message}
        return
    env = {
        "SIGHTLINE_WORKERS": str(workers),
        "SIGHTLINE_PRELOAD_SAMPLE": "1",
    }
    servers = {}
    try:
        for label, root in roots.items():
            servers[label] = start_gunicorn(env, root=root, wait=300)
        runs: dict[str, list[dict]] = {label: [] for label in servers}
        with tempfile.TemporaryDirectory() as tmp:
            script = wrk_script(Path(tmp), SAMPLE_COVER)
            for _, url in servers.values():
                post(url, "/v1/cover", SAMPLE_COVER)  # answers 200, and warm
            for _ in range(rounds):
                for label, (_, url) in servers.items():
                    health = run_wrk(url + "/healthz", seconds, connections)
                    cover = run_wrk(url + "/v1/cover", seconds, connections, script)
                    runs[label].append({"healthz": health, "cover": cover})
    finally:
        for proc, _ in servers.values():
            stop(proc)
    for label, got in runs.items():
        health = statistics.median(r["healthz"]["rps"] for r in got)
        cover = statistics.median(r["cover"]["rps"] for r in got)
        result = {
            "workers": workers,
            "connections": connections,
            "seconds_each": seconds,
            "healthz_rps": health,
            "cover_rps": cover,
            "ratio": cover / health,
            "rounds": [
                {
                    "healthz_rps": r["healthz"]["rps"],
                    "cover_rps": r["cover"]["rps"],
                    "ratio": r["cover"]["rps"] / r["healthz"]["rps"],
                }
                for r in got
            ],
        }
        if label == "this":
            out["throughput"] = {**result, **out.get("throughput", {})}
        else:
            out.setdefault("throughput", {})[label] = result


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
