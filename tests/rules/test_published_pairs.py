"""The all-pairs properties of the rulesets from published rules (``dnd2024``, ``pf2e``).

The properties ``tests/service/test_matrix.py`` holds for the seeds' rulesets: a matrix,
and many pairs measured at once, answer every pair exactly as that pair asked alone (cover
and vision, every field), over the same scenes (docs/architecture.md "One cover selection").
"""

from __future__ import annotations

import pytest

from service import rules
from service.engine.scene import build_scene
from service.matrix import matrix
from service.rules.ask import cover_all, degrees_all, vision_all, vision_one
from service.rules.base import Attack
from tests.service.test_matrix import SCENES, VISION_SCENES, pairwise

#: The rulesets from published rules, and option sets each takes.
PUBLISHED = {
    "dnd2024": [{}, {"corner_inset": 3}, {"ignore_hidden": True}],
    "pf2e": [{}, {"take_cover": ["B", "T"]}, {"ignore_prone_or_dead": True}],
}
CASES = [
    pytest.param(ruleset, options, id=f"{ruleset}-{'-'.join(options) or 'defaults'}")
    for ruleset, sets in PUBLISHED.items()
    for options in sets
]
KINDS = [Attack(), Attack("melee"), Attack("spell")]


@pytest.mark.parametrize(("ruleset", "options"), CASES)
@pytest.mark.parametrize("name", list(SCENES))
def test_cover_of_many_pairs_answers_exactly_as_each_pair(name, ruleset, options):
    """24-COV-3, PF2-COV-2: all pairs at once answer as each pair alone; a matrix's cells
    (``degrees_all``) are the answers' degrees."""
    geo = build_scene(SCENES[name]())
    system = rules.get(ruleset)
    toks = list(geo.scene.tokens)
    pairs = [(a, t) for a in toks for t in toks if t is not a]
    for attack in KINDS:
        alone = [cover_all(system, geo, [pair], attack, options)[0] for pair in pairs]
        assert cover_all(system, geo, pairs, attack, options) == alone
        bare = [degrees_all(system, geo, [pair], attack, options)[0] for pair in pairs]
        assert degrees_all(system, geo, pairs, attack, options) == bare
        assert bare == [r.cover for r in alone]
    got = matrix(geo, system, None, "cover", options)
    assert got["cover"] == pairwise(geo, system, "cover", options)


@pytest.mark.parametrize("ruleset", list(PUBLISHED))
@pytest.mark.parametrize("name", list(SCENES))
def test_area_cover_of_many_targets_answers_as_each(name, ruleset):
    """24-COV-5, PF2-COV-6: from one point of origin, many targets answer as each alone."""
    geo = build_scene(SCENES[name]())
    system = rules.get(ruleset)
    pairs = [(None, t) for t in geo.scene.tokens]
    attack = Attack("area", origin=(150.0, 150.0))
    alone = [cover_all(system, geo, [pair], attack, {})[0] for pair in pairs]
    assert cover_all(system, geo, pairs, attack, {}) == alone
    assert degrees_all(system, geo, pairs, attack, {}) == [r.cover for r in alone]


@pytest.mark.parametrize("options", [{}, {"corner_inset": 0}, {"corner_inset": 10}])
@pytest.mark.parametrize("ruleset", list(PUBLISHED))
@pytest.mark.parametrize("name", list(VISION_SCENES))
def test_batched_vision_answers_exactly_as_each_pair(name, ruleset, options):
    """24-VIS-1..10, PF2-DET-1..9: all pairs perceived at once change no answer."""
    geo = build_scene(VISION_SCENES[name]())
    system = rules.get(ruleset)
    options = {k: v for k, v in options.items() if k in system.options}
    toks = list(geo.scene.tokens)
    alone = [[vision_one(system, geo, a, t, options) for t in toks if t is not a] for a in toks]
    pairs = [(a, t) for a in toks for t in toks if t is not a]
    assert vision_all(system, geo, pairs, options) == [r for row in alone for r in row]
    got = matrix(geo, system, None, "vision", options)
    assert got["vision"] == pairwise(geo, system, "vision", options)
