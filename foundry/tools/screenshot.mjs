#!/usr/bin/env node
/**
 * Render the chat card in headless Chromium to a PNG.
 *
 * Starts the service from the project's .venv (as the tests do), posts the card of the handed
 * case (test-support/handed.mjs: an archer, a goblin behind a post, a kobold behind a wall)
 * through the module on the mocked Foundry, puts the card's HTML in a page styled like
 * Foundry's chat sidebar with the module's CSS (one rule tooltip shown open), and has
 * Debian's `chromium` take the screenshot.
 *
 * Usage: node foundry/tools/screenshot.mjs [out.png] [--ruleset dnd5e] [--height 740]
 * Default output: docs/foundry-chat-card.png. Needs `make install` and `chromium`.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SightlineModule } from "../scripts/module.js";
import { FOUNDRY_DIR, REPO_DIR, makeFoundry, renderTemplate } from "../test-support/foundry.mjs";
import { startService } from "../test-support/service.mjs";
import { ARCHER, GOBLIN, HANDED, KOBOLD } from "../test-support/handed.mjs";

const args = process.argv.slice(2);
const rulesetAt = args.indexOf("--ruleset");
const ruleset = rulesetAt >= 0 ? args.splice(rulesetAt, 2)[1] : "dnd5e";
const heightAt = args.indexOf("--height");
const height = heightAt >= 0 ? Number(args.splice(heightAt, 2)[1]) : 740;
const out = resolve(args[0] ?? join(REPO_DIR, "docs", "foundry-chat-card.png"));
const chromium = ["chromium", "chromium-browser"].find((c) => spawnSync("which", [c]).status === 0);
if (!chromium) {
  console.error("no chromium on PATH: apt-get install -y chromium");
  process.exit(2);
}

const service = await startService();
if (service.skip) {
  console.error(service.skip);
  process.exit(2);
}
let tmp = null;
try {
  const f = makeFoundry(HANDED, { settings: { serviceUrl: service.url, ruleset, askWhen: "button" } });
  const rules = JSON.parse(readFileSync(join(FOUNDRY_DIR, "data", "rules.json"), "utf8"));
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
  });
  module.init();
  await module.ready();
  f.canvas.tokens.controlled = [f.canvas.tokens.get(ARCHER)];
  f.game.user.targets = new Set([GOBLIN, KOBOLD].map((id) => f.canvas.tokens.get(id)));
  const message = await module.askCover();
  module.sync.stop();
  if (!message) throw new Error(`no card: ${f.ui.log.error.join(" | ")}`);

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
  writeFileSync(html, page);
  const shot = spawnSync(
    chromium,
    ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", `--user-data-dir=${join(tmp, "profile")}`,
      `--window-size=320,${height}`, `--screenshot=${out}`, `file://${html}`],
    { encoding: "utf8", timeout: 120_000 },
  );
  if (shot.status !== 0) throw new Error(`chromium failed (${shot.status}): ${shot.stderr}`);
  console.log(`wrote ${out}`);
} finally {
  await service.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
