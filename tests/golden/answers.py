"""Golden answers: what the service answers today, recorded to hold refactors to it (issue 13).

``python -m tests.golden.answers`` records ``tests/golden/answers.json.gz`` from a running
in-process app; ``tests/golden/test_golden.py`` recomputes and compares field by field.

What is recorded (all through the HTTP layer, ``app.test_client()``):

- every case of ``../shared/cases/*.json``: status and whole JSON answer;
- for every real export in ``../shared/scenes/real/`` (the adapter's default scene or page),
  two token sets: its own tokens (the first ``MAX_TOKENS``) and a lattice of probe tokens
  laid over its walls; for each set and each ruleset, the cover and vision matrices, the
  whole ``/v1/cover`` and ``/v1/vision`` answers from the first token to the next
  ``FULL_TARGETS``, and ``/v1/lighting`` at the probes' centres.

Only answers are stored (ids, degrees, senses, traced lines): no export content.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
GOLDEN = ROOT / "answers.json.gz"
RULESETS = ("dnd5e", "starfinder", "pf2e-variant", "dnd2024", "pf2e")
MAX_TOKENS = 24
FULL_TARGETS = 6
LATTICE = 5


def shared_dir() -> Path:
    """``../shared`` beside the checkout, or ``SIGHTLINE_SHARED``."""
    import os

    return Path(os.environ.get("SIGHTLINE_SHARED", ROOT.parent.parent.parent / "shared"))


def _probes(scene: dict[str, Any]) -> list[dict[str, Any]]:
    """A LATTICE x LATTICE grid of one-square probe tokens over the walls' extent (px)."""
    size = float(scene["grid"]["size"])
    xs = [c for w in scene["walls"] for c in (w["c"][0], w["c"][2])]
    ys = [c for w in scene["walls"] for c in (w["c"][1], w["c"][3])]
    if not xs:
        xs, ys = [0.0, size * 10], [0.0, size * 10]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    out = []
    for i in range(LATTICE):
        for j in range(LATTICE):
            x = x0 + (x1 - x0) * (i + 0.5) / LATTICE
            y = y0 + (y1 - y0) * (j + 0.5) / LATTICE
            k = i * LATTICE + j
            token: dict[str, Any] = {
                "id": f"probe-{k}",
                "name": f"probe {k}",
                "x": round(x / size) * size,
                "y": round(y / size) * size,
                "width": 2 if k % 7 == 3 else 1,
                "height": 2 if k % 7 == 3 else 1,
            }
            if k % 3 == 1:
                token["senses"] = {"darkvision": 60}
            out.append(token)
    return out


def _post(client: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    resp = client.post(path, json=body)
    return {"status": resp.status_code, "json": resp.get_json()}


def _scene_answers(client: Any, scene: dict[str, Any]) -> dict[str, Any]:
    up = client.post("/v1/scenes", json={"scene": scene})
    if up.status_code != 200:
        return {"upload": {"status": up.status_code, "json": up.get_json()}}
    sid = up.get_json()["scene_id"]
    ids = [t["id"] for t in scene["tokens"]]
    out: dict[str, Any] = {}
    for rs in RULESETS:
        per: dict[str, Any] = {}
        if len(ids) >= 2:
            for kind in ("cover", "vision"):
                per[f"matrix-{kind}"] = _post(
                    client, "/v1/matrix", {"ruleset": rs, "scene_id": sid, "kind": kind}
                )
            first, rest = ids[0], ids[1 : 1 + FULL_TARGETS]
            per["cover"] = _post(
                client,
                "/v1/cover",
                {"ruleset": rs, "scene_id": sid, "attacker": first, "targets": rest},
            )
            per["vision"] = _post(
                client,
                "/v1/vision",
                {"ruleset": rs, "scene_id": sid, "observer": first, "targets": rest},
            )
        out[rs] = per
    size = float(scene["grid"]["size"])
    points = [[t["x"] + size / 2, t["y"] + size / 2] for t in _probes(scene)]
    out["lighting"] = _post(client, "/v1/lighting", {"scene_id": sid, "points": points})
    return out


def real_files(shared: Path) -> list[Path]:
    """The real exports, sorted (every format)."""
    real = shared / "scenes" / "real"
    return sorted(p for p in real.glob("*/*") if p.suffix in (".json", ".dd2vtt", ".uvtt"))


def _client() -> Any:
    from service.app import create_app

    return create_app({"TESTING": False}).test_client()


def compute(shared: Path, only: str | None = None) -> Iterator[tuple[str, Any]]:
    """``(key, answer)`` for every recorded question (or the one keyed ``only``), in order.

    Keys: ``case/<file>/<id>``, ``real/<file>/own``, ``real/<file>/probes``.
    """
    from adapters import detect

    client = _client()
    for case_file in sorted((shared / "cases").glob("*.json")):
        for case in json.loads(case_file.read_text(encoding="utf-8")):
            key = f"case/{case_file.name}/{case['id']}"
            if only in (None, key):
                yield key, _post(client, case["endpoint"], case["request"])
    for path in real_files(shared):
        keys = (f"real/{path.name}/own", f"real/{path.name}/probes")
        if only is not None and only not in keys:
            continue
        scene = detect.to_scene(json.loads(path.read_text(encoding="utf-8")))["scene"]
        own = dict(scene, tokens=scene["tokens"][:MAX_TOKENS])
        if own["tokens"] and only in (None, keys[0]):
            yield keys[0], _scene_answers(client, own)
        if only in (None, keys[1]):
            yield keys[1], _scene_answers(client, dict(scene, tokens=_probes(scene)))


def load() -> dict[str, Any]:
    """The recorded answers."""
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as fh:
        return json.load(fh)  # type: ignore[no-any-return]


def main() -> int:
    shared = shared_dir()
    if not shared.exists():
        print(f"{shared} is missing", file=sys.stderr)
        return 2
    answers = dict(compute(shared))
    text = json.dumps(answers, sort_keys=True, separators=(",", ":"))
    with gzip.GzipFile(GOLDEN, "wb", mtime=0) as fh:
        fh.write(text.encode("utf-8"))
    print(f"{len(answers)} answers, {GOLDEN.stat().st_size} bytes gz -> {GOLDEN}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
