/**
 * Entry point (module.json "esmodules"): builds the module from Foundry's globals.
 */

import { MODULE_ID, TEMPLATES } from "./constants.js";
import { SightlineModule } from "./module.js";

/** Foundry v13 moved renderTemplate and loadTemplates under foundry.applications.handlebars. */
const handlebars = () => foundry.applications?.handlebars ?? {};
const render = (path, data) => (handlebars().renderTemplate ?? globalThis.renderTemplate)(path, data);
const preload = (paths) => (handlebars().loadTemplates ?? globalThis.loadTemplates)(paths);

const sightline = new SightlineModule({
  game,
  canvas: () => globalThis.canvas,
  Hooks,
  ChatMessage,
  ui,
  foundry,
  CONFIG,
  renderTemplate: render,
  loadRules: async () => {
    const response = await fetch(`modules/${MODULE_ID}/data/rules.json`);
    if (!response.ok) throw new Error(`rules.json: ${response.status}`);
    return response.json();
  },
});

Hooks.once("init", () => {
  sightline.init();
  preload(Object.values(TEMPLATES));
});

Hooks.once("ready", () => {
  sightline.ready();
  game.modules.get(MODULE_ID).api = sightline;
});
