"""GEO-6's junction rule and GEO-4's limited walls at a point where walls meet, by kind.

One row per kind of junction a traced line can pass through: the value each must give
(from the rules, not from either implementation), on both paths of ``trace`` (the compiled
kernel and the numpy reference), with and without blocker lists. The line runs along
y = 100 from x = 0 to x = 300 and meets the walls at (100, 100) unless said otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest

from schemas.scene import SceneSchema
from service.engine.walls import build_wall_index
from service.geometry.trace import TraceSpec, trace
from tests.kernel_paths import kernel_mode

UP = [100, 0, 100, 100]  # from above (y < 100) to the junction
DOWN = [100, 100, 100, 200]  # from the junction downwards
LIMITED_CROSSING = {"id": "x", "c": [200, 0, 200, 200], "move": "limited"}


def wall(wid: str, c: list[float], move: str = "normal") -> dict[str, object]:
    return {"id": wid, "c": c, "move": move}


KINDS = [
    # GEO-6: walls on both sides of the line at the point block it; the straight wall split
    # there is what is named.
    ("both sides", [wall("a", UP), wall("b", DOWN)], True, {"a", "b"}),
    ("one side only", [wall("a", UP), wall("b", [100, 100, 200, 0])], False, set()),
    # Split straight, and a third wall on one side: the straight pieces are named.
    (
        "split wall and a spur",
        [wall("a", UP), wall("b", DOWN), wall("c", [100, 100, 50, 50])],
        True,
        {"a", "b"},
    ),
    # No straight pair: every wall meeting there is named.
    (
        "bent walls",
        [wall("a", [50, 0, 100, 100]), wall("b", [100, 100, 180, 200])],
        True,
        {"a", "b"},
    ),
    # Ends a hair apart are one point (they agree to 6 decimals).
    (
        "ends a hair apart",
        [wall("a", [100, 0, 100.0000001, 100]), wall("b", DOWN)],
        True,
        {"a", "b"},
    ),
    # GEO-4: limited walls separating the line at a point are one limited crossing ...
    ("limited both sides", [wall("a", UP, "limited"), wall("b", DOWN, "limited")], False, set()),
    # ... so with another limited crossing, two: blocked, all three named.
    (
        "limited junction and crossing",
        [wall("a", UP, "limited"), wall("b", DOWN, "limited"), LIMITED_CROSSING],
        True,
        {"a", "b", "x"},
    ),
    # A normal wall on one side only and a limited one on the other: one limited crossing.
    ("normal and limited", [wall("a", UP), wall("b", DOWN, "limited")], False, set()),
    (
        "normal and limited, and a crossing",
        [wall("a", UP), wall("b", DOWN, "limited"), LIMITED_CROSSING],
        True,
        {"a", "b", "x"},
    ),
    # A chain that comes from one side, runs along the line and leaves to the other side
    # separates it: the stretch counts as one point.
    (
        "chain crossing along the line",
        [wall("a", UP), wall("r", [100, 100, 200, 100]), wall("b", [200, 100, 200, 200])],
        True,
        {"a", "b"},
    ),
    (
        "chain back to the same side",
        [wall("a", UP), wall("r", [100, 100, 200, 100]), wall("b", [200, 100, 200, 0])],
        False,
        set(),
    ),
    # Two separate points, each with walls on one side only: never joined into one.
    (
        "two one-sided points",
        [wall("a", UP), wall("b", [200, 100, 200, 200])],
        False,
        set(),
    ),
]


@pytest.mark.parametrize(("kind", "walls", "blocked", "named"), KINDS, ids=[k[0] for k in KINDS])
@pytest.mark.parametrize("mode", ["kernel", "numpy"])
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reversed"])
def test_junction_kinds(kind, walls, blocked, named, mode, reverse):
    """GEO-6 / GEO-4 at a junction: the right value on both paths, both directions."""
    index = build_wall_index(SceneSchema().load({"grid": {"size": 100}, "walls": walls}))
    seg = np.array([[300.0, 100.0, 0.0, 100.0] if reverse else [0.0, 100.0, 300.0, 100.0]])
    with kernel_mode(mode):
        listed = trace(index, seg)
        bulk = trace(index, seg, TraceSpec(with_blockers=False))
    assert bool(listed.wall_blocked[0]) is blocked, kind
    assert bool(bulk.wall_blocked[0]) is blocked, kind
    assert {index.ids[w] for w in listed.wall_blockers[0]} == named, kind


CORNER_KINDS = [
    # GEO-6 at a corner line's own end: the line leaves the token's corner (100, 100) along
    # wall r, between wall u on the token's side and wall d on the other: blocked.
    ("leaves along a wall between both sides", [100, 100, 200, 200], True),
    # The chain leaves back to the token's side: the line slips past it.
    ("leaves along a wall, chain on one side", [100, 100, 200, 0], False),
]


@pytest.mark.parametrize(
    ("kind", "d_end", "blocked"), CORNER_KINDS, ids=[k[0] for k in CORNER_KINDS]
)
@pytest.mark.parametrize("mode", ["kernel", "numpy"])
@pytest.mark.parametrize("listing", [True, False], ids=["listed", "bulk"])
def test_corner_line_junction_kinds(kind, d_end, blocked, mode, listing):
    """GEO-6's corner sentence: the inset line (99.5, 99.5) -> (300.5, 99.5) crosses wall u,
    which ends on the exact corner (100, 100), so the exact corner line decides, with the
    stretch it runs along wall r and the wall d leaving that stretch's far end."""
    walls = [
        wall("u", [100, 0, 100, 100]),
        wall("r", [100, 100, 200, 100]),
        wall("d", [200, 100, d_end[2], d_end[3]]),
    ]
    index = build_wall_index(SceneSchema().load({"grid": {"size": 100}, "walls": walls}))
    seg = np.array([[99.5, 99.5, 300.5, 99.5]])
    exact = np.array([[100.0, 100.0, 300.0, 100.0]])
    with kernel_mode(mode):
        got = trace(index, seg, TraceSpec(with_blockers=listing), corners=exact)
    assert bool(got.wall_blocked[0]) is blocked, kind


U = wall("u", [100, 0, 100, 100])  # ends on the exact corner (100, 100), crosses the inset line

CORNER_AND_OTHER_KINDS = [
    # GEO-6's corner sentence alone: u only touches the exact corner line at its corner.
    ("the corner's wall alone", [U], False),
    # Another obstacle crossing the line further on blocks it, whatever the corner does.
    ("another wall crosses the line", [U, wall("far", [250, 0, 250, 200])], True),
    # Another obstacle crossing only the inset course (a hair above the exact line): the
    # other walls are judged on the inset line, so it blocks.
    ("another wall crosses only the inset course", [U, wall("hair", [150, 99, 150, 99.8])], True),
    # A limited wall alone does not block (GEO-4), wherever it is.
    ("another limited wall", [U, wall("lim", [250, 0, 250, 200], "limited")], False),
    # The corner's own obstacle (u, then a wall joined to its far end) crosses the exact
    # line further on: judged on the exact line, that crossing blocks.
    (
        "the corner's obstacle crosses further on",
        [U, wall("top", [100, 0, 250, 0]), wall("far", [250, 0, 250, 200])],
        True,
    ),
    # ... and one joined to it that stays above the line does not.
    (
        "the corner's obstacle stays on one side",
        [U, wall("top", [100, 0, 250, 0]), wall("short", [250, 0, 250, 50])],
        False,
    ),
]


@pytest.mark.parametrize(
    ("kind", "walls", "blocked"),
    CORNER_AND_OTHER_KINDS,
    ids=[k[0] for k in CORNER_AND_OTHER_KINDS],
)
@pytest.mark.parametrize("mode", ["kernel", "numpy"])
@pytest.mark.parametrize("listing", [True, False], ids=["listed", "bulk"])
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reversed"])
def test_corner_sentence_with_other_walls(kind, walls, blocked, mode, listing, reverse):
    """GEO-6: a wall ending on a corner line's exact corner has its obstacle judged on the
    exact corner line, every other wall on the inset line; the inset only removes false
    blocks. The inset line (99.5, 99.5) -> (300.5, 99.5) leaves the corner (100, 100)."""
    index = build_wall_index(SceneSchema().load({"grid": {"size": 100}, "walls": walls}))
    seg = np.array([[99.5, 99.5, 300.5, 99.5]])
    exact = np.array([[100.0, 100.0, 300.0, 100.0]])
    if reverse:
        seg, exact = seg[:, [2, 3, 0, 1]], exact[:, [2, 3, 0, 1]]
    with kernel_mode(mode):
        got = trace(index, seg, TraceSpec(with_blockers=listing), corners=exact)
    assert bool(got.wall_blocked[0]) is blocked, kind
