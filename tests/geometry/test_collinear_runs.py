"""Walls on one line overlapping by the thousand (shifted copies of one wall) cost their size.

GEO-6's obstacles (``obstacles.wall_components``) join a run of walls on one line, each
overlapping the run before it, as one obstacle tested as one segment; the rooms step
(``crossings.firm_crossings_within``) gives up past ``limit`` pairs it cannot settle (collinear
overlaps) instead of asking GEOS about every pair. Both were quadratic in the walls of the run:
10,000 copies shifted by 0.1 px held a worker 24 to 60 s (a 503), inside every scene limit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from service.app import create_app
from service.engine.walls import index_walls
from service.geometry import crossings, obstacles, rooms
from service.geometry.obstacles import MIN_RUN, wall_components
from service.geometry.rooms import firm_crossings_within, room_walls
from service.model import Wall
from tests.geometry.test_bounded_rooms import _naive_components, _partition, junction_walls
from tests.reference.rooms import crossings_within


def shifted_copies(n: int, angle: float = 0.0, step: float = 0.1, at=(0.0, 500.0)) -> list[Wall]:
    """``n`` walls 1,000 px long on one line, each ``step`` px on from the one before."""
    ux, uy = math.cos(angle), math.sin(angle)
    x0, y0 = at
    return [
        Wall(f"s{k}", (x0 + k * step * ux, y0 + k * step * uy,
                       x0 + (k * step + 1000) * ux, y0 + (k * step + 1000) * uy))
        for k in range(n)
    ]  # fmt: skip


@st.composite
def runs_and_stems(draw: Any) -> list[Wall]:
    """A run of collinear walls (any direction, overlapping or with gaps) among lattice
    walls and stems ending on walls (``junction_walls``), and a stem ending on the run."""
    walls = draw(junction_walls())
    n = draw(st.integers(MIN_RUN - 2, MIN_RUN + 6))
    angle = draw(st.sampled_from([0.0, math.pi / 2, math.pi / 4, 0.3, 2.5]))
    step = draw(st.sampled_from([0.1, 50.0, 999.0, 1000.0, 1001.0, 1500.0]))
    run = shifted_copies(n, angle, step, (draw(st.integers(0, 400)), draw(st.integers(0, 400))))
    if draw(st.booleans()):
        run = run[::-1]  # the run's walls in the other order
    x, y = run[0].c[2], run[0].c[3]
    return [*walls, *run, Wall("stem", (x - 300.0 * math.sin(angle), y, x, y))]


@settings(max_examples=60)
@given(runs_and_stems())
def test_a_run_of_collinear_walls_is_one_obstacle_as_by_definition(walls):
    """GEO-6: the obstacles with runs tested as one segment are those of a naive union-find
    over every pair of walls (ends that agree, or an end on a wall)."""
    index = index_walls(walls, 20.0)
    assert _partition(wall_components(index)) == _naive_components(index)


@pytest.mark.parametrize("angle", [0.0, math.pi / 2, 0.7])
def test_shifted_copies_ask_one_pair_per_end(angle, monkeypatch):
    """2,000 shifted copies: one obstacle, found with pairs in proportion to the walls (the
    run is one segment), not one pair per (end, wall of the run): 4 million."""
    asked: list[int] = []
    real = obstacles._points_on_segments

    def counting(coords, points, tree):
        found = real(coords, points, tree)
        asked.append(len(found[0]))
        return found

    monkeypatch.setattr(obstacles, "_points_on_segments", counting)
    walls = [*shifted_copies(2000, angle), Wall("far", (5000.0, 5000.0, 5100.0, 5000.0))]
    labels = wall_components(index_walls(walls, 20.0))
    assert len(set(labels[:-1].tolist())) == 1 and labels[-1] != labels[0]
    assert asked and sum(asked) <= 3 * len(walls)


def test_the_rooms_step_gives_up_on_too_many_unsure_pairs(monkeypatch):
    """Collinear overlaps are pairs the compiled count cannot settle: past ``MAX_UNSURE`` of
    them it answers "over" (rooms skipped: they are only a shortcut) and asks GEOS nothing;
    under it, it agrees with GEOS's ``crosses`` query."""
    asked: list[int] = []
    real = shapely.crosses
    monkeypatch.setattr(rooms.shapely, "crosses", lambda a, b: asked.append(len(a)) or real(a, b))
    index = index_walls(shifted_copies(400), 20.0)
    firm = room_walls(index, "move", None)
    monkeypatch.setattr(crossings, "MAX_UNSURE", 50_000)
    assert firm_crossings_within(index, firm, 1000) is False  # 79,800 unsure pairs
    assert asked == []
    small = index_walls(shifted_copies(30), 20.0)
    firm = room_walls(small, "move", None)
    lines = shapely.linestrings(small.coords[firm].reshape(-1, 2, 2))
    for limit in (0, 435, 1000):
        assert firm_crossings_within(small, firm, limit) == crossings_within(lines, limit)


@pytest.mark.parametrize("path", ["/v1/cover", "/v1/line-of-effect"])
def test_ten_thousand_shifted_copies_answer_or_are_refused_not_stopped(path):
    """The issue's body (10,000 copies shifted by 0.1 px, 440 kB): 200 or a 422 saying what
    to reduce, never the watchdog's 503."""
    walls = [{"id": w.id, "c": list(w.c)} for w in shifted_copies(10_000)]
    tokens = [{"id": "A", "x": 500, "y": 0}, {"id": "T", "x": 500, "y": 1000}]
    scene = {"grid": {"size": 100, "distance": 5, "units": "ft"}, "walls": walls, "tokens": tokens}
    body: dict[str, Any] = {"scene": scene}
    if path == "/v1/cover":
        body |= {"ruleset": "dnd5e", "attacker": "A", "targets": ["T"]}
    else:
        body |= {"from": "A", "to": "T"}
    res = create_app({"TESTING": True}).test_client().post(path, json=body)
    assert res.status_code in (200, 422), res.get_json()
    if res.status_code == 200 and path == "/v1/cover":
        assert res.get_json()["results"][0]["cover"] == "total"  # the run spans both spaces
    assert np.isfinite(len(res.data))
