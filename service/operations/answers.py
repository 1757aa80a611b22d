"""The answering operations: one function per question of the API.

Each takes the built scene (``None`` for the scene-free modifiers) and the request as its
schema loaded it (``schemas.requests`` / ``schemas.modifiers``), asks the core
(``service.rules.ask``, ``service.lighting``, ``service.line_of_effect``,
``service.matrix``, the rulesets' modifiers) and returns the answer that the response schema
of :data:`service.operations.OPERATIONS` dumps. The ``prepare_*`` steps are the checks an
operation makes before its scene is resolved.

No Flask here. Errors: ``RulesError`` (422) and ``UnknownToken`` (404) of
``service.errors``; ``OverBudget`` (422) past the request's work budget (``docs/decisions.md``
"Bounded work").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np

from schemas import requests as rq
from service import rules
from service.citations import light_rules
from service.engine.budget import WorkBudget
from service.engine.scene import BuiltScene, find_token
from service.errors import RulesError
from service.lighting import (
    light_at_points,
    light_over_token,
    refuse_early,
    shining_lights,
    silent_light_notes,
    silent_notes_at,
    token_sample_points,
)
from service.line_of_effect import Endpoint, LineAnswer, line_between
from service.matrix import matrix as all_pairs
from service.model import Scene
from service.operations.options import (
    KIND_SCHEMAS,
    TOKEN_OPTIONS,
    check_corner_inset,
    check_token_options,
    find_targets,
    load_options,
    ruleset_options,
)
from service.rules.ask import cover_all, vision_all
from service.rules.base import Attack, FlankingRule
from service.rules.dnd5e import gravity as dnd5e_gravity
from service.rules.dnd5e import underwater as dnd5e_underwater
from service.rules.options import unknown_conditions
from service.rules.pf2e_variant import range_increments as pf2e_range
from service.rules.starfinder import gravity as sf_gravity

__all__ = [
    "cover",
    "endpoint",
    "flanking",
    "gravity",
    "lighting",
    "line_of_effect",
    "line_of_sight",
    "matrix",
    "prepare_flanking",
    "prepare_known_ruleset",
    "prepare_matrix",
    "range_bands",
    "underwater",
    "vision",
]


def prepare_known_ruleset(args: dict[str, Any]) -> dict[str, Any]:
    """``args`` as loaded, once its ``ruleset`` is known (``RulesError`` otherwise)."""
    rules.get(args["ruleset"])
    return args


def cover(
    geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None
) -> dict[str, Any]:
    """``POST /v1/cover``: each target's cover against the attacker or area origin.

    Parameters
    ----------
    geo : BuiltScene
        The built scene.
    args : dict
        Loaded by ``CoverRequestSchema``: ``ruleset``, ``attacker`` (token id or None for
        an area), ``targets`` (ids), ``attack`` (``kind``, ``origin`` px), ``options``.

    Returns
    -------
    dict
        ``{"ruleset", "attacker", "results": [CoverResult]}``, one result per target in
        order; ``CoverResponseSchema`` dumps it.

    Raises
    ------
    UnknownToken
        An unknown attacker, target or token option (404, at its field).
    RulesError
        Unknown ruleset, a target that is the attacker, an option of another ruleset.
    """
    system = rules.get(args["ruleset"])
    attacker = None
    if args.get("attacker") is not None:
        attacker = find_token(geo.scene, args["attacker"], ("attacker",))
    targets = find_targets(geo.scene, args["targets"], attacker)
    origin = args["attack"].get("origin")
    attack = Attack(
        args["attack"]["kind"],
        tuple(origin) if origin else None,  # type: ignore[arg-type]
        args["attack"].get("elevation"),
        bool(args["attack"].get("spread")),
        args["attack"].get("radius"),
    )
    options = ruleset_options(system, args["options"], schemas=(rq.CoverOptionsSchema,))
    check_token_options(geo.scene, options, TOKEN_OPTIONS["cover"])
    pairs = [(attacker, t) for t in targets]
    answers = cover_all(system, geo, pairs, attack, options, budget=budget)
    hidden = {t.id: t.name for t in geo.scene.tokens if t.hidden}
    results = [
        _unknown(system, pair, _in_spaces(geo.scene, _cite_floors(_flag_hidden(hidden, r))))
        for pair, r in zip(pairs, answers, strict=True)
    ]
    return {"ruleset": system.id, "attacker": args.get("attacker"), "results": results}


def _unknown(system: rules.RuleSystem, pair: tuple[Any, Any], result: Any) -> Any:
    """Name the pair's conditions outside the ruleset's vocabulary in ``notes`` (GEO-12)."""
    said = unknown_conditions(system.conditions, [t for t in pair if t is not None])
    return dataclasses.replace(result, notes=(*result.notes, *said)) if said else result


#: GEO-8 "scenes counted in squares": what an answer on such a scene says.
SPACES_NOTE = (
    "GEO-8: the scene counts in spaces (grid.units squares): 1 space = 5 ft for every rule "
    "distance and creature height"
)


def _in_spaces(scene: Scene, result: Any) -> Any:
    """Say so when the scene counts in spaces (GEO-8): its distances are not feet."""
    if scene.grid.units != "squares":
        return result
    return dataclasses.replace(result, notes=(*result.notes, SPACES_NOTE))


def _cite_floors(result: Any) -> Any:
    """Cite GEO-10 when a floor of a building (a surface) stopped one of the lines. O(blockers)."""
    lines = getattr(result, "lines", None)
    blockers = [b for line in lines for b in line.blockers] if lines else result.blockers
    if "GEO-10" in result.rules or not any(b.kind == "surface" for b in blockers):
        return result
    return dataclasses.replace(result, rules=(*result.rules, "GEO-10"))


def _flag_hidden(hidden_names: Mapping[str, str], result: Any) -> Any:
    """Say so when a hidden token (GM layer) is among the blockers: players cannot see it.

    ``hidden_names``: the scene's hidden tokens' names by id, made once per request; the
    note names each as ``name (id)``, or its id alone when that is its name. O(blockers).
    """
    if not hidden_names:
        return result
    hidden = sorted(
        {
            b.id
            for line in result.lines
            for b in line.blockers
            if b.kind == "token" and b.id in hidden_names
        }
    )
    if not hidden:
        return result
    named = [i if hidden_names[i] in ("", i) else f"{hidden_names[i]} ({i})" for i in hidden]
    note = "Hidden tokens block some lines (a GM may rule them out): " + ", ".join(named)
    return dataclasses.replace(result, notes=(*result.notes, note))


def vision(
    geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None
) -> dict[str, Any]:
    """``POST /v1/vision``: what one observer perceives of each target.

    ``args`` is loaded by ``VisionRequestSchema`` (``ruleset``, ``observer``, ``targets``,
    ``options``). Returns ``{"ruleset", "observer", "results": [VisionResult]}``; raises as
    :func:`cover` does.
    """
    system = rules.get(args["ruleset"])
    observer = find_token(geo.scene, args["observer"], ("observer",))
    targets = find_targets(geo.scene, args["targets"], observer)
    options = ruleset_options(system, args["options"], schemas=(rq.VisionOptionsSchema,))
    check_token_options(geo.scene, options, TOKEN_OPTIONS["vision"])
    results = vision_all(system, geo, [(observer, t) for t in targets], options, budget)
    results = [
        _unknown(system, pair, _in_spaces(geo.scene, _cite_floors(r)))
        for pair, r in zip([(observer, t) for t in targets], results, strict=True)
    ]
    return {"ruleset": system.id, "observer": observer.id, "results": results}


def lighting(
    geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None
) -> dict[str, Any]:
    """``POST /v1/lighting``: the light at each point (px), then over each token's space.

    ``args`` is loaded by ``LightingRequestSchema`` (``points`` ``[[x, y]]`` px, ``tokens``
    ids, ``ruleset`` whose rule ids ``rules`` cites: ``service.citations``). Returns
    ``{"results": [{"point", "token", "level", "magical_darkness", "lights", "rules"}]}``, points
    first, with ``notes`` when lights within reach do not shine there (switched off, private:
    ``service.lighting``). Raises ``UnknownToken`` at ``tokens.<i>``.
    """
    tokens = [find_token(geo.scene, t, ("tokens", i)) for i, t in enumerate(args["tokens"])]
    out: list[dict[str, Any]] = []
    points = args["points"]
    # refused before any tracing when the budget cannot cover it (docs/decisions.md, bounded work)
    refuse_early(geo, np.array(points, dtype=np.float64), tokens, budget)
    if points:
        xy = np.array(points, dtype=np.float64)
        samples = light_at_points(geo, xy, budget)
        each = silent_notes_at(geo, list(xy.reshape(-1, 1, 2)))  # once for all points
        for point, sample, notes in zip(points, samples, each, strict=True):
            out.append({"point": point, "token": None, **sample.__dict__, **_notes(notes)})
    sources = shining_lights(geo) if tokens else []  # gathered once: it scans every token
    for tok in tokens:
        light = light_over_token(geo, tok, budget, sources=sources)
        notes = silent_light_notes(geo, token_sample_points(geo, tok, sources))
        out.append({"point": None, "token": tok.id, **light.__dict__, **_notes(notes)})
    for row in out:
        row["rules"] = light_rules(row["rules"], args.get("ruleset"))
    return {"results": out}


def _notes(notes: tuple[str, ...]) -> dict[str, Any]:
    """``{"notes": [...]}`` when there are notes (lights that do not shine), else ``{}``."""
    return {"notes": list(notes)} if notes else {}


def endpoint(scene: Scene, ref: dict[str, Any], field: str) -> Endpoint:
    """A loaded ``from``/``to`` reference (``{"token"}`` or ``{"point", "elevation"}``).

    Raises ``UnknownToken`` at ``field`` for a token id not in ``scene``.
    """
    if "token" in ref:
        return Endpoint(token=find_token(scene, ref["token"], (field,)))
    return Endpoint(point=(ref["point"][0], ref["point"][1]), elevation=ref["elevation"])


def _line(
    geo: BuiltScene, args: dict[str, Any], sense: str, budget: WorkBudget | None
) -> LineAnswer:
    source = endpoint(geo.scene, args["source"], "from")
    target = endpoint(geo.scene, args["target"], "to")
    effect = args.get("effect") or {}
    if sense == "sight" and effect.get("damage") is not None:
        raise RulesError("Breakthrough applies to line of effect only.", ("effect", "damage"))
    inset = args["options"].get("corner_inset")
    check_corner_inset(geo.scene, inset)
    kw: dict[str, Any] = {} if inset is None else {"corner_inset": inset}
    return line_between(
        geo,
        source,
        target,
        sense,
        damage=effect.get("damage"),
        budget=budget,
        ruleset=args.get("ruleset"),
        **kw,
    )


def line_of_effect(
    geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None
) -> LineAnswer:
    """``POST /v1/line-of-effect``: exact line of effect between spaces (5E-LOE-2).

    ``args`` is loaded by ``LineRequestSchema`` (``source``/``target`` as
    :func:`endpoint` reads them, ``effect``, ``options.corner_inset`` px). With
    ``effect.damage``, breakthrough (5E-LOE-4/5). Returns a ``LineAnswer``; raises
    ``UnknownToken`` at ``from``/``to``.
    """
    return _line(geo, args, "move", budget)


def line_of_sight(
    geo: BuiltScene, args: dict[str, Any], *, budget: WorkBudget | None = None
) -> LineAnswer:
    """``POST /v1/line-of-sight``: walls that restrict sight (GEO-1).

    As :func:`line_of_effect`; ``effect.damage`` is a ``RulesError`` here.
    """
    return _line(geo, args, "sight", budget)


def prepare_matrix(args: dict[str, Any]) -> dict[str, Any]:
    """``args`` with ``options`` loaded by the options schema of ``kind`` (:func:`load_options`)."""
    rules.get(args["ruleset"])
    return {**args, "options": load_options(args["kind"], args["options"], ("options",))}


def matrix(
    geo: BuiltScene,
    args: dict[str, Any],
    *,
    progress: Callable[[int], None] | None = None,
    budget: WorkBudget | None = None,
) -> dict[str, Any]:
    """``POST /v1/matrix``: cover degrees or vision senses of every ordered pair.

    Parameters
    ----------
    geo : BuiltScene
    args : dict
        Loaded by ``MatrixRequestSchema``, options loaded by :func:`prepare_matrix`.
    progress : callable, optional
        Called with the number of rows done (the command line's progress bar).
    budget : WorkBudget, optional
        The request's budget of line-wall tests (``OverBudget`` is a 422; ``docs/decisions.md``
        "Bounded work").

    Returns
    -------
    dict
        ``{"ruleset", "kind", "tokens", "cover"}`` or ``{..., "vision", "can_see"}``
        (row = attacker or observer; the diagonal None); see ``service.matrix.matrix``.
    """
    system = rules.get(args["ruleset"])
    checked = ruleset_options(system, args["options"], schemas=(KIND_SCHEMAS[args["kind"]],))
    # Token ids in options name scene tokens, as for /v1/cover and /v1/vision (404).
    check_token_options(geo.scene, checked, TOKEN_OPTIONS[args["kind"]])
    result = all_pairs(
        geo, system, args["tokens"], args["kind"], checked, progress=progress, budget=budget
    )
    return {"ruleset": system.id, "kind": args["kind"], **result}


def prepare_flanking(args: dict[str, Any]) -> dict[str, Any]:
    """``args`` as loaded, once its ruleset is known to have a flanking rule (SF-FLK-1)."""
    system = rules.get(args["ruleset"])
    if "modifiers/flanking" not in system.extra_capabilities:
        raise RulesError(f"Ruleset {system.id!r} has no flanking rule.", ("ruleset",))
    return args


def flanking(geo: BuiltScene, args: dict[str, Any]) -> dict[str, Any]:
    """``POST /v1/modifiers/flanking``: whether attacker and ally flank the target (SF-FLK-1).

    Returns ``{"flanking", "attack_bonus" (+2 or 0), "rules", "reason"}``; with option
    ``ignore_hidden``, a hidden attacker or ally does not flank. Raises ``UnknownToken`` for
    an unknown id, ``RulesError`` unless the three tokens differ.
    """
    system = rules.get(args["ruleset"])
    toks = [find_token(geo.scene, args[k], (k,)) for k in ("attacker", "ally", "target")]
    if len({t.id for t in toks}) < 3:
        raise RulesError("Attacker, ally and target must be three different tokens.", ("ally",))
    options = ruleset_options(
        system, args.get("options") or {}, schemas=(rq.FlankingOptionsSchema,)
    )
    if options.get("ignore_hidden"):  # service.rules.options: hidden tokens do not flank
        hidden = [t.id for t in toks[:2] if t.hidden]
        if hidden:
            reason = f"Option ignore_hidden: {', '.join(hidden)} is hidden and does not flank."
            return {"flanking": False, "attack_bonus": 0, "rules": ["SF-FLK-1"], "reason": reason}
    rule = cast(FlankingRule, system)  # declared by its extra_capabilities (prepare_flanking)
    ok, rule_ids, reason = rule.flanking(geo, *toks)
    return {"flanking": ok, "attack_bonus": 2 if ok else 0, "rules": rule_ids, "reason": reason}


def gravity(
    _geo: None, args: dict[str, Any]
) -> dnd5e_gravity.GravityResult | sf_gravity.ZeroGravityResult:
    """``POST /v1/modifiers/gravity``: abnormal gravity (5E-GRV-1..6) or zero-g (SF-PRN-2).

    ``args`` (``GravityRequestSchema``) are ``ruleset`` and the keyword arguments of
    ``rules.dnd5e.gravity.gravity_modifiers`` (dnd5e) or of
    ``rules.starfinder.gravity.zero_gravity`` (starfinder); no scene.
    """
    kwargs = dict(args)
    if kwargs.pop("ruleset") == "starfinder":
        return sf_gravity.zero_gravity(**kwargs)
    return dnd5e_gravity.gravity_modifiers(**kwargs)


def underwater(_geo: None, args: dict[str, Any]) -> Any:
    """``POST /v1/modifiers/underwater``: an attack or an effect underwater.

    ``args`` (``UnderwaterRequestSchema``) hold the keyword arguments of
    ``rules.dnd5e.underwater.underwater_attack`` (5E-UW-1/2/9) under ``attack`` or of
    ``rules.dnd5e.underwater.underwater_effect`` (5E-UW-3..8) under ``effect``; no scene.
    """
    if "effect" in args:
        return dnd5e_underwater.underwater_effect(**args["effect"])
    return dnd5e_underwater.underwater_attack(**args["attack"])


def range_bands(_geo: None, args: dict[str, Any]) -> pf2e_range.RangeResult:
    """``POST /v1/modifiers/range``: range band (PV-RNG-1) and increment Disadvantage (PV-RNG-2).

    ``args`` are the keyword arguments of
    ``rules.pf2e_variant.range_increments.range_modifiers`` (distances in feet), as
    ``RangeRequestSchema`` loads them; no scene.
    """
    return pf2e_range.range_modifiers(**args)
