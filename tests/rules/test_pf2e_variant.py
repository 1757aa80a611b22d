"""pf2e-variant cover tables: PV-COV-1..8 (shared/RULES.md, English seed)."""

from __future__ import annotations

import pytest

from service.engine.scene import build_scene
from service.rules.ask import cover_one
from service.rules.base import Attack
from service.rules.pf2e_variant import RULESET
from tests.scenes import T_EAST, A, load, tok, wall


def pv(walls, tokens, attacker="A", target="T", attack=None, **options):
    scene = load(walls, tokens)
    att = scene.token(attacker) if attacker else None
    return cover_one(
        RULESET, build_scene(scene), att, scene.token(target), attack or Attack(), options
    )


@pytest.mark.parametrize(
    ("walls", "tokens", "degree", "levels", "can_hide"),
    [
        pytest.param(
            [wall("w", 250, -100, 250, 60)],
            [A, T_EAST],
            "standard",
            2,
            True,
            id="PV-COV-2 wall across the centre line: standard, 2 levels",
        ),
        pytest.param(
            [wall("w", 250, -100, 250, 40)],
            [A, T_EAST],
            "none",
            0,
            False,
            id="PV-COV-2 wall short of the centre line: none",
        ),
        pytest.param(
            [wall("w", 250, -100, 250, 60, cover="extreme")],
            [A, T_EAST],
            "greater",
            3,
            True,
            id="PV-COV-2 extreme (arrow slit): greater, 3 levels",
        ),
        pytest.param(
            [],
            [A, T_EAST, tok("C", 200, 0)],
            "lesser",
            1,
            False,
            id="PV-COV-2 creature on the line: lesser, no Hide (PV-COV-5)",
        ),
        pytest.param(
            [],
            [tok("A", 0, 100), tok("T", 600, 100), tok("H", 200, 0, 3, size="huge")],
            "standard",
            2,
            True,
            id="PV-COV-3 huge between two mediums: standard",
        ),
        pytest.param(
            [],
            [tok("A", 0, 100), tok("T", 600, 100, size="large"), tok("H", 200, 0, 3, size="huge")],
            "lesser",
            1,
            False,
            id="PV-COV-3 huge vs a large target: only lesser",
        ),
        pytest.param(
            [wall("w", 250, -1000, 250, 1000)],
            [A, T_EAST],
            "total",
            0,
            True,
            id="PV-COV-6 entirely behind a wall: total, cannot target",
        ),
        pytest.param(
            [wall("w", 250, -1000, 250, 1000, cover="low")],
            [A, T_EAST],
            "standard",
            2,
            True,
            id="PV-COV-2 low wall is terrain: standard, not total",
        ),
    ],
)
def test_degrees(walls, tokens, degree, levels, can_hide):
    res = pv(walls, tokens)
    assert (res.cover, res.advantage_levels, res.can_hide) == (degree, levels, can_hide)
    assert res.can_target is (degree != "total")
    assert len(res.lines) == 1
    assert res.lines[0].start == (50.0, 50.0) or res.lines[0].start == (50.0, 150.0)


@pytest.mark.parametrize(
    ("walls", "tokens", "after"),
    [
        pytest.param([], [A, T_EAST], "lesser", id="PV-COV-4 none -> lesser"),
        pytest.param(
            [], [A, T_EAST, tok("C", 200, 0)], "standard", id="PV-COV-4 lesser -> standard"
        ),
        pytest.param(
            [wall("w", 250, -100, 250, 60)],
            [A, T_EAST],
            "greater",
            id="PV-COV-4 standard -> greater",
        ),
        pytest.param(
            [wall("w", 250, -100, 250, 60, cover="extreme")],
            [A, T_EAST],
            "greater",
            id="PV-COV-4 greater stays greater",
        ),
    ],
)
def test_take_cover(walls, tokens, after):
    res = pv(walls, tokens, take_cover=["T"])
    assert res.cover == after
    assert "PV-COV-4" in res.rules


def test_area_effect_from_its_origin():
    """PV-COV-7: origin to the centre of the creature's space."""
    res = pv(
        [wall("w", 350, 100, 350, 200)],
        [A, T_EAST],
        attacker=None,
        attack=Attack("area", (300.0, 150.0)),
    )
    assert res.lines[0].start == (300.0, 150.0) and res.lines[0].end == (450.0, 50.0)
    assert res.cover == "standard"
    assert "PV-COV-7" in res.rules


def test_best_corner_leans_around_a_corner():
    """PV-COV-8: measured from the attacker's best corner, the wall edge is passed."""
    walls = [wall("w", 250, 40, 250, 1000)]
    assert pv(walls, [A, T_EAST]).cover == "standard"
    res = pv(walls, [A, T_EAST], measure_from="best-corner")
    assert res.cover == "none"
    assert res.lines[0].start == (0.5, 0.5)


def test_ignore_small_terrain_for_large_targets():
    """PV-COV-8: a much larger creature gets nothing from small terrain."""
    low = wall("low", 250, -1000, 250, 1000, cover="low")
    tokens = [A, tok("T", 400, 0, 2, size="large")]
    assert pv([low], tokens).cover == "standard"
    assert pv([low], tokens, ignore_small_terrain=True).cover == "none"
    # Medium targets keep it.
    assert pv([low], [A, T_EAST], ignore_small_terrain=True).cover == "standard"


def test_advantage_table_is_overridable():
    """PV-COV-1 decision: lesser 1, standard 2, greater 3 unless overridden."""
    res = pv([wall("w", 250, -100, 250, 60)], [A, T_EAST], advantage_levels={"standard": 1})
    assert res.advantage_levels == 1


def test_creature_sharing_the_space_gives_nothing():
    res = pv([], [A, T_EAST, tok("C", 400, 0)])
    assert res.cover == "none"
