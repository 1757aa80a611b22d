/**
 * The module at a real table, against a real gunicorn: several users' clients over one module
 * socket (test-support/foundry.mjs makeTable), the game systems' roll paths as the systems
 * run them (test-support/systems.mjs), and main.js loaded as Foundry loads it.
 *
 * - nothing secret in what players see: a player's card on a scene with a hidden blocker and
 *   a secret door names neither (text, notes or picture); the GMs get them whispered;
 * - the card follows the roll mode;
 * - cover applied to the roll: dnd5e (+2 AC and the status), midi-qol (once), pf2e (the
 *   +2 circumstance bonus of Effect: Cover); attackers that ignore cover;
 * - players ask through the GM: no HTTP request from the player's client; no GM, a notice;
 * - quiet targeting: a marker for the targeting user, no card;
 * - after a reload (main.js at init) the controls and the card buttons work.
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Window } from "happy-dom";
import { SightlineModule, TARGETING_DEBOUNCE_MS } from "../scripts/module.js";
import { MODULE_ID } from "../scripts/constants.js";
import { IGNORES_COVER, ignoredCover, withoutIgnored } from "../scripts/ignores.js";
import { SOCKET_EVENT } from "../scripts/relay.js";
import { MARKER_NAME } from "../scripts/marker.js";
import { EN, FOUNDRY_DIR, makeFoundry, makeTable, renderTemplate } from "../test-support/foundry.mjs";
import { settle, startService, until } from "../test-support/service.mjs";
import { ARCHER, GOBLIN, HANDED, KOBOLD, LURKER, SECRET_DOOR, SECRETS } from "../test-support/handed.mjs";
import { dnd5eAttack, pf2eActor, pf2eCoverEffect, withDnd5eActors } from "../test-support/systems.mjs";

const KEY = "table-key-29";
const RULES = JSON.parse(readFileSync(join(FOUNDRY_DIR, "data", "rules.json"), "utf8"));

let service = null;
before(async () => {
  service = await startService({ SIGHTLINE_API_KEYS: KEY, SIGHTLINE_SCENE_FILE: "off" });
});
const modules = [];
after(async () => {
  for (const m of modules) {
    m.sync?.stop();
    m.relay?.stop();
    m.server?.stop();
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

/** A fetch that records every call and refuses it (a player's client must make none). */
function refusingFetch() {
  const calls = [];
  const fetchSpy = async (url) => {
    calls.push(url);
    throw new Error(`no HTTP request expected: ${url}`);
  };
  fetchSpy.calls = calls;
  return fetchSpy;
}

/** One user's client of the module on a mocked Foundry (a table's, or alone). */
async function client({ doc = HANDED, table = null, userId = "gm1", isGM = true, systemId = "dnd5e", settings = {}, fetch = undefined, modulesOn = {}, extra = {} } = {}) {
  const f = makeFoundry(doc, {
    systemId,
    isGM,
    userId,
    table,
    modules: modulesOn,
    settings: { serviceUrl: service.url, apiKey: isGM ? KEY : "", askWhen: "button", ...settings },
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
    debounceMs: 30,
    log: () => {},
    ...(fetch ? { fetch } : {}),
    ...extra,
  });
  module.init();
  await module.ready();
  modules.push(module);
  const control = (id) => {
    f.canvas.tokens.controlled = [f.canvas.tokens.get(id)];
  };
  const target = (...ids) => {
    f.game.user.targets = new Set(ids.map((id) => f.canvas.tokens.get(id)));
    for (const id of ids) f.Hooks.callAll("targetToken", f.game.user, f.canvas.tokens.get(id), true);
  };
  return { ...f, module, control, target };
}

/** The GM and a player who owns the archer, at one table. */
async function gmAndPlayer({ doc = SECRETS, playerSettings = {}, gmActive = true } = {}) {
  const table = makeTable(doc, [
    { id: "gm1", name: "GM", isGM: true, active: gmActive },
    { id: "player1", name: "Player", isGM: false, active: true },
  ]);
  for (const d of table.scene.tokens.contents) d.testUserPermission = (user) => Boolean(user?.isGM || (d.id === ARCHER && user?.id === "player1"));
  const gm = gmActive ? await client({ table, userId: "gm1", isGM: true }) : null;
  const fetchSpy = refusingFetch();
  const player = await client({ table, userId: "player1", isGM: false, fetch: fetchSpy, settings: { serviceUrl: "http://127.0.0.1:9", ...playerSettings } });
  return { table, gm, player, fetchSpy };
}

const pictureOf = (html) => decodeURIComponent((html.match(/src="data:image\/svg\+xml,([^"]+)"/) ?? [])[1] ?? "");

// --------------------------------------------------------------------------- secrets

describe("nothing secret in what players see", () => {
  test("a player's card on a scene with a hidden blocker and a secret door names neither; the GMs get them", async (t) => {
    if (skip(t)) return;
    const { table, gm, player, fetchSpy } = await gmAndPlayer();
    player.control(ARCHER);
    player.target(GOBLIN);
    const card = await player.module.askCover();
    assert.deepEqual(player.ui.log.error, []);
    assert.ok(card, "the player's card was posted");
    assert.equal(card.whisper, undefined, "public roll mode: a public card");
    const html = card.content;
    for (const secret of ["Invisible Stalker", LURKER, SECRET_DOOR, EN.SIGHTLINE.Secret["secret-door"]]) {
      assert.ok(!html.includes(secret), `the public card names ${secret}: ${html.slice(Math.max(0, html.indexOf(secret) - 300), html.indexOf(secret) + 100)}`);
    }
    const svg = pictureOf(html);
    assert.match(svg, /^<svg/, "the card has the attacker's picture");
    assert.ok(!svg.includes("Invisible Stalker") && !svg.includes(LURKER) && !svg.includes("secret"), "the picture holds no secret");
    assert.ok(Number(svg.match(/ width="(\d+)"/)[1]) <= 320, "cropped at a chat card's size");
    // the GMs' whisper: every detail
    await until(() => table.messages.contents.length === 2, "the GM's whisper");
    const details = table.messages.contents[1];
    assert.deepEqual(details.whisper, ["gm1"]);
    assert.equal(details.flags[MODULE_ID].card, "gm-details");
    assert.match(details.content, /data-secret="token" data-id="lurkerToken00001">hidden creature: Invisible Stalker/);
    assert.match(details.content, /data-secret="secret-door" data-id="secretDoor000001"/);
    // and the player's client asked everything through the GM's
    assert.deepEqual(fetchSpy.calls, []);
    assert.ok(gm.module.server.answered >= 3, "scene, cover, vision and the picture through the GM");
  });

  test("the GM's picture of the same attack holds the secrets (the test above could fail)", async (t) => {
    if (skip(t)) return;
    const gm = await client({ doc: SECRETS });
    gm.game.settings.set("core", "rollMode", "blindroll");
    gm.control(ARCHER);
    gm.target(GOBLIN);
    const card = await gm.module.askCover();
    assert.equal(card.blind, true);
    assert.deepEqual(card.whisper, ["gm1"], "a blind roll: the GMs only");
    assert.match(card.content, /Invisible Stalker/, "a card only GMs see lists the secrets");
    assert.match(pictureOf(card.content), /Invisible Stalker/);
  });

  test("the card follows the roll mode: gm roll whispers the GMs and the roller, self roll the roller", async (t) => {
    if (skip(t)) return;
    const { player } = await gmAndPlayer({ doc: HANDED });
    player.control(ARCHER);
    player.target(GOBLIN);
    await player.game.settings.set("core", "rollMode", "gmroll");
    assert.deepEqual((await player.module.askCover()).whisper, ["gm1", "player1"]);
    await player.game.settings.set("core", "rollMode", "selfroll");
    assert.deepEqual((await player.module.askCover()).whisper, ["player1"]);
    // on an attack roll, the roll message's own audience
    const rolled = { author: player.game.user, whisper: ["gm1"], blind: true, speaker: { token: ARCHER }, flags: { dnd5e: { roll: { type: "attack" } } } };
    await player.game.settings.set(MODULE_ID, "askWhen", "attack");
    const card = await player.module.chatMessage(rolled);
    assert.deepEqual(card.whisper, ["gm1"]);
    assert.equal(card.blind, true);
  });
});

// --------------------------------------------------------------------------- through the GM

describe("players ask through the GM", () => {
  test("without a GM connected the player is told so, and nothing is asked over HTTP", async (t) => {
    if (skip(t)) return;
    const { player, fetchSpy } = await gmAndPlayer({ gmActive: false });
    player.control(ARCHER);
    player.target(GOBLIN);
    assert.equal(await player.module.askCover(), null);
    assert.ok(player.ui.log.error.includes(EN.SIGHTLINE.Error.noGm), player.ui.log.error.join(" | "));
    assert.deepEqual(fetchSpy.calls, []);
  });

  test("the GM's client draws a player's picture only from a token the player owns", async (t) => {
    if (skip(t)) return;
    const { table, player } = await gmAndPlayer({ doc: HANDED });
    const ask = (body) => player.module.client.render(body);
    const sceneId = await player.module.sync.flush();
    const query = { type: "cover", ruleset: "dnd5e", attacker: GOBLIN, target: ARCHER };
    await assert.rejects(ask({ scene_id: sceneId, query, viewer: "gm" }), (err) => err.kind === "invalid");
    const own = await ask({ scene_id: sceneId, query: { ...query, attacker: ARCHER, target: GOBLIN }, viewer: "gm" });
    assert.match(own, /^<svg/, "the GM's view is never drawn for a player: the viewer becomes the player's token");
    const sent = table.hub.sent.filter((m) => m.event === SOCKET_EVENT && m.data.type === "request" && m.data.path === "/v1/render");
    assert.equal(sent.length, 2);
  });

  test("the direct setting keeps HTTP calls from the player's client", async (t) => {
    if (skip(t)) return;
    const table = makeTable(HANDED, [{ id: "gm1", isGM: true, active: true }, { id: "player1", isGM: false, active: true }]);
    const player = await client({ table, userId: "player1", isGM: false, settings: { connection: "direct", apiKey: KEY } });
    player.control(ARCHER);
    player.target(GOBLIN);
    assert.ok(await player.module.askCover());
    assert.equal(table.hub.sent.length, 0, "nothing over the socket");
  });
});

// --------------------------------------------------------------------------- quiet targeting

test("targeting marks the target for the targeting user and posts no card", async (t) => {
  if (skip(t)) return;
  const m = await client({ settings: { askWhen: "attack" }, extra: { PIXI: fakePixi() } });
  const goblin = m.canvas.tokens.get(GOBLIN);
  m.control(ARCHER);
  m.target(GOBLIN);
  await settle(TARGETING_DEBOUNCE_MS + 20);
  await m.module.settled();
  assert.equal(m.game.messages.contents.length, 0, "quiet: no card on targeting");
  const marker = goblin.children.find((c) => c.name === MARKER_NAME);
  assert.equal(marker?.text, EN.SIGHTLINE.Cover.half);
  m.Hooks.callAll("targetToken", m.game.user, goblin, false);
  assert.equal(goblin.children.length, 0, "untargeted: the marker goes");
});

function fakePixi() {
  class Text {
    constructor(text) {
      this.text = text;
      this.anchor = { set() {} };
      this.position = { set() {} };
    }

    destroy() {}
  }
  return { Text };
}

// --------------------------------------------------------------------------- applied to the roll

describe("cover applied to the roll", () => {
  test("dnd5e 5.x: an attack against half cover resolves against +2 AC, and the target gets coverHalf", async (t) => {
    if (skip(t)) return;
    const m = await client({ settings: { askWhen: "attack" } });
    withDnd5eActors(m, { [GOBLIN]: { ac: 13 } });
    m.control(ARCHER);
    m.target(GOBLIN);
    await settle(TARGETING_DEBOUNCE_MS + 20);
    await m.module.settled();
    const goblin = m.canvas.tokens.get(GOBLIN).actor;
    const attack = dnd5eAttack({ f: m, actor: m.canvas.tokens.get(ARCHER).actor, d20: 10, bonus: 4 });
    const first = await attack.rollAttack();
    assert.equal(first.target, 15, "AC 13 + 2 for half cover (5E-COV-5)");
    assert.equal(first.hit, false, "14 misses AC 15 (it would hit AC 13)");
    assert.equal(first.message.data.flags.dnd5e.targets[0].ac, 15, "the message's target AC too");
    await m.module.settled();
    assert.ok(goblin.statuses.has("coverHalf"), "the status applied");
    const second = await attack.rollAttack();
    assert.equal(second.target, 15, "the status counted by dnd5e, not added again");
  });

  test("dnd5e: without an answer yet the roll is stopped, asked and rolled again once", async (t) => {
    if (skip(t)) return;
    const m = await client();
    withDnd5eActors(m, { [GOBLIN]: { ac: 13 } });
    m.control(ARCHER);
    m.game.user.targets = new Set([m.canvas.tokens.get(GOBLIN)]);
    const attack = dnd5eAttack({ f: m, actor: m.canvas.tokens.get(ARCHER).actor });
    assert.equal(await attack.rollAttack(), null, "stopped");
    await m.module.settled();
    assert.equal(attack.rolled.length, 1);
    assert.equal(attack.rolled[0].target, 15);
  });

  test("dnd5e, only tell: the roll is left as it is", async (t) => {
    if (skip(t)) return;
    const m = await client({ settings: { applyCover: "tell" } });
    withDnd5eActors(m, { [GOBLIN]: { ac: 13 } });
    m.control(ARCHER);
    m.target(GOBLIN);
    await settle(TARGETING_DEBOUNCE_MS + 20);
    await m.module.settled();
    const roll = await dnd5eAttack({ f: m, actor: m.canvas.tokens.get(ARCHER).actor }).rollAttack();
    assert.equal(roll.target, 13);
  });

  test("midi-qol: the cover status set in its preamble, applied once", async (t) => {
    if (skip(t)) return;
    const m = await client({ modulesOn: { "midi-qol": { active: true } } });
    withDnd5eActors(m, { [GOBLIN]: { ac: 13 } });
    const archer = m.canvas.tokens.get(ARCHER);
    const goblinToken = m.canvas.tokens.get(GOBLIN);
    m.control(ARCHER);
    m.game.user.targets = new Set([goblinToken]);
    const attack = dnd5eAttack({ f: m, actor: archer.actor });
    assert.equal(await m.module.midiPreamble({ token: archer, targets: new Set([goblinToken]), activity: attack }), true);
    assert.ok(goblinToken.actor.statuses.has("coverHalf"));
    assert.equal(goblinToken.actor.toggles, 1);
    const roll = await attack.rollAttack();
    assert.equal(roll.target, 15, "dnd5e reads AC 15 from the status");
    assert.equal(roll.message.data.flags[MODULE_ID], undefined, "the dnd5e hook added nothing");
  });

  test("pf2e: a Strike at a target with standard cover gets the +2 circumstance bonus (Effect: Cover)", async (t) => {
    if (skip(t)) return;
    const m = await client({ systemId: "pf2e", extra: { fromUuid: async (uuid) => (uuid.endsWith("I9lfZUiCwMiGogVi") ? pf2eCoverEffect() : null) } });
    for (const d of m.canvas.scene.tokens.contents) d.actor = pf2eActor({ name: d.name });
    for (const p of m.canvas.tokens.placeables) p.actor = p.document.actor;
    assert.equal(m.module.settings.ruleset, "pf2e");
    m.control(ARCHER);
    m.target(GOBLIN);
    await settle(TARGETING_DEBOUNCE_MS + 20);
    await m.module.settled();
    const goblin = m.canvas.tokens.get(GOBLIN).actor;
    assert.deepEqual(goblin.ac, { value: 20, circumstance: 2 }, "AC 18 + 2 (standard cover)");
    const [effect] = goblin.items.contents;
    assert.deepEqual(effect.flags.pf2e.rulesSelections.cover, { bonus: 2, level: "standard" });
    // the kobold behind the wall: greater is not reached, total cover is no effect
    m.target(KOBOLD);
    await settle(TARGETING_DEBOUNCE_MS + 20);
    await m.module.settled();
    assert.equal(m.canvas.tokens.get(KOBOLD).actor.items.size, 0);
  });
});

describe("attackers that ignore cover", () => {
  const actor = (items, flags = {}) => ({ name: "Archer", items, flags });
  test("the table: Sharpshooter (ranged), Spell Sniper (spell); never total cover", () => {
    assert.deepEqual(IGNORES_COVER.dnd5e.map((f) => f.identifier), ["sharpshooter", "spell-sniper"]);
    const sharp = actor([{ name: "Sharpshooter", system: { identifier: "sharpshooter" } }]);
    assert.equal(ignoredCover("dnd5e", sharp, "ranged").source, "Sharpshooter");
    assert.equal(ignoredCover("dnd5e", sharp, "melee"), null);
    assert.equal(ignoredCover("dnd5e", sharp, "spell"), null);
    const sniper = actor([{ name: "Spell Sniper" }]); // no identifier: the slug of the name
    assert.equal(ignoredCover("dnd5e", sniper, "spell").source, "Spell Sniper");
    assert.equal(ignoredCover("dnd5e", sniper, "ranged"), null);
    const half = { target: "g", cover: "half", ac_bonus: 2, save_bonus: 2 };
    const ignored = ignoredCover("dnd5e", sharp, "ranged");
    assert.deepEqual(withoutIgnored(half, ignored), { target: "g", cover: "none", ac_bonus: 0, save_bonus: 0, advantage_levels: 0, ignored: { degree: "half", source: "Sharpshooter" } });
    const total = { target: "g", cover: "total", ac_bonus: null };
    assert.equal(withoutIgnored(total, ignored), total);
    assert.equal(ignoredCover("pf2e", sharp, "ranged"), null, "a dnd5e feat means nothing in pf2e");
  });

  test("the actor flag, in any system", () => {
    assert.deepEqual(ignoredCover("sfrpg", actor([], { sightline: { ignoresCover: true } }), "melee").degrees, ["half", "three-quarters"]);
    assert.deepEqual(ignoredCover("pf2e", actor([], { sightline: { ignoresCover: ["lesser", "total"] } }), "ranged").degrees, ["lesser"]);
  });

  test("a Sharpshooter's attack is not given the half cover, and the card says why", async (t) => {
    if (skip(t)) return;
    const m = await client();
    withDnd5eActors(m, { [GOBLIN]: { ac: 13 } });
    const archer = m.canvas.tokens.get(ARCHER);
    archer.actor.items.set("feat1", { name: "Sharpshooter", type: "feat", system: { identifier: "sharpshooter" } });
    m.control(ARCHER);
    m.target(GOBLIN);
    await settle(TARGETING_DEBOUNCE_MS + 20);
    await m.module.settled();
    const roll = await dnd5eAttack({ f: m, actor: archer.actor }).rollAttack();
    assert.equal(roll.target, 13);
    const card = await m.module.askCover();
    assert.match(card.content, /Half cover \(Sharpshooter\)/);
    assert.match(card.content, /data-cover="none"/);
  });
});

// --------------------------------------------------------------------------- as Foundry loads it

test("main.js registers at init: after a reload the controls and the buttons of existing cards work", async (t) => {
  if (skip(t)) return;
  const f = makeFoundry(HANDED, { settings: { serviceUrl: service.url, apiKey: KEY, askWhen: "button" } });
  const window = new Window();
  const realFetch = globalThis.fetch;
  const saved = {};
  const globals = { game: f.game, Hooks: f.Hooks, ChatMessage: f.ChatMessage, ui: f.ui, foundry: { ...f.foundry, applications: { handlebars: { renderTemplate, loadTemplates: async () => {} } } }, CONFIG: {}, canvas: f.canvas };
  for (const [k, v] of Object.entries(globals)) {
    saved[k] = globalThis[k];
    globalThis[k] = v;
  }
  globalThis.fetch = async (url, init) => {
    if (String(url).startsWith(`modules/${MODULE_ID}/`)) return new Response(readFileSync(join(FOUNDRY_DIR, String(url).slice(`modules/${MODULE_ID}/`.length))));
    return realFetch(url, init);
  };
  try {
    await import(`../scripts/main.js?reload=${Date.now()}`);
    f.Hooks.callAll("init");
    const api = f.game.modules.get(MODULE_ID).api;
    assert.ok(api, "the API is there from init");
    // Foundry draws the controls and the chat log before `ready`
    const controls = { tokens: { tools: { select: { name: "select" } } } };
    f.Hooks.callAll("getSceneControlButtons", controls);
    assert.equal(controls.tokens.tools[`${MODULE_ID}-cover`].button, true);
    const old = window.document.createElement("li");
    old.innerHTML = `<section class="sightline-card"><button type="button" data-action="sightline-vision" data-token="${ARCHER}">Vision</button></section>`;
    assert.ok(old instanceof window.HTMLElement);
    f.Hooks.callAll("renderChatMessageHTML", { id: "old" }, old);
    f.Hooks.callAll("ready");
    await until(() => api.sync !== null, "ready");
    modules.push(api);
    old.querySelector("button").click();
    await until(() => f.game.messages.contents.length === 1, "the vision card");
    assert.equal(f.game.messages.contents[0].flags[MODULE_ID].card, "vision");
    f.canvas.tokens.controlled = [f.canvas.tokens.get(ARCHER)];
    f.game.user.targets = new Set([f.canvas.tokens.get(GOBLIN)]);
    controls.tokens.tools[`${MODULE_ID}-cover`].onChange();
    await until(() => f.game.messages.contents.length === 2, "the cover card");
    assert.match(f.game.messages.contents[1].content, /data-cover="half"/);
  } finally {
    for (const [k, v] of Object.entries(saved)) globalThis[k] = v;
    globalThis.fetch = realFetch;
    await window.happyDOM.close();
  }
});

// --------------------------------------------------------------------------- settings form, behaviour

test("init registers the region behaviour's data model and the ApplicationV2 rules form, which renders the service's rulesets", async (t) => {
  if (skip(t)) return;
  const { applicationsApi, dataApi, i18n } = await import("../test-support/foundry.mjs");
  const window = new Window();
  try {
    const CONFIG = { RegionBehavior: { dataModels: {} } };
    const m = await client({ extra: { CONFIG, foundry: { utils: (await import("../test-support/foundry.mjs")).utils, applications: { api: applicationsApi(window) }, data: dataApi() } } });
    const model = CONFIG.RegionBehavior.dataModels["sightline.environment"];
    assert.ok(model, "the behaviour type is registered");
    assert.deepEqual(Object.keys(model.defineSchema()), ["obscurement", "concealment", "magicalDarkness", "water", "gravity"]);
    // Foundry names a sub-type TYPES.<document>.<type>
    assert.equal(i18n.localize("TYPES.RegionBehavior.sightline.environment"), EN.SIGHTLINE.Behavior.Label);
    const Menu = m.game.settings.menus.get(`${MODULE_ID}.rules`).type;
    const form = await new Menu().render();
    assert.equal(form.element.tagName, "FORM");
    const options = [...form.element.querySelectorAll("select[name=ruleset] option")].map((o) => o.value);
    assert.deepEqual(options.sort(), ["dnd2024", "dnd5e", "pf2e", "pf2e-variant", "starfinder"]);
    await form.submit({ ruleset: "starfinder" });
    assert.equal(m.game.settings.get(MODULE_ID, "ruleset"), "starfinder");
  } finally {
    await window.happyDOM.close();
  }
});
