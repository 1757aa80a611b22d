"""The batched exact search: bounded memory, and far pairs on the same path (5E-LOE-2, GEO-6).

docs/decisions.md "Bounded work": the searches of many pairs are laid out in chunks whose
(pair, wall) rows are bounded before any is queried (``vertices.pair_chunks``), their
searches' own work afforded before any of it, and every pair, near or far, traced chunk by
chunk through one path (``search._Searches.run``): the same witness, count and refusals as
each pair searched alone (the reference ``tests.reference.exact_search``).
"""

from __future__ import annotations

import re
import tracemalloc
from unittest.mock import patch

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.worst import lattice
from service.app import create_app
from service.engine.tolerances import CHORD_TOL, ON_LINE_TOL_PX, SIDE_TOL_REL
from service.errors import OverBudget
from service.geometry import bands, search
from service.geometry.firm import surely_blocked
from service.geometry.search import search_many
from service.geometry.trace import TraceSpec, trace
from service.geometry.vertices import ROWS_CHUNK, near_wall_bound, pair_chunks
from service.geometry.walk import settling
from tests.property.test_geometry_properties import index_of, segment
from tests.reference import exact_search as reference

#: Most bytes a lattice vision matrix may hold at once (numpy, as tracemalloc counts it):
#: ``ROWS_CHUNK`` rows of a few hundred bytes and ``MANY_CHUNK`` lines of a few hundred,
#: whatever the pairs (before the chunks, 100 tokens took 182 MB, 200 about four times it).
PEAK_BOUND_MB = 64


def _lattice_with_tokens(tokens: int) -> dict:
    """``bench.worst.lattice``'s 300 walls (150 x 150 rooms) and ``tokens`` spread over it."""
    scene = lattice(300)
    rng = np.random.default_rng(1)
    spots = (rng.random((tokens, 2)) * 15_000).round().tolist()
    scene["tokens"] = [{"id": f"t{i}", "x": x, "y": y} for i, (x, y) in enumerate(spots)]
    return scene


def _peak_mb(client, body: dict) -> tuple[object, float]:
    """The answer to ``POST /v1/matrix`` and the most memory (MB) numpy held meanwhile."""
    tracemalloc.start()
    try:
        resp = client.post("/v1/matrix", json=body)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return resp, peak / 2**20


@pytest.mark.parametrize("max_tests", [None, 20])
def test_a_lattice_vision_matrix_stays_within_a_memory_bound(max_tests, monkeypatch):
    """Issue 32 kind 1: a small vision matrix body on a lattice of walls (about 20 kB, 100
    tokens, 4,950 exact searches) answers 200 (or, with a search limit below any search's
    28 vertex pairs, a 422 naming what to reduce) while numpy holds at most
    ``PEAK_BOUND_MB`` at once, not pairs x walls (the searches alone took 179 MB before)."""
    if max_tests is not None:
        monkeypatch.setattr(search, "MAX_SEARCH_TESTS", max_tests)
    # A work budget the cost model lets this matrix through with (by default it foresees
    # about 7.2 M units and refuses it, test below): here the search itself is bounded.
    config = {"TESTING": False, "PRELOAD_SAMPLE": False, "WORK_BUDGET": 60_000_000}
    client = create_app(config).test_client()
    sid = client.post("/v1/scenes", json={"scene": _lattice_with_tokens(100)}).get_json()
    body = {"ruleset": "dnd5e", "scene_id": sid["scene_id"], "kind": "vision"}
    resp, peak = _peak_mb(client, body)
    assert peak < PEAK_BOUND_MB
    if max_tests is None:
        assert resp.status_code == 200, resp.get_json()
    else:
        assert resp.status_code == 422, resp.get_json()
        message = resp.get_json()["message"]
        assert "reduce the walls between them" in message
        assert f"the budget is {max_tests:,} line-wall tests" in message


def test_a_refused_sample_says_a_need_past_the_budget():
    """The cost model refuses this matrix from its sample (``WorkBudget.foresee``): the
    422 says what it foresaw, which is past the budget it names (a refused sample used to
    say only what it had spent before its refusal, far under the budget)."""
    client = create_app({"TESTING": False, "PRELOAD_SAMPLE": False}).test_client()
    sid = client.post("/v1/scenes", json={"scene": _lattice_with_tokens(100)}).get_json()
    body = {"ruleset": "dnd5e", "scene_id": sid["scene_id"], "kind": "vision"}
    resp = client.post("/v1/matrix", json=body)
    assert resp.status_code == 422, resp.get_json()
    message = resp.get_json()["message"]
    limit, needed = (
        int(x.replace(",", "")) for x in re.findall(r"(?:is|about) ([\d,]+)", message)[-2:]
    )
    assert needed > limit, message


walls_near = st.lists(segment, min_size=1, max_size=30)
box = st.tuples(st.integers(-100, 900), st.integers(-100, 900), st.integers(1, 400)).map(
    lambda b: (float(b[0]), float(b[1]), float(b[0] + b[2]), float(b[1] + b[2]))
)


@given(walls=walls_near, boxes=st.lists(box, min_size=1, max_size=10))
def test_the_near_wall_bound_holds_every_wall_the_tree_finds(walls, boxes):
    """``near_wall_bound`` (the grid's cell counts, before any query) is at least the walls
    whose bounding box meets each box: what ``STRtree.query`` returns for it."""
    index = index_of(walls)
    b = np.array(boxes, dtype=np.float64)

    found = np.bincount(index.tree.query(shapely.box(*b.T))[0], minlength=len(b))
    assert (near_wall_bound(index, b) >= found).all()


def test_pair_chunks_bound_the_rows_of_each_chunk(monkeypatch):
    """Each chunk of pairs holds at most ``ROWS_CHUNK`` (pair, wall) rows, or one pair; the
    chunks are the pairs in order, each once."""
    monkeypatch.setattr("service.geometry.vertices.ROWS_CHUNK", 500)
    index = index_of([tuple(w["c"]) for w in lattice(300)["walls"]])
    rng = np.random.default_rng(2)
    lo = rng.random((400, 2)) * 15_000
    bf = np.hstack([lo, lo + 50])
    bt = bf[rng.permutation(400)]
    chunks = list(pair_chunks(index, bf, bt))
    assert np.array_equal(np.concatenate(chunks), np.arange(400))

    for rows in chunks:
        hull = shapely.box(
            np.minimum(bf[rows, 0], bt[rows, 0]),
            np.minimum(bf[rows, 1], bt[rows, 1]),
            np.maximum(bf[rows, 2], bt[rows, 2]),
            np.maximum(bf[rows, 3], bt[rows, 3]),
        )
        assert len(rows) == 1 or len(index.tree.query(hull)[0]) <= 500
    assert ROWS_CHUNK > 500  # the default is larger than what this checks


#: Bands ``bottom0, bottom1, top0, top1`` (grid units): flat, one end taller, raised, thin.
BANDS = [(0.0, 0.0, 1.0, 1.0), (0.0, 0.0, 1.0, 2.0), (0.0, 8.0, 1.0, 9.0), (2.0, 2.0, 2.0, 2.0)]

lattice_box = st.tuples(st.integers(0, 9), st.integers(0, 9), st.sampled_from([1, 1, 2])).map(
    lambda b: (
        100.0 * b[0] + 0.5,
        100.0 * b[1] + 0.5,
        100.0 * (b[0] + b[2]) - 0.5,
        100.0 * (b[1] + b[2]) - 0.5,
    )
)
lattice_wall = st.tuples(*[st.integers(0, 10).map(lambda v: 100.0 * v)] * 4).filter(
    lambda s: s[:2] != s[2:]
)


@settings(max_examples=150, deadline=None)
@given(
    walls=st.lists(st.one_of(lattice_wall, segment), min_size=1, max_size=24),
    boxes=st.lists(lattice_box, min_size=2, max_size=6, unique=True),
    max_tests=st.sampled_from([60, 200, 1_000, 100_000]),
    chunk=st.sampled_from([8, 40, 32_768]),
    one_way=st.booleans(),
    heights=st.one_of(st.none(), st.tuples(st.sampled_from([-10, 0, 1]), st.integers(1, 12))),
    bands=st.lists(st.sampled_from(BANDS), min_size=1, max_size=4),
)
def test_far_and_near_searches_answer_as_each_alone(
    walls, boxes, max_tests, chunk, one_way, heights, bands
):
    """Every pair through the one batched path, its searches counted line by line when they
    could pass ``max_tests`` and traced ``chunk`` vertex pairs at a time (several rounds),
    answers as each pair searched alone by the reference: the same witness and count of
    lines (5E-LOE-2), or a refusal both ways (``search_budget``). With walls of limited
    height and bands (GEO-5a), a wall covering a line's band where it crosses it blocks it
    in the walk (``walk.settling``): the same answers."""
    props: dict = {"direction": "left"} if one_way else {}
    if heights is not None:  # every wall ``bottom..top`` tall
        props["height"] = {"bottom": float(heights[0]), "top": float(heights[0] + heights[1])}
    index = index_of(walls, **props)
    pairs = [(a, b) for a in boxes for b in boxes if a != b]
    bf = np.array([a for a, _ in pairs], dtype=np.float64)
    bt = np.array([b for _, b in pairs], dtype=np.float64)
    elev = None if heights is None else np.array([bands[k % len(bands)] for k in range(len(pairs))])
    with (
        patch.object(search, "CANDIDATE_CHUNK", chunk),
        patch.object(reference, "CANDIDATE_CHUNK", chunk),
        patch.object(search, "MANY_CHUNK", 3 * chunk),
    ):
        got = want = None
        try:
            got = search_many(index, bf, bt, "move", elev, None, None, max_tests)
        except OverBudget:
            got = "refused"
        try:
            want = reference.search_each(index, bf, bt, "move", elev, None, None, max_tests)
        except OverBudget:
            want = "refused"
    assert got == want


@pytest.mark.parametrize(
    ("band", "wall"),
    [
        # A creature standing on the floor its walls start at (a building's level, GEO-10).
        ((0.0, 0.0, 1.0, 1.0), (0.0, 4.0)),
        ((0.0, 0.0, 1.0, 2.0), (0.0, 4.0)),
        ((0.0, 0.0, 4.0, 4.0), (0.0, 4.0)),  # as tall as the wall: [0, 4) holds it
        # Sloping bands: covered at some crossings, not at others.
        ((0.0, 1.0, 2.0, 3.0), (0.0, 4.0)),
        ((0.0, 0.0, 1.0, 8.0), (0.0, 4.0)),
        ((0.0, 10.0, 1.0, 11.0), (0.0, 4.0)),  # from the floor to a creature flying at 10
        ((2.0, -2.0, 3.0, 1.0), (0.0, 4.0)),
        # A band of no thickness at the wall's top passes over it (GEO-5: half-open).
        ((4.0, 4.0, 4.0, 4.0), (0.0, 4.0)),
        ((0.0, 0.0, 0.0, 0.0), (0.0, 4.0)),
        ((0.0, 8.0, 0.0, 8.0), (0.0, 4.0)),
        # Below the wall's bottom, or above its top: not covered.
        ((-1.0, -1.0, 1.0, 1.0), (0.0, 4.0)),
        ((0.0, 0.0, 5.0, 5.0), (0.0, 4.0)),
    ],
)
@pytest.mark.parametrize("restriction", ["normal", "limited"])
@pytest.mark.parametrize("t", [0.0625, 0.25, 0.5, 0.75, 0.9375])
def test_a_wall_covering_the_band_where_it_is_crossed_settles_the_line(band, wall, restriction, t):
    """GEO-5a: a wall whose ``[bottom, top)`` covers a line's band where the line crosses it
    blocks as a full wall does (a normal one), or is one of the two limited crossings that
    block (GEO-4), so the walk sets such lines aside (``walk.settling``'s codes): exactly
    where ``bands.meets`` says the band is covered at that crossing, and only blocked lines
    (``trace``'s answer, the exact tests at that crossing)."""
    copies = 1 if restriction == "normal" else 2  # two limited walls, one behind the other
    walls = [(0.0, 10.0 * k, 100.0, 10.0 * k) for k in range(copies)]
    props = {"move": restriction, "height": {"bottom": wall[0], "top": wall[1]}}
    index = index_of(walls, **props)
    # Crossing y = 0 at parameter t (the second limited wall, at y = 10, just after).
    seg = np.array([[50.0, -1000.0 * t, 50.0, 1000.0 * (1 - t)]])
    elev = np.array([band])
    surely, _ = surely_blocked(index, seg, settling(index, "move", None, True), None, elev)
    low, high, thin = bands.band_at(np.repeat(elev, copies, axis=0), t + np.arange(copies) / 100)
    covers, _ = bands.meets(low, high, thin, np.full(copies, wall[0]), np.full(copies, wall[1]))
    assert bool(surely[0]) is bool(covers.all())
    traced = trace(index, seg, TraceSpec(sense="move", low_obstacles=False), elevations=elev)
    assert bool(traced.wall_blocked[0]) is bool(covers.all())


def test_one_limited_wall_or_a_one_way_pair_settles_nothing():
    """GEO-4: one limited wall crossed blocks nothing; GEO-3: one-way walls block only lines
    from their side, so the walk never settles their crossings (the exact tests decide)."""
    seg = np.array([[50.0, -50.0, 50.0, 50.0]])
    one = index_of([(0.0, 0.0, 100.0, 0.0)], move="limited")
    assert not surely_blocked(one, seg, settling(one, "move", None, False), None)[0][0]
    assert not trace(one, seg, TraceSpec(sense="move")).wall_blocked[0]
    walls = [(0.0, 0.0, 100.0, 0.0), (0.0, 10.0, 100.0, 10.0)]
    for way in ("left", "right"):
        pair = index_of(walls, move="limited", direction=way)
        assert not surely_blocked(pair, seg, settling(pair, "move", None, False), None)[0][0]
    two = index_of(walls, move="limited")
    assert surely_blocked(two, seg, settling(two, "move", None, False), None)[0][0]
    assert trace(two, seg, TraceSpec(sense="move")).wall_blocked[0]


@settings(max_examples=300, deadline=None)
@given(
    walls=st.lists(st.one_of(lattice_wall, segment), min_size=1, max_size=16),
    boxes=st.lists(lattice_box, min_size=2, max_size=4, unique=True),
    floor=st.sampled_from([0.0, 2.0, 10.0]),
    heights=st.lists(st.sampled_from([1.0, 2.0, 3.0, 10.0]), min_size=1, max_size=3),
    tall=st.sampled_from([3.0, 10.0, 20.0]),
)
def test_creatures_on_the_floor_of_their_walls_answer_as_each_alone(
    walls, boxes, floor, heights, tall
):
    """Creatures standing on the floor their walls start at (GEO-5a, GEO-10), of several
    heights: the walls are firm for their bands, and every pair answers as the reference's
    search alone (5E-LOE-2), which uses full-height firm walls only."""
    index = index_of(walls, height={"bottom": floor, "top": floor + tall})
    pairs = [(a, b) for a in boxes for b in boxes if a != b]
    bf = np.array([a for a, _ in pairs], dtype=np.float64)
    bt = np.array([b for _, b in pairs], dtype=np.float64)
    tops = [floor + heights[k % len(heights)] for k in range(len(pairs) + 1)]
    elev = np.array([(floor, floor, tops[k], tops[k + 1]) for k in range(len(pairs))])
    got = search_many(index, bf, bt, "move", elev, None, None)
    want = reference.search_each(index, bf, bt, "move", elev, None, None)
    assert got == want


#: Vertices anywhere, on a space's edge or corner (100 k +- 0.5), or on the lattice.
coord_1 = st.one_of(
    st.floats(0, 1000, allow_nan=False),
    st.integers(0, 10).flatmap(lambda k: st.sampled_from([100.0 * k - 0.5, 100.0 * k + 0.5])),
    st.integers(0, 1000).map(float),
)


@settings(max_examples=200, deadline=None)
@given(
    pts=st.lists(st.tuples(coord_1, coord_1), min_size=2, max_size=12),
    boxes=st.lists(st.tuples(lattice_box, lattice_box), min_size=1, max_size=3),
    data=st.data(),
)
def test_the_compiled_candidates_are_the_numpy_chords_to_the_bit(pts, boxes, data):
    """5E-LOE-2: the candidate segment of a vertex pair is its line's stretch between the
    facing ends of its chords of the two spaces (``search._candidate_lines``, compiled): the
    same segments, to the bit, and the same pairs kept as the reference's numpy chords
    (``tests.reference.exact_search.chord_segments``), for lines in every direction (along
    an axis too) and vertices on or off the spaces."""
    p = np.array(pts, dtype=np.float64)
    i, j = np.triu_indices(len(p), 1)
    owner = np.array(
        data.draw(st.lists(st.integers(0, len(boxes) - 1), min_size=len(i), max_size=len(i))),
        dtype=np.int64,
    )
    bf = np.array([a for a, _ in boxes], dtype=np.float64)
    bt = np.array([b for _, b in boxes], dtype=np.float64)
    none = (np.empty((0, 2)), np.zeros(len(p) + 1, dtype=np.int64), np.full(len(p), -1))
    got, of = search._candidate_lines(
        p,
        i.astype(np.int64),
        j.astype(np.int64),
        owner,
        (bf, bt),
        none,
        (ON_LINE_TOL_PX, SIDE_TOL_REL, CHORD_TOL),
    )
    u = p[j] - p[i]
    keep = np.hypot(u[:, 0], u[:, 1]) > ON_LINE_TOL_PX
    box_f = tuple(bf[owner[keep], c] for c in range(4))
    box_t = tuple(bt[owner[keep], c] for c in range(4))
    want, rows = reference.chord_segments(p[i][keep], u[keep], box_f, box_t)
    assert got.tobytes() == want.tobytes()
    assert of.tolist() == owner[keep][rows].tolist()
