"""The compiled trace and its numpy oracle (``tests/reference``) agree exactly.

Random walls — on a small integer lattice (junctions, collinear runs, duplicates, shared end
points are common) and in general position (float coordinates) — with every wall property
that decides what blocks (restrictions per sense, doors and their state, one-way directions,
proximity/distance thresholds, heights), and random segments, some long enough to be looked
up in many pieces. Both paths must give the same ``wall_blocked``, the same
``wall_blockers`` and spend the same count on the work budget (the candidate pairs of
``candidate_pairs``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schemas.scene import SceneSchema
from service.engine.budget import WorkBudget
from service.engine.walls import build_wall_index
from service.errors import OverBudget
from service.geometry.creature_tests import creature_hits
from service.geometry.trace import TraceResult
from service.geometry.walk import candidate_pairs
from tests.kernel_paths import kernel_mode, traced

RESTRICTIONS = ["normal", "normal", "normal", "limited", "limited", "none", "proximity", "distance"]

coarse = st.integers(0, 6).map(lambda v: 100.0 * v)  # walls meet, lines pass end points
lattice = st.integers(0, 12).map(lambda v: 50.0 * v)
general = st.floats(-50.0, 700.0, allow_nan=False, allow_infinity=False)
far = st.integers(-40, 80).map(lambda v: 50.0 * v)  # up to ~6,000 px: many pieces
coord = st.one_of(coarse, coarse, coarse, lattice, general, far)
quad = st.tuples(coord, coord, coord, coord)


@st.composite
def wall_props(draw: st.DrawFn) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for sense in ("move", "sight", "light", "sound"):
        props[sense] = draw(st.sampled_from(RESTRICTIONS))
    props["direction"] = draw(st.sampled_from(["both", "both", "both", "left", "right"]))
    rare = st.integers(0, 3).map(lambda v: v == 0)
    if draw(rare):
        props["door"] = "door"
        props["door_state"] = draw(st.sampled_from(["open", "closed"]))
    if draw(rare):
        props["threshold"] = {
            s: draw(st.one_of(st.none(), st.integers(0, 12).map(float)))
            for s in ("sight", "light", "sound")
        }
    if draw(rare):
        lo = draw(st.integers(-10, 10))
        props["height"] = {"bottom": float(lo), "top": float(lo + draw(st.integers(0, 20)))}
    return props


@st.composite
def scenes(draw: st.DrawFn) -> dict[str, Any]:
    walls: list[dict[str, Any]] = []
    for c in draw(st.lists(quad, min_size=1, max_size=14)):
        walls.append({"c": list(c), **draw(wall_props())})
    for _ in range(draw(st.integers(0, 3))):  # exact duplicates and reversed copies
        w = dict(draw(st.sampled_from(walls)))
        if draw(st.booleans()):
            w["c"] = [w["c"][2], w["c"][3], w["c"][0], w["c"][1]]
        walls.append(w)
    for i, w in enumerate(walls):
        w["id"] = f"w{i}"
    return {"grid": {"size": 100, "distance": 5}, "walls": walls}


def both(index: Any, seg: np.ndarray, **kw: Any) -> tuple[TraceResult, int, TraceResult, int]:
    out: list[Any] = []
    for mode in ("numpy", "kernel"):
        with kernel_mode(mode):
            budget = WorkBudget(10**12, "test")
            out += [traced(index, seg, budget=budget, **kw), budget.used]
    return out[0], out[1], out[2], out[3]


@settings(max_examples=300, deadline=None)
@example(  # two walls meet on the line from both sides: a junction (GEO-6)
    scene={
        "grid": {"size": 100, "distance": 5},
        "walls": [{"id": "w0", "c": [100, 0, 100, 100]}, {"id": "w1", "c": [100, 100, 100, 200]}],
    },
    segs=[(0.0, 100.0, 300.0, 100.0)],
    sense="move",
    origins=False,
    heights=None,
    masked=False,
    edge_blocks=False,
    data=None,
)
@given(
    scene=scenes(),
    segs=st.lists(quad, min_size=1, max_size=12),
    sense=st.sampled_from(["move", "sight", "light", "sound"]),
    origins=st.booleans(),
    heights=st.one_of(st.none(), st.tuples(st.integers(-12, 12), st.integers(-12, 12))),
    masked=st.booleans(),
    edge_blocks=st.booleans(),
    data=st.data(),
)
def test_kernel_equals_numpy(scene, segs, sense, origins, heights, masked, edge_blocks, data):
    index = build_wall_index(SceneSchema().load(scene))
    seg = np.array(segs, dtype=np.float64)
    kw: dict[str, Any] = {"sense": sense, "edge_blocks": edge_blocks}
    if origins:  # one-way walls and thresholds measured from elsewhere than the start
        kw["origins"] = np.array(
            data.draw(st.lists(st.tuples(coord, coord), min_size=len(seg), max_size=len(seg))),
            dtype=np.float64,
        )
    if heights is not None:
        kw["elevations"] = np.tile(np.array(heights, dtype=np.float64), (len(seg), 1))
    if masked:
        kw["wall_mask"] = np.array(
            data.draw(st.lists(st.booleans(), min_size=index.size, max_size=index.size)),
            dtype=bool,
        )
    ref, ref_used, got, got_used = both(index, seg, **kw)
    assert got.wall_blocked.tolist() == ref.wall_blocked.tolist()
    assert got.wall_blockers == ref.wall_blockers
    assert got_used == ref_used  # the same candidate pairs are counted
    pairs = []
    for mode in ("numpy", "kernel"):
        with kernel_mode(mode):
            si, wi = candidate_pairs(index, seg)
            pairs.append(sorted(zip(si.tolist(), wi.tolist(), strict=True)))
    assert pairs[0] == pairs[1]
    assert len(pairs[0]) == ref_used


@settings(max_examples=100, deadline=None)
@given(
    scene=scenes(),
    segs=st.lists(quad, min_size=1, max_size=12),
    limit=st.integers(0, 40),
    with_blockers=st.booleans(),
)
def test_budget_refused_alike(scene, segs, limit, with_blockers):
    """Both paths refuse the same requests, having spent the same count (issue 16), when
    blockers are listed; in bulk tracing the kernel stops walking a line at its first plain
    crossing, so it spends at most what the numpy path spends and refuses only what that
    path refuses too."""
    index = build_wall_index(SceneSchema().load(scene))
    seg = np.array(segs, dtype=np.float64)
    outcome = []
    for mode in ("numpy", "kernel"):
        with kernel_mode(mode):
            budget = WorkBudget(limit, "test")
            try:
                traced(index, seg, budget=budget, with_blockers=with_blockers)
                outcome.append(("ok", budget.used))
            except OverBudget:
                outcome.append(("refused", budget.used))
    if with_blockers:
        assert outcome[0] == outcome[1]
    else:
        assert outcome[1][1] <= outcome[0][1]
        assert outcome[1][0] == "ok" or outcome[0][0] == "refused"


@settings(max_examples=200, deadline=None)
@given(
    scene=scenes(),
    segs=st.lists(quad, min_size=1, max_size=12),
    bands=st.tuples(
        st.integers(-12, 12), st.integers(-12, 12), st.integers(0, 10), st.integers(0, 10)
    ),
    low=st.sampled_from([True, False, "mask"]),
    inset=st.sampled_from([0.0, 0.5, 7.0]),
    data=st.data(),
)
def test_kernel_equals_numpy_with_bands(scene, segs, bands, low, inset, data):
    """GEO-5a bands, low obstacles and GEO-6 exact corners: both paths agree (issue 20)."""
    index = build_wall_index(SceneSchema().load(scene))
    seg = np.array(segs, dtype=np.float64)
    b0, b1, h0, h1 = bands
    kw: dict[str, Any] = {
        "elevations": np.tile(np.array([b0, b1, b0 + h0, b1 + h1], float), (len(seg), 1)),
        "low_obstacles": low,
    }
    if low == "mask":
        kw["low_obstacles"] = np.array(
            data.draw(st.lists(st.booleans(), min_size=index.size, max_size=index.size)),
            dtype=bool,
        )
    if inset:  # the segments as inset from exact corners `inset` px away
        direction = seg[:, 2:4] - seg[:, 0:2]
        unit = direction / np.maximum(np.hypot(*direction.T), 1e-9)[:, None]
        kw["corners"] = np.hstack([seg[:, 0:2] - unit * inset, seg[:, 2:4] + unit * inset])
    ref, ref_used, got, got_used = both(index, seg, **kw)
    assert got.wall_blocked.tolist() == ref.wall_blocked.tolist()
    assert got.wall_blockers == ref.wall_blockers
    assert got.low_blockers == ref.low_blockers
    assert got_used == ref_used


box_coord = st.one_of(coarse, lattice, general)


@st.composite
def creature_boxes(draw: st.DrawFn) -> tuple[float, float, float, float]:
    x, y = draw(box_coord), draw(box_coord)
    w, h = draw(st.sampled_from([25.0, 50.0, 100.0, 200.0])), draw(st.sampled_from([50.0, 100.0]))
    return (x, y, x + w, y + h)


@settings(max_examples=300, deadline=None)
@given(
    segs=st.lists(quad, min_size=1, max_size=12),
    boxes=st.lists(creature_boxes(), min_size=1, max_size=30),
    exact=st.booleans(),
    bands=st.booleans(),
    data=st.data(),
)
def test_creature_hits_equal_on_both_paths(segs, boxes, exact, bands, data):
    """GEO-7 (with GEO-5a bands and GEO-6 exact corners): the kernel's pre-selection of
    (segment, creature space) pairs never changes which spaces a segment crosses."""
    seg = np.array(segs, dtype=np.float64)
    box = np.array(boxes, dtype=np.float64)
    ex = None
    if exact:  # exact corner points: often a box corner, as a token's own corner is
        corners = [(b[0], b[1]) for b in boxes] + [(b[2], b[3]) for b in boxes]
        pick = st.one_of(st.sampled_from(corners), st.tuples(coord, coord))
        ex = np.array([data.draw(pick) + data.draw(pick) for _ in segs], dtype=np.float64).reshape(
            len(segs), 4
        )
    band = spans = None
    if bands:
        band = np.tile(np.array([0.0, 2.0, 1.0, 3.0]), (len(segs), 1))
        spans = np.array(
            [data.draw(st.sampled_from([(0.0, 1.0), (2.5, 4.0), (-1.0, 0.5)])) for _ in boxes]
        )
    # A mask row per segment group (as a matrix's pairs): the kernel skips masked spaces
    # before testing them; the numpy path tests them all and the mask is applied after.
    groups = data.draw(st.integers(1, 3))
    mask = np.array([[data.draw(st.booleans()) for _ in boxes] for _ in range(groups)], dtype=bool)
    mask_rows = np.array([data.draw(st.integers(0, groups - 1)) for _ in segs], dtype=np.intp)
    got, masked = [], []
    for mode in ("numpy", "kernel"):
        with kernel_mode(mode):
            rows, cols = creature_hits(seg, box, band, spans, ex)
            got.append(list(zip(rows.tolist(), cols.tolist(), strict=True)))
            rows, cols = creature_hits(seg, box, band, spans, ex, None, (mask, mask_rows))
            keep = mask[mask_rows[rows], cols]
            masked.append(list(zip(rows[keep].tolist(), cols[keep].tolist(), strict=True)))
    assert got[0] == got[1]
    assert masked[0] == masked[1] == [(r, c) for r, c in got[0] if mask[mask_rows[r], c]]


@settings(max_examples=300, deadline=None)
@given(
    scene=scenes(),
    segs=st.lists(quad, min_size=1, max_size=12),
    bands=st.tuples(
        st.integers(-12, 12), st.integers(-12, 12), st.integers(0, 10), st.integers(0, 10)
    ),
    inset=st.sampled_from([0.0, 0.5, 7.0]),
    edge_blocks=st.booleans(),
    data=st.data(),
)
def test_fewer_walls_never_block_more(scene, segs, bands, inset, edge_blocks, data):
    """GEO-1..6 with GEO-5a: tracing with a subset of the walls and low obstacles set aside
    blocks no line that all walls with low obstacles left clear, and its corner sentence
    clears no such line that the first trace did not clear (what lets ``measure`` trace
    again only the blocked lines for the full walls, issue 20)."""
    index = build_wall_index(SceneSchema().load(scene))
    seg = np.array(segs, dtype=np.float64)
    b0, b1, h0, h1 = bands
    kw: dict[str, Any] = {
        "elevations": np.tile(np.array([b0, b1, b0 + h0, b1 + h1], float), (len(seg), 1)),
        "edge_blocks": edge_blocks,
    }
    if inset:
        direction = seg[:, 2:4] - seg[:, 0:2]
        unit = direction / np.maximum(np.hypot(*direction.T), 1e-9)[:, None]
        kw["corners"] = np.hstack([seg[:, 0:2] - unit * inset, seg[:, 2:4] + unit * inset])
    tall = np.array(
        data.draw(st.lists(st.booleans(), min_size=index.size, max_size=index.size)), dtype=bool
    )
    first = traced(index, seg, low_obstacles=True, **kw)
    full = traced(index, seg, low_obstacles=False, wall_mask=tall, **kw)
    clear = ~first.wall_blocked
    assert not (full.wall_blocked & clear).any()
    if full.corner_cleared is not None:
        before = first.corner_cleared if first.corner_cleared is not None else np.zeros(len(seg))
        assert not (full.corner_cleared & clear & ~before.astype(bool)).any()


@settings(max_examples=400, deadline=None)
@given(
    scene=scenes(),
    segs=st.lists(quad, min_size=1, max_size=12),
    sense=st.sampled_from(["move", "sight", "light", "sound"]),
    bands=st.one_of(
        st.none(),
        st.tuples(
            st.integers(-12, 12), st.integers(-12, 12), st.integers(0, 10), st.integers(0, 10)
        ),
    ),
    low=st.booleans(),
    inset=st.sampled_from([0.0, 0.5, 7.0]),
    edge_blocks=st.booleans(),
    data=st.data(),
)
def test_bulk_kernel_equals_numpy(scene, segs, sense, bands, low, inset, edge_blocks, data):
    """Bulk tracing (no blocker lists): the kernel settles lines that a plain wall crosses
    without the exact tests, and still blocks, and clears by GEO-6's corner sentence, exactly
    the lines the numpy reference path does (GEO-1..6, GEO-5a; issue 20)."""
    index = build_wall_index(SceneSchema().load(scene))
    seg = np.array(segs, dtype=np.float64)
    kw: dict[str, Any] = {"low_obstacles": low, "edge_blocks": edge_blocks, "with_blockers": False}
    if bands is not None:
        b0, b1, h0, h1 = bands
        kw["elevations"] = np.tile(np.array([b0, b1, b0 + h0, b1 + h1], float), (len(seg), 1))
    if inset:  # exact corners `inset` px from the segment's ends, diagonally as on squares
        signs = st.sampled_from([-1.0, 1.0])
        offsets = [[data.draw(signs) * inset for _ in range(4)] for _ in segs]
        kw["corners"] = seg + np.array(offsets)
    out = []
    for mode in ("numpy", "kernel"):
        with kernel_mode(mode):
            got = traced(index, seg, sense=sense, **kw)
            cleared = got.corner_cleared
            out.append((got.wall_blocked.tolist(), None if cleared is None else cleared.tolist()))
    assert out[0] == out[1]


@pytest.mark.parametrize(
    ("wall", "inset_line", "cleared"),
    [
        # The wall leaves the exact corner (0, 0) and crosses the inset line beyond the dead
        # band: GEO-6 judges it on the exact corner line, which it only touches at its start.
        ([0, 0, 100, 10], [0.5, 0.5, 299.5, 0.5], True),
        ([0, 0, 100, -10], [0.5, -0.5, 299.5, -0.5], True),
        # On the other side it never meets the inset line.
        ([0, 0, 100, 10], [0.5, -0.5, 299.5, -0.5], False),
    ],
)
def test_bulk_shortcut_leaves_corner_walls_to_geo6(wall, inset_line, cleared):
    """GEO-6: a plain wall that properly crosses a bulk-traced line but ends on its exact
    corner is judged on the exact corner line (cleared there), not settled as blocked by the
    kernel's shortcut; both paths agree."""
    scene = {"grid": {"size": 100, "distance": 5}, "walls": [{"id": "w", "c": wall}]}
    index = build_wall_index(SceneSchema().load(scene))
    seg, exact = np.array([inset_line], float), np.array([[0.0, 0.0, 300.0, 0.0]])
    for mode in ("numpy", "kernel"):
        with kernel_mode(mode):
            got = traced(index, seg, corners=exact, with_blockers=False)
            assert got.wall_blocked.tolist() == [False]
            assert (got.corner_cleared is not None and bool(got.corner_cleared[0])) == cleared


@settings(max_examples=200, deadline=None)
@given(
    walls=st.lists(quad, min_size=1, max_size=30),
    segs=st.lists(quad, min_size=1, max_size=40),
)
def test_work_estimate_equal_on_both_paths(walls, segs):
    """Issue 16/20: the budget's estimate of a trace (``estimate_tests``) is the same number
    compiled and in numpy (segments inside, across and outside the density grid)."""
    from service.engine.density import wall_density
    from service.geometry.walk import estimate_tests

    density = wall_density(np.array(walls, dtype=np.float64))
    seg = np.array(segs, dtype=np.float64)
    out = []
    for mode in ("numpy", "kernel"):
        with kernel_mode(mode):
            out.append(estimate_tests(density, seg))
    assert out[0] == out[1]


@settings(max_examples=150, deadline=None)
@given(
    scene=scenes(),
    segs=st.lists(quad, min_size=1, max_size=12),
    boxes=st.lists(
        st.tuples(coarse, coarse, st.sampled_from([50.0, 100.0, 200.0])).map(
            lambda b: (b[0], b[1], b[0] + b[2], b[1] + b[2])
        ),
        min_size=1,
        max_size=5,
    ),
    data=st.data(),
)
def test_creatures_where_clear_are_the_creatures_of_clear_lines(scene, segs, boxes, data):
    """Bulk cover reads a creature only where no wall blocks (5E-COV-6, SF-COV-6, PV-COV-3),
    so ``creatures_where_clear`` tests creatures only on the lines walls leave clear (issue
    20): on both paths, the creature-blocked lines are exactly those of a full trace that
    walls leave clear, with or without a per-pair creature mask."""
    index = build_wall_index(SceneSchema().load(scene))
    seg = np.array(segs, dtype=np.float64)
    box = np.array(boxes, dtype=np.float64)
    ids = [f"c{i}" for i in range(len(box))]
    groups = data.draw(st.integers(1, 3))
    kw: dict[str, Any] = {"creature_boxes": box, "creature_ids": ids}
    if data.draw(st.booleans()):
        kw["creature_mask"] = np.array(
            [[data.draw(st.booleans()) for _ in box] for _ in range(groups)], dtype=bool
        )
        kw["creature_mask_rows"] = np.array(
            [data.draw(st.integers(0, groups - 1)) for _ in segs], dtype=np.intp
        )
    for mode in ("numpy", "kernel"):
        with kernel_mode(mode):
            every = traced(index, seg, with_blockers=False, **kw)
            some = traced(index, seg, with_blockers=False, creatures_where_clear=True, **kw)
        assert some.wall_blocked.tolist() == every.wall_blocked.tolist()
        expected = every.creature_blocked & ~every.wall_blocked
        assert some.creature_blocked.tolist() == expected.tolist()
