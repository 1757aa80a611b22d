/**
 * The JavaScript peer on the hand-made cases of cases.json (issue 20; 5E-COV-5 paired
 * corners, GEO-1/GEO-2 walls, the peers' closed-segment test): `node --test bench/peers/test/`.
 *
 * The crossing test and the table need nothing installed; the flatbush matrix needs
 * `npm ci --prefix bench/peers` and is skipped, saying so, without it.
 */

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  PAIRED_CORNERS,
  blockedLines,
  blocksMovement,
  degree,
  insetCorners,
  segmentsCross,
  tokenBox,
} from "../crossing.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const PEERS = dirname(HERE);
const CASES = JSON.parse(readFileSync(join(HERE, "cases.json"), "utf8"));
const DEFAULT_TOKENS = [
  { id: "A", x: 0, y: 0 },
  { id: "T", x: 300, y: 0 },
];
const HAVE_FLATBUSH = existsSync(join(PEERS, "node_modules", "flatbush"));

function sceneOf(c) {
  const walls = c.walls.map((w, i) => (Array.isArray(w) ? { id: `w${i}`, c: w } : { id: `w${i}`, ...w }));
  return { grid: CASES.grid, walls, tokens: c.tokens ?? DEFAULT_TOKENS };
}

test("5E-COV-5 table: 0-1 none, 2 half, 3 three-quarters, 4 total", () => {
  assert.deepEqual([0, 1, 2, 3, 4].map(degree), ["none", "none", "half", "three-quarters", "total"]);
  assert.equal(PAIRED_CORNERS.length, 5);
});

test("GEO-6 inset: corners A, B, C, D move 0.5 px toward the centre", () => {
  assert.deepEqual(insetCorners([0, 0, 100, 100]), [0.5, 0.5, 99.5, 0.5, 99.5, 99.5, 0.5, 99.5]);
  assert.deepEqual(insetCorners([0, 0, 0.6, 100]), [0.3, 0.5, 0.3, 0.5, 0.3, 99.5, 0.3, 99.5]);
  assert.deepEqual(tokenBox({ x: 300, y: 0, width: 2, height: 2 }, 100), [300, 0, 500, 200]);
});

test("closed segments: crossing, free tip, edge-on and a miss", () => {
  const line = [0.5, 0.5, 300.5, 0.5];
  assert.equal(segmentsCross(...line, 200, -50, 200, 50), true); // through the interior
  assert.equal(segmentsCross(...line, 200, 0.5, 200, 150), true); // a wall tip on the line
  assert.equal(segmentsCross(...line, 150, 0.5, 250, 0.5), true); // run along
  assert.equal(segmentsCross(...line, 350, 0.5, 450, 0.5), false); // collinear, apart
  assert.equal(segmentsCross(...line, 200, 1, 200, 99), false); // beside
  assert.equal(segmentsCross(...line, 301, -50, 301, 50), false); // past the line's end
});

test("GEO-1, GEO-2: walls restricting movement block, open doors and move none do not", () => {
  assert.equal(blocksMovement({ c: [0, 0, 1, 1] }), true);
  assert.equal(blocksMovement({ c: [0, 0, 1, 1], move: "none" }), false);
  assert.equal(blocksMovement({ c: [0, 0, 1, 1], door: "door", door_state: "open" }), false);
  assert.equal(blocksMovement({ c: [0, 0, 1, 1], door: "door", door_state: "closed" }), true);
  assert.equal(blocksMovement({ c: [0, 0, 1, 1], door: "secret", door_state: "locked" }), true);
});

for (const c of CASES.cases) {
  test(`5E-COV-5 by hand, ${c.name}: ${c.blocked} blocked, ${c.cover}`, () => {
    const scene = sceneOf(c);
    const walls = scene.walls.filter(blocksMovement).map((w) => w.c);
    const [a, t] = scene.tokens.slice(0, 2).map((tok) => insetCorners(tokenBox(tok, scene.grid.size)));
    assert.equal(blockedLines(a, t, walls), c.blocked, c.why);
    assert.equal(blockedLines(t, a, walls), c.blocked, c.why);
    assert.equal(degree(blockedLines(a, t, walls)), c.cover, c.why);
  });
}

test(
  "flatbush matrix equals the hand-made degrees both ways",
  { skip: HAVE_FLATBUSH ? false : "bench/peers/node_modules is absent: run npm ci --prefix bench/peers" },
  async () => {
    const { blockingWalls, buildIndex, coverMatrix } = await import("../cover.mjs");
    for (const c of CASES.cases) {
      const scene = sceneOf(c);
      const { tokens, cover } = coverMatrix(scene, buildIndex(blockingWalls(scene)));
      assert.deepEqual(tokens.slice(0, 2), ["A", "T"]);
      assert.equal(cover[0][1], c.cover, `${c.name}: ${c.why}`);
      assert.equal(cover[1][0], c.cover, `${c.name}: ${c.why}`);
      assert.equal(cover[0][0], null);
    }
  },
);
