/**
 * The module on a mocked Foundry against a real gunicorn: chat cards for a handed case,
 * targeting updates one card, attack rolls, the vision button, scene sync (one upload, then
 * one PATCH per burst of changes, resend on 404; test/live.test.mjs: at a table) and the error
 * notifications (unreachable, 401, 413).
 *
 * The service runs with an API key, a scene cache of one scene (so that a second scene
 * evicts the first: a real 404 for the first scene's id) and a 1 MiB body limit.
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SightlineModule, isAttackRoll } from "../scripts/module.js";
import { MODULE_ID } from "../scripts/constants.js";
import { EN, FOUNDRY_DIR, i18n, makeFoundry, renderTemplate } from "../test-support/foundry.mjs";
import { freePort, postJson, settle, startService } from "../test-support/service.mjs";
import { ARCHER, GOBLIN, HANDED, KOBOLD } from "../test-support/handed.mjs";

const KEY = "test-key-19";
const RULES = JSON.parse(readFileSync(join(FOUNDRY_DIR, "data", "rules.json"), "utf8"));
const DEBOUNCE_MS = 40;


let service = null;
before(async () => {
  service = await startService({
    SIGHTLINE_API_KEYS: KEY,
    SIGHTLINE_SCENE_CACHE_SIZE: "1",
    // One worker that really loses an evicted scene (no shared store): the resend path.
    SIGHTLINE_SCENE_FILE: "off",
    SIGHTLINE_MAX_CONTENT_LENGTH: String(1024 * 1024),
  });
});
after(async () => {
  for (const m of started) m.sync?.stop();
  await service?.stop?.();
});

const skip = (t) => {
  if (service?.skip) {
    t.skip(service.skip);
    return true;
  }
  return false;
};

const started = [];
const logged = [];

/** The module on a mocked Foundry around `doc`; `settings` by short key. */
async function setup({ doc = HANDED, settings = {}, systemId = "dnd5e", isGM = true, generation = 13 } = {}) {
  const f = makeFoundry(doc, {
    systemId,
    isGM,
    generation,
    settings: { serviceUrl: service.url, apiKey: KEY, pictures: true, ...settings },
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
    debounceMs: DEBOUNCE_MS,
    log: (...args) => logged.push(args),
  });
  module.init();
  await module.ready();
  started.push(module);
  const control = (id) => {
    f.canvas.tokens.controlled = [f.canvas.tokens.get(id)];
  };
  const target = (...ids) => {
    f.game.user.targets = new Set(ids.map((id) => f.canvas.tokens.get(id)));
  };
  return { ...f, module, control, target };
}

/** The HTML of one target's block in a card. */
function block(html, id) {
  const start = html.indexOf(`data-target="${id}"`);
  assert.ok(start >= 0, `the card has a block for ${id}`);
  const end = html.indexOf("</article>", start);
  return html.slice(start, end);
}

/** Rule ids of a block, and their tooltips. */
function rules(part) {
  return [...part.matchAll(/data-rule="([^"]+)" data-tooltip="([^"]*)"/g)].map((m) => [m[1], m[2]]);
}

const unescape = (s) => s.replace(/&#x27;/g, "'").replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#x3D;/g, "=");

describe("chat card of a handed case", () => {
  const cases = [
    {
      ruleset: "dnd5e",
      goblin: { degree: "half", label: "Half cover", rows: ["<dt>AC</dt><dd>+2</dd>", "<dt>Dex save</dt><dd>+2</dd>"], rule: "5E-COV-5" },
      kobold: { degree: "total", rows: ["Total cover: cannot be targeted"], rule: "5E-COV-3" },
    },
    {
      ruleset: "starfinder",
      goblin: { degree: "cover", label: "Cover", rows: ["<dt>AC</dt><dd>+4</dd>", "<dt>Reflex</dt><dd>+2</dd>"], rule: "SF-COV-2" },
      kobold: { degree: "total", rows: ["Total cover: cannot be targeted", "total concealment, 50% miss chance"], rule: "SF-COV-9" },
    },
    {
      ruleset: "pf2e-variant",
      goblin: { degree: "standard", label: "Standard cover", rows: ["2 level(s) of Advantage"], rule: "PV-COV-2" },
      kobold: { degree: "total", rows: ["Total cover: cannot be targeted", "<dt>Flat check</dt><dd>DC 11</dd>"], rule: "PV-COV-6" },
    },
  ];
  for (const c of cases) {
    test(`${c.ruleset}: degree, bonus and rule ids per target`, async (t) => {
      if (skip(t)) return;
      const m = await setup({ settings: { ruleset: c.ruleset, askWhen: "button" } });
      m.control(ARCHER);
      m.target(GOBLIN, KOBOLD);
      const message = await m.module.askCover();
      assert.deepEqual(m.ui.log.error, []);
      assert.ok(message, "a card was posted");
      assert.equal(m.game.messages.contents.length, 1);
      assert.equal(message.flags[MODULE_ID].attacker, ARCHER);
      const html = message.content;
      const goblin = block(html, GOBLIN);
      assert.match(goblin, new RegExp(`data-cover="${c.goblin.degree}"`));
      assert.match(goblin, new RegExp(`>${c.goblin.label}</span>`));
      for (const row of c.goblin.rows) assert.ok(goblin.includes(row), `${c.ruleset} goblin: ${row}`);
      const goblinRules = rules(goblin);
      assert.ok(goblinRules.some(([id]) => id === c.goblin.rule), `${c.goblin.rule} in ${goblinRules.map(([id]) => id)}`);
      for (const [id, tip] of goblinRules) assert.equal(unescape(tip), RULES[id], `tooltip of ${id}`);
      assert.match(goblin, /<img class="sightline-target__picture" src="data:image\/svg\+xml,%3Csvg/);
      const kobold = block(html, KOBOLD);
      assert.match(kobold, new RegExp(`data-cover="${c.kobold.degree}"`));
      for (const row of c.kobold.rows) assert.ok(kobold.includes(row), `${c.ruleset} kobold: ${row} in ${kobold}`);
      assert.ok(rules(kobold).some(([id]) => id === c.kobold.rule), `${c.kobold.rule} for the kobold`);
      assert.match(html, /data-action="sightline-vision" data-token="archerToken00001"/);
    });
  }
});

describe("when to ask", () => {
  test("on targeting: one card, updated as targets are added", async (t) => {
    if (skip(t)) return;
    const m = await setup({ settings: { askWhen: "targeting" } });
    m.control(ARCHER);
    m.target(GOBLIN);
    m.Hooks.callAll("targetToken", m.game.user, m.canvas.tokens.get(GOBLIN), true);
    await settle(400);
    for (let i = 0; i < 50 && !m.game.messages.contents[0]?.content; i += 1) await settle(50);
    assert.equal(m.game.messages.contents.length, 1);
    assert.ok(m.game.messages.contents[0].content.includes(GOBLIN));
    m.target(GOBLIN, KOBOLD);
    m.Hooks.callAll("targetToken", m.game.user, m.canvas.tokens.get(KOBOLD), true);
    for (let i = 0; i < 80 && m.game.messages.contents[0].updates === 0; i += 1) await settle(50);
    assert.equal(m.game.messages.contents.length, 1, "the card is updated, not posted again");
    assert.equal(m.game.messages.contents[0].updates, 1);
    assert.ok(m.game.messages.contents[0].content.includes(KOBOLD));
    assert.deepEqual(m.game.messages.contents[0].flags[MODULE_ID].targets, [GOBLIN, KOBOLD]);
    // Another user's targeting asks nothing here.
    m.Hooks.callAll("targetToken", { id: "someoneElse" }, m.canvas.tokens.get(GOBLIN), true);
    await settle(300);
    assert.equal(m.game.messages.contents[0].updates, 1);
    assert.deepEqual(m.ui.log.error, []);
  });

  test("on attack roll: a dnd5e or pf2e attack message of this user posts a card", async (t) => {
    if (skip(t)) return;
    assert.ok(isAttackRoll({ flags: { dnd5e: { roll: { type: "attack" } } } }));
    assert.ok(isAttackRoll({ flags: { pf2e: { context: { type: "attack-roll" } } } }));
    assert.ok(!isAttackRoll({ flags: { dnd5e: { roll: { type: "damage" } } } }));
    const m = await setup({ settings: { askWhen: "attack" } });
    m.control(ARCHER);
    m.target(GOBLIN);
    const me = m.game.user;
    assert.equal(await m.module.chatMessage({ author: me, flags: { dnd5e: { roll: { type: "damage" } } } }), null);
    assert.equal(await m.module.chatMessage({ author: { id: "other" }, flags: { dnd5e: { roll: { type: "attack" } } } }), null);
    const card = await m.module.chatMessage({ author: me, flags: { dnd5e: { roll: { type: "attack" } } } });
    assert.ok(card.content.includes('data-cover="half"'));
    await m.module.chatMessage({ author: me, flags: { dnd5e: { roll: { type: "attack" } } } });
    assert.equal(m.game.messages.contents.length, 2, "one card per attack");
  });

  test("by button: the token controls get two buttons, and a GM's the lines toggle (v12 array, v13 record)", async (t) => {
    if (skip(t)) return;
    const m = await setup({ settings: { askWhen: "button" } });
    const v12 = [{ name: "token", tools: [{ name: "select" }] }];
    m.module.addControls(v12);
    assert.deepEqual(v12[0].tools.map((tool) => tool.name), ["select", "sightline-cover", "sightline-vision", "sightline-lines"]);
    assert.equal(v12[0].tools[3].toggle, true);
    assert.equal(v12[0].tools[1].title, EN.SIGHTLINE.Controls.Cover);
    const v13 = { tokens: { tools: { select: { name: "select" } } } };
    m.module.addControls(v13);
    assert.equal(v13.tokens.tools["sightline-vision"].button, true);
    m.control(ARCHER);
    m.target(KOBOLD);
    v13.tokens.tools["sightline-cover"].onChange();
    for (let i = 0; i < 80 && !m.game.messages.contents.length; i += 1) await settle(50);
    assert.ok(m.game.messages.contents[0].content.includes('data-cover="total"'));
    m.target();
    await m.module.askCover();
    assert.deepEqual(m.ui.log.warn, [EN.SIGHTLINE.Error.noTargets]);
  });
});

test("the vision button whispers what the token can see", async (t) => {
  if (skip(t)) return;
  const m = await setup({ settings: { ruleset: "pf2e-variant" } });
  m.control(ARCHER);
  m.target(GOBLIN);
  const card = await m.module.askCover();
  const listeners = [];
  const button = { dataset: { token: ARCHER }, addEventListener: (type, fn) => listeners.push([type, fn]) };
  m.module.bindCard({ querySelectorAll: (sel) => (card.content.includes(sel.replace(/\[data-action=(.*)\]/, 'data-action="$1"')) ? [button] : []) });
  assert.equal(listeners.length, 1);
  listeners[0][1]({ preventDefault() {} });
  for (let i = 0; i < 80 && m.game.messages.contents.length < 2; i += 1) await settle(50);
  const vision = m.game.messages.contents[1];
  assert.deepEqual(vision.whisper, [m.game.user.id]);
  assert.equal(vision.flags[MODULE_ID].card, "vision");
  const goblinRow = vision.content.slice(vision.content.indexOf(`data-target="${GOBLIN}"`));
  assert.match(goblinRow, /class="is-seen"[\s\S]*?<td>sight<\/td>/);
  const koboldRow = vision.content.slice(vision.content.indexOf(`data-target="${KOBOLD}"`));
  assert.match(koboldRow, /class="is-unseen"[\s\S]*?undetected[\s\S]*?DC 11/);
});

describe("scene sync", () => {
  test("uploads once, then one PATCH per burst of changes; unchanged scenes and other scenes send nothing", async (t) => {
    if (skip(t)) return;
    const m = await setup();
    await settle(DEBOUNCE_MS * 4);
    for (let i = 0; i < 40 && m.module.sync.uploads < 1; i += 1) await settle(50);
    assert.equal(m.module.sync.uploads, 1, "the first scene");
    const first = m.module.sync.sceneId;
    assert.match(first, /^sha256:/);
    const wall = m.canvas.scene.walls.get("postWall00000001");
    for (let i = 0; i < 5; i += 1) m.Hooks.callAll("updateWall", wall, { flags: {} }, {}, "user1");
    await settle(DEBOUNCE_MS * 6);
    assert.equal(m.module.sync.uploads + m.module.sync.patches, 1, "the canonical scene did not change");
    for (let i = 0; i < 5; i += 1) {
      wall.c = [350, 50, 350, 160 + i];
      m.Hooks.callAll("updateWall", wall, { c: wall.c }, {}, "user1");
    }
    for (let i = 0; i < 40 && m.module.sync.patches < 1; i += 1) await settle(50);
    await settle(DEBOUNCE_MS * 2);
    assert.equal(m.module.sync.patches, 1, "five quick changes: one PATCH");
    assert.equal(m.module.sync.uploads, 1, "and no upload");
    assert.notEqual(m.module.sync.sceneId, first);
    m.Hooks.callAll("updateWall", { ...wall, parent: { id: "anotherScene", documentName: "Scene" } }, {});
    m.Hooks.callAll("updateToken", { id: "x", parent: { id: "anotherScene", documentName: "Scene" } }, {});
    await settle(DEBOUNCE_MS * 6);
    assert.equal(m.module.sync.uploads + m.module.sync.patches, 2, "changes on another scene");
  });

  test("resends the scene when the service answers 404 for its scene_id", async (t) => {
    if (skip(t)) return;
    const m = await setup({ settings: { askWhen: "button" } });
    m.control(ARCHER);
    m.target(GOBLIN);
    await m.module.sync.flush();
    assert.equal(m.module.sync.uploads, 1);
    const id = m.module.sync.sceneId;
    // The service keeps one scene: uploading another evicts ours.
    const other = structuredClone(HANDED);
    other.walls[0].c = [360, 50, 360, 160];
    const { scene_id: otherId } = await postJson(service.url, "/v1/scenes", { format: "foundry", export: other }, { apiKey: KEY });
    assert.notEqual(otherId, id);
    const lost = await fetch(`${service.url}/v1/cover`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ ruleset: "dnd5e", scene_id: id, attacker: ARCHER, targets: [GOBLIN] }),
    });
    assert.equal(lost.status, 404, "the service really lost the scene");
    const card = await m.module.askCover();
    assert.deepEqual(m.ui.log.error, []);
    assert.ok(card.content.includes('data-cover="half"'));
    assert.equal(m.module.sync.uploads, 2, "sent again once");
    assert.equal(m.module.sync.sceneId, id, "same content, same id");
  });
});

describe("errors as notifications", () => {
  test("service unreachable", async (t) => {
    if (skip(t)) return;
    const port = await freePort();
    const m = await setup({ settings: { serviceUrl: `http://127.0.0.1:${port}`, askWhen: "button" } });
    m.control(ARCHER);
    m.target(GOBLIN);
    assert.equal(await m.module.askCover(), null);
    await settle(DEBOUNCE_MS * 4);
    const expected = i18n.format("SIGHTLINE.Error.unreachable", { url: `http://127.0.0.1:${port}` });
    assert.equal(m.ui.log.error[0], expected);
    assert.equal(m.ui.log.error.length, 1, "the same failure is not repeated");
    assert.equal(m.game.messages.contents.length, 0);
  });

  test("401: the API key is refused", async (t) => {
    if (skip(t)) return;
    const m = await setup({ settings: { apiKey: "wrong-key", askWhen: "button" } });
    m.control(ARCHER);
    m.target(GOBLIN);
    assert.equal(await m.module.askCover(), null);
    assert.equal(m.ui.log.error[0], EN.SIGHTLINE.Error.unauthorized);
  });

  test("413: the scene is too large", async (t) => {
    if (skip(t)) return;
    const big = structuredClone(HANDED);
    big.walls = Array.from({ length: 12000 }, (_, i) => ({
      _id: `bigWall${String(i).padStart(9, "0")}`,
      c: [10 + (i % 90), 10 + Math.floor(i / 90), 11 + (i % 90), 10 + Math.floor(i / 90)],
      move: 20, sight: 20, light: 20, sound: 20, dir: 0, door: 0, ds: 0,
    }));
    const m = await setup({ doc: big, settings: { askWhen: "button" } });
    m.control(ARCHER);
    m.target(GOBLIN);
    assert.equal(await m.module.askCover(), null);
    assert.equal(m.ui.log.error[0], EN.SIGHTLINE.Error.tooLarge);
  });

  test("an option the service refuses for one query is dropped for that query only", async (t) => {
    if (skip(t)) return;
    const m = await setup({ settings: { rulesetOptions: { dnd5e: { cover_method: "dmg-corner" } }, askWhen: "button" } });
    m.control(ARCHER);
    m.target(GOBLIN);
    const card = await m.module.askCover();
    assert.deepEqual(m.ui.log.error, []);
    assert.ok(card.content.includes('data-cover="half"'));
  });
});

describe("settings", () => {
  test("world settings, ruleset by game system", async (t) => {
    if (skip(t)) return;
    for (const [system, ruleset] of [["dnd5e", "dnd5e"], ["sfrpg", "starfinder"], ["pf2e", "pf2e"], ["swade", "dnd5e"]]) {
      const m = await setup({ systemId: system });
      assert.equal(m.module.settings.ruleset, ruleset, system);
      m.module.sync.stop();
    }
    const m = await setup();
    const registered = m.game.settings.registered;
    for (const key of ["serviceUrl", "askWhen", "pictures", "ruleset", "rulesetOptions", "connection", "applyCover", "integration-dnd5e"]) {
      assert.equal(registered.get(`${MODULE_ID}.${key}`).scope, "world", key);
    }
    // world settings reach every client: the API key stays in the browser that holds it
    assert.equal(registered.get(`${MODULE_ID}.apiKey`).scope, "client");
    assert.equal(registered.get(`${MODULE_ID}.marker`).scope, "client");
    assert.deepEqual(Object.keys(registered.get(`${MODULE_ID}.askWhen`).choices), ["attack", "targeting", "button"]);
    assert.equal(registered.get(`${MODULE_ID}.askWhen`).default, "attack", "quiet by default: the card comes with the roll");
    for (const key of ["serviceUrl", "apiKey", "askWhen", "pictures", "connection", "marker", "applyCover", "integration-dnd5e", "integration-midi-qol", "integration-pf2e", "integration-sfrpg"]) {
      const config = registered.get(`${MODULE_ID}.${key}`);
      assert.notEqual(i18n.localize(config.name), config.name, `${key} name in en.json`);
      assert.notEqual(i18n.localize(config.hint), config.hint, `${key} hint in en.json`);
    }
  });

  test("the rules form lists the service's rulesets and options (GET /v1/rulesets)", async (t) => {
    if (skip(t)) return;
    const { rulesContext } = await import("../scripts/settings.js");
    const { readOptions } = await import("../scripts/options.js");
    const listing = await (await fetch(`${service.url}/v1/rulesets`, { headers: { Authorization: `Bearer ${KEY}` } })).json();
    const context = rulesContext(listing, "dnd5e", { dnd5e: { cover_method: "dmg-corner" } });
    assert.deepEqual(context.rulesets.map((r) => r.id).sort(), listing.rulesets.map((r) => r.id).sort());
    assert.equal(context.selected, "dnd5e");
    const method = context.fields.find((f) => f.name === "cover_method");
    const served = listing.rulesets.find((r) => r.id === "dnd5e").options.cover_method;
    assert.deepEqual(method.choices.map((c) => c.value), served.choices);
    assert.equal(method.choices.find((c) => c.selected).value, "dmg-corner");
    const pf2e = listing.rulesets.find((r) => r.id === "pf2e-variant");
    const names = rulesContext(listing, "pf2e-variant", {}).fields.map((f) => f.name);
    for (const [name, spec] of Object.entries(pf2e.options)) {
      assert.equal(names.includes(name), !Array.isArray(spec.default), `${name}: per-target lists are not settings`);
    }
    assert.deepEqual(readOptions(pf2e, { measure_from: "best-corner", ignore_small_terrain: true, corner_inset: "0.5", advantage_levels: { lesser: "1", standard: "3", greater: "3", none: "0" } }), {
      measure_from: "best-corner",
      ignore_small_terrain: true,
      advantage_levels: { greater: 3, lesser: 1, none: 0, standard: 3 },
    });
    for (const ruleset of listing.rulesets) {
      for (const degree of ruleset.cover_degrees) {
        assert.notEqual(i18n.localize(`SIGHTLINE.Cover.${degree}`), `SIGHTLINE.Cover.${degree}`, `${ruleset.id} ${degree}`);
      }
      assert.notEqual(i18n.localize(`SIGHTLINE.Ruleset.${ruleset.id}`), `SIGHTLINE.Ruleset.${ruleset.id}`);
    }
  });
});
