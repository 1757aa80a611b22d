"""The bench's Python peers on hand-made scenes: the shapely peer, the numpy floor,
and the agreement report's reasons.

The cases (``bench/peers/test/cases.json``, shared with the JS peer's ``node --test``) give
the blocked paired-corner lines and the degree worked out by hand with the peers' rules:
5E-COV-5 paired corners inset by 0.5 px (GEO-6), walls restricting movement except open
doors (GEO-1, GEO-2), closed segments (a free tip or a wall run along counts, where
Sightline's GEO-6 does not), creatures not traced.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.peers import agreement, numpy_floor, shapely_peer
from bench.peers.corners import blocking_walls, corner_segments
from schemas.scene import SceneSchema
from service import rules
from service.engine.scene import build_scene
from service.matrix import matrix

CASES = json.loads(
    (Path(__file__).resolve().parents[2] / "bench/peers/test/cases.json").read_text()
)
DEFAULT_TOKENS = [{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 300, "y": 0}]


def scene_of(case: dict[str, Any]) -> dict[str, Any]:
    walls = [
        {"id": f"w{i}", "c": w} if isinstance(w, list) else {"id": f"w{i}", **w}
        for i, w in enumerate(case["walls"])
    ]
    return {"grid": CASES["grid"], "walls": walls, "tokens": case.get("tokens", DEFAULT_TOKENS)}


PEERS = {
    "shapely": (shapely_peer.cover_matrix, shapely_peer.blocked_lines),
    "numpy floor": (numpy_floor.cover_matrix, numpy_floor.blocked_lines),
}


@pytest.mark.parametrize("peer", PEERS)
@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["name"])
def test_5e_cov_5_paired_corners_by_hand(peer: str, case: dict[str, Any]) -> None:
    """5E-COV-5 (GEO-1, GEO-2, the peers' closed segments): lines blocked and degree, both ways."""
    cover_matrix, blocked_lines = PEERS[peer]
    scene = scene_of(case)
    answer = cover_matrix(scene)
    assert answer["tokens"][:2] == ["A", "T"]
    assert answer["cover"][0][1] == case["cover"], case["why"]
    assert answer["cover"][1][0] == case["cover"], case["why"]
    assert answer["cover"][0][0] is None
    _, segments = corner_segments(scene)
    blocked = blocked_lines(segments, blocking_walls(scene)).reshape(-1, 4).sum(axis=1)
    n = len(scene["tokens"])
    assert blocked[0] == case["blocked"], case["why"]  # A -> T
    assert blocked[n - 1] == case["blocked"], case["why"]  # T -> A


def test_corner_segments_paired_a_b_c_d_inset() -> None:
    """5E-COV-5 / GEO-6: line k joins corner k of each space, 0.5 px inside (A -> T first)."""
    _, segments = corner_segments(scene_of(CASES["cases"][0]))
    assert segments[:4].tolist() == [
        [0.5, 0.5, 300.5, 0.5],
        [99.5, 0.5, 399.5, 0.5],
        [99.5, 99.5, 399.5, 99.5],
        [0.5, 99.5, 300.5, 99.5],
    ]


@pytest.mark.parametrize(
    ("wall", "kind"),
    [
        ([200, -50, 200, 50], "crossing"),
        ([200, 0.5, 200, 150], "wall tip"),
        ([150, 0.5, 250, 0.5], "edge-on"),
        ([300.5, -50, 300.5, 50], "line end"),
        ([200, 1, 200, 99], None),
    ],
)
def test_contacts_name_how_a_line_meets_a_wall(wall: list[float], kind: str | None) -> None:
    """GEO-6 kinds the agreement report sorts differences by (A's line A -> T)."""
    found = numpy_floor.contacts(
        np.array([0.5, 0.5, 300.5, 0.5]), np.array([wall], dtype=np.float64)
    )
    assert found == ([] if kind is None else [(0, kind)])


A_T = [{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 300, "y": 0}]

#: (tokens, walls, Sightline's degree A -> T, the peers', reason): worked out by hand.
WHY = {
    "creature between": (
        [*A_T, {"id": "M", "x": 150, "y": 0}],
        [],
        "half",  # M's space 150..250 crosses all four lines: capped at half (5E-COV-6)
        "none",
        "creature cover (GEO-7, 5E-COV-6)",
    ),
    "free tip on two lines": (
        A_T,
        [{"id": "w", "c": [200, 0.5, 200, 150]}],
        "half",  # C and D cross; A and B only touch the free tip (200, 0.5)
        "total",
        "free wall tip (GEO-6)",
    ),
    "door jamb, door open": (
        A_T,
        [
            {"id": "d", "c": [200, -99.5, 200, 0.5], "door": "door", "door_state": "open"},
            {"id": "w", "c": [200, 0.5, 200, 150]},
        ],
        "half",  # the open door blocks nothing: the wall's tip on A and B is free
        "total",
        "free wall tip beside an open door (GEO-2, GEO-6)",
    ),
    "two walls meeting on the lines, same side": (
        A_T,
        [{"id": "w1", "c": [200, 0.5, 200, 150]}, {"id": "w2", "c": [200, 0.5, 250, 150]}],
        "half",  # both walls leave (200, 0.5) downward: A and B pass, C and D cross both
        "total",
        "junction (GEO-6)",
    ),
    "wall flush with the attacker's side": (
        [{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 500, "y": -100}],
        [{"id": "w", "c": [100, 0, 100, 100]}],
        # Inset lines B (99.5, 0.5)-(599.5, -99.5) and C (99.5, 99.5)-(599.5, -0.5) cross the
        # wall at y = 0.4 and 99.4, near its ends, A's exact corners B and C: their exact
        # lines start on the wall's end and pass; D (0.5, 99.5)-(500.5, -0.5) crosses at
        # y = 79.6, exactly too; A passes above the wall (y = -19.4). Sightline 1, the peers 3.
        "none",
        "three-quarters",
        "wall ending on a token's own corner (GEO-6 corner sentence)",
    ),
}


@pytest.mark.parametrize("name", WHY)
def test_agreement_names_the_rule_behind_a_difference(name: str) -> None:
    """GEO-2, GEO-6, GEO-7, 5E-COV-6: why a peer's degree differs from Sightline's."""
    tokens, walls, sightline_degree, peer_degree, reason = WHY[name]
    scene = {"grid": CASES["grid"], "walls": walls, "tokens": tokens}
    built = build_scene(SceneSchema().load(scene))
    sightline = matrix(built, rules.get("dnd5e"), None, "cover", {})["cover"]
    peer = numpy_floor.cover_matrix(scene)["cover"]
    assert (sightline[0][1], peer[0][1]) == (sightline_degree, peer_degree)
    assert (0, 1) in agreement.differences(sightline, peer)
    assert agreement.classify(scene, built, sightline, [(0, 1)]) == [reason]
