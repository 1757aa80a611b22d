"""Real servers on 127.0.0.1 for the store bench and tests: redis-server, gunicorn, nginx.

- ``RedisServer``: Debian's ``redis-server`` on a free port, a temporary directory, no
  persistence (``--save ''``), so a restart comes back empty;
- ``start_gunicorn``: ``gunicorn -c gunicorn.conf.py 'service.app:create_app()'`` with
  ``SIGHTLINE_*`` settings, ready once ``/healthz`` answers;
- ``Nginx``: the project's own ``deploy/nginx.conf`` with its upstream servers and listen
  port rewritten to local ones (``local_nginx_conf``): the file compose.yaml mounts is the
  file that runs here.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import redis
import requests

ROOT = Path(__file__).resolve().parent.parent
NGINX_CONF = ROOT / "deploy" / "nginx.conf"


def _find(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    return next((p for d in ("/usr/sbin", "/usr/bin") if Path(p := f"{d}/{name}").exists()), None)


REDIS_SERVER = _find("redis-server")
NGINX = _find("nginx")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class RedisServer:
    """One ``redis-server`` on ``127.0.0.1:port`` with its data in ``directory``.

    ``stop`` and ``start`` keep the port (the URL stays valid). Raises ``RuntimeError`` when
    ``redis-server`` is not installed (``REDIS_SERVER is None``) or does not start.
    """

    def __init__(self, directory: Path) -> None:
        if REDIS_SERVER is None:
            raise RuntimeError("redis-server is not installed (apt-get install -y redis-server)")
        self.directory = Path(directory)
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        assert REDIS_SERVER is not None
        args = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory)]
        args += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
        args += ["--logfile", str(self.directory / "redis.log")]
        self.proc = subprocess.Popen(
            [REDIS_SERVER, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        client = redis.Redis(port=self.port, socket_timeout=1, socket_connect_timeout=1)
        deadline = time.monotonic() + 15
        try:
            while True:
                try:
                    if client.ping():
                        return
                except redis.ConnectionError:
                    pass
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    log = self.directory / "redis.log"
                    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                    self.stop()
                    raise RuntimeError(f"redis-server did not start on {self.port}:\n{tail}")
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)
            self.proc = None

    def client(self) -> redis.Redis:
        """A plain redis-py client, to look at what the service stored."""
        return redis.Redis(port=self.port, socket_timeout=2, socket_connect_timeout=2)


def start_gunicorn(
    env: dict[str, str],
    log: Path | None = None,
    port: int | None = None,
    root: Path = ROOT,
    wait: float = 60,
    app: str = "service.app:create_app()",
) -> tuple[subprocess.Popen[bytes], str]:
    """gunicorn serving Sightline on 127.0.0.1 with ``env`` added; its process and URL.

    ``root``: the checkout whose ``gunicorn.conf.py`` and packages are served (gunicorn puts
    its working directory first on ``sys.path``), this one by default; another checkout
    (``git worktree add``) serves that version with this environment's dependencies.
    ``wait``: seconds to wait for ``/healthz`` (a checkout served the first time compiles
    its kernels first); ``RuntimeError`` past it. ``app``: the WSGI app gunicorn loads (the
    service's, or one of the benches' and tests' that add routes to it).
    """
    port = port or free_port()
    out = open(log, "wb") if log is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        proc = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "-c",
                "gunicorn.conf.py",
                "--bind",
                f"127.0.0.1:{port}",
                *([] if log is not None else ["--access-logfile", "/dev/null"]),
                app,
            ],
            cwd=root,
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    finally:
        if log is not None:
            out.close()  # type: ignore[union-attr]
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + wait
    while True:
        try:
            if requests.get(url + "/healthz", timeout=1).ok:
                return proc, url
        except requests.ConnectionError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            _stop(proc)
            raise RuntimeError(f"gunicorn did not start (log: {log})")
        time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate a server started here, and wait for it."""
    _stop(proc)


def upstream_servers(conf: str) -> list[str]:
    """``host:port`` of each ``server`` line of the config's ``upstream`` blocks."""
    servers = []
    for block in re.findall(r"upstream\s+\w+\s*\{(.*?)\}", conf, flags=re.S):
        servers += re.findall(r"^\s*server\s+([^\s;]+)", block, flags=re.M)
    return servers


def listen_port(conf: str) -> int:
    """The port of the config's (one) ``listen`` directive."""
    return int(re.search(r"^\s*listen\s+(\d+)", conf, flags=re.M).group(1))  # type: ignore[union-attr]


def local_nginx_conf(upstreams: list[str], listen: int, conf: str | None = None) -> str:
    """``deploy/nginx.conf`` pointed at local servers; logs off (stdout is the caller's).

    The first ``len(upstreams)`` upstream servers become ``upstreams`` (in order), the
    others are left out (one replica behind the same proxy); the listen port becomes
    ``listen`` on 127.0.0.1. ``ValueError`` when more upstreams are given than configured.
    """
    text = NGINX_CONF.read_text() if conf is None else conf
    names = upstream_servers(text)
    if not 0 < len(upstreams) <= len(names):
        raise ValueError(f"{len(names)} upstream servers in the config, {len(upstreams)} given")
    for i, name in enumerate(names):
        line = rf"(^\s*server\s+){re.escape(name)}\b"
        if i < len(upstreams):
            text = re.sub(line, rf"\g<1>{upstreams[i]}", text, flags=re.M)
        else:
            text = re.sub(line + r"[^;]*;[^\n]*\n", "", text, flags=re.M)
    text = re.sub(r"^(\s*listen\s+)\d+", rf"\g<1>127.0.0.1:{listen}", text, flags=re.M)
    text = re.sub(r"^(\s*access_log\s+)\S+;", r"\g<1>off;", text, flags=re.M)
    return text


def nginx_test(conf_text: str, directory: Path) -> subprocess.CompletedProcess[str]:
    """``nginx -t`` of a config text (written in ``directory``); the completed process."""
    assert NGINX is not None
    conf = Path(directory) / "nginx.conf"
    conf.write_text(conf_text)
    return subprocess.run(
        [NGINX, "-t", "-e", "stderr", "-p", str(directory), "-c", str(conf), "-g", _pid(directory)],
        capture_output=True,
        text=True,
        timeout=30,
    )


def _pid(directory: Path) -> str:
    return f"pid {Path(directory) / 'nginx.pid'};"


class Nginx:
    """nginx in the foreground with ``deploy/nginx.conf`` pointed at local upstreams."""

    def __init__(self, upstreams: list[str], directory: Path) -> None:
        if NGINX is None:
            raise RuntimeError("nginx is not installed (apt-get install -y nginx)")
        self.directory = Path(directory)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.conf = self.directory / "nginx.conf"
        self.conf.write_text(local_nginx_conf(upstreams, self.port))
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        assert NGINX is not None
        with open(self.directory / "error.log", "wb") as log:
            where = ["-p", str(self.directory), "-c", str(self.conf)]
            self.proc = subprocess.Popen(
                [NGINX, "-e", "stderr", *where, "-g", _pid(self.directory) + " daemon off;"],
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        deadline = time.monotonic() + 15
        while True:
            try:
                requests.get(self.url + "/healthz", timeout=1)
                return
            except requests.ConnectionError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"nginx did not start; see {self.directory / 'error.log'}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)
            self.proc = None
