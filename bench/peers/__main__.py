"""Sightline against its peers, one run (issue 20): ``.venv/bin/python -m bench.peers``.

For the bench's dungeon scenes (``bench.dungeon``, seed 1) at 2,000 walls × 50 tokens,
5,000 × 100 and 20,000 × 200, the dnd5e cover matrix's time per ordered token pair of:

- Sightline over HTTP: ``POST /v1/matrix`` by cached ``scene_id`` to one gunicorn worker
  started here (as ``bench.run``), one warm-up request, then the median of ``--repeat``;
- Sightline in-process: ``service.matrix.matrix`` on the built scene (warm-up, median), with
  the objects alive before it frozen out of the garbage collector as in the gunicorn worker;
- the JS peer (``bench/peers/cover.mjs``, node with flatbush): inside node, the median of
  ``--repeat`` runs of building the index and tracing every pair (process start and JSON
  parse left out); and the whole process (start, read, parse, index, a cold trace, print),
  the median of ``--repeat`` processes;
- the shapely peer (``shapely_peer``): one ``STRtree.query`` over every corner line;
- the numpy floor (``numpy_floor``): every line against every wall, where lines × walls is at
  most ``--floor-max-couples``;

and the agreement of each peer with Sightline's matrix: pairs that differ, the degree shifts,
and why, for a sample of them (``agreement``). Nothing is asserted. Prints Markdown tables;
``--json PATH`` writes everything. Needs ``npm ci --prefix bench/peers`` for the JS peer (the
run goes on without it, saying so).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench.dungeon import dungeon
from bench.kernel import timed
from bench.peers import agreement, numpy_floor, shapely_peer
from bench.peers.corners import blocking_walls
from bench.run import post, start_server, upload
from schemas.scene import SceneSchema
from service import rules
from service.engine.scene import build_scene
from service.matrix import matrix

HERE = Path(__file__).resolve().parent
SIZES = ((2000, 50), (5000, 100), (20000, 200))
PEERS = ("JS", "shapely", "numpy floor")


def js_missing() -> str | None:
    """Why the JS peer cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (HERE / "node_modules" / "flatbush").is_dir():
        return "bench/peers/node_modules is absent: run npm ci --prefix bench/peers"
    return None


def run_js(path: Path, repeat: int) -> tuple[dict[str, Any], float]:
    """The JS peer on the body at ``path``: its answer (``--repeat``) and one process's time."""
    cmd = ["node", str(HERE / "cover.mjs")]
    answer = json.loads(
        subprocess.run(
            [*cmd, "--repeat", str(repeat), str(path)], capture_output=True, check=True, text=True
        ).stdout
    )

    def once() -> None:
        subprocess.run([*cmd, str(path)], capture_output=True, check=True)

    seconds, _ = timed(once, repeat)
    return answer, seconds


def measure(
    w: int, n: int, url: str | None, args: argparse.Namespace, js_why: str | None
) -> dict[str, Any]:
    """One size: the times (seconds and µs per pair), the matrices' agreement."""
    scene = dungeon(w, n, seed=1)
    pairs = n * (n - 1)
    seconds: dict[str, float | None] = {}
    matrices: dict[str, list[list[Any]]] = {}
    notes: dict[str, str] = {}
    system = rules.get("dnd5e")

    if url is not None:
        sid = upload(url, scene)
        body = {"ruleset": "dnd5e", "scene_id": sid}
        post(url, "/v1/matrix", body)  # warm-up (kernel compiled or loaded, grid built)
        s, resp = timed(lambda: post(url, "/v1/matrix", body), args.repeat)
        seconds["Sightline, HTTP"] = s
        matrices["Sightline, HTTP"] = resp.json()["cover"]
    built = build_scene(SceneSchema().load(scene))
    matrix(built, system, None, "cover", {})  # warm-up
    # As the gunicorn worker (gunicorn.conf.py): what is alive before the request (here
    # the bench's own objects) is frozen out of the collector's passes.
    gc.collect()
    gc.freeze()
    try:
        s, answer = timed(lambda: matrix(built, system, None, "cover", {}), args.repeat)
    finally:
        gc.unfreeze()
    seconds["Sightline, in-process"] = s
    sightline = answer["cover"]

    if js_why is None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "scene.json"
            path.write_text(json.dumps({"scene": scene}))
            js, whole = run_js(path, args.repeat)
        timing = js["timing"]
        seconds["JS in node (index + trace)"] = (timing["index_ms"] + timing["trace_ms"]) / 1e3
        seconds["JS in node (trace only)"] = timing["trace_ms"] / 1e3
        seconds["JS whole node process"] = whole
        matrices["JS"] = js["cover"]
    else:
        notes["JS"] = js_why

    s, answer = timed(lambda: shapely_peer.cover_matrix(scene), args.repeat)
    seconds["shapely, one STRtree query"] = s
    matrices["shapely"] = answer["cover"]

    couples = 4 * pairs * len(blocking_walls(scene))
    if couples <= args.floor_max_couples:
        s, answer = timed(lambda: numpy_floor.cover_matrix(scene), args.repeat)
        seconds["numpy floor"] = s
        matrices["numpy floor"] = answer["cover"]
    else:
        notes["numpy floor"] = f"{couples:.2g} line-wall couples > --floor-max-couples"

    http = matrices.pop("Sightline, HTTP", None)
    same_http = None if http is None else http == sightline
    diffs = {p: agreement.differences(sightline, m) for p, m in matrices.items()}
    chosen = sorted({q for d in diffs.values() for q in agreement.sample_pairs(d, args.sample)})
    reasons = dict(zip(chosen, agreement.classify(scene, built, sightline, chosen), strict=True))
    agree = {p: agreement.summary(sightline, m, reasons, args.sample) for p, m in matrices.items()}
    first = next(iter(matrices.values()), None)
    return {
        "walls": w,
        "tokens": n,
        "pairs": pairs,
        "seconds": seconds,
        "us_per_pair": {k: None if v is None else 1e6 * v / pairs for k, v in seconds.items()},
        "notes": notes,
        "http_matrix_equals_in_process": same_http,
        "peers_agree_with_each_other": all(m == first for m in matrices.values()),
        "agreement": agree,
    }


def markdown(rows: list[dict[str, Any]]) -> str:
    """The time table and the agreement table."""
    head = " | ".join(f"{r['walls']:,} walls × {r['tokens']} tokens" for r in rows)
    out = [f"| per pair | {head} |", "|---" * (len(rows) + 1) + "|"]
    labels = dict.fromkeys([*(k for r in rows for k in r["us_per_pair"]), "numpy floor"])
    for label in labels:
        cells = []
        for r in rows:
            us = r["us_per_pair"].get(label)
            cells.append(f"{us:,.1f} µs" if us is not None else "—")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", f"| pairs differing from Sightline | {head} |", "|---" * (len(rows) + 1) + "|"]
    for peer in PEERS:
        cells = []
        for r in rows:
            a = r["agreement"].get(peer)
            cells.append("—" if a is None else f"{a['differ']:,} of {a['pairs']:,}")
        out.append(f"| {peer} | " + " | ".join(cells) + " |")
    for r in rows:
        out += ["", f"Why, {r['walls']:,} × {r['tokens']}:"]
        for peer, a in r["agreement"].items():
            shifts = ", ".join(f"{k} {v}" for k, v in a["shifts"].items()) or "none"
            out.append(f"- {peer}: shifts (Sightline -> peer) {shifts}")
            for reason, count in a["reasons"].items():
                out.append(f"  - {count} of {a['sampled']} sampled: {reason}")
        for peer, why in r["notes"].items():
            out.append(f"- {peer}: not measured ({why})")
        same = r["http_matrix_equals_in_process"]
        out.append(
            f"- HTTP matrix = in-process: {'not measured' if same is None else same};"
            f" peers agree with each other: {r['peers_agree_with_each_other']}"
        )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per measure (median)")
    ap.add_argument("--quick", action="store_true", help="2,000 × 50 only")
    ap.add_argument("--no-http", action="store_true", help="leave out the gunicorn measure")
    ap.add_argument("--sample", type=int, default=100, help="differing pairs explained per peer")
    ap.add_argument("--floor-max-couples", type=float, default=3e8)
    args = ap.parse_args()
    js_why = js_missing()
    if js_why:
        print(f"JS peer left out: {js_why}", flush=True)
    sizes = SIZES[:1] if args.quick else SIZES
    proc, url = (None, None) if args.no_http else start_server()
    rows = []
    try:
        for w, n in sizes:
            rows.append(measure(w, n, url, args, js_why))
            print(
                f"{w} x {n}: "
                + ", ".join(f"{k} {v:,.1f} µs" for k, v in rows[-1]["us_per_pair"].items()),
                flush=True,
            )
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
    out = {"cores": os.cpu_count(), "load_average": os.getloadavg(), "sizes": rows}
    print()
    print(markdown(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
