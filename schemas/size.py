"""How much a scene holds, counted before it is built.

A scene over a count limit (``SIGHTLINE_MAX_WALLS``, ``_TOKENS``, ``_LIGHTS``, ``_REGIONS``) or
over the outline points of all its polygon regions together (``SIGHTLINE_MAX_REGION_POINTS``)
is refused with a 422 naming the setting and what to reduce (``service.limits``). The counts
are read from three forms of a scene, each without building it:

- the request body's bytes (``size_of_body``): one msgspec pass that keeps every wall, token,
  light and outline point as an undecoded ``msgspec.Raw`` slice, so no float, tuple or
  ``model`` object is made; O(body bytes), about a sixth of decoding the scene itself;
- a scene already parsed to JSON values (``size_of_json``: dicts and lists, before marshmallow
  or msgspec converts them): O(regions);
- a ``model.Scene`` (``size_of_scene``): O(regions).

``service.limits`` turns a size and the limits into the message the API answers, so a scene
refused from its bytes gets the same message as the built scene would.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import msgspec

from service import model


class SceneSize(NamedTuple):
    """The counts the scene limits look at.

    ``region_points`` is the outline points of all regions together (a rect or circle has
    none); ``largest_points`` those of the region with the most (the first such), whose id
    is ``largest_id`` (``None`` without regions).
    """

    walls: int
    tokens: int
    lights: int
    regions: int
    region_points: int
    largest_points: int
    largest_id: Any


def _size(walls: int, tokens: int, lights: int, points: list[int], ids: Any) -> SceneSize:
    """A ``SceneSize``; ``ids(k)`` gives the id of region ``k`` (called once, for the largest)."""
    if not points:
        return SceneSize(walls, tokens, lights, 0, 0, 0, None)
    largest = max(range(len(points)), key=points.__getitem__)
    return SceneSize(walls, tokens, lights, len(points), sum(points), points[largest], ids(largest))


def size_of_scene(scene: model.Scene) -> SceneSize:
    """The counts of a validated scene. O(regions)."""
    points = [len(r.shape.points) for r in scene.regions]
    return _size(
        len(scene.walls),
        len(scene.tokens),
        len(scene.lights),
        points,
        lambda k: scene.regions[k].id,
    )


class _ShapePeek(msgspec.Struct):
    points: list[msgspec.Raw] = []


class _RegionPeek(msgspec.Struct):
    id: msgspec.Raw = msgspec.Raw(b"null")
    shape: _ShapePeek | None = None


class _ScenePeek(msgspec.Struct):
    walls: list[msgspec.Raw] = []
    tokens: list[msgspec.Raw] = []
    lights: list[msgspec.Raw] = []
    regions: list[_RegionPeek] = []


class _BodyPeek(msgspec.Struct):
    scene: _ScenePeek | None = None


#: Reads only the counts of a body's ``scene`` (unknown fields are skipped unread).
_PEEK = msgspec.json.Decoder(_BodyPeek)


def size_of_body(data: bytes) -> SceneSize | None:
    """The counts of the ``scene`` object of a JSON request body, from its bytes.

    Walls, tokens, lights and outline points are counted as undecoded slices
    (``msgspec.Raw``): nothing of the scene is built. O(body bytes).

    Returns
    -------
    SceneSize or None
        ``None`` when the body is not JSON, has no ``scene`` object, or its scene has a
        counted field of the wrong JSON type (not a list, a region or shape not an object):
        the body is then parsed as usual and ``size_of_json`` counts what it can.
    """
    try:
        peek = _PEEK.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    scene = peek.scene
    if scene is None:
        return None
    points = [0 if r.shape is None else len(r.shape.points) for r in scene.regions]

    def region_id(k: int) -> Any:
        try:
            return msgspec.json.decode(scene.regions[k].id)
        except msgspec.DecodeError:  # pragma: no cover - the peek already parsed it
            return None

    return _size(len(scene.walls), len(scene.tokens), len(scene.lights), points, region_id)


def _count(value: Any) -> int:
    return len(value) if type(value) is list else 0


def size_of_json(scene: Any) -> SceneSize | None:
    """The counts of a scene given as JSON values (dicts and lists), before it is loaded.

    Fields of the wrong type count as empty (the schema reports them). ``None`` when
    ``scene`` is not a dict. O(regions).
    """
    if type(scene) is not dict:
        return None
    regions = scene.get("regions")
    regions = regions if type(regions) is list else []
    points = []
    for region in regions:
        shape = region.get("shape") if type(region) is dict else None
        points.append(_count(shape.get("points")) if type(shape) is dict else 0)
    return _size(
        _count(scene.get("walls")),
        _count(scene.get("tokens")),
        _count(scene.get("lights")),
        points,
        lambda k: regions[k].get("id") if type(regions[k]) is dict else None,
    )
