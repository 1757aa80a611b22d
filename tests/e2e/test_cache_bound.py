"""45 distinct lattice scenes, each asked once, keep a real gunicorn worker's RSS flat.

Each scene (15 kB of JSON, 150 by 150 crossing walls) closes 22,201 rooms, about 10 MB that
its queries build after it is cached; without counting them (``service.cache_size.lazy_bytes``)
the worker grew by about 11 MB a scene (issue's report: 107 to 1,030 MB over 45 scenes).
Marked slow (about a minute): ``pytest -m slow tests/e2e/test_cache_bound.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from bench import servers
from bench.worst import lattice

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BOUND_MB = 64
SCENES = 45
#: What a worker may hold past the cache's bound: its code, one request's work, the allocator.
HEADROOM_MB = 300


def _rss_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * 4096 / 2**20


def _worker_pid(master: int) -> int:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def test_lattice_scenes_keep_the_worker_under_the_bound(tmp_path):
    env = {"SIGHTLINE_WORKERS": "1", "SIGHTLINE_SCENE_CACHE_MAX_MB": str(BOUND_MB),
           "SIGHTLINE_SCENE_FILE": "off"}  # fmt: skip
    proc, url = servers.start_gunicorn(env, tmp_path / "gunicorn.log")
    try:
        pid = _worker_pid(proc.pid)
        requests.post(url + "/v1/cover", json={"ruleset": "dnd5e", "scene_id": "sample",
                                                "attacker": "archer", "targets": ["goblin"]},
                      timeout=30)  # fmt: skip
        start = _rss_mb(pid)
        peak = start
        for k in range(SCENES):
            resp = requests.post(url + "/v1/scenes", json={"scene": lattice(seed=k)}, timeout=60)
            assert resp.status_code == 200, resp.text[:300]
            sid = resp.json()["scene_id"]
            for path, body in (
                ("/v1/matrix", {"ruleset": "dnd5e", "scene_id": sid, "kind": "cover"}),
                ("/v1/vision", {"ruleset": "dnd5e", "scene_id": sid, "observer": "a",
                                "targets": ["b"]}),
            ):  # fmt: skip
                assert requests.post(url + path, json=body, timeout=60).status_code == 200
            peak = max(peak, _rss_mb(pid))
        assert _worker_pid(proc.pid) == pid  # never replaced
        print(f"worker RSS: {start:.0f} MB at start, {peak:.0f} MB at most over {SCENES} scenes")
        assert peak - start < BOUND_MB + HEADROOM_MB, (start, peak)
    finally:
        servers.stop(proc)
