"""The watchdog stopping compiled code answers 503, like anywhere else.

``service.guard``'s ``RequestTimedOut`` raised while a numba function runs leaves it as a
``SystemError`` caused by the timeout (numba's dispatcher wraps it); the error handler must
still answer the overload's 503 with ``Retry-After`` (README "Configuration and limits"),
and any other ``SystemError`` a JSON 500, as any unexpected error.
"""

from __future__ import annotations

import pytest

import service.rules.ask as ask
from service.app import create_app, sample_scene
from service.guard import RequestTimedOut

BODY = {"ruleset": "dnd5e", "attacker": "archer", "targets": ["goblin"]}


def _raising(error: BaseException):  # noqa: ANN202
    def measure(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
        raise error

    return measure


def _compiled_error(cause: BaseException) -> SystemError:
    try:
        try:
            raise cause
        except BaseException as inner:
            raise SystemError(
                "CPUDispatcher(<function _creature_pairs>) returned a result with an exception set"
            ) from inner
    except SystemError as err:
        return err


@pytest.mark.parametrize("cause", [RequestTimedOut(24.0), MemoryError()], ids=["timeout", "memory"])
def test_stopped_compiled_call_is_a_503(
    monkeypatch: pytest.MonkeyPatch, cause: BaseException
) -> None:
    monkeypatch.setattr(ask, "measure", _raising(_compiled_error(cause)))
    resp = create_app().test_client().post("/v1/cover", json={**BODY, "scene": sample_scene()})
    assert resp.status_code == 503
    assert resp.headers.get("Retry-After")
    assert resp.get_json()["code"] == 503


def test_other_system_error_is_a_json_500(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ask, "measure", _raising(SystemError("something else")))
    resp = create_app().test_client().post("/v1/cover", json={**BODY, "scene": sample_scene()})
    assert resp.status_code == 500
    assert resp.get_json()["code"] == 500 and resp.get_json()["message"]
