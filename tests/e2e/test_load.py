"""Issue 8: 8 concurrent clients against the real gunicorn, bounded in count and time.

No error, no 5xx, and every answer identical to the one asked sequentially first.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from service.app import sample_scene

pytestmark = pytest.mark.e2e

CLIENTS = 8
SECONDS = 3.0
MAX_REQUESTS = 2000


def requests_to_send() -> list[tuple[str, dict]]:
    scene = sample_scene()
    ids = [t["id"] for t in scene["tokens"]]
    out = []
    for i, a in enumerate(ids):
        out.append(
            (
                "/v1/cover",
                {
                    "ruleset": ["dnd5e", "starfinder", "pf2e-variant"][i % 3],
                    "scene": scene,
                    "attacker": a,
                    "targets": [t for t in ids if t != a],
                },
            )
        )
        out.append(
            (
                "/v1/vision",
                {
                    "ruleset": "dnd5e",
                    "scene": scene,
                    "observer": a,
                    "targets": [t for t in ids if t != a],
                },
            )
        )
    out.append(("/v1/lighting", {"scene": scene, "tokens": ids}))
    out.append(("/v1/matrix", {"ruleset": "dnd5e", "scene": scene}))
    return out


def test_concurrent_clients_get_the_sequential_answers(server_url):
    work = requests_to_send()
    expected = {}
    with requests.Session() as s:
        for k, (path, body) in enumerate(work):
            resp = s.post(server_url + path, json=body, timeout=30)
            assert resp.status_code == 200, resp.text[:300]
            expected[k] = resp.json()

    deadline = time.monotonic() + SECONDS
    counter = iter(range(MAX_REQUESTS))

    def client(_: int) -> tuple[int, list[str]]:
        sent, problems = 0, []
        with requests.Session() as s:
            while time.monotonic() < deadline:
                try:
                    n = next(counter)
                except StopIteration:
                    break
                path, body = work[n % len(work)]
                resp = s.post(server_url + path, json=body, timeout=30)
                sent += 1
                if resp.status_code != 200:
                    problems.append(f"{path}: {resp.status_code}")
                elif resp.json() != expected[n % len(work)]:
                    problems.append(f"{path}: answer differs: {json.dumps(resp.json())[:200]}")
        return sent, problems

    with ThreadPoolExecutor(CLIENTS) as pool:
        results = list(pool.map(client, range(CLIENTS)))
    total = sum(sent for sent, _ in results)
    problems = [p for _, ps in results for p in ps]
    print(f"load: {total} requests from {CLIENTS} clients in {SECONDS:g} s, {len(problems)} errors")
    assert total >= CLIENTS
    assert not problems, problems[:5]
