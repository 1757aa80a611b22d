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


def what_to_do(client: SightlineClient, err: SightlineError) -> str:
    """What the user can do about ``err`` in one sentence, or ``""``.

    No server on the port: how to start one, or to answer without ``--url``. A 401: the
    ``--api-key`` to give (or that the one given is not the server's). A timeout: ``--timeout``.
    """
    if err.code == 401:
        if client.api_key:
            return (
                "the key given with --api-key (or SIGHTLINE_API_KEY) is not one of the "
                "server's SIGHTLINE_API_KEYS."
            )
        return "give the server's key with --api-key KEY (or the SIGHTLINE_API_KEY variable)."
    if err.code == 0 and err.status == "Timeout":
        return "the server did not answer in time: allow longer with --timeout SECONDS."
    if err.code == 0 and "refused" in err.message.lower():
        host, _, port = client.base_url.split("://", 1)[-1].split("/", 1)[0].rpartition(":")
        bind = f"{host or '127.0.0.1'}:{port or '8000'}"
        return (
            f"no Sightline is listening there. Start one with `sightline serve --bind {bind}` "
            f"(or `make run PORT={port or 8000}` in a checkout), or leave out --url (and "
            "SIGHTLINE_URL) to answer on this machine."
        )
    return ""


@contextmanager
def server_errors(client: SightlineClient) -> Iterator[None]:
    """Turn a :class:`SightlineError` into :class:`CliError` (4xx: exit 2, else 1).

    The line ends with what to do when that is known (:func:`what_to_do`).
    """
    try:
        yield
    except SightlineError as err:
        error = CliError if 400 <= err.code < 500 else CliFailure
        hint = what_to_do(client, err)
        text = f"server {client.base_url}: {err.describe()}"
        raise error(f"{text} {hint[0].upper()}{hint[1:]}" if hint else text) from None


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
                self.scene,
                points=body.get("points", ()),
                tokens=body.get("tokens", ()),
                ruleset=body.get("ruleset"),
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
