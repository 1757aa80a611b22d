"""All-pairs cover or vision between the tokens of a scene (``POST /v1/matrix``, pure).

A ruleset that provides ``cover_matrix`` (dnd5e) answers cover for all ordered pairs in one
vectorised trace; one that provides ``prefetch_cover`` (starfinder, pf2e-variant) traces
what every pair needs in one vectorised call per kind, then each pair is asked and answers
from those traces (``geometry.batch``). Vision traces the centre lines of
all pairs (line of sight, line of effect, sound) in one vectorised call each, then asks each
pair, which answers from them (``geometry.batch``). Row = attacker (or observer),
column = target; the diagonal is ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from service.errors import RulesError, shown
from service.geometry import batch
from service.model import Token
from service.rules.base import Attack, RuleSystem, SceneGeometry
from service.senses import prefetch_perception


def matrix(
    geo: SceneGeometry,
    system: RuleSystem,
    token_ids: Sequence[str] | None,
    kind: str,
    options: dict[str, Any],
    *,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Cover degrees or vision senses for every ordered pair of tokens.

    Parameters
    ----------
    geo : SceneGeometry
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
    if kind == "cover":
        fast = getattr(system, "cover_matrix", None)
        if fast is not None:
            grid = fast(geo, tokens, options)
            if progress:
                progress(n)
        else:
            with batch():  # what each pair traces, traced for all pairs at once where it can
                prefetch = getattr(system, "prefetch_cover", None)
                if prefetch is not None:
                    prefetch(geo, [(a, t) for a in tokens for t in tokens], options)
                grid = _pairwise(
                    tokens, lambda a, t: system.cover(geo, a, t, Attack(), options).cover, progress
                )
        return {"tokens": [t.id for t in tokens], "cover": grid}
    with batch():  # the centre lines of all pairs in one vectorised trace per sense
        pairs = [(o, t) for o in tokens for t in tokens]
        prefetch_perception(geo, pairs, inset=system.vision_inset(options))
        results = _pairwise(tokens, lambda o, t: system.vision(geo, o, t, options), progress)
    return {
        "tokens": [t.id for t in tokens],
        "vision": [[r.sense if r else None for r in row] for row in results],
        "can_see": [[r.can_see if r else None for r in row] for row in results],
    }


def _tokens(geo: SceneGeometry, token_ids: Sequence[str] | None) -> list[Token]:
    if token_ids is None:
        return list(geo.scene.tokens)
    from service.queries import find_token

    out = []
    seen = set()
    for i, tid in enumerate(token_ids):
        tok = find_token(geo.scene, tid, ("tokens", i))
        if tid in seen:
            raise RulesError(f"Token {shown(tid)} is listed twice.", ("tokens", i))
        seen.add(tid)
        out.append(tok)
    return out


def _pairwise(
    tokens: list[Token], ask: Callable[[Token, Token], Any], progress: Callable[[int], None] | None
) -> list[list[Any]]:
    grid: list[list[Any]] = []
    for i, a in enumerate(tokens):
        grid.append([None if a.id == t.id else ask(a, t) for t in tokens])
        if progress:
            progress(i + 1)
    return grid
