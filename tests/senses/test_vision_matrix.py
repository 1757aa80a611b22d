"""Vision matrices at the limit (issue 20): every pair answers as alone, and the work is counted.

A vision matrix asks each unordered pair's exact line once when the walls block alike both
ways (5E-LOE-2 read with GEO-3: one-way walls, GEO-4: thresholds, GEO-5: heights break the
symmetry), measures each token once, and spends ``VISION_PAIR_UNITS`` per pair and
``SEARCH_UNITS`` per exact search of the request's budget (issue 16's cost model).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.dungeon import dungeon
from schemas.scene import SceneSchema
from service import rules
from service.app import create_app
from service.engine.budget import SEARCH_UNITS, VISION_PAIR_UNITS, WorkBudget, vision_units
from service.engine.scene import build_scene
from service.errors import OverBudget
from service.geometry import exact, search
from service.matrix import matrix
from service.rules.ask import vision_all, vision_one
from service.senses import lines as sense_lines
from service.settings import BY_NAME
from tests.scenes import load, tok, wall

RULESETS = ["dnd5e", "starfinder", "pf2e-variant"]


def _built(walls):
    return build_scene(load(walls, [tok("A", 0, 0), tok("B", 400, 0)]))


@pytest.mark.parametrize(
    ("walls", "sense", "symmetric"),
    [
        pytest.param([wall("w", 200, -100, 200, 100)], "move", True, id="GEO-1 two-way: alike"),
        pytest.param([], "move", True, id="no walls: alike"),
        pytest.param(
            [wall("w", 200, -100, 200, 100, direction="left")],
            "move",
            False,
            id="GEO-3 one-way wall: not alike",
        ),
        pytest.param(
            [wall("w", 200, -100, 200, 100, direction="left", move="none", sight="normal")],
            "move",
            True,
            id="GEO-3 one-way wall restricting another sense: alike",
        ),
        pytest.param(
            [wall("w", 200, -100, 200, 100, direction="left", door="door", door_state="open")],
            "move",
            True,
            id="GEO-2 open one-way door restricts nothing: alike",
        ),
        pytest.param(
            [wall("w", 200, -100, 200, 100, sight="proximity", threshold={"sight": 10})],
            "sight",
            False,
            id="GEO-4 proximity threshold: not alike",
        ),
        pytest.param(
            [wall("w", 200, -100, 200, 100, sight="distance", threshold={"sight": 10})],
            "sight",
            False,
            id="GEO-4 distance threshold: not alike",
        ),
        pytest.param(
            [wall("w", 200, -100, 200, 100, sight="proximity")],
            "sight",
            True,
            id="GEO-4 proximity without threshold blocks as normal: alike",
        ),
        pytest.param(
            [wall("w", 200, -100, 200, 100, move="limited", sight="limited")],
            "sight",
            True,
            id="GEO-4 limited walls count alike both ways: alike",
        ),
        pytest.param(
            [wall("w", 200, -100, 200, 100, height={"bottom": 0, "top": 10})],
            "move",
            False,
            id="GEO-5 wall with a height range: not alike",
        ),
    ],
)
def test_walls_block_alike_both_ways(walls, sense, symmetric):
    """5E-LOE-2 / GEO-3..5: which wall sets let a pair and its reverse share one question."""
    built = _built(walls)
    assert sense_lines._symmetric(built.walls, sense, None) is symmetric


def test_a_mask_leaves_out_the_walls_it_does_not_trace():
    """GEO-3: a one-way wall outside the traced mask does not break the symmetry."""
    built = _built(
        [wall("one-way", 200, -100, 200, 100, direction="left"), wall("w", 0, 300, 400, 300)]
    )
    assert not sense_lines._symmetric(built.walls, "move", None)
    assert sense_lines._symmetric(built.walls, "move", np.array([False, True]))


#: Scenes where pairs and their reverses meet every case: walls alike both ways (the dungeon,
#: shared spaces, elevations), and not (one-way walls, thresholds, wall heights).
def _crowded_dungeon() -> dict:
    """The bench's dungeon with a token sharing another's space and one at a height."""
    scene = dungeon(600, 12, seed=3)
    first = scene["tokens"][0]
    scene["tokens"] += [
        {"id": "same-space", "x": first["x"], "y": first["y"]},
        {"id": "high", "x": 300, "y": 300, "elevation": 25, "senses": {"darkvision": 60}},
    ]
    return scene


SCENES = {
    "dungeon, tokens sharing a space and at heights": lambda: SceneSchema().load(
        _crowded_dungeon()
    ),
    "one-way walls, thresholds, heights": lambda: load(
        [
            wall("one-way", 300, -500, 300, 500, direction="left"),
            wall("prox", 600, -500, 600, 500, sight="proximity", threshold={"sight": 15}),
            wall("low", 0, 250, 900, 250, height={"bottom": 0, "top": 5}),
        ],
        [
            tok("A", 0, 0, senses={"darkvision": 60}),
            tok("B", 400, 0, senses={"blindsight": 30}),
            tok("C", 100, 400, elevation=10),
            tok("D", 700, 400, conditions=["invisible"]),
            tok("E", 800, 0, 2, senses={"tremorsense": 60}),
        ],
        environment={"light": "dim"},
    ),
}


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("name", list(SCENES))
def test_vision_matrix_answers_each_pair_as_alone(name, ruleset):
    """Issue 20: a pair measured with its reverse answers exactly as alone, every field."""
    built = build_scene(SCENES[name]())
    system = rules.get(ruleset)
    toks = list(built.scene.tokens)
    pairs = [(a, t) for a in toks for t in toks if t is not a]
    alone = [vision_one(system, built, a, t, {}) for a, t in pairs]
    assert vision_all(system, built, pairs, {}) == alone
    got = matrix(built, system, None, "vision", {})
    it = iter(alone)
    for a, row_s, row_c in zip(toks, got["vision"], got["can_see"], strict=True):
        for t, sense, can in zip(toks, row_s, row_c, strict=True):
            if t is a:
                assert sense is None and can is None
                continue
            one = next(it)
            assert (sense, can) == (one.sense, one.can_see)


def test_vision_matrix_equals_single_vision_requests_over_http():
    """API.md "Vision and detection": each matrix cell is the /v1/vision answer of that pair."""
    scene = dungeon(400, 8, seed=7)
    client = create_app().test_client()
    for ruleset in RULESETS:
        resp = client.post(
            "/v1/matrix", json={"ruleset": ruleset, "scene": scene, "kind": "vision"}
        )
        assert resp.status_code == 200, resp.get_json()
        got = resp.get_json()
        ids = got["tokens"]
        for i, observer in enumerate(ids):
            targets = [t for t in ids if t != observer]
            one = client.post(
                "/v1/vision",
                json={"ruleset": ruleset, "scene": scene, "observer": observer, "targets": targets},
            )
            assert one.status_code == 200, one.get_json()
            by_target = {r["target"]: r for r in one.get_json()["results"]}
            for j, target in enumerate(ids):
                if target == observer:
                    continue
                assert got["vision"][i][j] == by_target[target]["sense"]
                assert got["can_see"][i][j] == by_target[target]["can_see"]


def test_a_pair_and_its_reverse_are_one_exact_question(monkeypatch):
    """Walls alike both ways: the exact lines of n tokens are asked for n(n-1)/2 pairs."""
    built = build_scene(SceneSchema().load(dungeon(600, 10, seed=2)))
    asked = []
    real = sense_lines.lines_of_effect
    monkeypatch.setattr(
        sense_lines,
        "lines_of_effect",
        lambda index, bf, *a, **k: asked.append(len(bf)) or real(index, bf, *a, **k),
    )
    matrix(built, rules.get("dnd5e"), None, "vision", {})
    assert asked == [45]  # sight, effect and sound trace alike here: one measurement


def test_the_vision_matrix_limit_is_the_cover_matrix_limit():
    """Issue 20: 200 tokens for both kinds; past it, a 422 telling the limit."""
    assert (
        BY_NAME["MATRIX_MAX_VISION_TOKENS"].default == BY_NAME["MATRIX_MAX_TOKENS"].default == 200
    )
    app = create_app({"MATRIX_MAX_VISION_TOKENS": 3})
    resp = app.test_client().post(
        "/v1/matrix", json={"ruleset": "dnd5e", "scene": dungeon(100, 4), "kind": "vision"}
    )
    assert resp.status_code == 422
    assert "at most 3 tokens" in resp.get_json()["message"]


def test_each_vision_pair_is_counted_before_any_tracing(monkeypatch):
    """Issue 16/20 cost model: ``VISION_PAIR_UNITS`` per pair, refused before tracing."""
    built = build_scene(SceneSchema().load(dungeon(200, 10, seed=1)))
    traced = []
    monkeypatch.setattr(sense_lines, "lines_of_effect", lambda *a, **k: traced.append(1))
    budget = WorkBudget(int(vision_units(90)) - 1, "Reduce the tokens")
    with pytest.raises(OverBudget, match="Reduce the tokens"):
        matrix(built, rules.get("dnd5e"), None, "vision", {}, budget=budget)
    assert traced == []
    assert vision_units(90) == 90 * VISION_PAIR_UNITS


def test_each_exact_search_is_counted(monkeypatch):
    """Issue 20 cost model: every exact search spends ``SEARCH_UNITS`` beyond its tests, so a
    budget bounds how many searches a request runs."""
    # Rooms joined by open doors: pairs whose centre line is blocked need the exact search.
    built = build_scene(SceneSchema().load(dungeon(400, 16, seed=4)))
    system = rules.get("dnd5e")
    searches = []
    real_many = exact.search_many  # every search, lone or run together, is one answer

    def many(*a, **k):
        done = real_many(*a, **k)
        searches.extend(1 for _ in done)
        return done

    monkeypatch.setattr(exact, "search_many", many)
    counted = WorkBudget(10**9, "x")
    matrix(built, system, None, "vision", {}, budget=counted)
    monkeypatch.setattr(search, "SEARCH_UNITS", 0)
    uncounted = WorkBudget(10**9, "x")
    matrix(built, system, None, "vision", {}, budget=uncounted)
    assert len(searches) >= 2 and len(searches) % 2 == 0
    assert counted.used - uncounted.used == len(searches) // 2 * SEARCH_UNITS
    monkeypatch.setattr(search, "SEARCH_UNITS", SEARCH_UNITS)
    with pytest.raises(OverBudget):
        matrix(built, system, None, "vision", {}, budget=WorkBudget(counted.used - 1, "x"))


FOG = {
    "id": "fog",
    "shape": {"type": "rect", "x": 150, "y": -100, "width": 100, "height": 300},
    "obscurement": "heavy",
}


@pytest.mark.parametrize(
    ("walls", "regions", "blockers", "rule"),
    [
        pytest.param(
            [wall("w", 200, -100, 200, 200)], [], [("wall", "w")], None, id="a wall: its id"
        ),
        pytest.param(
            [wall("w", 200, -100, 200, 200), wall("copy", 200, -100, 200, 200)],
            [],
            [("wall", "w"), ("wall", "copy")],
            None,
            id="identical walls: every id",
        ),
        pytest.param(
            [], [FOG], [("region", "fog")], "5E-VIS-2", id="5E-VIS-2 heavy fog: the region, once"
        ),
    ],
)
def test_what_blocks_the_sight_line_is_named_alike_in_a_matrix(walls, regions, blockers, rule):
    """5E-VIS-2: each blocker list is named once per request, as a single answer names it."""
    built = build_scene(load(walls, [tok("A", 0, 0), tok("B", 400, 0)], regions=regions))
    system = rules.get("dnd5e")
    a, b = built.scene.tokens
    both = vision_all(system, built, [(a, b), (b, a)], {})
    for got, (o, t) in zip(both, [(a, b), (b, a)], strict=True):
        assert got == vision_one(system, built, o, t, {})
        assert [(x.kind, x.id) for x in got.blockers] == blockers
        assert (rule in got.rules) if rule else "5E-VIS-2" not in got.rules


_SENSE_RANGES = st.sampled_from([0, 0, 15, 60])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 8),
            st.integers(0, 4),
            st.sampled_from([0, 0, 10, 40]),
            st.fixed_dictionaries(
                {},
                optional={
                    s: _SENSE_RANGES
                    for s in (
                        "darkvision",
                        "devils_sight",
                        "truesight",
                        "blindsight",
                        "tremorsense",
                        "xray",
                        "see_invisibility",
                    )
                }
                | {"hearing": st.sampled_from([None, 0, 20]), "low_light_vision": st.booleans()},
            ),
            st.lists(st.sampled_from(["blinded", "deafened", "invisible", "flying"]), max_size=2),
            st.sampled_from([None, "everyone", "controllers"]),
        ),
        min_size=2,
        max_size=5,
    ),
    st.lists(
        st.tuples(
            st.integers(0, 8),
            st.integers(0, 4),
            st.sampled_from(["wall", "glass", "curtain"]),
            st.booleans(),
        ),
        max_size=3,
    ),
    st.sampled_from(["bright", "dim", "dark"]),
    st.lists(st.sampled_from(["fog", "mist", "dark", "concealing"]), max_size=2, unique=True),
    st.sampled_from([None, "on", "off", "darkness"]),
    st.sampled_from(["dnd5e", "starfinder", "pf2e-variant"]),
    st.booleans(),
)
def test_vision_matrix_cells_are_each_answers_sense(
    placed, walls, env, regions, light, ruleset, darkness_blocks
):
    """Issue 20: a vision matrix reads each pair's senses as arrays (``locate_all``); its
    cells are the ``sense`` and ``can_see`` of each pair's own answer, whatever the senses
    (5E-VIS-4..10, PV-DET-2), conditions, light (GEO-9, private lights), obscurement
    (5E-VIS-1), walls and the GM option ``magical_darkness_blocks_sight``."""
    kinds = {
        "wall": {},
        "glass": {"sight": "none", "light": "none"},
        "curtain": {"move": "none", "sound": "none"},
    }
    shapes = {
        "fog": {"obscurement": "heavy"},
        "mist": {"obscurement": "light"},
        "dark": {"magical_darkness": True},
        "concealing": {"concealment": True},
    }
    scene = load(
        [
            wall(f"w{i}", x * 100 + 50, y * 100, x * 100 + 50, y * 100 + 200, **kinds[kind])
            if vertical
            else wall(f"w{i}", x * 100, y * 100 + 50, x * 100 + 200, y * 100 + 50, **kinds[kind])
            for i, (x, y, kind, vertical) in enumerate(walls)
        ],
        [
            tok(
                f"t{i}",
                x * 100,
                y * 100,
                elevation=z,
                senses=senses_,
                conditions=conditions,
                **(
                    {}
                    if carried is None
                    else {"light": {"bright": 10, "dim": 20, "seen_by": carried}}
                ),
            )
            for i, (x, y, z, senses_, conditions, carried) in enumerate(placed)
        ],
        regions=[
            {
                "id": name,
                "shape": {"type": "rect", "x": 100 + 250 * k, "y": 0, "width": 200, "height": 300},
                **shapes[name],
            }
            for k, name in enumerate(regions)
        ],
        lights=[]
        if light is None
        else [
            {
                "id": "lamp",
                "x": 450,
                "y": 150,
                "bright": 10,
                "dim": 20,
                "on": light != "off",
                "darkness": light == "darkness",
            }
        ],
        environment={"light": env},
    )
    built = build_scene(scene)
    system = rules.get(ruleset)
    options = {"magical_darkness_blocks_sight": darkness_blocks}
    toks = list(built.scene.tokens)
    pairs = [(a, t) for a in toks for t in toks if t is not a]
    alone = [vision_one(system, built, a, t, options) for a, t in pairs]
    assert vision_all(system, built, pairs, options) == alone
    got = matrix(built, system, None, "vision", options)
    cells = [
        (s, c)
        for a, row_s, row_c in zip(toks, got["vision"], got["can_see"], strict=True)
        for t, s, c in zip(toks, row_s, row_c, strict=True)
        if t is not a
    ]
    assert cells == [(one.sense, one.can_see) for one in alone]
