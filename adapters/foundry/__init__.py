"""Foundry VTT Scene documents (0.7 to v14) -> canonical Sightline scene.

The adapter is a pure translator (standard library only). It reads one Foundry ``Scene``
document as exported by "Export Data", stored in a NeDB ``.db`` line, unpacked by
``foundryvtt-cli``, or picked out of a world/compendium export, and returns the canonical
scene dict of ``shared/DESIGN.md`` plus counts and warnings.

Frames and units
----------------
* Positions stay in **Foundry canvas pixels**, padding included (``walls[].c``, token
  ``x``/``y`` top-left corners, light ``x``/``y``, region shapes), y grows downward.
  The canonical ``width``/``height`` are therefore those of the whole canvas:
  ``width + 2 * ceil(width * padding / size) * size`` (same for y).
* Wall endpoint order is kept: one-way walls (GEO-3) depend on it.
* Radii, sight ranges, detection ranges, wall thresholds and elevations are in grid
  distance units (``grid.distance`` units per ``grid.size`` px), exactly as Foundry stores them.

Decisions taken where Foundry data has no direct canonical meaning
-------------------------------------------------------------------
* 0.7/0.8 walls have one ``sense`` field for sight and light. A wall without ``sound``
  (0.7) gets the sight value for sound too: in those versions sound was not blocked
  separately, and a wall that stops sight is the closest guess for one that stops sound.
* An unknown restriction value becomes ``"normal"`` with a warning: a wall that blocks
  is safer than one that silently vanishes.
* Foundry v10+ ``sight.range`` is "how far the token sees without a light source"; for the
  ``basic``/``darkvision``/``monochromatic`` vision modes it is read as darkvision. The
  ``sight.enabled`` flag (usually off on NPCs) does not change the sense.
* An unlimited range (``null`` in ``sight.range`` or a detection mode) becomes
  :data:`UNLIMITED_RANGE` units, because canonical sense ranges are numbers.
* Light ``angle`` is normalised like Foundry's ``AngleField(base=360)``: 0 (found on
  every light of the v9 Redbrand sample) and 360 both mean an omnidirectional light.
* Hidden ambient lights are switched off in Foundry: they are imported with ``on: false``
  and one warning names them. 0.7/0.8 universal lights (``t: "u"``) ignore walls
  (``walls: false``), as Foundry's own migration has it.
* A token is a creature unless the export says it has no actor (``actorId`` null or
  empty): those props and markers are left out, with a warning listing them.
* Heights (GEO-5, GEO-5a): walls from Wall Height (``flags["wall-height"].top/bottom``,
  older ``flags.wallHeight``) or Levels (``flags.levels.rangeBottom/rangeTop``); token
  heights (``vertical_extent``) from Wall Height ``tokenHeight`` (0 = from size) or Levels
  ``tokenHeight``; light elevation from v12+ ``elevation`` or Levels
  ``rangeBottom``. ``stats["read"]`` says how many came from each source.
* Floors (GEO-5, GEO-10, ``adapters.foundry.levels``): v14 ``levels`` and the Levels
  module's ``sceneLevels`` become ``levels``; v14 "Define Surface" regions, or Levels floor
  tiles, become ``surfaces``; walls, lights and regions on one v14 level name it, and a
  wall without a height flag takes its levels' range; the Levels module's inclusive ranges
  are read as GEO-5 says. A v14 token's ``depth`` (grid spaces) times ``grid.distance`` is
  its height.
* A v12+ "Adjust Darkness Level" region behaviour gives the region's ``light`` (GEO-9):
  the global light's level at the region's darkness level.
* The diagonal rule stays unset (each ruleset's default, GEO-8) unless the export carries
  one: a ``grid.diagonals`` number, or a world export's ``core.gridDiagonals`` (v12+) or
  ``dnd5e.diagonalMovement`` setting.
* Negative 0.7/0.8 light radii are read as a darkness source (unverified).
* A wall height or region elevation whose bottom lies above its top is dropped (the wall
  then spans all heights, which blocks more rather than less) with a warning.
* When the canvas size cannot be computed (no positive numeric ``width``/``height``) the
  canonical ``width``/``height`` are ``None`` (unknown; the schema allows it) with a warning.

References
----------
shared/FORMATS.md (a) and its "Pitfalls"; shared/DESIGN.md "Canonical scene";
shared/RULES.md GEO-3 (one-way walls), GEO-4 (limited/proximity walls), GEO-5 (heights).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters._common import scene_stats
from adapters.foundry._context import Context, as_list
from adapters.foundry.grid import canvas_size, read_environment, read_grid
from adapters.foundry.levels import count_stairs, read_inclusive, read_levels, read_surfaces
from adapters.foundry.lights import read_lights
from adapters.foundry.regions import read_regions
from adapters.foundry.scenes import detect_version, has_grid_info, parse_nedb, select_scene
from adapters.foundry.tokens import UNLIMITED_RANGE, read_tokens
from adapters.foundry.walls import read_walls
from adapters.sniff import sniff

__all__ = ["UNLIMITED_RANGE", "count_export", "parse_nedb", "to_scene"]

_UNMAPPED = {
    "drawings": "drawings",
    "tiles": "tiles",
    "sounds": "ambient sounds",
    "templates": "measured templates",
    "notes": "map notes",
}
_HEIGHT_FLAGS = ("wall-height", "wallHeight", "levels")


def to_scene(export: Mapping | list, *, scene: str | None = None) -> dict:
    """Translate a Foundry VTT scene export into the canonical scene.

    Parameters
    ----------
    export : Mapping or list
        One Foundry ``Scene`` document (any version 0.7 to v14), or a list of scene
        documents (e.g. from :func:`parse_nedb`), or a mapping with a ``"scenes"`` list
        (world export).
    scene : str, optional
        Which scene of a multi-scene export to use: its ``name``, its ``_id`` or its
        0-based index written as a string. Required when the export holds several scenes.

    Returns
    -------
    dict
        ``{"scene": canonical scene, "stats": {...}, "warnings": [str, ...]}``.
        ``scene`` follows shared/DESIGN.md: positions in Foundry canvas px (padding
        included, y down), wall endpoints in their original order, token sizes in
        squares, radii/ranges/elevations/heights in grid units. ``stats`` counts what the
        canonical scene holds (``walls``, ``doors`` (door != "none"), ``tokens``,
        ``lights``, ``token_lights`` (tokens carrying a light), ``regions``,
        ``lights_off``, ``walls_with_height``, ``tokens_with_height``,
        ``regions_with_light``; in a building (GEO-10) also ``levels``, ``surfaces``,
        ``stairs``, ``walls_on_levels``, ``lights_on_levels``, ``regions_on_levels``)
        and adds ``foundry_version`` (best guess: "0.7", "0.8",
        "9", "10", "11", "12", "13", ...), ``darkness`` (the raw scene darkness, 0-1, or
        None when absent) and ``read``: where the grid type, diagonal rule and units were
        read (``{"grid.type": "grid.type HEXODDQ (4): hex-col, odd columns shifted", ...}``)
        and how many heights, elevations and region light levels came from each source
        (``{"wall heights: flags.wall-height.bottom/top": 413, ...}``). ``warnings`` name
        the source path of everything that was skipped, defaulted or not mapped.

    Raises
    ------
    AdapterError
        When the export is not a Foundry scene (not a mapping, neither ``walls`` nor grid
        information, ``walls`` not a list), when the grid size is missing, zero or not a
        number (path ``("grid",)`` or ``("grid", "size")``), or when the wanted scene
        cannot be picked out of a multi-scene export. Nothing else is raised.

    References
    ----------
    shared/FORMATS.md (a); shared/DESIGN.md "Canonical scene"; shared/RULES.md GEO-3, GEO-4.
    """
    warnings: list[str] = []
    doc, prefix = select_scene(export, scene, warnings)
    ctx = Context(version=detect_version(doc), prefix=prefix, warnings=warnings)
    _check_scene(doc, export, ctx)
    settings = export.get("settings") if isinstance(export, Mapping) else None
    grid, grid_read = read_grid(doc, ctx, settings)
    ctx.distance = grid["distance"]
    canonical: dict[str, Any] = {"grid": grid}
    canonical.update(canvas_size(doc, ctx.cell_px, ctx))
    environment, darkness, global_light = read_environment(doc, ctx)
    canonical["environment"] = environment
    canonical["levels"] = read_levels(doc, ctx)
    canonical["walls"] = read_walls(doc, ctx)
    canonical["tokens"] = read_tokens(doc, ctx)
    canonical["lights"] = read_lights(doc, ctx)
    canonical["regions"] = read_regions(doc, ctx, darkness, global_light)
    canonical["surfaces"] = read_surfaces(doc, ctx)
    read_inclusive(canonical, ctx)
    stairs = count_stairs(doc, ctx)
    _unmapped(doc, ctx, bool(canonical["surfaces"]))
    stats: dict[str, Any] = scene_stats(canonical)
    stats.update(_foundry_stats(canonical))
    if canonical["levels"] or canonical["surfaces"] or stairs:  # others import as before
        stats.update(_level_stats(canonical, stairs))
    stats.update(
        {"foundry_version": ctx.version, "darkness": darkness, "read": {**grid_read, **ctx.read}}
    )
    return {"scene": canonical, "stats": stats, "warnings": ctx.warnings}


def count_export(doc: Mapping) -> tuple[dict[str, int], dict[str, str]]:
    """What one Foundry scene document holds, from its arrays alone; and where it was read.

    ``walls``, ``tokens``, ``lights``: the lengths of those arrays; ``regions``: the shapes
    of every v12+ region (each becomes a canonical region); ``region_points``: the points of
    its polygon shapes (flat ``points`` arrays, two numbers a point). Nothing is translated.
    Cost: O(regions + shapes).
    """
    counts = {key: _length(doc.get(key)) for key in ("walls", "tokens", "lights")}
    shapes = [
        shape
        for region in _items(doc.get("regions"))
        for shape in _items(region.get("shapes") if isinstance(region, Mapping) else None)
    ]
    counts["regions"] = len(shapes)
    counts["region_points"] = sum(
        _length(shape.get("points")) // 2 for shape in shapes if isinstance(shape, Mapping)
    )
    where = {k: k for k in counts}
    where.update(regions="regions[].shapes", region_points="regions[].shapes[].points")
    return counts, where


def _length(value: object) -> int:
    return len(value) if isinstance(value, list) else 0


def _items(value: object) -> list:
    return value if isinstance(value, list) else []


def _check_scene(doc: Mapping, export: object, ctx: Context) -> None:
    """Raise unless ``doc`` is a Foundry scene: ``walls`` a list, walls or grid fields."""
    if not isinstance(doc.get("walls"), list | None):
        raise ctx.error(f"'walls' must be a list, got {type(doc['walls']).__name__}", "walls")
    if "walls" not in doc and not has_grid_info(doc):
        other = sniff(export)
        hint = f"; this looks like a {other} export: use format {other!r}" if other else ""
        raise ctx.error("not a Foundry scene: neither 'walls' nor grid information" + hint)


def _foundry_stats(canonical: Mapping[str, Any]) -> dict[str, int]:
    """Counts of what only a Foundry scene carries: lights off, heights, region light."""
    return {
        "lights_off": sum(1 for light in canonical["lights"] if not light["on"]),
        "walls_with_height": sum(1 for w in canonical["walls"] if w["height"] is not None),
        "tokens_with_height": sum(
            1 for t in canonical["tokens"] if t["vertical_extent"] is not None
        ),
        "regions_with_light": sum(1 for r in canonical["regions"] if r["light"] is not None),
    }


def _level_stats(canonical: Mapping[str, Any], stairs: int) -> dict[str, int]:
    """Counts of the floors (GEO-10): levels, surfaces, stairs and the members of levels."""
    return {
        "levels": len(canonical["levels"]),
        "surfaces": len(canonical["surfaces"]),
        "stairs": stairs,
        "walls_on_levels": sum(1 for w in canonical["walls"] if w.get("level")),
        "lights_on_levels": sum(1 for li in canonical["lights"] if li.get("level")),
        "regions_on_levels": sum(1 for r in canonical["regions"] if r.get("level")),
    }


def _unmapped(doc: Mapping, ctx: Context, floors_read: bool = False) -> None:
    """One warning per non-empty collection the canonical scene has no place for."""
    for key, label in _UNMAPPED.items():
        value = doc.get(key)
        if isinstance(value, list) and value:
            ctx.warn(f"{key}: {len(value)} {label} not mapped")
    floors = [
        t
        for t in as_list(doc.get("tiles"))
        if isinstance(t, Mapping)
        and isinstance(t.get("flags"), Mapping)
        and isinstance(t["flags"].get("levels"), Mapping)
        and isinstance(t["flags"]["levels"].get("rangeBottom"), (int, float))
    ]
    if floors and not floors_read:
        heights = [f"{h:g}" for h in sorted({t["flags"]["levels"]["rangeBottom"] for t in floors})]
        ctx.warn(
            f"tiles: {len(floors)} Levels floor tiles (at {', '.join(heights)}) are not "
            "modelled: floors do not block lines between creatures on different floors; "
            "only the walls' height ranges separate the floors"
        )
    namespaces: set[str] = set()
    for key in ("walls", "tokens", "lights", "regions"):
        for entry in as_list(doc.get(key)):
            flags = entry.get("flags") if isinstance(entry, Mapping) else None
            if not isinstance(flags, Mapping):
                continue
            for ns, value in flags.items():
                if value in (None, {}, [], "") or (key != "regions" and ns in _HEIGHT_FLAGS):
                    continue
                namespaces.add(str(ns))
    if namespaces:
        ctx.warn(f"flags: module data not mapped ({', '.join(sorted(namespaces))})")
