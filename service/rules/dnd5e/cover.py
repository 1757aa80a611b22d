"""dnd5e cover: the seed's paired-corner method and the published corner variant.

Rules 5E-COV-1..8 of ``shared/RULES.md`` (Chinese seed ``dnd5e-zh_001``). Geometry measures
which of the traced corner lines cross a wall restricting movement/effect (GEO-1) or the
space of another creature (GEO-7); this module maps those counts to a degree.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from service import geometry
from service.model import Token
from service.rules.base import (
    Attack,
    CoverResult,
    OptionSpec,
    SceneGeometry,
    VisionResult,
    attack_source,
    corner_inset,
    lines_from_trace,
    obstacle_tokens,
    scene_modifiers,
)

DEGREES = ("none", "half", "three-quarters", "total")

#: 5E-COV-3: bonus to AC and Dexterity saves per degree (None: cannot be targeted).
BONUS: dict[str, int | None] = {"none": 0, "half": 2, "three-quarters": 5, "total": None}

#: 5E-COV-5: blocked paired-corner lines (of 4) -> degree.
PAIRED_CORNERS = {0: "none", 1: "none", 2: "half", 3: "three-quarters", 4: "total"}

#: 5E-COV-8 (dmg-corner): blocked lines from the chosen corner (of 4) -> degree; 4 blocked
#: is total only when there is no line of effect at all.
DMG_CORNER = {0: "none", 1: "half", 2: "half", 3: "three-quarters", 4: "three-quarters"}

OPTIONS = {
    "cover_method": OptionSpec(
        "paired-corners",
        "5E-COV-8: 'paired-corners' (the seed, A1A2..D1D2) or 'dmg-corner' (the attacker's "
        "best corner to all four target corners).",
        ("paired-corners", "dmg-corner"),
    ),
    "corner_inset": OptionSpec(
        geometry.DEFAULT_CORNER_INSET_PX,
        "GEO-6: px by which traced corner points move toward the square's centre.",
    ),
}


def _rank(degree: str) -> int:
    return DEGREES.index(degree)


def _combine(wall_degree: str, any_degree: str) -> tuple[str, bool]:
    """Highest single source (5E-COV-4), creatures and low walls capped at half (5E-COV-6).

    Returns the degree and whether the creature cap decided it.
    """
    capped = any_degree if _rank(any_degree) <= _rank("half") else "half"
    if _rank(capped) > _rank(wall_degree):
        return capped, True
    return wall_degree, _rank(any_degree) > _rank(wall_degree)


class Dnd5e:
    """The ``dnd5e`` rule system (Chinese seed)."""

    id: str = "dnd5e"
    title: str = "D&D 5e with the seed's house rules"
    cover_degrees: tuple[str, ...] = DEGREES
    options: dict[str, OptionSpec] = OPTIONS
    extra_capabilities: tuple[str, ...] = ("modifiers/gravity", "modifiers/underwater")
    diagonals: str = "equidistant"

    def cover(
        self,
        geo: SceneGeometry,
        attacker: Token | None,
        target: Token,
        attack: Attack,
        options: dict[str, Any],
    ) -> CoverResult:
        """Cover of ``target`` (5E-COV-1..8).

        Parameters
        ----------
        geo : SceneGeometry
        attacker : Token or None
            ``None`` only for an area effect with ``attack.origin``.
        target : Token
        attack : Attack
            For ``kind == "area"``, the four lines run from ``attack.origin`` (px) to the
            target's four corners.
        options : dict
            ``cover_method`` (``paired-corners`` | ``dmg-corner``), ``corner_inset`` px.

        Returns
        -------
        CoverResult
            ``cover`` in ``none|half|three-quarters|total``; ``ac_bonus``/``save_bonus``
            +2 / +5 (5E-COV-3); ``lines`` the four traced lines that decided it.

        Raises
        ------
        RulesError
            An area effect without ``origin`` and without an attacker.
        """
        inset = corner_inset(options)
        method = options.get("cover_method") or "paired-corners"
        target_box = geo.token_boxes[target.id]
        target_corners = geometry.inset_corners(target_box, inset)
        source_box, source_elev, from_origin = attack_source(geo, attacker, target, attack)
        if from_origin:
            source_points = np.array([source_box[:2]] * 4, dtype=np.float64)
            method_used = "paired-corners"
        else:
            source_points = geometry.inset_corners(source_box, inset)
            method_used = method

        # GEO-7 / 5E-COV-1: other creatures are solid obstacles; 5E-COV-7: a creature sharing
        # the attacker's or the target's space gives no cover.
        obstacles, shared = obstacle_tokens(geo, attacker, target, source_box)
        others = [t.id for t in obstacles]
        boxes = np.array([geo.token_boxes[t] for t in others], dtype=np.float64).reshape(-1, 4)

        if method_used == "dmg-corner":
            pairs = np.array(
                [[*s, *t] for s in source_points for t in target_corners], dtype=np.float64
            )
        else:
            pairs = np.hstack([source_points, target_corners])
        elev = np.tile([source_elev, target.elevation], (len(pairs), 1)).astype(np.float64)
        traced = geometry.trace(
            geo.walls, pairs, "move", elevations=elev, creature_boxes=boxes, creature_ids=others
        )
        # Low walls (about half a creature's height) are the seed's example of half cover
        # (5E-COV-3): like creatures, they give at most half cover.
        full_blocked = traced.wall_blocked
        if geo.tall_walls is not None:
            full_blocked = geometry.trace(
                geo.walls, pairs, "move", elevations=elev, wall_mask=geo.tall_walls
            ).wall_blocked
        # A traced corner line that no wall blocks is itself a line of effect (5E-LOE-2);
        # the exact search is needed only when every one is blocked.
        loe_clear = (
            not full_blocked.all()
            or geometry.line_of_effect_between(
                geo.walls,
                geometry.inset_box(source_box, inset) if attacker is not None else source_box,
                geometry.inset_box(target_box, inset),
                "move",
                elevations=(source_elev, target.elevation),
                wall_mask=geo.tall_walls,
            ).clear
        )

        rules = ["5E-COV-1", "5E-COV-3"]
        if method_used == "dmg-corner":
            rules.append("5E-COV-8")
            best = None
            for c in range(4):
                rows = slice(4 * c, 4 * c + 4)
                n_wall = int(full_blocked[rows].sum())
                n_any = int(traced.blocked[rows].sum())
                wall_degree = DMG_CORNER[n_wall]
                if n_wall == 4 and not loe_clear:
                    wall_degree = "total"
                degree, by_creature = _combine(wall_degree, DMG_CORNER[n_any])
                if best is None or _rank(degree) < _rank(best[0]):
                    best = (degree, by_creature, c)
            assert best is not None
            degree, by_creature, c = best
            lines = lines_from_trace(traced, geo.walls, slice(4 * c, 4 * c + 4))
        else:
            rules.append("5E-COV-5")
            n_wall = int(full_blocked.sum())
            n_any = int(traced.blocked.sum())
            degree, by_creature = _combine(PAIRED_CORNERS[n_wall], PAIRED_CORNERS[n_any])
            lines = lines_from_trace(traced, geo.walls)
        if by_creature:
            rules.append("5E-COV-6")
            if geo.tall_walls is not None:
                notes_cap = "Creatures and low walls give at most half cover (5E-COV-3, 5E-COV-6)."
            else:
                notes_cap = ""
        else:
            notes_cap = ""
        if shared:
            rules.append("5E-COV-7")
        if _rank(degree) > 0:
            rules.append("5E-COV-4")
        notes = [notes_cap] if notes_cap else []
        if degree == "total" and loe_clear:
            notes.append(
                "All four corner lines are blocked (total cover by 5E-COV-5), although some "
                "other straight line between the spaces is clear (5E-LOE-2)."
            )
        if shared:
            notes.append("Sharing a space, no cover from: " + ", ".join(shared))
        return CoverResult(
            target=target.id,
            cover=degree,
            ac_bonus=BONUS[degree],
            save_bonus=BONUS[degree],
            advantage_levels=0,
            can_target=degree != "total",
            line_of_effect=loe_clear,
            rules=tuple(sorted(set(rules), key=rules.index)),
            lines=lines,
            notes=tuple(notes),
            modifiers=scene_modifiers(geo, attacker, target, attack),
        )

    def vision(
        self, geo: SceneGeometry, observer: Token, target: Token, options: dict[str, Any]
    ) -> VisionResult:
        """See the module-level ``vision``."""
        return vision(geo, observer, target, options)

    def vision_inset(self, options: dict[str, Any]) -> float:
        """Inset in px by which both spaces shrink before ``vision`` traces lines (GEO-6)."""
        return corner_inset(options)

    def cover_matrix(
        self, geo: SceneGeometry, tokens: list[Token], options: dict[str, Any]
    ) -> list[list[str | None]]:
        """See the module-level ``cover_matrix``."""
        return cover_matrix(geo, tokens, options)


RULESET = Dnd5e()


#: 5E-VIS rule id for each sense that locates a target.
SENSE_RULE = {
    "sight": "5E-VIS-4",
    "darkvision": "5E-VIS-5",
    "devils_sight": "5E-VIS-6",
    "truesight": "5E-VIS-7",
    "blindsight": "5E-VIS-8",
    "xray": "5E-VIS-9",
}
_OBSCURE_RANK = {"none": 0, "light": 1, "heavy": 2}


def _worse(a: str, b: str) -> str:
    return a if _OBSCURE_RANK[a] >= _OBSCURE_RANK[b] else b


def vision(
    geo: SceneGeometry, observer: Token, target: Token, options: dict[str, Any]
) -> VisionResult:
    """What ``observer`` perceives of ``target`` under dnd5e (5E-VIS-1..10).

    Returns
    -------
    VisionResult
        ``can_see``/``sense`` (the first precise sense that reaches, else ``hearing``),
        ``light`` over the target's space, ``obscurement`` (``none|light|heavy``) as this
        observer experiences it, ``perception_disadvantage`` when lightly obscured.
    """
    from service.senses import VISUAL, perceive

    inset = RULESET.vision_inset(options)
    report = perceive(geo, observer, target, diagonals=RULESET.diagonals, inset=inset)
    sense = report.first_precise()
    rules = ["5E-VIS-3"]
    level = report.light.level
    if report.light.magical_darkness:
        rules.append("5E-VIS-5")
    from_light = {"bright": "none", "dim": "light", "dark": "heavy"}[level]
    if sense in ("blindsight", "tremorsense"):
        obscurement = "none"
    elif sense == "truesight":
        obscurement = report.obscurement if report.obscurement != "heavy" else "none"
    elif sense in ("darkvision", "devils_sight"):
        obscurement = _worse("light", report.obscurement)
    elif sense is not None:  # sight or x-ray in light
        obscurement = _worse(from_light, report.obscurement)
        if sense == "xray":
            obscurement = from_light
    else:
        obscurement = _worse(from_light, report.obscurement)
    if sense is not None:
        rules.append(SENSE_RULE.get(sense, "5E-VIS-8"))
    if not report.line_of_sight and any(b.kind == "region" for b in report.blockers):
        rules.append("5E-VIS-2")
    if report.obscurement != "none" or obscurement != "none":
        rules.append("5E-VIS-1")
    heard = sense is None and report.reaches["hearing"]
    notes = []
    if report.invisible and sense in ("truesight", "blindsight", "tremorsense"):
        notes.append(f"Invisible, but {sense} perceives it.")
    if sense is None and not report.line_of_sight:
        notes.append("No line of sight.")
    return VisionResult(
        target=target.id,
        can_see=sense is not None,
        sense=sense if sense is not None else ("hearing" if heard else None),
        light=level,
        magical_darkness=report.light.magical_darkness,
        distance=report.distance,
        line_of_sight=report.line_of_sight,
        rules=tuple(dict.fromkeys(rules)),
        obscurement=obscurement,
        perception_disadvantage=obscurement == "light" and (sense is None or sense in VISUAL),
        blockers=report.blockers,
        notes=tuple(notes),
    )


def cover_matrix(
    geo: SceneGeometry, tokens: list[Token], options: dict[str, Any]
) -> list[list[str | None]]:
    """dnd5e cover for every ordered pair of ``tokens`` in one vectorised trace.

    Same answers as ``Dnd5e.cover`` with a ranged attack (5E-COV-4..8): all corner segments
    of all pairs (4 per pair, or 16 with ``dmg-corner``) are traced in one call, with
    creatures other than the pair as obstacles; exact line of effect is computed only for
    the pairs whose every line is blocked by walls (the only ones that can be total).

    Returns
    -------
    list of list of str or None
        ``[attacker][target]`` degree; the diagonal is ``None``.
    """
    inset = corner_inset(options)
    method = options.get("cover_method") or "paired-corners"
    n = len(tokens)
    out: list[list[str | None]] = [[None] * n for _ in range(n)]
    if n < 2:
        return out
    scene_tokens = list(geo.scene.tokens)
    all_boxes = np.array([geo.token_boxes[t.id] for t in scene_tokens], dtype=np.float64)
    k = len(scene_tokens)
    pos = {t.id: i for i, t in enumerate(scene_tokens)}
    # excluded[i, j]: scene token j gives no cover to a pair involving token i (itself, or
    # sharing its space, 5E-COV-7).
    b = all_boxes
    overlap = (
        (b[:, None, 0] < b[None, :, 2])
        & (b[None, :, 0] < b[:, None, 2])
        & (b[:, None, 1] < b[None, :, 3])
        & (b[None, :, 1] < b[:, None, 3])
    )
    excluded = overlap | np.eye(k, dtype=bool)
    idx = np.array([pos[t.id] for t in tokens])
    ia, it = np.nonzero(~np.eye(n, dtype=bool))
    corners = np.array([geometry.inset_corners(geo.token_boxes[t.id], inset) for t in tokens])
    per = 16 if method == "dmg-corner" else 4
    if per == 4:
        segs = np.concatenate([corners[ia], corners[it]], axis=2).reshape(-1, 4)
    else:
        src = np.repeat(corners[ia], 4, axis=1)  # (P, 16, 2): corner c repeated 4 times
        dst = np.tile(corners[it], (1, 4, 1))  # (P, 16, 2): the 4 target corners
        segs = np.concatenate([src, dst], axis=2).reshape(-1, 4)
    elev = np.array([t.elevation for t in tokens], dtype=np.float64)
    elevations = np.repeat(np.column_stack([elev[ia], elev[it]]), per, axis=0)
    mask = np.repeat(~(excluded[idx[ia]] | excluded[idx[it]]), per, axis=0)
    traced = geometry.trace(
        geo.walls,
        segs,
        "move",
        elevations=elevations,
        creature_boxes=all_boxes,
        creature_ids=[t.id for t in scene_tokens],
        creature_mask=mask,
        with_blockers=False,
    )
    full = traced.wall_blocked
    if geo.tall_walls is not None:
        full = geometry.trace(
            geo.walls,
            segs,
            "move",
            elevations=elevations,
            wall_mask=geo.tall_walls,
            with_blockers=False,
        ).wall_blocked
    n_wall = full.reshape(len(ia), -1, 4).sum(axis=2)  # (P, corners)
    n_any = traced.blocked.reshape(len(ia), -1, 4).sum(axis=2)
    for p, (a, t) in enumerate(zip(ia, it, strict=True)):
        if per == 4:
            degree, _ = _combine(
                PAIRED_CORNERS[int(n_wall[p, 0])], PAIRED_CORNERS[int(n_any[p, 0])]
            )
        else:
            best = None
            # Total needs every corner fully blocked and no line of effect at all.
            sealed = (
                bool((n_wall[p] == 4).all()) and not _loe(geo, tokens[a], tokens[t], inset).clear
            )
            for c in range(4):
                wall_degree = DMG_CORNER[int(n_wall[p, c])]
                if n_wall[p, c] == 4 and sealed:
                    wall_degree = "total"
                degree_c, _ = _combine(wall_degree, DMG_CORNER[int(n_any[p, c])])
                if best is None or _rank(degree_c) < _rank(best):
                    best = degree_c
            assert best is not None
            degree = best
        out[a][t] = degree
    return out


def _loe(geo: SceneGeometry, a: Token, t: Token, inset: float) -> geometry.LineOfEffect:
    return geometry.line_of_effect_between(
        geo.walls,
        geometry.inset_box(geo.token_boxes[a.id], inset),
        geometry.inset_box(geo.token_boxes[t.id], inset),
        "move",
        elevations=(a.elevation, t.elevation),
        wall_mask=geo.tall_walls,
    )
