"""What the command-line tests share: running ``sightline`` with click's CliRunner."""

from __future__ import annotations

import json

from click.testing import CliRunner

from service import cli

DELIAN = ("foundry", "foundry-v10-delian-tomb.json")
# Delian Tomb: a goblin with one of its four paired-corner lines through another goblin.
GOBLIN_A, GOBLIN_B, GOBLIN_BETWEEN = "vTb2FbAEQ4QQcZAA", "bNmhsTCeyRtXVwRs", "dzhJEKL8ieyyB4hm"


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli.main, [str(a) for a in args], input=input)


def ok(*args: str):
    result = run(*args)
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def as_json(*args: str):
    return json.loads(ok(*args, "--json").stdout)


def one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("sightline: error: ")
    assert result.stdout == ""
    return lines[0]


def post(api, path: str, body: dict) -> dict:
    resp = api.post(path, json=body)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()
