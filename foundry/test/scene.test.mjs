/**
 * What the module reads from a live game that an export does not carry: actors (conditions,
 * senses, size, abilities, swim speed), the Sightline region behaviour, lights that are off,
 * the core grid-diagonals setting; and v12/v13 document shapes (detection modes as a list,
 * the global light's bright mode, rotated rectangles, ellipses, holes).
 */

import { test } from "node:test";
import assert from "node:assert/strict";
import { buildScene, regionShape, tokenSenses, actorConditions } from "../scripts/scene.js";
import { BEHAVIOR_TYPE } from "../scripts/constants.js";
import { makeCanvas, makeSceneDocument } from "../test-support/foundry.mjs";

const BASE = {
  _id: "unitScene0000001",
  width: 1000,
  height: 1000,
  padding: 0.1,
  grid: { type: 1, size: 100, distance: 5, units: "ft" },
  environment: { darknessLevel: 0.6, globalLight: { enabled: true, bright: false, darkness: { min: 0, max: 0.5 } } },
  walls: [],
  tokens: [],
  lights: [],
  regions: [],
};

function build(patch = {}, { diagonals = 0, actors = {} } = {}) {
  const scene = makeSceneDocument({ ...structuredClone(BASE), ...patch });
  for (const [id, actor] of Object.entries(actors)) scene.tokens.get(id).actor = actor;
  const canvas = makeCanvas(scene, { diagonals });
  return buildScene({ scene: canvas.scene, grid: canvas.grid, dimensions: canvas.dimensions });
}

test("grid: type, units, diagonals from the core setting (GEO-8), canvas size with padding", () => {
  const rules = [[0, "equidistant"], [1, "euclidean"], [2, "euclidean"], [3, "alternating"], [4, "alternating"], [5, "alternating"], [6, "alternating"], [42, null], [null, null]];
  for (const [diagonals, rule] of rules) {
    assert.equal(build({}, { diagonals }).grid.diagonals, rule, `diagonals ${diagonals}`);
  }
  const scene = build({ grid: { type: 4, size: 80, distance: 1.5, units: "m" } });
  assert.deepEqual(scene.grid, { size: 80, distance: 1.5, units: "m", type: "hex-col", diagonals: "equidistant", hex_offset: "odd" });
  const types = [[0, "gridless", undefined], [1, "square", undefined], [2, "hex-row", "odd"], [3, "hex-row", "even"], [4, "hex-col", "odd"], [5, "hex-col", "even"]];
  for (const [type, expected, offset] of types) {
    const grid = build({ grid: { type, size: 100, distance: 5, units: "ft" } }).grid;
    assert.equal(grid.type, expected);
    assert.equal(grid.hex_offset, offset, `hex_offset of type ${type}`);
  }
  assert.equal(build({ grid: { type: 0, size: 150, distance: 1, units: "Schritt" } }).grid.units, "m");
  // legacy hex grids (made before v10) measured their size across the corners
  assert.equal(build({ grid: { type: 4, size: 100, distance: 5, units: "ft" }, flags: { core: { legacyHex: true } } }).grid.size, 86.60254);
  assert.equal(build({ grid: { type: 1, size: 100, distance: 5, units: "ft" }, flags: { core: { legacyHex: true } } }).grid.size, 100);
  // GEO-8 (FORMATS pitfall 17): a blank unit or a count of spaces counts in spaces; none is feet.
  assert.equal(build({ grid: { type: 2, size: 80, distance: 1, units: "" } }).grid.units, "squares");
  assert.equal(build({ grid: { type: 2, size: 80, distance: 1, units: "Hexes" } }).grid.units, "squares");
  assert.equal(build({ grid: { type: 2, size: 80, distance: 1 } }).grid.units, "ft");
  assert.equal(build().width, 1000 + 2 * 100);
  // darkness 0.6 above the global light's 0.5: unlit places are dark
  assert.equal(build().environment.light, "dark");
  assert.equal(build({ environment: { darknessLevel: 0.2, globalLight: { enabled: true, bright: false, darkness: { max: 0.5 } } } }).environment.light, "dim");
});

test("walls: restrictions, one-way, doors, thresholds, heights (GEO-5)", () => {
  const [wall, door, old] = build({
    walls: [
      { _id: "w1", c: [0, 0, 100, 0], move: 20, sight: 30, light: 10, sound: 0, dir: 1, door: 0, ds: 1, threshold: { sight: 10, light: null, sound: null, attenuation: true }, flags: { "wall-height": { bottom: 0, top: 10 } } },
      { _id: "w2", c: [100, 0, 200, 0], move: 20, sight: 20, light: 20, sound: 20, dir: 2, door: 2, ds: 2, flags: { levels: { rangeBottom: 10, rangeTop: null } } },
      { _id: "w3", c: [200, 0, 300, 0], move: 20, sight: 20, light: 20, sound: 20, flags: { wallHeight: { wallHeightBottom: 2, wallHeightTop: 8 } } },
    ],
  }).walls;
  assert.deepEqual(wall, {
    id: "w1", c: [0, 0, 100, 0], move: "normal", sight: "proximity", light: "limited", sound: "none",
    threshold: { sight: 10, light: null, sound: null }, direction: "left", door: "none", door_state: "closed",
    height: { bottom: 0, top: 10 }, cover: "normal", hp: null, ac: null,
  });
  assert.equal(door.door, "secret");
  assert.equal(door.door_state, "locked");
  assert.equal(door.direction, "right");
  assert.deepEqual(door.height, { bottom: 10, top: null });
  assert.deepEqual(old.height, { bottom: 2, top: 8 });
});

test("tokens: heights from Wall Height / Levels flags (GEO-5a), actorless tokens are no creatures", () => {
  // Levels keeps no `losHeight` flag (it computes the eye height on the placeable): a
  // document carrying one gets its height from its size
  const scene = build({
    tokens: [
      { _id: "wh", actorId: "a1", x: 100, y: 100, elevation: 10, flags: { "wall-height": { tokenHeight: 6 } } },
      { _id: "auto", actorId: "a2", x: 200, y: 100, flags: { "wall-height": { tokenHeight: 0 } } },
      { _id: "lv", actorId: "a3", x: 300, y: 100, flags: { levels: { tokenHeight: 12 } } },
      { _id: "los", actorId: "a4", x: 400, y: 100, elevation: 5, flags: { levels: { losHeight: 9 } } },
      { _id: "prop", actorId: null, x: 500, y: 100 },
      { _id: "plain", x: 600, y: 100 },
    ],
  });
  assert.deepEqual(
    scene.tokens.map((t) => [t.id, t.elevation, t.vertical_extent]),
    [["wh", 10, 6], ["auto", 0, null], ["lv", 0, 12], ["los", 5, null], ["plain", 0, null]],
  );
});

test("tokens: actor conditions, senses, size, abilities and swim speed", () => {
  const dnd = {
    statuses: new Set(["prone", "blinded", "dead"]),
    system: {
      traits: { size: "lg" },
      attributes: { senses: { darkvision: 120, blindsight: 10, units: "ft" }, movement: { swim: 30 } },
      abilities: { str: { mod: 3 }, dex: { mod: -1 }, con: { mod: 2 } },
    },
  };
  const pf = {
    statuses: new Set(["invisible"]),
    conditions: [{ slug: "deafened" }],
    system: { traits: { size: { value: "sm" } }, perception: { senses: [{ type: "low-light-vision" }, { type: "tremorsense", range: 30, acuity: "imprecise" }] } },
  };
  const scene = build(
    {
      tokens: [
        { _id: "t1", name: "Ogre", x: 100, y: 100, width: 1, height: 1, sight: { range: 30, visionMode: "darkvision" } },
        { _id: "t2", name: "Rogue", x: 300, y: 100, width: 1, height: 1, hidden: true, elevation: 5 },
        { _id: "t3", name: "Statue", x: 500, y: 100, width: 2, height: 2 },
      ],
    },
    { actors: { t1: dnd, t2: pf } },
  );
  const [ogre, rogue, statue] = scene.tokens;
  assert.deepEqual(ogre.conditions, ["blinded", "prone"]);
  assert.equal(ogre.senses.darkvision, 120);
  assert.equal(ogre.senses.blindsight, 10);
  assert.equal(ogre.size, "large");
  assert.deepEqual(ogre.abilities, { str: 3, dex: -1, con: 2 });
  assert.equal(ogre.swim_speed, 30);
  assert.deepEqual(rogue.conditions, ["deafened", "invisible"]);
  assert.equal(rogue.senses.low_light_vision, true);
  assert.equal(rogue.senses.tremorsense, 30);
  assert.equal(rogue.size, "small");
  assert.equal(rogue.hidden, true);
  assert.equal(rogue.elevation, 5);
  assert.equal(statue.size, "large");
  assert.deepEqual(statue.conditions, []);
  assert.equal(statue.reach, 5);
  assert.deepEqual(actorConditions(null), []);
});

test("token senses: detection modes (a v12+ list), unlimited ranges; the harness refuses a record", () => {
  const list = tokenSenses({ sight: { range: null, visionMode: "basic" }, detectionModes: [{ id: "seeInvisibility", enabled: true, range: 60 }, { id: "feelTremor", enabled: false, range: 30 }] });
  assert.equal(list.darkvision, 10000);
  assert.equal(list.see_invisibility, 60);
  assert.equal(list.tremorsense, 0);
  const unlimited = tokenSenses({ sight: { range: 0, visionMode: "basic" }, detectionModes: [{ id: "senseAll", enabled: true, range: 15 }, { id: "hearing", range: null }] });
  assert.equal(unlimited.blindsight, 15);
  assert.equal(unlimited.hearing, 10000);
  // a record of modes is no shape of Foundry v12+: the module reads none of it, the harness refuses it
  assert.equal(tokenSenses({ detectionModes: { senseAll: { enabled: true, range: 15 } } }).blindsight, 0);
  assert.throws(() => build({ tokens: [{ _id: "rec", x: 0, y: 0, detectionModes: { senseAll: { range: 15 } } }] }), /detectionModes is object/);
});

test("global light: bright only in its bright mode (v12's field starts false); a v10 scene migrates dim", () => {
  const light = (globalLight) => build({ environment: { darknessLevel: 0, globalLight } }).environment.light;
  assert.equal(light({ enabled: true, bright: true, darkness: { min: 0, max: 1 } }), "bright");
  assert.equal(light({ enabled: true, bright: false, darkness: { min: 0, max: 1 } }), "dim");
  assert.equal(light({ enabled: false, bright: true, darkness: { min: 0, max: 1 } }), "dark");
  assert.throws(() => light({ enabled: true, darkness: { min: 0, max: 1 } }), /globalLight.bright is undefined/);
  // v10: `globalLight` true; v12's migration leaves `bright` at false
  const v10 = { ...structuredClone(BASE), environment: undefined, darkness: 0.2, globalLight: true, globalLightThreshold: null };
  const canvas = makeCanvas(makeSceneDocument(v10));
  assert.equal(canvas.scene.environment.globalLight.bright, false);
  assert.equal(buildScene({ scene: canvas.scene, grid: canvas.grid, dimensions: canvas.dimensions }).environment.light, "dim");
});

test("lights: switched off (hidden) or outside their darkness range are on: false; elevation", () => {
  const lights = build({
    lights: [
      { _id: "on", x: 100, y: 100, elevation: 15, config: { bright: 10, dim: 20, angle: 0, darkness: { min: 0, max: 1 } } },
      { _id: "off", x: 100, y: 100, hidden: true, config: { bright: 10, dim: 20 } },
      { _id: "day", x: 100, y: 100, config: { bright: 10, dim: 20, darkness: { min: 0, max: 0.5 } } },
      { _id: "dark", x: 100, y: 100, walls: false, rotation: 90, config: { bright: 5, dim: 5, angle: 90, negative: true, darkness: { min: 0.5, max: 1 } } },
      { _id: "floor", x: 100, y: 100, flags: { levels: { rangeBottom: 10, rangeTop: 19 } }, config: { bright: 5 } },
    ],
  }).lights;
  assert.deepEqual(lights.map((l) => [l.id, l.on, l.elevation]), [["on", true, 15], ["off", false, 0], ["day", false, 0], ["dark", true, 0], ["floor", true, 10]]);
  assert.equal(lights[0].angle, 360);
  assert.deepEqual(lights[3], { id: "dark", x: 100, y: 100, bright: 5, dim: 5, angle: 90, rotation: 90, darkness: true, walls: false, elevation: 0, on: true });
});

test("regions: shapes (holes dropped, rotated rectangles, ellipses), elevation and the Sightline behaviour", () => {
  const regions = build({
    regions: [
      {
        _id: "fog",
        shapes: [
          { type: "rectangle", x: 100, y: 100, width: 200, height: 100, rotation: 0, hole: false },
          { type: "rectangle", x: 120, y: 120, width: 20, height: 20, rotation: 0, hole: true },
          { type: "circle", x: 500, y: 500, radius: 50, hole: false },
        ],
        elevation: { bottom: 0, top: 20 },
        behaviors: [
          { _id: "b1", type: BEHAVIOR_TYPE, disabled: false, system: { obscurement: "heavy", concealment: false, magicalDarkness: true, water: false, gravity: 2 } },
          { _id: "b2", type: BEHAVIOR_TYPE, disabled: true, system: { water: true } },
          { _id: "b3", type: "adjustDarknessLevel", system: { mode: 1, modifier: 0.5 } },
        ],
      },
    ],
  }).regions;
  assert.deepEqual(regions.map((r) => r.id), ["fog", "fog-1"]);
  assert.deepEqual(regions[0], {
    id: "fog",
    shape: { type: "rect", x: 100, y: 100, width: 200, height: 100 },
    obscurement: "heavy",
    concealment: false,
    magical_darkness: true,
    water: false,
    gravity: 2,
    // darkness 0.6 brightened by 0.5: 0.3, under the global light's max 0.5 (dim mode)
    light: "dim",
    elevation: { bottom: 0, top: 20 },
  });
  assert.deepEqual(regions[1].shape, { type: "circle", x: 500, y: 500, radius: 50 });
  const square = regionShape({ type: "rectangle", x: 0, y: 0, width: 100, height: 100, rotation: 90 });
  assert.deepEqual(square.points, [[100, 0], [100, 100], [0, 100], [0, 0]]);
  const ellipse = regionShape({ type: "ellipse", x: 0, y: 0, radiusX: 20, radiusY: 10, rotation: 0 });
  assert.equal(ellipse.points.length, 32);
  assert.deepEqual(ellipse.points[0], [20, 0]);
});

test("regions: Adjust Darkness Level behaviours give the region's light (GEO-9)", () => {
  const rect = { type: "rectangle", x: 0, y: 0, width: 100, height: 100, rotation: 0, hole: false };
  const env = (darknessLevel, max, bright = true) => ({ darknessLevel, globalLight: { enabled: true, bright, darkness: { min: 0, max } } });
  const cases = [
    [env(0, 0.65, false), [[2, 0.7]], "dark"],
    [env(0, 0.65, false), [[2, 0.5]], "dim"],
    [env(0.2, 0.5), [[0, 1]], "dark"],
    [env(0.8, 0.5), [[1, 0.5]], "bright"],
    [env(0, 0.5), [], null],
  ];
  for (const [environment, behaviors, expected] of cases) {
    const regions = build({
      environment,
      regions: [{ _id: "r", shapes: [rect], behaviors: behaviors.map(([mode, modifier], k) => ({ _id: `b${k}`, type: "adjustDarknessLevel", system: { mode, modifier } })) }],
    }).regions;
    assert.equal(regions[0].light, expected, JSON.stringify(behaviors));
  }
});

test("grid distance: kept down to service.model's MIN_GRID_DISTANCE (0.001, data/bounds.json), else 5", () => {
  const distance = (d) => build({ grid: { type: 1, size: 100, distance: d, units: "ft" } }).grid.distance;
  // 0.005 lies under the module's former bound (0.01) and above the model's
  assert.deepEqual([0.005, 0.001, 0.0009, 1_000_000, 1_000_001, 0, -5].map(distance), [0.005, 0.001, 5, 1_000_000, 5, 5, 5]);
});

test("actor senses: dnd5e 4+ `senses.ranges` read first, before the pre-4 top-level ranges", () => {
  const touched = [];
  const senses = {
    ranges: { darkvision: 120, blindsight: 0, tremorsense: null, truesight: 30 },
    units: "ft",
    // dnd5e 4 keeps the old paths as deprecated getters that warn when read
    get darkvision() {
      touched.push("darkvision");
      return 60;
    },
    get truesight() {
      touched.push("truesight");
      return 10;
    },
  };
  const old = { darkvision: 60, blindsight: 10, units: "ft" };
  const scene = build(
    { tokens: [{ _id: "new", x: 100, y: 100 }, { _id: "old", x: 300, y: 100 }] },
    { actors: { new: { system: { attributes: { senses } } }, old: { system: { attributes: { senses: old } } } } },
  );
  const [current, legacy] = scene.tokens;
  assert.deepEqual([current.senses.darkvision, current.senses.truesight, current.senses.blindsight], [120, 30, 0]);
  assert.deepEqual(touched, [], "the deprecated paths are not read when `ranges` has the sense");
  assert.deepEqual([legacy.senses.darkvision, legacy.senses.blindsight], [60, 10]);
});
