"""Live scenes through real gunicorn servers (docs/decisions.md "Live scenes").

Two workers sharing the SQLite scene file: a scene patched on one worker is answered by id
on every worker, as a whole upload of it is. Two replicas on one real Redis: a scene patched
on one is answered by id on the other, the same answers.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import requests

from bench import servers
from bench.dungeon import dungeon

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 20
SCENE = json.loads(json.dumps(dungeon(300, 5, seed=4)))
DOOR = next(w["id"] for w in SCENE["walls"] if w.get("door_state") == "closed")
CHANGE = {"tokens": {"t0": {"x": 300, "y": 400}}, "walls": {DOOR: {"door_state": "open"}}}


def moved() -> dict:
    scene = copy.deepcopy(SCENE)
    scene["tokens"][0].update(x=300, y=400)
    next(w for w in scene["walls"] if w["id"] == DOOR)["door_state"] = "open"
    return scene


def cover(url: str, **where: object) -> requests.Response:
    body = {"ruleset": "dnd5e", "attacker": "t0", "targets": ["t1", "t2", "t3", "t4"], **where}
    return requests.post(url + "/v1/cover", json=body, timeout=TIMEOUT)


def patched(url: str, base: str, change: dict) -> str:
    resp = requests.patch(f"{url}/v1/scenes/{base}", json=change, timeout=TIMEOUT)
    assert resp.status_code == 200, resp.text[:300]
    assert len(json.dumps(change)) < 2048
    return str(resp.json()["scene_id"])


@pytest.fixture(scope="module")
def two_workers():
    proc, url = servers.start_gunicorn({"SIGHTLINE_WORKERS": "2"}, wait=120)
    try:
        yield url
    finally:
        servers.stop(proc)


def test_every_worker_answers_a_patched_id_as_a_whole_upload(two_workers):
    url = two_workers
    base = requests.post(url + "/v1/scenes", json={"scene": SCENE}, timeout=TIMEOUT).json()[
        "scene_id"
    ]
    sid = patched(url, base, CHANGE)
    expected = cover(url, scene=moved())
    assert expected.status_code == 200
    answers = [cover(url, scene_id=sid) for _ in range(20)]
    assert [a.status_code for a in answers] == [200] * 20
    assert all(a.json() == expected.json() for a in answers)
    # a chain: each change on the last id, every worker rebuilding from the records
    for k in range(5):
        sid = patched(url, sid, {"tokens": {"t1": {"x": 100 * k, "y": 100}}})
        assert all(cover(url, scene_id=sid).status_code == 200 for _ in range(4))


def test_a_patch_on_an_unknown_parent_is_404_on_every_worker(two_workers):
    for _ in range(4):
        resp = requests.patch(
            f"{two_workers}/v1/scenes/sha256:{'1' * 64}", json=CHANGE, timeout=TIMEOUT
        )
        assert resp.status_code == 404 and "Send the scene itself" in resp.json()["message"]


@pytest.fixture(scope="module")
def replicas(redis_server):
    env = {"SIGHTLINE_REDIS_URL": redis_server.url, "SIGHTLINE_WORKERS": "1"}
    a, url_a = servers.start_gunicorn(env, wait=120)
    try:
        b, url_b = servers.start_gunicorn(env, wait=120)
        try:
            yield url_a, url_b
        finally:
            servers.stop(b)
    finally:
        servers.stop(a)


def test_a_scene_patched_on_one_replica_is_answered_on_the_other(replicas):
    url_a, url_b = replicas
    base = requests.post(url_a + "/v1/scenes", json={"scene": SCENE}, timeout=TIMEOUT).json()[
        "scene_id"
    ]
    sid = patched(url_a, base, CHANGE)
    on_b = cover(url_b, scene_id=sid)
    assert on_b.status_code == 200, on_b.text[:300]
    assert on_b.json() == cover(url_b, scene=moved()).json()
    # The chain goes on from the other replica, and back: each link answered as a whole upload.
    step = {"tokens": {"t1": {"x": 500, "y": 500}}, "walls": {DOOR: {"door_state": "closed"}}}
    again = patched(url_b, sid, step)
    scene = moved()
    scene["tokens"][1].update(x=500, y=500)
    next(w for w in scene["walls"] if w["id"] == DOOR)["door_state"] = "closed"
    on_a = cover(url_a, scene_id=again)
    assert on_a.status_code == 200, on_a.text[:300]
    assert on_a.json() == cover(url_a, scene=scene).json()
    upload = requests.post(url_a + "/v1/scenes", json={"scene": scene}, timeout=TIMEOUT)
    assert upload.json()["scene_id"] == again
