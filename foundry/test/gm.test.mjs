/**
 * What only the GM has, at a table against a real gunicorn (test-support/foundry.mjs
 * makeTable: a GM's and a player's client over one module socket):
 *
 * - the GM's confirm / override of a degree on a card only GMs see (override.js): kept on the
 *   scene, applied to the roll (dnd5e status and AC), lapsing when a token moves; with
 *   "apply once the GM confirms" nothing is applied before;
 * - the overlay of the traced lines (overlay.js): the GM's toggle draws the lines of the last
 *   cover answer (a player's, relayed) on the GM's canvas; a player has no toggle and no lines;
 * - a player's targeting (ask on targeting) on a scene with a hidden blocker posts nothing
 *   secret publicly;
 * - the Delian Tomb (a real export) from a player's view: the card's picture names no hidden
 *   creature and no secret door, is under 100 kB, and frames both tokens.
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Window } from "happy-dom";
import { SightlineModule, TARGETING_DEBOUNCE_MS } from "../scripts/module.js";
import { MODULE_ID } from "../scripts/constants.js";
import { COLOURS, OVERLAY_NAME } from "../scripts/overlay.js";
import { overrideOf, withDegree } from "../scripts/override.js";
import { buildScene } from "../scripts/scene.js";
import { EN, FOUNDRY_DIR, exportsMissing, makeFoundry, makeTable, readExport, renderTemplate } from "../test-support/foundry.mjs";
import { postJson, settle, startService, until } from "../test-support/service.mjs";
import { ARCHER, GOBLIN, HANDED, LURKER, SECRET_DOOR, SECRETS } from "../test-support/handed.mjs";
import { dnd5eAttack, withDnd5eActors } from "../test-support/systems.mjs";

const KEY = "gm-key-29";
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

/** A PIXI stand-in: Graphics records its line styles and segments; a layer holds children. */
function fakePixi() {
  class Graphics {
    constructor() {
      this.segments = [];
      this.style = null;
      this.at = null;
    }

    lineStyle(width, colour, alpha) {
      this.style = { width, colour, alpha };
    }

    moveTo(x, y) {
      this.at = [x, y];
    }

    lineTo(x, y) {
      this.segments.push({ from: this.at, to: [x, y], colour: this.style?.colour });
      this.at = [x, y];
    }

    destroy() {
      this.destroyed = true;
    }
  }
  class Text {
    constructor(text) {
      this.text = text;
      this.anchor = { set() {} };
      this.position = { set() {} };
    }

    destroy() {}
  }
  return { Graphics, Text };
}

function fakeLayer() {
  return {
    children: [],
    addChild(child) {
      child.parent = this;
      this.children.push(child);
      return child;
    },
    removeChild(child) {
      this.children = this.children.filter((c) => c !== child);
      return child;
    },
  };
}

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

async function client({ table, userId, isGM, settings = {}, fetch = undefined }) {
  const f = makeFoundry(table.scene, { isGM, userId, table, settings: { serviceUrl: service.url, apiKey: isGM ? KEY : "", askWhen: "button", ...settings } });
  f.canvas.controls = fakeLayer();
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
    PIXI: fakePixi(),
    ...(fetch ? { fetch } : {}),
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

/** The GM and a player who owns `owned` (the archer), at one table; the player's client refuses HTTP. */
async function gmAndPlayer({ doc = SECRETS, owned = ARCHER, gmSettings = {}, playerSettings = {} } = {}) {
  const table = makeTable(doc, [
    { id: "gm1", name: "GM", isGM: true, active: true },
    { id: "player1", name: "Player", isGM: false, active: true },
  ]);
  for (const d of table.scene.tokens.contents) d.testUserPermission = (user) => Boolean(user?.isGM || (d.id === owned && user?.id === "player1"));
  const gm = await client({ table, userId: "gm1", isGM: true, settings: gmSettings });
  const fetchSpy = refusingFetch();
  const player = await client({ table, userId: "player1", isGM: false, fetch: fetchSpy, settings: { serviceUrl: "http://127.0.0.1:9", ...playerSettings } });
  return { table, gm, player, fetchSpy };
}

const pictureOf = (html) => decodeURIComponent((html.match(/src="data:image\/svg\+xml,([^"]+)"/) ?? [])[1] ?? "");

/** A card's HTML as Foundry renders it (an HTMLElement in a happy-dom window). */
function rendered(window, html) {
  const li = window.document.createElement("li");
  li.innerHTML = html;
  return li;
}

// --------------------------------------------------------------------------- confirm / override

describe("the GM's confirm or override", () => {
  test("apply once the GM confirms: nothing before; the GM's three-quarters on the whispered card gives +5 AC and the status; a move lapses it", async (t) => {
    if (skip(t)) return;
    const confirm = { applyCover: "confirm" };
    const { table, gm, player, fetchSpy } = await gmAndPlayer({ doc: HANDED, gmSettings: confirm, playerSettings: { ...confirm, askWhen: "attack" } });
    withDnd5eActors(gm, { [GOBLIN]: { ac: 13 } });
    withDnd5eActors(player);
    const goblin = table.scene.tokens.get(GOBLIN).actor;
    player.control(ARCHER);
    player.target(GOBLIN);
    await settle(TARGETING_DEBOUNCE_MS + 20);
    await player.module.settled();
    const attack = dnd5eAttack({ f: player, actor: player.canvas.tokens.get(ARCHER).actor, d20: 10, bonus: 4 });
    const before = await attack.rollAttack();
    assert.equal(before.target, 13, "not confirmed yet: the half cover (5E-COV-5) is told, not applied");
    assert.equal(goblin.statuses.size, 0);

    // the player's card is public and has no controls; the GMs' whisper has them
    const card = await player.module.askCover();
    assert.equal(card.whisper, undefined);
    assert.ok(!card.content.includes("sightline-override"), "no override controls on a card players see");
    await until(() => table.messages.contents.some((m) => m.flags[MODULE_ID].card === "gm-details"), "the GMs' whisper");
    const whisper = table.messages.contents.find((m) => m.flags[MODULE_ID].card === "gm-details");
    assert.deepEqual(whisper.whisper, ["gm1"]);
    const window = new Window();
    try {
      const element = rendered(window, whisper.content);
      const buttons = [...element.querySelectorAll("[data-action=sightline-override]")];
      assert.deepEqual(buttons.map((b) => b.dataset.degree), ["none", "half", "three-quarters", "total"]);
      assert.equal(element.querySelector("[data-answered=true]").dataset.degree, "half", "the service's degree is marked");
      // a player's client removes the controls of any card it renders
      const theirs = rendered(window, whisper.content);
      player.module.bindCard(theirs);
      assert.equal(theirs.querySelectorAll(".sightline-override").length, 0);

      gm.module.bindCard(element);
      buttons.find((b) => b.dataset.degree === "three-quarters").click();
      await until(() => table.messages.contents.some((m) => m.flags[MODULE_ID].card === "gm-override"), "the override whisper");
      await gm.module.settled();
      assert.equal(buttons.find((b) => b.dataset.degree === "three-quarters").getAttribute("aria-pressed"), "true");
      assert.equal(buttons.find((b) => b.dataset.degree === "half").getAttribute("aria-pressed"), "false");
    } finally {
      await window.happyDOM.close();
    }
    const note = table.messages.contents.find((m) => m.flags[MODULE_ID].card === "gm-override");
    assert.deepEqual(note.whisper, ["gm1"], "whispered to the GMs");
    assert.match(note.content, /Goblin's cover against Archer to Three-quarters cover \(the service: Half cover\)/);
    assert.equal(overrideOf(table.scene, table.scene.tokens.get(GOBLIN), table.scene.tokens.get(ARCHER)), "three-quarters");
    assert.equal(table.scene.tokens.get(GOBLIN).flags?.[MODULE_ID], undefined, "on the scene (GMs only), not on a token its owner may write");
    assert.ok(goblin.statuses.has("coverThreeQuarters"), "the status the GM chose, applied at once");
    assert.equal(await player.module.override({ attacker: ARCHER, target: GOBLIN, degree: "none" }), null, "a player's client overrides nothing");
    assert.equal(overrideOf(table.scene, table.scene.tokens.get(GOBLIN), table.scene.tokens.get(ARCHER)), "three-quarters");

    const after = await attack.rollAttack();
    assert.equal(after.target, 18, "AC 13 + 5 (three-quarters, 5E-COV-5), the status counted once");
    assert.equal(after.hit, false);
    await player.module.settled();
    assert.ok(goblin.statuses.has("coverThreeQuarters"), "the player's roll did not undo the GM's status");
    const again = await player.module.askCover();
    assert.match(again.content, /data-cover="three-quarters"/);
    assert.match(again.content, /Three-quarters cover \(the service: Half cover\)/);
    assert.deepEqual(fetchSpy.calls, [], "the player's client asked everything through the GM's");

    // the goblin steps aside: the GM's degree lapses, the service's is back
    table.scene.tokens.get(GOBLIN).x += 1;
    assert.equal(overrideOf(table.scene, table.scene.tokens.get(GOBLIN), table.scene.tokens.get(ARCHER)), null);
    const cover = player.module.answers.values().next().value.cover;
    assert.deepEqual(player.module.shownResults(cover, ARCHER, null, "ranged").map((r) => r.cover), ["half"]);
    assert.deepEqual(player.module.resultsToApply(cover, ARCHER, null, "ranged"), [], "confirm: nothing to apply again");
  });

  test("a degree's bonuses are the ruleset's table (data/bounds.json), the service's degree kept", () => {
    const half = { target: "g", cover: "half", ac_bonus: 2, save_bonus: 2, advantage_levels: 0, can_target: true };
    assert.deepEqual(withDegree(half, "dnd5e", "total"), { ...half, cover: "total", ac_bonus: null, save_bonus: null, can_target: false, overridden: { from: "half" } });
    assert.equal(withDegree(half, "starfinder", "improved").ac_bonus, 8, "SF-COV-8 improved cover +8 AC");
    assert.equal(withDegree(half, "pf2e", "standard").ac_bonus, 2, "PF2-COV-1 standard +2");
    assert.equal(withDegree(half, "dnd5e", "greater"), half, "a degree the ruleset has not: unchanged");
  });

  test("a GM's own card only GMs see carries the controls; in 'only tell' none", async (t) => {
    if (skip(t)) return;
    const { gm } = await gmAndPlayer({ doc: HANDED });
    await gm.game.settings.set("core", "rollMode", "blindroll");
    gm.control(ARCHER);
    gm.target(GOBLIN);
    assert.match((await gm.module.askCover()).content, /data-action="sightline-override" data-degree="half" aria-pressed="true"/);
    await gm.game.settings.set(MODULE_ID, "applyCover", "tell");
    assert.ok(!(await gm.module.askCover()).content.includes("sightline-override"));
  });
});

// --------------------------------------------------------------------------- overlay

test("the lines overlay: the GM's toggle draws the relayed answer's lines on the GM's canvas only", async (t) => {
  if (skip(t)) return;
  const { gm, player } = await gmAndPlayer();
  const gmControls = { tokens: { tools: {} } };
  gm.module.addControls(gmControls);
  const playerControls = { tokens: { tools: {} } };
  player.module.addControls(playerControls);
  assert.equal(gmControls.tokens.tools["sightline-lines"].toggle, true);
  assert.equal(playerControls.tokens.tools["sightline-lines"], undefined, "a player has no toggle");

  player.control(ARCHER);
  player.target(GOBLIN);
  await player.module.askCover();
  gmControls.tokens.tools["sightline-lines"].onChange({}, true);
  const drawn = gm.canvas.controls.children.find((c) => c.name === OVERLAY_NAME);
  assert.ok(drawn, "the GM's canvas has the overlay");
  // the lines the service traces for that attack, asked here over HTTP
  const answer = await postJson(service.url, "/v1/cover", { ruleset: "dnd5e", scene_id: gm.module.sync.sceneId, attacker: ARCHER, targets: [GOBLIN], attack: { kind: "ranged" } }, { apiKey: KEY });
  const lines = answer.results[0].lines;
  assert.ok(lines.length > 0 && lines.some((l) => l.blocked), "the goblin's half cover: some blocked lines");
  assert.deepEqual(drawn.segments, lines.map((l) => ({ from: l.from, to: l.to, colour: l.blocked ? COLOURS.blocked : COLOURS.clear })));
  assert.equal(player.canvas.controls.children.length, 0, "no lines on the player's canvas");
  assert.equal(player.module.overlay.answer, null, "a player's client keeps no answer's lines");
  gmControls.tokens.tools["sightline-lines"].onChange({}, false);
  assert.equal(gm.canvas.controls.children.length, 0);
  assert.equal(drawn.destroyed, true);
});

// --------------------------------------------------------------------------- targeting

test("a player's targeting (ask on targeting) on a scene with a hidden blocker posts nothing secret publicly", async (t) => {
  if (skip(t)) return;
  const { table, player, fetchSpy } = await gmAndPlayer({ playerSettings: { askWhen: "targeting" } });
  player.control(ARCHER);
  player.target(GOBLIN);
  await settle(TARGETING_DEBOUNCE_MS + 20);
  await player.module.settled();
  await until(() => table.messages.contents.length === 2, "the player's card and the GMs' whisper");
  const shown = table.messages.contents.filter((m) => !m.whisper?.length);
  assert.equal(shown.length, 1, "one public card");
  const { content } = shown[0];
  for (const secret of ["Invisible Stalker", LURKER, SECRET_DOOR, EN.SIGHTLINE.Secret["secret-door"], EN.SIGHTLINE.Secret.token]) {
    assert.ok(!content.includes(secret), `the public card names ${secret}`);
  }
  assert.match(pictureOf(content), /^<svg/);
  assert.ok(!/Invisible Stalker|lurkerToken|secret/i.test(pictureOf(content)));
  const whisper = table.messages.contents.find((m) => m.whisper?.length);
  assert.deepEqual(whisper.whisper, ["gm1"]);
  assert.match(whisper.content, /Invisible Stalker/);
  assert.deepEqual(fetchSpy.calls, []);
});

// --------------------------------------------------------------------------- a real scene

test("the Delian Tomb from a player's goblin: no hidden creature, no secret door, under 100 kB, both tokens framed", async (t) => {
  if (skip(t)) return;
  const missing = exportsMissing();
  if (missing) return t.skip(missing);
  const tomb = readExport("foundry-v10-delian-tomb.json");
  const archer = "vTb2FbAEQ4QQcZAA";
  const target = "bNmhsTCeyRtXVwRs";
  const secretDoor = "uVf480tXSVggzMR1";
  const hidden = tomb.tokens.filter((tok) => tok.hidden);
  assert.equal(hidden.length, 7, "the export's seven hidden skeletons");
  const { gm, player, fetchSpy } = await gmAndPlayer({ doc: tomb, owned: archer });
  player.control(archer);
  player.target(target);
  const card = await player.module.askCover();
  assert.deepEqual(player.ui.log.error, []);
  assert.equal(card.whisper, undefined, "a public card");
  const svg = pictureOf(card.content);
  assert.match(svg, /^<svg/);
  assert.ok(Buffer.byteLength(svg, "utf8") < 100_000, `${Buffer.byteLength(svg, "utf8")} bytes`);
  assert.ok(!svg.includes("Skeleton") && !/secret/i.test(svg), "no hidden creature's name, no secret door");
  for (const tok of hidden) assert.ok(!svg.includes(tok._id), `hidden ${tok._id} drawn`);
  assert.ok(!svg.includes(secretDoor));
  // the viewBox holds both tokens (as the module placed them) with a margin
  const built = buildScene(gm.module.live());
  const [x, y, w, h] = svg.match(/viewBox="([^"]+)"/)[1].split(/\s+/).map(Number);
  const size = built.grid.size;
  const framed = built.tokens.filter((tk) => tk.id === archer || tk.id === target);
  assert.equal(framed.length, 2);
  for (const { id, x: tx, y: ty, width, height } of framed) {
    // a margin of one square at least around the token's space
    const inside = x <= tx - size && tx + (width + 1) * size <= x + w && y <= ty - size && ty + (height + 1) * size <= y + h;
    assert.ok(inside, `token ${id} at ${tx},${ty} inside viewBox ${x} ${y} ${w} ${h}`);
  }
  assert.ok(w < tomb.width / 4, "a frame, not the map");
  assert.deepEqual(fetchSpy.calls, []);
});
