"""Lines as vertical bands and half-open height ranges (GEO-5, GEO-5a), geometry level."""

from __future__ import annotations

import math

import numpy as np
import pytest

from service.engine.scene import build_scene, vertical_span
from service.engine.walls import index_walls
from service.geometry.bands import as_bands, meets, overlaps_between, span_meets
from service.geometry.trace import TraceSpec, trace
from service.model import Span, Wall
from tests.scenes import load, tok

INF = math.inf


@pytest.mark.parametrize(
    ("band", "bottom", "top", "want"),
    [
        pytest.param((0, 5), -INF, INF, "covers", id="GEO-5 no heights: infinitely tall"),
        pytest.param((0, 5), 0, 10, "covers", id="GEO-5a range holds the band: blocks"),
        pytest.param((0, 5), 0, 3, "partly", id="GEO-5a 3-ft wall, 5-ft band: low obstacle"),
        pytest.param((10, 15), 0, 10, "misses", id="GEO-5 lower floor's wall under upper floor"),
        pytest.param((10, 15), 10, 20, "covers", id="GEO-5 upper floor's own wall"),
        pytest.param((0, 5), 5, 10, "misses", id="GEO-5 half-open: band top at wall bottom"),
        pytest.param((0, 5), 3, 3, "misses", id="GEO-5 bottom = top holds nothing"),
        pytest.param((2, 2), 0, 2, "misses", id="GEO-5 thin band exactly at the top passes"),
        pytest.param((0, 0), 0, 2, "covers", id="GEO-5 thin band at the bottom is inside"),
        pytest.param((2, 2), 2, 2, "misses", id="GEO-5 thin band, empty range"),
        pytest.param((1, 4), 0, 10, "covers", id="GEO-5a inside"),
        pytest.param((-5, 30), 0, 10, "partly", id="GEO-5a range inside a tall band"),
    ],
)
def test_range_meets_band(band, bottom, top, want):
    lo, hi = np.array([band[0]], float), np.array([band[1]], float)
    thin = np.array([band[0] == band[1]])
    covers, partly = meets(lo, hi, thin, np.array([bottom], float), np.array([top], float))
    got = "covers" if covers[0] else "partly" if partly[0] else "misses"
    assert got == want
    assert span_meets(band, None if bottom == -INF else bottom, None if top == INF else top) == want


@pytest.mark.parametrize(
    ("band", "t", "span", "want"),
    [
        pytest.param((0, 0, 5, 5), (0.4, 0.6), (30, 35), False, id="GEO-7 flying 30 ft above"),
        pytest.param((0, 0, 5, 5), (0.4, 0.6), (0, 2.5), True, id="GEO-7 tiny creature between"),
        pytest.param(
            (0, 0, 5, 5), (0.4, 0.6), (5, 10), False, id="GEO-7 standing on the band's top"
        ),
        pytest.param((0, 20, 5, 25), (0.4, 0.6), (12, 13), True, id="GEO-5a sloped band meets"),
        pytest.param((0, 20, 5, 25), (0.0, 0.1), (12, 13), False, id="GEO-5a not where it crosses"),
        pytest.param((3, 3, 3, 3), (0.2, 0.8), (0, 5), True, id="GEO-5a thin band inside"),
        pytest.param((5, 5, 5, 5), (0.2, 0.8), (0, 5), False, id="GEO-5a thin band at the top"),
    ],
)
def test_creature_meets_band_between(band, t, span, want):
    got = overlaps_between(
        np.array([band], float), np.array([t[0]]), np.array([t[1]]), span[0], span[1]
    )
    assert bool(got[0]) is want


def test_as_bands_shapes():
    assert as_bands(np.array([[1.0, 2.0]]), 1).tolist() == [[1, 2, 1, 2]]
    assert as_bands(np.array([[1.0, 2.0, 3.0, 4.0]]), 1).tolist() == [[1, 2, 3, 4]]
    with pytest.raises(ValueError, match="shape"):
        as_bands(np.zeros((1, 3)), 1)
    with pytest.raises(ValueError, match="below"):
        as_bands(np.array([[5.0, 5.0, 1.0, 1.0]]), 1)


@pytest.mark.parametrize(
    ("token", "units", "want"),
    [
        pytest.param({"size": "tiny"}, "ft", (0, 2.5), id="GEO-5a tiny 2.5 ft"),
        pytest.param({"size": "small"}, "ft", (0, 5), id="GEO-5a small 5 ft"),
        pytest.param({}, "ft", (0, 5), id="GEO-5a medium 5 ft"),
        pytest.param({"size": "large", "elevation": 10}, "ft", (10, 20), id="GEO-5a large 10 ft"),
        pytest.param({"size": "huge"}, "ft", (0, 15), id="GEO-5a huge 15 ft"),
        pytest.param({"size": "gargantuan"}, "ft", (0, 20), id="GEO-5a gargantuan 20 ft"),
        pytest.param({}, "m", (0, 1.5), id="GEO-5a medium on a metric scene 1.5 m"),
        pytest.param({"size": "large"}, "m", (0, 3.0), id="GEO-5a large on a metric scene 3 m"),
        pytest.param({"vertical_extent": 7, "elevation": 2}, "ft", (2, 9), id="GEO-5a given"),
    ],
)
def test_vertical_span(token, units, want):
    grid = {"size": 100, "distance": 5 if units == "ft" else 1.5, "units": units}
    scene = load([], [tok("X", 0, 0, **token)], grid=grid)
    got = vertical_span(scene.tokens[0], scene.grid)
    assert got == pytest.approx(want)
    assert build_scene(scene).token_spans["X"] == pytest.approx(want)


@pytest.mark.parametrize(
    ("height", "band", "low_obstacles", "blocked", "low"),
    [
        pytest.param((0, 10), (0, 0, 5, 5), True, True, False, id="GEO-5a covers: blocks"),
        pytest.param((0, 3), (0, 0, 5, 5), True, True, True, id="GEO-5a part: low obstacle"),
        pytest.param((0, 3), (0, 0, 5, 5), False, False, False, id="GEO-5a part, LOE: passes"),
        pytest.param((0, 10), (10, 10, 15, 15), True, False, False, id="GEO-5 misses"),
        pytest.param((4, 4), (0, 0, 5, 5), True, False, False, id="GEO-5 empty range"),
        pytest.param((0, 10), (0, 0), True, True, False, id="GEO-5 thin band inside"),
        pytest.param((0, 10), (10, 10), True, False, False, id="GEO-5 thin band at the top"),
    ],
)
def test_trace_classifies_each_crossing(height, band, low_obstacles, blocked, low):
    w = Wall("w", (50.0, -100.0, 50.0, 100.0), height=Span(*height))
    index = index_walls([w], 20.0)
    got = trace(
        index,
        [[0.0, 0.0, 100.0, 0.0]],
        TraceSpec(low_obstacles=low_obstacles),
        elevations=np.array([band], float),
    )
    assert bool(got.wall_blocked[0]) is blocked
    assert (got.low_blockers[0] == [0]) is low
