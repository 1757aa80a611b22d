"""Tremorsense and elevation (GEO-11): the same ground, not the same height.

Tremorsense perceives a creature within its range that touches the same ground as the
observer: neither has the ``flying`` condition and no floor (GEO-10) lies between them;
elevation alone (a ledge, a table, a stair) does not lift a creature off the ground. In
dnd5e and starfinder it locates the creature (``can_see``, ``sense: "tremorsense"``) and
answers cite it by its own name (GEO-11), never as blindsight (5E-VIS-8); in pf2e-variant it
is imprecise (PV-DET-2: hidden). Darkness everywhere, no hearing: only tremorsense can tell.
"""

from __future__ import annotations

import pytest

from service import rules
from service.engine.scene import build_scene
from service.rules.ask import vision_one
from tests.scenes import load, tok

TREMOR = {"tremorsense": 30, "hearing": 0}

# (ruleset, observer fields, target fields, levels, felt?)
GROUND = [
    pytest.param("dnd5e", {"elevation": 15, "conditions": ["flying"]}, {}, None, False,
                 id="flying observer 15 ft up (handed-3)"),
    pytest.param("dnd5e", {}, {"elevation": 5}, None, True, id="target on a table (handed-3)"),
    pytest.param("starfinder", {}, {"elevation": 15}, None, True, id="sf: target on a ledge"),
    pytest.param("starfinder", {}, {"conditions": ["flying"]}, None, False,
                 id="sf: flying target at 0"),
    pytest.param("dnd5e", {"elevation": 10}, {}, None, True,
                 id="observer on a ledge, target below"),
    pytest.param("dnd5e", {}, {"elevation": 10}, [("g", 0, 10), ("u", 10, 20)], False,
                 id="target on the floor above (GEO-10)"),
    pytest.param("dnd5e", {"elevation": 12}, {"elevation": 10},
                 [("g", 0, 10), ("u", 10, 20)], True, id="both upstairs"),
]  # fmt: skip


def _felt(ruleset, observer, target, levels):
    extra = {}
    if levels:
        extra["levels"] = [{"id": i, "name": i, "bottom": b, "top": t} for i, b, t in levels]
    scene = load(
        [],
        [tok("O", 0, 300, senses=TREMOR, **observer), tok("T", 200, 100, **target)],
        environment={"light": "dark"},
        **extra,
    )
    built = build_scene(scene)
    return vision_one(rules.get(ruleset), built, scene.token("O"), scene.token("T"), {})


@pytest.mark.parametrize("ruleset, observer, target, levels, felt", GROUND)
def test_tremorsense_feels_the_same_ground(ruleset, observer, target, levels, felt):
    """GEO-11: flying (either one) or a floor between: not felt; a ledge: felt."""
    got = _felt(ruleset, observer, target, levels)
    assert (got.can_see, got.sense) == ((True, "tremorsense") if felt else (False, None))


def test_pf2e_tremorsense_is_imprecise_on_a_ledge():
    """GEO-11 with PV-DET-2: a creature on a ledge is felt, hidden (DC 11)."""
    got = _felt("pf2e-variant", {}, {"elevation": 15}, None)
    assert (got.can_see, got.sense, got.detection, got.flat_check_dc) == (
        False, "tremorsense", "hidden", 11,
    )  # fmt: skip


def test_dnd5e_cites_tremorsense_by_its_own_name():
    """GEO-11: answers cite tremorsense by its own name, never as blindsight (5E-VIS-8)."""
    got = _felt("dnd5e", {}, {"elevation": 5}, None)
    assert "GEO-11" in got.rules and "5E-VIS-8" not in got.rules
