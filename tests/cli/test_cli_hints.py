"""The command line says what to do: no server on --url, a 401, a ruleset or option typo."""

from __future__ import annotations

import socket

import pytest

from service.cli import remote
from service.cli.errors import CliError
from service.client import SightlineClient, SightlineError
from tests.cli.helpers import one_line_error, run


def free_port() -> int:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_dead_port_says_what_to_run(sample):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    line = one_line_error(
        run("cover", sample, "-r", "dnd5e", "-a", "archer", "-t", "goblin", "--url", url), 1
    )
    assert f"sightline serve --bind 127.0.0.1:{port}" in line
    assert f"make run PORT={port}" in line and "leave out --url" in line


@pytest.mark.parametrize(
    ("key", "words"),
    [(None, "give the server's key with --api-key"), ("wrong", "the key given with --api-key")],
)
def test_a_401_names_the_api_key_option(key, words):
    client = SightlineClient("http://127.0.0.1:1", api_key=key)
    err = SightlineError(401, "Unauthorized", "A valid API key is required.")
    with pytest.raises(CliError) as raised, remote.server_errors(client):
        raise err
    assert words.capitalize() in raised.value.message
    assert raised.value.exit_code == 2


def test_a_ruleset_typo_is_the_options_not_the_files(sample):
    line = one_line_error(run("cover", sample, "-r", "dnd5", "-a", "archer", "-t", "goblin"))
    assert line.startswith("sightline: error: --ruleset: Unknown ruleset 'dnd5'")
    assert str(sample) not in line


def test_an_option_typo_names_the_nearest_option(sample):
    line = one_line_error(
        run(
            "cover",
            sample,
            "-r",
            "dnd5e",
            "-a",
            "archer",
            "-t",
            "goblin",
            "--option",
            "cover_metod=dmg-corner",
        )
    )
    assert line.startswith("sightline: error: --option:") and "'cover_method'" in line
    assert str(sample) not in line


def test_an_unknown_token_suggests_the_nearest(sample):
    """The API's did-you-mean (schemas.suggest.token_hint) in the one-line error."""
    line = one_line_error(run("cover", sample, "-r", "dnd5e", "-a", "archr", "-t", "goblin"))
    assert "--attacker 'archr': no token with that id or name in the scene" in line
    assert "(did you mean 'archer'?)" in line
    line = one_line_error(run("cover", sample, "-r", "dnd5e", "-a", "archer", "-t", "dragon"))
    assert "did you mean" not in line
