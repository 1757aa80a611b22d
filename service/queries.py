"""The request → core → answer step of each query, shared by the HTTP API and the CLI.

Each function takes a request body already loaded by its ``schemas.requests`` schema and
the scene's ``BuiltScene``, checks what the schema cannot (token ids, options that the
ruleset does not use), calls the core, and returns the answer before dumping. No Flask:
``service.api`` adds only the service's configured limits, ``service.cli`` runs these
in-process.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from service import rules
from service.engine.scene import BuiltScene
from service.errors import RulesError, UnknownToken, shown
from service.lighting import light_at_points, light_over_token
from service.line_of_effect import Endpoint, LineAnswer, line_between
from service.model import Scene, Token
from service.rules.ask import cover_all, vision_all
from service.rules.base import Attack


def find_token(scene: Scene, token_id: str, path: tuple[str | int, ...]) -> Token:
    """The token ``token_id`` of ``scene``.

    Raises
    ------
    UnknownToken
        Naming the request field ``path`` (HTTP 404).
    """
    tok = scene.token(token_id)
    if tok is None:
        raise UnknownToken(f"No token with id {shown(token_id)} in the scene.", path)
    return tok


def ruleset_options(
    system: rules.RuleSystem, raw: dict[str, Any], path: tuple[str | int, ...] = ("options",)
) -> dict[str, Any]:
    """The options given for ``system`` (unset ones dropped).

    Raises
    ------
    RulesError
        An option the ruleset does not use, naming it.
    """
    given = {k: v for k, v in raw.items() if v not in (None, [])}
    for name in given:
        if name not in system.options:
            raise RulesError(
                f"Option {name!r} does not apply to ruleset {system.id!r}; "
                f"its options: {', '.join(sorted(system.options))}.",
                (*path, name),
            )
    return given


def _token_options(scene: Scene, options: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        for i, tid in enumerate(options.get(name, ())):
            find_token(scene, tid, ("options", name, i))


def _targets(scene: Scene, ids: list[str], source: Token | None) -> list[Token]:
    targets = [find_token(scene, t, ("targets", i)) for i, t in enumerate(ids)]
    for i, tok in enumerate(targets):
        if source is not None and tok.id == source.id:
            raise RulesError("A token cannot be its own target.", ("targets", i))
    return targets


def cover(geo: BuiltScene, args: dict[str, Any]) -> dict[str, Any]:
    """``POST /v1/cover``: each target's cover against the attacker or area origin."""
    system = rules.get(args["ruleset"])
    attacker = None
    if args.get("attacker") is not None:
        attacker = find_token(geo.scene, args["attacker"], ("attacker",))
    targets = _targets(geo.scene, args["targets"], attacker)
    origin = args["attack"].get("origin")
    attack = Attack(args["attack"]["kind"], tuple(origin) if origin else None)  # type: ignore[arg-type]
    options = ruleset_options(system, args["options"])
    _token_options(geo.scene, options, ("take_cover", "partial_cover"))
    answers = cover_all(system, geo, [(attacker, t) for t in targets], attack, options)
    results = [_flag_hidden(geo.scene, r) for r in answers]
    return {"ruleset": system.id, "attacker": args.get("attacker"), "results": results}


def _flag_hidden(scene: Scene, result: Any) -> Any:
    """Say so when a hidden token (GM layer) is among the blockers: players cannot see it."""
    hidden = sorted(
        {
            b.id
            for line in result.lines
            for b in line.blockers
            if b.kind == "token" and (tok := scene.token(b.id)) is not None and tok.hidden
        }
    )
    if not hidden:
        return result
    note = "Hidden tokens block some lines (a GM may rule them out): " + ", ".join(hidden)
    return dataclasses.replace(result, notes=(*result.notes, note))


def vision(geo: BuiltScene, args: dict[str, Any]) -> dict[str, Any]:
    """``POST /v1/vision``: what one observer perceives of each target."""
    system = rules.get(args["ruleset"])
    observer = find_token(geo.scene, args["observer"], ("observer",))
    targets = _targets(geo.scene, args["targets"], observer)
    options = ruleset_options(system, args["options"])
    _token_options(geo.scene, options, ("unnoticed", "was_observing"))
    results = vision_all(system, geo, [(observer, t) for t in targets], options)
    return {"ruleset": system.id, "observer": observer.id, "results": results}


def lighting(geo: BuiltScene, args: dict[str, Any]) -> dict[str, Any]:
    """``POST /v1/lighting``: light at points, then over tokens' spaces."""
    tokens = [find_token(geo.scene, t, ("tokens", i)) for i, t in enumerate(args["tokens"])]
    out: list[dict[str, Any]] = []
    points = args["points"]
    if points:
        samples = light_at_points(geo, np.array(points, dtype=np.float64))
        for point, sample in zip(points, samples, strict=True):
            out.append({"point": point, "token": None, **sample.__dict__})
    for tok in tokens:
        out.append({"point": None, "token": tok.id, **light_over_token(geo, tok).__dict__})
    return {"results": out}


def endpoint(scene: Scene, ref: dict[str, Any], field: str) -> Endpoint:
    """A loaded ``from``/``to`` reference (token id or point) as an ``Endpoint``."""
    if "token" in ref:
        return Endpoint(token=find_token(scene, ref["token"], (field,)))
    return Endpoint(point=(ref["point"][0], ref["point"][1]), elevation=ref["elevation"])


def line(geo: BuiltScene, args: dict[str, Any], sense: str) -> LineAnswer:
    """``POST /v1/line-of-effect`` (``sense="move"``) or ``/v1/line-of-sight``."""
    source = endpoint(geo.scene, args["source"], "from")
    target = endpoint(geo.scene, args["target"], "to")
    effect = args.get("effect") or {}
    if sense == "sight" and effect.get("damage") is not None:
        raise RulesError("Breakthrough applies to line of effect only.", ("effect", "damage"))
    inset = args["options"].get("corner_inset")
    kw: dict[str, Any] = {} if inset is None else {"corner_inset": inset}
    return line_between(geo, source, target, sense, damage=effect.get("damage"), **kw)


def matrix(
    geo: BuiltScene,
    ruleset: str,
    token_ids: list[str] | None,
    kind: str,
    options: dict[str, Any],
    *,
    progress: Any = None,
) -> dict[str, Any]:
    """``POST /v1/matrix`` with options already loaded by the cover or vision schema."""
    from service.matrix import matrix as all_pairs

    system = rules.get(ruleset)
    checked = ruleset_options(system, options)
    result = all_pairs(geo, system, token_ids, kind, checked, progress=progress)
    return {"ruleset": system.id, "kind": kind, **result}
