/**
 * The JavaScript peer (issue 20): a dnd5e cover matrix as a Foundry module would trace it in
 * the browser, with a flatbush index of the walls built once per scene.
 *
 *   node bench/peers/cover.mjs [--repeat N] [SCENE.json | -]
 *
 * reads a canonical scene (the JSON the bench sends; `{"scene": {...}}` works too) from the
 * file or stdin and prints one JSON object:
 *
 * - `tokens`, `cover`: the matrix (row attacker, column target, `null` on the diagonal);
 * - `pairs`: the ordered pairs, N(N-1);
 * - `timing`: milliseconds, measured inside node: `parse_ms` (JSON.parse), `index_ms` and
 *   `trace_ms` (the medians of the N runs: building the flatbush index; tracing every pair),
 *   `runs` (each run's `[index_ms, trace_ms]`), `ready_ms` (from the process's start to the
 *   script's first line, `performance.now()`), `done_ms` (process start to the matrix done).
 *
 * For each ordered pair, one flatbush search with the box of its 4 corner lines; then, per
 * line, each candidate wall's box against the line's box and the exact closed-segment test
 * (`crossing.mjs`), stopping at the first wall that blocks the line.
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { argv, stdout } from "node:process";
import { fileURLToPath } from "node:url";
import Flatbush from "flatbush";
import { blocksMovement, degree, insetCorners, segmentsCross, tokenBox } from "./crossing.mjs";

/** The walls that block cover lines (`blocksMovement`) as `Float64Array [x0, y0, x1, y1, ...]`. */
export function blockingWalls(scene) {
  const kept = scene.walls.filter(blocksMovement);
  const out = new Float64Array(kept.length * 4);
  kept.forEach((w, i) => out.set(w.c, i * 4));
  return out;
}

/** A flatbush index of the walls' boxes, with the boxes kept for the line prefilter. */
export function buildIndex(walls) {
  const n = walls.length / 4;
  const boxes = new Float64Array(n * 4);
  const index = new Flatbush(Math.max(n, 1));
  for (let i = 0; i < n; i++) {
    const [x0, y0, x1, y1] = walls.subarray(i * 4, i * 4 + 4);
    const b = [Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1)];
    boxes.set(b, i * 4);
    index.add(b[0], b[1], b[2], b[3]);
  }
  if (n === 0) index.add(Infinity, Infinity, Infinity, Infinity); // flatbush needs one item
  index.finish();
  return { index, walls, boxes, n };
}

/** `{tokens, cover}` of every ordered pair of the scene's tokens (5E-COV-5 paired corners). */
export function coverMatrix(scene, built) {
  const size = scene.grid.size;
  const tokens = scene.tokens;
  const corners = tokens.map((t) => insetCorners(tokenBox(t, size)));
  const { index, walls, boxes, n } = built;
  const cover = tokens.map(() => new Array(tokens.length).fill(null));
  for (let a = 0; a < tokens.length; a++) {
    const ca = corners[a];
    for (let t = 0; t < tokens.length; t++) {
      if (t === a) continue;
      const ct = corners[t];
      // The inset boxes' corners A and C bound both spaces, hence the 4 lines.
      const minX = Math.min(ca[0], ct[0]);
      const minY = Math.min(ca[1], ct[1]);
      const maxX = Math.max(ca[4], ct[4]);
      const maxY = Math.max(ca[5], ct[5]);
      const found = n ? index.search(minX, minY, maxX, maxY) : [];
      let blocked = 0;
      for (let k = 0; k < 8; k += 2) {
        const px = ca[k];
        const py = ca[k + 1];
        const qx = ct[k];
        const qy = ct[k + 1];
        const lx0 = Math.min(px, qx);
        const lx1 = Math.max(px, qx);
        const ly0 = Math.min(py, qy);
        const ly1 = Math.max(py, qy);
        for (let j = 0; j < found.length; j++) {
          const w = found[j] * 4;
          if (boxes[w] > lx1 || boxes[w + 2] < lx0 || boxes[w + 1] > ly1 || boxes[w + 3] < ly0) continue;
          if (segmentsCross(px, py, qx, qy, walls[w], walls[w + 1], walls[w + 2], walls[w + 3])) {
            blocked += 1;
            break;
          }
        }
      }
      cover[a][t] = degree(blocked);
    }
  }
  return { tokens: tokens.map((t) => t.id), cover };
}

function median(xs) {
  const s = [...xs].sort((p, q) => p - q);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function main(args) {
  const ready = performance.now();
  let repeat = 1;
  let path = "-";
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--repeat") repeat = Math.max(1, Number.parseInt(args[++i], 10));
    else path = args[i];
  }
  const text = readFileSync(path === "-" ? 0 : path, "utf8");
  const t0 = performance.now();
  const body = JSON.parse(text);
  const scene = body.scene ?? body;
  const parseMs = performance.now() - t0;
  const runs = [];
  let answer = null;
  for (let r = 0; r < repeat; r++) {
    const t1 = performance.now();
    const built = buildIndex(blockingWalls(scene));
    const t2 = performance.now();
    answer = coverMatrix(scene, built);
    runs.push([t2 - t1, performance.now() - t2]);
  }
  const n = scene.tokens.length;
  const out = {
    ...answer,
    pairs: n * (n - 1),
    timing: {
      parse_ms: parseMs,
      index_ms: median(runs.map((r) => r[0])),
      trace_ms: median(runs.map((r) => r[1])),
      runs,
      ready_ms: ready,
      done_ms: performance.now(),
    },
  };
  stdout.write(`${JSON.stringify(out)}\n`);
}

if (argv[1] && fileURLToPath(import.meta.url) === resolve(argv[1])) main(argv.slice(2));
