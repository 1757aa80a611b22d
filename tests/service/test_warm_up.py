"""gunicorn's master compiles every compiled step before forking (docs/architecture.md).

``trace.warm_up`` and ``exact.warm_up`` run in the master (``gunicorn.conf.py``); a worker
that then meets a compiled function with no compiled signature would compile it on a
request: seconds of that request, and memory every worker keeps. Each kind of request
(cover, vision and matrices of the three rulesets, line of effect) must compile nothing
new after the warm-up. Checked in a fresh process (in this one, earlier tests have
compiled everything already).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json
from bench.dungeon import dungeon
from service.app import create_app
from service.geometry import (
    cells, compiled, creature_tests, exact, firm, junctions, obstacles, rooms, trace, walk,
    wall_tests,
)


def signatures():
    out = {}
    modules = (compiled, walk, wall_tests, creature_tests, junctions, obstacles, rooms, cells)
    modules += (exact, firm)
    for module in modules:
        for name in dir(module):
            f = getattr(module, name)
            if hasattr(f, "signatures") and hasattr(f, "py_func"):
                out[module.__name__ + "." + name] = len(f.signatures)
    return out


trace.warm_up()
exact.warm_up()
before = signatures()
client = create_app({"TESTING": False}).test_client()
scene = {"scene": dungeon(300, 12, seed=1)}
sid = client.post("/v1/scenes", json=scene).get_json()["scene_id"]
codes = []
for ruleset in ("dnd5e", "starfinder", "pf2e-variant"):
    for kind in ("cover", "vision"):
        body = {"ruleset": ruleset, "kind": kind, "scene_id": sid}
        codes.append(client.post("/v1/matrix", json=body).status_code)
    one = {"ruleset": ruleset, "scene_id": sid}
    cover = {**one, "attacker": "t0", "targets": ["t1"]}
    vision = {**one, "observer": "t0", "targets": ["t1"]}
    codes.append(client.post("/v1/cover", json=cover).status_code)
    codes.append(client.post("/v1/vision", json=vision).status_code)
line = {"scene_id": sid, "from": "t0", "to": "t3"}
codes.append(client.post("/v1/line-of-effect", json=line).status_code)
after = signatures()
compiled = {k: n for k, n in after.items() if before.get(k) != n}
print(json.dumps({"codes": codes, "compiled": compiled}))
"""


def test_no_request_compiles_after_the_warm_up():
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(got["codes"]) == {200}
    assert got["compiled"] == {}
