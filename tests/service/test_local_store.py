"""The SQLite scene store of one machine's workers (``service.local_store``), on real files.

Every test opens a real SQLite file in ``tmp_path``; what the store wrote is read back with a
plain ``sqlite3`` connection. Two processes are real ones (``os.fork``), as gunicorn's workers.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time

import msgspec
import pytest

from bench.dungeon import dungeon
from schemas.scene import SceneSchema
from service import local_store
from service.app import create_app
from service.cache import SceneCache, scene_id
from service.errors import SceneNotFound
from service.local_store import SqliteSceneStore, remove_files
from service.store import encode_scene
from tests.scenes import load, tok, wall
from tests.schemas.test_ingestion import rich_scene


def scene(n: int = 1):
    return load([wall(f"w{i}", 0, i, 10, i) for i in range(n)], [tok("A", 0, 0), tok("T", 40, 0)])


def rows(path) -> dict[str, tuple[int, float]]:
    """``{id: (size, used)}`` of the file, read with a connection of its own."""
    with sqlite3.connect(path) as plain:
        return {r[0]: (r[1], r[2]) for r in plain.execute("SELECT id, size, used FROM scene")}


def counted(path) -> tuple[int, int]:
    """The total the triggers keep, and the sum of the rows' sizes: always equal."""
    with sqlite3.connect(path) as plain:
        (total,) = plain.execute("SELECT bytes FROM total").fetchone()
        (summed,) = plain.execute("SELECT coalesce(sum(size), 0) FROM scene").fetchone()
    return total, summed


def execute(path, sql: str, *args) -> None:
    with sqlite3.connect(path) as plain:
        plain.execute(sql, args)


@pytest.fixture
def path(tmp_path):
    return tmp_path / "scenes"


# --- one process ---------------------------------------------------------------------------


def test_put_then_get_an_equal_scene_in_the_stored_format(path):
    shared = SqliteSceneStore(path, ttl=600)
    big = SceneSchema().load(dungeon(2000, 10))
    sid = scene_id(big)
    assert shared.put(sid, big) is True
    assert shared.get(sid) == big
    with sqlite3.connect(path) as plain:
        (data,) = plain.execute("SELECT data FROM scene WHERE id = ?", (sid,)).fetchone()
        (mode,) = plain.execute("PRAGMA journal_mode").fetchone()
    assert data == encode_scene(big) and mode == "wal"
    assert shared.get("sha256:" + "0" * 64) is None
    assert shared.ping().as_dict() == {"backend": "sqlite", "reachable": True}
    assert counted(path) == (len(data), len(data)) == (shared.stored_bytes(),) * 2


def test_an_expired_scene_is_a_miss_and_the_next_write_drops_it(path):
    shared = SqliteSceneStore(path, ttl=600)
    old, new = scene(1), scene(2)
    shared.put(scene_id(old), old)
    execute(path, "UPDATE scene SET used = used - 601")  # last stored or read 601 s ago
    assert shared.get(scene_id(old)) is None
    assert scene_id(old) in rows(path)  # still there until a write
    shared.put(scene_id(new), new)
    assert list(rows(path)) == [scene_id(new)]
    assert counted(path)[0] == counted(path)[1]


def test_a_read_restarts_the_time_to_live(path):
    shared = SqliteSceneStore(path, ttl=600)
    sid = scene_id(scene())
    shared.put(sid, scene())
    execute(path, "UPDATE scene SET used = used - 500")
    assert shared.get(sid) == scene()
    assert rows(path)[sid][1] == pytest.approx(time.time(), abs=5)
    execute(path, "UPDATE scene SET used = used - 500")
    assert shared.get(sid) == scene()  # 1,000 s after it was stored, 500 s after its read


def test_past_the_byte_budget_the_least_recently_used_go(path):
    one = len(encode_scene(scene(20)))
    shared = SqliteSceneStore(path, max_bytes=int(3.5 * one))
    a, b, c, d = (scene(20 + i) for i in range(4))
    for s in (a, b, c):
        assert shared.put(scene_id(s), s)
        time.sleep(0.01)  # distinct times of last use
    assert shared.get(scene_id(a)) == a  # a is the most recently used now
    assert shared.put(scene_id(d), d)
    assert set(rows(path)) == {scene_id(a), scene_id(c), scene_id(d)}  # b, the oldest, went
    total, summed = counted(path)
    assert total == summed <= shared.max_bytes
    assert shared.put(scene_id(d), d)  # storing it again replaces the row, counted once
    assert counted(path)[0] == counted(path)[1] == total


def test_a_scene_bigger_than_the_budget_is_not_stored(path):
    big = SceneSchema().load(dungeon(2000, 10))
    shared = SqliteSceneStore(path, max_bytes=len(encode_scene(big)) - 1)
    assert shared.put(scene_id(big), big) is False
    assert shared.put(scene_id(scene()), scene()) is True
    assert list(rows(path)) == [scene_id(scene())]


def test_the_file_cannot_grow_without_limit(path):
    shared = SqliteSceneStore(path, max_bytes=64 * 1024)
    for i in range(150):
        assert shared.put(scene_id(scene(i)), scene(i))
    total, summed = counted(path)
    assert total == summed <= 64 * 1024
    assert scene_id(scene(149)) in rows(path) and scene_id(scene(0)) not in rows(path)


def test_bytes_that_are_no_scene_are_a_miss_and_deleted(path):
    shared = SqliteSceneStore(path)
    shared.ping()  # creates the tables
    garbage = "sha256:" + "1" * 64
    execute(path, "INSERT INTO scene VALUES (?, ?, 8, ?)", garbage, b"\x01garbage", time.time())
    assert shared.get(garbage) is None
    assert garbage not in rows(path)
    assert counted(path) == (0, 0)


def test_a_scene_stored_under_another_id_is_not_served_and_is_dropped(path):
    shared = SqliteSceneStore(path)
    shared.ping()
    wrong = "sha256:" + "3" * 64
    data = encode_scene(scene())
    execute(path, "INSERT INTO scene VALUES (?, ?, ?, ?)", wrong, data, len(data), time.time())
    with pytest.raises(SceneNotFound) as err:
        SceneCache(store=shared).get(wrong)
    assert "SIGHTLINE_SCENE_FILE" in err.value.message
    assert wrong not in rows(path)


def test_a_lone_surrogate_stays_local(path):
    odd = load([], [tok("A", 0, 0, name="\ud800")])
    shared = SqliteSceneStore(path)
    cache = SceneCache(store=shared)
    sid, geo = cache.put(odd)
    assert cache.get(sid) is geo
    assert shared.put(sid, odd) is False and not path.exists()  # never opened


@pytest.mark.parametrize("broken", ["missing directory", "not a database"])
def test_a_broken_file_reads_as_misses_and_never_raises(tmp_path, broken):
    if broken == "missing directory":
        where = tmp_path / "gone" / "scenes"
    else:
        where = tmp_path / "scenes"
        where.write_bytes(b"this is not an SQLite database, " * 100)
    shared = SqliteSceneStore(where)
    assert shared.put(scene_id(scene()), scene()) is False
    assert shared.get(scene_id(scene())) is None
    shared.delete(scene_id(scene()))
    assert shared.ping().as_dict() == {"backend": "sqlite", "reachable": False}
    cache = SceneCache(store=shared)
    sid, geo = cache.put(scene())  # inline scenes keep working
    assert cache.get(sid) is geo


def test_a_writer_that_holds_the_lock_costs_at_most_the_busy_timeout(path):
    shared = SqliteSceneStore(path, timeout=0.2)
    assert shared.ping().reachable
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        start = time.monotonic()
        assert shared.put(scene_id(scene()), scene()) is False
        assert time.monotonic() - start < 5  # a bound against hanging, not a speed test
        assert shared.get(scene_id(scene())) is None
    finally:
        holder.rollback()
        holder.close()
    assert shared.put(scene_id(scene()), scene()) is True  # the connection is usable again
    assert shared.get(scene_id(scene())) == scene()


def test_remove_files_takes_the_side_files_too(path):
    shared = SqliteSceneStore(path)
    shared.put(scene_id(scene()), scene())
    assert path.exists() and path.with_name("scenes-wal").exists()
    remove_files(path)
    assert list(path.parent.iterdir()) == []
    remove_files(path)  # nothing left: no error


# --- processes -----------------------------------------------------------------------------


def in_child(work) -> int:
    """Run ``work()`` in a forked child; its exit status (0: it returned true)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = 0 if work() else 2
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_a_forked_child_opens_its_own_connection_and_shares_the_file(path):
    shared = SqliteSceneStore(path)
    mine, theirs = scene(1), scene(2)
    assert shared.put(scene_id(mine), mine)  # the parent's connection is open now
    parent = shared._handles[os.getpid()].conn

    def child() -> bool:
        got = shared.get(scene_id(mine))
        stored = shared.put(scene_id(theirs), theirs)
        own = shared._handles[os.getpid()].conn
        return got == mine and stored and own is not parent and len(shared._handles) == 2

    assert in_child(child) == 0
    assert shared.get(scene_id(theirs)) == theirs
    assert shared._handles[os.getpid()].conn is parent and len(shared._handles) == 1
    assert parent.execute("SELECT count(*) FROM scene").fetchone() == (2,)


def test_two_processes_writing_at_once_wait_instead_of_failing(path):
    shared = SqliteSceneStore(path)  # never opened here: the children create the file at once
    scenes = [scene(i) for i in range(60)]

    def writer(part: int):
        return lambda: all(shared.put(scene_id(s), s) for s in scenes[part::2])

    pids = []
    for part in (0, 1):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = 0 if writer(part)() else 2
            finally:
                os._exit(code)
        pids.append(pid)
    codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]
    assert codes == [0, 0]
    assert set(rows(path)) == {scene_id(s) for s in scenes}
    assert counted(path)[0] == counted(path)[1]
    assert shared._handles == {}


# --- the HTTP service: two apps as two workers sharing one file -----------------------------


COVER = {"ruleset": "dnd5e", "attacker": "A", "targets": ["T"]}


def app_client(scene_file, **config):
    config = {"TESTING": True, "REDIS_URL": None, "SCENE_FILE": scene_file, **config}
    return create_app(config).test_client()


def test_upload_to_one_worker_query_the_other_by_id(path):
    one, two = app_client(str(path)), app_client(str(path))
    raw = json.loads(json.dumps(rich_scene()))
    token_ids = [t["id"] for t in raw["tokens"]]
    query = {"ruleset": "dnd5e", "attacker": token_ids[0], "targets": token_ids[1:]}
    up = one.post("/v1/scenes", json={"scene": raw})
    assert up.status_code == 200
    sid = up.get_json()["scene_id"]
    by_id = two.post("/v1/cover", json={**query, "scene_id": sid})
    assert by_id.status_code == 200, by_id.get_json()
    inline = app_client(None).post("/v1/cover", json={**query, "scene": raw})
    assert by_id.get_json() == inline.get_json()
    other = msgspec.to_builtins(scene(3))  # an inline scene is shared too
    assert one.post("/v1/cover", json={**COVER, "scene": other}).status_code == 200
    shared = two.post("/v1/cover", json={**COVER, "scene_id": scene_id(scene(3))})
    assert shared.status_code == 200
    for client in (one, two):
        assert client.get("/healthz").get_json()["store"] == {
            "backend": "sqlite",
            "reachable": True,
        }
        assert client.get("/readyz").status_code == 200


def test_without_a_store_the_404_says_why(path):
    unknown = {**COVER, "scene_id": "sha256:" + "6" * 64}
    alone = app_client(None).post("/v1/cover", json=unknown)
    assert alone.status_code == 404
    message = alone.get_json()["message"]
    assert "no scene store is shared" in message and "another worker may hold it" in message
    shared = app_client(str(path)).post("/v1/cover", json=unknown)
    assert shared.status_code == 404
    assert "SIGHTLINE_SCENE_FILE" in shared.get_json()["message"]
    assert "SIGHTLINE_SCENE_TTL" in shared.get_json()["message"]


@pytest.mark.parametrize("sid", ["nope", "sample2", "sha256", "SHA256:abc"])
@pytest.mark.parametrize("shared", [False, True])
def test_an_id_not_shaped_like_one_is_told_what_an_id_is(sid, shared, path):
    """Not a 'sha256:' id: the 404 says what a scene id is, not that it expired."""
    got = app_client(str(path) if shared else None).post(
        "/v1/cover", json={**COVER, "scene_id": sid}
    )
    assert got.status_code == 404
    message = got.get_json()["message"]
    assert "'sha256:...' that POST /v1/scenes" in message and "expired" not in message
    assert "another worker" not in message


def test_an_unreadable_file_service_alive_not_ready_and_answering(tmp_path):
    where = tmp_path / "scenes"
    where.write_bytes(b"not a database " * 100)
    client = app_client(str(where))
    assert client.get("/healthz").get_json()["store"] == {"backend": "sqlite", "reachable": False}
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert "SIGHTLINE_SCENE_FILE" in ready.get_json()["message"]
    inline = client.post("/v1/cover", json={**COVER, "scene": msgspec.to_builtins(scene())})
    assert inline.status_code == 200


def test_an_app_made_without_gunicorn_has_no_store_and_leaves_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIGHTLINE_SCENE_FILE", raising=False)
    monkeypatch.delenv("SIGHTLINE_REDIS_URL", raising=False)
    app = create_app({"TESTING": True})
    assert app.extensions["sightline_cache"].store is None
    assert app.test_client().get("/healthz").get_json()["store"]["backend"] == "none"
    assert list(tmp_path.iterdir()) == []


def test_redis_wins_over_the_file(path, monkeypatch):
    app = create_app({"TESTING": True, "REDIS_URL": "redis://127.0.0.1:1/0", "SCENE_FILE": path})
    assert app.extensions["sightline_cache"].store.backend == "redis"
    assert not path.exists()


def test_the_budget_follows_the_cache_setting(path):
    app = create_app({"TESTING": True, "SCENE_FILE": str(path), "SCENE_CACHE_MAX_MB": 3})
    store = app.extensions["sightline_cache"].store
    assert store.max_bytes == 3 * local_store.FILE_MB_PER_CACHE_MB * 1024 * 1024


@pytest.mark.parametrize("value", ["off", "OFF", " off "])
def test_off_keeps_each_workers_scenes_to_itself(value, tmp_path, monkeypatch):
    """``SIGHTLINE_SCENE_FILE=off``: no shared store, and gunicorn makes no file either."""
    from service.settings import load

    assert load({"SIGHTLINE_SCENE_FILE": value})["SCENE_FILE"] == "off"
    monkeypatch.chdir(tmp_path)
    app = create_app({"TESTING": True, "SCENE_FILE": "off"})
    assert app.extensions["sightline_cache"].store is None
    assert list(tmp_path.iterdir()) == []
