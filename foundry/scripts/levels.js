/**
 * Floors of a live Foundry v14 building -> canonical levels and surfaces (RULES GEO-5, GEO-10).
 *
 * Foundry v14 (FORMATS.md pitfall 15) embeds `Level` documents in the scene
 * (`scene.levels`: `{id, name, elevation: {bottom, top}}`); walls, lights and regions list the
 * levels they are on (`levels`, an array in an export, a Set in a live document: both are
 * read); floors are regions with a "Define Surface" behaviour (`defineSurface`:
 * `system.placement` `bottom`/`top`, `move`/`sight`/`light`/`sound`); a token's `depth` (grid
 * spaces) is its height. The mapping is the importer's (adapters/foundry/levels.py,
 * `_context.py` `level_ids`/`one_level`/`level_range`, walls.py `_wall_level`, tokens.py
 * `_vertical_extent`), so the module's scene and the imported export give the same answers
 * (test/parity.test.mjs on the two real v14 buildings). The Levels module's floors (v9 to
 * v13: `sceneLevels`, floor tiles) are the importer's alone.
 *
 * Units: elevations in grid units, outlines in canvas px.
 */

import { outlineRings } from "./shapes.js";
import { bound, docs, finite } from "./values.js";

/**
 * Canonical levels of the scene's v14 `Level` documents: `{id, name, bottom, top}` (grid
 * units; a bound null when unset or infinite, both null when bottom lies above top). Levels
 * without an id are left out.
 *
 * @param {object} scene  the Scene document (`levels`)
 * @returns {object[]}
 */
export function buildLevels(scene) {
  const levels = [];
  for (const doc of docs(scene.levels)) {
    const id = doc.id ?? doc._id;
    if (typeof id !== "string" || !id) continue;
    const elevation = doc.elevation && typeof doc.elevation === "object" ? doc.elevation : {};
    let bottom = bound(elevation.bottom);
    let top = bound(elevation.top);
    if (bottom !== null && top !== null && bottom > top) bottom = top = null;
    levels.push({ id, name: doc.name ? String(doc.name) : "", bottom, top });
  }
  return levels;
}

/** Level id -> `{bottom, top}` (grid units), in the scene's order. */
export function levelTable(levels) {
  return new Map(levels.map((lv) => [lv.id, { bottom: lv.bottom, top: lv.top }]));
}

/** The known levels a wall, light or region lists (`levels`: array or Set of ids). */
export function levelIds(doc, table) {
  const listed = doc?.levels;
  if (!listed || typeof listed === "string" || typeof listed[Symbol.iterator] !== "function") return [];
  return [...listed].filter((id) => typeof id === "string" && table.has(id));
}

/** The level of an item that lists exactly one known level (GEO-10), else null. */
export function oneLevel(doc, table) {
  const ids = levelIds(doc, table);
  return ids.length === 1 ? ids[0] : null;
}

/** `{bottom, top}` from the lowest bottom to the highest top of the levels `ids`, or null. */
function levelRange(ids, table) {
  const spans = ids.map((id) => table.get(id));
  if (!spans.length) return null;
  const bottoms = spans.map((s) => s.bottom);
  const tops = spans.map((s) => s.top);
  return {
    bottom: bottoms.includes(null) ? null : Math.min(...bottoms),
    top: tops.includes(null) ? null : Math.max(...tops),
  };
}

/**
 * A wall's height range and level (GEO-5, GEO-10): the height flags' range when there is
 * one, else the range of the levels it lists; `level` when it lists exactly one.
 *
 * @param {object} doc          the Wall document
 * @param {Map} table           `levelTable` of the scene
 * @param {object|null} height  the range its Wall Height / Levels flags give
 * @returns {{height: object|null, level: string|null}}
 */
export function wallLevel(doc, table, height) {
  const ids = levelIds(doc, table);
  if (!ids.length) return { height, level: null };
  return { height: height ?? levelRange(ids, table), level: ids.length === 1 ? ids[0] : null };
}

/** `item` with `level` set when `level` is an id (other scenes keep their shape). */
export function withLevel(item, level) {
  if (level !== null && level !== undefined) item.level = level;
  return item;
}

/**
 * A v14 token's height in grid units: `depth` (grid spaces) times `grid.distance`, or null
 * (no depth, or a height out of (0, maxUnits]).
 */
export function tokenDepth(doc, distance, maxUnits) {
  const depth = finite(doc.depth);
  if (depth === null) return null;
  const height = depth * distance;
  return height > 0 && height <= maxUnits ? height : null;
}

/** The level whose `[bottom, top)` holds `elevation`, if any (GEO-10). */
function levelAt(elevation, table) {
  for (const [id, { bottom, top }] of table) {
    if ((bottom === null || bottom <= elevation) && (top === null || elevation < top)) return id;
  }
  return null;
}

/** Polygons `[exterior, ...holes]` of a region's shapes: its holes joined to the first. */
function outline(shapes, cellPx) {
  const exteriors = [];
  const holes = [];
  for (const shape of shapes) {
    if (!shape || typeof shape !== "object") continue;
    (shape.hole === true ? holes : exteriors).push(...outlineRings(shape, cellPx));
  }
  if (!exteriors.length) return [];
  const polygons = exteriors.map((ring) => [ring]);
  polygons[0].push(...holes);
  return polygons;
}

/**
 * Canonical surfaces (GEO-10) of the regions' enabled "Define Surface" behaviours: the
 * region's shapes (holes kept as holes) at its `elevation.bottom` (`placement` `bottom`) or
 * `top`, blocking what the behaviour's `move`/`sight`/`light`/`sound` say (all but an explicit
 * false). Regions without that elevation or a usable shape give none.
 *
 * @param {object} scene   the Scene document (`regions`, their `behaviors`)
 * @param {Map} table      `levelTable` of the scene
 * @param {number} cellPx  the scene's grid size in px
 * @returns {object[]} `{id, outline, elevation, blocks, level}`
 */
export function buildSurfaces(scene, table, cellPx) {
  const surfaces = [];
  docs(scene.regions).forEach((region, i) => {
    docs(region.behaviors).forEach((behavior, j) => {
      if (behavior.type !== "defineSurface" || behavior.disabled === true) return;
      const system = behavior.system && typeof behavior.system === "object" ? behavior.system : {};
      const key = system.placement === "top" ? "top" : "bottom";
      const elevation = finite(region.elevation?.[key]);
      if (elevation === null) return;
      const polygons = outline(Array.isArray(region.shapes) ? region.shapes : [], cellPx);
      if (!polygons.length) return;
      const rid = region.id ?? region._id;
      let id = typeof rid === "string" && rid ? rid : `surface-regions[${i}]`;
      if (surfaces.some((s) => s.id === id)) id = `${id}-${j}`;
      const blocks = Object.fromEntries(["move", "sight", "light", "sound"].map((s) => [s, system[s] !== false]));
      surfaces.push({ id, outline: polygons, elevation, blocks, level: levelAt(elevation, table) });
    });
  });
  return surfaces;
}
