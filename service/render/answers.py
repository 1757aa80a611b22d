""":func:`render_answer`: the picture of one answered query, captioned with the answer.

References
----------
shared/API.md "Batch and pictures".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from service.model import Scene
from service.render.frame import token_name
from service.render.picture import render_svg


def render_answer(
    scene: Scene,
    query: Mapping[str, Any],
    answer: Mapping[str, Any],
    lines: Sequence[Mapping[str, Any]],
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

    Returns
    -------
    str
        SVG document (:func:`render_svg`) with a caption such as ``"dnd5e cover of Goblin
        from Archer: half (+2 AC) — 5E-COV-1, 5E-COV-3, 5E-COV-5, 5E-COV-4"``.

    Raises
    ------
    KeyError
        For a query type other than the four above (the schema admits no other).
    """
    caption, highlight = CAPTIONS[str(query["type"])](scene, query, answer)
    return render_svg(scene, lines=lines, caption=caption, highlight=highlight)


OBSCURED = {"light": "lightly obscured", "heavy": "heavily obscured"}


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
        extra = f", {result['concealment']} concealment ({result['miss_chance']}% miss)"
    attacker = query.get("attacker")
    origin = (query.get("attack") or {}).get("origin")
    if attacker is not None:
        source = _label(scene, attacker)
    elif origin:
        source = f"area origin ({float(origin[0]):g}, {float(origin[1]):g})"
    else:
        source = "an area"
    target = query["target"]
    caption = (
        f"{answer['ruleset']} cover of {_label(scene, target)} from {source}: "
        f"{result['cover']}{bonus}{extra}{_rules_text(result['rules'])}"
    )
    return caption, (target,) if attacker is None else (attacker, target)


def _vision_caption(
    scene: Scene, query: Mapping[str, Any], answer: Mapping[str, Any]
) -> tuple[str, tuple[str, ...]]:
    """Caption and highlighted tokens of a vision answer (its one result)."""
    r = answer["results"][0]
    if r["can_see"]:
        said = f"seen ({r['sense']}, {r['light']} light)"
    elif r["sense"]:
        said = f"not seen (only {r['sense']}; {r['light']} light)"
    else:
        said = f"not seen ({r['light']} light)"
    details = []
    if not r["line_of_sight"]:
        details.append("no line of sight")
    if r["obscurement"] != "none":
        details.append(OBSCURED.get(r["obscurement"], r["obscurement"]))
    if r["detection"] != "observed":
        details.append(r["detection"])
    if r["concealed"]:
        details.append(f"concealed (DC {r['flat_check_dc']})")
    if r["concealment"] != "none":
        details.append(f"{r['concealment']} concealment ({r['miss_chance']}% miss)")
    extra = f", {', '.join(details)}" if details else ""
    observer, target = query["observer"], query["target"]
    caption = (
        f"{answer['ruleset']} vision of {_label(scene, target)} from {_label(scene, observer)}: "
        f"{said}{extra}{_rules_text(r['rules'])}"
    )
    return caption, (observer, target)


def _end_label(scene: Scene, ref: Mapping[str, Any]) -> str:
    if "token" in ref:
        return _label(scene, ref["token"])
    x, y = ref["point"]
    return f"({float(x):g}, {float(y):g})"


def _line_caption(
    scene: Scene, query: Mapping[str, Any], answer: Mapping[str, Any]
) -> tuple[str, tuple[str, ...]]:
    """Caption and highlighted tokens of a line-of-effect or line-of-sight answer."""
    what = "line of effect" if query["type"] == "line-of-effect" else "line of sight"
    if answer["clear"]:
        verdict = "clear"
    elif answer["blockers"]:
        verdict = "blocked by " + ", ".join(b["id"] for b in answer["blockers"])
    else:
        verdict = "blocked"
    ends = (query["from"], query["to"])
    caption = (
        f"{what} from {_end_label(scene, ends[0])} to {_end_label(scene, ends[1])}: "
        f"{verdict}{_rules_text(answer['rules'])}"
    )
    return caption, tuple(e["token"] for e in ends if "token" in e)


Caption = Callable[[Scene, Mapping[str, Any], Mapping[str, Any]], tuple[str, tuple[str, ...]]]


#: The caption (and highlighted tokens) of each query type's answer.
CAPTIONS: dict[str, Caption] = {
    "cover": _cover_caption,
    "vision": _vision_caption,
    "line-of-effect": _line_caption,
    "line-of-sight": _line_caption,
}
