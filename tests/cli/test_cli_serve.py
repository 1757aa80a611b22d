"""``sightline serve`` (gunicorn with the service's config), ``--help`` and light imports."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.cli import commands
from tests.cli.helpers import ok, one_line_error, run


def _free_port() -> int:
    """A port nothing listens on now (the serve check refuses a busy one)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_execs_gunicorn_with_the_config(monkeypatch):
    calls = []
    monkeypatch.setattr(commands.os, "execv", lambda exe, args: calls.append((exe, args)))
    bind = f"127.0.0.1:{_free_port()}"
    ok("serve", "--bind", bind, "--workers", "3")
    ((exe, args),) = calls
    assert Path(exe).name == "gunicorn" and args[0] == exe
    assert args[1] == "-c" and args[2].endswith("gunicorn.conf.py")
    assert args[3:] == ["--bind", bind, "--workers", "3", "service.app:create_app()"]


def test_serve_defaults_leave_bind_and_workers_to_the_config(monkeypatch):
    calls = []
    checked = []
    monkeypatch.setattr(commands.os, "execv", lambda exe, args: calls.append(args))
    monkeypatch.setattr(commands, "check_bind", checked.append)
    monkeypatch.delenv("SIGHTLINE_BIND", raising=False)
    monkeypatch.delenv("GUNICORN_CMD_ARGS", raising=False)
    ok("serve")
    assert calls[0][3:] == ["service.app:create_app()"]
    assert checked == ["127.0.0.1:8000"]  # the config's bind, checked first


def test_serve_on_a_busy_port_is_one_line_exit_1(monkeypatch):
    import socket

    monkeypatch.setattr(commands.os, "execv", lambda exe, args: pytest.fail("gunicorn started"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        line = one_line_error(run("serve", "--bind", f"127.0.0.1:{port}"), code=1)
    assert f"cannot serve on 127.0.0.1:{port}: the port is in use" in line
    assert f"make run PORT={port + 10}" in line


def test_help_lists_every_command():
    out = ok("--help").stdout
    for name in ("serve", "import", "cover", "vision", "lighting", "matrix", "render"):
        assert name in out
    assert "0.1.0" in ok("--version").stdout


def test_cli_module_imports_no_heavy_dependency():
    import subprocess
    import sys

    code = (
        "import sys, service.cli; "
        "heavy = {'flask', 'marshmallow', 'shapely', 'numpy'}; "
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
