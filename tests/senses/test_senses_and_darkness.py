"""Senses and darkness in starfinder and pf2e-variant (SF-CON-6 Decisions).

* Magical darkness: the Starfinder seed knows none; a ``magical_darkness`` region or a
  darkness source is darkness, and darkvision sees in it, in starfinder and pf2e-variant,
  unless the GM option ``magical_darkness_defeats_darkvision`` (dnd5e: always, 5E-VIS-5).
  A darkness light and a dark region answer alike for the same darkvision.
* Senses that need no sight: a creature perceived by blindsight (or tremorsense) within
  range has no concealment from darkness, obscurement or a wall that blocks only sight.

Layout (100 px = 5 ft): O at (0, 200), T four squares east at (400, 200).
"""

from __future__ import annotations

import pytest

from service import rules
from service.engine.scene import build_scene
from service.rules.ask import vision_one
from tests.scenes import load, tok, wall

DARK_LIGHT = {"id": "Dk", "x": 450, "y": 250, "bright": 10, "dim": 10, "darkness": True}
AROUND_T = {"type": "rect", "x": 300, "y": 100, "width": 300, "height": 300}
MAGIC_REGION = {"id": "md", "shape": AROUND_T, "magical_darkness": True}
DARK_REGION = {"id": "dk", "shape": AROUND_T, "light": "dark"}
FOG = {"id": "fog", "shape": AROUND_T, "obscurement": "heavy"}
DIAGONAL = wall("Glassless", 100, -200, 300, 600, move="none")
SIGHT_ONLY = wall("glass", 300, 0, 300, 600, move="none", sound="none")


def _see(ruleset, senses, lights=(), regions=(), walls=(), env="bright", **options):
    scene = load(
        list(walls),
        [tok("O", 0, 200, senses=senses), tok("T", 400, 200)],
        lights=list(lights),
        regions=list(regions),
        environment={"light": env},
    )
    built = build_scene(scene)
    return vision_one(rules.get(ruleset), built, scene.token("O"), scene.token("T"), options)


DV = {"darkvision": 60}

# (ruleset, darkness, option, can_see) -- darkvision 60 ft, the target 20 ft away
DARKVISION = [
    pytest.param("starfinder", {"lights": [DARK_LIGHT]}, False, True,
                 id="sf darkness light (handed-3)"),
    pytest.param("starfinder", {"regions": [MAGIC_REGION]}, False, True, id="sf magical region"),
    pytest.param("starfinder", {"regions": [DARK_REGION]}, False, True, id="sf dark region"),
    pytest.param("starfinder", {"lights": [DARK_LIGHT]}, True, False, id="sf with the GM option"),
    pytest.param("pf2e-variant", {"lights": [DARK_LIGHT]}, False, True, id="pf2e darkness light"),
    pytest.param("pf2e-variant", {"regions": [MAGIC_REGION]}, True, False, id="pf2e GM option"),
    pytest.param("dnd5e", {"lights": [DARK_LIGHT]}, None, False, id="dnd5e 5E-VIS-5 always"),
    pytest.param("dnd5e", {"regions": [DARK_REGION]}, None, True, id="dnd5e dark region: sees"),
]  # fmt: skip


@pytest.mark.parametrize("ruleset, darkness, option, can_see", DARKVISION)
def test_darkvision_in_magical_darkness(ruleset, darkness, option, can_see):
    """SF-CON-6 Decision (magical darkness); 5E-VIS-5 in dnd5e."""
    options = {} if option is None else {"magical_darkness_defeats_darkvision": option}
    got = _see(ruleset, DV, **darkness, **options)
    assert got.can_see is can_see
    if ruleset == "starfinder":
        assert (got.concealment, got.miss_chance) == (("none", 0) if can_see else ("total", 50))


@pytest.mark.parametrize("ruleset", ["starfinder", "pf2e-variant"])
def test_a_darkness_light_and_a_dark_region_answer_alike(ruleset):
    """SF-CON-6: for the same darkvision, a darkness source and a dark region agree."""
    by_light = _see(ruleset, DV, lights=[DARK_LIGHT])
    by_region = _see(ruleset, DV, regions=[DARK_REGION])
    fields = ("can_see", "sense", "concealment", "miss_chance", "detection")
    assert [getattr(by_light, f) for f in fields] == [getattr(by_region, f) for f in fields]


# (senses, scene) -- what needs no sight perceives: no concealment
NO_SIGHT = [
    pytest.param({"blindsight": 60}, {"walls": [DIAGONAL]},
                 id="blindsight through a diagonal sight-only wall (handed-3)"),
    pytest.param({"blindsight": 60}, {"walls": [SIGHT_ONLY]}, id="blindsight, sight-only wall"),
    pytest.param({"blindsight": 60}, {"regions": [FOG]}, id="blindsight in heavy fog"),
    pytest.param({"blindsight": 60}, {"env": "dark"}, id="blindsight in darkness"),
    pytest.param({"tremorsense": 60, "hearing": 0}, {"walls": [SIGHT_ONLY]},
                 id="tremorsense, sight-only wall"),
]  # fmt: skip


@pytest.mark.parametrize("senses, scene", NO_SIGHT)
def test_senses_that_need_no_sight_have_no_concealment(senses, scene):
    """SF-CON-6 Decision (senses that need no sight): seen and no concealment, never both
    "seen" and total concealment."""
    got = _see("starfinder", senses, **scene)
    assert (got.can_see, got.sense) == (True, next(iter(senses)))
    assert (got.concealment, got.miss_chance) == ("none", 0)


def test_without_such_a_sense_the_sight_only_wall_conceals():
    """SF-CON-4: line of effect without line of sight is total concealment (the control)."""
    got = _see("starfinder", {}, walls=[SIGHT_ONLY])
    assert (got.concealment, got.miss_chance) == ("total", 50)
