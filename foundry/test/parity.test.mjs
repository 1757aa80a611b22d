/**
 * The scene the module builds from the live canvas answers like the service's own import of
 * the same export: for every ordered token pair, the cover matrix (`POST /v1/matrix`, kind
 * cover) is the same in all three rulesets. Real exports (v10, v12, v13), a real gunicorn.
 *
 * v12/v13 exports come without tokens: a few tokens are added to the export copy in memory
 * and so, through the same mocked documents, to the canvas, so both sides see them.
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

/**
 * Seven tokens (v12 token data) spread over the scene picture, on grid cells: sizes 1 and 2,
 * an elevated one, a hidden one, one with darkvision and one tremorsense detection mode.
 */
function addTokens(doc) {
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
    elevation: i === 5 ? 10 : 0,
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

for (const name of [...WITH_TOKENS, ...WITHOUT_TOKENS]) {
  describe(name, () => {
    let exportDoc;
    let moduleScene;
    let importedScene;

    before(async () => {
      if (skipReason() || startError) return;
      exportDoc = readExport(name);
      if (WITHOUT_TOKENS.includes(name)) addTokens(exportDoc);
      const { canvas } = makeFoundry(exportDoc);
      moduleScene = buildScene({ scene: canvas.scene, grid: canvas.grid, dimensions: canvas.dimensions });
      importedScene = (await postJson(service.url, "/v1/import/foundry", exportDoc)).scene;
    });

    test("the module's scene is the imported scene, diagonals and out-of-range lights aside", (t) => {
      if (skipReason()) return t.skip(skipReason());
      if (startError) throw startError;
      assert.ok(moduleScene.tokens.length >= 7, "tokens to compare");
      for (const key of ["width", "height", "environment", "walls", "tokens", "regions"]) {
        close(moduleScene[key], importedScene[key], key);
      }
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
