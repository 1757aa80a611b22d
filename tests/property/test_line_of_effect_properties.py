"""Exact line of effect (5E-LOE-2) against a dense sampling reference, symmetry, translation.

Issue 3: the exact answer may find lines the sampling misses, never the reverse.
"""

from __future__ import annotations

import math
from unittest.mock import patch

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.scene import SceneSchema
from service.engine.walls import build_wall_index
from service.geometry import exact as exact_module
from service.geometry.exact import line_of_effect_between, lines_of_effect
from service.geometry.sealed import SealedApart, pairs_sealed_apart
from service.geometry.trace import TraceSpec, trace
from service.geometry.vertices import distinct_rows, edge_cuts
from tests.property.test_geometry_properties import GRID, index_of, segment, two_spaces, walls_st
from tests.reference.exact_search import distinct_points, lone_incident_rays, search_each

SAMPLES = 9  # points per box side: 81 points per box, 6561 sampled segments per case


def sample_points(box, n=SAMPLES):
    xs = np.linspace(box[0], box[2], n)
    ys = np.linspace(box[1], box[3], n)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


def sampled_clear(index, a, b) -> bool:
    pa, pb = sample_points(a), sample_points(b)
    i, j = np.meshgrid(np.arange(len(pa)), np.arange(len(pb)), indexing="ij")
    segs = np.hstack([pa[i.ravel()], pb[j.ravel()]])
    return bool((~trace(index, segs, TraceSpec(sense="move")).wall_blocked).any())


@given(spaces=two_spaces(), walls=walls_st)
def test_exact_never_misses_a_sampled_clear_line(spaces, walls):
    """5E-LOE-2: if any sampled segment is clear, the exact answer is clear."""
    a, b = spaces
    index = index_of(walls)
    exact = line_of_effect_between(index, a, b).clear
    if sampled_clear(index, a, b):
        assert exact
    if exact:  # and what it claims is a real clear segment between the spaces
        w = line_of_effect_between(index, a, b).witness
        assert not trace(index, [w], TraceSpec(sense="move")).wall_blocked[0]


@given(spaces=two_spaces(), walls=walls_st)
def test_symmetric_for_two_way_walls(spaces, walls):
    a, b = spaces
    index = index_of(walls)
    assert line_of_effect_between(index, a, b).clear == line_of_effect_between(index, b, a).clear


@given(spaces=two_spaces(), walls=walls_st, dx=st.integers(-500, 500), dy=st.integers(-500, 500))
def test_translation_invariance(spaces, walls, dx, dy):
    a, b = spaces
    moved_walls = [(x0 + dx, y0 + dy, x1 + dx, y1 + dy) for x0, y0, x1, y1 in walls]

    def shift(box):
        return (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)

    before = line_of_effect_between(index_of(walls), a, b).clear
    after = line_of_effect_between(index_of(moved_walls), shift(a), shift(b)).clear
    assert before == after


@st.composite
def rooms_scene(draw):
    """Rectangular rooms of wall pieces (some pieces missing: gaps) and two spaces."""
    walls = []
    for _ in range(draw(st.integers(1, 3))):
        x0, y0 = draw(st.integers(0, 600)), draw(st.integers(0, 600))
        w, h = draw(st.integers(100, 400)), draw(st.integers(100, 400))
        corners = [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
        for k in range(4):
            (ax, ay), (bx, by) = corners[k], corners[(k + 1) % 4]
            cuts = draw(st.integers(1, 3))
            pts = [
                (ax + (bx - ax) * i // cuts, ay + (by - ay) * i // cuts) for i in range(cuts + 1)
            ]
            for p, q in zip(pts, pts[1:], strict=False):
                if draw(st.integers(0, 19)) > 0:  # one piece in twenty is a gap
                    walls.append((*p, *q))
    return walls, draw(two_spaces())


@given(case=rooms_scene())
def test_sealed_rooms_shortcut_agrees_with_the_exhaustive_search(case):
    """The closed-rooms certificate never says "no line" when a line exists."""
    walls, (a, b) = case
    if not walls:
        return
    quick = line_of_effect_between(index_of(walls), a, b).clear
    slow_index = index_of(walls)
    slow_index.memo[("rooms", "move", None)] = None  # no certificate: exhaustive search
    slow = line_of_effect_between(slow_index, a, b).clear
    assert quick == slow
    if sampled_clear(slow_index, a, b):
        assert quick


@given(
    spaces=st.lists(two_spaces(), min_size=1, max_size=4),
    walls=walls_st,
    heights=st.one_of(
        st.none(), st.tuples(st.integers(0, 4), st.integers(1, 12), st.integers(0, 12))
    ),
    bands=st.booleans(),
)
def test_many_pairs_equal_each_pair_alone(spaces, walls, heights, bands):
    """5E-LOE-2 for many pairs at once (a matrix: each pair also taken the other way, issue
    20) equals each pair asked alone, with walls of limited height (GEO-5a) and bands."""
    scene_walls = []
    for i, c in enumerate(walls):
        wall = {"id": f"w{i}", "c": list(c)}
        if heights is not None and i % 2:  # every other wall only `bottom..top` tall
            wall["height"] = {"bottom": float(heights[0]), "top": float(heights[0] + heights[1])}
        scene_walls.append(wall)
    index = build_wall_index(SceneSchema().load({"grid": GRID, "walls": scene_walls}))
    pairs = [p for a, b in spaces for p in ((a, b), (b, a))]
    bf = np.array([a for a, _ in pairs], dtype=np.float64)
    bt = np.array([b for _, b in pairs], dtype=np.float64)
    elev = None
    if bands:  # the source's top, then the target's: seen from either end
        top = float(heights[2] if heights is not None else 6)
        ends = ([0.0, 0.0, top, top / 2], [0.0, 0.0, top / 2, top])
        elev = np.array([ends[k % 2] for k in range(len(pairs))])
    together = lines_of_effect(index, bf, bt, "move", elevations=elev)
    for k in range(len(pairs)):
        band = None if elev is None else tuple(elev[k])
        assert (
            together[k].clear == line_of_effect_between(index, bf[k], bt[k], elevations=band).clear
        )


lattice_points = st.lists(
    st.tuples(st.integers(-3, 3), st.integers(-3, 3)).map(lambda p: (50.0 * p[0], 50.0 * p[1])),
    max_size=30,
)


@given(points=lattice_points)
def test_search_vertices_are_numpys_distinct_rows(points):
    """The search's vertices (``vertices.distinct_by_owner`` of one owner) are
    ``np.unique(axis=0)``'s rows."""
    pts = np.array(points, dtype=np.float64).reshape(-1, 2)
    assert np.array_equal(distinct_points(pts), np.unique(pts, axis=0))


@given(rows=st.lists(st.tuples(*[st.sampled_from([-1.5, 0.0, 2.0, 100.0])] * 4), max_size=40))
def test_distinct_boxes_and_their_rows(rows):
    """The distinct boxes of ``SealedApart.many`` (``vertices.distinct_rows``): each box once,
    in lexicographic order, and every box found back through its index."""
    boxes = np.array(rows, dtype=np.float64).reshape(-1, 4)
    distinct, inverse = distinct_rows(boxes)
    assert len(distinct) == len({tuple(r) for r in rows})
    assert [tuple(r) for r in distinct.tolist()] == sorted({tuple(r) for r in rows})
    assert np.array_equal(distinct[inverse], boxes)


@given(rows=st.lists(st.tuples(*[st.sampled_from([math.nan, 0.0, 2.0, 7.5])] * 2), max_size=40))
def test_rows_of_nan_are_one_group(rows):
    """``distinct_rows`` takes NaN for NaN: the pairs with "no band of its own" (a NaN key,
    ``sealed.pairs_sealed_apart``, ``search._firm_by_band``) are one group, not one each;
    every row is found back through its index, NaN where it was NaN."""
    keys = np.array(rows, dtype=np.float64).reshape(-1, 2)
    distinct, inverse = distinct_rows(keys)
    as_set = {tuple("nan" if math.isnan(v) else v for v in r) for r in rows}
    assert len(distinct) == len(as_set)
    assert np.array_equal(distinct[inverse], keys, equal_nan=True)


@given(walls=walls_st, extra=lattice_points)
def test_incident_rays_are_the_firm_walls_leaving_each_vertex(walls, extra):
    """Each search vertex's rays are the directions of the two-way, normal, full-height walls
    with an end on it, toward their other end (what ``search._separates`` reads, GEO-6)."""
    index = index_of(walls)
    if not index.size:
        return
    # Some wall ends are vertices, others not (outside the search's hull), plus other points.
    ends = index.coords.reshape(-1, 2)[::2]
    pts = distinct_points(np.vstack([ends, np.array(extra).reshape(-1, 2)]))
    near = np.arange(index.size)
    rays = lone_incident_rays(index, near, pts, "move")
    for k, (x, y) in enumerate(pts.tolist()):
        expected = []
        for w in range(index.size):
            if index.restriction["move"][w] != 2 or index.direction[w] != 0:
                continue
            if not (np.isinf(index.bottom[w]) and np.isinf(index.top[w])):
                continue
            x0, y0, x1, y1 = index.coords[w].tolist()
            if (x0, y0) == (x, y):
                expected.append((x1 - x0, y1 - y0))
            if (x1, y1) == (x, y):
                expected.append((x0 - x1, y0 - y1))
        got = [tuple(r) for r in rays[k].tolist() if tuple(r) != (0.0, 0.0)] if len(rays) else []
        assert sorted(got) == sorted(e for e in expected if e != (0.0, 0.0))


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


@settings(max_examples=200, deadline=None)
@given(
    walls=st.lists(st.one_of(lattice_wall, segment), min_size=1, max_size=14),
    boxes=st.lists(lattice_box, min_size=3, max_size=7, unique=True),
    one_way=st.booleans(),
    banded=st.booleans(),
)
def test_searches_run_together_answer_as_one_by_one(walls, boxes, one_way, banded):
    """Issue 20: the exact searches of many pairs run together (``search.search_many``) give
    each pair's own answer: clear or not, the same witness (the first clear candidate in the
    search's order), the same count of lines and blockers (5E-LOE-2), as each pair asked
    alone with its search by itself (the reference ``tests.reference.exact_search``)."""
    props = {"direction": "left"} if one_way else {}
    index = index_of(walls, **props)
    # One way only: a pair and its reverse share one search through two-way walls, whose
    # witness is then the reversed one.
    pairs = [(a, b) for k, a in enumerate(boxes) for b in boxes[k + 1 :]]
    bf = np.array([a for a, _ in pairs], dtype=np.float64)
    bt = np.array([b for _, b in pairs], dtype=np.float64)
    elev = None
    if banded:
        elev = np.tile(np.array([0.0, 0.0, 6.0, 6.0]), (len(pairs), 1))
    together = lines_of_effect(index, bf, bt, "move", elevations=elev)
    with patch.object(exact_module, "search_many", search_each):
        alone = [
            lines_of_effect(
                index,
                bf[i : i + 1],
                bt[i : i + 1],
                "move",
                elevations=None if elev is None else elev[i : i + 1],
            )[0]
            for i in range(len(pairs))
        ]
    assert together == alone


@settings(max_examples=150, deadline=None)
@given(
    walls=st.lists(lattice_wall, max_size=8),
    boxes=st.lists(lattice_box, min_size=2, max_size=7, unique=True),
)
def test_sealed_apart_of_many_pairs_is_each_pairs(walls, boxes):
    """5E-LOE-2's shortcut: spaces in different closed rooms are sealed apart. Asked for
    many pairs at once (each distinct space's room looked up once), every pair answers as
    asked alone, spaces outside every room and spaces across a room's wall included."""
    room = [(200, 200, 500, 200), (500, 200, 500, 500), (500, 500, 200, 500), (200, 500, 200, 200)]
    index = index_of(room + walls)  # a closed room, and walls that may cut it or make more
    pairs = [(a, b) for a in boxes for b in boxes if a != b]
    bf = np.array([a for a, _ in pairs], dtype=np.float64)
    bt = np.array([b for _, b in pairs], dtype=np.float64)
    together = SealedApart(index, "move", None).many(bf, bt).tolist()
    alone = [SealedApart(index, "move", None)(a, b) for a, b in zip(bf, bt, strict=True)]
    assert together == alone


@settings(max_examples=150, deadline=None)
@given(
    walls=st.lists(lattice_wall, min_size=1, max_size=8),
    boxes=st.lists(
        st.one_of(lattice_box, lattice_box.map(lambda b: tuple(v // 100 * 100 for v in b))),
        min_size=2,
        max_size=5,
        unique=True,
    ),
)
def test_edge_cuts_are_every_walls_crossings_of_the_edges(walls, boxes):
    """The search's cut vertices (``vertices.edge_cuts``): where each wall meets its pair's box
    edges, in shapely's order, as intersecting every wall with every pair's edges; walls
    along an edge, through a corner or far from both boxes included."""
    index = index_of(walls)
    pairs = [(a, b) for a in boxes for b in boxes if a != b]
    bf = np.array([a for a, _ in pairs], dtype=np.float64)
    bt = np.array([b for _, b in pairs], dtype=np.float64)
    pair = np.repeat(np.arange(len(pairs)), index.size)
    wall = np.tile(np.arange(index.size), len(pairs))
    cuts, owner = edge_cuts(index, pair, wall, bf, bt)
    edges = shapely.union(
        shapely.boundary(shapely.box(*bf.T)), shapely.boundary(shapely.box(*bt.T))
    )
    every = shapely.intersection(
        shapely.linestrings(index.coords[wall].reshape(-1, 2, 2)), edges[pair]
    )
    expected, of = shapely.get_coordinates(every, return_index=True)
    assert np.array_equal(cuts, expected)
    assert np.array_equal(owner, pair[of])


@st.composite
def room_and_outside(draw):
    """A rectangular room of walls cut in pieces (some heights, a gap now and then), one
    space inside it and one outside it, on the 100 px lattice."""
    x0, y0 = draw(st.integers(0, 3)) * 100, draw(st.integers(0, 3)) * 100
    w, h = draw(st.integers(2, 4)) * 100, draw(st.integers(2, 4)) * 100
    corners = [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
    walls = []
    for k in range(4):
        (ax, ay), (bx, by) = corners[k], corners[(k + 1) % 4]
        cuts = draw(st.integers(1, 3))
        pts = [(ax + (bx - ax) * i // cuts, ay + (by - ay) * i // cuts) for i in range(cuts + 1)]
        for p, q in zip(pts, pts[1:], strict=False):
            if draw(st.integers(0, 9)) > 0:  # one piece in ten is a gap
                walls.append((*p, *q))
    inside = (x0 + 30, y0 + 30, x0 + 90, y0 + 90)
    outside = (x0 + w + 100, y0 + 20, x0 + w + 180, y0 + 100)
    return walls, (inside, outside)


@settings(max_examples=200, deadline=None)
@given(
    case=room_and_outside(),
    heights=st.lists(
        st.sampled_from([None, (0.0, 10.0), (0.0, 3.0), (4.0, 20.0), (0.0, 5.0), (5.0, 9.0)]),
        min_size=1,
        max_size=6,
    ),
    band=st.sampled_from(
        [
            (0, 0, 5, 5),
            (0, 0, 0, 0),
            (2, 2, 7, 7),
            (0, 4, 5, 9),
            (5, 5, 5, 5),
            (0, 0, 10, 10),
            (0, 0, 5, 9),  # two heights on one floor
            (0, 0, 3, 10),
            (4, 4, 5, 20),
        ]
    ),
)
def test_rooms_of_one_band_agree_with_the_exhaustive_search(case, heights, band):
    """GEO-5a with 5E-LOE-2's rooms: walls of limited height that hold a pair's whole band
    close rooms for it (``sealed.pairs_sealed_apart``); the answer is the exhaustive
    search's, whatever the walls' heights (thin bands at a wall's top included) and seen
    from either end."""
    walls, (a, b) = case
    if not walls:
        return
    scene_walls = []
    for i, c in enumerate(walls):
        wall = {"id": f"w{i}", "c": list(c)}
        span = heights[i % len(heights)]
        if span is not None:
            wall["height"] = {"bottom": span[0], "top": span[1]}
        scene_walls.append(wall)

    def index():
        return build_wall_index(SceneSchema().load({"grid": GRID, "walls": scene_walls}))

    bf = np.array([a, b], dtype=np.float64)
    bt = np.array([b, a], dtype=np.float64)
    b0, b1, t0, t1 = (float(v) for v in band)
    bands = np.array([[b0, b1, t0, t1], [b1, b0, t1, t0]])
    quick = [f.clear for f in lines_of_effect(index(), bf, bt, "move", elevations=bands)]
    with patch.object(
        exact_module, "pairs_sealed_apart", lambda *args: np.zeros(len(args[3]), dtype=bool)
    ):
        slow = [f.clear for f in lines_of_effect(index(), bf, bt, "move", elevations=bands)]
    assert quick == slow


@pytest.mark.parametrize(
    ("top", "band", "sealed", "clear"),
    [
        pytest.param(10.0, (0.0, 0.0, 5.0, 5.0), True, False, id="on the floor: sealed"),
        pytest.param(10.0, (12.0, 12.0, 17.0, 17.0), False, True, id="flying above the walls"),
        pytest.param(10.0, (0.0, 12.0, 5.0, 17.0), False, True, id="one end above the walls"),
        pytest.param(10.0, (0.0, 2.0, 5.0, 7.0), False, False, id="two floors: searched"),
        pytest.param(10.0, (0.0, 0.0, 5.0, 8.0), True, False, id="two heights, one floor: sealed"),
        pytest.param(10.0, (0.0, 0.0, 5.0, 10.0), False, False, id="a top rising to the walls'"),
        pytest.param(5.0, (0.0, 0.0, 5.0, 5.0), True, False, id="walls as tall as the band"),
        pytest.param(5.0, (5.0, 5.0, 5.0, 5.0), False, True, id="no thickness at the top"),
        pytest.param(5.0, (4.0, 4.0, 4.0, 4.0), True, False, id="no thickness below the top"),
    ],
)
def test_a_room_of_walls_that_hold_the_band_seals_it_apart(top, band, sealed, clear):
    """GEO-5/5a: a closed room of walls ``[0, top)`` high seals a space inside from one
    outside (no search) when the walls cover the pair's band at every crossing (they hold
    its hull, ``bands.holds_hull``: creatures of two heights on the floor the walls start
    at); the exact answer is the search's (a band rising from one floor to another, or to
    the walls' very top, is searched)."""
    room = [(0, 0, 400, 0), (400, 0, 400, 400), (400, 400, 0, 400), (0, 400, 0, 0)]
    index = build_wall_index(
        SceneSchema().load(
            {
                "grid": GRID,
                "walls": [
                    {"id": f"w{i}", "c": list(c), "height": {"bottom": 0, "top": top}}
                    for i, c in enumerate(room)
                ],
            }
        )
    )
    inside, outside = (100.0, 100.0, 200.0, 200.0), (600.0, 100.0, 700.0, 200.0)
    bf, bt = np.array([inside]), np.array([outside])
    bands = np.array([band])
    assert pairs_sealed_apart(index, "move", None, bf, bt, bands).tolist() == [sealed]
    assert lines_of_effect(index, bf, bt, "move", elevations=bands)[0].clear is clear
