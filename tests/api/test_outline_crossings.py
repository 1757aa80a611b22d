"""Self-crossing outlines are counted before GEOS repairs them (issue 32, ST101).

``shapely.make_valid`` repairs a region outline or a floor ring that crosses itself in time
that grows with the square of its crossings (a 101-point star, 4,949 crossings: 13.6 s; 201
points: 177 s), from a body of a few kB. Every scene a request carries or uploads, and every
``PATCH`` of its regions, has its outlines' self-crossings counted first (compiled, stopping
past the limit): past ``MAX_OUTLINE_CROSSINGS`` in all, a 422 at the ring that passes it, in
milliseconds (``docs/decisions.md`` "Bounded work").
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st

from service.geometry.crossings import ring_crossings
from service.limits import MAX_OUTLINE_CROSSINGS

GRID = {"size": 100}


def star(points: int, radius: float = 1000.0, at: float = 2000.0) -> list[list[float]]:
    """A star polygon {points / (points // 2)}: every edge crosses nearly every other."""
    step = points // 2
    return [
        [
            at + radius * math.cos(2 * math.pi * (k * step % points) / points),
            at + radius * math.sin(2 * math.pi * (k * step % points) / points),
        ]
        for k in range(points)
    ]


def brute_crossings(ring: list[list[float]]) -> int:
    """Pairs of edges of the closed ring whose interiors cross (GEOS ``crosses``)."""
    xy = np.asarray(ring, dtype=float)
    edges = [shapely.LineString([xy[k], xy[(k + 1) % len(xy)]]) for k in range(len(xy))]
    edges = [e for e in edges if e.length > 0]
    return sum(1 for a, b in itertools.combinations(edges, 2) if a.crosses(b))


def region(points: list[list[float]], rid: str = "r") -> dict:
    return {"id": rid, "shape": {"type": "polygon", "points": points}, "obscurement": "heavy"}


def scene(**extra) -> dict:
    tokens = [{"id": "a", "x": 100, "y": 100}, {"id": "b", "x": 3900, "y": 3900}]
    return {"grid": GRID, "tokens": tokens, **extra}


def cover(client, body_scene: dict):
    return client.post(
        "/v1/cover",
        json={"ruleset": "dnd5e", "scene": body_scene, "attacker": "a", "targets": ["b"]},
    )


def test_the_limit_is_what_a_repair_does_in_well_under_a_second():
    # 45 points: 945 crossings, repaired in about 0.4 s here; 65 (2,015) take 1.3 s.
    assert brute_crossings(star(45)) == 945 <= MAX_OUTLINE_CROSSINGS < 2_015


@pytest.mark.parametrize("points", [5, 7, 21, 45])
def test_a_star_counts_what_geos_counts(points):
    want = brute_crossings(star(points))
    assert want == points * (points - 3) // 2
    assert ring_crossings(np.asarray(star(points)), 10_000) == want
    assert ring_crossings(np.asarray(star(points)), want - 1) == want  # limit + 1 past it


@given(
    st.lists(
        st.tuples(st.integers(0, 20), st.integers(0, 20)).map(lambda p: [float(p[0]), float(p[1])]),
        min_size=4,
        max_size=14,
    )
)
def test_ring_crossings_equal_geos_on_random_rings(ring):
    """Property: the compiled count equals GEOS's pairs of crossing edges (touching, shared
    vertices and collinear overlaps are no crossing), on rings of grid points."""
    assert ring_crossings(np.asarray(ring), 10_000) == brute_crossings(ring)


def test_a_star_region_is_refused_at_its_outline(client):
    resp = cover(client, scene(regions=[region(star(21)), region(star(101), "big")]))
    assert resp.status_code == 422
    answer = resp.get_json()
    assert "cross themselves at most 1,000 times" in answer["message"]
    assert answer["errors"]["json"]["scene"]["regions"]["1"]["shape"]["points"]


def test_many_outlines_count_together(client):
    # 45 points: 945 crossings; two of them pass the limit, at the second.
    upload = client.post(
        "/v1/scenes", json={"scene": scene(regions=[region(star(45), f"r{k}") for k in range(2)])}
    )
    assert upload.status_code == 422
    assert "1" in upload.get_json()["errors"]["json"]["scene"]["regions"]


def test_a_star_floor_is_refused_at_its_ring(client):
    floor = {"id": "f", "elevation": 10, "outline": [[star(101)]]}
    resp = client.post("/v1/scenes", json={"scene": scene(surfaces=[floor])})
    assert resp.status_code == 422
    errors = resp.get_json()["errors"]["json"]["scene"]["surfaces"]["0"]["outline"]
    assert errors["0"]["0"]


def test_an_outline_that_crosses_itself_a_little_is_answered(client):
    """A bow tie (one crossing) is repaired and answered, as before (5E-VIS-2 fog)."""
    bow = [[1000, 1000], [3000, 3000], [3000, 1000], [1000, 3000]]
    resp = cover(client, scene(regions=[region(bow)]))
    assert resp.status_code == 200


def test_a_patch_adding_a_star_region_is_refused(client):
    sid = client.post("/v1/scenes", json={"scene": scene()}).get_json()["scene_id"]
    resp = client.patch(f"/v1/scenes/{sid}", json={"regions": {"big": region(star(101), "big")}})
    assert resp.status_code == 422
    answer = resp.get_json()
    assert answer["message"].startswith("After this change: The outlines")
    assert answer["errors"]["json"]["regions"]["big"]["shape"]["points"]
    assert (
        client.post(
            "/v1/cover",
            json={"ruleset": "dnd5e", "scene_id": sid, "attacker": "a", "targets": ["b"]},
        ).status_code
        == 200
    )
