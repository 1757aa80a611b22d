"""Hypothesis properties of ``service.geometry`` (GEO-1..GEO-6, 5E-LOE-2 of shared/RULES.md).

Random small scenes: 1-6 two-way ``normal`` walls with integer coordinates in 0..1000 px and
random integer segments. Integer coordinates keep every orientation test exact, so translating
by an integer vector or scaling by 2 must not change a single answer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from hypothesis import assume, example, given
from hypothesis import strategies as st

from schemas.scene import SceneSchema
from service.engine.spaces import inset_corners
from service.engine.walls import WallIndex, build_wall_index
from service.geometry.exact import line_of_effect_between
from service.geometry.trace import trace

Seg = tuple[int, int, int, int]
Seq = Sequence[float]
GRID = {"size": 100, "distance": 5}

coord = st.integers(0, 1000)
segment = st.tuples(coord, coord, coord, coord).filter(lambda s: s[:2] != s[2:])
walls_st = st.lists(segment, min_size=1, max_size=6)
segments_st = st.lists(segment, min_size=1, max_size=20)

small = st.integers(0, 12)
small_segment = st.tuples(small, small, small, small).filter(lambda s: s[:2] != s[2:])


def named(index: WallIndex, blockers: Sequence[int]) -> list[str]:
    """Ids of the walls blocking a line, identical copies included, sorted (issue 16)."""
    return sorted(index.names(blockers), key=lambda i: int(i[1:]))


def index_of(walls: Sequence[Sequence[float]], **props: str) -> WallIndex:
    """Wall index of a canonical scene holding ``walls`` (ids w0, w1, ...)."""
    scene = SceneSchema().load(
        {
            "grid": GRID,
            "walls": [{"id": f"w{i}", "c": list(c), **props} for i, c in enumerate(walls)],
        }
    )
    return build_wall_index(scene)


def blocked(walls: Sequence[Sequence[float]], segments: Sequence[Sequence[float]]) -> list[bool]:
    res = trace(index_of(walls), np.array(segments, dtype=np.float64).reshape(-1, 4))
    return res.wall_blocked.tolist()


def orient(o: Sequence[int], a: Sequence[int], b: Sequence[int]) -> int:
    """Sign of the cross product (a - o) x (b - o), exact on integers."""
    v = (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    return (v > 0) - (v < 0)


def proper_cross(s: Seg, w: Seg) -> bool:
    p, q, a, b = s[:2], s[2:], w[:2], w[2:]
    return orient(p, q, a) * orient(p, q, b) < 0 and orient(a, b, p) * orient(a, b, q) < 0


def general_position(s: Seg, w: Seg) -> bool:
    """No end point of one lies on the other's line (no touching, no collinearity)."""
    p, q, a, b = s[:2], s[2:], w[:2], w[2:]
    return all(orient(*t) != 0 for t in ((p, q, a), (p, q, b), (a, b, p), (a, b, q)))


def reference_geo6(walls: Sequence[Seg], s: Seg) -> bool:
    """Exact GEO-6 on integers: a proper crossing, or walls ending at one interior point of
    the segment lying strictly on both of its sides. Where the segment runs along walls
    (collinear, over a positive length), the points of that stretch count as one point: a
    wall chain that comes from one side, runs along the segment and leaves to the other
    separates it, however its walls are split."""
    p, q = s[:2], s[2:]
    if any(proper_cross(s, w) for w in walls):
        return True

    def along(point: Sequence[int]) -> int:  # position on the segment, in |q - p|^2 units
        return (point[0] - p[0]) * (q[0] - p[0]) + (point[1] - p[1]) * (q[1] - p[1])

    length2 = along(q)
    spans = sorted(
        (min(along(w[:2]), along(w[2:])), max(along(w[:2]), along(w[2:])))
        for w in walls
        if orient(p, q, w[:2]) == 0 and orient(p, q, w[2:]) == 0
    )
    stretches: list[list[int]] = []
    for lo, hi in spans:
        if min(hi, length2) - max(lo, 0) <= 0:
            continue  # meets the segment at a point at most: no stretch
        if stretches and lo <= stretches[-1][1]:
            stretches[-1][1] = max(stretches[-1][1], hi)
        else:
            stretches.append([lo, hi])
    sides: dict[object, set[int]] = {}
    for w in walls:
        for end, other in ((w[:2], w[2:]), (w[2:], w[:2])):
            at = along(end)
            if orient(p, q, end) == 0 and 0 < at < length2 and orient(p, q, other) != 0:
                key: object = tuple(end)
                for k, (lo, hi) in enumerate(stretches):
                    if lo <= at <= hi:
                        key = ("stretch", k)
                        break
                sides.setdefault(key, set()).add(orient(p, q, other))
    return any(v == {-1, 1} for v in sides.values())


# ---------------------------------------------------------------------------------------
# Brute-force references.


@given(walls=walls_st, segments=segments_st)
@example(walls=[(100, 0, 100, 200)], segments=[(0, 100, 200, 100), (0, 300, 200, 300)])
def test_agrees_with_proper_crossing_reference_in_general_position(walls, segments):
    """GEO-6: in general position, blocked iff the segment properly crosses some wall."""
    assume(all(general_position(s, w) for s in segments for w in walls))
    index = index_of(walls)
    res = trace(index, np.array(segments, dtype=np.float64))
    for k, s in enumerate(segments):
        crossed = [i for i, w in enumerate(walls) if proper_cross(s, w)]
        assert res.wall_blocked[k] == bool(crossed), s
        assert named(index, res.wall_blockers[k]) == [f"w{i}" for i in crossed], s


@given(
    walls=st.lists(small_segment, min_size=1, max_size=6),
    segments=st.lists(small_segment, min_size=1, max_size=20),
)
@example(walls=[(4, 0, 4, 4), (4, 4, 4, 8)], segments=[(0, 4, 8, 4), (0, 0, 8, 8), (4, 4, 8, 4)])
@example(walls=[(4, 4, 0, 2), (4, 4, 0, 6)], segments=[(4, 0, 4, 8)])
@example(  # a chain from below, along the segment to its end, and up: one junction, blocked
    walls=[(0, 0, 1, 1), (0, 2, 2, 1), (2, 1, 0, 1)], segments=[(3, 1, 0, 1)]
)
def test_agrees_with_exact_geo6_reference_on_a_small_lattice(walls, segments):
    """GEO-6 with degenerate cases (touching, tips, collinear, junctions) on a 13x13 lattice."""
    got = blocked(walls, segments)
    assert got == [reference_geo6(walls, s) for s in segments]


# ---------------------------------------------------------------------------------------
# Invariances.


@given(
    walls=walls_st,
    segments=segments_st,
    dx=st.integers(-1000, 1000),
    dy=st.integers(-1000, 1000),
)
@example(
    walls=[(100, 0, 100, 100), (100, 100, 100, 200)], segments=[(0, 100, 200, 100)], dx=-7, dy=13
)
def test_translation_invariance(walls, segments, dx, dy):
    def move(c):
        return (c[0] + dx, c[1] + dy, c[2] + dx, c[3] + dy)

    ia, ib = index_of(walls), index_of([move(w) for w in walls])
    a = trace(ia, np.array(segments, dtype=np.float64))
    b = trace(ib, np.array([move(s) for s in segments], float))
    assert a.wall_blocked.tolist() == b.wall_blocked.tolist()
    assert [named(ia, w) for w in a.wall_blockers] == [named(ib, w) for w in b.wall_blockers]


@given(walls=walls_st, segments=segments_st)
@example(walls=[(100, 0, 100, 100), (100, 100, 100, 200)], segments=[(0, 100, 200, 100)])
def test_scaling_by_two_invariance(walls, segments):
    def double(c):
        return tuple(2 * v for v in c)

    ia, ib = index_of(walls), index_of([double(w) for w in walls])
    a = trace(ia, np.array(segments, dtype=np.float64))
    b = trace(ib, np.array([double(s) for s in segments], float))
    assert a.wall_blocked.tolist() == b.wall_blocked.tolist()
    assert [named(ia, w) for w in a.wall_blockers] == [named(ib, w) for w in b.wall_blockers]


@st.composite
def splittable_wall(draw) -> tuple[Seg, tuple[int, int]]:
    """A wall ``a -> a + n (dx, dy)`` and an integer interior point ``a + j (dx, dy)``."""
    n = draw(st.integers(2, 10))
    dx = draw(st.integers(-100, 100))
    dy = draw(st.integers(-100, 100))
    assume((dx, dy) != (0, 0))
    x0 = draw(st.integers(max(0, -n * dx), min(1000, 1000 - n * dx)))
    y0 = draw(st.integers(max(0, -n * dy), min(1000, 1000 - n * dy)))
    j = draw(st.integers(1, n - 1))
    return (x0, y0, x0 + n * dx, y0 + n * dy), (x0 + j * dx, y0 + j * dy)


@given(
    walls=st.lists(segment, min_size=0, max_size=5),
    target=splittable_wall(),
    segments=segments_st,
    through=st.lists(st.tuples(coord, coord), max_size=5),
)
@example(
    walls=[(100, 100, 100, 200)],
    target=((0, 100, 200, 100), (100, 100)),
    segments=[(50, 0, 150, 200)],
    through=[],
)
def test_splitting_a_wall_changes_nothing(walls, target, segments, through):
    """GEO-6: splitting a wall at an integer interior point V never changes an answer.

    ``through`` adds segments from random points through V (and as far again), the case
    where splitting matters.
    """
    wall, (vx, vy) = target
    pieces = [(*wall[:2], vx, vy), (vx, vy, *wall[2:])]
    segments = list(segments) + [
        (x, y, 2 * vx - x, 2 * vy - y) for x, y in through if (x, y) != (vx, vy)
    ]
    assert blocked([*walls, wall], segments) == blocked([*walls, *pieces], segments)


@given(walls=walls_st, segments=segments_st)
@example(
    walls=[(100, 0, 100, 100), (100, 100, 100, 200), (0, 0, 50, 50)], segments=[(0, 100, 200, 100)]
)
def test_reversing_the_wall_list_changes_nothing(walls, segments):
    n = len(walls)
    ia, ib = index_of(walls), index_of(walls[::-1])
    a = trace(ia, np.array(segments, dtype=np.float64))
    b = trace(ib, np.array(segments, dtype=np.float64))
    assert a.wall_blocked.tolist() == b.wall_blocked.tolist()
    flipped = [
        sorted((f"w{n - 1 - int(i[1:])}" for i in named(ib, w)), key=lambda i: int(i[1:]))
        for w in b.wall_blockers
    ]
    assert [named(ia, w) for w in a.wall_blockers] == flipped


# ---------------------------------------------------------------------------------------
# Monotonicity and symmetry.


@given(walls=walls_st, extra=segment, segments=segments_st)
@example(walls=[(100, 0, 100, 100)], extra=(100, 100, 100, 200), segments=[(0, 100, 200, 100)])
def test_adding_a_wall_never_unblocks(walls, extra, segments):
    before = blocked(walls, segments)
    after = blocked([*walls, extra], segments)
    assert all(a for b, a in zip(before, after, strict=True) if b)


@given(walls=walls_st, segments=segments_st)
@example(walls=[(100, 0, 100, 100), (100, 100, 100, 200)], segments=[(0, 0, 200, 200)])
def test_two_way_walls_are_symmetric(walls, segments):
    """GEO-6 for two-way walls: blocked(P -> Q) == blocked(Q -> P)."""
    reverse = [(*s[2:], *s[:2]) for s in segments]
    assert blocked(walls, segments) == blocked(walls, reverse)


# ---------------------------------------------------------------------------------------
# 5E-LOE-2.


@st.composite
def two_spaces(draw) -> tuple[Seg, Seg]:
    """Two disjoint axis-aligned spaces (integer px, 20..200 px a side) in 0..1000."""
    w0, h0 = draw(st.integers(20, 200)), draw(st.integers(20, 200))
    w1, h1 = draw(st.integers(20, 200)), draw(st.integers(20, 200))
    x0, y0 = draw(st.integers(0, 1000 - w0)), draw(st.integers(0, 1000 - h0))
    x1, y1 = draw(st.integers(0, 1000 - w1)), draw(st.integers(0, 1000 - h1))
    a, b = (x0, y0, x0 + w0, y0 + h0), (x1, y1, x1 + w1, y1 + h1)
    assume(a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1])
    return a, b


def corner_segments(a: Seg, b: Seg) -> np.ndarray:
    return np.array(
        [(*p, *q) for p in inset_corners(a, 0) for q in inset_corners(b, 0)], dtype=np.float64
    )


def inside(box: Seq, x: float, y: float, tol: float = 1e-9) -> bool:
    return box[0] - tol <= x <= box[2] + tol and box[1] - tol <= y <= box[3] + tol


@given(spaces=two_spaces(), walls=walls_st)
@example(spaces=((0, 0, 100, 100), (300, 0, 400, 100)), walls=[(200, -1000, 200, 98)])
@example(
    spaces=((0, 0, 100, 100), (300, 0, 400, 100)),
    walls=[
        (150, -1000, 150, 40),
        (150, 48, 150, 1000),
        (250, -1000, 250, 12),
        (250, 20, 250, 1000),
    ],
)
def test_loe_clear_when_a_corner_line_is_clear(spaces, walls):
    """5E-LOE-2: a clear corner-to-corner segment is a witness, so LOE must be clear."""
    box_from, box_to = spaces
    index = index_of(walls)
    corner_clear = not trace(index, corner_segments(box_from, box_to)).wall_blocked.all()
    loe = line_of_effect_between(index, box_from, box_to)
    if corner_clear:
        assert loe.clear


@given(spaces=two_spaces(), walls=walls_st)
@example(spaces=((0, 0, 100, 100), (300, 0, 400, 100)), walls=[(200, -1000, 200, 98)])
@example(
    spaces=((0, 0, 100, 100), (300, 0, 400, 100)),
    walls=[
        (150, -1000, 150, 40),
        (150, 48, 150, 1000),
        (250, -1000, 250, 12),
        (250, 20, 250, 1000),
    ],
)
def test_loe_witness_is_clear_and_joins_the_spaces(spaces, walls):
    """5E-LOE-2: a witness starts in box_from, ends in box_to and is itself not blocked."""
    box_from, box_to = spaces
    index = index_of(walls)
    loe = line_of_effect_between(index, box_from, box_to)
    if loe.clear:
        assert loe.witness is not None
        x0, y0, x1, y1 = loe.witness
        assert inside(box_from, x0, y0) and inside(box_to, x1, y1)
        assert not trace(index, np.array([loe.witness], dtype=np.float64)).wall_blocked[0]
    else:
        assert loe.witness is None
        # Not clear: in particular no corner-to-corner segment is clear.
        assert trace(index, corner_segments(box_from, box_to)).wall_blocked.all()
