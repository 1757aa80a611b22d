"""Bulk wall validation (issue 7): same scene and same error paths as per-field marshmallow."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError, fields

from bench.dungeon import dungeon
from schemas.scene import SceneSchema, WallSchema, _fast_walls

SLOW = fields.List(fields.Nested(WallSchema))


def test_fast_path_builds_the_same_walls():
    walls = dungeon(600, 0)["walls"]
    walls[3]["threshold"] = {"sight": 10}
    walls[4]["height"] = {"bottom": 0, "top": 10}
    walls[5].update(hp=10, ac=13, cover="low", direction="left", sight="limited")
    fast = _fast_walls(walls)
    assert fast is not None
    assert tuple(fast) == tuple(SLOW.deserialize(walls))
    assert all(isinstance(v, float) for w in fast for v in w.c)


BAD = [
    pytest.param({"id": "w", "c": [0, 0, 1]}, id="three coordinates"),
    pytest.param({"id": "w", "c": [0, 0, 1, "2"]}, id="a string coordinate"),
    pytest.param({"id": "w", "c": [0, 0, 1, True]}, id="a boolean coordinate"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1e300]}, id="beyond the bounds"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "move": "sometimes"}, id="unknown restriction"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "move": ["normal"]}, id="unhashable enum"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "colour": "red"}, id="unknown field"),
    pytest.param({"id": "", "c": [0, 0, 1, 1]}, id="empty id"),
    pytest.param({"c": [0, 0, 1, 1]}, id="no id"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "threshold": {"sight": -1}}, id="bad threshold"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "hp": 2.5}, id="fractional hp"),
    pytest.param("wall", id="not an object"),
]


@pytest.mark.parametrize("bad", BAD)
def test_errors_have_the_same_paths(bad):
    walls = [{"id": "ok", "c": [0, 0, 100, 0]}, bad]
    with pytest.raises(ValidationError) as slow:
        SLOW.deserialize(walls)
    with pytest.raises(ValidationError) as fast:
        SceneSchema().load({"grid": {"size": 100}, "walls": walls})
    assert fast.value.messages == {"walls": slow.value.messages}
    assert list(slow.value.messages) == [1]
