"""A region with a height range conceals or obscures only where it meets the line's band.

GEO-5 (half-open ranges), GEO-5a (bands between the creatures' extents), GEO-9 (one region
vocabulary for every ruleset), PV-DET-6 (concealed), SF-CON-1 (concealment), 5E-VIS-1.
"""

from __future__ import annotations

import pytest

from service import rules
from service.engine.scene import build_scene
from service.model import Grid, Region, Scene, Shape, Span, Token
from service.rules.ask import vision_all

GRID = {"size": 100, "distance": 5}


def _scene(elevation: float, span: tuple[float, float] | None, kind: str) -> Scene:
    fog = Region(
        id="fog",
        shape=Shape(type="rect", x=350, y=-50, width=200, height=200),
        obscurement="light" if kind == "light" else None,
        concealment=kind == "concealment",
        elevation=None if span is None else Span(*span),
    )
    return Scene(
        grid=Grid(**GRID),
        tokens=(
            Token(id="O", x=0, y=0, elevation=elevation),
            Token(id="T", x=400, y=0, elevation=elevation),
        ),
        regions=(fog,),
    )


CASES = [
    # (creatures' elevation, region's height range, concealed?)
    pytest.param(0, None, True, id="no range: conceals"),
    pytest.param(0, (0, 10), True, id="creatures inside the layer"),
    pytest.param(20, (0, 10), False, id="creatures above the layer (GEO-5a)"),
    pytest.param(10, (0, 10), False, id="standing on the layer's top: half-open (GEO-5)"),
    pytest.param(0, (5, 10), False, id="layer above 5-ft creatures' tops"),
    pytest.param(0, (3, 10), True, id="layer over part of the band"),
]


@pytest.mark.parametrize("kind", ["light", "concealment"])
@pytest.mark.parametrize(("elevation", "span", "concealed"), CASES)
def test_pf2e_region_conceals_only_where_it_meets_the_band(elevation, span, concealed, kind):
    """PV-DET-6 with GEO-5/5a: a fog layer below both creatures conceals nothing."""
    built = build_scene(_scene(elevation, span, kind))
    system = rules.get("pf2e-variant")
    [result] = vision_all(system, built, [(built.scene.tokens[0], built.scene.tokens[1])], {})
    assert result.concealed is concealed


@pytest.mark.parametrize(("elevation", "span", "concealed"), CASES)
def test_starfinder_region_conceals_only_where_it_meets_the_band(elevation, span, concealed):
    """SF-CON-1 with GEO-5/5a: a fog layer below both creatures gives no concealment."""
    built = build_scene(_scene(elevation, span, "light"))
    system = rules.get("starfinder")
    [result] = vision_all(system, built, [(built.scene.tokens[0], built.scene.tokens[1])], {})
    assert (result.concealment != "none") is concealed
