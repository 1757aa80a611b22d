"""Bounded rooms and obstacles (bounded work, docs/decisions.md): the same answers for less work.

Three steps of the exact line of effect (5E-LOE-2) got cheaper, and none may change an
answer:

- the closed rooms (``geometry.rooms``) are built only for a pair that no free path joins
  (``FreePaths``): two spaces joined by a path that crosses no room wall are never sealed
  apart, so the rooms could not have answered for them;
- the crossing count that decides whether the rooms are noded at all
  (``firm_crossings_within``) and the obstacles of GEO-6's corner sentence
  (``junctions.wall_components``) run compiled over a grid of the cells each wall passes
  through (``geometry.cells``), settling with GEOS only the pairs float arithmetic cannot.

Each is checked against the unchanged reference path (rooms always consulted, GEOS queries:
``tests/reference``) on small sizes of the worst-case kinds (``bench/worst.py``), and
by Hypothesis properties against naive definitions. Speed is never asserted.
"""

from __future__ import annotations

import math
from contextlib import ExitStack
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st

from bench.worst import copies, crossing, scatter
from schemas.scene import SceneSchema
from service import rules
from service.engine.scene import build_scene
from service.engine.tolerances import QUERY_TOL_PX
from service.engine.walls import WallIndex, index_walls
from service.errors import OverBudget
from service.geometry import rooms
from service.geometry.cells import build_segment_grid
from service.geometry.exact import lines_of_effect
from service.geometry.obstacles import ends_on_walls, wall_components
from service.geometry.rooms import (
    FreePaths,
    firm_crossings_within,
    room_walls,
    sealed_apart,
)
from service.line_of_effect import Endpoint, line_between
from service.model import Wall
from service.rules.ask import cover_all
from service.rules.base import Attack
from tests.kernel_paths import kernel_mode
from tests.reference.rooms import crossings_within
from tests.scenes import T_EAST, A, load, tok, wall

# --------------------------------------------------------------------------- helpers


@pytest.fixture
def reference(monkeypatch):
    """The reference path: rooms always asked, GEOS for every query (``tests/reference``)."""
    with ExitStack() as stack:

        def use() -> None:
            monkeypatch.setattr(rooms.FreePaths, "joined", lambda self, a, b: False)
            stack.enter_context(kernel_mode("numpy"))

        yield use


def _answers(scene_dict: dict[str, Any]) -> list[Any]:
    """dnd5e cover of A on T, and line of effect and of sight A to T, on a fresh build.

    A refusal is an answer too: its message.
    """
    scene = SceneSchema().load(scene_dict)
    out: list[Any] = []
    asks = [
        lambda built: cover_all(
            rules.get("dnd5e"), built, [(scene.token("A"), scene.token("T"))], Attack(), {}
        ),
        lambda built: line_between(
            built, Endpoint(token=scene.token("A")), Endpoint(token=scene.token("T"))
        ),
        lambda built: line_between(
            built, Endpoint(token=scene.token("A")), Endpoint(token=scene.token("T")), "sight"
        ),
    ]
    for ask in asks:
        built = build_scene(scene)  # no memo shared between the answers
        try:
            out.append(ask(built))
        except OverBudget as err:
            out.append(("refused", err.message))
    return out


def _inside(body: dict[str, Any], ax: float, tx: float) -> dict[str, Any]:
    """``body`` with A and T moved to ``ax`` and ``tx`` px on the line y = 0."""
    return {**body, "tokens": [{**body["tokens"][0], "x": ax}, {**body["tokens"][1], "x": tx}]}


def _room(prefix: str, x0: float, y0: float, x1: float, y1: float, gap: bool = False) -> list:
    """A closed square room (``gap``: its east side has a gap a line can pass)."""
    walls = [
        wall(f"{prefix}n", x0, y0, x1, y0),
        wall(f"{prefix}s", x1, y1, x0, y1),
        wall(f"{prefix}w", x0, y1, x0, y0),
        wall(f"{prefix}e1", x1, y0, x1, y0 + (y1 - y0) * 0.4),
    ]
    walls.append(wall(f"{prefix}e2", x1, y0 + (y1 - y0) * (0.6 if gap else 0.4), x1, y1))
    return walls


# --------------------------------------------------------------------------- the same answers

KINDS = [
    pytest.param(scatter(60), id="scatter 60"),
    pytest.param(scatter(250), id="scatter 250"),
    pytest.param(scatter(500, seed=3), id="scatter 500"),
    pytest.param(_inside(scatter(400), 600, 1400), id="scatter 400, tokens inside"),
    pytest.param(_inside(scatter(1200), 700, 1200), id="scatter 1200, tokens inside"),
    pytest.param(copies(40), id="copies 40"),
    pytest.param(crossing(40), id="crossing 40"),
    pytest.param(crossing(250), id="crossing 250"),
    pytest.param(crossing(120, seed=5, span=3000.0), id="crossing 120 on 3000 px"),
]


@pytest.mark.parametrize("body", KINDS)
def test_worst_case_kinds_answer_as_the_reference_path(body, reference):
    """5E-LOE-2, 5E-COV-1..5: cover, line of effect and line of sight are unchanged.

    Refusals (the work budget's 422) included: the same refusal, with the same message.
    """
    new = _answers(body)
    reference()
    assert _answers(body) == new


ROOMS = [
    pytest.param(_room("a", -50, -50, 150, 150) + _room("b", 300, -50, 600, 150), id="sealed"),
    pytest.param(
        _room("a", -50, -50, 150, 150, gap=True) + _room("b", 300, -50, 600, 150), id="one gap"
    ),
    pytest.param(_room("r", -50, -50, 600, 150), id="one room holds both"),
    pytest.param(
        _room("o", -200, -200, 800, 300) + _room("a", -50, -50, 150, 150), id="room in a room"
    ),
    pytest.param(
        _room("o", -200, -200, 800, 300, gap=True) + _room("b", 300, -50, 600, 150),
        id="outer room open, T sealed",
    ),
    pytest.param(
        [
            wall("p1", 200, -20, 260, -20),
            wall("p2", 260, -20, 260, 120),
            wall("x", 230, -400, 230, 400),
        ],
        id="a wall across, no room",
    ),
]


@pytest.mark.parametrize("walls", ROOMS)
def test_closed_rooms_answer_as_the_reference_path(walls, reference):
    """5E-LOE-2 (rooms sealed apart), GEO-2 (closed rooms): the answers are unchanged."""
    body = {"grid": {"size": 100}, "walls": walls, "tokens": [A, T_EAST]}
    new = _answers(body)
    reference()
    assert _answers(body) == new


def test_a_cover_matrix_answers_as_the_reference_path(reference):
    """Many pairs at once (``lines_of_effect``): rooms built at most once, same answers."""
    walls = _room("a", -50, -50, 150, 150) + _room("b", 300, -50, 600, 150, gap=True)
    walls += [wall(f"f{k}", 800 + 13 * k, -60, 820 + 13 * k, 40) for k in range(20)]
    tokens = [tok("A", 0, 0), tok("B", 400, 0), tok("C", 1200, 0), tok("D", 700, -400)]
    scene = load(walls, tokens)
    pairs = [(a, b) for a in scene.tokens for b in scene.tokens if a.id != b.id]

    def matrix() -> Any:
        return cover_all(rules.get("dnd5e"), build_scene(scene), pairs, Attack(), {})

    new = matrix()
    reference()
    assert matrix() == new


# --------------------------------------------------------------------------- rooms only when needed


def _lines(built, sense: str = "move"):
    a, t = (np.asarray([built.token_boxes[k]], dtype=np.float64) for k in ("A", "T"))
    return lines_of_effect(built.walls, a, t, sense)


def test_spaces_joined_round_the_walls_need_no_rooms():
    """A forest between two spaces outside it: a free path joins them, no rooms are noded."""
    built = build_scene(SceneSchema().load(scatter(300)))
    (answer,) = _lines(built)
    assert not answer.clear
    assert not any(isinstance(k, tuple) and k[0] == "rooms" for k in built.walls.memo)


def test_spaces_in_closed_rooms_are_sealed_apart_by_the_rooms():
    """5E-LOE-2: no free path out of a closed room, so the rooms are built and answer."""
    built = build_scene(
        load(_room("a", -50, -50, 150, 150) + _room("b", 300, -50, 600, 150), [A, T_EAST])
    )
    (answer,) = _lines(built)
    assert not answer.clear and answer.candidates == 1  # sealed apart: no search
    assert any(isinstance(k, tuple) and k[0] == "rooms" for k in built.walls.memo)


# --------------------------------------------------------------------------- free paths

coordinate = st.integers(0, 8).map(lambda v: 50.0 * v)


@st.composite
def lattice_walls(draw: Any, max_walls: int = 14) -> list[Wall]:
    """Walls between points of a coarse lattice: shared ends, T-junctions, crossings, rooms."""
    n = draw(st.integers(0, max_walls))
    walls = []
    for k in range(n):
        x0, y0, x1, y1 = (draw(coordinate) for _ in range(4))
        kind = draw(st.sampled_from(["normal", "normal", "normal", "limited", "none"]))
        walls.append(Wall(f"w{k}", (x0, y0, x1, y1), move=kind))
    return walls


box_corner = st.floats(-50, 420, allow_nan=False).map(lambda v: round(v, 1))


@st.composite
def boxes(draw: Any) -> np.ndarray:
    x, y = draw(box_corner), draw(box_corner)
    w, h = draw(st.sampled_from([0.0, 10.0, 40.0])), draw(st.sampled_from([0.0, 10.0, 40.0]))
    return np.array([x, y, x + w, y + h])


@given(lattice_walls(), boxes(), boxes())
def test_a_free_path_proves_two_spaces_are_not_sealed_apart(walls, a, b):
    """Property: ``FreePaths.joined`` never holds for spaces the rooms seal apart."""
    index = index_walls(walls, 20.0)
    if FreePaths(index, "move", None).joined(a, b):
        assert not sealed_apart(index, a, b)


def test_free_paths_escape_round_the_walls_but_not_out_of_a_room():
    walls = [Wall(k, c) for k, c in [("n", (0, 0, 100, 0)), ("e", (100, 0, 100, 100)),
             ("s", (100, 100, 0, 100)), ("w", (0, 100, 0, 0))]]  # fmt: skip
    paths = FreePaths(index_walls(walls, 20.0), "move", None)
    inside, outside = np.array([40.0, 40, 60, 60]), np.array([300.0, 40, 320, 60])
    assert paths.escapes(outside) and not paths.escapes(inside)
    assert not paths.joined(inside, outside)
    assert paths.joined(outside, outside + 50)


def test_a_box_without_area_starts_its_free_path_where_the_rooms_judge_it():
    """``room_of`` takes a segment-shaped box as its first corner: the free path starts there.

    The corner (1, 59) lies in the triangular room, the segment's centre (21, 59) outside it.
    """
    walls = [Wall("a", (0, 100, 50, 0)), Wall("b", (50, 0, 0, 50)), Wall("c", (0, 0, 0, 100))]
    index = index_walls(walls, 20.0)
    a, b = np.array([0.0, 0.0, 10.0, 0.0]), np.array([1.0, 59.0, 41.0, 59.0])
    assert sealed_apart(index, a, b)
    assert not FreePaths(index, "move", None).joined(a, b)


# --------------------------------------------------------------------------- crossings


def _geos_crossings(index: WallIndex, firm: np.ndarray) -> int:
    lines = shapely.linestrings(index.coords[firm].reshape(-1, 2, 2))
    hit = shapely.STRtree(lines).query(lines, predicate="crosses")
    return int(np.count_nonzero(hit[0] < hit[1]))


@st.composite
def near_misses(draw: Any) -> list[Wall]:
    """Walls at a large scale, and stems starting a hair off a wall and crossing it.

    GEOS rounds such a crossing point onto the stem's end and calls the two touching; the
    compiled count must leave those pairs to GEOS.
    """
    scale = draw(st.sampled_from([1.0, 1e3, 1e5]))
    unit = st.floats(0, 1, allow_nan=False)
    walls = [
        Wall(f"w{k}", tuple(draw(unit) * scale for _ in range(4)))  # type: ignore[arg-type]
        for k in range(draw(st.integers(1, 8)))
    ]
    for k in range(draw(st.integers(0, 6))):
        x0, y0, x1, y1 = walls[draw(st.integers(0, len(walls) - 1))].c
        t = draw(unit)
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy) or 1.0
        off = draw(st.sampled_from([0.0, 3e-15, 1e-13, 1e-12, 1e-10, 1e-6])) * scale
        px, py = x0 + dx * t - dy / length * off, y0 + dy * t + dx / length * off
        reach = draw(st.sampled_from([-0.3, 0.3])) * scale
        walls.append(Wall(f"t{k}", (px, py, px - dy / length * reach, py + dx / length * reach)))
    return walls


@given(st.one_of(lattice_walls(max_walls=20), near_misses()))
def test_the_compiled_crossing_count_agrees_with_geos(walls):
    """Property: ``firm_crossings_within`` == ``crossings_within`` at and around the count."""
    index = index_walls(walls, 20.0)
    firm = room_walls(index, "move", None)
    k = _geos_crossings(index, firm)
    lines = shapely.linestrings(index.coords[firm].reshape(-1, 2, 2))
    for limit in (max(k - 1, 0), k, k + 1):
        assert firm_crossings_within(index, firm, limit) == crossings_within(lines, limit)


@pytest.mark.parametrize(
    ("body", "limit"),
    [(scatter(800), 50_000), (scatter(800), 600), (crossing(300), 50_000), (crossing(300), 9000)],
    ids=["scatter", "scatter at a low limit", "crossing", "crossing near its count"],
)
def test_the_crossing_count_of_the_worst_kinds_agrees_with_geos(body, limit):
    index = build_scene(SceneSchema().load(body)).walls
    firm = room_walls(index, "move", None)
    lines = shapely.linestrings(index.coords[firm].reshape(-1, 2, 2))
    assert firm_crossings_within(index, firm, limit) == crossings_within(lines, limit)


# --------------------------------------------------------------------------- obstacles (GEO-6)


def _naive_components(index: WallIndex) -> list[frozenset[int]]:
    """GEO-6's obstacles by their definition: pairs of walls, a plain union-find."""
    n = index.size
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    key = np.round(index.coords.reshape(-1, 2) / QUERY_TOL_PX)
    lines = shapely.linestrings(index.coords.reshape(-1, 2, 2))
    for i in range(n):
        for j in range(n):
            same_end = any((key[2 * i + a] == key[2 * j + b]).all() for a in (0, 1) for b in (0, 1))
            ends = shapely.points(index.coords[i].reshape(2, 2))
            on = bool(shapely.dwithin(ends, lines[j], QUERY_TOL_PX).any())
            if i != j and (same_end or on):
                parent[root(i)] = root(j)
    groups: dict[int, set[int]] = {}
    for w in range(n):
        groups.setdefault(root(w), set()).add(w)
    return sorted(map(frozenset, groups.values()), key=min)


def _partition(labels: np.ndarray) -> list[frozenset[int]]:
    groups: dict[int, set[int]] = {}
    for w, label in enumerate(labels.tolist()):
        groups.setdefault(label, set()).add(w)
    return sorted(map(frozenset, groups.values()), key=min)


near = st.sampled_from([0.0, 0.5, 0.9, 0.99, 1.0, 1.01, 1.1, 2.0, -0.5, -1.0, -1.01])


@st.composite
def junction_walls(draw: Any) -> list[Wall]:
    """Lattice walls plus stems ending on a wall's interior, at about ``QUERY_TOL_PX`` off it."""
    walls = draw(lattice_walls(max_walls=10))
    for k in range(draw(st.integers(0, 4))):
        if not walls:
            break
        host = walls[draw(st.integers(0, len(walls) - 1))].c
        t = draw(st.sampled_from([0.25, 0.5, 1 / 3]))
        dx, dy = host[2] - host[0], host[3] - host[1]
        length = math.hypot(dx, dy) or 1.0
        off = draw(near) * QUERY_TOL_PX
        px = host[0] + dx * t - dy / length * off
        py = host[1] + dy * t + dx / length * off
        walls.append(Wall(f"t{k}", (px, py, px + draw(coordinate) - 200, py + 37.0)))
    return walls


@given(junction_walls())
def test_obstacles_are_the_naive_union_of_walls_meeting_end_to_end_or_in_a_t(walls):
    """Property (GEO-6 corner sentence): the obstacles are the reference path's labels.

    And they split the walls as a naive union-find over every pair of walls does.
    """
    index = index_walls(walls, 20.0)
    compiled = wall_components(index)
    assert _partition(compiled) == _naive_components(index)
    with kernel_mode("numpy"):
        again = index_walls(walls, 20.0)
        assert wall_components(again).tolist() == compiled.tolist()
        assert [a.tolist() for a in ends_on_walls(again)] == [
            a.tolist() for a in ends_on_walls(index)
        ]


@pytest.mark.parametrize(
    "body", [scatter(1500), crossing(400), copies(30)], ids=["scatter", "crossing", "copies"]
)
def test_obstacles_of_the_worst_kinds_are_the_reference_ones(body, monkeypatch):
    built = build_scene(SceneSchema().load(body))
    compiled = wall_components(built.walls)
    with kernel_mode("numpy"):
        again = build_scene(SceneSchema().load(body))
        assert wall_components(again.walls).tolist() == compiled.tolist()


@pytest.mark.parametrize("through", [0, 1, 150])
def test_walls_meeting_at_one_point_are_one_obstacle(through, monkeypatch):
    """GEO-6's obstacles: 300 walls ending at one point (and ``through`` more passing
    through it) are one obstacle, as on the reference path; the compiled look-up asks that
    point once, not once per end (it asked 300 x 450 end-wall pairs there)."""
    from service.geometry import obstacles

    ends = [Wall(f"e{k}", (100.0, 100.0, 100.0 + 50 * math.cos(k), 100.0 + 50 * math.sin(k)))
            for k in range(300)]  # fmt: skip
    passing = [
        Wall(f"p{k}", (100.0 - 40 * math.cos(k + 0.5), 100.0 - 40 * math.sin(k + 0.5),
                       100.0 + 40 * math.cos(k + 0.5), 100.0 + 40 * math.sin(k + 0.5)))
        for k in range(through)
    ]  # fmt: skip
    walls = ends + passing + [Wall("far", (500.0, 500.0, 600.0, 500.0))]
    asked = []
    real = obstacles.points_on_walls

    def counting(index, points):
        asked.append(len(points))
        return real(index, points)

    monkeypatch.setattr(obstacles, "points_on_walls", counting)
    index = index_walls(walls, 20.0)
    compiled = wall_components(index)
    assert asked == [len({w.c[:2] for w in walls} | {w.c[2:] for w in walls})]
    assert len(set(compiled[:-1].tolist())) == 1 and compiled[-1] != compiled[0]
    with kernel_mode("numpy"):
        again = index_walls(walls, 20.0)
        assert wall_components(again).tolist() == compiled.tolist()


@pytest.mark.parametrize("tiny", [1e-200, 5e-324, 1e-160])
def test_walls_whose_squared_length_underflows_are_obstacles_too(tiny):
    """A wall of non-zero length whose square underflows to 0 (GEOS divides to inf/NaN
    there): the compiled look-up answers as the reference path, and raises nothing."""
    walls = [
        Wall("tiny", (0.0, 0.0, tiny, 0.0)),
        Wall("a", (0.0, 0.0, 100.0, 0.0)),
        Wall("b", (100.0, 0.0, 100.0, 100.0)),
        Wall("c", (tiny, tiny, 0.0, 0.0)),
    ]
    index = index_walls(walls, 20.0)
    compiled = wall_components(index)
    with kernel_mode("numpy"):
        again = index_walls(walls, 20.0)
        assert wall_components(again).tolist() == compiled.tolist()
        assert [a.tolist() for a in ends_on_walls(again)] == [
            a.tolist() for a in ends_on_walls(index)
        ]


def test_the_segment_grid_lists_a_long_wall_in_the_cells_it_crosses_only():
    """A diagonal across the map is listed along its way, not over its whole box."""
    short = [[x, y, x + 10.0, y] for x in range(0, 10_000, 200) for y in range(0, 10_000, 200)]
    coords = np.array([[0.0, 0.0, 10_000.0, 10_000.0], *short])
    grid = build_segment_grid(coords)
    cells = grid.wall_cells[grid.wall_start[0] : grid.wall_start[1]]
    assert len(cells) < 4 * max(grid.nx, grid.ny)
    assert len(cells) < grid.nx * grid.ny / 4
