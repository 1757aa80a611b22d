/**
 * Entry point (module.json "esmodules"): builds the module from Foundry's globals.
 *
 * Everything the UI needs (settings, controls, render and roll hooks) is registered at
 * `init`, before Foundry draws its UI, so controls and the buttons of existing cards work
 * after a reload; the service client, the GM relay and scene sync start at `ready`.
 */

import { MODULE_ID, TEMPLATES } from "./constants.js";
import { SightlineModule } from "./module.js";

/** Foundry v13 moved renderTemplate and loadTemplates under foundry.applications.handlebars. */
/** @returns {any} */
const handlebars = () => foundry.applications?.handlebars ?? {};
const render = (path, data) => (handlebars().renderTemplate ?? globalThis.renderTemplate)(path, data);
const preload = (paths) => (handlebars().loadTemplates ?? globalThis.loadTemplates)(paths);

const sightline = new SightlineModule({
  game,
  canvas: () => /** @type {any} */ (globalThis).canvas,
  Hooks,
  ChatMessage,
  ui,
  foundry,
  CONFIG,
  renderTemplate: render,
  fromUuid: (uuid) => globalThis.fromUuid(uuid),
  PIXI: globalThis.PIXI,
  loadRules: async () => {
    const response = await fetch(`modules/${MODULE_ID}/data/rules.json`);
    if (!response.ok) throw new Error(`rules.json: ${response.status}`);
    return response.json();
  },
});

Hooks.once("init", () => {
  sightline.init();
  preload(Object.values(TEMPLATES));
  /** @type {any} */ (game.modules.get(MODULE_ID)).api = sightline;
});

Hooks.once("ready", () => sightline.ready());
