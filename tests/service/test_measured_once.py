"""What is measured once for many pairs gives each pair its own answer.

- ``sense_key``: senses whose walls trace alike (GEO-1 restriction, GEO-4 thresholds) share
  their exact lines (5E-LOE-2) in ``measure`` and ``perceive_all``;
- Starfinder's matrix traces corner lines only with line of effect (SF-COV-9: total without
  it) and measures line of sight only there (SF-CON-4);
- ``cover_plan`` plans every pair of a request with each token's sample points found once.
"""

from __future__ import annotations

import numpy as np
import pytest

from service import rules
from service.engine.scene import build_scene
from service.engine.spaces import inset_box
from service.geometry.exact import lines_of_effect
from service.geometry.measure import measure, sense_key
from service.matrix import matrix
from service.rules.ask import cover_one
from service.rules.base import Attack
from service.senses import perceive_all
from tests.scenes import load, tok, wall

#: (walls, sense a, sense b, same key?) — GEO-1 restrictions and GEO-4 thresholds.
SENSE_KEYS = [
    ([wall("w", 0, 0, 100, 0)], "move", "sight", True),
    ([wall("w", 0, 0, 100, 0)], "move", "sound", True),
    ([wall("glass", 0, 0, 100, 0, sight="none")], "move", "sight", False),
    ([wall("curtain", 0, 0, 100, 0, sound="none")], "move", "sound", False),
    ([wall("door", 0, 0, 100, 0, door="door", door_state="open")], "move", "sight", True),
    (
        [wall("near", 0, 0, 100, 0, sight="proximity", threshold={"sight": 10})],
        "sight",
        "move",
        False,
    ),
    (
        [wall("near", 0, 0, 100, 0, sight="proximity", threshold={"sight": 10})],
        "sight",
        "light",
        False,
    ),
    (
        [wall("w", 0, 0, 1, 0, sight="proximity", light="proximity", threshold={"sight": 10})],
        "sight",
        "light",
        False,  # the same restriction, a threshold only for sight
    ),
    (
        [
            wall(
                "w",
                0,
                0,
                1,
                0,
                sight="proximity",
                light="proximity",
                threshold={"sight": 10, "light": 10},
            )
        ],
        "sight",
        "light",
        True,
    ),
]


@pytest.mark.parametrize(("walls", "a", "b", "same"), SENSE_KEYS)
def test_sense_key_names_senses_that_trace_alike(walls, a, b, same):
    """GEO-1/GEO-4: equal keys only for equal restrictions and equal live thresholds."""
    built = build_scene(load(walls, [tok("A", 0, 100)]))
    assert (sense_key(built.walls, a) == sense_key(built.walls, b)) is same


VISION_SCENE = load(
    [
        wall("plain", 300, -500, 300, 150),
        wall("glass", 0, 250, 250, 250, move="normal", sight="none", sound="normal"),
        wall("curtain", 500, 250, 900, 250, move="none", sight="normal", sound="none"),
        wall("one-way", 700, -500, 700, 200, direction="left"),
    ],
    [tok("A", 0, 0), tok("B", 400, 0), tok("C", 100, 400), tok("D", 600, 400), tok("E", 800, 0)],
)


@pytest.mark.parametrize(
    "scene",
    [VISION_SCENE, load([wall("w", 300, -500, 300, 150)], [tok("A", 0, 0), tok("B", 400, 0)])],
)
def test_perceived_lines_are_each_senses_own(scene):
    """5E-LOE-2 / 5E-VIS-2: sight, effect and sound each as their own exact measurement."""
    built = build_scene(scene)
    toks = list(built.scene.tokens)
    pairs = [(a, t) for a in toks for t in toks if a is not t]
    reports = perceive_all(built, pairs)
    box_o = np.array([inset_box(built.token_boxes[o.id], 0.5) for o, _ in pairs])
    box_t = np.array([inset_box(built.token_boxes[t.id], 0.5) for _, t in pairs])
    elev = np.array([(*built.span(o), *built.span(t)) for o, t in pairs])[:, [0, 2, 1, 3]]
    sight = lines_of_effect(built.sight, box_o, box_t, "sight", elevations=elev)
    effect = lines_of_effect(built.walls, box_o, box_t, "move", elevations=elev)
    sound = lines_of_effect(built.walls, box_o, box_t, "sound", elevations=elev)
    assert [r.line_of_sight for r in reports] == [x.clear for x in sight]
    assert [r.line_of_effect for r in reports] == [x.clear for x in effect]
    heard = [r.reaches["hearing"] for r in reports]
    assert heard == [x.clear for x in sound]  # unlimited hearing, nobody deafened


SF_SCENE = load(
    [
        wall("room", 300, -500, 300, 500),
        wall("glass", 0, 250, 250, 250, move="normal", sight="none"),
        wall("curtain", 500, 250, 900, 250, move="none", sight="normal"),
    ],
    [tok("A", 0, 0), tok("B", 100, 0), tok("C", 400, 0), tok("D", 100, 400), tok("E", 600, 400)],
)


@pytest.mark.parametrize("detail", [True, False])
def test_starfinder_lines_and_sight_only_with_line_of_effect(detail):
    """SF-COV-9: without line of effect the cover is total whatever the corner lines, and
    line of sight is read only with line of effect (SF-CON-4)."""
    built = build_scene(SF_SCENE)
    system = rules.get("starfinder")
    toks = list(built.scene.tokens)
    pairs = [(a, t) for a in toks for t in toks if a is not t]
    plan = system.cover_plan(built, pairs, Attack(), {})
    spec = system.cover_measure(built, Attack(), {}, detail)
    got = measure(built, spec, plan.pairs)
    effect = [m.exact["move"].clear for m in got]
    assert not all(effect) and any(effect)
    for m, clear in zip(got, effect, strict=True):
        assert m.traced is (clear or detail)
        assert (m.exact["sight"] is not None) is clear
    answers = matrix(built, system, None, "cover", {})["cover"]
    for i, a in enumerate(toks):
        for j, t in enumerate(toks):
            if a is not t:
                assert answers[i][j] == cover_one(system, built, a, t, Attack(), {}).cover


@pytest.mark.parametrize("ruleset", ["dnd5e", "starfinder", "pf2e-variant"])
@pytest.mark.parametrize("options", [{}, {"corner_inset": 3}, {"measure_from": "best-corner"}])
def test_planning_many_pairs_equals_planning_each(ruleset, options):
    """One plan per pair, the same as planning the pair alone (shared sample points)."""
    built = build_scene(SF_SCENE)
    system = rules.get(ruleset)
    options = {k: v for k, v in options.items() if k in system.options}
    toks = list(built.scene.tokens)
    pairs = [(a, t) for a in toks for t in toks if a is not t]
    together = system.cover_plan(built, pairs, Attack(), options).pairs
    lines, rows = together.joined()
    for r, pair in enumerate(pairs):
        alone = system.cover_plan(built, [pair], Attack(), options).pairs
        for got, want in zip(together.points(r), alone.points(0), strict=True):
            assert got.tolist() == want.tolist()
        assert together.excluded(r) == alone.excluded(0)
        assert lines[rows[r] : rows[r + 1]].tolist() == alone.joined()[0].tolist()
