"""The command-line examples work on a checkout alone: README's, ``sightline --help``'s, docs'.

A newcomer copies an example and runs it from a fresh clone, with no ``../shared`` beside it:
every example names the bundled sample scene (SCENE ``sample``, or
``service/data/sample-scene.json``) or a placeholder in capitals (``EXPORT``), never a file
outside the repository. The examples of ``sightline --help`` and of README's command-line
block are run here, from an empty directory, and must answer (exit 0).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from tests.cli.helpers import run

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Options whose value is a file the command writes (not one it must find).
WRITES = {"-o", "--output"}


def help_examples() -> list[list[str]]:
    """The command lines of ``sightline --help``'s Examples, without ``sightline``."""
    text = run("--help").output
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("sightline ")]
    return [shlex.split(ln)[1:] for ln in lines]


def doc_examples() -> list[tuple[str, list[str]]]:
    """``(where, args)`` of each ``sightline`` command in the code blocks of README and docs."""
    found = []
    for page in DOCS:
        fenced = False
        for line in page.read_text("utf-8").splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            match = re.match(r"\s*(?:\.venv/bin/)?sightline (.*)", line) if fenced else None
            if match:
                args = shlex.split(match.group(1), comments=True)
                found.append((f"{page.name}: {line.strip()}", args))
    return found


def files_named(args: list[str]) -> list[str]:
    """The arguments that name a file to read: neither options, their written files, ids."""
    out = []
    for before, arg in zip(["", *args], args, strict=False):
        if arg.startswith("-") or before in WRITES:
            continue
        if "/" in arg or arg.endswith((".json", ".db", ".dd2vtt", ".uvtt")):
            out.append(arg)
    return out


def test_there_are_examples():
    assert len(help_examples()) >= 5
    assert len(doc_examples()) >= 5


def test_no_example_names_a_file_outside_the_checkout():
    examples = [("sightline --help", a) for a in help_examples()] + doc_examples()
    for where, args in examples:
        for name in files_named(args):
            assert "../" not in name and not name.startswith("/work"), where
            if not name.startswith("/tmp/"):
                assert (ROOT / name).is_file(), f"{where}: {name} is not in the checkout"


def _runnable(args: list[str]) -> bool:
    """Not ``serve`` (it replaces the process), and no placeholder (``EXPORT``) to fill in."""
    return args[0] != "serve" and not any(a.isupper() and len(a) > 2 for a in args)


@pytest.mark.parametrize("args", [a for a in help_examples() if _runnable(a)], ids=" ".join)
def test_the_help_examples_answer_from_an_empty_directory(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 0, (result.output, result.exception)


@pytest.mark.parametrize(
    ("where", "args"), [e for e in doc_examples() if _runnable(e[1])], ids=lambda v: str(v)[:60]
)
def test_the_readme_examples_answer_from_the_checkout(where, args, tmp_path):
    """README's lines run from the checkout's root (their relative paths) and write to /tmp."""
    args = [str(tmp_path / Path(a).name) if a.startswith("/tmp/") else a for a in args]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = run(*args)
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, (where, result.output, result.exception)
