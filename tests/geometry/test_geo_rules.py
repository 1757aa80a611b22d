"""Shared geometry tables: GEO-1..GEO-7 and 5E-LOE-2 (shared/RULES.md) on ``service.geometry``.

Frame: scene pixels, y down; grid 100 px = 5 ft, so 20 px per grid unit (thresholds and
heights are in grid units). Every row cites the rule it checks; expected values are taken from
the rules, not from the code. Rows marked ``xfail(strict=True, reason="BUG: ...")`` are known
bugs: the expected value is the correct one, the code currently answers otherwise.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pytest

from service.engine.spaces import inset_corners
from service.engine.walls import WallIndex, build_wall_index, index_walls
from service.geometry.creature_tests import segments_cross_boxes
from service.geometry.exact import LineOfEffect, line_of_effect_between
from service.geometry.trace import Creatures, TraceSpec, trace
from service.model import Wall
from tests.scenes import load, wall

PX_PER_UNIT = 20  # grid 100 px = 5 ft

# ---------------------------------------------------------------------------------------
# Canonical sample walls (px). Segments below are (x0, y0, x1, y1), running from the first
# point, which is also the origin for one-way walls and thresholds unless ``origins`` is given.

#: A vertical wall x = 100 from y = 0 to y = 200.
PLAIN = wall("plain", 100, 0, 100, 200)
#: PLAIN split at V = (100, 100) into two collinear pieces.
PLAIN_TOP = wall("plain-top", 100, 0, 100, 100)
PLAIN_BOTTOM = wall("plain-bottom", 100, 100, 100, 200)
#: An L corner at (100, 100): one arm down, one arm right.
L_DOWN = wall("l-down", 100, 100, 100, 200)
L_RIGHT = wall("l-right", 100, 100, 200, 100)
#: A T-junction at (100, 100) drawn as three walls meeting there: a bar split at the
#: junction and a stem going down.
T_BAR_LEFT = wall("t-left", 0, 100, 100, 100)
T_BAR_RIGHT = wall("t-right", 100, 100, 200, 100)
T_STEM = wall("t-stem", 100, 100, 100, 200)
#: Two walls leaving (100, 100) towards the left only (a fan on one side of x = 100).
FAN_UP = wall("fan-up", 100, 100, 0, 50)
FAN_DOWN = wall("fan-down", 100, 100, 0, 150)
#: RULES.md GEO-3 worked example: A = (0, 200), B = (400, 200), and the same wall B -> A.
A_TO_B = (0, 200, 400, 200)
B_TO_A = (400, 200, 0, 200)

#: The horizontal segment crossing PLAIN at its middle V = (100, 100).
ACROSS = (0, 100, 200, 100)

SENSES = ("move", "sight", "light", "sound")


def index_of(*walls: dict) -> WallIndex:
    """Wall index of a canonical scene holding ``walls``."""
    return build_wall_index(load(list(walls)))


def trace_one(walls: Sequence[dict], segment: Sequence[float], sense: str = "move", **kw):
    """Trace a single segment; returns ``(blocked, blocker ids)``."""
    index = index_of(*walls)
    res = trace(index, np.array([segment], dtype=np.float64), TraceSpec(sense=sense), **kw)
    return bool(res.wall_blocked[0]), [index.ids[i] for i in res.wall_blockers[0]]


def restrictions(**kw: str) -> dict[str, str]:
    """All four restrictions ``normal`` except the ones given."""
    return {sense: kw.get(sense, "normal") for sense in SENSES}


# ---------------------------------------------------------------------------------------
# GEO-1: each sense uses its own restriction.


@pytest.mark.parametrize("sense", SENSES)
@pytest.mark.parametrize("open_for", SENSES)
def test_geo1_each_sense_uses_its_own_restriction(open_for, sense):
    """GEO-1: a wall with ``<open_for>: none`` lets that sense through and blocks the others."""
    w = wall("w", 100, 0, 100, 200, **restrictions(**{open_for: "none"}))
    blocked, blockers = trace_one([w], ACROSS, sense)
    expected = sense != open_for
    assert blocked is expected
    assert blockers == (["w"] if expected else [])


@pytest.mark.parametrize(
    ("restr", "sense", "blocked"),
    [
        pytest.param(
            restrictions(sight="none"), "move", True, id="GEO-1 glass/force wall: blocks effect"
        ),
        pytest.param(
            restrictions(sight="none"), "sight", False, id="GEO-1 glass/force wall: not sight"
        ),
        pytest.param(restrictions(move="none"), "move", False, id="GEO-1 fog/ink: not effect"),
        pytest.param(restrictions(move="none"), "sight", True, id="GEO-1 fog/ink: blocks sight"),
        pytest.param(
            restrictions(move="none", sight="none", light="none", sound="none"),
            "move",
            False,
            id="GEO-1 air: not effect",
        ),
        pytest.param(
            restrictions(move="none", sight="none", light="none", sound="none"),
            "sight",
            False,
            id="GEO-1 air: not sight",
        ),
        pytest.param(restrictions(), "move", True, id="GEO-1 iron box: blocks effect"),
        pytest.param(restrictions(), "sight", True, id="GEO-1 iron box: blocks sight"),
        pytest.param(
            restrictions(light="none"), "light", False, id="GEO-1 light none: light passes"
        ),
        pytest.param(
            restrictions(light="none"), "sight", True, id="GEO-1 light none: sight blocked"
        ),
        pytest.param(
            restrictions(sound="none"), "sound", False, id="GEO-1 sound none: sound passes"
        ),
        pytest.param(
            restrictions(sound="none"), "move", True, id="GEO-1 sound none: effect blocked"
        ),
    ],
)
def test_geo1_vision_table(restr, sense, blocked):
    assert trace_one([wall("w", 100, 0, 100, 200, **restr)], ACROSS, sense) == (
        blocked,
        ["w"] if blocked else [],
    )


# ---------------------------------------------------------------------------------------
# GEO-2: doors.


@pytest.mark.parametrize("sense", ["move", "sight"])
@pytest.mark.parametrize(
    ("door", "state", "blocked"),
    [
        pytest.param("none", "closed", True, id="GEO-2 plain wall blocks"),
        pytest.param("door", "open", False, id="GEO-2 open door blocks nothing"),
        pytest.param("door", "closed", True, id="GEO-2 closed door blocks"),
        pytest.param("door", "locked", True, id="GEO-2 locked door blocks"),
        pytest.param("secret", "closed", True, id="GEO-2 closed secret door blocks"),
        pytest.param("secret", "locked", True, id="GEO-2 locked secret door blocks"),
        pytest.param("secret", "open", False, id="GEO-2 open secret door blocks nothing"),
    ],
)
def test_geo2_doors(door, state, blocked, sense):
    w = wall("d", 100, 0, 100, 200, door=door, door_state=state)
    assert trace_one([w], ACROSS, sense) == (blocked, ["d"] if blocked else [])


def test_geo2_open_door_blocks_nothing_for_any_sense():
    index = index_of(wall("d", 100, 0, 100, 200, door="door", door_state="open"))
    for sense in SENSES:
        assert not trace(index, [ACROSS], TraceSpec(sense=sense)).wall_blocked[0], sense


# ---------------------------------------------------------------------------------------
# GEO-3: one-way walls, RULES.md worked example.

VIEWER_ABOVE = (200, 100)  # (A.y-P.y)(B.x-P.x) - (A.x-P.x)(B.y-P.y) = +40000 for A -> B
VIEWER_BELOW = (200, 300)


@pytest.mark.parametrize(
    ("coords", "direction", "viewer", "blocked"),
    [
        pytest.param(A_TO_B, "left", VIEWER_ABOVE, True, id="GEO-3 LEFT: viewer (200,100) blocked"),
        pytest.param(A_TO_B, "left", VIEWER_BELOW, False, id="GEO-3 LEFT: viewer (200,300) sees"),
        pytest.param(A_TO_B, "right", VIEWER_ABOVE, False, id="GEO-3 RIGHT: viewer (200,100) sees"),
        pytest.param(
            A_TO_B, "right", VIEWER_BELOW, True, id="GEO-3 RIGHT: viewer (200,300) blocked"
        ),
        pytest.param(B_TO_A, "left", VIEWER_ABOVE, False, id="GEO-3 LEFT swapped: (200,100) sees"),
        pytest.param(
            B_TO_A, "left", VIEWER_BELOW, True, id="GEO-3 LEFT swapped: (200,300) blocked"
        ),
        pytest.param(
            B_TO_A, "right", VIEWER_ABOVE, True, id="GEO-3 RIGHT swapped: (200,100) blocked"
        ),
        pytest.param(
            B_TO_A, "right", VIEWER_BELOW, False, id="GEO-3 RIGHT swapped: (200,300) sees"
        ),
        pytest.param(A_TO_B, "both", VIEWER_ABOVE, True, id="GEO-3 two-way: (200,100) blocked"),
        pytest.param(A_TO_B, "both", VIEWER_BELOW, True, id="GEO-3 two-way: (200,300) blocked"),
    ],
)
def test_geo3_one_way_walls(coords, direction, viewer, blocked):
    other = VIEWER_BELOW if viewer == VIEWER_ABOVE else VIEWER_ABOVE
    w = wall("oneway", *coords, direction=direction)
    assert trace_one([w], (*viewer, *other), "sight") == (blocked, ["oneway"] if blocked else [])


@pytest.mark.parametrize(
    ("direction", "origin", "blocked"),
    [
        pytest.param(
            "left", VIEWER_ABOVE, True, id="GEO-3 origin= (200,100) behind the start: blocked"
        ),
        pytest.param("left", VIEWER_BELOW, False, id="GEO-3 origin= (200,300) = the start: sees"),
        pytest.param("right", VIEWER_ABOVE, False, id="GEO-3 RIGHT origin= (200,100): sees"),
        pytest.param(
            "right", (200, 500), True, id="GEO-3 RIGHT origin= (200,500) off segment: blocked"
        ),
    ],
)
def test_geo3_origin_overrides_segment_start(direction, origin, blocked):
    """GEO-3: the side is that of ``origins``, not of the segment's first point (200, 300)."""
    w = wall("oneway", *A_TO_B, direction=direction)
    got = trace_one(
        [w], (200, 300, 200, 100), "sight", origins=np.array([origin], dtype=np.float64)
    )
    assert got == (blocked, ["oneway"] if blocked else [])


# ---------------------------------------------------------------------------------------
# GEO-4: limited walls and proximity/distance thresholds.

TERRAIN_1 = wall("terrain-1", 100, 0, 100, 200, move="limited", sight="limited")
TERRAIN_2 = wall("terrain-2", 150, 0, 150, 200, move="limited", sight="limited")


@pytest.mark.parametrize("sense", ["move", "sight"])
@pytest.mark.parametrize(
    ("walls", "segment", "blocked", "blockers"),
    [
        pytest.param([TERRAIN_1], ACROSS, False, [], id="GEO-4 one limited wall: clear"),
        pytest.param(
            [TERRAIN_1, TERRAIN_2],
            (0, 100, 120, 100),
            False,
            [],
            id="GEO-4 one of two crossed: clear",
        ),
        pytest.param(
            [TERRAIN_1, TERRAIN_2],
            ACROSS,
            True,
            ["terrain-1", "terrain-2"],
            id="GEO-4 two limited crossed: blocked by both",
        ),
        pytest.param(
            [TERRAIN_2, TERRAIN_1],
            ACROSS,
            True,
            ["terrain-2", "terrain-1"],
            id="GEO-4 two limited, other order: blocked by both",
        ),
        pytest.param(
            [
                wall("t-top", 100, 0, 100, 100, move="limited", sight="limited"),
                wall("t-bottom", 100, 100, 100, 200, move="limited", sight="limited"),
            ],
            ACROSS,
            False,
            [],
            id="GEO-4+6 one limited wall split at the crossing counts once: clear",
        ),
        pytest.param(
            [
                wall("t-top", 100, 0, 100, 100, move="limited", sight="limited"),
                wall("t-bottom", 100, 100, 100, 200, move="limited", sight="limited"),
                TERRAIN_2,
            ],
            ACROSS,
            True,
            ["t-top", "t-bottom", "terrain-2"],
            id="GEO-4+6 split limited wall + another limited wall: blocked",
        ),
    ],
)
def test_geo4_limited(walls, segment, blocked, blockers, sense):
    got_blocked, got_blockers = trace_one(walls, segment, sense)
    assert got_blocked is blocked
    assert sorted(got_blockers) == sorted(blockers)


# Threshold 10 units = 200 px. The wall is x = 200, y 0..400; the segment runs along y = 200
# from x = x0 to x = 400, so the source's distance to the wall is 200 - x0 px.
THRESHOLD_UNITS = 10


@pytest.mark.parametrize(
    ("kind", "x0", "blocked"),
    [
        pytest.param(
            "proximity", 100, False, id="GEO-4 proximity: source 5 units away sees through"
        ),
        pytest.param(
            "proximity", 1, False, id="GEO-4 proximity: source 9.95 units away sees through"
        ),
        pytest.param("proximity", -1, True, id="GEO-4 proximity: source 10.05 units away blocked"),
        pytest.param("proximity", -100, True, id="GEO-4 proximity: source 15 units away blocked"),
        pytest.param("distance", 100, True, id="GEO-4 distance: source 5 units away blocked"),
        pytest.param("distance", 1, True, id="GEO-4 distance: source 9.95 units away blocked"),
        pytest.param(
            "distance", -1, False, id="GEO-4 distance: source 10.05 units away sees through"
        ),
        pytest.param(
            "distance", -100, False, id="GEO-4 distance: source 15 units away sees through"
        ),
        pytest.param(
            "proximity",
            0,
            True,
            id="GEO-4 proximity: source exactly at the threshold blocked (Foundry: within is <)",
        ),
        pytest.param(
            "distance",
            0,
            True,
            id="GEO-4 distance: source exactly at the threshold blocked (Foundry: beyond is >)",
        ),
    ],
)
def test_geo4_thresholds(kind, x0, blocked):
    w = wall("thr", 200, 0, 200, 400, sight=kind, threshold={"sight": THRESHOLD_UNITS})
    assert trace_one([w], (x0, 200, 400, 200), "sight") == (blocked, ["thr"] if blocked else [])


@pytest.mark.parametrize(
    ("restr", "threshold", "sense", "blocked"),
    [
        pytest.param(
            restrictions(sight="proximity"),
            {"sight": 10},
            "move",
            True,
            id="GEO-4 a sight threshold does not open the wall for move",
        ),
        pytest.param(
            restrictions(sight="proximity"),
            {"light": 10},
            "sight",
            True,
            id="GEO-4 a light threshold does not open the wall for sight",
        ),
        pytest.param(
            restrictions(sight="proximity"),
            None,
            "sight",
            True,
            id="GEO-4 proximity wall without threshold blocks as normal",
        ),
        pytest.param(
            restrictions(sight="distance"),
            {"sight": 0},
            "sight",
            True,
            id="GEO-4 distance wall with threshold 0 blocks as normal (Foundry: no threshold)",
        ),
    ],
)
def test_geo4_threshold_scope(restr, threshold, sense, blocked):
    """Source 5 units (100 px) from the wall."""
    w = wall("thr", 200, 0, 200, 400, threshold=threshold, **restr)
    assert trace_one([w], (100, 200, 400, 200), sense) == (blocked, ["thr"] if blocked else [])


# ---------------------------------------------------------------------------------------
# GEO-5: wall heights. Wall x = 100, y 0..200, height 0..10 units.

LOW_WALL = wall("low", 100, 0, 100, 200, height={"bottom": 0, "top": 10})


@pytest.mark.parametrize(
    ("walls", "segment", "elevations", "blocked"),
    [
        pytest.param([LOW_WALL], ACROSS, (0, 0), True, id="GEO-5 both ends at 0: blocked"),
        pytest.param(
            [LOW_WALL], ACROSS, (20, 20), False, id="GEO-5 both ends at 20: over the wall"
        ),
        pytest.param([LOW_WALL], ACROSS, (5, 5), True, id="GEO-5 both ends at 5: blocked"),
        pytest.param([LOW_WALL], ACROSS, (-10, -10), False, id="GEO-5 both ends at -10: under"),
        # Crossing at t = 0.5 of a 0 -> 40 line: z = 20, above the top.
        pytest.param(
            [LOW_WALL], ACROSS, (0, 40), False, id="GEO-5 0->40 crossing in the middle z=20"
        ),
        # (80,100) -> (180,100) crosses x = 100 at t = 0.2: z = 8, inside 0..10.
        pytest.param(
            [LOW_WALL], (80, 100, 180, 100), (0, 40), True, id="GEO-5 0->40 crossing at t=0.2 z=8"
        ),
        # (60,100) -> (160,100) crosses at t = 0.4: z = 16, above.
        pytest.param(
            [LOW_WALL], (60, 100, 160, 100), (0, 40), False, id="GEO-5 0->40 crossing at t=0.4 z=16"
        ),
        # Reversed: (200,100) -> (0,100) with 40 -> 0: crossing at t = 0.5, z = 20.
        pytest.param(
            [LOW_WALL], (200, 100, 0, 100), (40, 0), False, id="GEO-5 40->0 crossing in the middle"
        ),
        pytest.param(
            [LOW_WALL], (180, 100, 80, 100), (40, 0), True, id="GEO-5 40->0 crossing at t=0.8 z=8"
        ),
        pytest.param([PLAIN], ACROSS, (1000, 1000), True, id="GEO-5 no height: infinitely tall"),
        pytest.param(
            [
                wall("low-top", 100, 0, 100, 100, height={"bottom": 0, "top": 10}),
                wall("low-bottom", 100, 100, 100, 200, height={"bottom": 0, "top": 10}),
            ],
            ACROSS,
            (0, 40),
            False,
            id="GEO-5+6 split low wall, junction crossed at z=20",
        ),
        pytest.param(
            [
                wall("low-top", 100, 0, 100, 100, height={"bottom": 0, "top": 10}),
                wall("low-bottom", 100, 100, 100, 200, height={"bottom": 0, "top": 10}),
            ],
            ACROSS,
            (0, 10),
            True,
            id="GEO-5+6 split low wall, junction crossed at z=5",
        ),
    ],
)
def test_geo5_heights(walls, segment, elevations, blocked):
    got, _ = trace_one(walls, segment, elevations=np.array([elevations], dtype=np.float64))
    assert got is blocked


def test_geo5_without_elevations_a_low_wall_still_blocks():
    """GEO-5: without a 3-D line there is nothing to compare; the wall's span still blocks."""
    assert trace_one([LOW_WALL], ACROSS) == (True, ["low"])


# ---------------------------------------------------------------------------------------
# GEO-6: the crossing rule.


@pytest.mark.parametrize(
    ("walls", "segment", "blockers"),
    [
        pytest.param([PLAIN], ACROSS, ["plain"], id="GEO-6 proper crossing"),
        pytest.param([PLAIN], (0, 0, 200, 200), ["plain"], id="GEO-6 slanted proper crossing"),
        pytest.param([PLAIN], (0, 100, 100, 100), [], id="GEO-6 segment ends on the wall"),
        pytest.param([PLAIN], (100, 100, 200, 100), [], id="GEO-6 segment starts on the wall"),
        pytest.param([PLAIN], (0, 200, 100, 200), [], id="GEO-6 segment ends on the wall's tip"),
        pytest.param([PLAIN], (0, 0, 200, 0), [], id="GEO-6 free tip"),
        pytest.param([PLAIN], (0, -100, 200, 100), [], id="GEO-6 free tip, slanted"),
        pytest.param([PLAIN], (200, 300, 0, 100), [], id="GEO-6 free tip, other end"),
        pytest.param([PLAIN], (100, -50, 100, 300), [], id="GEO-6 edge-on, overlapping"),
        pytest.param([PLAIN], (100, 50, 100, 150), [], id="GEO-6 edge-on, inside the wall"),
        pytest.param([PLAIN], (100, 0, 100, 200), [], id="GEO-6 edge-on, exactly the wall"),
        pytest.param([PLAIN], (100, 300, 100, 400), [], id="GEO-6 collinear, not overlapping"),
        pytest.param([PLAIN], (0, 300, 200, 300), [], id="GEO-6 passes beyond the tip"),
        pytest.param(
            [PLAIN_TOP, PLAIN_BOTTOM],
            ACROSS,
            ["plain-top", "plain-bottom"],
            id="GEO-6 split at V, segment through V: blocked",
        ),
        pytest.param(
            [PLAIN_TOP, PLAIN_BOTTOM],
            (0, 0, 200, 200),
            ["plain-top", "plain-bottom"],
            id="GEO-6 split at V, slanted through V: blocked",
        ),
        pytest.param(
            [PLAIN_BOTTOM, PLAIN_TOP],
            (200, 200, 0, 0),
            ["plain-top", "plain-bottom"],
            id="GEO-6 split at V, reversed order and direction: blocked",
        ),
        pytest.param(
            [PLAIN_TOP, PLAIN_BOTTOM], (0, 100, 100, 100), [], id="GEO-6 split, ends at V"
        ),
        pytest.param(
            [PLAIN_TOP, PLAIN_BOTTOM], (100, 100, 0, 50), [], id="GEO-6 split, starts at V"
        ),
        pytest.param([L_DOWN, L_RIGHT], (0, 200, 200, 0), [], id="GEO-6 L corner touched outside"),
        pytest.param(
            [L_DOWN, L_RIGHT], (200, 0, 0, 200), [], id="GEO-6 L corner touched, reversed"
        ),
        pytest.param(
            [L_DOWN, L_RIGHT], (50, 150, 150, 50), [], id="GEO-6 L corner touched, short segment"
        ),
        pytest.param(
            [L_DOWN, L_RIGHT],
            (0, 0, 200, 200),
            ["l-down", "l-right"],
            id="GEO-6 L corner entered through its vertex: blocked",
        ),
        pytest.param(
            [L_DOWN, L_RIGHT], (0, 100, 100, 100), [], id="GEO-6 L corner reached, ends at vertex"
        ),
        pytest.param(
            [L_DOWN, L_RIGHT], (0, 100, 300, 100), [], id="GEO-6 L corner, edge-on along an arm"
        ),
        pytest.param(
            [T_BAR_LEFT, T_BAR_RIGHT, T_STEM],
            (50, 0, 150, 200),
            ["t-left", "t-right"],
            id="GEO-6 T-junction crossed through the junction: blocked",
        ),
        pytest.param(
            [T_BAR_LEFT, T_BAR_RIGHT, T_STEM],
            (100, 0, 100, 300),
            ["t-left", "t-right"],
            id="GEO-6 T-junction, along the stem through the junction: blocked",
        ),
        pytest.param(
            [T_BAR_LEFT, T_BAR_RIGHT, T_STEM],
            (0, 200, 200, 0),
            ["t-left", "t-right"],
            id="GEO-6 T-junction, from under the bar to above it: blocked",
        ),
        pytest.param(
            [T_BAR_LEFT, T_BAR_RIGHT, T_STEM],
            (-100, 100, 300, 100),
            [],
            id="GEO-6 T-junction, edge-on along the bar",
        ),
        pytest.param([FAN_UP, FAN_DOWN], (100, 0, 100, 200), [], id="GEO-6 both walls on one side"),
        pytest.param([FAN_UP, FAN_DOWN], (100, 200, 100, 0), [], id="GEO-6 one side, reversed"),
        pytest.param(
            [FAN_UP, FAN_DOWN, wall("fan-right", 100, 100, 200, 100)],
            (100, 0, 100, 200),
            ["fan-down", "fan-right", "fan-up"],
            id="GEO-6 fan with a wall on the other side too: blocked",
        ),
        pytest.param([], ACROSS, [], id="GEO-6 no walls"),
        pytest.param([PLAIN], (50, 100, 50, 100), [], id="GEO-6 zero-length segment"),
    ],
)
def test_geo6_crossing_rule(walls, segment, blockers):
    blocked, got = trace_one(walls, segment)
    assert blocked is bool(blockers)
    assert sorted(got) == sorted(blockers)


def test_geo6_t_junction_with_an_unsplit_bar_is_blocked_by_the_bar():
    blocked, got = trace_one([wall("bar", 0, 100, 200, 100), T_STEM], (50, 0, 150, 200))
    assert blocked is True
    assert "bar" in got


def test_geo6_blockers_do_not_depend_on_splitting():
    """GEO-6: bar (0,100)-(200,100) whole or split at the stem's tip (100,100)."""
    segment = (50, 0, 150, 200)
    _, whole = trace_one([wall("bar", 0, 100, 200, 100), T_STEM], segment)
    _, pieces = trace_one(
        [wall("bar#0", 0, 100, 100, 100), wall("bar#1", 100, 100, 200, 100), T_STEM], segment
    )
    assert {b.split("#")[0] for b in pieces} == set(whole)


# Split invariance over a grid of segments. Every wall's extent is a multiple of 2, 3 and 7
# times an integer vector, so every piece end is an integer point and the arithmetic is exact.
INVARIANCE_WALLS = [
    wall("diag", 0, 0, 840, 420),
    wall("stem", 420, 210, 420, 840),  # T-junction on diag's midpoint
    wall("bar", 0, 630, 840, 630),  # crosses stem at (420, 630)
    wall("terrain-a", 168, 0, 168, 840, move="limited"),
    wall("terrain-b", 672, 0, 672, 840, move="limited"),
    wall("oneway", 840, 0, 0, 840, direction="left"),
    wall("corner", 420, 0, 840, 0),  # L corner with "oneway" at (840, 0)
]
PIECE_COUNTS = (2, 3, 7)


def split(w: dict, pieces: int) -> list[dict]:
    """``w`` cut into ``pieces`` collinear pieces of equal length, same endpoint order."""
    x0, y0, x1, y1 = w["c"]
    dx, dy = (x1 - x0) // pieces, (y1 - y0) // pieces
    assert (x0 + pieces * dx, y0 + pieces * dy) == (x1, y1)
    return [
        {
            **w,
            "id": f"{w['id']}#{k}",
            "c": [x0 + k * dx, y0 + k * dy, x0 + (k + 1) * dx, y0 + (k + 1) * dy],
        }
        for k in range(pieces)
    ]


#: Every point where pieces meet, for every piece count.
PIECE_ENDS = sorted(
    {
        (p["c"][0], p["c"][1])
        for w in INVARIANCE_WALLS
        for n in PIECE_COUNTS
        for p in split(w, n)[1:]
    }
)
LATTICE = [(x, y) for x in range(-60, 901, 60) for y in range(-60, 901, 60)]
DIRECTIONS = [(60, 0), (0, 60), (60, 60), (60, -60), (60, 30), (30, -60), (90, 20)]
#: Lattice pairs, plus segments through each piece end (both ways), and segments ending there.
GRID_SEGMENTS = np.array(
    [(*p, *q) for p, q in itertools.combinations(LATTICE, 2)]
    + [
        seg
        for (vx, vy), (dx, dy) in itertools.product(PIECE_ENDS, DIRECTIONS)
        for seg in (
            (vx - 2 * dx, vy - 2 * dy, vx + 2 * dx, vy + 2 * dy),
            (vx + 3 * dx, vy + 3 * dy, vx - dx, vy - dy),
            (vx - dx, vy - dy, vx, vy),
            (vx, vy, vx + dx, vy + dy),
        )
    ],
    dtype=np.float64,
)
THROUGH_ENDS = slice(len(LATTICE) * (len(LATTICE) - 1) // 2, None)


def grid_answers(walls: list[dict]) -> tuple[np.ndarray, list[set[str]]]:
    """Blocked flags and blocker ids (pieces named after their wall) over GRID_SEGMENTS."""
    index = index_of(*walls)
    res = trace(index, GRID_SEGMENTS)
    names = [{index.ids[i].split("#")[0] for i in b} for b in res.wall_blockers]
    return res.wall_blocked, names


@pytest.fixture(scope="module")
def unsplit_answers():
    return grid_answers(INVARIANCE_WALLS)


def test_geo6_invariance_grid_is_not_trivial(unsplit_answers):
    blocked, _ = unsplit_answers
    assert 0.2 < blocked.mean() < 0.9
    # The segments through piece ends are both blocked and clear, for several reasons.
    through = blocked[THROUGH_ENDS]
    assert len(PIECE_ENDS) > 40
    assert 0.2 < through.mean() < 0.9


@pytest.mark.parametrize(
    "order",
    [
        pytest.param("given", id="GEO-6 walls in the given order"),
        pytest.param("reversed", id="GEO-6 walls reversed"),
        pytest.param("interleaved", id="GEO-6 walls interleaved"),
    ],
)
@pytest.mark.parametrize(
    "pieces",
    [
        pytest.param(1, id="GEO-6 unsplit"),
        pytest.param(2, id="GEO-6 2 pieces"),
        pytest.param(3, id="GEO-6 3 pieces"),
        pytest.param(7, id="GEO-6 7 pieces"),
    ],
)
def test_geo6_answer_never_depends_on_splitting_or_order(pieces, order, unsplit_answers):
    walls = [p for w in INVARIANCE_WALLS for p in split(w, pieces)]
    if order == "reversed":
        walls = walls[::-1]
    elif order == "interleaved":
        walls = walls[::2] + walls[1::2]
    blocked, names = grid_answers(walls)
    expected_blocked, expected_names = unsplit_answers
    np.testing.assert_array_equal(blocked, expected_blocked)
    # Every wall blocking the unsplit scene is still reported once split (the converse fails
    # at T-junctions, see test_geo6_blockers_do_not_depend_on_splitting).
    assert all(e <= n for e, n in zip(expected_names, names, strict=True))


def test_geo6_split_at_a_non_representable_point_still_blocks():
    """GEO-6: (0,0)-(100,100) cut in 3 at (100/3, 100/3); (0,50)->(100,0) passes through it."""
    whole = wall("diag", 0, 0, 100, 100)
    third = [(k * 100 / 3, k * 100 / 3) for k in range(4)]
    pieces = [wall(f"diag#{k}", *third[k], *third[k + 1]) for k in range(3)]
    segment = (0, 50, 100, 0)
    assert trace_one([whole], segment) == (True, ["diag"])  # the unsplit answer
    blocked, _ = trace_one(pieces, segment)
    assert blocked is True


# ---------------------------------------------------------------------------------------
# GEO-7: creatures; segments_cross_boxes.

BOX = np.array([[0, 0, 100, 100]], dtype=np.float64)


@pytest.mark.parametrize(
    ("segment", "crosses"),
    [
        pytest.param((-50, 50, 150, 50), True, id="GEO-7 through the interior"),
        pytest.param((-50, 150, 150, -50), True, id="GEO-7 diagonal through the interior"),
        pytest.param((50, 50, 150, 50), True, id="GEO-7 starts inside"),
        pytest.param((20, 20, 80, 80), True, id="GEO-7 wholly inside"),
        pytest.param((-50, 0, 150, 0), False, id="GEO-7 along the top edge"),
        pytest.param((0, -50, 0, 150), False, id="GEO-7 along the left edge"),
        pytest.param((20, 100, 80, 100), False, id="GEO-7 along part of the bottom edge"),
        pytest.param((-50, 50, 50, -50), False, id="GEO-7 touching the corner (0,0)"),
        pytest.param((50, 150, 150, 50), False, id="GEO-7 touching the corner (100,100)"),
        pytest.param((-50, 50, 0, 50), False, id="GEO-7 ending on the boundary from outside"),
        pytest.param((100, 50, 200, 50), False, id="GEO-7 starting on the boundary, going out"),
        pytest.param((-50, -50, 0, 0), False, id="GEO-7 ending on a corner from outside"),
        pytest.param((150, 0, 150, 100), False, id="GEO-7 beside the box"),
    ],
)
def test_geo7_segments_cross_boxes(segment, crosses):
    got = segments_cross_boxes(np.array([segment], dtype=np.float64), BOX)
    assert got.shape == (1, 1)
    assert bool(got[0, 0]) is crosses


def test_geo7_segments_cross_boxes_shape_m_by_k():
    segs = np.array([[-50, 50, 350, 50], [-50, 0, 350, 0]], dtype=np.float64)
    boxes = np.array([[0, 0, 100, 100], [200, 0, 300, 100], [0, 200, 100, 300]], dtype=np.float64)
    np.testing.assert_array_equal(
        segments_cross_boxes(segs, boxes), [[True, True, False], [False, False, False]]
    )


def test_geo7_trace_reports_creatures_with_mask():
    """GEO-7: creatures block through their interior; the mask excludes some per segment."""
    res = trace(
        index_of(),
        np.array([[-50, 50, 350, 50], [-50, 50, 350, 50], [-50, 0, 350, 0]], dtype=np.float64),
        creatures=Creatures(
            boxes=np.array([[0, 0, 100, 100], [200, 0, 300, 100]], dtype=np.float64),
            ids=["goblin", "ogre"],
            mask=np.array([[True, True], [False, True], [True, True]]),
        ),
    )
    assert res.creature_blocked.tolist() == [True, True, False]
    assert res.creature_blockers == [["goblin", "ogre"], ["ogre"], []]
    assert res.wall_blocked.tolist() == [False, False, False]
    assert res.blocked.tolist() == [True, True, False]


def test_geo7_walls_and_creatures_are_reported_separately():
    res = trace(
        index_of(PLAIN),
        np.array([ACROSS], dtype=np.float64),
        creatures=Creatures(boxes=np.array([[120, 50, 170, 150]], dtype=np.float64), ids=["rat"]),
    )
    assert (res.wall_blocked.tolist(), res.wall_blockers) == ([True], [[0]])
    assert (res.creature_blocked.tolist(), res.creature_blockers) == ([True], [["rat"]])


# ---------------------------------------------------------------------------------------
# GEO-6 corner inset.


@pytest.mark.parametrize(
    ("box", "inset", "corners"),
    [
        pytest.param(
            (0, 0, 100, 100),
            0.5,
            [[0.5, 0.5], [99.5, 0.5], [99.5, 99.5], [0.5, 99.5]],
            id="GEO-6 inset 0.5: A, B, C, D",
        ),
        pytest.param(
            (200, 100, 400, 300),
            10,
            [[210, 110], [390, 110], [390, 290], [210, 290]],
            id="GEO-6 inset 10 on a 2x2 space",
        ),
        pytest.param(
            (0, 0, 100, 100), 0, [[0, 0], [100, 0], [100, 100], [0, 100]], id="GEO-6 no inset"
        ),
        pytest.param(
            (0, 0, 100, 100), 80, [[50, 50], [50, 50], [50, 50], [50, 50]], id="GEO-6 inset capped"
        ),
    ],
)
def test_inset_corners(box, inset, corners):
    got = inset_corners(box, inset)
    assert got.shape == (4, 2)
    np.testing.assert_array_equal(got, np.array(corners, dtype=np.float64))


# ---------------------------------------------------------------------------------------
# 5E-LOE-2: exact line of effect between two spaces.

SPACE_F = (0, 0, 100, 100)
SPACE_T = (300, 0, 400, 100)  # three squares east of SPACE_F
#: Two staggered gaps: at x = 150 only 40 < y < 48 is open, at x = 250 only 12 < y < 20.
#: A clear line must slope between -0.36 and -0.2: no centre or corner-to-corner line does.
STAGGERED_GAPS = [
    wall("a-top", 150, -1000, 150, 40),
    wall("a-bottom", 150, 48, 150, 1000),
    wall("b-top", 250, -1000, 250, 12),
    wall("b-bottom", 250, 20, 250, 1000),
]
#: Two staggered walls shadowing each other: a line would need y > 90 at x = 150 and y < 10
#: at x = 250 (slope < -0.8), which no line from SPACE_F to SPACE_T has.
SHADOWING = [wall("a", 150, -1000, 150, 90), wall("b", 250, 10, 250, 1000)]
#: Two long walls crossing the boxes (x + y = 130 through SPACE_F's right edge at (100, 30),
#: x - y = 230 through SPACE_T's left edge at (300, 70), both ends outside the hull) and a
#: wall hanging down from (200, 53). A clear line needs y >= 30 at x = 100, y >= 70 at
#: x = 300 and y < 53 at x = 200: (99, 31.8) -> (301, 72.2) is one, strictly inside both
#: spaces. No line through two box corners, or a box corner and (200, 53), qualifies: the
#: extreme lines pass through the points where the long walls cross the boxes' edges.
THROUGH_WALL_CROSSINGS = [
    wall("cut-f", 160, -30, 20, 110),
    wall("cut-t", 220, -10, 340, 110),
    wall("hanging", 200, 53, 200, 200),
]


def corner_segments(box_from, box_to) -> np.ndarray:
    """The 16 corner-to-corner segments and the centre-to-centre segment."""
    cf, ct = inset_corners(box_from, 0), inset_corners(box_to, 0)
    segs = [(*a, *b) for a in cf for b in ct]
    segs.append((*cf.mean(axis=0), *ct.mean(axis=0)))
    return np.array(segs, dtype=np.float64)


def assert_witness(index: WallIndex, loe: LineOfEffect, box_from, box_to) -> None:
    """A clear answer carries a witness from box_from to box_to that traces clear."""
    assert loe.clear and loe.witness is not None
    x0, y0, x1, y1 = loe.witness
    assert box_from[0] <= x0 <= box_from[2] and box_from[1] <= y0 <= box_from[3]
    assert box_to[0] <= x1 <= box_to[2] and box_to[1] <= y1 <= box_to[3]
    assert not trace(index, np.array([loe.witness], dtype=np.float64)).wall_blocked[0]


@pytest.mark.parametrize(
    ("walls", "box_to", "clear", "corner_line_clear"),
    [
        pytest.param([], SPACE_T, True, True, id="5E-LOE-2 no walls: clear"),
        pytest.param(
            [wall("full", 200, -1000, 200, 1000)], SPACE_T, False, False, id="5E-LOE-2 full wall"
        ),
        pytest.param(
            [wall("almost", 200, -1000, 200, 98)],
            SPACE_T,
            True,
            True,
            id="5E-LOE-2 wall with a gap 98 < y <= 100: clear",
        ),
        pytest.param(
            [wall("almost", 200, 2, 200, 1000)],
            SPACE_T,
            True,
            True,
            id="5E-LOE-2 wall with a gap 0 <= y < 2: clear",
        ),
        pytest.param(
            STAGGERED_GAPS, SPACE_T, True, False, id="5E-LOE-2 gaps only a slanted line uses: clear"
        ),
        pytest.param(
            SHADOWING, SPACE_T, False, False, id="5E-LOE-2 staggered walls shadow: blocked"
        ),
        pytest.param(
            [wall("full", 200, -1000, 200, 1000)],
            (50, 50, 150, 150),
            True,
            True,
            id="5E-LOE-2 overlapping spaces: clear",
        ),
        pytest.param(
            [wall("full", 200, -1000, 200, 1000, move="none")],
            SPACE_T,
            True,
            True,
            id="5E-LOE-2 + GEO-1 wall that does not restrict move: clear",
        ),
        pytest.param(
            [wall("full", 200, -1000, 200, 1000, door="door", door_state="open")],
            SPACE_T,
            True,
            True,
            id="5E-LOE-2 + GEO-2 open door: clear",
        ),
        pytest.param(
            THROUGH_WALL_CROSSINGS,
            SPACE_T,
            True,
            False,
            id="5E-LOE-2 line bounded by walls crossing the box edges: clear",
        ),
    ],
)
def test_loe2_exact_line_of_effect(walls, box_to, clear, corner_line_clear):
    index = index_of(*walls)
    # The row's premise: whether a corner-to-corner or centre line is clear.
    sampled = trace(index, corner_segments(SPACE_F, box_to)).wall_blocked
    assert (not sampled.all()) is corner_line_clear
    loe = line_of_effect_between(index, SPACE_F, box_to)
    assert loe.clear is clear
    if clear:
        assert_witness(index, loe, SPACE_F, box_to)
        assert loe.blockers == []
    else:
        assert loe.witness is None


def test_loe2_one_pixel_gap_witness_goes_through_the_gap():
    """5E-LOE-2: wall x = 200 from y = -1000 to 98; the witness passes 98 < y <= 100 there."""
    index = index_of(wall("almost", 200, -1000, 200, 98))
    loe = line_of_effect_between(index, SPACE_F, SPACE_T)
    assert_witness(index, loe, SPACE_F, SPACE_T)
    x0, y0, x1, y1 = loe.witness
    y_at_wall = y0 + (y1 - y0) * (200 - x0) / (x1 - x0)
    assert 98 < y_at_wall <= 100


def test_loe2_slanted_gap_witness_uses_both_gaps():
    index = index_of(*STAGGERED_GAPS)
    loe = line_of_effect_between(index, SPACE_F, SPACE_T)
    assert_witness(index, loe, SPACE_F, SPACE_T)
    x0, y0, x1, y1 = loe.witness

    def y_at(x: float) -> float:
        return y0 + (y1 - y0) * (x - x0) / (x1 - x0)

    assert 40 <= y_at(150) <= 48
    assert 12 <= y_at(250) <= 20


def test_loe2_through_wall_crossings_premise():
    """The segment the xfail row above relies on: strictly inside both spaces, and clear."""
    index = index_of(*THROUGH_WALL_CROSSINGS)
    res = trace(index, np.array([[99, 31.8, 301, 72.2]], dtype=np.float64))
    assert not res.wall_blocked[0]


def test_loe2_not_clear_reports_centre_line_blockers():
    index = index_of(wall("full", 200, -1000, 200, 1000))
    loe = line_of_effect_between(index, SPACE_F, SPACE_T)
    assert (loe.clear, loe.witness, [index.ids[i] for i in loe.blockers]) == (False, None, ["full"])


def test_loe2_one_way_wall_uses_box_from_as_origin():
    """5E-LOE-2 + GEO-3: wall x = 200 drawn top -> bottom; LEFT blocks sources with x > 200."""
    index = index_of(wall("oneway", 200, -1000, 200, 1000, direction="left"))
    assert line_of_effect_between(index, SPACE_T, SPACE_F).clear is False
    assert line_of_effect_between(index, SPACE_F, SPACE_T).clear is True


def test_loe2_elevations_over_a_low_wall():
    """5E-LOE-2 + GEO-5: a 10-unit wall between spaces at elevation 20 is no obstacle."""
    index = index_of(wall("low", 200, -1000, 200, 1000, height={"bottom": 0, "top": 10}))
    assert line_of_effect_between(index, SPACE_F, SPACE_T, elevations=(0, 0)).clear is False
    assert line_of_effect_between(index, SPACE_F, SPACE_T, elevations=(20, 20)).clear is True


# A wall chain that comes from above, runs along y=100 from x=200 to x=300, and leaves below
# (Z) separates a segment running along it; one that leaves upward again (a U dent) does not.
Z_IN = wall("in", 200, -100, 200, 100)
Z_ALONG = wall("along", 200, 100, 300, 100)
Z_OUT = wall("out", 300, 100, 300, 300)
U_OUT = wall("back", 300, 100, 300, -100)


@pytest.mark.parametrize(
    ("walls", "segment", "blockers"),
    [
        pytest.param(
            [Z_IN, Z_ALONG, Z_OUT],
            (100, 100, 400, 100),
            ["in", "out"],
            id="GEO-6 along a Z chain: the chain separates, blocked",
        ),
        pytest.param(
            [Z_IN, Z_ALONG, Z_OUT],
            (400, 100, 100, 100),
            ["in", "out"],
            id="GEO-6 along a Z chain, the other way: blocked",
        ),
        pytest.param(
            [Z_IN, Z_ALONG, U_OUT],
            (100, 100, 400, 100),
            [],
            id="GEO-6 along a U dent: both ends on one side, clear",
        ),
        pytest.param(
            [Z_IN, Z_ALONG, Z_OUT],
            (100, 100, 250, 100),
            [],
            id="GEO-6 ends on the chain's collinear stretch: clear",
        ),
        pytest.param(
            [Z_IN, wall("a1", 200, 100, 250, 100), wall("a2", 250, 100, 300, 100), Z_OUT],
            (100, 100, 400, 100),
            ["in", "out"],
            id="GEO-6 Z chain with its stretch split: still blocked",
        ),
    ],
)
def test_geo6_collinear_stretch_of_a_chain(walls, segment, blockers):
    index = build_wall_index(load(walls))
    res = trace(index, [segment])
    assert [index.ids[w] for w in res.wall_blockers[0]] == blockers
    assert bool(res.wall_blocked[0]) is bool(blockers)


def test_map_spanning_lines_answer_like_small_ones():
    """Lines across a 20,000,000-px map: the same answers as the same scene 10,000 times
    smaller (a line is looked up in at most MAX_QUERY_PIECES pieces; it took seconds)."""
    base = [
        (-1000, -1000, 1000, 1000),
        (0, -1000, 0, 1000),
        (-1000, 5, 1000, 5.5),
        (300, 300, 310, 300),
    ]
    segs = np.array(
        [(-990, -900, 990, 900), (-990, 990, 990, -990), (305, 200, 305, 400), (-50, -2, 50, -2)],
        dtype=np.float64,
    )
    answers = []
    for scale in (1.0, 1e3, 1e4):
        walls = [Wall(f"w{i}", tuple(v * scale for v in c)) for i, c in enumerate(base)]
        got = trace(index_walls(walls, 20.0), segs * scale)
        answers.append((got.wall_blocked.tolist(), got.wall_blockers))
    assert answers[0][0] == [True, True, True, True]
    assert answers[1] == answers[0] and answers[2] == answers[0]
