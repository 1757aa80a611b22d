/**
 * The canonical Sightline scene (shared/DESIGN.md "Canonical scene") from the live canvas.
 *
 * Pure functions over plain data: they read the Scene document and its embedded Wall, Token,
 * AmbientLight and Region documents (Foundry v12 to v14; v14's levels, surfaces and token
 * depth in levels.js, region shapes in shapes.js) plus `canvas.grid` and `canvas.dimensions`,
 * and return a JSON-ready scene. Nothing here calls Foundry.
 *
 * The mapping follows the service's own importer (`POST /v1/import/foundry`,
 * adapters/foundry.py) field by field, so that the scene this module uploads and the scene
 * the service imports from the same export give the same answers (test/parity.test.mjs).
 * Where the live game knows more than an export, the module uses it, and says so here:
 *
 * - grid diagonals: Foundry v12+ keeps them in the core setting `gridDiagonals`
 *   (`canvas.grid.diagonals`, square grids), which exports do not carry; without a number
 *   there the rule stays unset (null: each ruleset's default, GEO-8);
 * - ambient lights inactive at the scene's current darkness level are sent with `on: false`,
 *   like lights switched off (`hidden`) (the importer keeps the former lit: an export does
 *   not say what the darkness will be);
 * - a token's actor, when it has one, adds conditions (status effects), senses, size,
 *   ability modifiers and swim speed (dnd5e, pf2e, sfrpg data paths; actor.js);
 * - a region's enabled "Sightline environment" behaviours set its obscurement, concealment,
 *   magical darkness, water and gravity.
 *
 * Frames and units are Foundry's: canvas pixels with the padding, y down, token x/y at the
 * top-left corner, sizes in squares, radii/ranges/elevations in grid units.
 */

import { actorAbilities, actorConditions, actorSenses, actorSize, actorSwimSpeed } from "./actor.js";
import { MODEL_BOUNDS } from "./bounds.js";
import { BEHAVIOR_TYPE } from "./constants.js";
import {
  buildLevels, buildSurfaces, inclusiveLevels, levelTable, oneLevel, readInclusive, tokenDepth, wallLevel, withLevel,
} from "./levels.js";
import { regionShapes } from "./shapes.js";
import { UNLIMITED_RANGE, bound, clean, docs, finite, norm, numberOr, positive } from "./values.js";

export { actorConditions } from "./actor.js";
export { ELLIPSE_VERTICES, regionShapes } from "./shapes.js";
export { UNLIMITED_RANGE, docs } from "./values.js";

/** Smallest and largest grid distance (and height) the service accepts (service/model.py). */
const { MIN_GRID_DISTANCE, MAX_UNITS } = MODEL_BOUNDS;

const SENSE_TYPES = { 0: "none", 10: "limited", 20: "normal", 30: "proximity", 40: "distance" };
const DIRECTIONS = { 0: "both", 1: "left", 2: "right" };
const DOOR_TYPES = { 0: "none", 1: "door", 2: "secret" };
const DOOR_STATES = { 0: "closed", 1: "open", 2: "locked" };
/** CONST.GRID_TYPES -> canonical type (R: rows shifted, pointy-topped; Q: columns, flat-topped). */
const GRID_TYPES = { 0: "gridless", 1: "square", 2: "hex-row", 3: "hex-row", 4: "hex-col", 5: "hex-col" };
/** Which rows or columns of a Foundry hex grid are shifted (HEXODD*: odd, HEXEVEN*: even). */
export const HEX_OFFSETS = { 2: "odd", 3: "even", 4: "odd", 5: "even" };
/**
 * CONST.GRID_DIAGONALS -> canonical rule, as the importer reads them: APPROXIMATE (1.5) as
 * euclidean; RECTILINEAR (2), ALTERNATING_2 (2-1-2) and ILLEGAL as alternating, the costliest
 * canonical rule.
 */
const DIAGONALS = {
  0: "equidistant",
  1: "euclidean",
  2: "euclidean",
  3: "alternating",
  4: "alternating",
  5: "alternating",
  6: "alternating",
};
const UNITS = {
  ft: "ft", "ft.": "ft", feet: "ft", foot: "ft",
  m: "m", "m.": "m", meter: "m", meters: "m", metre: "m", metres: "m",
  // foreign spellings the importer assumes too (adapters/foundry/grid.py ASSUMED_UNITS)
  schritt: "m", fuss: "ft", "fuß": "ft", pies: "ft", pieds: "ft",
  "mètres": "m", metros: "m", metri: "m",
};
/** Vision modes (lower case, letters only) -> canonical sense. */
const VISION_MODES = {
  basic: "darkvision",
  darkvision: "darkvision",
  monochromatic: "darkvision",
  devilssight: "devils_sight",
  tremorsense: "tremorsense",
  blindsight: "blindsight",
  truesight: "truesight",
  seeall: "truesight",
};
/** Detection mode ids (normalised) -> canonical sense; null: nothing beyond sight. */
const DETECTION_MODES = {
  basicsight: null,
  lightperception: null,
  seeinvisibility: "see_invisibility",
  senseinvisibility: "see_invisibility",
  feeltremor: "tremorsense",
  tremorsense: "tremorsense",
  seeall: "truesight",
  truesight: "truesight",
  senseall: "blindsight",
  blindsight: "blindsight",
  devilssight: "devils_sight",
  hearing: "hearing",
};
const OBSCUREMENTS = new Set(["light", "heavy"]);
/** Darkness levels closer than this to the global light's threshold count as at it. */
const DARKNESS_TOLERANCE = 1e-9;

// ---------------------------------------------------------------------------- helpers

function lookup(table, value, fallback) {
  const n = finite(value);
  if (n === null || !Number.isInteger(n)) return fallback;
  return table[n] ?? fallback;
}

/** Give every item a unique string id, `<stem>-<index>` when it has none. */
function uniqueIds(items, stem) {
  const seen = new Set();
  items.forEach((item, position) => {
    const index = item._index ?? position;
    delete item._index;
    let id = typeof item.id === "string" && item.id ? item.id : `${stem}-${index}`;
    if (seen.has(id)) {
      let n = 1;
      while (seen.has(`${id}-${n}`)) n += 1;
      id = `${id}-${n}`;
    }
    seen.add(id);
    item.id = id;
  });
}

/** `{bottom, top}` in grid units, or null when neither is set or bottom lies above top. */
function span(bottom, top) {
  const out = { bottom: bound(bottom), top: bound(top) };
  if (out.bottom === null && out.top === null) return null;
  if (out.bottom !== null && out.top !== null && out.bottom > out.top) return null;
  return out;
}

// ---------------------------------------------------------------------------- grid

/**
 * Canonical grid.
 *
 * @param {object} scene  the Scene document (`grid: {type, size, distance, units}`)
 * @param {object} [grid] `canvas.grid` (v12+: `diagonals` from the core setting)
 * @returns {object} `{size, distance, units, type, diagonals, hex_offset?}`; size in px, distance in units
 *   (`hex_offset` on hex grids: which rows or columns Foundry shifts, HEX_OFFSETS);
 *   `diagonals` null when `canvas.grid` has no known rule (GEO-8: each ruleset's default)
 */
export function buildGrid(scene, grid) {
  const raw = scene.grid ?? {};
  const size = positive(raw.size);
  if (size === null) throw new Error(`grid size must be a positive number of pixels, got ${raw.size}`);
  let distance = positive(raw.distance);
  if (distance === null || distance < MIN_GRID_DISTANCE || distance > MAX_UNITS) distance = 5;
  // A blank unit, a count of spaces or an unknown name counts in spaces (GEO-8, FORMATS
  // pitfall 17: Lancer's blank units, 1 a hex); no unit at all is feet, as the importer reads.
  const units = raw.units == null ? "ft" : typeof raw.units === "string" ? UNITS[raw.units.trim().toLowerCase()] ?? "squares" : "squares";
  const type = raw.type === undefined || raw.type === null ? "square" : lookup(GRID_TYPES, raw.type, "square");
  const diagonals = lookup(DIAGONALS, grid?.diagonals ?? raw.diagonals, null);
  // A legacy hex grid (`flags.core.legacyHex`: made before v10) measured its size across the
  // hex's corners; the canonical size is the distance between adjacent centres.
  const legacy = type.startsWith("hex") && scene.flags?.core?.legacyHex === true;
  const out = { size: legacy ? clean((size * Math.sqrt(3)) / 2) : size, distance, units, type, diagonals };
  if (type.startsWith("hex")) out.hex_offset = HEX_OFFSETS[raw.type] ?? "odd";
  return out;
}

/** Canvas width and height in px, padding included (`canvas.dimensions`, else computed). */
function canvasSize(scene, size, dimensions) {
  if (positive(dimensions?.width) !== null && positive(dimensions?.height) !== null) {
    return { width: dimensions.width, height: dimensions.height };
  }
  const width = positive(scene.width);
  const height = positive(scene.height);
  if (width === null || height === null) return { width: null, height: null };
  let padding = finite(scene.padding) ?? 0;
  if (padding < 0 || padding > 0.5) padding = 0;
  const padX = Math.ceil((width * padding) / size) * size;
  const padY = Math.ceil((height * padding) / size) * size;
  return { width: width + 2 * padX, height: height + 2 * padY };
}

// ---------------------------------------------------------------------------- environment

/** Current scene darkness, 0-1. */
export function darknessLevel(scene) {
  return finite(scene.environment?.darknessLevel) ?? 0;
}

/**
 * Ambient light: with global illumination on (and the darkness within its range) the whole
 * scene is lit, bright or dim by the global light's mode; otherwise unlit places are dark.
 */
function environment(scene) {
  // tokenVision false: the scene restricts no vision, players see everything (FORMATS pitfall 14).
  const light = scene.tokenVision === false ? "bright" : globalLightAt(scene, darknessLevel(scene));
  return { light, gravity: 1, underwater: false };
}

/**
 * The ambient light where the darkness level is `level` (0 day .. 1 night), by the global light
 * (bright only in its bright mode: v12's `bright` starts false, and migrated scenes keep that).
 */
export function globalLightAt(scene, level) {
  const global = scene.environment?.globalLight ?? {};
  const threshold = finite(global.darkness?.max);
  // within 1e-9 of the threshold counts as at it (float noise, adapters/foundry/grid.py)
  if (global.enabled === true && (threshold === null || level <= threshold + DARKNESS_TOLERANCE)) {
    return global.bright === true ? "bright" : "dim";
  }
  return "dark";
}

// ---------------------------------------------------------------------------- walls

function wallHeight(flags) {
  if (!flags || typeof flags !== "object") return null;
  const sources = [
    ["wall-height", "bottom", "top"],
    ["wallHeight", "bottom", "top"],
    ["wallHeight", "wallHeightBottom", "wallHeightTop"],
    ["wall-height", "wallHeightBottom", "wallHeightTop"],
    ["levels", "rangeBottom", "rangeTop"],
  ];
  for (const [ns, bottomKey, topKey] of sources) {
    const data = flags[ns];
    if (!data || typeof data !== "object" || !(bottomKey in data || topKey in data)) continue;
    return span(data[bottomKey], data[topKey]);
  }
  return null;
}

function threshold(raw) {
  if (!raw || typeof raw !== "object") return null;
  const out = {};
  for (const sense of ["sight", "light", "sound"]) {
    const value = raw[sense];
    out[sense] = finite(value) !== null && value >= 0 ? value : null;
  }
  return Object.values(out).every((v) => v === null) ? null : out;
}

/**
 * Canonical walls: every restriction, one-way direction, doors and their state, proximity
 * thresholds (grid units) and heights (Wall Height or Levels flags, else the range of the v14
 * levels the wall is on; `level` on a wall of one level, GEO-10). Endpoint order is kept
 * (one-way walls depend on it, GEO-3).
 *
 * @param {object} scene  the Scene document
 * @param {Map} [levels]  `levelTable` of the scene's levels (levels.js)
 */
export function buildWalls(scene, levels = new Map()) {
  const walls = [];
  docs(scene.walls).forEach((doc, i) => {
    const c = doc.c;
    if (!Array.isArray(c) || c.length !== 4 || c.some((v) => finite(v) === null)) return;
    const door = lookup(DOOR_TYPES, doc.door, "none");
    let state = lookup(DOOR_STATES, doc.ds, "closed");
    if (door === "none") state = "closed";
    const { height, level } = wallLevel(doc, levels, wallHeight(doc.flags));
    walls.push(withLevel({
      id: doc.id ?? doc._id,
      c: [...c],
      move: lookup(SENSE_TYPES, doc.move, "normal"),
      sight: lookup(SENSE_TYPES, doc.sight, "normal"),
      light: lookup(SENSE_TYPES, doc.light, "normal"),
      sound: lookup(SENSE_TYPES, doc.sound, "normal"),
      threshold: threshold(doc.threshold),
      direction: lookup(DIRECTIONS, doc.dir, "both"),
      door,
      door_state: state,
      height,
      cover: "normal",
      hp: null,
      ac: null,
      _index: i,
    }, level));
  });
  uniqueIds(walls, "wall");
  return walls;
}

// ---------------------------------------------------------------------------- tokens

function noSenses() {
  return {
    darkvision: 0,
    devils_sight: 0,
    truesight: 0,
    blindsight: 0,
    tremorsense: 0,
    xray: 0,
    low_light_vision: false,
    see_invisibility: 0,
    hearing: null,
  };
}

/** `[id, mode]` of a token's detection modes (v12+: a list of `{id, enabled, range}`). */
function detectionModes(raw) {
  if (!Array.isArray(raw)) return [];
  return raw.filter((mode) => mode && typeof mode === "object" && typeof mode.id === "string").map((mode) => [mode.id, mode]);
}

/** The Foundry generation a scene document was saved by (`_stats.coreVersion`), or null. */
export function sceneGeneration(scene) {
  const major = Number.parseInt(String(scene?._stats?.coreVersion ?? ""), 10);
  return Number.isFinite(major) ? major : null;
}

/** Senses in grid units from the token's vision mode, sight range and detection modes. */
export function tokenSenses(doc, generation = null) {
  const senses = noSenses();
  const raise = (sense, value) => {
    const current = senses[sense];
    senses[sense] = current === null ? value : Math.max(current, value);
  };
  const sight = doc.sight;
  if (sight && typeof sight === "object") {
    // No vision source without sight enabled; a null range is unlimited only from v13
    // (FORMATS pitfall 13), as the importer reads it.
    const open = generation === null || generation >= 13 ? UNLIMITED_RANGE : 0;
    const range = sight.enabled === false ? 0 : sight.range === undefined ? 0 : sight.range === null ? open : sight.range;
    const key = norm(sight.visionMode || "basic");
    if (finite(range) !== null && range >= 0) {
      if (key === "lightamplification") senses.low_light_vision = true;
      else if (key in VISION_MODES && range > 0) raise(VISION_MODES[key], range);
    }
  }
  for (const [id, mode] of detectionModes(doc.detectionModes)) {
    if ((mode.enabled ?? true) !== true) continue;
    const key = norm(id);
    if (!(key in DETECTION_MODES)) continue;
    const sense = DETECTION_MODES[key];
    const range = mode.range === null || mode.range === undefined ? UNLIMITED_RANGE : mode.range;
    if (sense !== null && finite(range) !== null && range > 0) raise(sense, range);
  }
  return senses;
}

/** Size category from the token width in squares (service/model.py size_from_width). */
export function sizeFromWidth(width) {
  if (width <= 0.5) return "tiny";
  if (width < 1) return "small";
  if (width < 2) return "medium";
  if (width < 3) return "large";
  if (width < 4) return "huge";
  return "gargantuan";
}

/**
 * Whether a token stands for a creature: unless it says it has no actor (`actorId` null or
 * empty), as the importer decides (adapters/foundry/tokens.py is_creature).
 */
export function isCreature(doc) {
  if (!("actorId" in doc)) return true;
  return typeof doc.actorId === "string" && doc.actorId.trim() !== "";
}

/**
 * Token height flags tried in order: [namespace, key]. (Levels' `losHeight` is no flag: Levels
 * computes the eye height on the token placeable, not in the document's flags.)
 */
const HEIGHT_FLAGS = [
  ["wall-height", "tokenHeight"],
  ["wallHeight", "tokenHeight"],
  ["levels", "tokenHeight"],
];

/**
 * Token height in grid units above its elevation (GEO-5a) from Wall Height or Levels flags,
 * or null (from its size). Wall Height's 0 means "automatic", so null too.
 */
export function verticalExtent(doc) {
  const flags = doc.flags ?? {};
  for (const [ns, key] of HEIGHT_FLAGS) {
    const height = finite(flags[ns]?.[key]);
    if (height !== null && height > 0 && height <= MAX_UNITS) return height;
  }
  return null;
}

function tokenLight(doc) {
  const light = doc.light ?? {};
  const radius = (v) => (finite(v) !== null && v >= 0 ? v : 0);
  return { bright: radius(light.bright), dim: radius(light.dim) };
}

/**
 * Canonical tokens: position (top-left px), size in squares and category, elevation and
 * height (`vertical_extent`, grid units: v14 `depth` first, then the height flags), senses, carried light, hidden, and what the token's
 * actor adds (see the module comment). Tokens without an actor are no creatures: left out.
 *
 * @param {object} scene    the Scene document
 * @param {number} distance grid units per square (a token's reach)
 */
export function buildTokens(scene, distance) {
  const tokens = [];
  docs(scene.tokens).forEach((doc, i) => {
    const x = finite(doc.x);
    const y = finite(doc.y);
    if (x === null || y === null || !isCreature(doc)) return;
    const elevation = numberOr(doc.elevation, 0);
    const width = positive(doc.width) ?? 1;
    const height = positive(doc.height) ?? 1;
    const actor = doc.actor ?? null;
    const senses = tokenSenses(doc, sceneGeneration(scene));
    for (const [sense, value] of Object.entries(actorSenses(actor))) {
      senses[sense] = typeof value === "boolean" ? value || senses[sense] : Math.max(senses[sense] ?? 0, value);
    }
    tokens.push({
      id: doc.id ?? doc._id,
      name: typeof doc.name === "string" ? doc.name : doc.name === null || doc.name === undefined ? "" : String(doc.name),
      x,
      y,
      width,
      height,
      elevation,
      vertical_extent: tokenDepth(doc, distance, MAX_UNITS) ?? verticalExtent(doc),
      size: actorSize(actor) ?? sizeFromWidth(width),
      reach: distance,
      senses,
      conditions: actorConditions(actor),
      swim_speed: actorSwimSpeed(actor),
      abilities: actorAbilities(actor),
      light: tokenLight(doc),
      hidden: doc.hidden === true,
      _index: i,
    });
  });
  uniqueIds(tokens, "token");
  return tokens;
}

// ---------------------------------------------------------------------------- lights

function angle(value) {
  const a = numberOr(value, 360) % 360;
  return a === 0 ? 360 : a < 0 ? a + 360 : a;
}

/** Whether a light shines at the scene's current darkness level (its `darkness` range). */
export function lightActive(config, level) {
  const range = config?.darkness;
  const low = finite(range?.min) ?? 0;
  const high = finite(range?.max) ?? 1;
  return level >= low && level <= high;
}

/** Light elevation in grid units: v12+ `elevation`, else Levels' `rangeBottom`, else 0. */
export function lightElevation(doc) {
  const own = finite(doc.elevation);
  if (own !== null) return own;
  return finite(doc.flags?.levels?.rangeBottom) ?? 0;
}

/**
 * Canonical ambient lights (radii and elevation in grid units). `on` is false for a light
 * switched off (`hidden`) or outside its darkness range at the scene's current level;
 * `level` on a light of one v14 level (GEO-10).
 *
 * @param {object} scene  the Scene document
 * @param {Map} [levels]  `levelTable` of the scene's levels (levels.js)
 */
export function buildLights(scene, levels = new Map()) {
  const level = darknessLevel(scene);
  const lights = [];
  docs(scene.lights).forEach((doc, i) => {
    const x = finite(doc.x);
    const y = finite(doc.y);
    if (x === null || y === null) return;
    const config = doc.config ?? {};
    lights.push(withLevel({
      id: doc.id ?? doc._id,
      x,
      y,
      bright: Math.max(numberOr(config.bright, 0), 0),
      dim: Math.max(numberOr(config.dim, 0), 0),
      angle: angle(config.angle),
      rotation: numberOr(doc.rotation, 0),
      darkness: config.negative === true,
      walls: typeof doc.walls === "boolean" ? doc.walls : true,
      elevation: lightElevation(doc),
      on: doc.hidden !== true && lightActive(config, level),
      _index: i,
    }, oneLevel(doc, levels)));
  });
  uniqueIds(lights, "light");
  return lights;
}

// ---------------------------------------------------------------------------- regions

/**
 * One Foundry region shape -> its first canonical shape in px, or null (holes too); see
 * `regionShapes` (shapes.js) for the shapes that give several.
 */
export function regionShape(shape, cellPx = 1) {
  return regionShapes(shape, cellPx)[0] ?? null;
}

/**
 * What a region's enabled Sightline behaviours say: `{obscurement, concealment,
 * magical_darkness, water, gravity}` (the last behaviour wins for each field it sets).
 */
export function regionEnvironment(region) {
  const out = { obscurement: null, concealment: false, magical_darkness: false, water: false, gravity: null };
  for (const behavior of docs(region.behaviors)) {
    if (behavior.type !== BEHAVIOR_TYPE || behavior.disabled === true) continue;
    const system = behavior.system ?? {};
    if (OBSCUREMENTS.has(system.obscurement)) out.obscurement = system.obscurement;
    if (system.concealment === true) out.concealment = true;
    if (system.magicalDarkness === true) out.magical_darkness = true;
    if (system.water === true) out.water = true;
    const gravity = finite(system.gravity);
    if (gravity !== null && gravity >= 0) out.gravity = gravity;
  }
  return out;
}

/** Foundry's adjustDarknessLevel modes: override, brighten, darken (darkness d, modifier m). */
const DARKNESS_MODES = {
  0: (d, m) => m,
  1: (d, m) => d * (1 - m),
  2: (d, m) => 1 - (1 - d) * (1 - m),
};

/**
 * A region's light (GEO-9) from its enabled "Adjust Darkness Level" behaviours, applied in
 * order from the scene's darkness level: the global light's level at the region's darkness;
 * null without such a behaviour (adapters/foundry/regions.py region_light).
 */
export function regionLight(region, scene) {
  let level = null;
  for (const behavior of docs(region.behaviors)) {
    if (behavior.type !== "adjustDarknessLevel" || behavior.disabled === true) continue;
    const mode = finite(behavior.system?.mode ?? 0);
    const modifier = finite(behavior.system?.modifier);
    if (!(mode in DARKNESS_MODES) || modifier === null || modifier < 0 || modifier > 1) continue;
    level = DARKNESS_MODES[mode](level ?? darknessLevel(scene), modifier);
  }
  return level === null ? null : globalLightAt(scene, level);
}

/**
 * Canonical regions: one per canonical shape (holes dropped; a ring gives two, a grid shape
 * its runs of squares), with elevation range, behaviours and `level` on a region of one v14
 * level (GEO-10).
 *
 * @param {object} scene   the Scene document
 * @param {Map} [levels]   `levelTable` of the scene's levels (levels.js)
 * @param {number} [cellPx] the scene's grid size in px (token and grid shapes)
 */
export function buildRegions(scene, levels = new Map(), cellPx = positive(scene.grid?.size) ?? 1) {
  const regions = [];
  docs(scene.regions).forEach((doc, i) => {
    const baseId = typeof (doc.id ?? doc._id) === "string" && (doc.id ?? doc._id) ? doc.id ?? doc._id : `region-${i}`;
    const elevation = doc.elevation && typeof doc.elevation === "object" ? span(doc.elevation.bottom, doc.elevation.top) : null;
    const env = regionEnvironment(doc);
    const light = regionLight(doc, scene);
    const level = oneLevel(doc, levels);
    let produced = 0;
    for (const shape of Array.isArray(doc.shapes) ? doc.shapes : []) {
      for (const canonical of regionShapes(shape, cellPx)) {
        const id = produced === 0 ? baseId : `${baseId}-${produced}`;
        regions.push(withLevel({ id, shape: canonical, ...env, light, elevation, _index: i }, level));
        produced += 1;
      }
    }
  });
  uniqueIds(regions, "region");
  return regions;
}

// ---------------------------------------------------------------------------- scene

/**
 * The canonical scene of the live canvas.
 *
 * @param {object} live
 * @param {object} live.scene        the viewed Scene document (`canvas.scene`)
 * @param {object} [live.grid]       `canvas.grid` (its `diagonals`)
 * @param {object} [live.dimensions] `canvas.dimensions` (canvas `width`/`height` in px)
 * @returns {object} the canonical scene (shared/DESIGN.md), JSON-ready; `levels` and
 *   `surfaces` empty outside a building (v14 levels, or the Levels module's floors)
 * @throws {Error} when the scene has no usable grid size
 */
export function buildScene({ scene, grid, dimensions }) {
  const canonicalGrid = buildGrid(scene, grid);
  const cellPx = positive(scene.grid?.size) ?? canonicalGrid.size;
  const levels = buildLevels(scene);
  const table = levelTable(levels);
  const canonical = {
    grid: canonicalGrid,
    ...canvasSize(scene, cellPx, dimensions),
    environment: environment(scene),
    levels,
    walls: buildWalls(scene, table),
    tokens: buildTokens(scene, canonicalGrid.distance),
    lights: buildLights(scene, table),
    regions: buildRegions(scene, table, cellPx),
    surfaces: buildSurfaces(scene, table, cellPx),
  };
  if (inclusiveLevels(scene)) readInclusive(canonical); // the Levels module's floors (GEO-5)
  return canonical;
}

/** Count what a canonical scene holds (as the importer's stats, adapters/_common.py). */
export function sceneStats(scene) {
  return {
    walls: scene.walls.length,
    doors: scene.walls.filter((w) => w.door !== "none").length,
    tokens: scene.tokens.length,
    lights: scene.lights.length,
    token_lights: scene.tokens.filter((t) => t.light.bright > 0 || t.light.dim > 0).length,
    regions: scene.regions.length,
  };
}
