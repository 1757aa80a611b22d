/**
 * What the module reads from a live Foundry v14 scene (FORMATS.md pitfall 15, RULES GEO-5 and
 * GEO-10): levels, the levels walls, lights and regions are on (a Set in the live document),
 * Define Surface floors, token `depth`, and the region shapes v14 added, with the numbers
 * worked by hand. test/parity.test.mjs holds the same against the importer on real exports.
 */

import { test } from "node:test";
import assert from "node:assert/strict";
import { buildScene, regionShape } from "../scripts/scene.js";
import { levelIds, levelTable } from "../scripts/levels.js";
import { cone, outlineRings, regionShapes } from "../scripts/shapes.js";
import { makeCanvas, makeSceneDocument } from "../test-support/foundry.mjs";

const BASE = {
  _id: "v14Scene00000001",
  width: 1000,
  height: 1000,
  padding: 0,
  grid: { type: 1, size: 100, distance: 5, units: "ft" },
  environment: { darknessLevel: 0, globalLight: { enabled: true, bright: true, darkness: { min: 0, max: 1 } } },
  levels: [
    { _id: "ground", name: "Ground", elevation: { bottom: 0, top: 10 } },
    { _id: "upper", name: "Upper", elevation: { bottom: 10, top: null } },
  ],
  walls: [],
  tokens: [],
  lights: [],
  regions: [],
};

function build(patch = {}) {
  const scene = makeSceneDocument({ ...structuredClone(BASE), ...patch });
  const canvas = makeCanvas(scene);
  return buildScene({ scene: canvas.scene, grid: canvas.grid, dimensions: canvas.dimensions });
}

const wall = (id, extra) => ({ _id: id, c: [0, 0, 100, 0], move: 20, sight: 20, light: 20, sound: 20, ...extra });
const square = { type: "rectangle", x: 0, y: 0, width: 100, height: 100, anchorX: 0, anchorY: 0, rotation: 0, hole: false };

test("levels: id, name and range in grid units; none outside v14 (GEO-10)", () => {
  assert.deepEqual(build().levels, [
    { id: "ground", name: "Ground", bottom: 0, top: 10 },
    { id: "upper", name: "Upper", bottom: 10, top: null },
  ]);
  const plain = build({ levels: undefined });
  assert.deepEqual([plain.levels, plain.surfaces], [[], []]);
});

test("walls: one level names it and gives its range; several give their span; flags win (GEO-5, GEO-10)", () => {
  const walls = build({
    walls: [
      wall("one", { levels: ["ground"] }),
      wall("two", { levels: ["ground", "upper"] }),
      wall("every", { levels: [] }),
      wall("flagged", { levels: ["upper"], flags: { "wall-height": { bottom: 12, top: 18 } } }),
      wall("stranger", { levels: ["nowhere", "ground"] }),
    ],
  }).walls;
  assert.deepEqual(
    walls.map((w) => [w.id, w.height, w.level]),
    [
      ["one", { bottom: 0, top: 10 }, "ground"],
      ["two", { bottom: 0, top: null }, undefined],
      ["every", null, undefined],
      ["flagged", { bottom: 12, top: 18 }, "upper"],
      ["stranger", { bottom: 0, top: 10 }, "ground"],
    ],
  );
  assert.ok(!("level" in walls[1]), "no level key on a wall of several levels");
});

test("level ids: an export's array and a live document's Set", () => {
  const table = levelTable(build().levels);
  assert.deepEqual(levelIds({ levels: ["upper", "x"] }, table), ["upper"]);
  assert.deepEqual(levelIds({ levels: new Set(["ground"]) }, table), ["ground"]);
  assert.deepEqual(levelIds({ levels: "ground" }, table), []);
  assert.deepEqual(levelIds({}, table), []);
});

test("lights and regions of one level name it", () => {
  const scene = build({
    lights: [
      { _id: "lamp", x: 50, y: 50, elevation: 12, levels: ["upper"], config: { bright: 5, dim: 10 } },
      { _id: "sun", x: 50, y: 50, levels: [], config: { bright: 5 } },
    ],
    regions: [{ _id: "pool", shapes: [square, { ...square, x: 200 }], elevation: { bottom: 0, top: 10 }, levels: ["ground"], behaviors: [] }],
  });
  assert.deepEqual(scene.lights.map((l) => [l.id, l.level, l.elevation]), [["lamp", "upper", 12], ["sun", undefined, 0]]);
  assert.deepEqual(scene.regions.map((r) => [r.id, r.level]), [["pool", "ground"], ["pool-1", "ground"]]);
});

test("tokens: depth (grid spaces) x grid.distance is the height, before the height flags (GEO-5a)", () => {
  const tokens = build({
    tokens: [
      { _id: "tall", x: 0, y: 0, depth: 1.5 },
      { _id: "flat", x: 0, y: 0, depth: 0, flags: { "wall-height": { tokenHeight: 4 } } },
      { _id: "both", x: 0, y: 0, depth: 2, flags: { "wall-height": { tokenHeight: 4 } } },
      { _id: "old", x: 0, y: 0 },
    ],
  }).tokens;
  assert.deepEqual(tokens.map((t) => [t.id, t.vertical_extent]), [["tall", 7.5], ["flat", 4], ["both", 10], ["old", null]]);
});

test("surfaces: enabled Define Surface regions at their bottom or top, holes kept, their blocks and level (GEO-10)", () => {
  const surface = (id, system, elevation = { bottom: 10, top: 20 }, extra = {}) => ({
    _id: id,
    shapes: [{ ...square, width: 300, height: 300 }, { ...square, x: 100, y: 100, hole: true }],
    elevation,
    levels: ["upper"],
    behaviors: [{ _id: `${id}B`, type: "defineSurface", system, ...extra }],
  });
  const scene = build({
    regions: [
      surface("floor", { placement: "bottom", move: true, sight: true, light: true, sound: true }),
      surface("ceiling", { placement: "top", sight: false }, { bottom: 0, top: 10 }),
      surface("off", {}, undefined, { disabled: true }),
      surface("nowhere", {}, { bottom: null, top: 20 }),
    ],
  });
  const ring = (x0, y0, x1, y1) => [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
  assert.deepEqual(scene.surfaces, [
    { id: "floor", outline: [[ring(0, 0, 300, 300), ring(100, 100, 200, 200)]], elevation: 10, blocks: { move: true, sight: true, light: true, sound: true }, level: "upper" },
    // placement top: at elevation.top 10, which opens the upper level's [10, null)
    { id: "ceiling", outline: [[ring(0, 0, 300, 300), ring(100, 100, 200, 200)]], elevation: 10, blocks: { move: true, sight: false, light: true, sound: true }, level: "upper" },
  ]);
  // the surface regions stay regions too (their behaviour maps to nothing else)
  assert.deepEqual(scene.regions.map((r) => r.id), ["floor", "ceiling", "off", "nowhere"]);
});

test("anchored rectangles: (x, y) is the anchor and the pivot (v14); v12 ones turn about their centre", () => {
  // anchor at the top-left corner (100, 100): the box (100, 100)-(300, 200) turned a quarter
  // clockwise about that corner
  const corner = { type: "rectangle", x: 100, y: 100, width: 200, height: 100, anchorX: 0, anchorY: 0, rotation: 90 };
  assert.deepEqual(regionShape(corner).points, [[100, 100], [100, 300], [0, 300], [0, 100]]);
  // anchor at the middle of the top edge: the box starts half a width to the left
  assert.deepEqual(regionShape({ ...corner, anchorX: 0.5, rotation: 0 }), { type: "rect", x: 0, y: 100, width: 200, height: 100 });
  assert.deepEqual(regionShape({ ...corner, x: 300, anchorX: 1, rotation: 0 }), { type: "rect", x: 100, y: 100, width: 200, height: 100 });
  // the same numbers without anchors (v12/v13): the top-left corner, turned about the centre (200, 150)
  const v12 = { type: "rectangle", x: 100, y: 100, width: 200, height: 100, rotation: 90 };
  assert.deepEqual(regionShape(v12).points, [[250, 50], [250, 250], [150, 250], [150, 50]]);
});

test("v14 shapes: line, grid, cone, ring, token, emanation (numbers worked by hand)", () => {
  // a line 100 px long and 20 wide, pointing down (90 degrees clockwise)
  assert.deepEqual(regionShape({ type: "line", x: 0, y: 0, length: 100, width: 20, rotation: 90 }).points, [[10, 0], [10, 100], [-10, 100], [-10, 0]]);
  // grid squares (row i, column j) of 100 px: row 1's columns 2-3 join, 5 stands alone
  assert.deepEqual(regionShapes({ type: "grid", offsets: [{ i: 1, j: 2 }, { i: 1, j: 3 }, { i: 1, j: 5 }] }, 100), [
    { type: "rect", x: 200, y: 100, width: 200, height: 100 },
    { type: "rect", x: 500, y: 100, width: 100, height: 100 },
  ]);
  // a round 90-degree cone facing right: the origin, then 16 arc steps from -45 to 45 degrees
  const round = cone({ x: 0, y: 0, radius: 100, angle: 90, rotation: 0 });
  assert.equal(round.length, 18);
  assert.deepEqual([round[0], round[1], round[9], round[17]], [[0, 0], [70.710678, -70.710678], [100, 0], [70.710678, 70.710678]]);
  // flat: the far edge 100 px ahead, its corners at 100 / cos 45 (each corner twice, as the importer)
  assert.deepEqual(cone({ x: 0, y: 0, radius: 100, angle: 90, curvature: "flat" }), [[0, 0], [100, -100], [100, -100], [100, 100], [100, 100]]);
  // a ring from 50 to 150 px: two halves, outer arc out (33 points) and inner arc back (33)
  const halves = outlineRings({ type: "ring", x: 0, y: 0, radius: 100, innerWidth: 50, outerWidth: 50 }, 100);
  assert.equal(halves.length, 2);
  assert.equal(halves[0].length, 66);
  assert.deepEqual([halves[0][0], halves[0][32], halves[0][33], halves[0][65]], [[150, 0], [-150, 0], [-50, 0], [50, 0]]);
  // a 2x1 rectangular token (shape 4) on 100 px squares; an elliptic one (0) inside its box
  assert.deepEqual(regionShape({ type: "token", x: 100, y: 100, width: 2, height: 1, shape: 4 }, 100).points, [[100, 100], [300, 100], [300, 200], [100, 200]]);
  const oval = regionShape({ type: "token", x: 100, y: 100, width: 2, height: 1, shape: 0 }, 100).points;
  assert.deepEqual([oval.length, oval[0], oval[8]], [32, [300, 150], [200, 200]]);
  // emanations: a rectangle grown 10 px with round corners (4 quarter arcs of 17 points), a
  // circle of 40 px grown into one of 50
  const grown = regionShape({ type: "emanation", radius: 10, base: { type: "rectangle", x: 0, y: 0, width: 100, height: 50 } }).points;
  assert.deepEqual([grown.length, grown[0], grown[16], grown[17]], [68, [110, 50], [100, 60], [0, 60]]);
  const disc = regionShape({ type: "emanation", radius: 10, base: { type: "circle", x: 0, y: 0, radius: 40 } }).points;
  assert.deepEqual([disc.length, disc[0], disc[16]], [64, [50, 0], [0, 50]]);
  assert.equal(regionShape({ type: "emanation", radius: 10, base: { type: "polygon", points: [0, 0, 1, 0, 1, 1] } }), null);
});
