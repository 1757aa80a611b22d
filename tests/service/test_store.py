"""Shared scene store (DESIGN.md "Scaling out"): stored bytes, Redis, fall-backs.

The bytes tests need nothing; the others run a real ``redis-server`` (``tests/redis_server.py``)
and skip, saying so, when it is not installed.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import zlib

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters import detect
from bench.dungeon import dungeon
from schemas.scene import SceneSchema
from service import model, store
from service.app import create_app, sample_scene
from service.cache import SceneCache, scene_id
from service.errors import SceneNotFound
from service.store import (
    FORMAT_RAW,
    FORMAT_ZLIB,
    KEY_PREFIX,
    SceneStore,
    decode_scene,
    encode_scene,
)
from tests.conftest import load_real
from tests.redis_server import free_port
from tests.scenes import load, tok, wall
from tests.schemas.test_ingestion import rich_scene

# --- stored bytes --------------------------------------------------------------------------


def tiny() -> model.Scene:
    return load([wall("w1", 250, -100, 250, 60)], [tok("A", 0, 0), tok("T", 400, 0)])


@pytest.mark.parametrize(
    ("make", "fmt"),
    [
        pytest.param(tiny, FORMAT_RAW, id="two tokens, one wall: raw"),
        pytest.param(lambda: SceneSchema().load(sample_scene()), FORMAT_RAW, id="sample"),
        pytest.param(lambda: SceneSchema().load(rich_scene()), FORMAT_ZLIB, id="every field"),
        pytest.param(lambda: SceneSchema().load(dungeon(5000, 50)), FORMAT_ZLIB, id="5000 walls"),
    ],
)
def test_stored_bytes_round_trip_to_an_equal_scene_and_the_same_id(make, fmt):
    scene = make()
    data = encode_scene(scene)
    assert data[:1] == fmt
    back = decode_scene(data)
    assert type(back) is model.Scene
    assert back == scene
    assert scene_id(back) == scene_id(scene)
    assert encode_scene(back) == data  # a second trip changes nothing


def test_compression_only_when_it_pays():
    scene = SceneSchema().load(dungeon(5000, 50))
    raw = msgspec.msgpack.encode(scene)
    data = encode_scene(scene)
    assert data[:1] == FORMAT_ZLIB and len(data) * 4 <= len(raw) * 3
    assert zlib.decompress(data[1:]) == raw
    small = tiny()
    assert encode_scene(small) == FORMAT_RAW + msgspec.msgpack.encode(small)


@pytest.mark.parametrize(
    "parts",
    [
        ("foundry", "foundry-v10-delian-tomb.json"),
        ("foundry", "foundry-v12-fa-manor-house-regions.json"),
        ("foundry", "foundry-v9-vttom-tower-levels.json"),
    ],
)
def test_real_scenes_round_trip(parts):
    scene = SceneSchema().load(detect.to_scene(load_real(*parts))["scene"])
    back = decode_scene(encode_scene(scene))
    assert back == scene and scene_id(back) == scene_id(scene)


_ids = st.text(min_size=1, max_size=8)
_coord = st.floats(-1e7, 1e7, allow_nan=False)


@st.composite
def scene_dicts(draw):
    wall_ids = draw(st.lists(_ids, max_size=12, unique=True))
    token_ids = draw(st.lists(_ids, min_size=1, max_size=6, unique=True))
    walls = []
    for wid in wall_ids:
        w = {"id": wid, "c": draw(st.lists(_coord, min_size=4, max_size=4))}
        if draw(st.booleans()):
            w["move"] = draw(st.sampled_from(["normal", "none"]))
            w["door"] = draw(st.sampled_from(["none", "door", "secret"]))
            w["sight"] = draw(st.sampled_from(["normal", "limited", "none"]))
        walls.append(w)
    tokens = [
        {
            "id": tid,
            "x": draw(_coord),
            "y": draw(_coord),
            "width": draw(st.sampled_from([0.5, 1, 2, 3])),
            "name": draw(st.text(max_size=12)),
            "elevation": draw(st.floats(-1000, 1000, allow_nan=False)),
            "conditions": draw(st.lists(st.sampled_from(["prone", "blinded"]), unique=True)),
        }
        for tid in token_ids
    ]
    lights = [
        {"id": f"L{i}", "x": draw(_coord), "y": draw(_coord), "bright": b, "dim": b * 2}
        for i, b in enumerate(draw(st.lists(st.floats(0, 100), max_size=3)))
    ]
    grid = {"size": draw(st.floats(1, 1000)), "distance": draw(st.sampled_from([5, 1.5, 10]))}
    return {"grid": grid, "walls": walls, "tokens": tokens, "lights": lights}


@given(scene_dicts())
def test_any_scene_round_trips_to_an_equal_scene_and_the_same_id(raw):
    scene = SceneSchema().load(raw)
    data = encode_scene(scene)
    assert data[:1] in (FORMAT_RAW, FORMAT_ZLIB)
    back = decode_scene(data)
    assert back == scene
    assert scene_id(back) == scene_id(scene)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\x09" + msgspec.msgpack.encode({}), id="unknown format byte"),
        pytest.param(FORMAT_ZLIB + b"not zlib", id="broken compression"),
        pytest.param(FORMAT_RAW + b"\xc1", id="not MessagePack"),
        pytest.param(FORMAT_RAW + msgspec.msgpack.encode({"grid": 3}), id="not a scene"),
        pytest.param(
            FORMAT_RAW
            + msgspec.msgpack.encode(
                {"grid": {"size": 100}, "walls": [{"id": "w", "c": [0, 0, 1e300, 0]}]}
            ),
            id="a bound broken",
        ),
    ],
)
def test_bytes_that_are_no_scene_are_refused(data):
    with pytest.raises(ValueError):
        decode_scene(data)


def test_a_lone_surrogate_cannot_be_stored_and_stays_local(redis_db):
    scene = load([], [tok("A", 0, 0, name="\ud800")])
    with pytest.raises(UnicodeEncodeError):
        encode_scene(scene)
    shared = SceneStore(redis_db.url)
    cache = SceneCache(store=shared)
    sid, geo = cache.put(scene)
    assert cache.get(sid) is geo
    assert shared.put(sid, scene) is False
    assert redis_db.client().exists(KEY_PREFIX + sid) == 0


# --- Redis ---------------------------------------------------------------------------------


def test_put_then_get_with_ttl(redis_db):
    shared = SceneStore(redis_db.url, ttl=600)
    scene = SceneSchema().load(dungeon(2000, 10))
    sid = scene_id(scene)
    assert shared.put(sid, scene) is True
    plain = redis_db.client()
    key = KEY_PREFIX + sid
    assert plain.get(key) == encode_scene(scene)
    assert 590 <= plain.ttl(key) <= 600
    plain.expire(key, 5)
    assert shared.get(sid) == scene
    assert 590 <= plain.ttl(key) <= 600  # reading it restarts the TTL (GETEX)
    assert shared.get("sha256:" + "0" * 64) is None
    assert shared.ping().as_dict() == {"backend": "redis", "reachable": True}


def test_a_worker_that_never_saw_a_scene_builds_it_from_the_store(redis_db):
    shared = SceneStore(redis_db.url)
    first, other = SceneCache(store=shared), SceneCache(store=SceneStore(redis_db.url))
    scene = SceneSchema().load(dungeon(600, 6))
    sid, geo = first.put(scene)
    built = other.get(sid)
    assert built is not geo and built.scene == scene
    assert built.walls.size == geo.walls.size == len(scene.walls)
    assert (built.walls.coords == geo.walls.coords).all()
    redis_db.client().flushall()
    assert other.get(sid) is built  # now held locally, in front of the store


def test_what_is_stored_and_when(redis_db):
    plain = redis_db.client()
    cache = SceneCache(store=SceneStore(redis_db.url))
    sample_id, _ = cache.put(SceneSchema().load(sample_scene()), alias="sample")
    assert plain.exists(KEY_PREFIX + sample_id) == 0  # aliases are every process's own
    sid, _ = cache.put(tiny())
    assert plain.exists(KEY_PREFIX + sid) == 1
    plain.delete(KEY_PREFIX + sid)
    cache.put(tiny())  # an inline scene held here already: no write
    assert plain.exists(KEY_PREFIX + sid) == 0
    cache.put(tiny(), publish=True)  # an upload stores it again (Redis may have evicted it)
    assert plain.exists(KEY_PREFIX + sid) == 1


def test_store_miss_or_garbage_is_the_usual_404(redis_db):
    cache = SceneCache(store=SceneStore(redis_db.url))
    plain = redis_db.client()
    missing = "sha256:" + "1" * 64
    plain.set(KEY_PREFIX + missing, b"\x01garbage")
    for sid in (missing, "sha256:" + "2" * 64, "not-an-id"):
        with pytest.raises(SceneNotFound) as err:
            cache.get(sid)
        assert err.value.path == ("scene_id",)


def test_a_scene_stored_under_another_id_is_not_served_and_is_dropped(redis_db):
    cache = SceneCache(store=SceneStore(redis_db.url))
    plain = redis_db.client()
    wrong = "sha256:" + "3" * 64
    plain.set(KEY_PREFIX + wrong, encode_scene(tiny()))
    with pytest.raises(SceneNotFound):
        cache.get(wrong)
    assert plain.exists(KEY_PREFIX + wrong) == 0


def test_redis_down_inline_works_ids_miss_and_it_comes_back(redis_db, monkeypatch):
    monkeypatch.setattr(store, "RETRY_AFTER", 60.0)
    shared = SceneStore(redis_db.url, timeout=0.3)
    cache = SceneCache(store=shared)
    known, _ = cache.put(tiny())
    scene = SceneSchema().load(dungeon(400, 4))
    redis_db.stop()
    sid, geo = cache.put(scene)  # inline: built and answered, not stored
    assert cache.get(sid) is geo and cache.get(known)  # local ids still work
    assert shared.get(known) is None and shared.put(sid, scene) is False
    with pytest.raises(SceneNotFound):
        SceneCache(store=shared).get(sid)  # another process: the usual 404
    assert shared.ping().reachable is False
    redis_db.start()
    redis_db.client().set(KEY_PREFIX + sid, encode_scene(scene))
    assert shared.get(sid) is None  # still skipped after the failure (RETRY_AFTER)
    assert shared.ping().reachable is True  # a probe that answers lifts it
    assert shared.get(sid) == scene


def test_a_restarted_redis_is_used_again_through_the_pool(redis_db):
    shared = SceneStore(redis_db.url)
    assert shared.put(scene_id(tiny()), tiny())
    redis_db.stop()
    redis_db.start()  # the pooled connection is dead; redis-py's one retry reconnects
    assert shared.put(scene_id(tiny()), tiny()) is True
    assert shared.get(scene_id(tiny())) == tiny()


def test_nothing_listens_fails_fast():
    shared = SceneStore(f"redis://127.0.0.1:{free_port()}/0", timeout=0.2)
    start = time.monotonic()
    assert shared.get("sha256:" + "4" * 64) is None
    assert shared.put("sha256:" + "4" * 64, tiny()) is False
    assert shared.ping().as_dict() == {"backend": "redis", "reachable": False}
    assert time.monotonic() - start < 5  # a bound against hanging, not a speed test


@pytest.fixture
def silent_port():
    """A port that accepts connections and never answers (a Redis stuck or far away)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


def test_a_silent_redis_costs_at_most_the_timeouts(silent_port):
    shared = SceneStore(f"redis://127.0.0.1:{silent_port}/0", timeout=0.2)
    start = time.monotonic()
    assert shared.get("sha256:" + "5" * 64) is None
    first = time.monotonic() - start
    assert first < 5  # a bound against hanging: two tries of 0.2 s, not redis-py's 5 s x 4
    assert shared.get("sha256:" + "5" * 64) is None  # skipped now: RETRY_AFTER
    assert shared.ping().reachable is False


# --- the HTTP service ----------------------------------------------------------------------

COVER = {"ruleset": "dnd5e", "attacker": "A", "targets": ["T"]}


def app_client(url: str | None, **config):
    return create_app({"TESTING": True, "REDIS_URL": url, **config}).test_client()


def test_health_and_ready_without_a_store():
    client = app_client(None)
    health = client.get("/healthz").get_json()
    assert health["status"] == "ok" and health["store"] == {"backend": "none", "reachable": None}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.get_json() == {"status": "ready", "store": {"backend": "none", "reachable": None}}


def test_health_and_ready_with_redis(redis_db):
    client = app_client(redis_db.url, API_KEYS=["k"])  # probes need no key
    assert client.get("/healthz").get_json()["store"] == {"backend": "redis", "reachable": True}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.get_json()["status"] == "ready"


def test_redis_unreachable_service_alive_not_ready_and_answering():
    client = app_client(f"redis://127.0.0.1:{free_port()}/0", REDIS_TIMEOUT=0.2)
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.get_json()["store"] == {"backend": "redis", "reachable": False}
    ready = client.get("/readyz")
    assert ready.status_code == 503 and ready.is_json
    body = ready.get_json()
    assert (body["code"], body["status"]) == (503, "Service Unavailable")
    assert "SIGHTLINE_REDIS_URL" in body["message"]
    assert body["errors"] == {"store": {"backend": "redis", "reachable": False}}
    scene = msgspec.to_builtins(tiny())
    inline = client.post("/v1/cover", json={**COVER, "scene": scene})
    assert inline.status_code == 200
    up = client.post("/v1/scenes", json={"scene": scene})
    assert up.status_code == 200
    by_id = client.post("/v1/cover", json={**COVER, "scene_id": up.get_json()["scene_id"]})
    assert by_id.status_code == 200 and by_id.get_json() == inline.get_json()
    unknown = client.post("/v1/cover", json={**COVER, "scene_id": "sha256:" + "6" * 64})
    assert unknown.status_code == 404
    assert "scene_id" in unknown.get_json()["errors"]["json"]


def test_upload_to_one_app_query_the_other_by_id(redis_db):
    one, two = app_client(redis_db.url), app_client(redis_db.url)
    scene = json.loads(json.dumps(rich_scene()))
    token_ids = [t["id"] for t in scene["tokens"]]
    query = {"ruleset": "dnd5e", "attacker": token_ids[0], "targets": token_ids[1:]}
    up = one.post("/v1/scenes", json={"scene": scene})
    assert up.status_code == 200
    sid = up.get_json()["scene_id"]
    by_id = two.post("/v1/cover", json={**query, "scene_id": sid})
    assert by_id.status_code == 200, by_id.get_json()
    inline = app_client(None).post("/v1/cover", json={**query, "scene": scene})
    assert by_id.get_json() == inline.get_json()
    assert [r["target"] for r in by_id.get_json()["results"]] == token_ids[1:]
