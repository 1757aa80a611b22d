/**
 * What the module reads from a live game that an export does not carry: actors (conditions,
 * senses, size, abilities, swim speed), the Sightline region behaviour, lights that are off,
 * the core grid-diagonals setting; and v12/v13 document shapes (detection modes as a list or
 * a record, rotated rectangles, ellipses, holes).
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

test("grid: type, units, diagonals from the core setting, canvas size with padding", () => {
  for (const [diagonals, rule] of [[0, "equidistant"], [1, "euclidean"], [4, "alternating"], [5, "alternating"], [3, "equidistant"]]) {
    assert.equal(build({}, { diagonals }).grid.diagonals, rule);
  }
  const scene = build({ grid: { type: 4, size: 80, distance: 1.5, units: "m" } });
  assert.deepEqual(scene.grid, { size: 80, distance: 1.5, units: "m", type: "hex-col", diagonals: "equidistant" });
  assert.equal(build().width, 1000 + 2 * 100);
  // darkness 0.6 above the global light's 0.5: unlit places are dark
  assert.equal(build().environment.light, "dark");
  assert.equal(build({ environment: { darknessLevel: 0.2, globalLight: { enabled: true, bright: false, darkness: { max: 0.5 } } } }).environment.light, "dim");
});

test("walls: restrictions, one-way, doors, thresholds, heights", () => {
  const [wall, door] = build({
    walls: [
      { _id: "w1", c: [0, 0, 100, 0], move: 20, sight: 30, light: 10, sound: 0, dir: 1, door: 0, ds: 1, threshold: { sight: 10, light: null, sound: null, attenuation: true }, flags: { "wall-height": { bottom: 0, top: 10 } } },
      { _id: "w2", c: [100, 0, 200, 0], move: 20, sight: 20, light: 20, sound: 20, dir: 2, door: 2, ds: 2, flags: { levels: { rangeBottom: 10, rangeTop: null } } },
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

test("token senses: detection modes as a list (v12) or a record, unlimited ranges", () => {
  const list = tokenSenses({ sight: { range: null, visionMode: "basic" }, detectionModes: [{ id: "seeInvisibility", enabled: true, range: 60 }, { id: "feelTremor", enabled: false, range: 30 }] });
  assert.equal(list.darkvision, 10000);
  assert.equal(list.see_invisibility, 60);
  assert.equal(list.tremorsense, 0);
  const record = tokenSenses({ sight: { range: 0, visionMode: "basic" }, detectionModes: { senseAll: { enabled: true, range: 15 }, hearing: { range: null } } });
  assert.equal(record.blindsight, 15);
  assert.equal(record.hearing, 10000);
});

test("lights: switched off, or outside their darkness range, are left out", () => {
  const lights = build({
    lights: [
      { _id: "on", x: 100, y: 100, config: { bright: 10, dim: 20, angle: 0, darkness: { min: 0, max: 1 } } },
      { _id: "off", x: 100, y: 100, hidden: true, config: { bright: 10, dim: 20 } },
      { _id: "day", x: 100, y: 100, config: { bright: 10, dim: 20, darkness: { min: 0, max: 0.5 } } },
      { _id: "dark", x: 100, y: 100, walls: false, rotation: 90, config: { bright: 5, dim: 5, angle: 90, negative: true, darkness: { min: 0.5, max: 1 } } },
    ],
  }).lights;
  assert.deepEqual(lights.map((l) => l.id), ["on", "dark"]);
  assert.equal(lights[0].angle, 360);
  assert.deepEqual(lights[1], { id: "dark", x: 100, y: 100, bright: 5, dim: 5, angle: 90, rotation: 90, darkness: true, walls: false });
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
    elevation: { bottom: 0, top: 20 },
  });
  assert.deepEqual(regions[1].shape, { type: "circle", x: 500, y: 500, radius: 50 });
  const square = regionShape({ type: "rectangle", x: 0, y: 0, width: 100, height: 100, rotation: 90 });
  assert.deepEqual(square.points, [[100, 0], [100, 100], [0, 100], [0, 0]]);
  const ellipse = regionShape({ type: "ellipse", x: 0, y: 0, radiusX: 20, radiusY: 10, rotation: 0 });
  assert.equal(ellipse.points.length, 32);
  assert.deepEqual(ellipse.points[0], [20, 0]);
});
