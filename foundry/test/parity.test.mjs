/**
 * The scene the module builds from the live canvas answers like the service's own import of
 * the same export: for every ordered token pair, the cover matrix (`POST /v1/matrix`, kind
 * cover) is the same in all three rulesets. Real exports (v10, v12, v13, and two v14
 * buildings with levels and surfaces, GEO-10), a real gunicorn.
 *
 * v12 to v14 exports come without tokens: a few tokens are added to the export copy in memory
 * and so, through the same mocked documents, to the canvas, so both sides see them; in a v14
 * building they stand on its floors and carry v14's `depth`.
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { buildScene } from "../scripts/scene.js";
import { exportsMissing, makeFoundry, readExport } from "../test-support/foundry.mjs";
import { postJson, startService } from "../test-support/service.mjs";

const RULESETS = ["dnd5e", "starfinder", "pf2e-variant"];

/** Real exports with their own tokens. */
const WITH_TOKENS = [
  "foundry-v10-delian-tomb.json",
  "foundry-v10-lancer-crashed-ship-hex-heights.json",
  "foundry-v10-lancer-dingy-hostel-gridless.json",
];
/** Real v12/v13 exports without tokens: tokens are added. */
const WITHOUT_TOKENS = [
  "foundry-v12-fa-manor-house-regions.json",
  "foundry-v12-fa-cult-sanctuary.json",
  "foundry-v13-fa-butcher-shop.json",
];
/** Real v14 buildings (FORMATS.md pitfall 15): levels, Define Surface regions, stairs. */
const BUILDINGS = [
  "foundry-v14-fa-eastgate-guard-outpost-levels.json",
  "foundry-v14-fa-desert-slums-levels.json",
];

/**
 * Seven tokens (v12 token data) spread over the scene picture, on grid cells: sizes 1 and 2,
 * an elevated one, a hidden one, one with darkvision and one tremorsense detection mode. In a
 * v14 building (`levels`) token i stands on the bottom of level i mod (number of levels) and
 * has v14's `depth` (grid spaces; the size-2 token 2, the others 1).
 */
function addTokens(doc) {
  const floors = (doc.levels ?? []).map((lv) => lv.elevation?.bottom ?? 0);
  const size = doc.grid.size;
  const padX = Math.ceil((doc.width * doc.padding) / size) * size;
  const padY = Math.ceil((doc.height * doc.padding) / size) * size;
  const cols = Math.floor(doc.width / size) - 2;
  const rows = Math.floor(doc.height / size) - 2;
  doc.tokens = Array.from({ length: 7 }, (_, i) => ({
    _id: `addedToken000${i}`,
    name: `Added ${i + 1}`,
    x: padX + (1 + ((i * 5 + 2) % cols)) * size,
    y: padY + (1 + ((i * 3 + 1) % rows)) * size,
    width: i === 3 ? 2 : 1,
    height: i === 3 ? 2 : 1,
    elevation: floors.length ? floors[i % floors.length] : i === 5 ? 10 : 0,
    ...(floors.length ? { depth: i === 3 ? 2 : 1 } : {}),
    hidden: i === 6,
    light: { bright: 0, dim: i === 2 ? 20 : 0 },
    sight: { enabled: true, range: i === 1 ? 60 : 0, visionMode: i === 1 ? "darkvision" : "basic" },
    detectionModes: i === 4 ? [{ id: "feelTremor", enabled: true, range: 30 }] : [],
  }));
  return doc;
}

const missing = exportsMissing();
let service = null;
let startError = null;
let pairsCompared = 0;

before(async () => {
  if (missing) return;
  try {
    // The hex scene with wall heights takes the starfinder matrix ~13 s on one worker.
    service = await startService({ SIGHTLINE_WORKER_TIMEOUT: "180" });
  } catch (err) {
    startError = err;
  }
});

after(async () => {
  await service?.stop();
  if (pairsCompared) console.log(`# token pairs compared (ordered pairs x rulesets): ${pairsCompared}`);
});

function skipReason() {
  return missing ?? service?.skip ?? null;
}

/** Scene numbers equal to 1e-6 px (the importer rounds rotated shapes in Python). */
function close(actual, expected, path = "scene") {
  if (typeof expected === "number" && typeof actual === "number") {
    assert.ok(Math.abs(actual - expected) <= 1e-6, `${path}: ${actual} != ${expected}`);
    return;
  }
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: not a list`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((e, i) => close(actual[i], e, `${path}[${i}]`));
    return;
  }
  if (expected && typeof expected === "object") {
    assert.deepEqual(Object.keys(actual ?? {}).sort(), Object.keys(expected).sort(), `${path}: keys`);
    for (const key of Object.keys(expected)) close(actual[key], expected[key], `${path}.${key}`);
    return;
  }
  assert.equal(actual, expected, path);
}

for (const name of [...WITH_TOKENS, ...WITHOUT_TOKENS, ...BUILDINGS]) {
  describe(name, () => {
    let exportDoc;
    let moduleScene;
    let importedScene;

    before(async () => {
      if (skipReason() || startError) return;
      exportDoc = readExport(name);
      if (!WITH_TOKENS.includes(name)) addTokens(exportDoc);
      const { canvas } = makeFoundry(exportDoc);
      moduleScene = buildScene({ scene: canvas.scene, grid: canvas.grid, dimensions: canvas.dimensions });
      importedScene = (await postJson(service.url, "/v1/import/foundry", exportDoc)).scene;
    });

    test("the module's scene is the imported scene, diagonals, out-of-range lights and a migrated global light aside", (t) => {
      if (skipReason()) return t.skip(skipReason());
      if (startError) throw startError;
      assert.ok(moduleScene.tokens.length >= 7, "tokens to compare");
      for (const key of ["width", "height", "levels", "walls", "tokens", "regions", "surfaces"]) {
        close(moduleScene[key], importedScene[key], key);
      }
      // A v10 scene in a v12 world: the migration leaves the global light's `bright` at false
      // (dim), where the v10 export's global illumination lit it bright.
      const migrated = !exportDoc.environment && exportDoc.globalLight === true;
      const { light } = importedScene.environment;
      if (migrated) assert.equal(light, "bright", "the v10 export's global light");
      close(moduleScene.environment, { ...importedScene.environment, light: migrated ? "dim" : light }, "environment");
      // The export carries no diagonal rule (unset, GEO-8); the live game has the core setting.
      close({ ...moduleScene.grid, diagonals: null }, importedScene.grid, "grid");
      assert.equal(importedScene.grid.diagonals, null);
      assert.equal(moduleScene.grid.diagonals, "equidistant");
      // Both switch hidden lights off; the module also switches off lights outside their
      // darkness range at the live darkness level, which the importer cannot know.
      const off = new Set((exportDoc.lights ?? []).filter((l) => l.hidden === true).map((l) => l._id));
      for (const light of importedScene.lights) assert.equal(light.on, !off.has(light.id), `light ${light.id}`);
      const shining = new Set(moduleScene.lights.filter((l) => l.on).map((l) => l.id));
      close(
        moduleScene.lights,
        importedScene.lights.map((l) => ({ ...l, on: shining.has(l.id) })),
        "lights",
      );
      for (const id of off) assert.ok(!shining.has(id), `light ${id} is off`);
    });

    if (BUILDINGS.includes(name)) {
      test("a v14 building: its levels, surfaces, level members and token depths, as the file counts them (GEO-10)", (t) => {
        if (skipReason()) return t.skip(skipReason());
        if (startError) throw startError;
        const ofOneLevel = (list) => list.filter((d) => (d.levels ?? []).length === 1).map((d) => d._id).sort();
        assert.deepEqual(moduleScene.levels.map((lv) => [lv.id, lv.bottom, lv.top]), exportDoc.levels.map((lv) => [lv._id, lv.elevation.bottom, lv.elevation.top]));
        const surfaces = exportDoc.regions.filter((r) => r.behaviors.some((b) => b.type === "defineSurface" && !b.disabled));
        assert.ok(surfaces.length >= 4, `${surfaces.length} surfaces`);
        assert.deepEqual(moduleScene.surfaces.map((s) => s.id), surfaces.map((r) => r._id));
        for (const surface of moduleScene.surfaces) assert.ok(surface.level, `surface ${surface.id} lies on a level`);
        assert.deepEqual(moduleScene.walls.filter((w) => w.level).map((w) => w.id).sort(), ofOneLevel(exportDoc.walls));
        assert.deepEqual(moduleScene.lights.filter((l) => l.level).map((l) => l.id).sort(), ofOneLevel(exportDoc.lights));
        const regions = new Set(moduleScene.regions.filter((r) => r.level).map((r) => r.id.replace(/-\d+$/, "")));
        assert.deepEqual([...regions].sort(), ofOneLevel(exportDoc.regions));
        // walls without a Wall Height flag take their level's range
        const byId = new Map(moduleScene.levels.map((lv) => [lv.id, lv]));
        for (const wall of moduleScene.walls.filter((w) => w.level)) {
          assert.deepEqual(wall.height, { bottom: byId.get(wall.level).bottom, top: byId.get(wall.level).top }, wall.id);
        }
        // depth (grid spaces) x grid.distance (5 ft)
        assert.deepEqual(moduleScene.tokens.map((tk) => tk.vertical_extent), [5, 5, 5, 10, 5, 5, 5]);
        t.diagnostic(`${moduleScene.levels.length} levels, ${moduleScene.surfaces.length} surfaces, ${moduleScene.walls.filter((w) => w.level).length} walls on a level`);
      });
    }

    for (const ruleset of RULESETS) {
      test(`cover matrix, ${ruleset}: same answer for every ordered token pair`, async (t) => {
        if (skipReason()) return t.skip(skipReason());
        if (startError) throw startError;
        const tokens = importedScene.tokens.map((tk) => tk.id);
        const ask = (scene) => postJson(service.url, "/v1/matrix", { ruleset, scene, tokens, kind: "cover" });
        const [fromModule, fromImport] = await Promise.all([ask(moduleScene), ask(importedScene)]);
        assert.deepEqual(fromModule.tokens, tokens);
        assert.equal(fromModule.cover.length, tokens.length);
        for (let i = 0; i < tokens.length; i += 1) {
          for (let j = 0; j < tokens.length; j += 1) {
            if (i === j) continue;
            assert.equal(
              fromModule.cover[i][j],
              fromImport.cover[i][j],
              `${ruleset}: ${tokens[i]} -> ${tokens[j]}`,
            );
            pairsCompared += 1;
          }
        }
        const degrees = new Set(fromImport.cover.flat().filter(Boolean));
        assert.ok(degrees.size >= 1, "the matrix holds answers");
        t.diagnostic(`${tokens.length} tokens; degrees seen: ${[...degrees].sort().join(", ")}`);
      });
    }
  });
}

/**
 * Every v14 region shape (FORMATS.md pitfall 15) and anchored rectangle, written into a copy
 * of a real v14 building as regions and a Define Surface floor: the module's regions and
 * surfaces are the importer's, point for point (1e-6 px).
 */
const V14_SHAPES = [
  { type: "emanation", radius: 50, base: { type: "token", x: 1000, y: 1000, width: 1, height: 1, shape: 4 } },
  { type: "emanation", radius: 50, base: { type: "token", x: 1000, y: 1000, width: 2, height: 1, shape: 0 } },
  { type: "emanation", radius: 25, base: { type: "rectangle", x: 1200, y: 1200, width: 100, height: 50, anchorX: 0, anchorY: 0, rotation: 0 } },
  { type: "emanation", radius: 25, base: { type: "circle", x: 1200, y: 1200, radius: 40 } },
  { type: "emanation", radius: 10, base: { type: "ellipse", x: 1200, y: 1200, radiusX: 40, radiusY: 20, rotation: 30 } },
  { type: "cone", x: 1500, y: 1500, radius: 300, angle: 90, rotation: 45, curvature: "round" },
  { type: "cone", x: 1500, y: 1500, radius: 300, angle: 53.13, rotation: 0, curvature: "flat" },
  { type: "cone", x: 1500, y: 1500, radius: 300, angle: 60, rotation: 180, curvature: "semicircle" },
  { type: "cone", x: 1500, y: 1500, radius: 100, angle: 360, rotation: 0 },
  { type: "ring", x: 2000, y: 2000, radius: 200, innerWidth: 50, outerWidth: 50 },
  { type: "ring", x: 2000, y: 2000, radius: 100, innerWidth: 100, outerWidth: 20 },
  { type: "line", x: 800, y: 2500, length: 600, width: 100, rotation: 30 },
  { type: "token", x: 900, y: 900, width: 2, height: 2, shape: 0 },
  { type: "token", x: 900, y: 900, width: 1, height: 3, shape: 5 },
  { type: "token", x: 900, y: 900, width: 1, height: 1, shape: 2 },
  { type: "grid", offsets: [{ i: 10, j: 10 }, { i: 10, j: 11 }, { i: 10, j: 13 }, { i: 11, j: 10 }] },
  { type: "grid", offsets: [12, 20, 12, 21] },
  { type: "rectangle", x: 1600, y: 1000, width: 200, height: 100, anchorX: 0.5, anchorY: 0.5, rotation: 45 },
  { type: "rectangle", x: 1600, y: 1000, width: 200, height: 100, anchorX: 1, anchorY: 0, rotation: 0 },
  { type: "rectangle", x: 1600, y: 1000, width: 200, height: 100, rotation: 30 },
  { type: "ellipse", x: 1700, y: 1700, radiusX: 80, radiusY: 40, rotation: 15 },
];

describe("v14 region shapes and anchored rectangles, as regions and as a floor", () => {
  let moduleScene;
  let importedScene;

  before(async () => {
    if (skipReason() || startError) return;
    const exportDoc = readExport(BUILDINGS[0]);
    const level = exportDoc.levels[1]._id;
    const shapes = V14_SHAPES.map((shape) => ({ hole: false, ...structuredClone(shape) }));
    exportDoc.regions.push(
      { _id: "shapesRegion0001", name: "shapes", shapes, elevation: { bottom: 20, top: 40 }, levels: [level], behaviors: [] },
      {
        _id: "shapesFloor00001",
        name: "floor",
        shapes: [shapes[9], shapes[5], { type: "rectangle", x: 1950, y: 1950, width: 20, height: 20, anchorX: 0, anchorY: 0, rotation: 0, hole: true }],
        elevation: { bottom: 20, top: 30 },
        levels: [level],
        behaviors: [{ _id: "floorBehavior001", type: "defineSurface", disabled: false, system: { placement: "top", move: true, sight: false, light: true, sound: true } }],
      },
    );
    const { canvas } = makeFoundry(exportDoc);
    moduleScene = buildScene({ scene: canvas.scene, grid: canvas.grid, dimensions: canvas.dimensions });
    importedScene = (await postJson(service.url, "/v1/import/foundry", exportDoc)).scene;
  });

  test("each shape's regions are the importer's; the floor's outline, height and blocks too", (t) => {
    if (skipReason()) return t.skip(skipReason());
    if (startError) throw startError;
    const ours = (scene) => scene.regions.filter((r) => r.id.startsWith("shapes"));
    // a ring gives two halves, the first grid shape three runs of squares: 21 shapes, 24
    // regions; the floor's ring and cone 3 more (its hole dropped)
    assert.equal(ours(importedScene).length, 24 + 3);
    close(ours(moduleScene), ours(importedScene), "regions");
    const floor = (scene) => scene.surfaces.filter((s) => s.id === "shapesFloor00001");
    close(floor(moduleScene), floor(importedScene), "surfaces");
    const [surface] = floor(moduleScene);
    assert.equal(surface.elevation, 30, "placement top: elevation.top");
    assert.equal(surface.level, importedScene.levels[1].id);
    assert.deepEqual(surface.blocks, { move: true, sight: false, light: true, sound: true });
    assert.deepEqual(surface.outline.map((polygon) => polygon.length), [2, 1, 1], "ring halves and cone; the hole joins the first");
    const kinds = ours(moduleScene).map((r) => r.shape.type);
    t.diagnostic(`module regions: ${kinds.join(", ")}`);
  });
});
