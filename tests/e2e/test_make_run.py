"""`make run` on another port, for real (issue 17 item 2).

``make run PORT=…`` and ``SIGHTLINE_BIND=… make run`` reach gunicorn on that port with the
sample scene; a busy port is an immediate, clear error naming another port; Ctrl-C (SIGINT
to the whole foreground group, as a terminal sends it) stops it without make's
``*** Interrupt`` noise.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(sys.prefix)

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(autouse=True)
def installed():
    if shutil.which("make") is None or shutil.which("flock") is None:
        pytest.skip("make or flock is not installed")
    if not (VENV / "bin" / ".sightline-runtime").exists():
        pytest.skip(f"{VENV} was not made by `make install`: `make run` would install into it")


def _make_run(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        ["make", "--no-print-directory", "run", f"VENV={VENV}", *args],
        cwd=ROOT,
        env={**os.environ, "SIGHTLINE_WORKERS": "1", **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        text=True,
    )


def _wait_healthy(proc: subprocess.Popen, url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"make run exited {proc.returncode}: {proc.stdout.read()[-2000:]}")
        try:
            if requests.get(url + "/healthz", timeout=1).ok:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.2)
    pytest.fail("make run did not answer within 60 s")


def _interrupt(proc: subprocess.Popen) -> str:
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    return out


def test_make_run_port_reaches_gunicorn_and_ctrl_c_is_quiet():
    port = _free_port()
    proc = _make_run(f"PORT={port}")
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(proc, url)
        body = {
            "ruleset": "dnd5e",
            "scene_id": "sample",
            "attacker": "archer",
            "targets": ["goblin"],
        }
        answer = requests.post(url + "/v1/cover", json=body, timeout=30)
        assert answer.json()["results"][0]["cover"] == "half"  # README's example
    finally:
        out = _interrupt(proc)
    assert f"Listening at: http://127.0.0.1:{port}" in out
    # issue 17 item 6: a control socket of its own (gunicorn.conf.py), not the shared default
    assert re.search(r"Control socket listening at \S+/sightline-\d+\.ctl", out), out[-1000:]
    assert "Interrupt" not in out and "make: ***" not in out, out[-1000:]
    # make re-raises SIGINT on itself, as a Ctrl-C'd program should: the shell prints nothing
    assert proc.returncode in (0, -signal.SIGINT)


def test_make_run_with_two_workers_answers_an_id_uploaded_once(tmp_path, monkeypatch):
    """No Redis: the workers share scenes through their SQLite file in the runtime directory,
    so 100 queries by an id uploaded once never meet a 404; Ctrl-C removes the file."""
    monkeypatch.delenv("SIGHTLINE_REDIS_URL", raising=False)
    monkeypatch.delenv("SIGHTLINE_SCENE_FILE", raising=False)
    port = _free_port()
    env = {"SIGHTLINE_WORKERS": "2", "XDG_RUNTIME_DIR": str(tmp_path)}
    proc = _make_run(f"PORT={port}", env=env)
    url = f"http://127.0.0.1:{port}"
    scene = {  # README's example
        "grid": {"size": 100},
        "walls": [{"id": "w1", "c": [250, -100, 250, 60]}],
        "tokens": [{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 400, "y": 0}],
    }
    try:
        _wait_healthy(proc, url)
        assert len(list(tmp_path.glob("sightline-*.scenes"))) == 1
        sid = requests.post(url + "/v1/scenes", json={"scene": scene}, timeout=30).json()
        body = {"ruleset": "dnd5e", "scene_id": sid["scene_id"], "attacker": "A", "targets": ["T"]}
        statuses = [
            requests.post(url + "/v1/cover", json=body, timeout=30).status_code for _ in range(100)
        ]
    finally:
        out = _interrupt(proc)
    assert statuses.count(404) == 0 and set(statuses) == {200}, statuses
    assert "Booting worker" in out and out.count("Booting worker") >= 2, out[-1000:]
    assert list(tmp_path.glob("sightline-*.scenes*")) == [], out[-1000:]


@pytest.mark.slow
def test_sightline_bind_is_honoured_by_make_run():
    port = _free_port()
    proc = _make_run(env={"SIGHTLINE_BIND": f"127.0.0.1:{port}"})
    try:
        _wait_healthy(proc, f"http://127.0.0.1:{port}")
    finally:
        _interrupt(proc)


def test_a_busy_port_is_said_at_once():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = _make_run(f"PORT={port}")
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert f"cannot serve on 127.0.0.1:{port}: the port is in use" in out
    assert f"make run PORT={port + 10}" in out
    assert "Can't connect" not in out  # gunicorn never started its 5 s of retries
