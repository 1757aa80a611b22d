"""HTTP: rulesets, starfinder/pf2e cover, line of effect/sight, flanking (shared/API.md)."""

from __future__ import annotations

import pytest

from tests.api.test_api import assert_error
from tests.scenes import T_EAST, A, scene_dict, tok, wall

SCENE = scene_dict([wall("w1", 250, -100, 250, 60)], [A, T_EAST, tok("C", 200, 300)])


def test_rulesets_lists_all_three_with_option_defaults(client):
    body = client.get("/v1/rulesets").get_json()
    by_id = {r["id"]: r for r in body["rulesets"]}
    assert set(by_id) == {"starfinder", "dnd5e", "pf2e-variant", "dnd2024", "pf2e"}
    assert by_id["starfinder"]["cover_degrees"] == [
        "none",
        "partial",
        "cover",
        "soft",
        "improved",
        "total",
    ]
    assert by_id["pf2e-variant"]["cover_degrees"] == [
        "none",
        "lesser",
        "standard",
        "greater",
        "total",
    ]
    assert by_id["starfinder"]["options"]["concealment_corner"]["default"] == "defender"
    assert by_id["pf2e-variant"]["options"]["measure_from"]["choices"] == ["center", "best-corner"]
    assert by_id["pf2e-variant"]["options"]["advantage_levels"]["default"] == {
        "none": 0,
        "lesser": 1,
        "standard": 2,
        "greater": 3,
    }
    assert "modifiers/flanking" in by_id["starfinder"]["capabilities"]
    assert "modifiers/gravity" in by_id["dnd5e"]["capabilities"]
    assert "modifiers/range" in by_id["pf2e-variant"]["capabilities"]


@pytest.mark.parametrize(
    ("ruleset", "cover", "ac", "save", "levels"),
    [
        pytest.param("starfinder", "cover", 4, 2, 0, id="SF-COV-2"),
        pytest.param("dnd5e", "half", 2, 2, 0, id="5E-COV-5"),
        pytest.param("pf2e-variant", "standard", 0, 0, 2, id="PV-COV-2"),
    ],
)
def test_cover_each_ruleset(client, ruleset, cover, ac, save, levels):
    body = client.post(
        "/v1/cover", json={"ruleset": ruleset, "scene": SCENE, "attacker": "A", "targets": ["T"]}
    ).get_json()
    res = body["results"][0]
    assert (res["cover"], res["ac_bonus"], res["save_bonus"], res["advantage_levels"]) == (
        cover,
        ac,
        save,
        levels,
    )
    # Fields a ruleset does not use are present with their neutral value.
    for key in ("concealment", "miss_chance", "can_hide", "modifiers", "line_of_effect"):
        assert key in res


@pytest.mark.parametrize(
    ("ruleset", "options", "path"),
    [
        pytest.param(
            "dnd5e",
            {"concealment_corner": "attacker"},
            "concealment_corner",
            id="starfinder option sent to dnd5e",
        ),
        pytest.param(
            "starfinder",
            {"cover_method": "dmg-corner"},
            "cover_method",
            id="dnd5e option sent to starfinder",
        ),
        pytest.param("pf2e-variant", {"measure_from": "edge"}, "measure_from", id="bad choice"),
        pytest.param("pf2e-variant", {"take_cover": "T"}, "take_cover", id="wrong type"),
        pytest.param(
            "pf2e-variant",
            {"advantage_levels": {"huge": 1}},
            "advantage_levels",
            id="unknown table key",
        ),
        pytest.param("starfinder", {"see_through": True}, "see_through", id="unknown option"),
    ],
)
def test_option_errors_name_the_option(client, ruleset, options, path):
    body = assert_error(
        client.post(
            "/v1/cover",
            json={
                "ruleset": ruleset,
                "scene": SCENE,
                "attacker": "A",
                "targets": ["T"],
                "options": options,
            },
        ),
        422,
    )
    assert path in body["errors"]["json"]["options"]


def test_line_of_effect_between_tokens(client):
    scene = scene_dict(
        [wall("w1", 250, -1000, 250, 95), wall("w2", 250, 105, 250, 1000)], [A, T_EAST]
    )
    body = client.post("/v1/line-of-effect", json={"scene": scene, "from": "A", "to": "T"})
    assert body.status_code == 200
    res = body.get_json()
    assert res["clear"] is True and res["blockers"] == []
    (x0, y0), (x1, y1) = res["witness"]
    assert 95 <= y0 + (y1 - y0) * (250 - x0) / (x1 - x0) <= 105  # through the gap
    assert "5E-LOE-2" in res["rules"]


def test_line_of_effect_points_and_breakthrough(client):
    scene = scene_dict(
        [wall(f"foam{i}", 200 + 50 * i, -1000, 200 + 50 * i, 1000, hp=10) for i in range(3)],
        [A, T_EAST],
    )
    res = client.post(
        "/v1/line-of-effect",
        json={"scene": scene, "from": {"point": [50, 50]}, "to": "T", "effect": {"damage": 40}},
    ).get_json()
    assert res["clear"] is False
    assert [b["id"] for b in res["blockers"]] == ["foam0", "foam1", "foam2"]
    assert res["breakthrough"]["damage_reaching"] == 10
    assert res["breakthrough"]["destroyed"] == ["foam0", "foam1", "foam2"]
    assert res["breakthrough"]["stopped_by"] is None


def test_line_of_sight_through_glass(client):
    scene = scene_dict([wall("g", 250, -1000, 250, 1000, sight="none")], [A, T_EAST])
    los = client.post("/v1/line-of-sight", json={"scene": scene, "from": "A", "to": "T"})
    loe = client.post("/v1/line-of-effect", json={"scene": scene, "from": "A", "to": "T"})
    assert los.get_json()["clear"] is True
    assert loe.get_json()["clear"] is False


@pytest.mark.parametrize(
    ("body", "code", "path"),
    [
        pytest.param({"from": "nope", "to": "T"}, 404, "from", id="unknown token"),
        pytest.param({"from": 7, "to": "T"}, 422, "from", id="number endpoint"),
        pytest.param({"from": {"point": [1]}, "to": "T"}, 422, "from", id="short point"),
        pytest.param({"from": {"pt": [1, 2]}, "to": "T"}, 422, "from", id="unknown key"),
        pytest.param({"from": "A"}, 422, "to", id="missing to"),
        pytest.param(
            {"from": "A", "to": "T", "effect": {"damage": -1}}, 422, "effect", id="negative damage"
        ),
    ],
)
def test_line_errors(client, body, code, path):
    err = assert_error(client.post("/v1/line-of-effect", json={"scene": SCENE, **body}), code)
    assert path in err["errors"]["json"]


def test_flanking_endpoint(client):
    scene = scene_dict(
        [], [tok("A", 0, 100), tok("T", 100, 100), tok("B", 200, 100), tok("D", 100, 0)]
    )
    ok = client.post(
        "/v1/modifiers/flanking",
        json={"ruleset": "starfinder", "scene": scene, "attacker": "A", "ally": "B", "target": "T"},
    )
    assert ok.get_json()["flanking"] is True and ok.get_json()["attack_bonus"] == 2
    assert ok.get_json()["rules"] == ["SF-FLK-1"]
    no = client.post(
        "/v1/modifiers/flanking",
        json={"ruleset": "starfinder", "scene": scene, "attacker": "A", "ally": "D", "target": "T"},
    )
    assert no.get_json()["flanking"] is False and no.get_json()["attack_bonus"] == 0
    err = assert_error(
        client.post(
            "/v1/modifiers/flanking",
            json={"ruleset": "dnd5e", "scene": scene, "attacker": "A", "ally": "B", "target": "T"},
        ),
        422,
    )
    assert "ruleset" in err["errors"]["json"]


def test_matrix_endpoint(client):
    body = client.post(
        "/v1/matrix",
        json={"ruleset": "dnd5e", "scene_id": "sample", "tokens": ["archer", "goblin", "kobold"]},
    ).get_json()
    assert body["tokens"] == ["archer", "goblin", "kobold"]
    assert body["cover"][0] == [None, "half", "total"]
    assert [body["cover"][i][i] for i in range(3)] == [None, None, None]
    vis = client.post(
        "/v1/matrix",
        json={
            "ruleset": "pf2e-variant",
            "scene_id": "sample",
            "kind": "vision",
            "tokens": ["archer", "goblin"],
        },
    )
    assert vis.status_code == 200 and vis.get_json()["vision"][0][0] is None


@pytest.mark.parametrize(
    ("body", "code", "path"),
    [
        pytest.param({"tokens": ["x"]}, 404, "tokens", id="unknown token"),
        pytest.param({"kind": "smell"}, 422, "kind", id="unknown kind"),
        pytest.param({"options": {"cover_method": "eyeball"}}, 422, "options", id="bad option"),
        pytest.param(
            {"kind": "vision", "options": {"cover_method": "dmg-corner"}},
            422,
            "options",
            id="cover option in a vision matrix",
        ),
    ],
)
def test_matrix_errors(client, body, code, path):
    err = assert_error(
        client.post("/v1/matrix", json={"ruleset": "dnd5e", "scene_id": "sample", **body}), code
    )
    assert path in err["errors"]["json"]


def test_matrix_work_budget_is_a_422_telling_the_limit():
    from service.app import create_app

    app = create_app({"MATRIX_MAX_TOKENS": 3})
    err = assert_error(
        app.test_client().post("/v1/matrix", json={"ruleset": "dnd5e", "scene_id": "sample"}), 422
    )
    assert "at most 3 tokens" in err["message"]
    assert "tokens" in err["errors"]["json"]
