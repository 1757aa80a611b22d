/**
 * scripts/bounds.js, the script module the scene builder takes service.model's bounds from,
 * holds exactly data/bounds.json's `model` (which `python foundry/tools/bounds.py --check`,
 * test/static.test.mjs, keeps current with service/model.py).
 */

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MODEL_BOUNDS } from "../scripts/bounds.js";
import { FOUNDRY_DIR } from "../test-support/foundry.mjs";

test("scripts/bounds.js is data/bounds.json's model", () => {
  const data = JSON.parse(readFileSync(join(FOUNDRY_DIR, "data", "bounds.json"), "utf8"));
  assert.deepEqual({ ...MODEL_BOUNDS }, data.model);
  assert.ok(Object.isFrozen(MODEL_BOUNDS));
});
