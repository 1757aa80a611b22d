"""dnd5e cover properties (issue 8): brute-force reference, monotonic in walls, invariances."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from service.engine.scene import build_scene
from service.rules.ask import cover_one
from service.rules.base import Attack
from service.rules.dnd5e import RULESET
from service.rules.dnd5e.cover import PAIRED_CORNERS
from tests.property.test_geometry_properties import general_position, proper_cross, walls_st
from tests.scenes import load, tok, wall

RANK = {"none": 0, "half": 1, "three-quarters": 2, "total": 3}
cell = st.tuples(st.integers(0, 9), st.integers(0, 9))


def cover(walls, a, t, dx=0, dy=0):
    scene = load(
        [
            wall(f"w{i}", x0 + dx, y0 + dy, x1 + dx, y1 + dy)
            for i, (x0, y0, x1, y1) in enumerate(walls)
        ],
        [tok("A", a[0] * 100 + dx, a[1] * 100 + dy), tok("T", t[0] * 100 + dx, t[1] * 100 + dy)],
    )
    return cover_one(RULESET, build_scene(scene), scene.token("A"), scene.token("T"), Attack(), {})


@given(walls=walls_st, a=cell, t=cell)
def test_paired_corners_equal_a_brute_force_count(walls, a, t):
    """5E-COV-5 by hand: count corner lines properly crossing a wall (general position).

    The count of inset lines is the answer unless a wall ends on a token's own corner, where
    GEO-6's corner sentence judges it on the exact corner line instead: those are left to
    the GEO-6 tables (tests/rules/test_heights.py) and tests/property/test_loe_cover_consistency.
    """
    assume(a != t)
    ax, ay, tx, ty = a[0] * 100, a[1] * 100, t[0] * 100, t[1] * 100
    own = {(x + dx, y + dy) for x, y in ((ax, ay), (tx, ty)) for dx in (0, 100) for dy in (0, 100)}
    assume(not any((w[0], w[1]) in own or (w[2], w[3]) in own for w in walls))
    corners = [(0.5, 0.5), (99.5, 0.5), (99.5, 99.5), (0.5, 99.5)]
    lines = [(ax + cx, ay + cy, tx + cx, ty + cy) for cx, cy in corners]
    # half-pixel corners never lie on integer walls' lines exactly unless collinear-ish
    assume(all(general_position(s, w) for s in lines for w in walls))
    blocked = sum(any(proper_cross(s, w) for w in walls) for s in lines)
    assert cover(walls, a, t).cover == PAIRED_CORNERS[blocked]


@given(walls=walls_st, extra=walls_st, a=cell, t=cell)
def test_adding_walls_never_lowers_cover(walls, extra, a, t):
    assume(a != t)
    assert RANK[cover(walls + extra, a, t).cover] >= RANK[cover(walls, a, t).cover]


@given(walls=walls_st, a=cell, t=cell, dx=st.integers(-5, 5), dy=st.integers(-5, 5))
def test_translation_by_whole_squares(walls, a, t, dx, dy):
    assume(a != t)
    assert cover(walls, a, t).cover == cover(walls, a, t, dx * 100, dy * 100).cover
