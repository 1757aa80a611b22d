"""Live scenes (docs/decisions.md "Live scenes"): a patched scene answers as a whole upload.

Every scene made by ``SceneCache.patch`` (built from its parent: token spaces only, doors
flipped in the wall index with the rooms carried, the index rebuilt for moved walls) gets
the id a whole upload of the same scene gets, and answers cover, vision, lighting, a matrix
and line of effect exactly as ``build_scene`` of that scene does.
"""

from __future__ import annotations

import msgspec
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.dungeon import dungeon
from service.cache import SceneCache
from service.engine.budget import WorkBudget
from service.engine.digest import CHUNK, scene_id
from service.engine.live import Change
from service.engine.scene import build_scene
from service.geometry.rooms import firm_rooms
from service.model import Environment, Light, Region, Scene, Shape, Token, Wall
from service.operations import OPERATIONS

#: A small dungeon: rooms closed by walls with doors (every other one open), tokens and
#: lights in them; more walls than a chunk so that hashing by chunks is exercised.
BASE = dungeon(260, 6, seed=3)
BASE["lights"] = [
    {"id": "torch", "x": 350, "y": 350, "bright": 10, "dim": 20},
    {"id": "lamp", "x": 1250, "y": 450, "bright": 5, "dim": 30},
]
BASE_SCENE = msgspec.convert(BASE, Scene)
DOORS = [w.id for w in BASE_SCENE.walls if w.door != "none"]
PLAIN_WALLS = [w.id for w in BASE_SCENE.walls if w.door == "none"]
EXTENT = BASE["width"]


def answers(geo) -> dict:
    """Cover, vision, lighting, a matrix and line of effect of every kind the scene allows."""
    ids = [t.id for t in geo.scene.tokens]
    out: dict = {}
    if len(ids) < 2:
        return out
    budget = WorkBudget(10**12, "test")
    queries = {
        "cover": {"ruleset": "dnd5e", "attacker": ids[0], "targets": ids[1:]},
        "vision": {"ruleset": "dnd5e", "observer": ids[0], "targets": ids[1:]},
        "lighting": {"points": [[150, 150], [950, 420]], "tokens": ids[:2]},
        "matrix": {"ruleset": "dnd5e", "kind": "cover", "tokens": ids[:4]},
        "line-of-effect": {"from": ids[0], "to": ids[-1]},
    }
    for name, query in queries.items():
        op = OPERATIONS[name]
        args = op.loader.load({"scene_id": "x", **query})
        if op.prepare is not None:
            args = op.prepare(args)
        out[name] = op.answer(geo, args, budget=budget)
    return out


def token(i: int, x: float, y: float) -> Token:
    return Token(f"new{i}", x, y)


@st.composite
def changes(draw, scene: Scene) -> Change:
    """A change of a few items of ``scene``: moves, doors, restrictions, lights, walls."""
    tokens: dict = {}
    for t in draw(st.lists(st.sampled_from([t.id for t in scene.tokens]), max_size=3, unique=True)):
        if draw(st.booleans()) and len(scene.tokens) > 3:
            tokens[t] = None
        else:
            x = draw(st.integers(0, EXTENT // 100 - 1)) * 100
            y = draw(st.integers(0, EXTENT // 100 - 1)) * 100
            old = next(o for o in scene.tokens if o.id == t)
            tokens[t] = msgspec.structs.replace(old, x=float(x), y=float(y))
    if draw(st.booleans()):
        i = draw(st.integers(0, 9))
        tokens[f"new{i}"] = token(
            i, draw(st.integers(0, 15)) * 100.0, draw(st.integers(0, 15)) * 100.0
        )
    walls: dict = {}
    held = {w.id: w for w in scene.walls}
    for d in draw(st.lists(st.sampled_from(DOORS), max_size=3, unique=True)):
        if d in held:
            state = draw(st.sampled_from(["open", "closed", "locked"]))
            walls[d] = msgspec.structs.replace(held[d], door_state=state)
    kind = draw(st.sampled_from(["none", "restrict", "move", "add", "remove"]))
    w = held.get(draw(st.sampled_from(PLAIN_WALLS)))
    if w is not None and kind == "restrict":
        walls[w.id] = msgspec.structs.replace(
            w, sight=draw(st.sampled_from(["none", "limited", "normal"])), move="none"
        )
    elif w is not None and kind == "move":
        x0, y0, x1, y1 = w.c
        walls[w.id] = msgspec.structs.replace(w, c=(x0 + 50, y0 + 50, x1 + 50, y1 + 50))
    elif kind == "add":
        walls["added"] = Wall("added", (150.0, 50.0, 150.0, 750.0))
    elif w is not None and kind == "remove":
        walls[w.id] = None
    lights: dict = {}
    if draw(st.booleans()):
        lights["torch"] = Light("torch", 350, 350, bright=10, dim=20, on=draw(st.booleans()))
    if draw(st.booleans()):
        lights["candle"] = Light("candle", 650, 250, dim=15)
    regions: dict = {}
    if draw(st.booleans()):
        regions["fog"] = Region("fog", Shape("rect", x=500, y=100, width=200, height=300), "heavy")
    env = Environment(light="dark") if draw(st.booleans()) else None
    return Change(walls=walls, tokens=tokens, lights=lights, regions=regions, environment=env)


@pytest.fixture(scope="module")
def warmed() -> SceneCache:
    cache = SceneCache(max_scenes=8, max_bytes=10**9)
    cache.put(BASE_SCENE)
    answers(cache.get(scene_id(BASE_SCENE)))  # compiles the kernels once
    return cache


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_patched_scenes_answer_as_a_whole_upload(warmed, data):
    """Two changes in a row: each scene's id and answers equal a whole upload's."""
    sid = scene_id(BASE_SCENE)
    scene = BASE_SCENE
    for _ in range(2):
        change = data.draw(changes(scene))
        if not change.items():
            continue
        sid, geo, applied = warmed.patch(sid, change)
        scene = applied.scene
        assert sid == scene_id(scene)
        whole = build_scene(scene)
        assert answers(geo) == answers(whole)


def test_a_door_opening_flips_the_index_and_carries_the_rooms():
    """No new STRtree; the rooms after the flip are the rooms of the new walls."""
    cache = SceneCache(max_bytes=10**9)
    sid, geo = cache.put(BASE_SCENE)
    firm_rooms(geo.walls, "move", None)
    door = next(w for w in BASE_SCENE.walls if w.door != "none" and w.door_state == "closed")
    new_sid, new, _ = cache.patch(
        sid, Change(walls={door.id: msgspec.structs.replace(door, door_state="open")})
    )
    assert new.walls.tree is geo.walls.tree and new.walls is not geo.walls
    carried = new.walls.memo[("rooms", "move", None)]
    whole = firm_rooms(build_scene(new.scene).walls, "move", None)
    assert len(carried[1]) == len(whole[1])
    area = lambda faces: sorted(round(float(f.area), 3) for f in faces)  # noqa: E731
    assert area(carried[1]) == area(whole[1])
    assert geo.walls.restriction["move"][BASE_SCENE.walls.index(door)] == 2  # parent unchanged


def test_a_token_move_keeps_every_wall_structure():
    cache = SceneCache(max_bytes=10**9)
    sid, geo = cache.put(BASE_SCENE)
    t = BASE_SCENE.tokens[0]
    _, new, _ = cache.patch(sid, Change(tokens={t.id: msgspec.structs.replace(t, x=t.x + 100)}))
    assert new.walls is geo.walls and new.density is geo.density
    assert new.token_boxes[t.id][0] == geo.token_boxes[t.id][0] + 100


def test_a_resent_scene_with_the_same_walls_shares_the_index():
    """Walls keyed by their digest: a whole upload of moved tokens builds no index."""
    cache = SceneCache(max_bytes=10**9)
    _, geo = cache.put(BASE_SCENE)
    moved = msgspec.structs.replace(BASE_SCENE, tokens=BASE_SCENE.tokens[1:])
    _, other = cache.put(moved)
    assert other.walls is geo.walls
    assert ("rooms", "move", None) in geo.walls.memo  # built at upload


def test_chunks_rehash_what_changed_only():
    """Removing the first wall moves every item after it: the id is still a whole upload's."""
    cache = SceneCache(max_bytes=10**9)
    sid, _ = cache.put(BASE_SCENE)
    first = BASE_SCENE.walls[0].id
    last = BASE_SCENE.walls[-1].id
    for change in (Change(walls={first: None}), Change(walls={last: None})):
        new_sid, _, applied = cache.patch(sid, change)
        assert (
            new_sid == scene_id(applied.scene)
            and len(applied.scene.walls) == len(BASE_SCENE.walls) - 1
        )
    assert len(BASE_SCENE.walls) > 4 * CHUNK


def test_flip_of_a_wall_with_an_identical_segment_rebuilds():
    """Two walls on one segment: a whole build may index them once, so no flip."""
    scene = Scene(
        grid=BASE_SCENE.grid,
        walls=(Wall("a", (0, 0, 100, 0)), Wall("b", (100, 0, 0, 0), door="door")),
        tokens=(Token("p", 0, 50), Token("q", 0, -150)),
    )
    cache = SceneCache()
    sid, geo = cache.put(scene)
    _, new, applied = cache.patch(
        sid, Change(walls={"b": Wall("b", (100, 0, 0, 0), door="door", door_state="open")})
    )
    assert new.walls.tree is not geo.walls.tree
    assert answers(new) == answers(build_scene(applied.scene))
    assert np.array_equal(
        new.walls.restriction["move"], build_scene(applied.scene).walls.restriction["move"]
    )
