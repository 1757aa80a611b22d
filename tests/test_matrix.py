"""All-pairs matrix (issue 7): the vectorised dnd5e path answers exactly like /v1/cover."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.dungeon import dungeon
from schemas.scene import SceneSchema
from service import geometry, operations, rules
from service.app import sample_scene
from service.errors import RulesError, UnknownToken
from service.geometry import index_walls
from service.matrix import matrix
from service.model import Span, Wall
from service.rules.base import Attack, build_geometry
from service.senses import prefetch_perception
from tests.scenes import load, tok, wall


def pairwise(geo, system, kind, options):
    toks = list(geo.scene.tokens)
    if kind == "cover":
        return [
            [None if a is t else system.cover(geo, a, t, Attack(), options).cover for t in toks]
            for a in toks
        ]
    return [
        [None if a is t else system.vision(geo, a, t, options).sense for t in toks] for a in toks
    ]


SCENES = {
    "sample": lambda: SceneSchema().load(sample_scene()),
    "dungeon": lambda: SceneSchema().load(dungeon(400, 12, seed=5)),
    "low walls, creatures, shared space, elevation": lambda: load(
        [
            wall("low", 250, -1000, 250, 1000, cover="low"),
            wall("w", 600, 0, 600, 150),
            wall("hi", 0, 300, 900, 300, height={"bottom": 0, "top": 10}),
        ],
        [
            tok("A", 0, 0),
            tok("B", 400, 0),
            tok("C", 150, 50),
            tok("D", 400, 0),
            tok("E", 700, 100, 2),
            tok("F", 100, 500, elevation=30),
            tok("G", 500, 600),
        ],
    ),
}


@pytest.mark.parametrize("method", ["paired-corners", "dmg-corner"])
@pytest.mark.parametrize("name", list(SCENES))
def test_dnd5e_cover_matrix_equals_each_cover_answer(name, method):
    geo = build_geometry(SCENES[name]())
    system = rules.get("dnd5e")
    options = {"cover_method": method}
    got = matrix(geo, system, None, "cover", options)
    assert got["tokens"] == [t.id for t in geo.scene.tokens]
    assert got["cover"] == pairwise(geo, system, "cover", options)


@pytest.mark.parametrize(
    "options",
    [{}, {"corner_inset": 3}, {"measure_from": "best-corner"}, {"ignore_small_terrain": True}],
)
@pytest.mark.parametrize("ruleset", ["starfinder", "pf2e-variant"])
@pytest.mark.parametrize("name", list(SCENES))
def test_other_rulesets_cover_matrix_answers_exactly_as_each_pair(name, ruleset, options):
    """Issue 7: traced ahead for all pairs at once, every cover answer is unchanged."""
    geo = build_geometry(SCENES[name]())
    system = rules.get(ruleset)
    options = {k: v for k, v in options.items() if k in system.options}
    toks = list(geo.scene.tokens)

    def answers():
        return [
            [system.cover(geo, a, t, Attack(), options) for t in toks if t is not a] for a in toks
        ]

    alone = answers()
    with geometry.batch():
        system.prefetch_cover(geo, [(a, t) for a in toks for t in toks], options)
        assert answers() == alone
    got = matrix(geo, system, None, "cover", options)
    assert got["cover"] == pairwise(geo, system, "cover", options)


def test_vision_matrix():
    geo = build_geometry(SCENES["sample"]())
    system = rules.get("dnd5e")
    got = matrix(geo, system, None, "vision", {})
    assert got["vision"] == pairwise(geo, system, "vision", {})
    for i, (row_s, row_c) in enumerate(zip(got["vision"], got["can_see"], strict=True)):
        for j, (sense, can) in enumerate(zip(row_s, row_c, strict=True)):
            if i == j:
                assert sense is None and can is None
            else:
                assert can is (sense not in (None, "hearing"))


VISION_SCENES = {
    **SCENES,
    "fog, one-way walls, a sound-only wall, darkvision": lambda: load(
        [
            wall("one-way", 300, -500, 300, 500, direction="left"),
            wall("glass", 0, 250, 250, 250, move="normal", sight="none", sound="normal"),
            wall("curtain", 500, 250, 900, 250, move="none", sight="normal", sound="none"),
        ],
        [
            tok("A", 0, 0, senses={"darkvision": 60}),
            tok("B", 400, 0, senses={"blindsight": 30, "hearing": 40}),
            tok("C", 100, 400, conditions=["invisible"]),
            tok("D", 600, 400, elevation=20, senses={"tremorsense": 60}),
            tok("E", 800, 0, 2, conditions=["blinded"]),
        ],
        regions=[
            {
                "id": "fog",
                "shape": {"type": "rect", "x": 650, "y": -100, "width": 100, "height": 400},
                "obscurement": "heavy",
            }
        ],
        environment={"light": "dim"},
    ),
}


@pytest.mark.parametrize("options", [{}, {"corner_inset": 0}, {"corner_inset": 10}])
@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize("name", list(VISION_SCENES))
def test_batched_vision_answers_exactly_as_each_pair(name, ruleset, options):
    """Issue 7: the centre lines traced ahead for all pairs change no answer, not a field."""
    geo = build_geometry(VISION_SCENES[name]())
    system = rules.get(ruleset)
    toks = list(geo.scene.tokens)
    alone = [[system.vision(geo, a, t, options) for t in toks if t is not a] for a in toks]
    with geometry.batch():
        prefetch_perception(
            geo, [(a, t) for a in toks for t in toks], inset=system.vision_inset(options)
        )
        batched = [[system.vision(geo, a, t, options) for t in toks if t is not a] for a in toks]
    assert batched == alone
    got = matrix(geo, system, None, "vision", options)
    assert got["vision"] == [
        [None if a is t else system.vision(geo, a, t, options).sense for t in toks] for a in toks
    ]


def test_batch_memo_is_dropped_after_the_batch():
    geo = build_geometry(SCENES["dungeon"]())
    toks = list(geo.scene.tokens)
    assert geometry.batch_memo() is None
    with geometry.batch() as memo:
        prefetch_perception(geo, [(toks[0], toks[1])])
        assert memo and geometry.batch_memo() is memo
    assert geometry.batch_memo() is None
    prefetch_perception(geo, [(toks[0], toks[1])])  # outside a batch: does nothing
    assert geometry.batch_memo() is None


def test_token_subset_order_and_errors():
    geo = build_geometry(SCENES["sample"]())
    system = rules.get("dnd5e")
    got = matrix(geo, system, ["goblin", "archer"], "cover", {})
    assert got == {"tokens": ["goblin", "archer"], "cover": [[None, "half"], ["half", None]]}
    with pytest.raises(UnknownToken):
        matrix(geo, system, ["nope"], "cover", {})
    with pytest.raises(RulesError):
        matrix(geo, system, ["goblin", "goblin"], "cover", {})


def test_batched_vision_traces_once_per_sense(monkeypatch):
    """The pairs' centre lines are traced in three vectorised calls, not three per pair."""
    geo = build_geometry(SCENES["dungeon"]())
    system = rules.get("dnd5e")
    calls = []
    real = geometry.trace
    monkeypatch.setattr(geometry, "trace", lambda *a, **k: calls.append(len(a[1])) or real(*a, **k))
    matrix(geo, system, None, "vision", {})
    n = len(geo.scene.tokens)
    assert calls[:3] == [n * (n - 1)] * 3
    assert len(calls) - 3 < n * (n - 1)  # most pairs answer from the lines traced ahead


CREATURES = {f"c{i}": (100.0 * i, 50.0, 100.0 * i + 80, 130.0) for i in range(6)}
small_segment = st.tuples(*[st.integers(0, 700)] * 4).filter(lambda s: s[:2] != s[2:])
request_st = st.builds(
    lambda segs, ids, elev, mask, edge: geometry.TraceRequest(
        np.array(segs, dtype=np.float64),
        "move",
        None if elev is None else np.tile(np.array(elev, dtype=np.float64), (len(segs), 1)),
        np.array([CREATURES[c] for c in ids], dtype=np.float64).reshape(-1, 4),
        tuple(ids),
        None if mask is None else np.array(mask, dtype=bool),
        edge,
    ),
    st.lists(small_segment, min_size=1, max_size=5),
    st.lists(st.sampled_from(sorted(CREATURES)), unique=True, max_size=4),
    st.one_of(st.none(), st.tuples(st.integers(0, 20), st.integers(0, 20))),
    st.one_of(st.none(), st.lists(st.booleans(), min_size=5, max_size=5)),
    st.booleans(),
)


@given(st.lists(request_st, min_size=1, max_size=6))
def test_traces_done_ahead_equal_each_trace_alone(requests):
    """geometry.prefetch_traces: each request's part equals its own trace, blockers in order."""
    index = index_walls(
        [
            Wall("a", (0.0, 100.0, 700.0, 100.0), height=Span(0.0, 10.0)),
            Wall("b", (300.0, 0.0, 300.0, 700.0), direction="left"),
            Wall("c", (0.0, 0.0, 700.0, 700.0), cover="low"),
            Wall("d", (500.0, 0.0, 500.0, 300.0), door="door", door_state="open"),
            Wall("e", (100.0, 300.0, 600.0, 300.0)),
        ],
        20.0,
    )
    alone = [r.run(index) for r in requests]
    with geometry.batch():
        geometry.prefetch_traces(index, requests)
        ahead = [r.run(index) for r in requests]
        assert all(r.run(index) is a for r, a in zip(requests, ahead, strict=True))  # memo hits
    for got, want in zip(ahead, alone, strict=True):
        assert got.segments.tolist() == want.segments.tolist()
        assert got.wall_blocked.tolist() == want.wall_blocked.tolist()
        assert got.creature_blocked.tolist() == want.creature_blocked.tolist()
        assert got.wall_blockers == want.wall_blockers
        assert got.creature_blockers == want.creature_blockers


@pytest.mark.parametrize(
    "attack",
    [
        {"kind": "ranged", "origin": None},
        {"kind": "melee", "origin": None},
        {"kind": "area", "origin": [150.0, 250.0]},
    ],
    ids=["ranged", "melee", "area"],
)
@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize("name", list(VISION_SCENES))
def test_many_targets_answer_as_one_target_each(name, ruleset, attack):
    """/v1/cover with many targets traces them ahead together; each answer is unchanged."""
    geo = build_geometry(VISION_SCENES[name]())
    toks = [t.id for t in geo.scene.tokens]
    attacker = None if attack["kind"] == "area" else toks[0]
    targets = toks if attacker is None else toks[1:]

    def ask(ids):
        args = {"ruleset": ruleset, "attacker": attacker, "targets": ids, "attack": attack}
        return operations.cover(geo, {**args, "options": {}})["results"]

    assert ask(targets) == [r for t in targets for r in ask([t])]
