"""Bulk scene ingestion: same scenes and same error paths as field-by-field loading.

Three ways in: JSON bytes through ``decode_json_body`` (the HTTP path), parsed Python dicts
through ``msgspec.convert`` (``SceneSchema.load``: CLI, adapters), and the reference,
marshmallow's field-by-field ``SceneSchema.reference_load``. Whatever the bulk paths accept,
the reference accepts with an equal scene; whatever they refuse goes to the reference, so
the errors are the reference's own.
"""

from __future__ import annotations

import json
import math
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from marshmallow import ValidationError

from bench.dungeon import dungeon
from schemas.scene import DecodedScene, SceneSchema, decode_json_body
from service import model
from service.app import create_app
from service.cache import scene_id

GRID = {"size": 100}


def reference(scene: Any) -> model.Scene:
    return SceneSchema().reference_load(scene)  # type: ignore[no-any-return]


def via_json(scene: Any) -> model.Scene | None:
    body = decode_json_body(json.dumps({"scene": scene, "ruleset": "dnd5e"}).encode())
    if body is None:
        return None
    assert type(body["scene"]) is DecodedScene
    return body["scene"].scene


def post_scene(scene: Any) -> Any:
    client = create_app({"TESTING": True}).test_client()
    data = json.dumps({"scene": scene})  # Python writes NaN and Infinity, as some clients do
    return client.post("/v1/scenes", data=data, content_type="application/json")


def rich_scene() -> dict[str, Any]:
    """Every kind and every optional field of the canonical scene, with ints for floats."""
    scene = dungeon(600, 4)
    walls = scene["walls"]
    walls[3]["threshold"] = {"sight": 10}
    walls[4]["height"] = {"bottom": 0, "top": 10}
    walls[5].update(hp=10, ac=13, cover="low", direction="left", sight="limited")
    walls[6].update(threshold={"light": 0, "sound": 30.5}, height={"top": -2}, ac=-3)
    scene["tokens"][0].update(
        name="Ogre",
        width=2,
        height=2,
        elevation=-5,
        size="huge",
        reach=10,
        senses={"darkvision": 60, "low_light_vision": True, "hearing": 0},
        conditions=["prone", "blinded"],
        swim_speed=30,
        abilities={"str": 4, "dex": -1},
        light={"bright": 20, "dim": 40},
        hidden=True,
    )
    scene["tokens"][1].update(width=0.5)
    scene["lights"] = [
        {"id": "torch", "x": 150, "y": 150, "bright": 20, "dim": 40},
        {"id": "cone", "x": 0, "y": 0, "angle": 90, "rotation": -45, "darkness": True},
    ]
    scene["regions"] = [
        {"id": "fog", "shape": {"type": "rect", "x": 0, "y": 0, "width": 200, "height": 100}},
        {
            "id": "pool",
            "shape": {"type": "polygon", "points": [[0, 0], [100, 0], [50, 80]]},
            "water": True,
            "obscurement": "heavy",
            "elevation": {"bottom": -10},
        },
        {"id": "well", "shape": {"type": "circle", "x": 5, "y": 5, "radius": 3}, "gravity": 0.5},
    ]
    scene["environment"] = {"light": "dim", "gravity": 2, "underwater": True}
    scene["grid"] = {"size": 100, "distance": 1.5, "units": "m", "diagonals": "alternating"}
    return scene


def test_bulk_paths_build_the_same_scene():
    scene = rich_scene()
    expected = reference(scene)
    assert msgspec.convert(scene, model.Scene) == expected
    assert SceneSchema().load(scene) == expected
    decoded = via_json(scene)
    assert type(decoded) is model.Scene and decoded == expected
    assert SceneSchema().load(DecodedScene(decoded)) is decoded  # taken as it is
    assert all(type(v) is float for w in decoded.walls for v in w.c)  # ints become floats
    ogre, small = decoded.tokens[:2]
    assert (ogre.name, ogre.size, small.name, small.size) == ("Ogre", "huge", "t1", "tiny")


def test_scene_id_does_not_depend_on_the_path():
    scene = rich_scene()
    explicit = json.loads(json.dumps(scene))
    explicit["walls"][0].update(move="normal", door="none")  # explicit defaults change nothing
    explicit["tokens"][2]["senses"] = {"darkvision": 0}
    ids = {
        scene_id(reference(scene)),
        scene_id(SceneSchema().load(scene)),
        scene_id(via_json(scene)),
        scene_id(via_json(explicit)),
    }
    assert len(ids) == 1


def _with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A small valid scene with ``value`` set at ``path`` (a new key where there was none)."""
    scene: dict[str, Any] = {
        "grid": {"size": 100},
        "walls": [{"id": "ok", "c": [0, 0, 100, 0]}, {"id": "w", "c": [0, 0, 1, 1]}],
        "tokens": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 0, "y": 200}],
        "lights": [{"id": "L", "x": 0, "y": 0}],
        "regions": [{"id": "R", "shape": {"type": "rect", "width": 1, "height": 1}}],
    }
    node: Any = scene
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return scene


W, T, L, R = ("walls", 1), ("tokens", 1), ("lights", 0), ("regions", 0)
BAD = [
    pytest.param((*W, "c"), [0, 0, 1], id="three coordinates"),
    pytest.param((*W, "c", 3), "2", id="a string coordinate"),
    pytest.param((*W, "c", 3), True, id="a boolean coordinate"),
    pytest.param((*W, "c", 3), None, id="a null coordinate"),
    pytest.param((*W, "c", 3), 1e300, id="beyond the bounds"),
    pytest.param((*W, "c", 3), -10000000.5, id="just beyond the bounds"),
    pytest.param((*W, "c", 3), math.nan, id="NaN"),
    pytest.param((*W, "c", 3), math.inf, id="Infinity"),
    pytest.param((*W, "c"), {"x": 1}, id="coordinates as an object"),
    pytest.param((*W, "move"), "sometimes", id="unknown restriction"),
    pytest.param((*W, "move"), ["normal"], id="unhashable enum"),
    pytest.param((*W, "move"), None, id="null restriction"),
    pytest.param((*W, "door"), "portcullis", id="unknown door"),
    pytest.param((*W, "colour"), "red", id="unknown wall field"),
    pytest.param((*W, "id"), "", id="empty wall id"),
    pytest.param((*W, "id"), 7, id="numeric wall id"),
    pytest.param((*W, "id"), "ok", id="duplicate wall id"),
    pytest.param((*W, "threshold"), {"sight": -1}, id="bad threshold"),
    pytest.param((*W, "threshold"), {"smell": 1}, id="unknown sense"),
    pytest.param((*W, "height"), {"bottom": 5, "top": 1}, id="span upside down"),
    pytest.param((*W, "height"), {"top": 2e6}, id="span too high"),
    pytest.param((*W, "hp"), 2.5, id="fractional hp"),
    pytest.param((*W, "hp"), -1, id="negative hp"),
    pytest.param((*W, "ac"), "13", id="ac in a string"),
    pytest.param(("walls", 1), "wall", id="wall not an object"),
    pytest.param(("walls", 1), None, id="null wall"),
    pytest.param(("walls",), {"w": 1}, id="walls as an object"),
    pytest.param((*T, "id"), "A", id="duplicate token id"),
    pytest.param((*T, "x"), "0", id="token x in a string"),
    pytest.param((*T, "width"), 0, id="token width 0"),
    pytest.param((*T, "name"), 5, id="numeric name"),
    pytest.param((*T, "size"), "colossal", id="unknown size"),
    pytest.param((*T, "conditions"), "prone", id="conditions as a string"),
    pytest.param((*T, "conditions"), [3], id="numeric condition"),
    pytest.param((*T, "senses"), {"darkvision": -1}, id="negative darkvision"),
    pytest.param((*T, "senses"), {"sonar": 60}, id="unknown sense of a token"),
    pytest.param((*T, "abilities"), {"str": 1.5}, id="fractional ability"),
    pytest.param((*T, "abilities"), {"str": 101}, id="ability too high"),
    pytest.param((*T, "light"), {"bright": "20"}, id="carried light in a string"),
    pytest.param((*T, "hidden"), "maybe", id="hidden maybe"),
    pytest.param((*T, "hidden"), 1, id="hidden as 1"),
    pytest.param((*T, "hidden"), "yes", id="hidden as yes"),
    pytest.param((*T, "senses"), {"low_light_vision": "true"}, id="low-light vision as a string"),
    pytest.param((*L, "darkness"), "true", id="darkness as a string"),
    pytest.param((*L, "walls"), 0, id="light walls as 0"),
    pytest.param((*R, "water"), 1.0, id="water as 1.0"),
    pytest.param((*R, "concealment"), "on", id="concealment as on"),
    pytest.param((*R, "magical_darkness"), "t", id="magical darkness as t"),
    pytest.param(("environment",), {"underwater": "1"}, id="underwater as a string"),
    pytest.param((*T, "speed"), 30, id="unknown token field"),
    pytest.param((*L, "angle"), 361, id="light angle 361"),
    pytest.param((*L, "rotation"), 1e5, id="light rotation too far"),
    pytest.param((*L, "x"), None, id="light without x"),
    pytest.param((*R, "shape"), {"type": "polygon", "points": [[0, 0], [1, 1]]}, id="2-gon"),
    pytest.param((*R, "shape"), {"type": "rect", "width": 1}, id="rect without height"),
    pytest.param((*R, "shape"), {"type": "circle"}, id="circle without radius"),
    pytest.param((*R, "shape"), {"type": "star", "radius": 1}, id="unknown shape"),
    pytest.param((*R, "shape"), {"type": "polygon", "points": [[0], [1, 1], [2, 0]]}, id="pt"),
    pytest.param((*R, "obscurement"), "thick", id="unknown obscurement"),
    pytest.param((*R, "gravity"), -1, id="negative gravity"),
    pytest.param((*R, "elevation"), {"bottom": 1, "top": 0}, id="region span upside down"),
    pytest.param(("grid", "size"), 0, id="grid size 0"),
    pytest.param(("grid", "size"), 1e-300, id="grid under a pixel (distances overflow)"),
    pytest.param(("grid", "distance"), 1e-310, id="grid distance tiny (px per unit overflows)"),
    pytest.param(("grid", "units"), "km", id="unknown units"),
    pytest.param(("grid",), None, id="null grid"),
    pytest.param(("environment",), {"light": "gloomy"}, id="unknown light level"),
    pytest.param(("environment",), {"gravity": 1001}, id="gravity too high"),
    pytest.param(("width",), -1, id="negative width"),
    pytest.param(("fog",), True, id="unknown scene field"),
]


@pytest.mark.parametrize(("path", "value"), BAD)
def test_bad_scenes_get_the_reference_errors_on_every_path(path, value):
    scene = _with(path, value)
    with pytest.raises(ValidationError) as ref:
        reference(scene)
    with pytest.raises(ValidationError) as bulk:
        SceneSchema().load(scene)
    assert bulk.value.messages == ref.value.messages
    assert str(path[0]) in ref.value.messages  # the error names the part at fault
    assert via_json(scene) is None  # declined: the body is parsed the ordinary way
    res = post_scene(scene)
    assert res.status_code == 422
    assert res.get_json()["errors"]["json"]["scene"] == json.loads(json.dumps(ref.value.messages))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('"\\ud800"', id="lone surrogate (msgspec refuses, json.loads takes)"),
        pytest.param('"w\\u0000"', id="NUL"),
    ],
)
def test_valid_scenes_msgspec_declines_still_load(text):
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


@pytest.mark.parametrize(
    "scene",
    [
        pytest.param(_with((*T, "name"), None), id="null name"),
    ],
)
def test_values_only_marshmallow_takes_still_load_the_same(scene):
    """Declined by msgspec, taken by the reference: the answer is the reference's."""
    assert via_json(scene) is None
    assert SceneSchema().load(scene) == reference(scene)
    assert post_scene(scene).status_code == 200


# Random scenes: every field drawn mostly from valid values, now and then from junk or
# from the edges of its bounds, so that about half the scenes are valid and the others
# fail in one or two places, hitting every branch of both validators.
JUNK = st.sampled_from([None, True, False, 0, -1, 1.5, "", "x", "normal", [], {}, 1e400])
EDGES = st.sampled_from(
    [0.0, 0.01, 0.009, -0.5, 360, 361, 1e5, 1e6, 1e6 + 1, 1e7, -1e7, 2e7, 2e7 + 1, math.nan]
)


def sometimes(usual: st.SearchStrategy, rare: st.SearchStrategy, one_in: int) -> st.SearchStrategy:
    """``usual``, or ``rare`` about once in ``one_in`` draws."""
    return st.integers(1, one_in).flatmap(lambda k: rare if k == 1 else usual)


NUM = sometimes(st.one_of(st.integers(0, 5), st.floats(0, 100)), EDGES, 8)


def v(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """``strategy``, or junk about once in 40 draws."""
    return sometimes(strategy, JUNK, 40)


def obj(**fields: st.SearchStrategy) -> st.SearchStrategy:
    """Objects with any subset of ``fields``, now and then with an unknown one."""
    return st.fixed_dictionaries({}, optional=fields).flatmap(
        lambda d: sometimes(st.just(d), st.just({**d, "colour": "red"}), 40)
    )


def one_of(values: Any) -> st.SearchStrategy:
    return v(st.sampled_from(list(values)))


ID = sometimes(st.uuids().map(str), st.sampled_from(["a", "", 7]), 10)
SPAN = v(obj(bottom=v(NUM), top=v(NUM)))
WALL = obj(
    id=ID,
    c=v(sometimes(st.lists(NUM, min_size=4, max_size=4), st.lists(NUM, max_size=5), 10)),
    move=one_of(model.RESTRICTIONS),
    sight=one_of(model.RESTRICTIONS),
    light=one_of(["none", "limited", "Normal"]),
    direction=one_of(["both", "left", "up"]),
    door=one_of(["none", "door", "secret"]),
    door_state=one_of(["closed", "open", "ajar"]),
    cover=one_of(["normal", "low", "extreme", "total"]),
    threshold=v(obj(sight=v(NUM), light=v(NUM), sound=v(NUM))),
    height=SPAN,
    hp=v(st.integers(-5, 10**9 + 5)),
    ac=v(st.integers(-1005, 1005)),
)
TOKEN = obj(
    id=ID,
    x=v(NUM),
    y=v(NUM),
    name=v(st.text(max_size=3)),
    width=v(NUM),
    height=v(NUM),
    elevation=v(NUM),
    size=one_of(model.SIZES),
    reach=v(NUM),
    senses=v(obj(darkvision=v(NUM), low_light_vision=v(st.booleans()), hearing=v(NUM))),
    conditions=v(st.lists(v(st.text(max_size=3)), max_size=2)),
    swim_speed=v(NUM),
    abilities=v(obj(str=v(st.integers(-101, 101)), con=v(st.integers(-101, 101)))),
    light=v(obj(bright=v(NUM), dim=v(NUM))),
    hidden=v(st.booleans()),
)
LIGHT = obj(
    id=ID, x=v(NUM), y=v(NUM), bright=v(NUM), angle=v(NUM), rotation=v(NUM), walls=v(st.booleans())
)
POINT = st.tuples(NUM, NUM).map(list)
SHAPE = sometimes(
    st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("polygon"), "points": st.lists(POINT, min_size=3, max_size=5)}
        ),
        st.fixed_dictionaries({"type": st.just("rect"), "width": NUM, "height": NUM}),
        st.fixed_dictionaries({"type": st.just("circle"), "radius": NUM}, optional={"x": NUM}),
    ),
    obj(
        type=one_of(["polygon", "rect", "circle"]),
        points=v(st.lists(v(st.lists(v(NUM), min_size=1, max_size=3)), max_size=4)),
        x=v(NUM),
        width=v(NUM),
        height=v(NUM),
        radius=v(NUM),
    ),
    10,
)
REGION = obj(
    id=ID,
    shape=SHAPE,
    obscurement=one_of(["light", "heavy"]),
    water=v(st.booleans()),
    gravity=v(NUM),
    elevation=SPAN,
)
SCENE = st.fixed_dictionaries(
    {
        "grid": v(
            st.fixed_dictionaries(
                {"size": NUM}, optional={"distance": NUM, "units": one_of(["ft", "m"])}
            )
        )
    },
    optional={
        "walls": st.lists(v(WALL), max_size=3),
        "tokens": st.lists(v(TOKEN), max_size=3),
        "lights": st.lists(v(LIGHT), max_size=2),
        "regions": st.lists(v(REGION), max_size=2),
        "environment": v(obj(light=one_of(model.LIGHT_LEVELS), gravity=v(NUM))),
        "width": v(NUM),
    },
)


def _finite(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return not isinstance(value, float) or math.isfinite(value)


@given(SCENE)
def test_what_the_bulk_paths_accept_the_reference_accepts_equally(scene):
    try:
        expected = reference(scene)
    except ValidationError:
        expected = None
    try:
        converted = msgspec.convert(scene, model.Scene)
    except msgspec.ValidationError:
        converted = None
    if converted is not None:
        assert converted == expected
    if _finite(scene):  # JSON text has no NaN or infinities for msgspec to read
        decoded = via_json(scene)
        if decoded is not None:
            assert decoded == expected


@given(SCENE)
def test_bulk_load_answers_as_the_reference_does(scene):
    """``SceneSchema.load`` gives the reference's scene, or the reference's errors."""
    try:
        expected: Any = reference(scene)
    except ValidationError as err:
        expected = err.messages
    try:
        got: Any = SceneSchema().load(scene)
    except ValidationError as err:
        got = err.messages
    assert got == expected


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


@given(json_values)
def test_the_rest_of_the_body_is_parsed_as_json_loads_parses_it(extra):
    text = json.dumps({"scene": {"grid": GRID}, "other": extra, "ruleset": "x"}).encode()
    decoded = decode_json_body(text)
    assert decoded is not None
    assert decoded["scene"].scene == model.Scene(model.Grid(100.0))
    assert decoded == {**json.loads(text), "scene": decoded["scene"]}


@pytest.mark.parametrize(
    "scene",
    [
        pytest.param(model.Scene(model.Grid(5.0)), id="a model Scene"),
        pytest.param({"grid": model.Grid(size=-5.0)}, id="a model Grid"),
        pytest.param(
            {"grid": GRID, "walls": [model.Wall(id="", c=(math.nan, 0, 1e99, 1), hp=-5)]},
            id="a model Wall",
        ),
        pytest.param(
            {
                "grid": GRID,
                "walls": [{"id": "a", "c": [0, 0, 1, 1], "threshold": model.Threshold(-1.0)}],
            },
            id="a model Threshold",
        ),
        pytest.param(
            {"grid": GRID, "tokens": [{"id": "t", "x": 0, "y": 0, "senses": model.Senses(-5.0)}]},
            id="model Senses",
        ),
    ],
)
def test_model_objects_in_the_data_are_refused_not_taken_unchecked(scene):
    """msgspec would take instances of its own types as they are: those go to marshmallow."""
    with pytest.raises(ValidationError, match="Invalid input type"):
        SceneSchema().load(scene)


def _string_positions(value: Any, path: tuple[Any, ...] = ()):
    """Paths to every string value and every key (as ("key", path)) in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield ("key", (*path, key))
            yield from _string_positions(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _string_positions(item, (*path, i))
    elif isinstance(value, str):
        yield ("value", path)


def _replaced(value: Any, where: tuple[str, tuple[Any, ...]], new: str) -> Any:
    kind, path = where
    out = json.loads(json.dumps(value))
    node = out
    for key in path[:-1]:
        node = node[key]
    if kind == "key":
        node[new] = node.pop(path[-1])
    else:
        node[path[-1]] = new
    return out


def test_a_lone_surrogate_anywhere_never_fails_the_server():
    """In every string and every key of a scene: 200 or a 422 naming the place, never 500.

    msgspec refuses text that UTF-8 cannot hold; the scene then goes the marshmallow way.
    """
    scene = rich_scene()
    scene["walls"] = scene["walls"][:8]
    client = create_app({"TESTING": True}).test_client()
    positions = list(_string_positions(scene))
    assert len(positions) > 100
    for where in positions:
        bad = _replaced(scene, where, "\ud800")
        for path, extra in (("/v1/scenes", {}), ("/v1/cover", {"ruleset": "dnd5e"})):
            body = {"scene": bad, "attacker": "t2", "targets": ["t3"], **extra}
            res = client.post(path, data=json.dumps(body), content_type="application/json")
            assert res.status_code in (200, 404, 422), (where, path, res.get_data()[:300])
            assert res.is_json
