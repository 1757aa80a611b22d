"""Live scenes bench (docs/decisions.md "Live scenes"), run by hand: ``python -m bench.live``.

A 20,000-wall dungeon (``bench.dungeon``) with 50 tokens and 20 lights, served by gunicorn
with two workers and no Redis (the workers share the SQLite scene file). For each kind of
change (a token move, a door opening, a light switched off: the issue's three; and a door
closing, which polygonizes the rooms it splits), medians over ``--rounds`` distinct
changes, each on the id the previous one answered (as a table goes):

- ``patch_then_cover``: ``PATCH /v1/scenes/{id}`` with the change, then ``POST /v1/cover`` by
  the id it answered (either worker may take either request);
- ``inline_cover``: ``POST /v1/cover`` carrying the whole changed scene (a client that
  re-sends the scene), on this checkout and, with ``--today PATH``, on another checkout
  served the same way (``git worktree add /tmp/main main``: what a re-upload costs there);
- the change body's bytes, against the whole scene's;
- ``idle_floor``: two ``GET /healthz`` on the live server after the same settle, timed
  like the ``PATCH`` and its cover: what any two requests cost on this machine after it
  sat idle (waking the processes and their caches), whatever they ask. Its share of the
  inline cover is the part of the 5 % the service's own work cannot take back.

The servers run side by side and each round visits them in turn (a shared machine's load
drifts: both sides of a ratio see the same), :data:`SETTLE_S` apart.

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
KINDS = ("token move", "door opening", "light off", "door closing")
#: Seconds between two timed steps: what a server does after it answered (freeing the
#: scene an inline cover built, its allocator trimming) ends before the next step starts.
SETTLE_S = 0.3


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
    if kind in ("door opening", "door closing"):
        was, now = ("closed", "open") if kind == "door opening" else ("open", "closed")
        doors = [w["id"] for w in base["walls"] if w.get("door") and w.get("door_state") == was]
        return [{"walls": {doors[k]: {"door_state": now}}} for k in range(rounds)]
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


def _post_json(s: requests.Session, url: str, body: str) -> requests.Response:
    headers = {"Content-Type": "application/json"}
    return s.post(url, data=body, timeout=300, headers=headers)


class Live:
    """A table on one server: the scene uploaded once, then each change as ``PATCH`` + cover."""

    def __init__(self, url: str, base: dict[str, Any]) -> None:
        self.url, self.s = url, requests.Session()
        whole = json.dumps({"scene": base})
        self.scene_bytes = len(whole)
        self.sid = _post_json(self.s, url + "/v1/scenes", whole).json()["scene_id"]
        for _ in range(6):  # both workers hold the scene (each built it once, from the file)
            self.cover().raise_for_status()

    def cover(self) -> requests.Response:
        return self.s.post(self.url + "/v1/cover", json=query(scene_id=self.sid), timeout=300)

    def idle_pair(self) -> float:
        """Two ``GET /healthz`` back to back (s), as a ``PATCH`` and its cover are sent."""
        t0 = time.perf_counter()
        for _ in range(2):
            self.s.get(self.url + "/healthz", timeout=300).raise_for_status()
        return time.perf_counter() - t0

    def step(self, change: dict[str, Any]) -> tuple[float, float, int]:
        """``PATCH`` then cover by the id it answers: (both s, the PATCH's s, body bytes)."""
        body = json.dumps(change)
        url = f"{self.url}/v1/scenes/{self.sid}"
        t_patch, resp = timed(
            lambda: self.s.patch(
                url, data=body, timeout=300, headers={"Content-Type": "application/json"}
            )
        )
        self.sid = resp.json()["scene_id"]
        t_cover, _ = timed(self.cover)
        return t_patch + t_cover, t_patch, len(body)


class Inline:
    """Covers carrying the whole changed scene on one server (a client that re-sends it)."""

    def __init__(self, url: str, base: dict[str, Any]) -> None:
        self.url, self.s, self.base = url, requests.Session(), base
        _post_json(self.s, url + "/v1/cover", json.dumps(query(scene=base))).raise_for_status()

    def step(self, change: dict[str, Any]) -> float:
        body = json.dumps(query(scene=applied(self.base, change)))
        return timed(lambda: _post_json(self.s, self.url + "/v1/cover", body))[0]


def measure(urls: dict[str, str], base: dict[str, Any], rounds: int) -> dict[str, Any]:
    """Every kind of change, round by round on each server in turn (``urls``: ``live``,
    ``inline_here`` and perhaps ``inline_today``), so that a machine whose load drifts
    slows both sides of a ratio alike. Medians in ms; the largest change body in bytes."""
    live = Live(urls["live"], base)
    inline = {name: Inline(url, base) for name, url in urls.items() if name != "live"}
    out: dict[str, Any] = {"live": {"scene_bytes": live.scene_bytes}}
    out |= {f"{name}_ms": {} for name in inline}
    for kind in KINDS:
        times: dict[str, list[float]] = {"both": [], "patch": [], "floor": []}
        times |= {name: [] for name in inline}
        sizes = []
        for change in changes(base, kind, rounds):
            time.sleep(SETTLE_S)
            both, patch, size = live.step(change)
            times["both"].append(both)
            times["patch"].append(patch)
            sizes.append(size)
            time.sleep(SETTLE_S)
            times["floor"].append(live.idle_pair())
            for name, server in inline.items():
                time.sleep(SETTLE_S)
                times[name].append(server.step(change))
        ms = {k: round(1000 * statistics.median(v), 1) for k, v in times.items()}
        row = {"patch_then_cover_ms": ms["both"], "patch_ms": ms["patch"]}
        row["idle_floor_ms"] = ms["floor"]
        row["change_bytes"] = max(sizes)
        for name in inline:
            out[f"{name}_ms"][kind] = ms[name]
            row[f"ratio_to_{name}"] = round(ms["both"] / ms[name], 4)
            row[f"floor_ratio_to_{name}"] = round(ms["floor"] / ms[name], 4)
        out["live"][kind] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--today", type=Path, help="another checkout to measure inline covers on")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    base = scene()
    result: dict[str, Any] = {"walls": WALLS, "tokens": TOKENS, "lights": LIGHTS}
    roots = {"live": servers.ROOT, "inline_here": servers.ROOT}
    if args.today is not None:
        roots["inline_today"] = args.today
    procs, urls = [], {}
    try:
        for name, root in roots.items():
            proc, urls[name] = servers.start_gunicorn(
                {"SIGHTLINE_WORKERS": "2"}, root=root, wait=300
            )
            procs.append(proc)
        result |= measure(urls, base, args.rounds)
    finally:
        for proc in procs:
            servers.stop(proc)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
