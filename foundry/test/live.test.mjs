/**
 * Live scenes at a table, against a real gunicorn (docs/decisions.md "Live scenes"): the
 * active GM's client uploads the scene once, then sends each burst of changes as one
 * `PATCH /v1/scenes/{scene_id}` and publishes the new id over the module socket; the other
 * clients (players through the GM, a player calling the service directly) send nothing.
 *
 * - a token moved on the canvas: one PATCH of under 2 kB from the GM's client, none from the
 *   others; the id is the one a whole upload of the moved scene gets (the patched token is the
 *   token scene.js builds); the cards after the move agree with `/v1/cover` on the moved scene;
 * - a door opened: the same;
 * - an expired parent (the service keeps one scene): one whole upload, then the right card;
 * - the bytes and time of a move against the whole re-upload it replaces, on a scene of 5,000
 *   walls (printed as test diagnostics; no timed assertion: speed is measured, not asserted).
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { SightlineModule } from "../scripts/module.js";
import { SOCKET_EVENT } from "../scripts/relay.js";
import { FRAME_WAIT_MS, nextFrame } from "../scripts/sync.js";
import { buildScene } from "../scripts/scene.js";
import { itemChanges, mergePatch, sceneChanges, Snapshot } from "../scripts/patch.js";
import { FOUNDRY_DIR, makeFoundry, makeTable, renderTemplate } from "../test-support/foundry.mjs";
import { postJson, settle, startService } from "../test-support/service.mjs";
import { ARCHER, GOBLIN, HANDED, KOBOLD } from "../test-support/handed.mjs";

const KEY = "live-key-28";
const RULES = JSON.parse(readFileSync(join(FOUNDRY_DIR, "data", "rules.json"), "utf8"));
/** The largest change body a token move, a door or a light may take (issue "Done when"). */
const MAX_CHANGE_BYTES = 2048;
const DOOR = "goblinDoor000001";

/** The handed case with a closed door between the archer and the goblin (x = 450, y 0..300). */
const WITH_DOOR = structuredClone(HANDED);
WITH_DOOR.walls.push({ _id: DOOR, c: [450, 0, 450, 300], move: 20, sight: 20, light: 20, sound: 20, dir: 0, door: 1, ds: 0 });

let service = null;
before(async () => {
  // One worker keeping one scene and no shared store: a second scene really expires the first.
  service = await startService({ SIGHTLINE_API_KEYS: KEY, SIGHTLINE_SCENE_CACHE_SIZE: "1", SIGHTLINE_SCENE_FILE: "off" });
});
const clients = [];
after(async () => {
  for (const c of clients) {
    c.module.sync?.stop();
    c.module.relay?.stop();
    c.module.peer?.stop?.();
    c.module.server?.stop();
  }
  await service?.stop?.();
});

const skip = (t) => {
  if (service?.skip) {
    t.skip(service.skip);
    return true;
  }
  return false;
};
async function until(check, what, ms = 10000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await settle(10);
  }
}

/** A fetch that passes requests on and records method, path, body bytes and time of each. */
function recordingFetch({ refuse = false } = {}) {
  const calls = [];
  const spy = async (url, init = {}) => {
    const entry = { method: init.method ?? "GET", path: new URL(String(url)).pathname, bytes: Buffer.byteLength(init.body ?? ""), body: init.body };
    calls.push(entry);
    if (refuse) throw new Error(`no HTTP request expected: ${url}`);
    const start = performance.now();
    const response = await fetch(url, init);
    entry.status = response.status;
    entry.ms = performance.now() - start;
    return response;
  };
  spy.calls = calls;
  spy.since = (n) => calls.slice(n);
  return spy;
}

/** One user's client at `table` (test/table.test.mjs `client`, with a recording fetch). */
async function client({ table, userId, isGM, settings = {}, fetch }) {
  const f = makeFoundry(null, {
    isGM,
    userId,
    table,
    settings: { serviceUrl: service.url, apiKey: isGM || settings.connection === "direct" ? KEY : "", askWhen: "button", pictures: false, ...settings },
  });
  const module = new SightlineModule({
    game: f.game,
    canvas: () => f.canvas,
    Hooks: f.Hooks,
    ChatMessage: f.ChatMessage,
    ui: f.ui,
    foundry: f.foundry,
    CONFIG: {},
    renderTemplate,
    loadRules: async () => RULES,
    debounceMs: 20,
    log: () => {},
    fetch,
  });
  module.init();
  await module.ready();
  const c = { ...f, module, fetch };
  clients.push(c);
  return c;
}

/**
 * A GM, a player asking through the GM and a player calling the service directly, at one
 * table; resolves once the GM's upload is published to both players.
 */
async function table(doc) {
  const t = makeTable(doc, [
    { id: "gm1", name: "GM", isGM: true, active: true },
    { id: "player1", name: "Player", isGM: false, active: true },
    { id: "player2", name: "Direct player", isGM: false, active: true },
  ]);
  for (const d of t.scene.tokens.contents) d.testUserPermission = (user) => Boolean(user?.isGM || d.id === ARCHER);
  const gm = await client({ table: t, userId: "gm1", isGM: true, fetch: recordingFetch() });
  const relayed = await client({ table: t, userId: "player1", isGM: false, fetch: recordingFetch({ refuse: true }), settings: { serviceUrl: "http://127.0.0.1:9" } });
  const direct = await client({ table: t, userId: "player2", isGM: false, fetch: recordingFetch(), settings: { connection: "direct" } });
  const all = [gm, relayed, direct];
  await until(() => gm.module.sync.uploads === 1, "the GM's upload");
  gm.Hooks.callAll("userConnected", t.users.get("player2"), true); // Foundry: a user joined
  await until(() => [relayed, direct].every((p) => p.module.sync.sceneId === gm.module.sync.sceneId), "the id published");
  /** Change a document as Foundry does: the data, then the hook on every client. */
  const update = (collection, hook, id, changes) => {
    const docOf = t.scene[collection].get(id);
    Object.assign(docOf, changes);
    for (const c of all) c.Hooks.callAll(hook, docOf, changes, {}, "gm1");
  };
  return { t, gm, relayed, direct, all, update };
}

const sceneRequests = (calls) => calls.filter((c) => c.path.startsWith("/v1/scenes"));

/** A card's cover answers for `attacker` against `targets`, asked by `c`. */
async function card(c, attacker, targets) {
  c.canvas.tokens.controlled = [c.canvas.tokens.get(attacker)];
  c.game.user.targets = new Set(targets.map((id) => c.canvas.tokens.get(id)));
  const message = await c.module.askCover();
  assert.deepEqual(c.ui.log.error, [], `${c.game.user.id}: no error`);
  assert.ok(message, `${c.game.user.id}: a card`);
  return c.module.answers.get(c.module.cacheKey(attacker, "ranged")).cover.results;
}

/** What `/v1/cover` answers on the scene the GM's canvas shows now, sent whole (inline). */
async function inlineCover(gm, attacker, targets) {
  const scene = buildScene(gm.module.live());
  const answer = await postJson(service.url, "/v1/cover", { ruleset: "dnd5e", scene, attacker, targets, attack: { kind: "ranged" }, options: {} }, { apiKey: KEY });
  return answer.results;
}

/** The id a whole upload of the GM's canvas gets. */
async function wholeId(gm) {
  return (await postJson(service.url, "/v1/scenes", { scene: buildScene(gm.module.live()) }, { apiKey: KEY })).scene_id;
}

describe("one client sends the changes", () => {
  test("a token moved: one PATCH under 2 kB from the GM's client, none from the others; the cards agree with /v1/cover", async (t) => {
    if (skip(t)) return;
    const { t: tab, gm, relayed, direct, update } = await table(HANDED);
    const before = { gm: gm.fetch.calls.length, direct: direct.fetch.calls.length, socket: tab.hub.sent.length };
    assert.equal(sceneRequests(direct.fetch.calls).length, 0, "the direct player uploaded nothing: it took the published id");
    const parent = gm.module.sync.sceneId;
    // the goblin steps out from behind the post (half cover, 5E-COV-5) into the open
    update("tokens", "updateToken", GOBLIN, { x: 500, y: 400 });
    await until(() => gm.module.sync.patches === 1 && !gm.module.sync.dirty, "the GM's PATCH");
    await until(() => relayed.module.sync.sceneId === gm.module.sync.sceneId && direct.module.sync.sceneId === gm.module.sync.sceneId, "the new id published");
    const sent = sceneRequests(gm.fetch.since(before.gm));
    assert.deepEqual(sent.map((c) => `${c.method} ${c.status}`), ["PATCH 200"], "one PATCH");
    assert.equal(sent[0].path, `/v1/scenes/${encodeURIComponent(parent)}`, "on the id it replaces");
    assert.ok(sent[0].bytes < MAX_CHANGE_BYTES, `${sent[0].bytes} bytes`);
    assert.deepEqual(JSON.parse(sent[0].body), { tokens: { [GOBLIN]: { y: 400 } } }, "what changed, nothing else");
    assert.equal(sceneRequests(direct.fetch.since(before.direct)).length, 0, "nothing from the direct player");
    assert.deepEqual(relayed.fetch.calls, [], "nothing over HTTP from the relayed player");
    const fromPlayers = tab.hub.sent.slice(before.socket).filter((m) => m.from !== "gm1");
    assert.deepEqual(fromPlayers, [], "and nothing over the socket");
    assert.equal(await wholeId(gm), gm.module.sync.sceneId, "the patched scene is the scene a whole build makes");
    // the cards after the move, by the published id
    const expected = await inlineCover(gm, ARCHER, [GOBLIN, KOBOLD]);
    assert.equal(expected.find((r) => r.target === GOBLIN).cover, "none", "the inline answer could fail: in the open");
    for (const c of [gm, relayed, direct]) assert.deepEqual(await card(c, ARCHER, [GOBLIN, KOBOLD]), expected, c.game.user.id);
    assert.equal(sceneRequests(direct.fetch.since(before.direct)).length, 0, "the direct player's card: by id");
    assert.equal(gm.module.sync.uploads, 1, "one upload in all");
  });

  test("a door opened: one PATCH under 2 kB; the cards agree with /v1/cover", async (t) => {
    if (skip(t)) return;
    const { gm, relayed, direct, update } = await table(WITH_DOOR);
    assert.equal((await card(relayed, ARCHER, [GOBLIN]))[0].cover, "total", "behind the closed door (5E-COV-3)");
    const before = { gm: gm.fetch.calls.length, direct: direct.fetch.calls.length };
    update("walls", "updateWall", DOOR, { ds: 1 });
    await until(() => gm.module.sync.patches === 1 && !gm.module.sync.dirty, "the GM's PATCH");
    await until(() => relayed.module.sync.sceneId === gm.module.sync.sceneId, "the new id published");
    const sent = sceneRequests(gm.fetch.since(before.gm));
    assert.deepEqual(sent.map((c) => c.method), ["PATCH"]);
    assert.deepEqual(JSON.parse(sent[0].body), { walls: { [DOOR]: { door_state: "open" } } });
    assert.ok(sent[0].bytes < MAX_CHANGE_BYTES);
    assert.equal(sceneRequests(direct.fetch.since(before.direct)).length, 0);
    assert.equal(await wholeId(gm), gm.module.sync.sceneId);
    const expected = await inlineCover(gm, ARCHER, [GOBLIN]);
    assert.equal(expected[0].cover, "half", "the door open: the post's half cover again (5E-COV-5)");
    for (const c of [gm, relayed, direct]) assert.deepEqual(await card(c, ARCHER, [GOBLIN]), expected, c.game.user.id);
  });

  test("lights switched off, hidden tokens, added and removed documents: one PATCH per burst, the id of a whole build", async (t) => {
    if (skip(t)) return;
    const doc = structuredClone(HANDED);
    doc.lights = [{ _id: "torchLight000001", x: 500, y: 150, config: { bright: 10, dim: 20 } }];
    const { t: tab, gm, update } = await table(doc);
    const before = gm.fetch.calls.length;
    update("lights", "updateAmbientLight", "torchLight000001", { hidden: true });
    update("tokens", "updateToken", KOBOLD, { hidden: true });
    const orc = { _id: "orcToken00000001", id: "orcToken00000001", name: "Orc", x: 200, y: 400, width: 1, height: 1, parent: tab.scene, documentName: "Token" };
    tab.scene.tokens.set(orc.id, orc);
    gm.Hooks.callAll("createToken", orc, {}, "gm1");
    const post = tab.scene.walls.get("postWall00000001");
    tab.scene.walls.delete(post.id);
    gm.Hooks.callAll("deleteWall", post, {}, "gm1");
    await until(() => gm.module.sync.patches === 1 && !gm.module.sync.dirty, "the GM's PATCH");
    const sent = sceneRequests(gm.fetch.since(before));
    assert.deepEqual(sent.map((c) => c.method), ["PATCH"], "four changes in one frame: one request");
    const body = JSON.parse(sent[0].body);
    assert.deepEqual(body.lights, { torchLight000001: { on: false } });
    assert.deepEqual(body.tokens[KOBOLD], { hidden: true });
    assert.equal(body.tokens[orc.id].id, orc.id, "a new token goes whole");
    assert.deepEqual(body.walls, { postWall00000001: null });
    assert.equal(await wholeId(gm), gm.module.sync.sceneId);
  });

  test("an expired parent: the PATCH's 404 makes one whole upload, and the card is right", async (t) => {
    if (skip(t)) return;
    const { gm, relayed, update } = await table(HANDED);
    // the service keeps one scene: another one expires ours
    const other = structuredClone(HANDED);
    other.walls[0].c = [360, 50, 360, 160];
    await postJson(service.url, "/v1/scenes", { format: "foundry", export: other }, { apiKey: KEY });
    const before = gm.fetch.calls.length;
    update("tokens", "updateToken", GOBLIN, { x: 500, y: 400 });
    await until(() => gm.module.sync.uploads === 2 && !gm.module.sync.dirty, "the whole upload");
    await settle(100);
    const sent = sceneRequests(gm.fetch.since(before));
    assert.deepEqual(sent.map((c) => `${c.method} ${c.status}`), ["PATCH 404", "POST 200"], "one PATCH refused, one upload");
    assert.equal(gm.module.sync.patches, 0);
    await until(() => relayed.module.sync.sceneId === gm.module.sync.sceneId, "the new id published");
    const results = await card(relayed, ARCHER, [GOBLIN]);
    assert.deepEqual(results, await inlineCover(gm, ARCHER, [GOBLIN]));
    assert.equal(results[0].cover, "none");
  });

  test("the players' queries never upload: a 404 by id asks the GM, who sends the scene once", async (t) => {
    if (skip(t)) return;
    const { t: tab, gm, relayed } = await table(HANDED);
    const other = structuredClone(HANDED);
    other.walls[0].c = [360, 50, 360, 160];
    await postJson(service.url, "/v1/scenes", { format: "foundry", export: other }, { apiKey: KEY });
    const before = tab.hub.sent.length;
    assert.equal((await card(relayed, ARCHER, [GOBLIN]))[0].cover, "half");
    assert.equal(gm.module.sync.uploads, 2, "the GM sent the scene again, once");
    const asked = tab.hub.sent.slice(before).filter((m) => m.from === "player1");
    assert.ok(asked.some((m) => m.data.type === "action" && m.data.action === "scene"), "the player asked the GM for the id");
    assert.ok(!asked.some((m) => m.data.path === "/v1/scenes"), "and uploaded nothing");
    assert.equal(tab.hub.sent.filter((m) => m.event !== SOCKET_EVENT).length, 0);
  });
});

describe("patch bodies (patch.js)", () => {
  test("a merge patch: changed fields, nested objects as patches, missing fields as null", () => {
    assert.equal(mergePatch({ x: 1, senses: { darkvision: 60 } }, { x: 1, senses: { darkvision: 60 } }), null);
    assert.deepEqual(mergePatch({ x: 1, threshold: { sight: 5, light: null } }, { x: 2, threshold: { sight: null, light: null } }), { x: 2, threshold: { sight: null } });
    assert.deepEqual(mergePatch({ shape: { type: "rect", x: 0, y: 0, width: 5, height: 5 } }, { shape: { type: "polygon", points: [[0, 0], [1, 0], [0, 1]] } }), {
      shape: { type: "polygon", x: null, y: null, width: null, height: null, points: [[0, 0], [1, 0], [0, 1]] },
    });
    assert.deepEqual(mergePatch({ height: { bottom: 0, top: 10 } }, { height: null }), { height: null });
    assert.deepEqual(mergePatch({ c: [0, 0, 1, 1] }, { c: [0, 0, 1, 2] }), { c: [0, 0, 1, 2] });
  });

  test("every item a one-document build makes is the item of the whole build", () => {
    const table = makeTable(WITH_DOOR, [{ id: "gm1", isGM: true, active: true }]);
    const live = { scene: table.scene, grid: { diagonals: 0 } };
    const snapshot = new Snapshot(buildScene(live));
    const all = new Map(["walls", "tokens", "lights", "regions"].map((n) => [n, new Set([...table.scene[n].keys()])]));
    assert.ok(itemChanges(snapshot, table.scene, all).empty);
    assert.ok(sceneChanges(snapshot, buildScene(live)).empty);
    table.scene.environment = { ...table.scene.environment, globalLight: { enabled: false } };
    assert.deepEqual(sceneChanges(snapshot, buildScene(live)).body, { environment: { light: "dark" } });
    table.scene.grid = { ...table.scene.grid, distance: 10 };
    assert.equal(sceneChanges(snapshot, buildScene(live)), null, "a new grid: a new scene");
  });
});

test("a burst ends at the next animation frame, or FRAME_WAIT_MS later in a hidden tab (no frames)", async () => {
  const saved = globalThis.requestAnimationFrame;
  try {
    const frames = [];
    globalThis.requestAnimationFrame = (fn) => frames.push(fn);
    let runs = 0;
    nextFrame(() => (runs += 1));
    frames.shift()();
    await settle(FRAME_WAIT_MS + 30);
    assert.equal(runs, 1, "at the frame, once");
    nextFrame(() => (runs += 1));
    await settle(FRAME_WAIT_MS / 2);
    assert.equal(runs, 1, "not before the frame");
    await settle(FRAME_WAIT_MS);
    assert.equal(runs, 2, "no frame came: after FRAME_WAIT_MS");
    frames.shift()();
    assert.equal(runs, 2, "the late frame runs nothing again");
  } finally {
    globalThis.requestAnimationFrame = saved;
  }
});

// --------------------------------------------------------------------------- measured

/** A synthetic scene of `walls` short walls and `tokens` tokens on a 7,000 px square map. */
function bigScene(walls, tokens) {
  const doc = { _id: "bigScene00000001", name: "Big", width: 7000, height: 7000, padding: 0, grid: { type: 1, size: 100, distance: 5, units: "ft" } };
  doc.environment = { darknessLevel: 0, globalLight: { enabled: true, bright: true, darkness: { min: 0, max: 1 } } };
  doc.walls = Array.from({ length: walls }, (_, i) => {
    const x = 30 + (i % 70) * 100;
    const y = 30 + Math.floor(i / 70) * 95;
    return { _id: `w${String(i).padStart(15, "0")}`, c: [x, y, x + 40, y + (i % 3) * 10], move: 20, sight: 20, light: 20, sound: 20, dir: 0, door: i % 50 === 0 ? 1 : 0, ds: 0 };
  });
  doc.tokens = Array.from({ length: tokens }, (_, i) => ({ _id: `t${String(i).padStart(15, "0")}`, name: `Token ${i}`, x: 100 + (i % 10) * 600, y: 100 + Math.floor(i / 10) * 1200, width: 1, height: 1 }));
  return doc;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test("measured: a token move against the whole re-upload it replaces (5,000 walls, 50 tokens)", async (t) => {
  if (skip(t)) return;
  const doc = bigScene(5000, 50);
  const tab = makeTable(doc, [{ id: "gm1", isGM: true, active: true }]);
  const gm = await client({ table: tab, userId: "gm1", isGM: true, fetch: recordingFetch() });
  await until(() => gm.module.sync.uploads === 1, "the first upload", 60000);
  const mover = "t000000000000007";
  const target = ["t000000000000008"];
  const cover = async (sceneId) => {
    const start = performance.now();
    await postJson(service.url, "/v1/cover", { ruleset: "dnd5e", scene_id: sceneId, attacker: mover, targets: target }, { apiKey: KEY });
    return performance.now() - start;
  };
  const runs = { whole: [], patch: [] };
  const d = tab.scene.tokens.get(mover);
  // the GM's module: each move as a change (the service keeps one scene: these first)
  for (let i = 0; i < 5; i += 1) {
    const calls = gm.fetch.calls.length;
    d.x += 100;
    const start = performance.now();
    gm.Hooks.callAll("updateToken", d, { x: d.x }, {}, "gm1");
    const id = await gm.module.sync.flush();
    const total = performance.now() - start;
    const sent = sceneRequests(gm.fetch.since(calls));
    assert.deepEqual(sent.map((c) => `${c.method} ${c.status}`), ["PATCH 200"]);
    assert.ok(sent[0].bytes < MAX_CHANGE_BYTES);
    runs.patch.push({ bytes: sent[0].bytes, build: total - sent[0].ms, request: sent[0].ms, cover: await cover(id) });
  }
  assert.equal(gm.module.sync.uploads, 1);
  // the old way: every change rebuilt and uploaded whole
  for (let i = 0; i < 5; i += 1) {
    d.x += 100;
    let start = performance.now();
    const body = JSON.stringify({ scene: buildScene(gm.module.live()) });
    const build = performance.now() - start;
    start = performance.now();
    const answer = await (await fetch(`${service.url}/v1/scenes`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${KEY}` }, body })).json();
    const request = performance.now() - start;
    runs.whole.push({ bytes: Buffer.byteLength(body), build, request, cover: await cover(answer.scene_id) });
  }
  const summary = Object.fromEntries(Object.entries(runs).map(([k, rs]) => [k, Object.fromEntries(["bytes", "build", "request", "cover"].map((f) => [f, Math.round(median(rs.map((r) => r[f])) * 10) / 10]))]));
  t.diagnostic(`per move, median of 5 (bytes; client build ms; request ms; next /v1/cover ms): ${JSON.stringify(summary)}`);
  assert.ok(summary.patch.bytes * 100 < summary.whole.bytes, "a move costs what changed");
});
