"""Patched scenes stored as chains (parent id + change) between two workers of one file.

A worker that did not take a ``PATCH`` builds the patched scene from the parent it holds
plus the record (``SceneCache._entry``), never from scratch; when a link of the chain has
expired from the store, every request by the patched id (a query, a further ``PATCH``) is a
clear 404 naming the gone parent and saying to send the scene, and nothing else is lost
(docs/decisions.md "Live scenes", API.md errors).
"""

from __future__ import annotations

import glob
import os
import socket
import sqlite3
import time

import msgspec
import pytest

from bench.dungeon import dungeon
from service import cache as cache_module
from service.app import create_app
from service.engine import live as engine_live
from service.engine import scene as engine_scene
from service.engine.live import Change
from service.follower import FOLLOW_S, start_follower
from service.local_store import BELL_INFIX, SqliteSceneStore, remove_files
from service.model import Scene
from service.store import PatchRecord

SCENE = dungeon(120, 4, seed=2)
DOOR = next(w["id"] for w in SCENE["walls"] if w.get("door_state") == "closed")
QUERY = {"ruleset": "dnd5e", "attacker": "t0", "targets": ["t1", "t2", "t3"]}


def app_client(path: str):
    return create_app({"TESTING": True, "REDIS_URL": None, "SCENE_FILE": path}).test_client()


@pytest.fixture
def workers(tmp_path):
    path = str(tmp_path / "scenes.sqlite")
    return app_client(path), app_client(path), path


def chain(one, n: int) -> list[str]:
    """An upload on ``one`` and ``n`` token moves, each on the id before: every id."""
    ids = [one.post("/v1/scenes", json={"scene": SCENE}).get_json()["scene_id"]]
    for k in range(n):
        change = {"tokens": {"t0": {"x": 100 * (k + 1)}}}
        if k == 0:
            change["walls"] = {DOOR: {"door_state": "open"}}
        resp = one.patch(f"/v1/scenes/{ids[-1]}", json=change)
        assert resp.status_code == 200, resp.get_json()
        ids.append(resp.get_json()["scene_id"])
    return ids


def test_the_other_worker_builds_a_chain_from_its_parent_not_from_scratch(workers, monkeypatch):
    one, two, _ = workers
    ids = chain(one, 3)
    assert two.post("/v1/cover", json={**QUERY, "scene_id": ids[0]}).status_code == 200
    builds = []
    real = engine_scene.build_wall_index
    for module in (engine_scene, engine_live):
        monkeypatch.setattr(
            module, "build_wall_index", lambda *a, **k: builds.append(1) or real(*a, **k)
        )
    answers = [two.post("/v1/cover", json={**QUERY, "scene_id": sid}) for sid in ids[1:]]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert builds == []  # the parent's index flipped and shared: no wall index built
    mine = [one.post("/v1/cover", json={**QUERY, "scene_id": sid}).get_json() for sid in ids[1:]]
    assert [a.get_json() for a in answers] == mine


def test_a_chain_on_an_expired_parent_is_a_clear_404_and_loses_nothing(workers):
    one, two, path = workers
    ids = chain(one, 2)
    with sqlite3.connect(path) as conn:  # the upload expired from the file
        conn.execute("DELETE FROM scene WHERE id = ?", (ids[0],))
    for resp in (
        two.post("/v1/cover", json={**QUERY, "scene_id": ids[2]}),
        two.patch(f"/v1/scenes/{ids[2]}", json={"tokens": {"t0": {"x": 0}}}),
    ):
        assert resp.status_code == 404, resp.get_json()
        message = resp.get_json()["message"]
        assert "is gone" in message and "Send the scene itself" in message
        assert resp.get_json()["errors"]["json"]["scene_id"]
    # The worker holding the chain still answers it, and a whole upload restores it for all.
    assert one.post("/v1/cover", json={**QUERY, "scene_id": ids[2]}).status_code == 200
    assert two.post("/v1/cover", json={**QUERY, "scene_id": ids[1]}).status_code == 404
    assert one.post("/v1/scenes", json={"scene": SCENE}).get_json()["scene_id"] == ids[0]
    again = two.post("/v1/cover", json={**QUERY, "scene_id": ids[2]})
    assert again.status_code == 200, again.get_json()


@pytest.mark.parametrize("holds_parent", [True, False])
def test_a_compacted_link_is_applied_by_a_worker_holding_its_parent(
    workers, monkeypatch, holds_parent
):
    """Past ``MAX_CHAIN`` links the record carries the whole scene too (``PatchRecord.whole``).

    A worker holding the parent applies the change as for any link: no wall index built
    (before, every 17th change cost the other worker a whole build: 0.5-1 s on 20,000
    walls); one that does not decodes the whole scene, never the chain. Answers are equal.
    """
    one, two, _ = workers
    ids = chain(one, cache_module.MAX_CHAIN)
    other = next(
        w["id"] for w in SCENE["walls"] if w.get("door_state") == "closed" and w["id"] != DOOR
    )
    for change in ({"walls": {other: {"door_state": "open"}}}, {"tokens": {"t0": {"x": 5}}}):
        resp = one.patch(f"/v1/scenes/{ids[-1]}", json=change)  # a door: walls no scene had
        ids.append(resp.get_json()["scene_id"])
    compacted = cache_module.MAX_CHAIN + 1  # that door's link, MAX_CHAIN + 1
    if holds_parent:
        assert two.post("/v1/cover", json={**QUERY, "scene_id": ids[compacted - 1]}).status_code
    records = []
    real_get = SqliteSceneStore.get
    monkeypatch.setattr(
        SqliteSceneStore, "get", lambda self, sid: records.append(sid) or real_get(self, sid)
    )
    builds = []
    real = engine_scene.build_wall_index
    for module in (engine_scene, engine_live):
        monkeypatch.setattr(
            module, "build_wall_index", lambda *a, **k: builds.append(1) or real(*a, **k)
        )
    answer = two.post("/v1/cover", json={**QUERY, "scene_id": ids[compacted]})
    assert answer.status_code == 200, answer.get_json()
    assert records == [ids[compacted]]  # the compacted link alone: never the chain behind
    assert builds == ([] if holds_parent else [1])
    mine = one.post("/v1/cover", json={**QUERY, "scene_id": ids[compacted]}).get_json()
    assert answer.get_json() == mine
    # The chain starts again after it, on either worker: the next link is a plain record.
    after = two.post("/v1/cover", json={**QUERY, "scene_id": ids[compacted + 1]})
    assert (
        after.status_code == 200
        and after.get_json()
        == one.post("/v1/cover", json={**QUERY, "scene_id": ids[compacted + 1]}).get_json()
    )


def eventually(condition, seconds: float) -> bool:
    """Whether ``condition()`` holds within ``seconds`` (a wait for a thread, polled)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def following(one, two):
    """An upload on ``one``, held by ``two`` too, and a follower started on ``two``'s cache."""
    cache = two.application.extensions["sightline_cache"]
    upload = chain(one, 0)[0]
    assert two.post("/v1/cover", json={**QUERY, "scene_id": upload}).status_code == 200
    follower = start_follower(cache)
    assert follower is not None
    return cache, upload, follower


def test_a_follower_builds_what_another_worker_patched(workers):
    """``service.follower``: a worker applies the changes another stored, before any request.

    Only those whose parent it holds (nothing is loaded for the others), and what it built
    answers as the writer's scene does.
    """
    one, two, _ = workers
    cache, upload, follower = following(one, two)
    try:
        opened = one.patch(f"/v1/scenes/{upload}", json={"walls": {DOOR: {"door_state": "open"}}})
        new = opened.get_json()["scene_id"]
        other = one.post("/v1/scenes", json={"scene": dungeon(60, 3, seed=9)})
        moved = one.patch(
            f"/v1/scenes/{other.get_json()['scene_id']}", json={"tokens": {"t0": {"x": 1}}}
        )
        assert eventually(lambda: cache.holds(new), 30)  # a wait, not a bound on its speed
        time.sleep(10 * FOLLOW_S)  # it has looked at the other change too by now
        assert not cache.holds(moved.get_json()["scene_id"])  # its parent is not held here
        mine = one.post("/v1/cover", json={**QUERY, "scene_id": new}).get_json()
        assert two.post("/v1/cover", json={**QUERY, "scene_id": new}).get_json() == mine
    finally:
        follower.stop()
        follower.join(5)
    assert not follower.is_alive()


@pytest.mark.parametrize(
    "changes",
    [
        [{}],  # no change: the parent's own id
        [{"walls": {DOOR: {"door_state": "closed"}}}],  # a door closed that is closed
        # a door opened and closed again: back to the upload, two links on
        [{"walls": {DOOR: {"door_state": "open"}}}, {"walls": {DOOR: {"door_state": "closed"}}}],
    ],
)
def test_a_change_back_to_a_stored_scene_keeps_it_answerable_everywhere(workers, changes):
    """A change that leads back to a scene of its own chain stores no record under that id:
    a record there would point at its own descendants (a cycle), and every worker that did not
    hold the scene answered 404 for it and for its children (break-in test, 2026-12-02)."""
    one, _, path = workers
    upload = chain(one, 0)[0]
    sid = upload
    for change in changes:
        resp = one.patch(f"/v1/scenes/{sid}", json=change)
        assert resp.status_code == 200, resp.get_json()
        sid = resp.get_json()["scene_id"]
    assert sid == upload
    fresh = app_client(path)  # a worker holding nothing (started after, or evicted)
    answer = fresh.post("/v1/cover", json={**QUERY, "scene_id": upload})
    assert answer.status_code == 200, answer.get_json()
    # and a chain continued from it is answerable from the store alone
    moved = one.patch(f"/v1/scenes/{sid}", json={"tokens": {"t0": {"x": 7}}}).get_json()
    assert (
        app_client(path)
        .post("/v1/cover", json={**QUERY, "scene_id": moved["scene_id"]})
        .status_code
        == 200
    )


def test_a_record_never_replaces_a_scene_stored_whole(tmp_path):
    """The same id stored whole and then as a change (reached another way): the whole scene
    stays, its time to live restarted (``SqliteSceneStore.put_patch``)."""
    store = SqliteSceneStore(str(tmp_path / "s.sqlite"), ttl=3600, max_bytes=10**8)
    scene = msgspec.convert(SCENE, Scene)
    store.put("sha256:x", scene)
    store.put_patch("sha256:x", PatchRecord("sha256:y", Change(), ("sha256:y",)))
    assert store.get("sha256:x") == scene
    store.put_patch("sha256:z", PatchRecord("sha256:x", Change(), ("sha256:x",)))
    assert isinstance(store.get("sha256:z"), PatchRecord)  # a new id takes the record


def test_a_follower_is_rung_when_another_worker_stores_a_change(workers, monkeypatch):
    """``local_store.Bell``: the writer stores a record and, once its answer is sent, rings
    the other workers' followers, which build it at once, not at their next look (FOLLOW_S).

    The look is set to a minute here: only the ring can make the follower build in time.
    """
    one, two, path = workers
    monkeypatch.setattr("service.follower.FOLLOW_S", 60.0)
    cache, upload, follower = following(one, two)
    try:
        assert eventually(lambda: glob.glob(path + BELL_INFIX + "*"), 20)  # its bell is bound
        opened = one.patch(f"/v1/scenes/{upload}", json={"walls": {DOOR: {"door_state": "open"}}})
        new = opened.get_json()["scene_id"]
        opened.close()  # sent: the writer rings, then builds its own
        assert eventually(lambda: cache.holds(new), 20)  # far under the follower's minute
        mine = one.post("/v1/cover", json={**QUERY, "scene_id": new}).get_json()
        assert two.post("/v1/cover", json={**QUERY, "scene_id": new}).get_json() == mine
    finally:
        follower.stop()
        follower.join(5)
    assert not follower.is_alive()


def test_a_dead_workers_bell_is_removed_when_rung(tmp_path):
    """A bell whose socket no process holds (a worker killed) is removed by the next ring;
    the store's own bells are never rung by it, and ``remove_files`` takes every bell."""
    path = str(tmp_path / "scenes.sqlite")
    store = SqliteSceneStore(path)
    dead = f"{path}{BELL_INFIX}1-dead"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(dead)
    sock.close()  # the file stays, nobody listens
    own = store.bell()
    other = SqliteSceneStore(path).bell()
    assert own is not None and other is not None
    store.ring()
    assert not os.path.exists(dead)
    assert other.sock.recv(16) == b"!"
    with pytest.raises(BlockingIOError):
        own.sock.recv(16)
    own.sock.close()
    other.sock.close()
    remove_files(path)
    assert not os.path.exists(own.path) and not os.path.exists(other.path)


def test_a_patch_answers_before_its_scene_is_built(workers, monkeypatch):
    """``PATCH`` answers the new id once the change is checked, hashed and stored; the scene
    is built when the response closes (``build_pending``) or when first asked for, and
    answers as a whole upload of it. A change that adds, removes or moves walls builds
    the wall index within the request (under its watchdog)."""
    one, _, _ = workers
    builds: list[int] = []
    real = cache_module.rebuild
    monkeypatch.setattr(cache_module, "rebuild", lambda *a: builds.append(1) or real(*a))
    upload = chain(one, 0)[0]
    resp = one.patch(f"/v1/scenes/{upload}", json={"tokens": {"t0": {"x": 250}}})
    assert resp.status_code == 200 and builds == []
    moved = resp.get_json()["scene_id"]
    assert resp.get_json()["stats"]["doors"] == sum(1 for w in SCENE["walls"] if w.get("door"))
    cache = one.application.extensions["sightline_cache"]
    assert cache.holds(moved)
    resp.close()  # the server closes it once sent: the scene is built then
    assert builds == [1]
    answer = one.post("/v1/cover", json={**QUERY, "scene_id": moved}).get_json()
    whole = msgspec.to_builtins(cache.get(moved).scene)
    assert (
        one.post("/v1/cover", json={**QUERY, "scene": whole}).get_json()["results"]
        == (answer["results"])
    )
    # Not closed: the first question builds it.
    again = one.patch(f"/v1/scenes/{moved}", json={"tokens": {"t0": {"x": 350}}})
    assert builds == [1]
    asked = one.post("/v1/cover", json={**QUERY, "scene_id": again.get_json()["scene_id"]})
    assert asked.status_code == 200 and builds == [1, 1]
    wall = {"id": "new-wall", "c": [10, 10, 90, 10]}
    added = one.patch(f"/v1/scenes/{moved}", json={"walls": {"new-wall": wall}})
    assert added.status_code == 200 and builds == [1, 1, 1]
