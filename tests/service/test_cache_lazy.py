"""The scene cache's memory bound counts what queries build lazily on a scene (``service.cache``).

Closed rooms (``service.geometry.rooms``: per sense and wall choice), junction labels and the
wall grid are built after a scene is cached; a lattice of crossing walls (15 kB of JSON)
closes 22,201 rooms, about 10 MB, where the scene's own estimate is half a megabyte. The
cache measures them (``lazy_bytes``) at its next access and evicts past the bound, so
distinct lattice scenes keep the counted memory under ``SIGHTLINE_SCENE_CACHE_MAX_MB``; the
e2e test (``tests/e2e/test_cache_bound.py``) shows a real worker's RSS staying flat over 45.
"""

from __future__ import annotations

import pytest

from bench.dungeon import dungeon
from bench.worst import dungeon_with_heights, lattice
from service.app import create_app
from service.cache_size import BYTES_PER_GEOMETRY, LAZY_DEPTH, approx_bytes, held_bytes, lazy_bytes
from service.engine.walls import WallIndex

MB = 2**20


def ask(client, sid: str) -> None:
    """A cover matrix and a vision question: the rooms of each sense get built."""
    for path, body in (
        ("/v1/matrix", {"ruleset": "dnd5e", "scene_id": sid, "kind": "cover"}),
        ("/v1/vision", {"ruleset": "dnd5e", "scene_id": sid, "observer": "a", "targets": ["b"]}),
    ):
        assert client.post(path, json=body).status_code == 200


def test_the_rooms_built_by_queries_are_counted():
    app = create_app({"SCENE_CACHE_MAX_MB": 1000})
    client = app.test_client()
    cache = app.extensions["sightline_cache"]
    before = cache.counted_bytes()
    sid = client.post("/v1/scenes", json={"scene": lattice()}).get_json()["scene_id"]
    ask(client, sid)
    geo = cache.get(sid)  # an access: what the queries built is counted now
    rooms = lazy_bytes(geo)
    assert rooms > 20_000 * BYTES_PER_GEOMETRY  # 22,201 rooms
    assert rooms > 10 * approx_bytes(geo)  # what the estimate from the counts misses
    assert cache.counted_bytes() - before >= approx_bytes(geo) + rooms


def test_distinct_lattice_scenes_keep_the_cache_within_its_bound():
    bound_mb = 64
    app = create_app({"SCENE_CACHE_MAX_MB": bound_mb, "SCENE_CACHE_SIZE": 1000})
    client = app.test_client()
    cache = app.extensions["sightline_cache"]
    held = []
    for k in range(12):  # 45 scenes in a real worker: tests/e2e/test_cache_bound.py
        sid = client.post("/v1/scenes", json={"scene": lattice(seed=k)}).get_json()["scene_id"]
        ask(client, sid)
        cache.get(sid)
        assert cache.counted_bytes() <= bound_mb * MB, (k, cache.counted_bytes() / MB)
        held.append(len(cache))
    assert max(held) < 10  # about 10 MB a scene: a handful fit, the rest are evicted


@pytest.mark.parametrize("shared", [False, True])
def test_a_shared_wall_index_is_counted_once(shared):
    app = create_app({"SCENE_CACHE_MAX_MB": 1000})
    client = app.test_client()
    cache = app.extensions["sightline_cache"]
    first = lattice()
    sid = client.post("/v1/scenes", json={"scene": first}).get_json()["scene_id"]
    ask(client, sid)
    cache.get(sid)
    one = cache.counted_bytes()
    second = {**first, "tokens": [*first["tokens"], {"id": "c", "x": 500, "y": 500}]}
    if not shared:
        second = lattice(seed=1)
    other = client.post("/v1/scenes", json={"scene": second}).get_json()["scene_id"]
    ask(client, other)
    cache.get(other)
    rooms = lazy_bytes(cache.get(sid))
    grown = cache.counted_bytes() - one
    if shared:  # the same walls: one index, its rooms counted with one scene only
        assert grown < rooms / 2
    else:
        assert grown > rooms / 2


def test_what_door_flips_share_is_counted_once():
    """A door flip keeps the junction labels, obstacle components and wall grid of its parent
    (``engine.live.flipped_index``) and, for a door on no room's ring, the rooms: a chain of
    flips counts them once, not once per scene of the chain (five flips of a 2,000-wall
    dungeon counted about 1 MB that nothing held)."""
    app = create_app({"SCENE_CACHE_MAX_MB": 1000})
    client = app.test_client()
    cache = app.extensions["sightline_cache"]
    scene = dungeon(2000, 6, seed=3)
    doors = [w["id"] for w in scene["walls"] if w.get("door_state") == "closed"]
    sid = client.post("/v1/scenes", json={"scene": scene}).get_json()["scene_id"]
    one = lazy_bytes(cache.get(sid))
    before = cache.lazy_counted_bytes()
    for door in doors[:5]:
        change = {"walls": {door: {"door_state": "open"}}}
        sid = client.patch(f"/v1/scenes/{sid}", json=change).get_json()["scene_id"]
        cache.get(sid)
        assert lazy_bytes(cache.get(sid)) > one / 2  # each scene holds about as much
    assert cache.lazy_counted_bytes() - before < one / 2  # but the six hold it once


def test_a_copy_of_the_index_for_a_height_band_counts_only_what_it_adds():
    """The rooms of a height band are built on a copy of the wall index (``sealed._covering``,
    GEO-5a) sharing the walls, coordinates and tree of the index, which the scene's own
    estimate counts: the copy adds its changed arrays only (it had been counted whole, each
    wall again: 17 MB at 50,000 walls)."""
    app = create_app({"SCENE_CACHE_MAX_MB": 1000})
    client = app.test_client()
    cache = app.extensions["sightline_cache"]
    sid = client.post("/v1/scenes", json={"scene": dungeon_with_heights(3000, 12)})
    sid = sid.get_json()["scene_id"]
    body = {"ruleset": "starfinder", "scene_id": sid, "kind": "cover"}
    assert client.post("/v1/matrix", json=body).status_code == 200
    geo = cache.get(sid)
    copies = [v for v in geo.walls.memo.get("covering", {}).values() if isinstance(v, WallIndex)]
    assert copies  # the band's rooms were built on a copy
    whole = sum(held_bytes(c, set(), LAZY_DEPTH) for c in copies)
    assert lazy_bytes(geo) < whole  # the copy's shared walls are not counted again
