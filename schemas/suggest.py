"""Did-you-mean for unknown fields and token ids: the nearest known name, in the message.

A request with ``attaker`` for ``attacker`` (or ``cover_metod`` in ``options``, or ``sise``
in a scene's token) fails its schema with ``{"attaker": ["Unknown field."]}``.
:func:`suggest_fields` walks those messages beside the schema that produced them (nested
schemas, lists of them, dicts of them) and adds to each such message the closest field name
of that level (difflib), so both the HTTP answer and the command line can say it. Cost:
O(messages × fields of their level). :func:`token_hint` does the same for a token id the
scene does not hold (``service.engine.scene.find_token``, the 404 at ``attacker``,
``targets.<i>`` ...). Standard library and marshmallow only.
"""

from __future__ import annotations

import difflib
from typing import Any

from marshmallow import Schema, fields

#: marshmallow's message for a key no field declares (``unknown=RAISE``).
UNKNOWN = "Unknown field."


def _known(schema: Schema) -> dict[str, fields.Field]:
    """The names a schema loads (``data_key`` where it has one) and their fields."""
    return {f.data_key or name: f for name, f in schema.fields.items() if not f.dump_only}


def _schema_of(field: fields.Field | None) -> Schema | None:
    """The schema a field's value is loaded with: Nested, or List/Dict of Nested."""
    if isinstance(field, fields.Nested):
        nested = field.schema
        return nested if isinstance(nested, Schema) else None
    return None


#: How alike an unknown name and a known one must be to suggest it (``difflib`` ratio): a typo
#: (``attaker``, ``sise``: 0.75 and up) is named, another word (``colour`` for ``door``: 0.6,
#: ``speed`` for ``swim_speed``: 0.67) is not.
NEAR = 0.75


def nearest(word: str, known: list[str], cutoff: float = NEAR) -> str | None:
    """The name of ``known`` closest to ``word`` (difflib ratio at least ``cutoff``), or None."""
    near = difflib.get_close_matches(word, known, n=1, cutoff=cutoff)
    return near[0] if near else None


#: Longest id or name compared for a hint (characters): difflib is quadratic in length, so
#: longer ones are compared by this prefix and a longer unknown id gets no hint.
HINT_CHARS = 64


def token_hint(word: str, tokens: list[tuple[str, str]]) -> str:
    """``" Did you mean 'goblin'?"`` for an unknown token id ``word``, or ``""``.

    ``tokens`` are the ``(id, name)`` pairs the asker may know of (the caller leaves out
    hidden tokens). A token whose name is ``word`` (any letter case: a client sent the name
    for the id) is named first, then the nearest id, then the nearest name (``nearest``; ids
    and names in any case, by their first :data:`HINT_CHARS` characters). Cost: O(tokens ×
    HINT_CHARS²) at most.
    """
    if len(word) > HINT_CHARS:
        return ""
    folded = word.casefold()
    for tid, name in tokens:
        if name.casefold() == folded and tid != word:
            return f" Did you mean {tid!r} (the token named {name!r})?"
    by_id = {tid.casefold()[:HINT_CHARS]: tid for tid, _ in tokens}
    near = nearest(folded, list(by_id))
    if near is not None:
        return f" Did you mean {by_id[near]!r}?"
    by_name = {name.casefold()[:HINT_CHARS]: (tid, name) for tid, name in tokens}
    near = nearest(folded, list(by_name))
    if near is not None:
        tid, name = by_name[near]
        return f" Did you mean {tid!r} (the token named {name!r})?"
    return ""


def _walk(node: Any, schema: Schema | None, path: tuple[str, ...], out: list[tuple]) -> Any:
    if not isinstance(node, dict) or schema is None:
        return node
    known = _known(schema)
    result: dict[str, Any] = {}
    for key, value in node.items():
        if isinstance(value, list) and UNKNOWN in value:
            near = nearest(str(key), list(known))
            if near is not None:
                out.append(((*path, str(key)), near))
                value = [f"{UNKNOWN} Did you mean {near!r}?" if m == UNKNOWN else m for m in value]
            result[key] = value
            continue
        field = known.get(str(key))
        inner = _schema_of(field)
        if inner is None and isinstance(field, fields.List):
            inner = _schema_of(field.inner)
            if inner is not None and isinstance(value, dict):  # {"3": {...}}: list indices
                result[key] = {
                    i: _walk(v, inner, (*path, str(key), str(i)), out) for i, v in value.items()
                }
                continue
        if inner is None and isinstance(field, fields.Dict) and field.value_field is not None:
            inner = _schema_of(field.value_field)
            if inner is not None and isinstance(value, dict):  # {"name": {"value": {...}}}
                result[key] = {
                    k: {**v, "value": _walk(v.get("value"), inner, (*path, str(key), str(k)), out)}
                    if isinstance(v, dict) and "value" in v
                    else v
                    for k, v in value.items()
                }
                continue
        result[key] = _walk(value, inner, (*path, str(key)), out)
    return result


def suggest_fields(
    messages: Any, schema: Schema | type[Schema] | None
) -> tuple[Any, list[tuple[tuple[str, ...], str]]]:
    """``messages`` with a did-you-mean on each unknown field that has a near name.

    Parameters
    ----------
    messages : dict
        ``ValidationError.messages`` of ``schema`` (nested dicts down to lists of messages).
    schema : marshmallow Schema (class or instance)
        The schema that produced them.

    Returns
    -------
    (dict, list)
        The messages, each ``"Unknown field."`` with a near name becoming
        ``"Unknown field. Did you mean 'attacker'?"``; and ``(path, name)`` of each
        suggestion, ``path`` the unknown key's path.
    """
    if isinstance(schema, type):
        schema = schema()
    found: list[tuple[tuple[str, ...], str]] = []
    return _walk(messages, schema, (), found), found


def hint_text(found: list[tuple[tuple[str, ...], str]]) -> str:
    """``"unknown field attaker (did you mean attacker?)"`` for the first three suggestions."""
    parts = [f"unknown field {'.'.join(p)} (did you mean {name}?)" for p, name in found[:3]]
    return "; ".join(parts)
