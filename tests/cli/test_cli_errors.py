"""Every failure of ``sightline`` is one line on stderr, exit 2 for input and 1 otherwise."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from service import cli
from service.app import sample_scene
from service.cli import commands
from tests.cli.helpers import DELIAN, GOBLIN_A, one_line_error, run
from tests.conftest import real_file


def test_missing_file():
    line = one_line_error(run("cover", "no/such/scene.json", "-r", "dnd5e", "-a", "a", "-t", "b"))
    assert line == "sightline: error: no/such/scene.json: no such file"


def test_bad_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"grid": {"size": 100},\n  "walls": [', encoding="utf-8")
    line = one_line_error(run("cover", path, "-r", "dnd5e", "-a", "a", "-t", "b"))
    assert "bad.json: not valid JSON (line 2" in line


def test_schema_error_names_the_field_path(tmp_path):
    raw = sample_scene()
    raw["walls"][3]["c"] = [0, 0, 1]
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    line = one_line_error(run("cover", path, "-r", "dnd5e", "-a", "archer", "-t", "goblin"))
    assert line.endswith("scene.json: invalid scene: walls.3.c: Length must be 4.")


def test_schema_typo_in_a_canonical_key_is_reported(tmp_path):
    raw = sample_scene()
    raw["tokens"][0]["nmae"] = "x"
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    line = one_line_error(run("lighting", path, "--point", "1,1"))
    assert "tokens.0.nmae: Unknown field." in line


@pytest.mark.parametrize(
    ("args", "words"),
    [
        pytest.param(
            ["cover", "-r", "dnd5e", "-a", "archer", "-t", "nobody"],
            "--target 'nobody': no token with that id or name",
            id="unknown-target",
        ),
        pytest.param(
            ["vision", "-r", "dnd5e", "--observer", "ghost", "-t", "goblin"],
            "--observer 'ghost'",
            id="unknown-observer",
        ),
        pytest.param(["lighting", "--token", "ghost"], "--token 'ghost'", id="unknown-token"),
        pytest.param(
            ["cover", "-r", "dnd6e", "-a", "archer", "-t", "goblin"],
            "Unknown ruleset 'dnd6e'",
            id="unknown-ruleset",
        ),
        pytest.param(
            ["cover", "-r", "dnd5e", "-a", "archer", "-t", "archer"],
            "--target: A token cannot be its own target.",
            id="own-target",
        ),
        pytest.param(
            [
                "cover",
                "-r",
                "dnd5e",
                "-a",
                "archer",
                "-t",
                "goblin",
                "--option",
                "measure_from=center",
            ],
            "Option 'measure_from' does not apply to ruleset 'dnd5e'",
            id="option-of-another-ruleset",
        ),
        pytest.param(
            ["cover", "-r", "dnd5e", "-a", "archer", "-t", "goblin", "--option", "nonsense"],
            "expected KEY=VALUE",
            id="option-syntax",
        ),
        pytest.param(
            ["cover", "-r", "dnd5e", "-a", "archer", "-t", "goblin", "--option", "speed=3"],
            "options.speed: Unknown field.",
            id="unknown-option",
        ),
        pytest.param(["lighting", "--point", "1;2"], "expected x,y", id="bad-point"),
        pytest.param(["lighting", "--point", "nan,2"], "finite", id="nan-point"),
        pytest.param(
            ["cover", "-r", "dnd5e", "-t", "goblin"],
            "attacker: Required unless attack.kind is 'area'.",
            id="no-attacker",
        ),
        pytest.param(
            ["matrix", "-r", "dnd5e", "--option", "cover_method=best"],
            "options.cover_method: Must be one of",
            id="matrix-bad-option",
        ),
    ],
)
def test_input_errors_are_one_line_exit_2(sample, args, words):
    line = one_line_error(run(args[0], sample, *args[1:]))
    assert words in line


def test_ambiguous_name_asks_for_an_id():
    line = one_line_error(
        run("cover", real_file(*DELIAN), "-r", "dnd5e", "-a", "Goblin", "-t", "Bugbear")
    )
    assert "4 tokens have that name; use an id" in line
    assert GOBLIN_A in line


def test_server_unreachable_is_one_line_exit_1(sample):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = run(
        "cover",
        sample,
        "-r",
        "dnd5e",
        "-a",
        "archer",
        "-t",
        "goblin",
        "--url",
        f"http://127.0.0.1:{port}",
    )
    line = one_line_error(result, code=1)
    assert f"server http://127.0.0.1:{port}: Connection error" in line


def test_unexpected_exception_is_one_line_exit_1(sample, monkeypatch):
    def boom(*_args, **_kw):
        raise ZeroDivisionError("division by zero\nsecond line")

    monkeypatch.setattr(commands, "cover_text", boom)
    line = one_line_error(run("cover", sample, "-r", "dnd5e", "-a", "archer", "-t", "goblin"), 1)
    assert line == "sightline: error: internal error: ZeroDivisionError: division by zero"


def test_stdin_scene():
    result = CliRunner().invoke(
        cli.main,
        ["lighting", "-", "--point", "150,150", "--json"],
        input=json.dumps(sample_scene()),
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["level"] == "bright"
