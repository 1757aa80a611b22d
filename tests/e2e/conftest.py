"""A real gunicorn on 127.0.0.1 (a free port), started once for the e2e tests."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def gunicorn(env: dict[str, str], app: str, logs: Path, wait: float) -> Iterator[dict]:
    """One gunicorn of ``gunicorn.conf.py`` serving ``app`` with ``env`` on a free port.

    Yields ``{"url", "port", "out", "err"}`` (its stdout and stderr files in ``logs``) once
    ``/healthz`` answers; ``RuntimeError`` with its stderr when it stops or passes ``wait``
    seconds first. Stopped (terminated, killed after 10 s) on exit.
    """
    port = _free_port()
    with open(logs / "out", "wb") as out, open(logs / "err", "wb") as err:
        proc = subprocess.Popen(
            [GUNICORN, "-c", "gunicorn.conf.py", "--bind", f"127.0.0.1:{port}", app],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=out,
            stderr=err,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                if requests.get(url + "/healthz", timeout=1).ok:
                    break
            except requests.ConnectionError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((logs / "err").read_text())
            time.sleep(0.2)
        yield {"url": url, "port": port, "out": logs / "out", "err": logs / "err"}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def server_url():
    port = _free_port()
    gunicorn = Path(sys.executable).with_name("gunicorn")
    env = {**os.environ, "SIGHTLINE_WORKERS": "2"}
    log = ROOT / ".pytest_cache"
    log.mkdir(exist_ok=True)
    with open(log / "e2e-gunicorn.log", "wb") as out:
        proc = subprocess.Popen(
            [
                str(gunicorn),
                "-c",
                "gunicorn.conf.py",
                "--bind",
                f"127.0.0.1:{port}",
                "service.app:create_app()",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(url + "/healthz", timeout=1).ok:
                    break
            except (requests.ConnectionError, requests.Timeout):  # bound, still warming up
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not start; see {log / 'e2e-gunicorn.log'}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
