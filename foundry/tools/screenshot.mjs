#!/usr/bin/env node
/**
 * Render the chat card, as a player sees it, in headless Chromium to a PNG.
 *
 * Starts the service from the project's .venv (as the tests do) and seats a table on the
 * mocked Foundry (test-support/foundry.mjs makeTable): the GM's client, which calls the
 * service, and a player's client that owns the archer and asks through the GM's over the
 * module socket. The scene is the handed case (test-support/handed.mjs: an archer, a goblin
 * behind a post, a kobold behind a wall) with a hidden "Invisible Stalker" near the goblin.
 * The player's card holds the picture drawn from the archer's view and cropped
 * (`/v1/render` `viewer` and `crop`): no hidden creature in it. The card's HTML goes in a
 * page styled like Foundry's chat sidebar with the module's CSS (one rule tooltip shown
 * open); Debian's `chromium` takes the screenshot into a temporary file, moved into place.
 *
 * Usage: node foundry/tools/screenshot.mjs [out.png] [--ruleset dnd5e] [--height 740] [--gm]
 * `--gm`: the GM's own card instead (the whole secrets, the GM's picture).
 * Default output: docs/foundry-chat-card.png. Needs `make install` and `chromium`.
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { SightlineModule } from "../scripts/module.js";
import { FOUNDRY_DIR, REPO_DIR, makeFoundry, makeTable, renderTemplate } from "../test-support/foundry.mjs";
import { startService } from "../test-support/service.mjs";
import { ARCHER, GOBLIN, HANDED, KOBOLD } from "../test-support/handed.mjs";

const args = process.argv.slice(2);
const rulesetAt = args.indexOf("--ruleset");
const ruleset = rulesetAt >= 0 ? args.splice(rulesetAt, 2)[1] : "dnd5e";
const heightAt = args.indexOf("--height");
const height = heightAt >= 0 ? Number(args.splice(heightAt, 2)[1]) : 740;
const gmAt = args.indexOf("--gm");
const asGm = gmAt >= 0 && args.splice(gmAt, 1).length > 0;
const out = resolve(args[0] ?? join(REPO_DIR, "docs", "foundry-chat-card.png"));
const chromium = ["chromium", "chromium-browser"].find((c) => spawnSync("which", [c]).status === 0);
if (!chromium) {
  console.error("no chromium on PATH: apt-get install -y chromium");
  process.exit(2);
}

/** The handed case with a hidden creature by the goblin's lines: the player's picture leaves it out. */
const SCENE = structuredClone(HANDED);
SCENE.tokens.push({ _id: "lurkerToken00001", name: "Invisible Stalker", x: 300, y: 170, width: 1, height: 1, hidden: true });
const KEY = "screenshot-key";

const service = await startService({ SIGHTLINE_API_KEYS: KEY, SIGHTLINE_SCENE_FILE: "off" });
if (service.skip) {
  console.error(service.skip);
  process.exit(2);
}
let tmp = null;
const modules = [];
try {
  const rules = JSON.parse(readFileSync(join(FOUNDRY_DIR, "data", "rules.json"), "utf8"));
  const table = makeTable(SCENE, [
    { id: "gm1", name: "Gamemaster", isGM: true, active: true },
    { id: "player1", name: "Player", isGM: false, active: true },
  ]);
  for (const d of table.scene.tokens.contents) d.testUserPermission = (user) => Boolean(user?.isGM || (d.id === ARCHER && user?.id === "player1"));
  const seat = async (userId, isGM) => {
    const f = makeFoundry(SCENE, { table, userId, isGM, settings: { serviceUrl: isGM ? service.url : "http://127.0.0.1:9", apiKey: isGM ? KEY : "", ruleset, askWhen: "button" } });
    const module = new SightlineModule({
      game: f.game,
      canvas: () => f.canvas,
      Hooks: f.Hooks,
      ChatMessage: f.ChatMessage,
      ui: f.ui,
      foundry: f.foundry,
      CONFIG: {},
      renderTemplate,
      loadRules: async () => rules,
      log: () => {},
      // the player's client makes no HTTP request: everything goes through the GM's
      ...(isGM ? {} : { fetch: async (url) => Promise.reject(new Error(`no HTTP from a player: ${url}`)) }),
    });
    module.init();
    await module.ready();
    modules.push(module);
    return { f, module };
  };
  const gm = await seat("gm1", true);
  const asker = asGm ? gm : await seat("player1", false);
  asker.f.canvas.tokens.controlled = [asker.f.canvas.tokens.get(ARCHER)];
  asker.f.game.user.targets = new Set([GOBLIN, KOBOLD].map((id) => asker.f.canvas.tokens.get(id)));
  const message = await asker.module.askCover();
  if (!message) throw new Error(`no card: ${asker.f.ui.log.error.join(" | ")}`);
  const f = asker.f;

const css = readFileSync(join(FOUNDRY_DIR, "styles", "sightline.css"), "utf8");
  const page = `<!doctype html><html><head><meta charset="utf-8"><style>
    body { margin: 0; background: #3a3a3a; font-family: "Signika", "Segoe UI", sans-serif; color: #191813; }
    #chat { width: 300px; padding: 8px; }
    .chat-message { background: #efece3; border: 2px solid #6f6c66; border-radius: 5px; padding: 6px; box-shadow: 0 0 6px #000; }
    .message-header { display: flex; justify-content: space-between; font-size: 12px; color: #4b4a44; border-bottom: 1px solid #c9c7b8; margin-bottom: 4px; }
    .message-header strong { color: #191813; font-size: 14px; }
    #tooltip { position: absolute; max-width: 220px; background: #111; color: #eee; font-size: 12px; padding: 4px 8px; border-radius: 4px; box-shadow: 0 0 4px #000; }
    ${css}
  </style></head><body><div id="chat"><div class="chat-message">
    <header class="message-header"><strong>Archer</strong><span>${f.game.user.name}</span></header>
    ${message.content}
  </div></div><div id="tooltip"></div>
  <script>
    const chip = document.querySelector('[data-rule="5E-COV-5"], [data-rule="SF-COV-2"], [data-rule="PV-COV-2"]');
    const tip = document.getElementById("tooltip");
    tip.textContent = chip.dataset.tooltip;
    const box = chip.getBoundingClientRect();
    tip.style.left = Math.max(4, box.left - 40) + "px";
    tip.style.top = box.top - tip.offsetHeight - 6 + "px";
  </script></body></html>`;
  tmp = mkdtempSync(join(tmpdir(), "sightline-card-"));
  const html = join(tmp, "card.html");
  const shotFile = join(tmp, "card.png");
  writeFileSync(html, page);
  const shot = spawnSync(
    chromium,
    ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", `--user-data-dir=${join(tmp, "profile")}`,
      `--window-size=320,${height}`, `--screenshot=${shotFile}`, `file://${html}`],
    { encoding: "utf8", timeout: 120_000 },
  );
  if (shot.status !== 0) throw new Error(`chromium failed (${shot.status}): ${shot.stderr}`);
  // into place in one step: a temporary file beside the output, renamed over it
  const partial = join(dirname(out), `.${Date.now()}.partial.png`);
  copyFileSync(shotFile, partial);
  renameSync(partial, out);
  console.log(`wrote ${out} (${asGm ? "the GM's card" : "the card the player sees"})`);
} finally {
  for (const m of modules) {
    m.sync?.stop();
    m.relay?.stop();
    m.server?.stop();
  }
  await service.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
