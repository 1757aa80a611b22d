"""GEO-6 / 5E-COV-3 consistency: no line of effect means total cover and no targeting.

Small random wall layouts on a square grid (100 px squares, 6 by 6): walls on grid lines,
straight runs (some split in two), closed rooms (whose corners meet end to end) and
T-junctions (a wall ending on another's interior, as a room wall ending on a corridor's);
two medium tokens on distinct squares, often flush against walls. Whenever
``/v1/line-of-effect`` between the two tokens is not clear (5E-LOE-2, exact), dnd5e cover
with the defaults (paired corners, inset 0.5 px, 5E-COV-5) is ``total`` and ``can_target``
is false (5E-COV-3: total cover cannot be targeted directly).

Found counter-examples (``COUNTER_EXAMPLES``, now regression cases): a wall on the edge of a
token's space with a free end on that space's corner, or a pillar both tokens stand flush
against. Cover judged those walls on the exact corner lines (GEO-6: "the inset never adds a
block") and took a line cleared that way as showing a line of effect, while
``/v1/line-of-effect`` searches between the spaces shrunk by the inset and finds none. Now a
line cleared only by the corner sentence does not show a line of effect
(``TraceResult.corner_cleared``): the exact search decides, and no line of effect is total.
Since GEO-6's later Decisions (either end's token's corner; the inset never adds a block,
in the exact line of effect too) the exact line judges those walls on the exact corner
lines as well: the four have a line of effect, and cover agrees.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from service.engine.scene import build_scene
from service.line_of_effect import Endpoint, line_between
from service.rules.ask import cover_one
from service.rules.base import Attack
from service.rules.dnd5e import RULESET
from tests.scenes import load, tok, wall

N = 6  # squares per side
S = 100  # px per square

coord = st.integers(0, N)
cell = st.tuples(st.integers(0, N - 1), st.integers(0, N - 1))

#: A straight run on a grid line: (vertical, x, y, length in squares), optionally split.
run = st.tuples(st.booleans(), coord, coord, st.integers(1, 3), st.integers(0, 3))
#: A closed room: its top-left grid point and its size in squares.
room = st.tuples(coord, coord, st.integers(1, 3), st.integers(1, 3))
#: A T-junction: a stem from a point inside a horizontal or vertical wall, going one way.
tee = st.tuples(st.booleans(), coord, coord, st.integers(1, 3), st.sampled_from([-1, 1]))


def segments(runs, rooms, tees):
    """Wall segments in grid units (x0, y0, x1, y1)."""
    out = []
    for vertical, x, y, n, split in runs:
        end = (x, y + n) if vertical else (x + n, y)
        if 0 < split < n:  # a straight wall in two pieces (GEO-6: nothing changes)
            mid = (x, y + split) if vertical else (x + split, y)
            out += [(x, y, *mid), (*mid, *end)]
        else:
            out.append((x, y, *end))
    for x, y, w, h in rooms:
        out += [
            (x, y, x + w, y),
            (x + w, y, x + w, y + h),
            (x + w, y + h, x, y + h),
            (x, y + h, x, y),
        ]
    for vertical, x, y, n, side in tees:
        # the bar: two squares through (x, y); the stem leaves (x, y) across it
        if vertical:
            out += [(x, y - 1, x, y + 1), (x, y, x + side * n, y)]
        else:
            out += [(x - 1, y, x + 1, y), (x, y, x, y + side * n)]
    return [s for s in out if s[:2] != s[2:]]


def answers(segs, a, t):
    walls = [wall(f"w{i}", *(v * S for v in s)) for i, s in enumerate(segs)]
    scene = load(walls, [tok("A", a[0] * S, a[1] * S), tok("T", t[0] * S, t[1] * S)])
    geo = build_scene(scene)
    ta, tt = scene.token("A"), scene.token("T")
    loe = line_between(geo, Endpoint(ta), Endpoint(tt), "move")
    res = cover_one(RULESET, geo, ta, tt, Attack(), {})
    return loe, res


#: (walls in squares, A's square, T's square, line of effect, cover): the counter-examples,
#: as GEO-6's Decisions now read them. A wall that only ends on a token's corner (either
#: end's token) is met at its free tip and never blocks there, and the inset never adds a
#: block, in the exact line of effect too.
COUNTER_EXAMPLES = [
    pytest.param(
        [(1, 1, 2, 1)], (1, 0), (1, 1), True, "none", id="wall exactly on the edge the two share"
    ),
    pytest.param(
        [(-1, 1, 2, 1)], (1, 0), (1, 1), True, "half",
        id="wall along the shared edge, end on a corner",
    ),
    pytest.param(
        [(1, 1, 2, 1)], (1, 0), (1, 2), True, "half", id="wall along A's edge, T beyond"
    ),
    pytest.param(
        [(0, 1, 1, 1), (1, 1, 1, 2), (1, 2, 0, 2), (0, 2, 0, 1)],
        (0, 0),
        (0, 2),
        True,
        "none",
        id="a one-square pillar both stand flush against",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("segs", "a", "t", "clear", "cover"), COUNTER_EXAMPLES)
def test_counter_examples_agree(segs, a, t, clear, cover):
    """No line of effect (5E-LOE-2) is total cover (5E-COV-3), and a line of effect is not:
    the exact line and the corner lines read GEO-6 alike."""
    loe, res = answers(segs, a, t)
    assert loe.clear is clear
    assert (res.cover, res.can_target, res.line_of_effect) == (cover, clear, clear)


@example(runs=[(False, 1, 1, 1, 0)], rooms=[], tees=[], a=(1, 0), t=(1, 1))
@settings(max_examples=150, deadline=None)
@given(
    runs=st.lists(run, max_size=6),
    rooms=st.lists(room, max_size=2),
    tees=st.lists(tee, max_size=2),
    a=cell,
    t=cell,
)
def test_no_line_of_effect_is_total_cover(runs, rooms, tees, a, t):
    """GEO-6 / 5E-COV-3: not clear -> ``total`` and ``can_target`` false; cover's own
    ``line_of_effect`` is the endpoint's."""
    assume(a != t)
    segs = segments(runs, rooms, tees)
    loe, res = answers(segs, a, t)
    assert res.line_of_effect is loe.clear, (segs, a, t)
    if not loe.clear:
        assert (res.cover, res.can_target) == ("total", False), (segs, a, t, res.cover)
