"""compose.yaml and deploy/nginx.conf agree with each other and with the service (scaling out).

No Docker engine is needed: compose.yaml is parsed with PyYAML and its services, ports and
settings are checked against the nginx config and ``service.settings`` (each value valid);
``nginx -t`` checks the config itself when nginx is installed (upstream names, which only
Docker's DNS resolves, rewritten to 127.0.0.1). nginx really runs in
tests/e2e/test_store_replicas.py.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
import yaml

from bench import servers
from service import settings

ROOT = servers.ROOT


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


@pytest.fixture(scope="module")
def nginx_conf() -> str:
    return servers.NGINX_CONF.read_text()


def replicas(compose: dict) -> dict[str, dict]:
    return {k: s for k, s in compose["services"].items() if s.get("build") == "."}


def test_redis_and_at_least_two_replicas_from_the_dockerfile(compose):
    services = compose["services"]
    assert set(services) >= {"redis", "nginx"}
    assert services["redis"]["image"].startswith("redis:")
    command = services["redis"]["command"]
    assert command[0] == "redis-server"
    options = dict(zip(command[1::2], command[2::2], strict=True))
    assert options["--save"] == ""  # a cache: no snapshots
    assert options["--maxmemory-policy"].endswith("-lru")  # Redis' own eviction
    assert len(replicas(compose)) >= 2
    assert (ROOT / "Dockerfile").exists()


def test_replicas_point_at_the_redis_service_with_known_settings(compose):
    redis_port = int(compose["services"]["redis"]["expose"][0])
    for name, svc in replicas(compose).items():
        env = svc["environment"]
        url = urlsplit(env["SIGHTLINE_REDIS_URL"])
        assert url.scheme == "redis" and url.hostname == "redis", name
        assert url.port == redis_port
        for key in env:
            assert key.startswith("SIGHTLINE_"), key
            setting = key.removeprefix("SIGHTLINE_")
            assert setting in settings.BY_NAME, key
        settings.load(env, scope="all")  # every value passes the start-up check
        assert int(env["SIGHTLINE_SCENE_TTL"]) > 0
        port = env["SIGHTLINE_BIND"].rsplit(":", 1)[1]
        assert port in svc["expose"], name
        assert "ports" not in svc, f"{name}: replicas are reached through nginx only"
        assert svc["depends_on"]["redis"]["condition"] == "service_healthy"


def test_nginx_service_mounts_the_config_and_balances_every_replica(compose, nginx_conf):
    nginx = compose["services"]["nginx"]
    source, target, *_ = nginx["volumes"][0].split(":")
    assert (ROOT / source).resolve() == servers.NGINX_CONF
    assert target == "/etc/nginx/nginx.conf"
    published, inside = nginx["ports"][0].split(":")
    assert int(inside) == servers.listen_port(nginx_conf)
    assert int(published) == 8000
    expected = {
        f"{name}:{svc['environment']['SIGHTLINE_BIND'].rsplit(':', 1)[1]}"
        for name, svc in replicas(compose).items()
    }
    assert set(servers.upstream_servers(nginx_conf)) == expected
    assert set(nginx["depends_on"]) == set(replicas(compose))


def _size(text: str) -> int:
    number, unit = re.fullmatch(r"(\d+)([kKmM]?)", text).groups()  # type: ignore[union-attr]
    return int(number) * {"": 1, "k": 1024, "m": 1024 * 1024}[unit.lower()]


def test_nginx_buffers_and_outwaits_the_service(nginx_conf):
    def directive(name: str) -> str:
        found = re.findall(rf"^\s*{name}\s+([^;]+);", nginx_conf, flags=re.M)
        assert len(found) == 1, name
        return found[0].strip()

    assert directive("proxy_request_buffering") == "on"
    assert directive("proxy_buffering") == "on"
    max_body = settings.BY_NAME["MAX_CONTENT_LENGTH"].default
    assert _size(directive("client_max_body_size")) >= max_body
    worker_timeout = 30  # gunicorn.conf.py's default SIGHTLINE_WORKER_TIMEOUT
    assert int(directive("proxy_read_timeout").rstrip("s")) > worker_timeout


def test_local_rewrite_keeps_everything_but_the_addresses(nginx_conf):
    local = servers.local_nginx_conf(["127.0.0.1:1", "127.0.0.1:2"], 3)
    assert servers.upstream_servers(local) == ["127.0.0.1:1", "127.0.0.1:2"]
    assert "listen 127.0.0.1:3;" in local
    assert len(local.splitlines()) == len(nginx_conf.splitlines())
    one = servers.local_nginx_conf(["127.0.0.1:1"], 3)  # one replica behind the same proxy
    assert servers.upstream_servers(one) == ["127.0.0.1:1"]
    assert len(one.splitlines()) == len(nginx_conf.splitlines()) - 1
    with pytest.raises(ValueError):
        servers.local_nginx_conf(["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"], 3)


def test_nginx_accepts_the_config(tmp_path):
    if servers.NGINX is None:
        pytest.skip("nginx not installed (apt-get install -y nginx): `nginx -t` skipped")
    local = servers.local_nginx_conf(["127.0.0.1:8001", "127.0.0.1:8002"], servers.free_port())
    done = servers.nginx_test(local, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr
    broken = servers.nginx_test(local.replace("proxy_buffering on;", "proxy_buffering;"), tmp_path)
    assert broken.returncode != 0  # the check can fail
