"""Shared scene store bench (issue 18), run by hand: ``.venv/bin/python -m bench.store``.

Starts a real ``redis-server`` and gunicorn instances on 127.0.0.1 (free ports) and measures,
side by side in one run (medians over distinct 5,000-wall scenes, so every "cold" is cold):

- ingest: ``POST /v1/scenes`` of a scene new to instance A (parse, validate, hash, build,
  store in Redis), then the first query by id on A (a new scene's first answer does work
  of its own, whichever way the scene came in);
- cold by id: the same ``POST /v1/cover`` by ``scene_id`` on instance B, which never saw the
  scene (Redis ``GETEX``, decode, hash check, build, answer); goal: at most 1.5 x ingest, both
  with and without the first answer's own cost;
- warm by id: the same query again on B (local LRU hit);
- the cold path's parts, in process: ``GETEX``, decode, ``scene_id``, ``build_scene``;
- throughput: concurrent cover matrices by id through nginx (``deploy/nginx.conf``) in front
  of one replica, then of two (one worker each), in the same run; skipped when nginx is not
  installed (``apt-get install -y nginx``).

Nothing here is asserted; numbers are printed (and written as JSON with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import requests

from bench import servers
from bench.dungeon import dungeon
from schemas.scene import SceneSchema
from service.cache import scene_id
from service.engine.scene import build_scene
from service.store import KEY_PREFIX, SceneStore, decode_scene

WALLS, TOKENS = 5000, 50


def post(session: requests.Session, url: str, path: str, body: str) -> requests.Response:
    resp = session.post(
        url + path, data=body, timeout=120, headers={"Content-Type": "application/json"}
    )
    resp.raise_for_status()
    return resp


def ms(seconds: list[float]) -> float:
    return round(1000 * statistics.median(seconds), 2)


def measure_cold(redis_url: str, rounds: int, tmp: Path, out: dict[str, Any]) -> None:
    env = {"SIGHTLINE_REDIS_URL": redis_url, "SIGHTLINE_WORKERS": "1"}
    a, url_a = servers.start_gunicorn(env)
    b, url_b = servers.start_gunicorn(env)
    session = requests.Session()
    ingest, first, cold, warm = [], [], [], []
    scenes = []
    try:
        for i in range(rounds + 1):  # round 0 warms both workers' code paths, not counted
            scene = dungeon(WALLS, TOKENS, seed=100 + i)
            ids = [t["id"] for t in scene["tokens"]]
            body = json.dumps({"scene": scene})
            t = time.perf_counter()
            sid = post(session, url_a, "/v1/scenes", body).json()["scene_id"]
            t_ingest = time.perf_counter() - t
            query = {"ruleset": "dnd5e", "attacker": ids[0], "targets": ids[1:2]}
            by_id = json.dumps({**query, "scene_id": sid})
            times = []
            for url in (url_a, url_b, url_b):  # A: built at ingest; B: cold, then warm
                t = time.perf_counter()
                post(session, url, "/v1/cover", by_id)
                times.append(time.perf_counter() - t)
            if i:
                ingest.append(t_ingest)
                first.append(times[0])
                cold.append(times[1])
                warm.append(times[2])
                scenes.append((sid, scene))
    finally:
        session.close()
        servers.stop(a)
        servers.stop(b)
    med = {k: statistics.median(v) for k, v in
           {"ingest": ingest, "first": first, "cold": cold, "warm": warm}.items()}  # fmt: skip
    out["cold"] = {
        "walls": WALLS,
        "tokens": TOKENS,
        "rounds": rounds,
        "ingest_ms": ms(ingest),
        "first_query_where_ingested_ms": ms(first),
        "cold_by_id_ms": ms(cold),
        "warm_by_id_ms": ms(warm),
        # Same work but for the scene's way in: Redis fetch + build vs HTTP ingest.
        "cold_over_ingest_then_first_query": round(med["cold"] / (med["ingest"] + med["first"]), 2),
        # The first query's own cost taken out of the cold answer: fetch + build alone.
        "fetch_and_build_est_ms": round(1000 * (med["cold"] - med["first"]), 2),
        "fetch_and_build_over_ingest": round((med["cold"] - med["first"]) / med["ingest"], 2),
        "cold_over_warm": round(med["cold"] / med["warm"], 1),
    }
    # The cold path's parts, in this process, on the scenes the service stored.
    store = SceneStore(redis_url)
    plain = store._redis  # the same pooled client the service uses
    parts: dict[str, list[float]] = {"getex": [], "decode": [], "scene_id": [], "build": []}
    size = []
    for sid, _ in scenes:
        t = time.perf_counter()
        data = plain.getex(KEY_PREFIX + sid, ex=store.ttl)
        parts["getex"].append(time.perf_counter() - t)
        assert isinstance(data, bytes)
        size.append(len(data))
        t = time.perf_counter()
        scene = decode_scene(data)
        parts["decode"].append(time.perf_counter() - t)
        t = time.perf_counter()
        scene_id(scene)
        parts["scene_id"].append(time.perf_counter() - t)
        t = time.perf_counter()
        build_scene(scene)
        parts["build"].append(time.perf_counter() - t)
    body_bytes = len(json.dumps({"scene": scenes[0][1]}))
    load = []
    for _, raw in scenes[:3]:
        t = time.perf_counter()
        SceneSchema().load(raw)
        load.append(time.perf_counter() - t)
    out["cold_parts_ms"] = {k: ms(v) for k, v in parts.items()}
    out["cold_parts_ms"]["validate_dict"] = ms(load)
    out["stored_bytes"] = int(statistics.median(size))
    out["json_body_bytes"] = body_bytes


def hammer(url: str, bodies: list[str], seconds: float, clients: int) -> dict[str, float]:
    """``clients`` threads POSTing ``bodies`` round-robin for ``seconds``; answers per second."""
    stop = time.monotonic() + seconds
    counts = [0] * clients
    errors = [0] * clients
    latencies: list[list[float]] = [[] for _ in range(clients)]

    def run(k: int) -> None:
        with requests.Session() as session:
            i = k
            while time.monotonic() < stop:
                t = time.perf_counter()
                resp = session.post(
                    url + "/v1/matrix",
                    data=bodies[i % len(bodies)],
                    timeout=60,
                    headers={"Content-Type": "application/json"},
                )
                latencies[k].append(time.perf_counter() - t)
                if resp.status_code == 200:
                    counts[k] += 1
                else:
                    errors[k] += 1
                i += 1

    threads = [threading.Thread(target=run, args=(k,)) for k in range(clients)]
    start = time.monotonic()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    elapsed = time.monotonic() - start
    every = [x for lat in latencies for x in lat]
    return {
        "answers_per_s": round(sum(counts) / elapsed, 1),
        "errors": sum(errors),
        "median_ms": ms(every) if every else float("nan"),
    }


def measure_throughput(
    redis_url: str, seconds: float, clients: int, tmp: Path, out: dict[str, Any]
) -> None:
    if servers.NGINX is None:
        out["throughput"] = "skipped: nginx not installed (apt-get install -y nginx)"
        return
    env = {"SIGHTLINE_REDIS_URL": redis_url, "SIGHTLINE_WORKERS": "1"}
    procs = []
    session = requests.Session()
    try:
        r1, url1 = servers.start_gunicorn(env)
        procs.append(r1)
        r2, url2 = servers.start_gunicorn(env)
        procs.append(r2)
        bodies = []
        for seed in range(4):
            scene = dungeon(2000, 12, seed=500 + seed)
            sid = post(session, url1, "/v1/scenes", json.dumps({"scene": scene})).json()
            bodies.append(
                json.dumps({"ruleset": "dnd5e", "kind": "cover", "scene_id": sid["scene_id"]})
            )
        for body in bodies:  # warm both replicas' caches (from Redis), out of the timing
            post(session, url1, "/v1/matrix", body)
            post(session, url2, "/v1/matrix", body)
        load_before = os.getloadavg()[0]
        runs: dict[str, list[dict[str, float]]] = {"one_replica": [], "two_replicas": []}
        setups = (("one_replica", [url1]), ("two_replicas", [url1, url2]))
        for turn in range(2):  # alternated, so that other load on the machine hits both
            for label, ups in setups:
                directory = tmp / f"{label}-{turn}"
                directory.mkdir()
                proxy = servers.Nginx([u.removeprefix("http://") for u in ups], directory)
                proxy.start()
                try:
                    hammer(proxy.url, bodies, 1.0, clients)  # warm-up
                    runs[label].append(hammer(proxy.url, bodies, seconds / 2, clients))
                finally:
                    proxy.stop()
        results: dict[str, Any] = {
            label: {
                "answers_per_s": round(sum(r["answers_per_s"] for r in rs) / len(rs), 1),
                "errors": sum(r["errors"] for r in rs),
                "median_ms_per_run": [r["median_ms"] for r in rs],
            }
            for label, rs in runs.items()
        }
        results["two_over_one"] = round(
            results["two_replicas"]["answers_per_s"] / results["one_replica"]["answers_per_s"], 2
        )
        results["load_avg_1min_before"] = round(load_before, 2)
        results["query"] = "cover matrix by scene_id, 12 tokens (132 pairs), 2,000 walls"
        results["clients"] = clients
        results["seconds_per_setup"] = seconds
        results["workers_per_replica"] = 1
        results["cpus"] = os.cpu_count()
        results["load_avg_1min_after"] = round(os.getloadavg()[0], 2)
        out["throughput"] = results
    finally:
        session.close()
        for proc in procs:
            servers.stop(proc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7, help="distinct scenes for the cold path")
    ap.add_argument("--seconds", type=float, default=8.0, help="per throughput run")
    ap.add_argument("--clients", type=int, default=6, help="concurrent clients (threads)")
    ap.add_argument("--only", choices=["cold", "throughput"], help="one measure")
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    args = ap.parse_args()
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="sightline-bench-") as tmp_name:
        tmp = Path(tmp_name)
        redis_dir = tmp / "redis"
        redis_dir.mkdir()
        redis_server = servers.RedisServer(redis_dir)
        redis_server.start()
        try:
            if args.only in (None, "cold"):
                measure_cold(redis_server.url, args.rounds, tmp, out)
            if args.only in (None, "throughput"):
                measure_throughput(redis_server.url, args.seconds, args.clients, tmp, out)
        finally:
            redis_server.stop()
    print(json.dumps(out, indent=2))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
