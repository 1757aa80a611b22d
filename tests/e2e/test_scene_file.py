"""One gunicorn, two workers, no Redis: the workers share scenes through their SQLite file.

``gunicorn.conf.py`` names a file of the server's own in the runtime directory (here the
test's ``XDG_RUNTIME_DIR``) and removes it when gunicorn stops (``service.local_store``).
"""

from __future__ import annotations

import json

import pytest
import requests

from bench import servers
from bench.dungeon import dungeon

pytestmark = pytest.mark.e2e

TIMEOUT = 30


def scene(seed: int) -> dict:
    return json.loads(json.dumps(dungeon(300, 5, seed=seed)))


def by_id_statuses(url: str, sc: dict, sid: str, times: int) -> list[int]:
    ids = [t["id"] for t in sc["tokens"]]
    body = {"ruleset": "dnd5e", "attacker": ids[0], "targets": ids[1:], "scene_id": sid}
    return [
        requests.post(url + "/v1/cover", json=body, timeout=TIMEOUT).status_code
        for _ in range(times)
    ]


@pytest.fixture
def two_workers(tmp_path, monkeypatch):
    monkeypatch.delenv("SIGHTLINE_REDIS_URL", raising=False)
    monkeypatch.delenv("SIGHTLINE_SCENE_FILE", raising=False)
    env = {"SIGHTLINE_WORKERS": "2", "XDG_RUNTIME_DIR": str(tmp_path)}
    proc, url = servers.start_gunicorn(env, tmp_path / "gunicorn.log")
    try:
        yield proc, url, tmp_path
    finally:
        servers.stop(proc)


def test_an_id_uploaded_once_is_answered_by_every_worker(two_workers):
    proc, url, runtime = two_workers
    files = sorted(p.name for p in runtime.glob("sightline-*.scenes*"))
    assert f"sightline-{proc.pid}.scenes" in files, files
    sc = scene(11)
    up = requests.post(url + "/v1/scenes", json={"scene": sc}, timeout=TIMEOUT)
    assert up.status_code == 200
    statuses = by_id_statuses(url, sc, up.json()["scene_id"], 100)
    assert statuses.count(404) == 0 and set(statuses) == {200}, statuses
    inline = scene(12)  # an inline scene is shared too
    ids = [t["id"] for t in inline["tokens"]]
    body = {"ruleset": "dnd5e", "attacker": ids[0], "targets": ids[1:], "scene": inline}
    answer = requests.post(url + "/v1/cover", json=body, timeout=TIMEOUT)
    assert answer.status_code == 200
    sid = requests.post(url + "/v1/scenes", json={"scene": inline}, timeout=TIMEOUT).json()
    assert set(by_id_statuses(url, inline, sid["scene_id"], 10)) == {200}
    health = requests.get(url + "/healthz", timeout=TIMEOUT).json()["store"]
    assert health == {"backend": "sqlite", "reachable": True}
    assert requests.get(url + "/readyz", timeout=TIMEOUT).status_code == 200
    servers.stop(proc)
    assert list(runtime.glob("sightline-*.scenes*")) == []  # removed when gunicorn stops
