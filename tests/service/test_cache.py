"""Scene cache (DESIGN.md "Scene cache"): content hash, LRU by count and by memory."""

from __future__ import annotations

import pytest

from service.cache import SceneCache, approx_bytes, scene_id
from service.errors import SceneNotFound
from tests.scenes import load, tok, wall


def scene(n):
    return load([wall(f"w{i}", 0, i, 10, i) for i in range(n)], [tok("A", 0, 0)])


def test_same_content_same_id_and_reuse():
    cache = SceneCache(4)
    sid, geo = cache.put(scene(3))
    sid2, geo2 = cache.put(scene(3))
    assert sid == sid2 == scene_id(scene(3)) and geo2 is geo
    assert cache.get(sid) is geo


def test_lru_by_count_keeps_the_recently_used():
    cache = SceneCache(2)
    a, _ = cache.put(scene(1))
    b, _ = cache.put(scene(2))
    cache.get(a)
    c, _ = cache.put(scene(3))
    assert cache.get(a) and cache.get(c)
    with pytest.raises(SceneNotFound):
        cache.get(b)


def test_memory_bound_evicts_and_aliases_stay():
    one = approx_bytes(SceneCache().put(scene(50))[1])
    cache = SceneCache(100, max_bytes=int(one * 2.5))
    pinned, _ = cache.put(scene(50), alias="sample")
    ids = [cache.put(scene(51 + i))[0] for i in range(4)]
    assert len(cache) == 2
    assert cache.get("sample") is cache.get(pinned)
    assert cache.get(ids[-1])
    with pytest.raises(SceneNotFound):
        cache.get(ids[0])
