"""Where the exact line-of-effect search spends a matrix's time on real maps (issue 34).

``python -m bench.exact [--repeat N] [--tokens N] [--scene SUBSTRING ...] [--all]
[--every-kind]``: for each real export (the Lancer crashed ship, Redbrand Hideout and Tomb of
Horrors by default; ``--all``: every export in ``scenes/real``), its own tokens topped up with
a lattice of one-square probe tokens to ``--tokens`` (100), in one process
(``app.test_client()``, the work budget raised so nothing is refused):

- the median CPU time (``time.process_time``: this process only, steadier than the wall
  clock on a shared machine) of ``POST /v1/matrix`` for Starfinder cover, dnd5e vision and dnd5e
  cover (``--every-kind``: the cover and vision of all three rulesets), and each one's ratio
  to dnd5e cover in the same run;
- the share of it spent in the exact search (``search.search_many``), and the searches run;
- at the end, how many (scene, kind) cells are over 2x dnd5e cover, and the worst.

Nothing is asserted; the numbers are printed (``--json`` writes them too). The scenes are
read in place from ``$SIGHTLINE_SHARED/scenes/real`` (``../shared`` by default).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from unittest.mock import patch

ROOT = Path(__file__).resolve().parent.parent
SCENES = (
    "foundry/foundry-v10-lancer-crashed-ship-hex-heights.json",
    "foundry/foundry-v9-fa-redbrand-hideout.json",
    "roll20/roll20-betteR20-module-tomb-of-horrors.json",
)
KINDS = (("starfinder", "cover"), ("dnd5e", "vision"), ("dnd5e", "cover"))
EVERY_KIND = (
    ("starfinder", "cover"),
    ("pf2e-variant", "cover"),
    ("dnd5e", "vision"),
    ("starfinder", "vision"),
    ("pf2e-variant", "vision"),
    ("dnd5e", "cover"),
)
#: The exports ``--all`` reads (the scene files of ``scenes/real``, not its notes).
EXPORT_SUFFIXES = (".json", ".dd2vtt", ".uvtt", ".df2vtt")


def shared_dir() -> Path:
    """``$SIGHTLINE_SHARED``, or ``../shared`` beside the checkout."""
    return Path(os.environ.get("SIGHTLINE_SHARED", ROOT.parent.parent / "shared"))


def with_probes(scene: dict[str, Any], tokens: int) -> dict[str, Any]:
    """``scene`` with its own tokens (at most ``tokens``) and probes up to ``tokens``.

    The probes: one-square tokens on a square lattice over the walls' extent, snapped to the
    grid, one every seventh two squares wide (as ``tests/golden/answers.py``'s probes).
    """
    size = float(scene["grid"]["size"])
    own = list(scene.get("tokens", []))[:tokens]
    need = tokens - len(own)
    xs = [c for w in scene["walls"] for c in (w["c"][0], w["c"][2])] or [0.0, size * 10]
    ys = [c for w in scene["walls"] for c in (w["c"][1], w["c"][3])] or [0.0, size * 10]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    side = 1
    while side * side < need:
        side += 1
    probes = []
    for k in range(need):
        i, j = divmod(k, side)
        x = x0 + (x1 - x0) * (i + 0.5) / side
        y = y0 + (y1 - y0) * (j + 0.5) / side
        w = 2 if k % 7 == 3 else 1
        probes.append(
            {
                "id": f"probe-{k}",
                "name": f"probe {k}",
                "x": round(x / size) * size,
                "y": round(y / size) * size,
                "width": w,
                "height": w,
            }
        )
    return dict(scene, tokens=own + probes)


class _SearchClock:
    """Time and searches spent in ``search.search_many`` (wrapped where ``exact`` calls it)."""

    def __init__(self, real: Any) -> None:
        self.real, self.seconds, self.searches = real, 0.0, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return self.real(*args, **kwargs)
        finally:
            self.seconds += time.process_time() - start
            self.searches += len(args[1])


def measure(client: Any, sid: str, ruleset: str, kind: str, repeat: int) -> dict[str, Any]:
    """Median seconds of one matrix, its status, and its exact search's share."""
    from service.geometry import exact

    times, shares, status, searches = [], [], 0, 0
    for _ in range(repeat):
        clock = _SearchClock(exact.search_many)
        with patch.object(exact, "search_many", clock):
            start = time.process_time()
            resp = client.post(
                "/v1/matrix", json={"ruleset": ruleset, "scene_id": sid, "kind": kind}
            )
            took = time.process_time() - start
        status = resp.status_code
        times.append(took)
        shares.append(clock.seconds / took)
        searches = clock.searches
    return {
        "status": status,
        "median_s": statistics.median(times),
        "search_share": statistics.median(shares),
        "searches": searches,
    }


def main(argv: list[str] | None = None) -> int:
    """Print the table (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=100)
    parser.add_argument("--scene", action="append", help="substring of a scene's path")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--all", action="store_true", help="every export in scenes/real")
    parser.add_argument("--every-kind", action="store_true", help="all rulesets' cover, vision")
    args = parser.parse_args(argv)
    kinds = EVERY_KIND if args.every_kind else KINDS
    from adapters import detect
    from service.app import create_app

    real = shared_dir() / "scenes" / "real"
    if not real.exists():
        print(f"{real} is missing (set SIGHTLINE_SHARED)", file=sys.stderr)
        return 2
    every = sorted(str(p.relative_to(real)) for p in real.rglob("*") if p.suffix in EXPORT_SUFFIXES)
    paths = [
        p
        for p in (every if args.all else SCENES)
        if not args.scene or any(s in p for s in args.scene)
    ]
    client = create_app(
        {
            "TESTING": False,
            "WORK_BUDGET": 10**11,
            "PRELOAD_SAMPLE": False,
            "REQUEST_TIMEOUT": 3000,
            "WORKER_TIMEOUT": 3600,
        }
    ).test_client()
    rows = []
    for rel in paths:
        scene = detect.to_scene(json.loads((real / rel).read_text(encoding="utf-8")))["scene"]
        scene = with_probes(scene, args.tokens)
        up = client.post("/v1/scenes", json={"scene": scene})
        sid = up.get_json()["scene_id"]
        for ruleset, kind in kinds:  # one warm-up request each (rooms, caches)
            client.post("/v1/matrix", json={"ruleset": ruleset, "scene_id": sid, "kind": kind})
        got = {f"{r} {k}": measure(client, sid, r, k, args.repeat) for r, k in kinds}
        base = got["dnd5e cover"]["median_s"]
        name = Path(rel).stem
        print(f"{name}: {len(scene['walls'])} walls, {len(scene['tokens'])} tokens")
        for label, m in got.items():
            m["ratio"] = m["median_s"] / base
            print(
                f"  {label:17s} {m['status']} {m['median_s'] * 1000:8.1f} ms  "
                f"x{m['ratio']:5.2f} dnd5e cover  search {m['search_share']:5.1%} "
                f"({m['searches']} searches)"
            )
        rows.append({"scene": name, "walls": len(scene["walls"]), "kinds": got})
    cells = [(m["ratio"], r["scene"], k) for r in rows for k, m in r["kinds"].items()]
    cells = [c for c in cells if c[2] != "dnd5e cover"]
    if cells:
        worst = max(cells)
        over = sum(1 for c in cells if c[0] > 2)
        print(f"{over} of {len(cells)} cells over 2x dnd5e cover;", end=" ")
        print(f"worst x{worst[0]:.2f}: {worst[1]}, {worst[2]}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
