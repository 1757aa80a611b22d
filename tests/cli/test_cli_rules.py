"""``sightline rules [ID]``: the rule book (docs/rules.md) without a server."""

from __future__ import annotations

import json

from service import rulebook
from tests.cli.helpers import ok, one_line_error, run


def test_one_rule():
    out = ok("rules", "PV-DET-9").stdout
    assert out.startswith("PV-DET-9 — ")
    assert "Hidden" in out and "**" not in out and "`" not in out


def test_the_list_names_every_id():
    out = ok("rules").stdout
    for entry in rulebook.entries():
        assert entry["id"] in out


def test_the_ruleset_filter():
    out = ok("rules", "--ruleset", "starfinder").stdout
    assert "SF-CON-6" in out and "5E-COV-5" not in out and "GEO-10" in out


def test_json_is_the_api_entry():
    assert json.loads(ok("rules", "--json", "5e-cov-5").stdout) == rulebook.lookup("5E-COV-5")


def test_an_unknown_id_names_the_nearest():
    line = one_line_error(run("rules", "GEO-55"))
    assert "GEO-5" in line and "sightline rules" in line
