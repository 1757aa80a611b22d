"""``GET /v1/rules`` and ``GET /v1/rules/{id}``: the rule book (docs/rules.md) over HTTP."""

from __future__ import annotations

from service import rulebook


def test_one_rule_by_id(client):
    resp = client.get("/v1/rules/5E-COV-5")
    assert resp.status_code == 200
    body = resp.get_json()
    assert body == rulebook.lookup("5E-COV-5")
    assert body["rulesets"] == ["dnd5e"] and "four" in body["summary"]


def test_any_letter_case(client):
    assert client.get("/v1/rules/pv-det-9").get_json()["id"] == "PV-DET-9"


def test_unknown_id_is_a_404_naming_the_nearest(client):
    resp = client.get("/v1/rules/SF-CON-66")
    assert resp.status_code == 404
    body = resp.get_json()
    assert "SF-CON-6" in body["message"] and "/v1/rules" in body["message"]
    assert body["errors"]["path"]["rule_id"]


def test_the_list_and_its_ruleset_filter(client):
    everything = client.get("/v1/rules").get_json()["rules"]
    assert [e["id"] for e in everything] == [e["id"] for e in rulebook.entries()]
    pf2e = client.get("/v1/rules?ruleset=pf2e-variant").get_json()["rules"]
    assert {e["id"].split("-")[0] for e in pf2e} == {"GEO", "PV"}


def test_an_unknown_ruleset_is_a_422(client):
    resp = client.get("/v1/rules?ruleset=gurps")
    assert resp.status_code == 422
    assert "ruleset" in resp.get_json()["errors"]["query"]


def test_every_rule_an_answer_cites_can_be_looked_up(client):
    answer = client.post(
        "/v1/cover",
        json={
            "ruleset": "dnd5e",
            "scene_id": "sample",
            "attacker": "archer",
            "targets": ["goblin", "kobold"],
        },
    ).get_json()
    cited = {r for result in answer["results"] for r in result["rules"]}
    assert cited
    for rule_id in cited:
        assert client.get(f"/v1/rules/{rule_id}").status_code == 200, rule_id
