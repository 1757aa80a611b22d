/**
 * The Levels module's floors (Foundry v9 to v13 with Levels; RULES GEO-5, GEO-10): the
 * module reads `flags.levels.sceneLevels` as levels, floor tiles (`rangeBottom`) as surfaces
 * cut by hole drawings, and the inclusive ranges (0-9, 10-19) as [0, 10), [10, 20) with no
 * gap; walls and lights take the level of their range. Worked by hand on a small scene, and
 * equal to the importer's scene on the real v9 Levels tower (../shared/scenes/real/foundry/
 * foundry-v9-vttom-tower-levels.json, as a v12 world holds it: the v9 flat grid fields as
 * `grid`, drawings with their `shape`).
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { buildScene } from "../scripts/scene.js";
import { exportsMissing, makeCanvas, makeSceneDocument, readExport } from "../test-support/foundry.mjs";
import { postJson, startService } from "../test-support/service.mjs";

const TOWER = "foundry-v9-vttom-tower-levels.json";

/** A scene document of `data` (v12 shape) with its tiles and drawings embedded too. */
function sceneOf(data) {
  const scene = makeSceneDocument(data);
  scene.tiles = new Map((data.tiles ?? []).map((t) => [t._id, { ...structuredClone(t), id: t._id }]));
  scene.drawings = new Map((data.drawings ?? []).map((d) => [d._id, { ...structuredClone(d), id: d._id }]));
  const canvas = makeCanvas(scene);
  return buildScene({ scene: canvas.scene, grid: canvas.grid, dimensions: canvas.dimensions });
}

/** The v9 export as a v12 world holds it, for the fields read here. */
function asV12(v9) {
  return {
    ...structuredClone(v9),
    grid: { type: v9.gridType, size: v9.grid, distance: v9.gridDistance, units: v9.gridUnits },
    drawings: v9.drawings.map((d) => ({ ...structuredClone(d), shape: { type: "r", width: d.width, height: d.height } })),
  };
}

const SMALL = {
  _id: "levelsScene00001",
  width: 1000,
  height: 1000,
  padding: 0,
  grid: { type: 1, size: 100, distance: 5, units: "ft" },
  environment: { darknessLevel: 0, globalLight: { enabled: true, bright: true, darkness: { min: 0, max: 1 } } },
  flags: { levels: { sceneLevels: [[0, 9, "Ground"], [10, 19, "Upper"]] } },
  walls: [
    { _id: "groundWall", c: [0, 0, 100, 0], flags: { "wall-height": { bottom: 0, top: 9 } } },
    { _id: "upperWall", c: [0, 0, 100, 0], flags: { "wall-height": { bottom: 10, top: 19 } } },
    { _id: "oddWall", c: [0, 0, 100, 0], flags: { "wall-height": { bottom: 3, top: 7 } } },
  ],
  tokens: [],
  lights: [
    { _id: "upperLamp", x: 50, y: 50, config: { dim: 10, bright: 5 }, flags: { levels: { rangeBottom: 10, rangeTop: 19 } } },
  ],
  regions: [],
  tiles: [
    { _id: "upperFloor", x: 100, y: 200, width: 400, height: 300, rotation: 0, flags: { levels: { rangeBottom: 10, rangeTop: 19 } } },
    { _id: "justArt", x: 0, y: 0, width: 100, height: 100, flags: {} },
  ],
  drawings: [
    { _id: "stairwell", x: 200, y: 300, shape: { type: "r", width: 100, height: 100 }, flags: { levels: { drawingMode: 1, rangeBottom: 0, rangeTop: 10 } } },
    { _id: "stairs", x: 0, y: 0, shape: { type: "r", width: 100, height: 100 }, flags: { levels: { drawingMode: 2, rangeBottom: 0, rangeTop: 10 } } },
  ],
};

test("sceneLevels 0-9, 10-19 are the levels [0, 10), [10, 19): no 9-10 gap (GEO-5)", () => {
  const scene = sceneOf(SMALL);
  // 9 is followed by a range starting at 10: [0, 10); nothing starts at 20, so 19 stays
  assert.deepEqual(scene.levels, [
    { id: "sceneLevels-0", name: "Ground", bottom: 0, top: 10 },
    { id: "sceneLevels-1", name: "Upper", bottom: 10, top: 19 },
  ]);
  // a wall's inclusive 0-9 and 10-19 are its level's range and name it; 3-7 is no level's
  const walls = Object.fromEntries(scene.walls.map((w) => [w.id, [w.height, w.level ?? null]]));
  assert.deepEqual(walls, {
    groundWall: [{ bottom: 0, top: 10 }, "sceneLevels-0"],
    upperWall: [{ bottom: 10, top: 19 }, "sceneLevels-1"],
    oddWall: [{ bottom: 3, top: 7 }, null],
  });
  assert.deepEqual([scene.lights[0].elevation, scene.lights[0].level], [10, "sceneLevels-1"]);
  // a roof tile at 20 starts a range at 19 + 1: the upper floor is [10, 20)
  const roofed = structuredClone(SMALL);
  roofed.tiles.push({ _id: "roof", x: 0, y: 0, width: 100, height: 100, flags: { levels: { rangeBottom: 20 } } });
  const upper = sceneOf(roofed);
  assert.deepEqual([upper.levels[1].top, upper.walls[1].height], [20, { bottom: 10, top: 20 }]);
});

test("a floor tile is a surface at its rangeBottom, cut by the hole drawings over it (GEO-10)", () => {
  const [floor, ...others] = sceneOf(SMALL).surfaces;
  assert.deepEqual(others, []); // the tile without Levels flags is art, not a floor
  assert.deepEqual(floor, {
    id: "upperFloor",
    outline: [[
      [[100, 200], [500, 200], [500, 500], [100, 500]], // the tile: 100..500 x 200..500
      [[200, 300], [300, 300], [300, 400], [200, 400]], // the stairwell's hole: (0, 10 + 1] holds 10
    ]],
    elevation: 10,
    blocks: { move: true, sight: true, light: true, sound: true },
    level: "sceneLevels-1",
  });
  const higher = structuredClone(SMALL);
  higher.drawings[0].flags.levels.rangeTop = 5; // (0, 6] does not hold 10: no hole
  assert.equal(sceneOf(higher).surfaces[0].outline[0].length, 1);
});

test("a v14 scene's levels win over stray Levels flags; a plain scene has neither", () => {
  const v14 = structuredClone(SMALL);
  v14.levels = [{ _id: "L", name: "one", elevation: { bottom: 0, top: 9 } }];
  const scene = sceneOf(v14);
  assert.deepEqual(scene.levels, [{ id: "L", name: "one", bottom: 0, top: 9 }]); // v14: as given
  const plain = structuredClone(SMALL);
  plain.flags = {};
  plain.tiles = [];
  const flat = sceneOf(plain);
  assert.deepEqual([flat.levels, flat.surfaces], [[], []]);
  assert.deepEqual(flat.walls[0].height, { bottom: 0, top: 9 }); // no levels: read as written
});

describe("the real v9 Levels tower: the module's floors are the importer's", () => {
  const missing = exportsMissing();
  let service = null;
  let raw;
  let moduleScene;
  let importedScene;

  before(async () => {
    if (missing) return;
    service = await startService();
    if (service.skip) return;
    raw = readExport(TOWER);
    moduleScene = sceneOf(asV12(raw));
    importedScene = (await postJson(service.url, "/v1/import/foundry", raw)).scene;
  });

  after(async () => {
    await service?.stop?.();
  });

  test("levels, walls, surfaces equal; lights equal but for the live darkness range", (t) => {
    const skip = missing ?? service?.skip;
    if (skip) return t.skip(skip);
    for (const key of ["levels", "walls", "surfaces"]) assert.deepEqual(moduleScene[key], importedScene[key], key);
    const unlit = (lights) => lights.map(({ on, ...rest }) => rest);
    assert.deepEqual(unlit(moduleScene.lights), unlit(importedScene.lights));
  });

  test("as the file counts them: 4 levels without gaps, 4 floor tiles, the height-flagged walls on levels", (t) => {
    const skip = missing ?? service?.skip;
    if (skip) return t.skip(skip);
    const sceneLevels = raw.flags.levels.sceneLevels;
    assert.equal(moduleScene.levels.length, sceneLevels.length);
    assert.deepEqual(
      moduleScene.levels.map((lv) => [lv.bottom, lv.top]),
      sceneLevels.map(([bottom, top]) => [Number(bottom), Number(top) + 1]), // 0-9 -> [0, 10)
    );
    const floors = raw.tiles.filter((tile) => tile.flags?.levels?.rangeBottom !== undefined && tile.flags.levels.rangeBottom !== null);
    assert.deepEqual(moduleScene.surfaces.map((s) => s.id).sort(), floors.map((tile) => tile._id).sort());
    const flagged = raw.walls.filter((w) => w.flags?.["wall-height"]).map((w) => w._id).sort();
    assert.deepEqual(moduleScene.walls.filter((w) => w.level).map((w) => w.id).sort(), flagged);
    assert.equal(flagged.length, 83);
    assert.ok(moduleScene.lights.every((l) => l.level), "every light of the tower lies on a floor");
  });
});
