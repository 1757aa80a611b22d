"""The CLI recognises canonical scenes and reads NeDB files (issue 17 items 1, 9, 10).

``sightline import`` of a canonical scene gives it back unchanged (it used to be read as a
Foundry v10 export: ids renamed, doors lost, exit 0); an explicit ``--format`` that the file
does not match is an error saying what the file is; a Foundry NeDB ``.db`` is read whatever
its name, and ``--scene`` (or ``--page``) picks one scene.
"""

from __future__ import annotations

import json
from pathlib import Path

from service.app import sample_scene
from tests.api.test_imports_issue17 import NEDB
from tests.test_cli import ok, one_line_error, run


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
