"""5E-COV-7 / GEO-7 / GEO-5a: who shares a space, for every pair of tokens (issue 20).

``BuiltScene.shared_with`` makes each space's set once (stacks of tokens on one square cost
O(stack) in C per pair); its answer must be the plain definition's: the other tokens in
the attacker's or the target's space (same squares, overlapping vertical extents), in
scene order, and those plus the two as the creatures that block none of the pair's lines.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.scene import SceneSchema
from service.engine.scene import build_scene
from service.rules.planning import shared_space

spot = st.sampled_from([(100.0, 100.0), (200.0, 100.0), (100.0, 200.0)])
elevation = st.sampled_from([0.0, 0.0, 0.0, 5.0, 30.0])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(spot, elevation), min_size=2, max_size=12))
def test_sharing_is_the_plain_definition(tokens):
    """Each ordered pair: ``shared`` in scene order and ``excluded`` as defined (5E-COV-7)."""
    body = {
        "grid": {"size": 100, "distance": 5},
        "tokens": [
            {"id": f"t{k}", "x": x, "y": y, "elevation": z} for k, ((x, y), z) in enumerate(tokens)
        ],
    }
    built = build_scene(SceneSchema().load(body))
    toks = built.scene.tokens
    for a in toks:
        for t in toks:
            if a is t:
                continue
            found = (set(built.sharing[t.id]) | set(built.sharing[a.id])) - {t.id, a.id}
            expected = tuple(sorted(found, key=built.token_order.__getitem__))
            shared, excluded = shared_space(built, a, t, built.token_boxes[a.id], False)
            assert tuple(shared) == expected
            assert len(shared) == len(expected) and bool(shared) == bool(expected)
            assert excluded == frozenset(found | {t.id, a.id})


def test_a_stack_shares_one_set():
    """200 tokens on one square: every pair's exclusions are one set, made once."""
    body = {
        "grid": {"size": 100, "distance": 5},
        "tokens": [{"id": f"t{k}", "x": 100.0, "y": 100.0} for k in range(200)],
    }
    built = build_scene(SceneSchema().load(body))
    toks = built.scene.tokens
    firsts = {
        id(shared_space(built, toks[0], t, built.token_boxes["t0"], False)[1]) for t in toks[1:]
    }
    assert len(firsts) == 1
    shared, excluded = shared_space(built, toks[3], toks[7], built.token_boxes["t3"], False)
    assert len(excluded) == 200 and len(shared) == 198
    assert list(shared)[:3] == ["t0", "t1", "t2"] and "t3" not in shared and "t7" not in shared
