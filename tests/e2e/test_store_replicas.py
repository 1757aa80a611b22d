"""Two gunicorn instances sharing one real redis-server (issue 18, DESIGN.md "Scaling out").

Instance ``a`` runs two workers; instance ``b`` one worker whose cache holds two scenes (the
pinned sample and one more), so a second scene evicts the first from it. Redis is stopped
mid-run and started again, empty, on the same port.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest
import requests

from bench import servers
from bench.dungeon import dungeon
from service import store
from service.client import SightlineClient, scene_key

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 10  # seconds per request: an answer later than this fails the test


@pytest.fixture(scope="module")
def replicas(redis_server):
    common = {
        "SIGHTLINE_REDIS_URL": redis_server.url,
        "SIGHTLINE_REDIS_TIMEOUT": "0.3",
        "PYTHONUNBUFFERED": "1",  # access-log lines reach the log file as they are written
    }
    logs = ROOT / ".pytest_cache"
    logs.mkdir(exist_ok=True)
    procs = []
    try:
        a, url_a = servers.start_gunicorn(
            {**common, "SIGHTLINE_WORKERS": "2"}, logs / "e2e-store-a.log"
        )
        procs.append(a)
        b, url_b = servers.start_gunicorn(
            {**common, "SIGHTLINE_WORKERS": "1", "SIGHTLINE_SCENE_CACHE_SIZE": "2"},
            logs / "e2e-store-b.log",
        )
        procs.append(b)
        yield url_a, url_b
    finally:
        for proc in procs:
            servers.stop(proc)


def scene(seed: int) -> dict:
    return json.loads(json.dumps(dungeon(300, 5, seed=seed)))


def query(sc: dict) -> dict:
    ids = [t["id"] for t in sc["tokens"]]
    return {"ruleset": "dnd5e", "attacker": ids[0], "targets": ids[1:]}


def post(url: str, path: str, body: dict) -> requests.Response:
    return requests.post(url + path, json=body, timeout=TIMEOUT)


def cover_inline(url: str, sc: dict) -> requests.Response:
    return post(url, "/v1/cover", {**query(sc), "scene": sc})


def cover_by_id(url: str, sc: dict, sid: str) -> requests.Response:
    return post(url, "/v1/cover", {**query(sc), "scene_id": sid})


def upload(url: str, sc: dict) -> str:
    resp = post(url, "/v1/scenes", {"scene": sc})
    assert resp.status_code == 200, resp.text[:300]
    return str(resp.json()["scene_id"])


def store_state(url: str) -> dict:
    return requests.get(url + "/healthz", timeout=TIMEOUT).json()["store"]


def test_upload_to_one_query_the_other_by_id_even_after_eviction(redis_db, replicas):
    a, b = replicas
    x, y = scene(1), scene(2)
    sid = upload(a, x)
    expected = cover_inline(a, x).json()
    for _ in range(3):  # every worker of a, and b, which never saw the scene
        for url in (a, b):
            resp = cover_by_id(url, x, sid)
            assert resp.status_code == 200, resp.text[:300]
            assert resp.json() == expected
    assert cover_inline(b, y).status_code == 200  # b holds sample + y now: x is evicted
    again = cover_by_id(b, x, sid)
    assert again.status_code == 200 and again.json() == expected
    for url in (a, b):
        assert store_state(url) == {"backend": "redis", "reachable": True}
        assert requests.get(url + "/readyz", timeout=TIMEOUT).status_code == 200


def test_redis_stopped_mid_run_then_back(redis_db, replicas):
    a, b = replicas
    x, y, z = scene(3), scene(4), scene(5)
    sid_x = upload(a, x)
    expected_x = cover_inline(a, x).json()
    assert cover_by_id(b, x, sid_x).status_code == 200  # b holds sample + x
    statuses: list[int] = []

    redis_db.stop()
    try:
        for url in (a, b):
            health = requests.get(url + "/healthz", timeout=TIMEOUT)
            assert health.status_code == 200
            assert health.json()["store"] == {"backend": "redis", "reachable": False}
            ready = requests.get(url + "/readyz", timeout=TIMEOUT)
            assert ready.status_code == 503 and ready.json()["code"] == 503
        held = cover_by_id(b, x, sid_x)  # local cache still answers
        assert held.status_code == 200 and held.json() == expected_x
        statuses.append(held.status_code)
        inline = cover_inline(b, y)  # inline keeps working; x is evicted from b now
        assert inline.status_code == 200
        statuses.append(inline.status_code)
        sid_z = upload(a, z)  # uploads answer too, though Redis did not take the scene
        for _ in range(3):
            statuses.append(cover_inline(b, y).status_code)  # evicts x from b
            missed = cover_by_id(b, x, sid_x)
            statuses.append(missed.status_code)
            assert missed.status_code == 404
            assert "scene_id" in missed.json()["errors"]["json"]
            resent = cover_inline(b, x)  # the client resends the scene
            statuses.append(resent.status_code)
            assert resent.status_code == 200 and resent.json() == expected_x
            statuses.append(cover_by_id(b, z, sid_z).status_code)  # never stored: 404
        with SightlineClient(b, timeout=TIMEOUT) as client:  # the client's own 404-resend
            client.scene_ids[scene_key(z)] = sid_z
            assert client.cover("dnd5e", z, **_kw(z))["results"]
        assert statuses and all(code < 500 for code in statuses), statuses
    finally:
        redis_db.start()  # empty, as a Redis that lost its data

    deadline = time.monotonic() + 20
    for url in (a, b):
        while requests.get(url + "/readyz", timeout=TIMEOUT).status_code != 200:
            assert time.monotonic() < deadline, "not ready again after Redis came back"
            time.sleep(0.2)
    time.sleep(store.RETRY_AFTER + 0.2)  # every worker's pause after the failure is over
    sid_y = upload(a, y)
    expected_y = cover_inline(a, y).json()
    assert cover_inline(b, z).status_code == 200  # b: sample + z, so y comes from Redis
    back = cover_by_id(b, y, sid_y)
    assert back.status_code == 200 and back.json() == expected_y
    assert upload(b, x) == sid_x  # x was lost with Redis' data: uploaded again, shared again
    for _ in range(3):
        shared = cover_by_id(a, x, sid_x)
        assert shared.status_code == 200 and shared.json() == expected_x


def _kw(sc: dict) -> dict:
    q = query(sc)
    return {"attacker": q["attacker"], "targets": q["targets"]}


def test_nginx_with_the_project_config_balances_the_replicas(redis_db, replicas, tmp_path):
    if servers.NGINX is None:
        pytest.skip("nginx not installed (apt-get install -y nginx): proxy test skipped")
    a, b = replicas
    proxy = servers.Nginx([a.removeprefix("http://"), b.removeprefix("http://")], tmp_path)
    proxy.start()
    try:
        sc = scene(6)
        sid = upload(proxy.url, sc)
        expected = cover_inline(a, sc).json()
        # Only this test's proxied requests carry this user agent: lines other requests log
        # late (a worker logs just after it answers) are not counted.
        agent = f"nginx-balance-{uuid.uuid4().hex}"
        for _ in range(8):  # least_conn over idle replicas: both get some
            resp = requests.post(
                proxy.url + "/v1/cover",
                json={**query(sc), "scene_id": sid},
                headers={"User-Agent": agent},
                timeout=TIMEOUT,
            )
            assert resp.status_code == 200 and resp.json() == expected
        deadline = time.monotonic() + 5
        while sum(counts := [lines_with_agent(name, agent) for name in "ab"]) < 8:
            assert time.monotonic() < deadline, counts
            time.sleep(0.05)
        assert sum(counts) == 8 and all(counts), counts
        big = {"scene": json.loads(json.dumps(dungeon(20000, 10)))}  # ~1.3 MB: buffered body
        assert post(proxy.url, "/v1/scenes", big).status_code == 200
        ready = requests.get(proxy.url + "/readyz", timeout=TIMEOUT)
        assert ready.status_code == 200 and ready.json()["status"] == "ready"
    finally:
        proxy.stop()


def lines_with_agent(name: str, agent: str) -> int:
    """``POST /v1/cover`` lines sent with user agent ``agent`` in the access log of replica
    ``name`` (gunicorn's, one JSON line per request; see ``service.worker``)."""
    log = ROOT / ".pytest_cache" / f"e2e-store-{name}.log"
    lines = log.read_text(errors="replace").splitlines()
    return sum('"request": "POST /v1/cover ' in ln and f'"agent": "{agent}"' in ln for ln in lines)
