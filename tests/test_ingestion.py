"""Bulk wall ingestion (issue 7): same walls and same error paths as per-field marshmallow.

Three ways in: JSON bytes through ``decode_json_body`` (the HTTP path), parsed Python lists
through ``msgspec.convert`` (CLI, adapters), and the reference ``List(Nested(WallSchema))``.
Whatever the two bulk paths accept, the reference accepts with equal walls; whatever they
refuse falls back to the reference, so the errors are the reference's own.
"""

from __future__ import annotations

import json
import math

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from marshmallow import ValidationError, fields

from bench.dungeon import dungeon
from schemas.scene import DecodedWalls, SceneSchema, WallSchema, decode_json_body
from service import model
from service.app import create_app
from service.cache import scene_id

REFERENCE = fields.List(fields.Nested(WallSchema))
GRID = {"size": 100}


def reference(walls):
    return tuple(REFERENCE.deserialize(walls))


def via_json(walls, **scene):
    body = decode_json_body(json.dumps({"scene": {"grid": GRID, **scene, "walls": walls}}).encode())
    return None if body is None else body["scene"]["walls"]


def mixed_walls():
    walls = dungeon(600, 0)["walls"]
    walls[3]["threshold"] = {"sight": 10}
    walls[4]["height"] = {"bottom": 0, "top": 10}
    walls[5].update(hp=10, ac=13, cover="low", direction="left", sight="limited")
    walls[6].update(threshold={"light": 0, "sound": 30.5}, height={"top": -2}, ac=-3)
    return walls


def test_bulk_paths_build_the_same_walls():
    walls = mixed_walls()
    decoded = via_json(walls)
    assert type(decoded) is DecodedWalls
    expected = reference(walls)
    assert tuple(decoded) == expected
    assert SceneSchema().load({"grid": GRID, "walls": walls}).walls == expected
    assert SceneSchema().load({"grid": GRID, "walls": decoded}).walls == expected
    assert all(type(v) is float for w in decoded for v in w.c)  # ints become floats


def test_scene_id_does_not_depend_on_the_path():
    big = dungeon(300, 5)
    big["walls"][0]["move"] = "normal"  # an explicit default changes nothing
    from_json = decode_json_body(json.dumps({"scene": big}).encode())["scene"]
    ids = {
        scene_id(SceneSchema().load(from_json)),
        scene_id(SceneSchema().load(big)),
        scene_id(SceneSchema().load({**big, "walls": REFERENCE.deserialize(big["walls"])})),
    }
    assert len(ids) == 1


BAD = [
    pytest.param({"id": "w", "c": [0, 0, 1]}, id="three coordinates"),
    pytest.param({"id": "w", "c": [0, 0, 1, "2"]}, id="a string coordinate"),
    pytest.param({"id": "w", "c": [0, 0, 1, True]}, id="a boolean coordinate"),
    pytest.param({"id": "w", "c": [0, 0, 1, None]}, id="a null coordinate"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1e300]}, id="beyond the bounds"),
    pytest.param({"id": "w", "c": [0, 0, 1, -10000000.5]}, id="just beyond the bounds"),
    pytest.param({"id": "w", "c": [0, 0, 1, math.nan]}, id="NaN"),
    pytest.param({"id": "w", "c": [0, 0, 1, math.inf]}, id="Infinity"),
    pytest.param({"id": "w", "c": {"x": 1}}, id="coordinates as an object"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "move": "sometimes"}, id="unknown restriction"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "move": ["normal"]}, id="unhashable enum"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "move": None}, id="null restriction"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "door": "portcullis"}, id="unknown door"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "colour": "red"}, id="unknown field"),
    pytest.param({"id": "", "c": [0, 0, 1, 1]}, id="empty id"),
    pytest.param({"id": 7, "c": [0, 0, 1, 1]}, id="numeric id"),
    pytest.param({"c": [0, 0, 1, 1]}, id="no id"),
    pytest.param({"id": "w"}, id="no coordinates"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "threshold": {"sight": -1}}, id="bad threshold"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "threshold": {"smell": 1}}, id="unknown sense"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "height": {"bottom": 5, "top": 1}}, id="span"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "height": {"top": 2e6}}, id="span too high"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "hp": 2.5}, id="fractional hp"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "hp": -1}, id="negative hp"),
    pytest.param({"id": "w", "c": [0, 0, 1, 1], "ac": "13"}, id="ac in a string"),
    pytest.param("wall", id="not an object"),
    pytest.param(None, id="null wall"),
]


@pytest.mark.parametrize("bad", BAD)
def test_bad_walls_get_the_reference_errors_on_every_path(bad):
    walls = [{"id": "ok", "c": [0, 0, 100, 0]}, bad]
    with pytest.raises(ValidationError) as ref:
        REFERENCE.deserialize(walls)
    assert list(ref.value.messages) == [1]
    expected = {"walls": ref.value.messages}
    with pytest.raises(ValidationError) as from_list:
        SceneSchema().load({"grid": GRID, "walls": walls})
    assert from_list.value.messages == expected
    assert via_json(walls) is None  # declined: the body is parsed the ordinary way
    # Through HTTP (Python's json.dumps writes NaN and Infinity, as some clients do).
    client = create_app({"TESTING": True}).test_client()
    data = json.dumps({"scene": {"grid": GRID, "walls": walls}})
    res = client.post("/v1/scenes", data=data, content_type="application/json")
    assert res.status_code == 422
    assert res.get_json()["errors"]["json"]["scene"] == json.loads(json.dumps(expected))


def test_duplicate_wall_ids_are_named_on_every_path():
    walls = [
        {"id": "a", "c": [0, 0, 1, 0]},
        {"id": "b", "c": [0, 1, 1, 1]},
        {"id": "a", "c": [1, 1, 2, 2]},
    ]
    expected = {"walls": {2: {"id": ["Duplicate id 'a'."]}}}
    for value in (walls, via_json(walls)):
        with pytest.raises(ValidationError) as err:
            SceneSchema().load({"grid": GRID, "walls": value})
        assert err.value.messages == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('"\\ud800"', id="lone surrogate (msgspec refuses, json.loads takes)"),
        pytest.param('"w\\u0000"', id="NUL"),
    ],
)
def test_valid_walls_msgspec_declines_still_load(text):
    """Strings JSON text can carry but UTF-8 cannot, in every kind of id or name: 200."""
    body = (
        f'{{"scene": {{"grid": {{"size": 100}}, "walls": [{{"id": {text}, "c": [0, 0, 1, 1]}}],'
        f' "tokens": [{{"id": {text}, "name": {text}, "x": 0, "y": 0, "conditions": [{text}]}}],'
        f' "lights": [{{"id": {text}, "x": 0, "y": 0}}]}}}}'
    )
    client = create_app({"TESTING": True}).test_client()
    first = client.post("/v1/scenes", data=body, content_type="application/json")
    again = client.post("/v1/scenes", data=body, content_type="application/json")
    assert first.status_code == 200, first.get_json()
    assert first.get_json()["stats"]["walls"] == 1
    assert first.get_json()["scene_id"] == again.get_json()["scene_id"]


# A pool of values per field, valid and invalid, so random walls hit every branch.
ANY = st.sampled_from([None, True, False, 0, -1, 1.5, "", "x", "normal", [], {}, math.nan, 1e400])
VALUES = {
    "id": st.one_of(st.text(max_size=3), ANY),
    "c": st.one_of(
        st.lists(st.one_of(st.integers(-(10**7) - 1, 10**7 + 1), st.floats(), ANY), max_size=5),
        ANY,
    ),
    "move": st.one_of(st.sampled_from(model.RESTRICTIONS), ANY),
    "sight": st.one_of(st.sampled_from(model.RESTRICTIONS), ANY),
    "light": st.sampled_from(["none", "limited", "Normal"]),
    "sound": st.sampled_from(["proximity", "distance", "normal"]),
    "direction": st.sampled_from(["both", "left", "right", "up"]),
    "door": st.sampled_from(["none", "door", "secret", True]),
    "door_state": st.sampled_from(["closed", "open", "locked", "ajar"]),
    "cover": st.sampled_from(["normal", "low", "improved", "extreme", "total"]),
    "threshold": st.one_of(
        st.none(),
        st.fixed_dictionaries(
            {},
            optional={
                k: st.one_of(st.floats(-1, 2e6), ANY) for k in ("sight", "light", "sound", "smell")
            },
        ),
        ANY,
    ),
    "height": st.one_of(
        st.none(),
        st.fixed_dictionaries(
            {}, optional={k: st.one_of(st.floats(-2e6, 2e6), ANY) for k in ("bottom", "top")}
        ),
        ANY,
    ),
    "hp": st.one_of(st.none(), st.integers(-5, 10**9 + 5), ANY),
    "ac": st.one_of(st.none(), st.integers(-1005, 1005), ANY),
    "colour": st.just("red"),
}
walls_st = st.lists(st.fixed_dictionaries({}, optional=VALUES), max_size=4)


@given(walls_st)
def test_what_the_bulk_paths_accept_the_reference_accepts_equally(walls):
    try:
        expected = reference(walls)
    except ValidationError:
        expected = None
    try:
        converted = tuple(msgspec.convert(walls, list[model.Wall]))
    except msgspec.ValidationError:
        converted = None
    if converted is not None:
        assert converted == expected
    if not any(isinstance(v, float) and not math.isfinite(v) for v in _leaves(walls)):
        decoded = via_json(walls)  # JSON has no NaN or infinities for msgspec
        if decoded is not None:
            assert tuple(decoded) == expected


def _leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(json_values, json_values)
def test_the_rest_of_the_body_is_parsed_as_json_loads_parses_it(extra, scene_extra):
    body = {"scene": {"grid": GRID, "walls": [], "x": scene_extra}, "other": extra}
    text = json.dumps(body).encode()
    decoded = decode_json_body(text)
    assert decoded is not None
    assert decoded["scene"]["walls"] == ()
    decoded["scene"]["walls"] = []
    assert decoded == json.loads(text)
