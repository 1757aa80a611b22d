"""Checks shared by the adapter tests (a plain module: each test file keeps its own data).

Every adapter must turn any export into either a JSON-serialisable result whose scene loads
through the scene schema, or an ``AdapterError``, and must never change its input. The
helpers below run those checks for an adapter's ``to_scene``; the schema's ``load`` is
passed in so that this module does not import marshmallow itself.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable, Collection, Iterable

import pytest

from adapters.errors import AdapterError

Convert = Callable[..., dict]
Load = Callable[[dict], object]


def checked(result: dict, load: Load) -> dict:
    """Check that ``result`` is strict JSON and its scene loads with ``load``; return it."""
    load(result["scene"])
    json.dumps(result, allow_nan=False)
    return result


def assert_adapter_error(to_scene: Convert, export: object, path: tuple, message: str) -> None:
    """Converting ``export`` must raise ``AdapterError`` with exactly this path and message."""
    with pytest.raises(AdapterError) as info:
        to_scene(export)
    assert (info.value.path, info.value.message) == (path, message)


def assert_json_and_input_untouched(to_scene: Convert, raw: dict) -> dict:
    """Convert ``raw``: the input must not change and the result must survive a JSON trip."""
    before = copy.deepcopy(raw)
    result = to_scene(raw)
    assert raw == before
    assert json.loads(json.dumps(result, allow_nan=False)) == result
    return result


# --------------------------------------------------------------------------- fuzz


def odd_params(values: Iterable[object]) -> list:
    """One ``pytest.param`` per odd value, named by its ``repr``."""
    return [pytest.param(v, id=repr(v)) for v in values]


def mutation_paths(doc: object, prefix: tuple = ()) -> list[tuple]:
    """Every key/index path inside ``doc`` (containers and leaves)."""
    paths = []
    if isinstance(doc, dict):
        items = list(doc.items())
    elif isinstance(doc, list):
        items = list(enumerate(doc))
    else:
        items = []
    for key, value in items:
        paths.append((*prefix, key))
        paths.extend(mutation_paths(value, (*prefix, key)))
    return paths


def mutated(doc: dict, where: tuple, value: object) -> dict:
    """A deep copy of ``doc`` with ``value`` at path ``where``."""
    out = copy.deepcopy(doc)
    node = out
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return out


def assert_odd_value_gives_a_result_or_an_adapter_error(
    to_scene: Convert,
    base: dict,
    odd: object,
    *,
    error_roots: Collection[tuple] | None = None,
    load: Load | None = None,
) -> None:
    """Put ``odd`` at every path of ``base`` in turn and convert each document.

    Each conversion must give a strict-JSON result (whose scene loads with ``load`` when
    given) or raise ``AdapterError``: with a path starting with one of ``error_roots``
    when given, else with a non-empty message. At least one conversion must succeed.
    """
    outcomes: Counter[str] = Counter()
    for where in mutation_paths(base):
        try:
            result = to_scene(mutated(base, where, odd))
        except AdapterError as exc:
            if error_roots is None:
                assert isinstance(exc.message, str) and exc.message
            else:
                assert exc.path[:1] in error_roots, (where, exc.path)
            outcomes["error"] += 1
        else:
            json.dumps(result, allow_nan=False)
            if load is not None:
                load(result["scene"])
            outcomes["ok"] += 1
    assert outcomes["ok"] > 0


def assert_odd_values_raise_nothing_else(
    to_scene: Convert,
    base: dict,
    odd_values: Iterable[object],
    *,
    load: Load | None = None,
    skip_keys: Collection[object] = (),
) -> None:
    """Put each odd value at every path of ``base`` (but under ``skip_keys``) and convert.

    Anything but ``AdapterError`` fails the test; a result's scene must load with ``load``
    when given.
    """
    odd_values = list(odd_values)
    for where in mutation_paths(base):
        if where[-1] in skip_keys:
            continue
        for odd in odd_values:
            try:
                result = to_scene(mutated(base, where, odd))
            except AdapterError:
                continue
            if load is not None:
                load(result["scene"])
