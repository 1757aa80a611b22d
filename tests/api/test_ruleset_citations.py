"""``/v1/lighting`` and the line endpoints cite the rules of the ruleset a request names.

The light at a point and whether a line is clear are geometry, every ruleset's (GEO-1..9);
the ids an answer names are its ruleset's (``service.citations``, docs/rules.md): a table
playing Starfinder reads SF-CON-6 and SF-COV-9, never a dnd5e id. A request without
``ruleset`` cites dnd5e's ids, as before the field existed. Breakthrough (5E-LOE-4/5) is
dnd5e's rule alone: another ruleset with ``effect.damage`` is a 422 naming dnd5e.
"""

from __future__ import annotations

import pytest

from service import model, rulebook
from tests.api.test_api import assert_error
from tests.scenes import scene_dict, tok, wall

#: A at the top-left square, T four squares east behind a breakable wall W (10 hp); a torch
#: lights (150, 150); a magical darkness region over x >= 700.
SCENE = scene_dict(
    [wall("W", 300, -500, 300, 500, hp=10)],
    [tok("A", 0, 0), tok("T", 400, 0)],
    environment={"light": "dark"},
    lights=[{"id": "torch", "x": 150, "y": 150, "bright": 5, "dim": 10}],
    regions=[
        {
            "id": "gloom",
            "shape": {"type": "rect", "x": 700, "y": 0, "width": 300, "height": 300},
            "magical_darkness": True,
        },
        {
            "id": "dusk",
            "shape": {"type": "rect", "x": 0, "y": 600, "width": 300, "height": 300},
            "light": "dim",
        },
    ],
)

#: The ids each ruleset's answers cite: light levels, magical darkness; line of effect,
#: line of sight, a token's space (docs/rules.md; GEO-* where the ruleset has none).
EXPECTED = {
    "dnd5e": ("5E-VIS-3", "5E-VIS-5", "5E-LOE-1", "5E-VIS-2", "5E-LOE-2"),
    "dnd2024": ("24-VIS-2", "24-VIS-3", None, "GEO-9", None),
    "starfinder": ("SF-CON-6", "SF-CON-6", "SF-COV-9", "SF-CON-4", None),
    "pf2e-variant": ("PV-DET-9", "PV-DET-9", "PV-COV-6", "PV-DET-6", None),
    "pf2e": ("PF2-VIS-1", "PF2-VIS-3", "PF2-COV-5", "GEO-9", None),
}


def post(client, path, body, code=200):
    resp = client.post(path, json={"scene": SCENE, **body})
    if code != 200:
        return assert_error(resp, code)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def lighting(client, **body):
    # torch-lit, magical darkness, a dim region, the two tokens
    req = {"points": [[150, 150], [800, 100], [100, 700]], "tokens": ["A", "T"], **body}
    return [r["rules"] for r in post(client, "/v1/lighting", req)["results"]]


def line(client, path, **body):
    return post(client, path, {"from": "A", "to": "T", **body})["rules"]


def test_every_ruleset_has_its_citations():
    assert set(EXPECTED) == set(model.RULESET_IDS)


@pytest.mark.parametrize("ruleset", model.RULESET_IDS)
def test_lighting_cites_the_rulesets_ids(client, ruleset):
    levels, magical, *_ = EXPECTED[ruleset]
    lit, dark, dusk, *tokens = lighting(client, ruleset=ruleset)
    assert lit == [levels]
    assert dark == sorted({levels, magical})
    assert dusk == sorted({levels, "GEO-9"})  # a region's light: every ruleset's GEO-9
    assert all(levels in rules for rules in tokens)


@pytest.mark.parametrize("ruleset", model.RULESET_IDS)
def test_lines_cite_the_rulesets_ids(client, ruleset):
    _, _, effect, sight, spaces = EXPECTED[ruleset]
    want = [r for r in ("GEO-1", "GEO-6", effect, spaces) if r]
    assert line(client, "/v1/line-of-effect", ruleset=ruleset) == want
    want = [r for r in ("GEO-1", "GEO-6", sight, spaces) if r]
    assert line(client, "/v1/line-of-sight", ruleset=ruleset) == want


@pytest.mark.parametrize("ruleset", model.RULESET_IDS)
def test_every_cited_id_is_a_rule_of_that_ruleset(client, ruleset):
    """The kind: no answer for one ruleset names a rule of another (docs/rules.md)."""
    cited = {r for rules in lighting(client, ruleset=ruleset) for r in rules}
    cited |= set(line(client, "/v1/line-of-effect", ruleset=ruleset))
    cited |= set(line(client, "/v1/line-of-sight", ruleset=ruleset))
    if ruleset == "dnd5e":
        cited |= set(line(client, "/v1/line-of-effect", ruleset=ruleset, effect={"damage": 5}))
    for rule_id in cited:
        assert ruleset in rulebook.lookup(rule_id)["rulesets"], (ruleset, rule_id)


def test_no_ruleset_cites_dnd5e_as_before(client):
    assert lighting(client) == lighting(client, ruleset="dnd5e")
    for path in ("/v1/line-of-effect", "/v1/line-of-sight"):
        assert line(client, path) == line(client, path, ruleset="dnd5e")
    broke = post(
        client,
        "/v1/line-of-effect",
        {"from": "A", "to": "T", "effect": {"damage": 15}},
    )
    assert broke["rules"][-1] == "5E-LOE-4" and broke["breakthrough"]["damage_reaching"] == 5


@pytest.mark.parametrize("ruleset", [r for r in model.RULESET_IDS if r != "dnd5e"])
def test_breakthrough_outside_dnd5e_is_a_422_naming_dnd5e(client, ruleset):
    body = {"ruleset": ruleset, "from": "A", "to": "T"}
    err = post(client, "/v1/line-of-effect", {**body, "effect": {"damage": 15}}, 422)
    assert "dnd5e" in err["message"] and "5E-LOE-4" in err["message"]
    assert "damage" in err["errors"]["json"]["effect"]


@pytest.mark.parametrize("path", ["/v1/lighting", "/v1/line-of-effect", "/v1/line-of-sight"])
def test_unknown_ruleset_is_a_422_listing_the_known(client, path):
    body = {"ruleset": "dnd6e", "points": [[0, 0]], "from": "A", "to": "T"}
    if path == "/v1/lighting":
        body = {"ruleset": "dnd6e", "points": [[0, 0]]}
    else:
        del body["points"]
    err = post(client, path, body, 422)
    assert "starfinder" in err["errors"]["json"]["ruleset"][0]


@pytest.mark.parametrize("ruleset", model.RULESET_IDS)
@pytest.mark.parametrize("kind", ["line-of-effect", "line-of-sight"])
def test_a_rendered_line_cites_the_rulesets_ids(client, ruleset, kind):
    """``/v1/render``'s line query takes ``ruleset`` as the line endpoints do: its caption
    names the ids the endpoint answers (and an unknown ruleset is the same 422)."""
    cited = line(client, f"/v1/{kind}", ruleset=ruleset)
    query = {"type": kind, "ruleset": ruleset, "from": "A", "to": "T"}
    resp = client.post("/v1/render", json={"scene": SCENE, "query": query})
    assert resp.status_code == 200, resp.get_json()
    svg = resp.get_data(as_text=True)
    assert all(rule_id in svg for rule_id in cited), (cited, ruleset)
    if ruleset != "dnd5e":  # not the ids a request without ruleset cites
        assert "5E-LOE-1" not in svg and "5E-VIS-2" not in svg, ruleset
    bad = {**query, "ruleset": "dnd6e"}
    err = assert_error(client.post("/v1/render", json={"scene": SCENE, "query": bad}), 422)
    assert "starfinder" in err["message"] or "starfinder" in str(err["errors"])


@pytest.mark.parametrize("options", [{"corner_inset": -1}, {"zzz": 1}])
def test_a_rendered_lines_options_are_checked_as_the_line_endpoints(client, options):
    query = {"type": "line-of-effect", "from": "A", "to": "T", "options": options}
    direct = post(client, "/v1/line-of-effect", {"from": "A", "to": "T", "options": options}, 422)
    err = assert_error(client.post("/v1/render", json={"scene": SCENE, "query": query}), 422)
    assert err["errors"]["json"]["query"]["options"] == direct["errors"]["json"]["options"]
