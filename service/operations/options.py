"""Ruleset options and the checks of a request that need no answer yet.

Which endpoint takes which option (:data:`OPTION_ENDPOINTS`, listed by ``GET /v1/rulesets``:
``docs/decisions.md`` "Where options apply"), the options a request gives for its ruleset
(:func:`ruleset_options`), the nested options of ``/v1/matrix`` and ``/v1/render`` loaded by
the schema of their kind (:func:`load_options`), and the token ids a request names
(targets, token options) checked against the scene.

Errors: ``RulesError`` (422) and ``UnknownToken`` (404) of ``service.errors``, and
``marshmallow.ValidationError`` with the field path in its messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema, ValidationError

from schemas import modifiers as sm
from schemas import requests as rq
from service import rules
from service.engine.scene import find_token
from service.errors import RulesError
from service.model import Scene, Token

__all__ = [
    "KIND_SCHEMAS",
    "OPTION_ENDPOINTS",
    "check_corner_inset",
    "TOKEN_OPTIONS",
    "check_token_options",
    "find_targets",
    "load_options",
    "option_endpoints",
    "option_kinds",
    "ruleset_options",
]

#: Where ruleset options are taken: endpoint, the capability a ruleset needs for it (``None``:
#: every ruleset), and the option schemas of its request (``/v1/matrix`` and ``/v1/render``
#: take ``/v1/cover``'s with kind cover, ``/v1/vision``'s with kind vision). An option
#: listed by ``GET /v1/rulesets`` applies where its name is a field of one of these schemas.
OPTION_ENDPOINTS: tuple[tuple[str, str | None, tuple[type[Schema], ...]], ...] = (
    ("/v1/cover", None, (rq.CoverOptionsSchema,)),
    ("/v1/vision", None, (rq.VisionOptionsSchema,)),
    ("/v1/matrix", None, (rq.CoverOptionsSchema, rq.VisionOptionsSchema)),
    ("/v1/render", None, (rq.CoverOptionsSchema, rq.VisionOptionsSchema)),
    ("/v1/line-of-effect", None, (rq.LineOptionsSchema,)),
    ("/v1/line-of-sight", None, (rq.LineOptionsSchema,)),
    ("/v1/modifiers/flanking", "modifiers/flanking", (rq.FlankingOptionsSchema,)),
    ("/v1/modifiers/gravity", "modifiers/gravity", (sm.GravityOptionsSchema,)),
)

#: The option schemas of each kind of question (``/v1/matrix``, ``/v1/render``).
KIND_SCHEMAS: dict[str, type[Schema]] = {
    "cover": rq.CoverOptionsSchema,
    "vision": rq.VisionOptionsSchema,
}


def _takes(schemas: tuple[type[Schema], ...], name: str) -> bool:
    return any(name in schema().fields for schema in schemas)


def option_endpoints(system: rules.RuleSystem, name: str) -> list[str]:
    """The endpoints that take ``system``'s option ``name`` (``GET /v1/rulesets``)."""
    return [
        endpoint
        for endpoint, capability, schemas in OPTION_ENDPOINTS
        if (capability is None or capability in system.extra_capabilities) and _takes(schemas, name)
    ]


def option_kinds(name: str) -> list[str]:
    """The kinds of question (``cover``, ``vision``) whose options include ``name``.

    That is, which ``kind`` of ``/v1/matrix`` (``type`` of a ``/v1/render`` query) takes it.
    """
    return [kind for kind, schema in KIND_SCHEMAS.items() if name in schema().fields]


def ruleset_options(
    system: rules.RuleSystem,
    raw: dict[str, Any],
    path: tuple[str | int, ...] = ("options",),
    schemas: tuple[type[Schema], ...] = (),
) -> dict[str, Any]:
    """The options given for ``system``, unset ones (None, ``[]``) dropped.

    ``schemas``: the option schemas of the request (``OPTION_ENDPOINTS``), so that a refusal
    lists only the ruleset's options that this request takes.

    Raises
    ------
    RulesError
        An option the ruleset does not use, at ``(*path, name)``.
    """
    given = {k: v for k, v in raw.items() if v not in (None, [])}
    for name in given:
        if name not in system.options:
            taken = sorted(n for n in system.options if not schemas or _takes(schemas, n))
            raise RulesError(
                f"Option {name!r} does not apply to ruleset {system.id!r}; "
                f"its options here: {', '.join(taken) or 'none'}.",
                (*path, name),
            )
    return given


def load_options(kind: str, raw: Mapping[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """``raw`` loaded by the options schema of ``kind`` (``"cover"`` or ``"vision"``).

    Raises
    ------
    marshmallow.ValidationError
        Its messages nested under ``path`` (e.g. ``{"query": {"options": {...}}}``).
    """
    schema = KIND_SCHEMAS[kind]
    try:
        return schema().load(dict(raw))  # type: ignore[no-any-return]
    except ValidationError as err:
        messages: Any = err.messages
        if isinstance(messages, dict):  # an option of the other kind: say which kind takes it
            for name, said in list(messages.items()):
                others = [k for k in option_kinds(name) if k != kind]
                if said == ["Unknown field."] and others:
                    messages[name] = [f"Unknown field with kind {kind!r}: kind {others[0]!r} only."]
        for key in reversed(path):
            messages = {key: messages}
        raise ValidationError(messages) from None


#: Options holding token ids, per kind of question (checked against the scene: 404).
TOKEN_OPTIONS = {
    "cover": ("take_cover", "partial_cover"),
    "vision": ("unnoticed", "was_observing"),
}


def check_token_options(scene: Scene, options: dict[str, Any], names: tuple[str, ...]) -> None:
    """Check the options' token ids and ``corner_inset`` against ``scene``.

    The token ids held by the options ``names`` name tokens of ``scene``; ``corner_inset``
    is below a quarter square (GEO-6: larger is a 422).

    Raises ``UnknownToken`` (404) at ``options.<name>.<i>``; ``RulesError`` (422) at
    ``options.corner_inset``.
    """
    check_corner_inset(scene, options.get("corner_inset"))
    for name in names:
        for i, tid in enumerate(options.get(name, ())):
            find_token(scene, tid, ("options", name, i))


def check_corner_inset(scene: Scene, inset: float | None) -> None:
    """GEO-6: ``corner_inset`` (px) runs from 0 up to, not including, a quarter square.

    Raises ``RulesError`` (422) at ``options.corner_inset`` for one at or past
    ``grid.size / 4``.
    """
    if inset is None:
        return
    quarter = scene.grid.size / 4
    if inset >= quarter:
        raise RulesError(
            f"corner_inset {inset:g} px is not below a quarter of a square "
            f"({quarter:g} px on this grid, GEO-6).",
            ("options", "corner_inset"),
        )


def find_targets(scene: Scene, ids: list[str], source: Token | None) -> list[Token]:
    """The target tokens of ``ids``, in order, none of them ``source``.

    Raises
    ------
    UnknownToken
        An id not in ``scene`` (404, at ``targets.<i>``).
    RulesError
        A target that is ``source`` itself (at ``targets.<i>``).
    """
    targets = [find_token(scene, t, ("targets", i)) for i, t in enumerate(ids)]
    for i, tok in enumerate(targets):
        if source is not None and tok.id == source.id:
            raise RulesError("A token cannot be its own target.", ("targets", i))
    return targets
