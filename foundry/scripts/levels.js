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
 * (test/parity.test.mjs on the two real v14 buildings).
 *
 * Foundry v9 to v13 with the Levels module: `flags.levels.sceneLevels` (`[[bottom, top,
 * name], ...]`, inclusive whole numbers) are the levels (ids `sceneLevels-<k>`), floor tiles
 * (`flags.levels.rangeBottom`) the surfaces (the tile's rectangle at that elevation, cut by
 * the hole drawings, `drawingMode` 1, whose `(rangeBottom, rangeTop + 1]` holds it), and the
 * inclusive ranges are read as GEO-5 says (`readInclusive`: a whole top followed by a range
 * starting at top + 1 is `[bottom, top + 1)`; walls and lights then take the level of their
 * range). As the importer's adapters/foundry/levels.py (`_scene_levels`, `_floor_tiles`,
 * `_hole_drawings`, `read_inclusive`); parity on the real v9 Levels tower.
 *
 * Units: elevations in grid units, outlines in canvas px.
 */

import { outlineRings, rectangleRing } from "./shapes.js";
import { bound, docs, finite } from "./values.js";

/** Levels-module `drawingMode` of a hole in the floors. */
const LEVELS_HOLE = 1;

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
  return levels.length ? levels : sceneLevels(scene);
}

/** The Levels module's data on a document (`flags.levels`), or null. */
function levelsFlags(doc) {
  const data = doc?.flags?.levels;
  return data && typeof data === "object" ? data : null;
}

/**
 * The Levels module's floors (v9 to v13): `flags.levels.sceneLevels` `[[bottom, top, name],
 * ...]` as levels `{id: "sceneLevels-<k>", name, bottom, top}`, their ranges as written
 * (inclusive: `readInclusive` widens them). Entries without a bound, or with bottom above
 * top, are left out.
 *
 * @param {object} scene  the Scene document (`flags.levels.sceneLevels`)
 * @returns {object[]}
 */
export function sceneLevels(scene) {
  const raw = levelsFlags(scene)?.sceneLevels;
  const levels = [];
  (Array.isArray(raw) ? raw : []).forEach((entry, k) => {
    if (!Array.isArray(entry) || entry.length < 2) return;
    const bottom = bound(entry[0]);
    const top = bound(entry[1]);
    if ((bottom === null && top === null) || (bottom !== null && top !== null && bottom > top)) return;
    const name = entry.length > 2 && entry[2] !== null && entry[2] !== undefined ? String(entry[2]) : "";
    levels.push({ id: `sceneLevels-${k}`, name, bottom, top });
  });
  return levels;
}

/** Whether the levels are the Levels module's (inclusive ranges, GEO-5). */
export function inclusiveLevels(scene) {
  return !docs(scene.levels).length && sceneLevels(scene).length > 0;
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
  const surfaces = defineSurfaces(scene, table, cellPx);
  return surfaces.length ? surfaces : floorTiles(scene, table);
}

function defineSurfaces(scene, table, cellPx) {
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

/**
 * Levels hole drawings (`drawingMode` 1): `[ring, rangeBottom, rangeTop + 1]` (nulls open);
 * the rectangle's size is `shape.width`/`shape.height` from v10 on, `width`/`height` before.
 */
function holeDrawings(scene) {
  const out = [];
  for (const drawing of docs(scene.drawings)) {
    const data = levelsFlags(drawing);
    if (!data || data.drawingMode !== LEVELS_HOLE) continue;
    const size = drawing.shape && typeof drawing.shape === "object" ? drawing.shape : drawing; // v10+: shape
    const ring = rectangleRing({ x: drawing.x, y: drawing.y, width: size.width, height: size.height, rotation: drawing.rotation });
    if (ring === null) continue;
    const top = finite(data.rangeTop);
    out.push([ring, finite(data.rangeBottom), top === null ? null : top + 1]);
  }
  return out;
}

/**
 * The Levels module's floor tiles (`flags.levels.rangeBottom`) as surfaces: each tile's
 * rectangle at that elevation, blocking everything, cut by the hole drawings whose
 * `(rangeBottom, rangeTop + 1]` holds it (GEO-10). The importer's `_floor_tiles`.
 *
 * @param {object} scene  the Scene document (`tiles`, `drawings`)
 * @param {Map} table     `levelTable` of the scene
 * @returns {object[]} `{id, outline, elevation, blocks, level}`
 */
export function floorTiles(scene, table) {
  const holes = holeDrawings(scene);
  const surfaces = [];
  docs(scene.tiles).forEach((tile, i) => {
    const bottom = finite(levelsFlags(tile)?.rangeBottom);
    if (bottom === null) return;
    const ring = rectangleRing(tile);
    if (ring === null) return;
    const cut = holes
      .filter(([, lo, hi]) => (lo === null || lo < bottom) && (hi === null || bottom <= hi))
      .map(([h]) => h);
    const tid = tile.id ?? tile._id;
    surfaces.push({
      id: typeof tid === "string" && tid ? tid : `tile-${i}`,
      outline: [[ring, ...cut]],
      elevation: bottom,
      blocks: { move: true, sight: true, light: true, sound: true },
      level: levelAt(bottom, table),
    });
  });
  return surfaces;
}

/**
 * GEO-5's reading of the Levels module's inclusive ranges, in place (v9 to v13): where a
 * range's top (a level's, a wall's height, a region's elevation) is a whole number and
 * another range starts at top + 1 (or a surface lies there), the top becomes top + 1. Then a
 * wall whose range is a level's gets that level, each surface and each light without one the
 * level holding its elevation (GEO-10). The importer's `read_inclusive`.
 *
 * @param {object} canonical  the canonical scene (`levels`, `walls`, `regions`, `surfaces`,
 *   `lights`), changed in place
 */
export function readInclusive(canonical) {
  const spans = [...canonical.levels];
  for (const w of canonical.walls) if (w.height) spans.push(w.height);
  for (const r of canonical.regions) if (r.elevation) spans.push(r.elevation);
  const starts = new Set(spans.map((s) => s.bottom).filter((b) => b !== null));
  for (const s of canonical.surfaces) starts.add(s.elevation);
  for (const span of spans) {
    if (span.top !== null && Number.isInteger(span.top) && starts.has(span.top + 1)) span.top += 1;
  }
  const table = levelTable(canonical.levels);
  const byRange = new Map([...table].map(([id, { bottom, top }]) => [`${bottom}:${top}`, id]));
  for (const wall of canonical.walls) {
    if (!wall.height || wall.level) continue;
    const level = byRange.get(`${wall.height.bottom}:${wall.height.top}`);
    if (level !== undefined) wall.level = level;
  }
  for (const surface of canonical.surfaces) surface.level = levelAt(surface.elevation, table);
  for (const light of canonical.lights) {
    const level = levelAt(light.elevation, table);
    if (!light.level && level !== null) light.level = level;
  }
}
