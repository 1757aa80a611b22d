"""Live scenes bench (docs/decisions.md "Live scenes"), run by hand: ``python -m bench.live``.

A 20,000-wall dungeon (``bench.dungeon``) with 50 tokens and 20 lights, served by gunicorn
with two workers and no Redis (the workers share the SQLite scene file). For each kind of
change (a token move, a door opening, a light switched off), medians over ``--rounds``
distinct changes, each on the id the previous one answered (as a table goes):

- ``patch_then_cover``: ``PATCH /v1/scenes/{id}`` with the change, then ``POST /v1/cover`` by
  the id it answered (either worker may take either request);
- ``inline_cover``: ``POST /v1/cover`` carrying the whole changed scene (a client that
  re-sends the scene), on this checkout and, with ``--today PATH``, on another checkout
  served the same way (``git worktree add /tmp/main main``: what a re-upload costs there);
- the change body's bytes, against the whole scene's.

Goal: ``patch_then_cover`` at most 5 % of ``inline_cover`` and a change body under 2 kB.
Nothing is asserted; numbers are printed (and written as JSON with ``--json``).
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

from bench import servers
from bench.dungeon import dungeon

WALLS, TOKENS, LIGHTS = 20_000, 50, 20
TARGETS = 5


def scene() -> dict[str, Any]:
    """The bench scene: the dungeon, with lights in its rooms."""
    out = dungeon(WALLS, TOKENS, seed=7)
    out["lights"] = [
        {"id": f"l{k}", "x": 400 + 800 * k, "y": 400, "bright": 10, "dim": 20}
        for k in range(LIGHTS)
    ]
    return out


def changes(base: dict[str, Any], kind: str, rounds: int) -> list[dict[str, Any]]:
    """``rounds`` changes of ``kind``, each distinct (so each makes a new scene)."""
    if kind == "token move":
        return [{"tokens": {"t0": {"x": 100.0 * (k + 1), "y": 300.0}}} for k in range(rounds)]
    if kind == "door opening":
        doors = [w["id"] for w in base["walls"] if w.get("door_state") == "closed"]
        return [{"walls": {doors[k]: {"door_state": "open"}}} for k in range(rounds)]
    return [{"lights": {f"l{k}": {"on": False}}} for k in range(rounds)]


def applied(scene_: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """``scene_`` with ``change`` merged in (every change here edits existing items)."""
    out = copy.deepcopy(scene_)
    for kind, edits in change.items():
        for item in out[kind]:
            if item["id"] in edits:
                item.update(edits[item["id"]])
    return out


def timed(send: Callable[[], requests.Response]) -> tuple[float, requests.Response]:
    t0 = time.perf_counter()
    resp = send()
    elapsed = time.perf_counter() - t0
    resp.raise_for_status()
    return elapsed, resp


def query(**where: Any) -> dict[str, Any]:
    targets = [f"t{k}" for k in range(1, TARGETS + 1)]
    return {"ruleset": "dnd5e", "attacker": "t0", "targets": targets, **where}


def measure_live(url: str, base: dict[str, Any], rounds: int) -> dict[str, Any]:
    """Per kind of change: PATCH + cover by the new id, and the body sizes."""
    s = requests.Session()
    whole = json.dumps({"scene": base})
    sid = s.post(
        url + "/v1/scenes", data=whole, timeout=300, headers={"Content-Type": "application/json"}
    ).json()["scene_id"]
    for _ in range(6):  # both workers hold the scene (each built it once, from the file)
        s.post(url + "/v1/cover", json=query(scene_id=sid), timeout=300).raise_for_status()
    out: dict[str, Any] = {"scene_bytes": len(whole)}
    for kind in ("token move", "door opening", "light off"):
        times, patch_ms, sizes = [], [], []
        for change in changes(base, kind, rounds):
            body = json.dumps(change)
            sizes.append(len(body))
            t_patch, resp = timed(
                lambda b=body, parent=sid: s.patch(
                    f"{url}/v1/scenes/{parent}",
                    data=b,
                    timeout=300,
                    headers={"Content-Type": "application/json"},
                )
            )
            sid = resp.json()["scene_id"]
            t_cover, _ = timed(
                lambda new=sid: s.post(url + "/v1/cover", json=query(scene_id=new), timeout=300)
            )
            times.append(t_patch + t_cover)
            patch_ms.append(t_patch)
        out[kind] = {
            "patch_then_cover_ms": round(1000 * statistics.median(times), 1),
            "patch_ms": round(1000 * statistics.median(patch_ms), 1),
            "change_bytes": max(sizes),
        }
    return out


def measure_inline(url: str, base: dict[str, Any], rounds: int) -> dict[str, float]:
    """Per kind of change: an inline cover carrying the whole changed scene, median ms."""
    s = requests.Session()
    s.post(url + "/v1/cover", json=query(scene=base), timeout=300).raise_for_status()
    out = {}
    for kind in ("token move", "door opening", "light off"):
        times = []
        for change in changes(base, kind, rounds):
            body = json.dumps(query(scene=applied(base, change)))
            t, _ = timed(
                lambda b=body: s.post(
                    url + "/v1/cover",
                    data=b,
                    timeout=300,
                    headers={"Content-Type": "application/json"},
                )
            )
            times.append(t)
        out[kind] = round(1000 * statistics.median(times), 1)
    return out


def serve(root: Path, measure: Callable[[str], Any]) -> Any:
    proc, url = servers.start_gunicorn({"SIGHTLINE_WORKERS": "2"}, root=root, wait=300)
    try:
        return measure(url)
    finally:
        servers.stop(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--today", type=Path, help="another checkout to measure inline covers on")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    base = scene()
    result: dict[str, Any] = {"walls": WALLS, "tokens": TOKENS, "lights": LIGHTS}
    result["live"] = serve(servers.ROOT, lambda url: measure_live(url, base, args.rounds))
    result["inline_here_ms"] = serve(
        servers.ROOT, lambda url: measure_inline(url, base, args.rounds)
    )
    if args.today is not None:
        result["inline_today_ms"] = serve(
            args.today, lambda url: measure_inline(url, base, args.rounds)
        )
    for kind in ("token move", "door opening", "light off"):
        live = result["live"][kind]
        for where in ("inline_here_ms", "inline_today_ms"):
            if where in result:
                live[f"ratio_to_{where[:-3]}"] = round(
                    live["patch_then_cover_ms"] / result[where][kind], 4
                )
    text = json.dumps(result, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
