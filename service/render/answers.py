""":func:`render_answer`: the picture of one answered query, captioned with the answer.

References
----------
shared/API.md "Batch and pictures".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from service.engine.scene import vertical_span
from service.model import Level, Scene
from service.render.frame import height_text, token_name
from service.render.picture import render_svg


def render_answer(
    scene: Scene,
    query: Mapping[str, Any],
    answer: Mapping[str, Any],
    lines: Sequence[Mapping[str, Any]],
    *,
    view: tuple[float, float, float, float] | None = None,
    chat: bool = False,
    level: Level | None = None,
) -> str:
    """Draw the scene with the traced lines of one answered query, captioned with the answer.

    The query was loaded by ``schemas.requests.RenderQuerySchema`` and answered by the
    operation table (``service.operations.render``); nothing is parsed or asked here.

    Parameters
    ----------
    scene : service.model.Scene
    query : mapping
        The loaded render query: ``{"type": "cover", "ruleset", "attacker" (None for an
        area), "target", "attack": {"kind", "origin"} or None}``, ``{"type": "vision",
        "ruleset", "observer", "target"}``, or ``{"type": "line-of-effect" |
        "line-of-sight", "from", "to"}`` with each end ``{"token": id}`` or ``{"point":
        [x, y], "elevation": z}`` (px, grid units).
    answer : mapping
        The JSON answer of the operation asked (``POST /v1/cover`` or ``/v1/vision`` with
        the one target, ``/v1/line-of-effect`` or ``/v1/line-of-sight``).
    lines : sequence of mapping
        The traced lines to draw, as the API's line dicts (``from``, ``to`` px,
        ``blocked``, ``blockers``).
    view, chat, level
        The area drawn, the chat card's size and the one level drawn (GEO-10), as
        :func:`render_svg` takes them.

    Returns
    -------
    str
        SVG document (:func:`render_svg`) with a caption such as ``"dnd5e: Goblin has half
        cover from Archer (+2 AC) — 5E-COV-1, 5E-COV-3, 5E-COV-5, 5E-COV-4"`` or ``"dnd5e:
        Archer sees Goblin in darkness (darkvision)"``; when either creature is off the
        ground (or has its own height) the caption ends with both creatures' vertical
        extents (GEO-5a), e.g. ``" · Archer 0–5 ft, Bat 30–32.5 ft"``.

    Raises
    ------
    KeyError
        For a query type other than the four above (the schema admits no other).
    """
    caption, highlight = CAPTIONS[str(query["type"])](scene, query, answer)
    return render_svg(
        scene,
        lines=lines,
        caption=caption,
        highlight=highlight,
        show_heights=elevated(scene, highlight),
        view=view,
        chat=chat,
        level=level,
    )


OBSCURED = {"light": "lightly obscured", "heavy": "heavily obscured"}

#: How a caption says a target's light level (5E-VIS-3): "in darkness", never "dark light".
LIGHT_WORDS = {"bright": "in bright light", "dim": "in dim light", "dark": "in darkness"}

#: How a caption names a sense (the vision answer's ``sense``); others: "_" -> " ".
SENSE_WORDS = {
    "devils_sight": "Devil's Sight",
    "low_light_vision": "low-light vision",
    "xray": "X-ray vision",
    "see_invisibility": "See Invisibility",
}

#: How a caption says a detection state other than observed.
DETECTION_WORDS = {"hidden": "hidden", "undetected": "undetected", "unnoticed": "unnoticed"}


def _label(scene: Scene, token_id: str) -> str:
    """A token's name for a caption, with its id when another token has the same name."""
    tok = scene.token(token_id)
    if tok is None:
        return token_id
    name = token_name(tok)
    if sum(1 for t in scene.tokens if token_name(t) == name) > 1:
        return f"{name} ({tok.id})"
    return name


def _rules_text(rule_ids: Iterable[str]) -> str:
    ids = list(rule_ids)
    return f" — {', '.join(ids)}" if ids else ""


def light_words(level: str, magical_darkness: bool = False) -> str:
    """A light level as a caption says it.

    ``"in bright light"``, ``"in dim light"``, ``"in darkness"`` (``"in magical
    darkness"``) for a light level (5E-VIS-3, 5E-VIS-5).
    """
    if magical_darkness:
        return "in magical darkness"
    return LIGHT_WORDS.get(level, f"in {level} light")


def sense_words(sense: str) -> str:
    """A sense as a caption names it.

    A sense of the vision answer as a caption names it (``"devils_sight"`` → ``"Devil's
    Sight"``).
    """
    return SENSE_WORDS.get(sense, sense.replace("_", " "))


def cover_words(degree: str) -> str:
    """A cover degree as a caption says it.

    ``"no cover"``, ``"half cover"``, ``"cover"``
    (Starfinder's plain degree), ``"total cover"``.
    """
    if degree == "none":
        return "no cover"
    return degree if degree.endswith("cover") else f"{degree} cover"


def heights_text(scene: Scene, token_ids: Sequence[str]) -> str:
    """The two creatures' vertical extents for a caption, or ``""``.

    ``" · Elf archer 0–5 ft, Bat 30–32.5 ft"``: the creatures' vertical extents (GEO-5a)
    when one of them is off the ground or has a height of its own; else ``""``.
    """
    toks = [t for t in (scene.token(i) for i in token_ids) if t is not None]
    if not any(t.elevation != 0 or t.vertical_extent is not None for t in toks):
        return ""
    units = scene.grid.units
    parts = [
        f"{_label(scene, t.id)} {height_text(*vertical_span(t, scene.grid), units)}" for t in toks
    ]
    return " · " + ", ".join(parts)


def elevated(scene: Scene, token_ids: Sequence[str]) -> tuple[str, ...]:
    """The ids among ``token_ids`` whose heights a caption gives (:func:`heights_text`)."""
    if not heights_text(scene, token_ids):
        return ()
    return tuple(token_ids)


def _cover_caption(
    scene: Scene, query: Mapping[str, Any], answer: Mapping[str, Any]
) -> tuple[str, tuple[str, ...]]:
    """Caption and highlighted tokens of a cover answer (its one result)."""
    result = answer["results"][0]
    if result["ac_bonus"] is None:
        bonus = " (cannot be targeted)"
    elif result["ac_bonus"]:
        bonus = f" ({result['ac_bonus']:+d} AC)"
    elif result["advantage_levels"]:
        n = result["advantage_levels"]
        bonus = f" ({n} level{'s' if n != 1 else ''} of Advantage on defense)"
    else:
        bonus = ""
    extra = ""
    if result["concealment"] != "none":
        extra = f", {result['concealment']} concealment ({result['miss_chance']}% miss chance)"
    attacker = query.get("attacker")
    origin = (query.get("attack") or {}).get("origin")
    if attacker is not None:
        source = _label(scene, attacker)
    elif origin:
        source = f"an area at ({float(origin[0]):g}, {float(origin[1]):g})"
    else:
        source = "an area"
    target = query["target"]
    pair = (target,) if attacker is None else (attacker, target)
    caption = (
        f"{answer['ruleset']}: {_label(scene, target)} has {cover_words(result['cover'])} "
        f"from {source}{bonus}{extra}{heights_text(scene, pair)}{_rules_text(result['rules'])}"
    )
    return caption, pair


def _vision_caption(
    scene: Scene, query: Mapping[str, Any], answer: Mapping[str, Any]
) -> tuple[str, tuple[str, ...]]:
    """Caption and highlighted tokens of a vision answer (its one result)."""
    r = answer["results"][0]
    observer, target = query["observer"], query["target"]
    who, whom = _label(scene, observer), _label(scene, target)
    where = light_words(r["light"], bool(r.get("magical_darkness")))
    if r["can_see"]:
        said = f"{who} sees {whom} {where} ({sense_words(r['sense'])})"
    elif r["sense"]:
        said = f"{who} does not see {whom} {where}, only perceives it by {sense_words(r['sense'])}"
    else:
        said = f"{who} does not see {whom} {where}"
    details = []
    if not r["line_of_sight"]:
        details.append("no line of sight")
    if r["obscurement"] != "none":
        details.append(OBSCURED.get(r["obscurement"], r["obscurement"]))
    if r["detection"] not in (None, "observed"):
        details.append(DETECTION_WORDS.get(r["detection"], r["detection"]))
    if r["concealed"]:
        details.append(f"concealed (DC {r['flat_check_dc']} flat check)")
    if r["concealment"] != "none":
        details.append(f"{r['concealment']} concealment ({r['miss_chance']}% miss chance)")
    extra = f": {', '.join(details)}" if details else ""
    pair = (observer, target)
    caption = (
        f"{answer['ruleset']}: {said}{extra}{heights_text(scene, pair)}{_rules_text(r['rules'])}"
    )
    return caption, pair


def _end_label(scene: Scene, ref: Mapping[str, Any]) -> str:
    if "token" in ref:
        return _label(scene, ref["token"])
    x, y = ref["point"]
    return f"({float(x):g}, {float(y):g})"


def _blocker_words(scene: Scene, blocker: Mapping[str, Any]) -> str:
    """``"wall inner-north"``, ``"Goblin"`` (a creature, by name), ``"region fog"``.

    A wall or floor of a level names it: ``"surface roof (level Attic)"`` (GEO-10).
    """
    kind, ident = blocker.get("kind", "wall"), str(blocker["id"])
    if kind == "token":
        return _label(scene, ident)
    level = blocker.get("level")
    if level is None:
        return f"{kind} {ident}"
    name = next((lv.name for lv in scene.levels if lv.id == level and lv.name), level)
    return f"{kind} {ident} (level {name})"


def _line_caption(
    scene: Scene, query: Mapping[str, Any], answer: Mapping[str, Any]
) -> tuple[str, tuple[str, ...]]:
    """Caption and highlighted tokens of a line-of-effect or line-of-sight answer."""
    what = "line of effect" if query["type"] == "line-of-effect" else "line of sight"
    if answer["clear"]:
        verdict = "clear"
    elif answer["blockers"]:
        verdict = "blocked by " + ", ".join(_blocker_words(scene, b) for b in answer["blockers"])
    else:
        verdict = "blocked"
    ends = (query["from"], query["to"])
    tokens = tuple(e["token"] for e in ends if "token" in e)
    caption = (
        f"{what} from {_end_label(scene, ends[0])} to {_end_label(scene, ends[1])}: "
        f"{verdict}{heights_text(scene, tokens)}{_rules_text(answer['rules'])}"
    )
    return caption, tokens


Caption = Callable[[Scene, Mapping[str, Any], Mapping[str, Any]], tuple[str, tuple[str, ...]]]


#: The caption (and highlighted tokens) of each query type's answer.
CAPTIONS: dict[str, Caption] = {
    "cover": _cover_caption,
    "vision": _vision_caption,
    "line-of-effect": _line_caption,
    "line-of-sight": _line_caption,
}
