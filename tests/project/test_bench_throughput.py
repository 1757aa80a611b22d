"""The throughput bench (``bench.run --only throughput``) without timing anything.

What it sends and how it reads wrk; without wrk it says so instead of failing. No speed is
asserted here (the numbers are the bench's to print).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bench import run


def test_skips_with_a_clear_message_without_wrk(monkeypatch, capsys) -> None:
    """No wrk on the machine: ``out["throughput"]["skipped"]`` and stderr say how to get it."""
    monkeypatch.setattr(run, "WRK", None)
    out: dict = {}
    run.measure_throughput({"this": run.ROOT}, out)
    assert "wrk is not installed" in out["throughput"]["skipped"]
    assert "apt-get install -y wrk" in capsys.readouterr().err


def test_wrk_script_posts_the_sample_cover_as_json(tmp_path: Path) -> None:
    """The Lua script POSTs ``SAMPLE_COVER`` (the preloaded sample scene, one target) as JSON."""
    text = run.wrk_script(tmp_path, run.SAMPLE_COVER).read_text()
    assert 'wrk.method = "POST"' in text
    assert 'wrk.headers["Content-Type"] = "application/json"' in text
    body = re.search(r"\[==\[(.*)\]==\]", text)
    assert body is not None
    assert json.loads(body.group(1)) == run.SAMPLE_COVER
    assert run.SAMPLE_COVER["scene_id"] == "sample"
    assert len(run.SAMPLE_COVER["targets"]) == 1


def test_wrk_output_is_read(monkeypatch) -> None:
    """``run_wrk`` reads requests/s and counts, and refuses a run with non-2xx answers."""
    monkeypatch.setattr(run, "WRK", "wrk")  # wrk's output given below: wrk itself not run

    class Done:
        def __init__(self, stdout: str) -> None:
            self.stdout = stdout

    ok = "  1081 requests in 3.01s, 0.90MB read\nRequests/sec:    358.61\n"
    monkeypatch.setattr(run.subprocess, "run", lambda *a, **k: Done(ok))
    got = run.run_wrk("http://127.0.0.1:1/healthz", 3, 16)
    assert got == {"rps": 358.61, "requests": 1081, "socket_errors": None}
    bad = ok + "  Non-2xx or 3xx responses: 12\n"
    monkeypatch.setattr(run.subprocess, "run", lambda *a, **k: Done(bad))
    with pytest.raises(RuntimeError, match="did not answer 2xx"):
        run.run_wrk("http://127.0.0.1:1/v1/cover", 3, 16)
