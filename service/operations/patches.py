"""``PATCH /v1/scenes/{scene_id}``: a merge patch resolved against its parent scene.

:func:`resolve_change` turns the body (``schemas.patch.ScenePatchSchema``, already loaded)
into an ``engine.live.Change`` of whole items, checking everything before anything is
applied: every id a ``null`` removes exists (404 naming it), every changed or new item is a
valid item (422 at ``<collection>.<id>.<field>``, by the item's own schema), a door state is
changed only on a door, and the scene after the change stays within the scene limits
(counted from the parent's counts and the change, not from a built scene). The parent is
never modified: the cache makes the new scene beside it (``service.cache.SceneCache.patch``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from marshmallow import ValidationError

from schemas.patch import ITEM_SCHEMAS, merged
from schemas.scene import EnvironmentSchema
from schemas.size import SceneSize
from schemas.suggest import HINT_CHARS, nearest
from service.engine.budget import PATCH_ITEM_UNITS, WALL_BUILD_UNITS, WorkBudget
from service.engine.hexes import check_hex_footprint, is_hex
from service.engine.live import Change, id_positions
from service.errors import RulesError, shown
from service.limits import OUTLINE_MESSAGE, outline_past_crossings, scene_rings, size_problems
from service.model import Scene, Token, size_from_width

#: Added tokens or lights per change checked for an id near a held one (``_added_hints``).
ADDED_HINTS = 3


class UnknownItem(RulesError):
    """A change names an id to remove that the scene does not hold (HTTP 404)."""

    status = 404


def resolve_change(
    parent: Scene,
    body: Mapping[str, Any],
    limits: Mapping[str, Any],
    budget: WorkBudget,
    positions: dict[str, dict[str, int]] | None = None,
) -> tuple[Change, list[str]]:
    """The ``Change`` of a loaded patch body against ``parent``, and its warnings.

    ``parent``: the scene as stored (before levels resolve: ``BuiltScene.source``).
    ``positions``: per collection, ``engine.live.id_positions`` of ``parent``'s items when
    known (``SceneCache.positions``; missing ones are made and added to it). Cost: O(items
    named) item loads, plus an id table per collection named that has none yet (O(items of
    it)), counted in ``budget`` before the work (``PATCH_ITEM_UNITS`` an item, and
    ``WALL_BUILD_UNITS`` a wall when walls are added, removed or moved: the index is then
    built again).

    Raises
    ------
    UnknownItem
        A ``null`` for an id ``parent`` does not hold (404, at ``<collection>.<id>``).
    RulesError
        422: an invalid item (at its field), a door state on a wall that is no door, an id
        field that disagrees with its key, an item on a level the scene lacks, or a scene
        past the limits after the change.
    OverBudget
        The change's rebuild would pass the work budget.
    """
    budget.afford(PATCH_ITEM_UNITS * _named(body))
    edits: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    reshaped = False
    counts = {name: len(getattr(parent, name)) for name in ITEM_SCHEMAS}
    known = {} if positions is None else positions
    for name in ITEM_SCHEMAS:
        given = body.get(name) or {}
        if not given:
            continue
        items = getattr(parent, name)
        where = known.get(name)
        if where is None:
            where = known[name] = id_positions(items)
        held = {i: items[where[i]] for i in given if i in where}
        edits[name] = {
            item_id: _item(name, item_id, value, held.get(item_id), (where, items))
            for item_id, value in given.items()
        }
        warnings += [
            f"{name}: {shown(i)} is unchanged." for i, v in edits[name].items() if v is held.get(i)
        ]
        added = [i for i, v in edits[name].items() if v is not None and i not in held]
        warnings += _added_hints(name, added, where, items)
        counts[name] += sum(1 for i, v in edits[name].items() if v is not None and i not in held)
        counts[name] -= sum(1 for v in edits[name].values() if v is None)
        if name == "walls":  # added, removed or moved walls: the index is built again
            reshaped = any(
                v is None or i not in held or held[i].c != v.c for i, v in edits[name].items()
            )
    _check_levels(parent, edits)
    environment = None
    if body.get("environment") is not None:
        raw = merged(msgspec.to_builtins(parent.environment), body["environment"])
        environment = _load(EnvironmentSchema, raw, ("environment",))
    _check_limits(parent, edits, counts, limits)
    if reshaped:
        budget.afford(WALL_BUILD_UNITS * (len(parent.walls) + len(edits["walls"])))
    change = Change(environment=environment, **edits)  # type: ignore[arg-type]
    return change, warnings


def _near_held(item_id: str, where: Mapping[str, int], items: Any) -> str | None:
    """The held id nearest ``item_id`` (first :data:`HINT_CHARS` characters, any case).

    ``None`` when none is near; never a hidden token's (as ``find_token``). O(items).
    """
    ids = [i for i, k in where.items() if not getattr(items[k], "hidden", False)]
    near = nearest(item_id.casefold()[:HINT_CHARS], [i.casefold()[:HINT_CHARS] for i in ids])
    return next((i for i in ids if i.casefold()[:HINT_CHARS] == near), None)


def _added_hints(name: str, added: list[str], where: Mapping[str, int], items: Any) -> list[str]:
    """Warnings for tokens or lights added, naming a held id near each (a typo of a move).

    ``{"x": ..., "y": ...}`` is a whole token or light, so a mistyped id adds one rather
    than moving the held one: every add is said, so that a typo is seen even when no held
    id is near. For the first :data:`ADDED_HINTS` added only: O(items) each.
    """
    if name not in ("tokens", "lights"):
        return []
    out = []
    for item_id in added[:ADDED_HINTS]:
        held = _near_held(item_id, where, items)
        near = f"; did you mean {shown(held)}?" if held is not None else "."
        out.append(
            f"{name}: {shown(item_id)} is not in the scene, so it was added as a new "
            f"{name[:-1]}{near}"
        )
    return out


def _named(body: Mapping[str, Any]) -> int:
    return sum(len(body.get(k) or {}) for k in ITEM_SCHEMAS) + (body.get("environment") is not None)


def _item(
    name: str,
    item_id: str,
    value: dict[str, Any] | None,
    old: Any,
    parent: tuple[Mapping[str, int], Any],
) -> Any:
    """The whole new item for ``item_id`` (``None``: removed), loaded by its schema.

    ``parent``: the parent's positions by id of this collection and its items. A new id
    whose item is not whole (a typo of a held id, most often) is a 422 saying it would add
    one, and the nearest held id (never a hidden token's, as ``find_token``): O(items) on
    that error only.
    """
    path = (name, item_id)
    if value is None:
        if old is None:
            raise UnknownItem(
                f"No {name[:-1]} with id {shown(item_id)} in the scene to remove.", path
            )
        return None
    if "id" in value and value["id"] != item_id:
        raise RulesError(
            f"The id field {shown(value['id'])} differs from its key {shown(item_id)}: an id "
            "cannot change (remove the item and add it under the new id).",
            (*path, "id"),
        )
    raw = {**value, "id": item_id} if old is None else merged(_as_given(old), value)
    try:
        item = _load(ITEM_SCHEMAS[name], raw, path)
    except PatchInvalid as err:
        if old is not None:
            fields = _schema(ITEM_SCHEMAS[name]).fields
            required = [
                k
                for k, v in value.items()
                if v is None and getattr(fields.get(k), "required", False)
            ]
            if required:  # null restores a default: a required field has none
                raise PatchInvalid(
                    f"The change is invalid at {'.'.join((*path, required[0]))}: null "
                    f"restores a field's default, and {required[0]} has none (it is "
                    "required): give it a value.",
                    path,
                    err.messages,
                ) from None
            raise
        held = _near_held(item_id, *parent)
        hint = f" Did you mean {shown(held)}?" if held is not None else ""
        raise PatchInvalid(
            f"{err.message} The scene holds no {name[:-1]} {shown(item_id)}, so this adds one, "
            f"which needs every required field.{hint}",
            path,
            err.messages,
        ) from None
    if (  # a door_state set on a wall that is no door, and was not made one or none here
        name == "walls"
        and value.get("door_state") is not None
        and "door" not in value
        and item.door == "none"
    ):
        raise RulesError(
            f"Wall {shown(item_id)} is not a door (door: 'none'): its door_state cannot "
            "change. Set 'door' too if it has become one.",
            (*path, "door_state"),
        )
    return old if item == old else item


def _as_given(item: Any) -> dict[str, Any]:
    """``item`` as a merge patch's base: its fields, less the defaults derived from others.

    A token's ``size`` that is the one its ``width`` gives (``size_from_width``), and a
    ``name`` that is its id, are left out, so that they follow a changed ``width`` as in a
    whole upload of the changed token (a scene sent without ``size`` gets it from the
    width). A ``size`` other than the derived one was given and stays. O(fields).
    """
    out: dict[str, Any] = msgspec.to_builtins(item)
    if isinstance(item, Token):
        if item.size == size_from_width(item.width):
            out.pop("size", None)
        if item.name == item.id:
            out.pop("name", None)
    return out


_SCHEMAS: dict[type[Any], Any] = {}


def _schema(schema: type[Any]) -> Any:
    """One instance of each item schema (made once: a marshmallow schema costs ~1 ms)."""
    if schema not in _SCHEMAS:
        _SCHEMAS[schema] = schema()
    return _SCHEMAS[schema]


def _load(schema: type[Any], raw: dict[str, Any], path: tuple[str, ...]) -> Any:
    """``schema().load(raw)``; its errors answer 422 under ``path``."""
    try:
        return _schema(schema).load(raw)
    except ValidationError as err:
        messages = err.messages
        first = _first(messages)
        message = f"The change is invalid at {'.'.join(path)}: {first}"
        raise PatchInvalid(message, path, messages) from err


def _first(messages: Any) -> str:
    """The first message of a marshmallow error tree, with its field path."""
    if isinstance(messages, dict):
        key, value = next(iter(messages.items()))
        inner = _first(value)
        return f"{key}: {inner}" if key != "_schema" else inner
    if isinstance(messages, list) and messages:
        return _first(messages[0])
    return str(messages)


class PatchInvalid(RulesError):
    """An item of a change is invalid (HTTP 422): ``messages`` is its schema's error tree."""

    def __init__(self, message: str, path: tuple[str, ...], messages: Any) -> None:
        super().__init__(message, path)
        self.messages = messages


def _check_levels(parent: Scene, edits: Mapping[str, Mapping[str, Any]]) -> None:
    """422 at ``<collection>.<id>.level`` for an item naming a level ``parent`` lacks.

    A change names no levels of its own (they come with the scene), so an item's ``level``
    must be one of the parent's (GEO-10), as a whole upload's schema holds. O(items named).
    """
    known = {level.id for level in parent.levels}
    for name, items in edits.items():
        for item_id, item in items.items():
            level = getattr(item, "level", None)
            if level is not None and level not in known:
                raise RulesError(
                    f"No level with id {shown(level)} in the scene's levels"
                    + (
                        f" ({', '.join(sorted(map(shown, known)))})."
                        if known
                        else " (it has none)."
                    ),
                    (name, item_id, "level"),
                )


def _check_limits(
    parent: Scene,
    edits: Mapping[str, Mapping[str, Any]],
    counts: Mapping[str, int],
    limits: Mapping[str, Any],
) -> None:
    """422 at ``<collection>`` when the scene after ``edits`` passes a scene limit.

    ``counts``: each collection's items after the edits, counted from the parent's and the
    edits before anything is applied; then the outlines' self-crossings (at
    ``regions.<id>.shape.points``). O(regions + region points).
    """
    regions = {r.id: r for r in parent.regions}
    for region_id, region in edits.get("regions", {}).items():
        if region is None:
            regions.pop(region_id, None)
        else:
            regions[region_id] = region
    points = [(len(r.shape.points), r.id) for r in regions.values()]
    largest = max(points, default=(0, None))
    size = SceneSize(
        counts["walls"],
        counts["tokens"],
        counts["lights"],
        len(points),
        sum(p for p, _ in points),
        largest[0],
        largest[1],
    )
    problems = size_problems(size, limits)
    if problems:
        message, field = problems[0]
        raise RulesError(f"After this change: {message}", (field,))
    if is_hex(parent.grid):  # a token too big for the hex grid, as a whole upload refuses it
        for token_id, token in edits.get("tokens", {}).items():
            if token is not None:
                try:
                    check_hex_footprint(token, parent.grid)
                except RulesError as err:
                    message = f"After this change: {err.message}"
                    raise RulesError(message, ("tokens", token_id)) from None
    where = outline_past_crossings(scene_rings(regions.items(), enumerate(parent.surfaces)))
    if where is not None:
        raise RulesError(f"After this change: {OUTLINE_MESSAGE}", where)


def patch_stats(scene: Scene, change: Change, doors: int) -> dict[str, int]:
    """Counts of the changed scene and how many items the change named. O(1).

    ``doors``: the changed scene's doors, which the cache keeps (``SceneCache.doors``).
    """
    return {
        "walls": len(scene.walls),
        "doors": doors,
        "tokens": len(scene.tokens),
        "lights": len(scene.lights),
        "regions": len(scene.regions),
        "changed": change.items(),
    }
