"""All-pairs matrices and many-pair measurement (one measurement for every number of pairs,
docs/decisions.md): every pair answers as alone.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.dungeon import dungeon
from schemas.scene import SceneSchema
from service import operations, rules
from service.app import sample_scene
from service.engine.scene import build_scene
from service.errors import RulesError, UnknownToken
from service.geometry import exact
from service.geometry.measure import Measure, measure, sense_key
from service.matrix import matrix
from service.rules.ask import cover_all, cover_one, degrees_all, vision_all, vision_one
from service.rules.base import Attack
from tests.pairs import stacked
from tests.scenes import load, tok, wall


def pairwise(geo, system, kind, options):
    toks = list(geo.scene.tokens)
    if kind == "cover":
        return [
            [
                None if a is t else cover_one(system, geo, a, t, Attack(), options).cover
                for t in toks
            ]
            for a in toks
        ]
    return [
        [None if a is t else vision_one(system, geo, a, t, options).sense for t in toks]
        for a in toks
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
            tok("H", 300, 150, hidden=True),
        ],
    ),
    # Walls along a token's edges, ending on its corners: with an inset, GEO-6's corner
    # sentence judges them on the exact corner lines.
    "walls along a token's edges": lambda: load(
        [wall("e", 100, 0, 100, 100), wall("s", 100, 100, 300, 100), wall("n", 0, 0, 100, 0)],
        [tok("A", 0, 0), tok("C", 300, 0), tok("B", 200, 200), tok("D", 0, 300)],
    ),
    # Creatures of more than 256 square corners each (SF-COV-1: each pair keeps the corners
    # nearest its target).
    "gargantuan creatures": lambda: load(
        [wall("w", 1900, 0, 1900, 400)],
        [tok("G", 0, 0, 16), tok("H", 2000, 100, 16), tok("I", 700, 1800, 16)],
    ),
    # One target, two attackers at the same degree for different reasons: a much larger
    # creature (PV-COV-3) on one line, a wall on the other.
    "same degree, a wall or a much larger creature": lambda: load(
        [wall("w", 620, 250, 680, 250)],
        [
            tok("A1", 0, 0, size="small"),
            tok("T", 600, 0),
            tok("Huge", 200, -100, 3, size="huge"),
            tok("A2", 600, 400, size="small"),
        ],
    ),
    # Attackers of different sizes (4, 9 and 16 square corners, SF-COV-1): one batch, each
    # pair's own corners.
    "creatures of different sizes": lambda: load(
        [wall("w", 450, -100, 450, 250), wall("v", 100, 450, 400, 450)],
        [
            tok("M", 0, 0),
            tok("L", 600, 0, 2),
            tok("H", 100, 600, 3),
            tok("S", 300, 250, size="small"),
        ],
    ),
    # One target seen through a concealing haze by one attacker and not by another
    # (SF-CON-1, GEO-9), prone and concealed creatures (SF-PRN-1, SF-CON-5).
    "a haze some lines cross, prone and concealed creatures": lambda: load(
        [],
        [
            tok("A", 200, 0),
            tok("B", 600, 500, conditions=["prone"]),
            tok("T", 500, 200),
            tok("C", 0, 500, conditions=["concealed"]),
        ],
        regions=[
            {
                "id": "haze",
                "shape": {"type": "rect", "x": 150, "y": 150, "width": 300, "height": 200},
                "concealment": True,
            }
        ],
    ),
}


@pytest.mark.parametrize("method", ["paired-corners", "dmg-corner"])
@pytest.mark.parametrize("name", list(SCENES))
def test_dnd5e_cover_matrix_equals_each_cover_answer(name, method):
    geo = build_scene(SCENES[name]())
    system = rules.get("dnd5e")
    options = {"cover_method": method}
    got = matrix(geo, system, None, "cover", options)
    assert got["tokens"] == [t.id for t in geo.scene.tokens]
    assert got["cover"] == pairwise(geo, system, "cover", options)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"corner_inset": 3},
        {"measure_from": "best-corner"},
        {"ignore_small_terrain": True},
        {"cover_method": "dmg-corner"},
        {"ignore_hidden": True},
    ],
)
@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize("name", list(SCENES))
def test_cover_of_many_pairs_answers_exactly_as_each_pair(name, ruleset, options):
    """All pairs planned and measured at once (as one batch of arrays where the ruleset can),
    every cover answer is the pair's own, and every bare degree (``degrees_all``, a
    matrix's cells read as arrays) is its answer's degree, alone and together."""
    geo = build_scene(SCENES[name]())
    system = rules.get(ruleset)
    options = {k: v for k, v in options.items() if k in system.options}
    toks = list(geo.scene.tokens)
    pairs = [(a, t) for a in toks for t in toks if t is not a]
    alone = [cover_all(system, geo, [pair], Attack(), options)[0] for pair in pairs]
    together = cover_all(system, geo, pairs, Attack(), options)
    assert together == alone
    bare = [degrees_all(system, geo, [pair], Attack(), options)[0] for pair in pairs]
    assert degrees_all(system, geo, pairs, Attack(), options) == bare == [r.cover for r in alone]
    got = matrix(geo, system, None, "cover", options)
    assert got["cover"] == pairwise(geo, system, "cover", options)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 6),
            st.integers(0, 6),
            st.sampled_from([1, 1, 2]),
            st.sampled_from([0, 0, 10]),
            st.booleans(),
            st.sampled_from(["medium", "medium", "small", "huge"]),
            st.sampled_from([[], [], ["prone"], ["concealed"]]),
        ),
        min_size=2,
        max_size=6,
    ),
    st.lists(
        st.tuples(*[st.integers(0, 7)] * 4, st.sampled_from(["normal", "low"])),
        max_size=5,
    ),
    st.sampled_from(
        [
            ("dnd5e", {}),
            ("dnd5e", {"cover_method": "dmg-corner"}),
            ("dnd5e", {"ignore_hidden": True}),
            ("pf2e-variant", {}),
            ("pf2e-variant", {"measure_from": "best-corner"}),
            ("pf2e-variant", {"ignore_hidden": True, "take_cover": ["t1"]}),
            ("starfinder", {}),
            ("starfinder", {"corner_inset": 3}),
            ("starfinder", {"partial_cover": ["t1"], "miss_chance": 30}),
        ]
    ),
    st.sampled_from(["ranged", "ranged", "melee"]),
    st.sampled_from([1, 1, 0]),
    st.sampled_from([None, None, "concealment", "obscurement"]),
)
def test_planned_batch_is_each_pair_alone(placed, walls, ruleset_options, kind, gravity, region):
    """A matrix plans its pairs as one batch of arrays; stacked tokens
    (5E-COV-7), elevations (GEO-5a), low walls and set-aside tokens answer as each pair
    planned alone, in every ruleset; bare answers shared between pairs (``one_per_code``)
    are each pair's own, with prone and concealed creatures (SF-PRN-1/2, SF-CON-5), zero
    gravity, melee and concealing regions (SF-CON-1, GEO-9)."""
    scene = load(
        [
            wall(f"w{i}", x0 * 100, y0 * 100, x1 * 100, y1 * 100, cover=cover)
            for i, (x0, y0, x1, y1, cover) in enumerate(walls)
            if (x0, y0) != (x1, y1)
        ],
        [
            tok(
                f"t{i}",
                x * 100,
                y * 100,
                w,
                elevation=z,
                hidden=hidden,
                size=size,
                conditions=conditions,
            )
            for i, (x, y, w, z, hidden, size, conditions) in enumerate(placed)
        ],
        environment={"gravity": gravity},
        regions=[]
        if region is None
        else [
            {
                "id": "haze",
                "shape": {"type": "rect", "x": 150, "y": 150, "width": 300, "height": 200},
                **({"concealment": True} if region == "concealment" else {"obscurement": "light"}),
            }
        ],
    )
    geo = build_scene(scene)
    ruleset, options = ruleset_options
    system = rules.get(ruleset)
    toks = list(geo.scene.tokens)
    pairs = [(a, t) for a in toks for t in toks if t is not a]
    attack = Attack(kind)
    together = cover_all(system, geo, pairs, attack, options)
    alone = [cover_all(system, geo, [pair], attack, options)[0] for pair in pairs]
    assert together == alone
    bare = [degrees_all(system, geo, [pair], attack, options)[0] for pair in pairs]
    assert degrees_all(system, geo, pairs, attack, options) == bare == [r.cover for r in alone]


def test_vision_matrix():
    geo = build_scene(SCENES["sample"]())
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
    """All pairs perceived at once change no answer, not a field."""
    geo = build_scene(VISION_SCENES[name]())
    system = rules.get(ruleset)
    toks = list(geo.scene.tokens)
    alone = [[vision_one(system, geo, a, t, options) for t in toks if t is not a] for a in toks]
    pairs = [(a, t) for a in toks for t in toks if t is not a]
    assert vision_all(system, geo, pairs, options) == [r for row in alone for r in row]
    got = matrix(geo, system, None, "vision", options)
    assert got["vision"] == [
        [None if a is t else vision_one(system, geo, a, t, options).sense for t in toks]
        for a in toks
    ]


def test_token_subset_order_and_errors():
    geo = build_scene(SCENES["sample"]())
    system = rules.get("dnd5e")
    got = matrix(geo, system, ["goblin", "archer"], "cover", {})
    assert got == {"tokens": ["goblin", "archer"], "cover": [[None, "half"], ["half", None]]}
    with pytest.raises(UnknownToken):
        matrix(geo, system, ["nope"], "cover", {})
    with pytest.raises(RulesError):
        matrix(geo, system, ["goblin", "goblin"], "cover", {})


def test_batched_vision_traces_once_per_sense(monkeypatch):
    """The pairs' centre lines are traced in vectorised calls, not three per pair; sight,
    effect and sound through the same walls (the dungeon's) are one measurement."""
    geo = build_scene(SCENES["dungeon"]())
    system = rules.get("dnd5e")
    calls = []
    real = exact.trace
    monkeypatch.setattr(exact, "trace", lambda *a, **k: calls.append(len(a[1])) or real(*a, **k))
    matrix(geo, system, None, "vision", {})
    n = len(geo.scene.tokens)
    keys = {sense_key(geo.walls, s) for s in ("sight", "move", "sound")}
    assert len(keys) == 1
    # All pairs' centre lines, once for the three senses; the dungeon's walls block alike
    # both ways, so a pair and its reverse are one question.
    assert calls.count(n * (n - 1) // 2) == 1
    searches = calls.count(17)  # an exact search starts with the centre and 16 corner lines
    assert searches < n * (n - 1)  # most pairs answer from their centre lines


CREATURES = {f"c{i}": (100 * i, 50) for i in range(6)}
MEASURE_SCENE = load(
    [
        wall("a", 0, 100, 700, 100, height={"bottom": 0, "top": 10}),
        wall("b", 300, 0, 300, 700, direction="left"),
        wall("c", 0, 0, 700, 700, cover="low"),
        wall("d", 500, 0, 500, 300, door="door", door_state="open"),
        wall("e", 100, 300, 600, 300),
    ],
    [tok(c, x, y) for c, (x, y) in CREATURES.items()],
)
point = st.tuples(st.integers(0, 700), st.integers(0, 700))
question_st = st.builds(
    lambda src, dst, excluded, elev, mask: {
        "sources": src,
        "targets": dst,
        "elevations": elev,
        "inner_source": (src[0][0], src[0][1], src[0][0] + 1, src[0][1] + 1),
        "inner_target": (dst[0][0], dst[0][1], dst[0][0] + 1, dst[0][1] + 1),
        "excluded": frozenset(excluded),
        "wall_mask": None if mask is None else np.array(mask, dtype=bool),
    },
    st.lists(point, min_size=1, max_size=4),
    st.lists(point, min_size=1, max_size=4),
    st.lists(st.sampled_from(sorted(CREATURES)), unique=True, max_size=4),
    st.tuples(st.integers(0, 20).map(float), st.integers(0, 20).map(float)),
    st.one_of(st.none(), st.lists(st.booleans(), min_size=5, max_size=5)),
)


@given(
    st.lists(question_st, min_size=1, max_size=6),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.sampled_from([(), ("move",), ("move", "sight")]),
)
def test_measuring_many_pairs_equals_each_pair_alone(questions, paired, edge, full, exact_senses):
    """One call for many pairs (points of different counts, wall masks, excluded
    creatures) gives each pair what measuring it alone, as a batch of one, gives."""
    built = build_scene(MEASURE_SCENE)
    for q in questions:
        q["pairing"] = "paired" if paired else "every"
        if paired:
            k = min(len(q["sources"]), len(q["targets"]))
            q["sources"], q["targets"] = q["sources"][:k], q["targets"][:k]
    ids = [t.id for t in built.scene.tokens]
    spec = Measure("move", edge_blocks=edge, full_walls=full, exact=exact_senses)
    together = measure(built, spec, stacked(questions, ids))
    for q, got in zip(questions, together, strict=True):
        (want,) = measure(built, spec, stacked([q], ids))
        assert got.segments.tolist() == want.segments.tolist()
        assert got.wall_blocked.tolist() == want.wall_blocked.tolist()
        assert got.full_blocked.tolist() == want.full_blocked.tolist()
        assert got.creature_blocked.tolist() == want.creature_blocked.tolist()
        assert got.wall_blockers == want.wall_blockers
        assert got.creature_blockers == want.creature_blockers
        assert got.exact == want.exact
        for c in got.creature_blockers:
            assert not set(c) & q["excluded"]


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
    geo = build_scene(VISION_SCENES[name]())
    toks = [t.id for t in geo.scene.tokens]
    attacker = None if attack["kind"] == "area" else toks[0]
    targets = toks if attacker is None else toks[1:]

    def ask(ids):
        args = {"ruleset": ruleset, "attacker": attacker, "targets": ids, "attack": attack}
        return operations.cover(geo, {**args, "options": {}})["results"]

    assert ask(targets) == [r for t in targets for r in ask([t])]
