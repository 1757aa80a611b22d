"""Line of effect / sight endpoints' core and breakthrough: 5E-LOE-1..5, GEO-1 (shared/RULES.md)."""

from __future__ import annotations

import pytest

from service.engine.scene import build_scene
from service.line_of_effect import Endpoint, line_between
from tests.scenes import T_EAST, A, load, wall


def ask(walls, sense="move", damage=None, source=None, target=None):
    scene = load(walls, [A, T_EAST])
    geo = build_scene(scene)
    src = source or Endpoint(token=scene.token("A"))
    dst = target or Endpoint(token=scene.token("T"))
    return line_between(geo, src, dst, sense, damage=damage)


@pytest.mark.parametrize(
    ("walls", "clear"),
    [
        pytest.param([], True, id="5E-LOE-1 open field"),
        pytest.param([wall("w1", 250, -1000, 250, 1000)], False, id="5E-LOE-2 full wall"),
        pytest.param(
            [wall("w1", 250, -1000, 250, 95), wall("w2", 250, 105, 250, 1000)],
            True,
            id="5E-LOE-2 gap near the edge",
        ),
        pytest.param(
            [wall("w1", 250, -1000, 250, 49), wall("w2", 250, 51, 250, 1000)],
            True,
            id="5E-LOE-2 2-px slit in the middle",
        ),
        pytest.param(
            [wall("w1", 250, -1000, 250, 1000, move="none")],
            True,
            id="GEO-1 sight-only wall does not block effect",
        ),
        pytest.param(
            [wall("w1", 250, -1000, 250, 1000, cover="low")],
            True,
            id="low obstacle does not block line of effect",
        ),
    ],
)
def test_line_of_effect(walls, clear):
    res = ask(walls)
    assert res.clear is clear
    if clear:
        (x0, y0), (x1, y1) = res.witness
        assert 0 <= x0 <= 100 and 0 <= y0 <= 100
        assert 400 <= x1 <= 500 and 0 <= y1 <= 100
    else:
        assert res.witness is None
        assert [b.id for b in res.blockers] == ["w1"]


@pytest.mark.parametrize(
    ("walls", "clear"),
    [
        pytest.param(
            [wall("g", 250, -1000, 250, 1000, sight="none")], True, id="GEO-1 glass: line of sight"
        ),
        pytest.param(
            [wall("f", 250, -1000, 250, 1000, move="none")], False, id="GEO-1 fog wall blocks sight"
        ),
    ],
)
def test_line_of_sight(walls, clear):
    assert ask(walls, sense="sight").clear is clear


def test_points():
    scene = load([wall("w1", 250, -1000, 250, 1000)], [A, T_EAST])
    geo = build_scene(scene)
    res = line_between(geo, Endpoint(point=(50, 50)), Endpoint(point=(200, 50)))
    assert res.clear and res.witness == ((50, 50), (200, 50))
    res = line_between(geo, Endpoint(point=(50, 50)), Endpoint(point=(450, 50)))
    assert not res.clear and [b.id for b in res.blockers] == ["w1"]


FOAM = [wall(f"foam{i}", 200 + 50 * i, -1000, 200 + 50 * i, 1000, hp=10) for i in range(3)]


@pytest.mark.parametrize(
    ("walls", "damage", "reaching", "destroyed", "stopped_by"),
    [
        pytest.param(
            FOAM,
            40,
            10,
            ["foam0", "foam1", "foam2"],
            None,
            id="5E-LOE-4 fireball 40 through three 10-HP foam layers: 10",
        ),
        pytest.param(
            list(reversed(FOAM)),
            40,
            10,
            ["foam0", "foam1", "foam2"],
            None,
            id="5E-LOE-4 layers consumed in order along the line, not list order",
        ),
        pytest.param(
            [wall("glass", 250, -1000, 250, 1000, hp=20, ac=13, sight="none")],
            25,
            5,
            ["glass"],
            None,
            id="5E-LOE-4 25 damage through 20-HP glass: 5",
        ),
        pytest.param(
            FOAM,
            25,
            0,
            ["foam0", "foam1"],
            "foam2",
            id="5E-LOE-4 25 damage stops in the third layer",
        ),
        pytest.param(FOAM, 30, 0, ["foam0", "foam1", "foam2"], None, id="5E-LOE-4 exactly used up"),
        pytest.param(
            [wall("glass", 250, -1000, 250, 1000, hp=20, sight="none")],
            0,
            0,
            [],
            "glass",
            id="5E-LOE-5 non-damaging effect stops at the first object",
        ),
        pytest.param(
            [wall("stone", 250, -1000, 250, 1000)],
            100,
            0,
            [],
            "stone",
            id="5E-LOE-4 a wall without hp is not broken through",
        ),
        pytest.param([], 40, 40, [], None, id="5E-LOE-4 nothing in the way: all of it"),
    ],
)
def test_breakthrough(walls, damage, reaching, destroyed, stopped_by):
    res = ask(walls, damage=damage)
    bt = res.breakthrough
    assert (bt.damage_reaching, list(bt.destroyed), bt.stopped_by) == (
        reaching,
        destroyed,
        stopped_by,
    )
    assert ("5E-LOE-4" if damage else "5E-LOE-5") in res.rules


def test_glass_layer_reports_its_ac_for_the_attack_roll():
    """5E-LOE-4: the attack roll is first compared with the glass's AC."""
    res = ask([wall("glass", 250, -1000, 250, 1000, hp=20, ac=13, sight="none")], damage=25)
    (layer,) = res.breakthrough.layers
    assert (layer.id, layer.hp, layer.ac, layer.absorbed, layer.destroyed) == (
        "glass",
        20,
        13,
        20,
        True,
    )


def _room(prefix, x0, y0, x1, y1, door_state=None):
    walls = [
        wall(f"{prefix}n", x0, y0, x1, y0),
        wall(f"{prefix}s", x1, y1, x0, y1),
        wall(f"{prefix}w", x0, y1, x0, y0),
        wall(f"{prefix}e1", x1, y0, x1, (y0 + y1) / 2),
    ]
    door = {"door": "door", "door_state": door_state} if door_state else {}
    walls.append(wall(f"{prefix}e2", x1, (y0 + y1) / 2, x1, y1, **door))
    return walls


@pytest.mark.parametrize(
    ("door_state", "sealed", "clear"),
    [
        pytest.param(None, True, False, id="5E-LOE-2 closed rooms: sealed apart"),
        pytest.param("closed", True, False, id="GEO-2 closed door: sealed"),
        pytest.param("open", False, True, id="GEO-2 open door: a line gets out"),
    ],
)
def test_closed_rooms_are_sealed_apart(door_state, sealed, clear):
    from service.geometry.rooms import sealed_apart

    walls = _room("a", -50, -50, 150, 150, door_state)
    if door_state != "open":
        walls += _room("b", 300, -50, 600, 150)
    scene = load(walls, [A, T_EAST])
    geo = build_scene(scene)
    boxes = (geo.token_boxes["A"], geo.token_boxes["T"])
    assert sealed_apart(geo.walls, *boxes) is sealed
    res = line_between(geo, Endpoint(token=scene.token("A")), Endpoint(token=scene.token("T")))
    assert res.clear is clear
