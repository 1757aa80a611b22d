/**
 * scripts/bounds.js, the script module the scene builder takes service.model's bounds from,
 * holds exactly data/bounds.json's `model` and `cover` (which `python foundry/tools/bounds.py --check`,
 * test/static.test.mjs, keeps current with service/model.py).
 */

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COVER_DEGREES, MODEL_BOUNDS } from "../scripts/bounds.js";
import { FOUNDRY_DIR } from "../test-support/foundry.mjs";

test("scripts/bounds.js is data/bounds.json's model", () => {
  const data = JSON.parse(readFileSync(join(FOUNDRY_DIR, "data", "bounds.json"), "utf8"));
  assert.deepEqual({ ...MODEL_BOUNDS }, data.model);
  assert.ok(Object.isFrozen(MODEL_BOUNDS));
});

test("scripts/bounds.js's cover degrees are data/bounds.json's (5E-COV-5 +2/+5, PF2-COV-1 +1/+2/+4, SF-COV-2)", () => {
  const data = JSON.parse(readFileSync(join(FOUNDRY_DIR, "data", "bounds.json"), "utf8"));
  assert.deepEqual(JSON.parse(JSON.stringify(COVER_DEGREES)), data.cover);
  const ac = (ruleset) => Object.fromEntries(COVER_DEGREES[ruleset].map((d) => [d.cover, d.ac_bonus]));
  assert.deepEqual(ac("dnd5e"), { none: 0, half: 2, "three-quarters": 5, total: null });
  assert.deepEqual(ac("pf2e"), { none: 0, lesser: 1, standard: 2, greater: 4, total: null });
  assert.deepEqual(ac("starfinder"), { none: 0, partial: 2, cover: 4, soft: 4, improved: 8, total: null });
});
