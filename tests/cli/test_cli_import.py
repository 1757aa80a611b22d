"""``sightline import``: exports of every format written as a canonical scene.

A canonical scene is given back unchanged (it used to be read as a Foundry v10 export: ids
renamed, doors lost, exit 0); an explicit ``--format`` that the file does not match is an
error saying what the file is; a Foundry NeDB ``.db`` is read whatever its name, and
``--scene`` (or ``--page``) picks one scene, for every format.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas.scene import SceneSchema
from service.app import sample_scene
from tests.api.test_imports import NEDB
from tests.cli.helpers import DELIAN, GOBLIN_A, GOBLIN_B, ok, one_line_error, run
from tests.conftest import real_file


def test_import_foundry_writes_a_canonical_scene(tmp_path):
    out = tmp_path / "tomb.json"
    result = ok("import", real_file(*DELIAN), "-o", out)
    scene = SceneSchema().load(json.loads(out.read_text("utf-8")))
    assert (len(scene.walls), len(scene.tokens), len(scene.lights)) == (43, 14, 2)
    first, *warnings = result.stderr.splitlines()
    assert "foundry scene" in first
    assert "43 walls, 1 door, 14 tokens, 2 lights, 0 regions" in first
    assert warnings and all(w.startswith("sightline: warning: ") for w in warnings)
    # the imported file is a SCENE for every command, recognised as canonical
    again = ok("cover", out, "-r", "dnd5e", "-a", GOBLIN_A, "-t", GOBLIN_B)
    assert "imported" not in again.stderr


def test_import_to_stdout_and_explicit_format():
    result = ok("import", real_file(*DELIAN), "--format", "foundry")
    assert json.loads(result.stdout)["grid"]["size"] == 114


@pytest.mark.parametrize(
    ("parts", "fmt", "walls"),
    [
        pytest.param(
            ("uvtt", "uvtt-0.2-dndapps-headmasters-quarters.dd2vtt"), "uvtt", 20, id="uvtt"
        ),
        pytest.param(
            ("roll20", "roll20-betteR20-module-tomb-of-horrors.json"), "roll20", 652, id="roll20"
        ),
    ],
)
def test_import_other_formats_when_detect_is_installed(parts, fmt, walls):
    pytest.importorskip("adapters.detect")
    result = ok("import", real_file(*parts))
    scene = SceneSchema().load(json.loads(result.stdout))
    assert len(scene.walls) == walls
    assert f"{fmt} scene" in result.stderr.splitlines()[0]


def test_import_errors():
    path = real_file(*DELIAN)
    # --page and --scene pick for every format
    line = one_line_error(run("import", path, "--format", "foundry", "--page", "1"))
    assert "scene '1' not found; the export holds only 'The Delian Tomb'" in line
    assert "no such file" in one_line_error(run("import", "missing.json"))


def test_import_not_a_scene(tmp_path):
    path = tmp_path / "list.json"
    path.write_text(json.dumps({"hello": "world"}), encoding="utf-8")
    line = one_line_error(run("import", path))
    assert "list.json" in line and "not" in line


def test_import_a_canonical_scene_gives_it_back_unchanged(tmp_path: Path):
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(sample_scene()), encoding="utf-8")
    result = ok("import", path)
    assert json.loads(result.stdout) == sample_scene()
    assert "imported canonical scene" in result.stderr
    assert "13 walls, 1 door, 6 tokens, 1 light, 0 regions" in result.stderr


def test_import_a_canonical_scene_as_foundry_is_an_error(tmp_path: Path):
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(sample_scene()), encoding="utf-8")
    line = one_line_error(run("import", path, "--format", "foundry"))
    assert "this is a canonical Sightline scene, not a Foundry VTT export" in line


def test_nedb_file_whatever_its_name(tmp_path: Path):
    path = tmp_path / "scenes.txt"
    path.write_text(NEDB, encoding="utf-8")
    scene = json.loads(ok("import", path, "--scene", "A").stdout)
    assert [w["id"] for w in scene["walls"]] == ["w1", "w2"]
    assert json.loads(ok("import", path, "--page", "B").stdout)["walls"] == []
    line = one_line_error(run("import", path))
    assert "pick one with scene=: 'A' (s1), 'B' (s2)" in line


def test_broken_json_says_where(tmp_path: Path):
    path = tmp_path / "bad.db"
    path.write_text(NEDB + "\n{oops", encoding="utf-8")
    line = one_line_error(run("import", path))
    assert "nor a Foundry NeDB file" in line and "line 4 is not valid JSON" in line
