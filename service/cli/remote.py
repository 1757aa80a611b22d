"""The remote backend: answers through a Sightline server (``--url``).

Each method takes the HTTP request body without its scene, sends it with
:class:`service.client.SightlineClient` (the scene uploaded once, resent after a 404) and
returns the server's JSON answer. A server error becomes one line: 4xx exit 2, else 1.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from service.cli.errors import CliError, CliFailure
from service.client import SightlineClient, SightlineError


def connect(url: str, api_key: str | None, timeout: float) -> SightlineClient:
    """A client of the server at ``url`` (``timeout`` in seconds)."""
    return SightlineClient(url, api_key=api_key, timeout=timeout)


@contextmanager
def server_errors(client: SightlineClient) -> Iterator[None]:
    """Turn a :class:`SightlineError` into :class:`CliError` (4xx: exit 2, else 1)."""
    try:
        yield
    except SightlineError as err:
        error = CliError if 400 <= err.code < 500 else CliFailure
        raise error(f"server {client.base_url}: {err.describe()}") from None


def import_remote(
    client: SightlineClient,
    export: Any,
    fmt: str,
    page: str | None,
    scene: str | None,
    where: str,
) -> dict[str, Any]:
    """Translate an export with the server's ``POST /v1/import/<format>``.

    The server sniffs ``auto`` itself (a canonical scene comes back unchanged). Returns
    ``{"scene", "stats", "warnings"}``.
    """
    del where  # the server's answer names the problem; kept for the local twin's signature
    with server_errors(client):
        result: dict[str, Any] = client.import_export(fmt, export, page=page, scene=scene)
    result.setdefault("stats", {}).setdefault("format", fmt)
    return result


class Remote:
    """Answers through a server; ``scene`` is the canonical scene dict."""

    def __init__(self, client: SightlineClient, scene: Mapping[str, Any]) -> None:
        self.client = client
        self.scene = scene

    def cover(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/cover``."""
        with server_errors(self.client):
            return self.client.cover(
                body["ruleset"],
                self.scene,
                body.get("attacker"),
                body["targets"],
                attack=body.get("attack"),
                options=body.get("options"),
            )

    def vision(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/vision``."""
        with server_errors(self.client):
            return self.client.vision(
                body["ruleset"],
                self.scene,
                body["observer"],
                body["targets"],
                options=body.get("options"),
            )

    def lighting(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/lighting``."""
        with server_errors(self.client):
            return self.client.lighting(
                self.scene, points=body.get("points", ()), tokens=body.get("tokens", ())
            )

    def matrix(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/matrix``."""
        with server_errors(self.client):
            return self.client.matrix(
                body["ruleset"],
                self.scene,
                body.get("tokens"),
                body.get("kind", "cover"),
                options=body.get("options"),
            )

    def render(self, query: Mapping[str, Any] | None) -> str:
        """``POST /v1/render``: the SVG text."""
        with server_errors(self.client):
            return self.client.render(self.scene, query)
