"""All-pairs cover or vision between the tokens of a scene (``POST /v1/matrix``, pure).

Every ruleset's matrix runs the code of a single question (``service.rules.ask``): all
pairs are measured in one call, then each pair is ruled on. Row = attacker (or observer),
column = target; the diagonal is ``None``.

Cost: O(tokens^2) pairs, each O(lines x walls near them) in the vectorised measurement.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import permutations
from typing import Any

from service.engine.budget import WorkBudget
from service.engine.scene import BuiltScene, find_token
from service.errors import RulesError, shown
from service.model import Token
from service.rules.ask import degrees_all, located_all
from service.rules.base import Attack, RuleSystem


def matrix(
    geo: BuiltScene,
    system: RuleSystem,
    token_ids: Sequence[str] | None,
    kind: str,
    options: dict[str, Any],
    *,
    progress: Callable[[int], None] | None = None,
    budget: WorkBudget | None = None,
) -> dict[str, Any]:
    """Cover degrees or vision senses for every ordered pair of tokens.

    Parameters
    ----------
    geo : BuiltScene
    system : RuleSystem
    token_ids : sequence of str or None
        Tokens to include, in this order; ``None`` for every token of the scene.
    kind : {"cover", "vision"}
    options : dict
        The ruleset's options (as for ``/v1/cover`` or ``/v1/vision``).
    progress : callable, optional
        Called with the number of rows done (for a progress bar).

    Returns
    -------
    dict
        ``{"tokens": [ids], "cover": [[degree or None]]}`` for cover;
        ``{"tokens": [ids], "vision": [[sense or None]], "can_see": [[bool or None]]}``.

    Raises
    ------
    RulesError
        An unknown or repeated token id (path ``tokens.<i>``).
    """
    tokens = _tokens(geo, token_ids)
    n = len(tokens)
    pairs = list(permutations(tokens, 2))  # every ordered pair of two (the ids are distinct)
    if kind == "cover":
        degrees = degrees_all(system, geo, pairs, Attack(), options, budget=budget)
        grid = _grid(tokens, list(degrees))
        if progress:
            progress(n)
        return {"tokens": [t.id for t in tokens], "cover": grid}
    senses, can_see = located_all(system, geo, pairs, options, budget)
    if progress:
        progress(n)
    return {
        "tokens": [t.id for t in tokens],
        "vision": _grid(tokens, senses),
        "can_see": _grid(tokens, can_see),
    }


def _tokens(geo: BuiltScene, token_ids: Sequence[str] | None) -> list[Token]:
    if token_ids is None:
        return list(geo.scene.tokens)
    out = []
    seen = set()
    for i, tid in enumerate(token_ids):
        tok = find_token(geo.scene, tid, ("tokens", i))
        if tid in seen:
            raise RulesError(f"Token {shown(tid)} is listed twice.", ("tokens", i))
        seen.add(tid)
        out.append(tok)
    return out


def _grid(tokens: list[Token], values: list[Any]) -> list[list[Any]]:
    """Row-major ``values`` of the off-diagonal pairs as a square grid, ``None`` on the diagonal."""
    it = iter(values)
    return [[None if a.id == t.id else next(it) for t in tokens] for a in tokens]
