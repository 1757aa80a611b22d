"""The cost model against what the work costs: ``python -m bench.calibrate``.

For each kind (cover for each ruleset, line of effect, vision, lighting) on each scene
family (``bench``: ``bench.dungeon.dungeon``; ``rooms``: ``bench.dungeon.door_rooms``, one
door a room and an open edge; ``random``: ``bench.dungeon.random_scene``; ``real``: each
export in ``$SIGHTLINE_SHARED/scenes/real`` with probe tokens added up to ``--tokens``), it
runs the request in this process with an unbounded work budget and records:

- ``est``: what the cost model foresees before the work (the largest ``used + units`` that
  ``WorkBudget.afford`` was asked for on the request's budget: what a refusal compares);
- ``spent``: the units the steps counted while working (``WorkBudget.spend``);
- ``terms`` (in ``--json``): what each step counted, by its function (``_trace_walls``: the
  trace's line-wall tests; ``surely_blocked``: the firm walk's; ``search_many``/``alone``:
  ``SEARCH_UNITS`` per search; ``spend``: the searches' tests), for fitting each term;
- ``est/time``: ``est`` against the request's CPU seconds at ``UNIT_US`` per unit
  (``service.engine.budget.UNIT_SECONDS``: the default ``SIGHTLINE_WORK_BUDGET`` of
  6,000,000 units is then about 1.6 s of work).

A row within 0.5-2 on ``est/time`` is calibrated: the default budget refuses it when it
would pass about 1.6 s of work, and what it lets through ends within about 3 s. Nothing is
asserted; ``tests/engine/test_work_budget.py`` holds the model's terms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from bench.dungeon import door_rooms, dungeon, random_scene
from service.engine.budget import UNIT_SECONDS

#: Microseconds of work one budget unit stands for.
UNIT_US = UNIT_SECONDS * 1e6
KINDS = ("cover:dnd5e", "cover:starfinder", "cover:pf2e-variant", "line-of-effect", "vision",
         "lighting")  # fmt: skip
SHARED = Path(os.environ.get("SIGHTLINE_SHARED", Path(__file__).resolve().parents[2] / "shared"))


class Recorder:
    """Every ``afford`` and ``spend`` on a request's (root) budget, by the calling step."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.root: Any = None
        self.est = 0.0
        self.spent: dict[str, float] = defaultdict(float)
        self.tests_est = 0.0

    def install(self) -> None:
        import service.api as api
        from service.engine import budget
        from service.geometry import exact, measure, walk

        rec = self
        afford, spend = budget.WorkBudget.afford, budget.WorkBudget.spend
        bounded, made = budget.WorkBudget.afford_bounded, api.request_budget

        def request_budget() -> Any:
            rec.root = made()
            return rec.root

        def afford_rec(self: Any, units: float) -> None:
            if self is rec.root:
                rec.est = max(rec.est, self.used + units)
            afford(self, units)

        def spend_rec(self: Any, units: int) -> None:
            if self is rec.root:
                rec.spent[sys._getframe(1).f_code.co_name] += units
            spend(self, units)

        def bounded_rec(self: Any, upper: float, estimate: Any) -> None:
            if self is rec.root and not self.foreseen:  # the estimate, though the bound fits
                rec.est = max(rec.est, self.used + estimate())
            bounded(self, upper, estimate)

        api.request_budget = request_budget  # type: ignore[assignment]
        budget.WorkBudget.afford = afford_rec  # type: ignore[method-assign]
        budget.WorkBudget.spend = spend_rec  # type: ignore[method-assign]
        budget.WorkBudget.afford_bounded = bounded_rec  # type: ignore[method-assign]
        inner = walk.estimate_tests

        def estimate_rec(density: Any, seg: Any) -> float:
            value = inner(density, seg)
            rec.tests_est += value
            return value

        for module in (measure, exact):
            module.estimate_tests = estimate_rec  # type: ignore[attr-defined]
        import service.lighting as lighting

        lighting.estimate_tests = estimate_rec  # type: ignore[attr-defined]

    def tests_counted(self) -> float:
        """Line-wall tests the kernels counted (the trace, the firm walk, the searches)."""
        return sum(v for k, v in self.spent.items() if k not in _OWN_WORK)


#: Spends that are a step's own work, not line-wall tests (``service.engine.budget``).
_OWN_WORK = {"_spend_pair_units", "search_one", "__call__", "search"}


def with_probes(scene: dict[str, Any], n: int, seed: int = 1) -> dict[str, Any]:
    """``scene`` with 1-square probe tokens at random squares added up to ``n`` tokens."""
    rng = random.Random(seed)
    size = float(scene["grid"].get("size", 100))
    walls = np.array([w["c"] for w in scene.get("walls", [])] or [[0, 0, 1000, 1000]], float)
    x0, y0 = walls[:, [0, 2]].min(), walls[:, [1, 3]].min()
    x1, y1 = walls[:, [0, 2]].max(), walls[:, [1, 3]].max()
    tokens = list(scene.get("tokens", []))[:n]
    while len(tokens) < n:
        x = x0 + size * rng.randrange(max(1, int((x1 - x0) // size)))
        y = y0 + size * rng.randrange(max(1, int((y1 - y0) // size)))
        tokens.append({"id": f"probe{len(tokens)}", "x": x, "y": y, "width": 1, "height": 1})
    return {**scene, "tokens": tokens}


def _with_lights(scene: dict[str, Any], n: int = 20, seed: int = 2) -> dict[str, Any]:
    if scene.get("lights"):
        return scene
    rng = random.Random(seed)
    walls = np.array([w["c"] for w in scene["walls"]], float)
    span = walls.max() if len(walls) else 2000.0
    lights = [{"id": f"l{k}", "x": rng.uniform(0, span), "y": rng.uniform(0, span),
               "bright": 20, "dim": 40} for k in range(n)]  # fmt: skip
    return {**scene, "lights": lights, "environment": {"light": "dark"}}


def scenes(tokens: int, real: list[str] | None) -> list[tuple[str, dict[str, Any]]]:
    """The scene families, each scene with ``tokens`` tokens (probes on the real ones)."""
    out = [
        ("bench 5000w", dungeon(5000, tokens, seed=1)),
        ("rooms 12x12", door_rooms(12, tokens, seed=1)),
        ("random 2000w", random_scene(2000, tokens, seed=1)),
        ("big 20000w", dungeon(20000, 2 * tokens, seed=1)),
    ]
    from adapters.detect import parse_text, to_scene

    root = SHARED / "scenes" / "real"
    for path in sorted(root.glob("*/*")) if root.exists() else []:
        if path.suffix not in (".json", ".dd2vtt") or (
            real and not any(r in path.name for r in real)
        ):
            continue
        export = parse_text(path.read_text(encoding="utf-8"))
        scene = to_scene(export)["scene"]
        out.append((path.stem[:34], with_probes(scene, tokens)))
    return out


def run_kind(app: Any, client: Any, rec: Recorder, sid: str, kind: str) -> dict[str, Any]:
    """One request of ``kind`` on the uploaded scene ``sid``: status, seconds and counts."""
    rec.reset()
    start = time.process_time()
    if kind == "line-of-effect":
        from service.errors import OverBudget

        try:
            status: Any = _lines_of_effect(app, sid)
        except OverBudget as exc:
            status = f"422 {str(exc)[-40:]}"
    else:
        if kind.startswith("cover:"):
            path, body = "/v1/matrix", {"ruleset": kind[6:], "scene_id": sid, "kind": "cover"}
        elif kind == "vision":
            path, body = "/v1/matrix", {"ruleset": "dnd5e", "scene_id": sid, "kind": "vision"}
        else:
            built = app.extensions["sightline_cache"].get(sid)
            rng = random.Random(3)
            box = np.array(list(built.token_boxes.values()))
            x1, y1 = float(box[:, 2].max()), float(box[:, 3].max())
            points = [[rng.uniform(0, x1), rng.uniform(0, y1)] for _ in range(100)]
            tokens = [t.id for t in built.scene.tokens]
            path, body = "/v1/lighting", {"scene_id": sid, "points": points, "tokens": tokens}
        resp = client.post(path, data=json.dumps(body), content_type="application/json")
        status = resp.status_code
        if status != 200:
            status = f"{status} {resp.get_json().get('message', '')[:60]}"
    seconds = time.process_time() - start
    return {
        "kind": kind,
        "status": status,
        "seconds": seconds,
        "est": rec.est,
        "spent": sum(rec.spent.values()),
        "tests_est": rec.tests_est,
        "tests": rec.tests_counted(),
        "terms": dict(rec.spent),
    }


def _lines_of_effect(app: Any, sid: str) -> int:
    """Every ordered pair's exact line of effect (5E-LOE-2) in one call, as matrices ask."""
    import service.api as api
    from service.geometry.exact import lines_of_effect

    built = app.extensions["sightline_cache"].get(sid)
    ids = [t.id for t in built.scene.tokens]
    pairs = [(a, b) for a in ids for b in ids if a != b]
    bf = np.array([built.token_boxes[a] for a, _ in pairs], dtype=np.float64)
    bt = np.array([built.token_boxes[b] for _, b in pairs], dtype=np.float64)
    with app.app_context():
        budget = api.request_budget()

        def run(rows: Any, trial: Any) -> float:
            lines_of_effect(built.walls, bf[rows], bt[rows], budget=trial,
                            density=built.density, blockers=False)  # fmt: skip
            return 0.0

        budget.foresee(len(pairs), run)  # as the matrices' callers do (``rules.ask``)
        lines_of_effect(built.walls, bf, bt, budget=budget, density=built.density,
                        blockers=False)  # fmt: skip
    return 200


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=100)
    ap.add_argument("--real", action="append", help="only real exports whose name has this")
    ap.add_argument("--kind", action="append", choices=KINDS)
    ap.add_argument("--family", action="append", help="only scenes whose name starts so")
    ap.add_argument("--json", type=Path, help="also write the rows here")
    args = ap.parse_args()
    from service.app import create_app
    from service.geometry import exact, trace

    trace.warm_up()
    exact.warm_up()
    rec = Recorder()
    rec.install()
    app = create_app(
        {"TESTING": False, "WORK_BUDGET": 10**12, "REQUEST_TIMEOUT": 600, "WORKER_TIMEOUT": 900}
    )
    client = app.test_client()
    rows = []
    print(f"{'scene':<35}{'kind':<20}{'pairs':>6}{'s':>7}{'est/time':>9}{'est/spent':>10}"
          "  status")  # fmt: skip
    for name, scene in scenes(args.tokens, args.real):
        if args.family and not any(name.startswith(f) for f in args.family):
            continue
        scene = _with_lights(scene)
        resp = client.post("/v1/scenes", data=json.dumps({"scene": scene}),
                           content_type="application/json")  # fmt: skip
        if resp.status_code not in (200, 201):
            print(f"{name:<35} upload {resp.status_code} {resp.get_json()}")
            continue
        sid = resp.get_json()["scene_id"]
        n = len(scene["tokens"])
        for kind in args.kind or KINDS:
            row = run_kind(app, client, rec, sid, kind)
            row.update(scene=name, pairs=n * (n - 1))
            rows.append(row)
            work = row["seconds"] * 1e6 / UNIT_US
            print(f"{name:<35}{kind:<20}{row['pairs']:>6}{row['seconds']:>7.2f}"
                  f"{row['est'] / work:>9.2f}{row['est'] / max(row['spent'], 1):>10.2f}"
                  f"  {row['status']}",
                  flush=True)  # fmt: skip
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
