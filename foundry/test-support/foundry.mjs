/**
 * A small mocked Foundry VTT (v12 to v14 shapes) built from real scene exports.
 *
 * `game`, `canvas`, `Hooks`, `ChatMessage`, `ui` and `foundry.utils`, with only what the
 * module uses. Scene documents are made from an export the way Foundry makes them when the
 * export is imported into a v12 world: v10 exports are first migrated like Foundry's own data
 * migration does for the fields the module reads (environment, negative lights).
 */

import { readFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";

export const FOUNDRY_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_DIR = resolve(FOUNDRY_DIR, "..");
export const SHARED_DIR = process.env.SIGHTLINE_SHARED ?? resolve(REPO_DIR, "..", "shared");
export const EXPORTS_DIR = join(SHARED_DIR, "scenes", "real", "foundry");

export const EN = JSON.parse(readFileSync(join(FOUNDRY_DIR, "lang", "en.json"), "utf8"));

/** Why the real exports cannot be read, or null when they can. */
export function exportsMissing() {
  return existsSync(EXPORTS_DIR) ? null : `no real Foundry exports at ${EXPORTS_DIR} (set SIGHTLINE_SHARED)`;
}

export function readExport(name) {
  return JSON.parse(readFileSync(join(EXPORTS_DIR, name), "utf8"));
}

const clone = (v) => structuredClone(v);

// ---------------------------------------------------------------------------- utils

export const utils = {
  deepClone: clone,
  expandObject(flat) {
    const out = {};
    for (const [key, value] of Object.entries(flat)) {
      const parts = key.split(".");
      let node = out;
      for (const part of parts.slice(0, -1)) node = node[part] ??= {};
      node[parts.at(-1)] = value;
    }
    return out;
  },
  setProperty(object, key, value) {
    const parts = key.split(".");
    let node = object;
    for (const part of parts.slice(0, -1)) node = node[part] ??= {};
    node[parts.at(-1)] = value;
  },
};

// ---------------------------------------------------------------------------- i18n

function lookupKey(key) {
  return key.split(".").reduce((node, part) => (node && typeof node === "object" ? node[part] : undefined), EN);
}

export const i18n = {
  localize(key) {
    const value = lookupKey(key);
    return typeof value === "string" ? value : key;
  },
  format(key, data = {}) {
    const value = lookupKey(key);
    if (typeof value !== "string") return key;
    return value.replace(/{([^}]+)}/g, (_, name) => (name in data ? String(data[name]) : `{${name}}`));
  },
};

// ---------------------------------------------------------------------------- templates

const hbs = Handlebars.create();
hbs.registerHelper("localize", (key, options) => {
  const hash = options?.hash ?? {};
  return Object.keys(hash).length ? i18n.format(key, hash) : i18n.localize(key);
});
hbs.registerHelper("eq", (a, b) => a === b);
const compiled = new Map();

/** Foundry's renderTemplate over the module's .hbs files (`modules/sightline/...`). */
export async function renderTemplate(path, data) {
  const local = join(FOUNDRY_DIR, path.replace(/^modules\/sightline\//, ""));
  if (!compiled.has(local)) compiled.set(local, hbs.compile(readFileSync(local, "utf8")));
  return compiled.get(local)(data);
}

// ---------------------------------------------------------------------------- hooks

export function makeHooks() {
  const table = new Map();
  let next = 1;
  return {
    on(name, fn) {
      const id = next++;
      if (!table.has(name)) table.set(name, new Map());
      table.get(name).set(id, fn);
      return id;
    },
    once(name, fn) {
      const id = this.on(name, (...args) => {
        this.off(name, id);
        return fn(...args);
      });
      return id;
    },
    off(name, id) {
      table.get(name)?.delete(id);
    },
    callAll(name, ...args) {
      for (const fn of [...(table.get(name)?.values() ?? [])]) fn(...args);
      return true;
    },
    call(name, ...args) {
      for (const fn of [...(table.get(name)?.values() ?? [])]) if (fn(...args) === false) return false;
      return true;
    },
    count(name) {
      return table.get(name)?.size ?? 0;
    },
  };
}

// ---------------------------------------------------------------------------- documents

class Collection extends Map {
  get contents() {
    return [...this.values()];
  }
}

/** v14 documents that list their levels (a SetField: an array in the export, a Set live). */
const ON_LEVELS = new Set(["Wall", "AmbientLight", "Region", "Tile"]);

/** Document#update's change of dotted keys, in place; the document's `updates` count it. */
function updateDocument(doc, changes) {
  for (const [key, value] of Object.entries(changes)) {
    const parts = key.split(".");
    let node = doc;
    for (const part of parts.slice(0, -1)) node = node[part] ??= {};
    node[parts.at(-1)] = clone(value);
  }
  Object.defineProperty(doc, "updates", { enumerable: false, configurable: true, value: (doc.updates ?? 0) + 1 });
  return doc;
}

function embed(list, parent, documentName) {
  const out = new Collection();
  for (const data of list ?? []) {
    if (!data || typeof data !== "object") continue;
    const doc = { ...clone(data), id: data._id, parent, documentName };
    if (documentName === "Region") doc.behaviors = embed(data.behaviors, doc, "RegionBehavior");
    if (ON_LEVELS.has(documentName) && Array.isArray(data.levels)) doc.levels = new Set(data.levels);
    out.set(doc.id, doc);
  }
  return out;
}

/**
 * A v10 scene export as a v12 world holds it (Foundry's migration, for the fields read here):
 * `darkness`/`globalLight`/`globalLightThreshold` become `environment`, and lights of negative
 * luminosity become `negative` (darkness) lights. The migration does not set the global
 * light's `bright`, so it takes the v12 field's initial value, false: a dim global light.
 */
export function migrateToV12(exportDoc) {
  const doc = clone(exportDoc);
  if (!doc.environment) {
    const threshold = typeof doc.globalLightThreshold === "number" ? doc.globalLightThreshold : 1;
    doc.environment = {
      darknessLevel: typeof doc.darkness === "number" ? doc.darkness : 0,
      globalLight: { enabled: doc.globalLight === true, bright: false, darkness: { min: 0, max: threshold } },
    };
    for (const light of doc.lights ?? []) {
      if (light?.config && typeof light.config.luminosity === "number" && light.config.luminosity < 0) {
        light.config.negative = true;
        light.config.luminosity = Math.abs(light.config.luminosity);
      }
    }
  }
  return doc;
}

/**
 * What a v12+ world never holds, so no test may hand it to the module: a token's detection
 * modes other than a list (v12+ `detectionModes` is an ArrayField of `{id, enabled, range}`),
 * a global light whose `bright` is not a boolean (a required BooleanField).
 *
 * @throws {Error} naming the document and the field
 */
export function checkV12Shapes(data) {
  for (const token of data.tokens ?? []) {
    if (token && "detectionModes" in token && !Array.isArray(token.detectionModes)) {
      throw new Error(`token ${token._id}: detectionModes is ${typeof token.detectionModes}, Foundry v12+ keeps a list`);
    }
  }
  const global = data.environment?.globalLight;
  if (global && typeof global.bright !== "boolean") {
    throw new Error(`scene ${data._id}: environment.globalLight.bright is ${global.bright}, Foundry v12+ keeps a boolean`);
  }
}

/** A Scene document (v12 shape) with embedded walls, tokens, lights, regions; v14 levels. */
export function makeSceneDocument(exportDoc) {
  const data = migrateToV12(exportDoc);
  checkV12Shapes(data);
  const scene = {
    id: data._id ?? "scene",
    documentName: "Scene",
    name: data.name,
    grid: data.grid,
    width: data.width,
    height: data.height,
    padding: data.padding,
    environment: data.environment,
    flags: data.flags ?? {},
    _stats: data._stats ?? { coreVersion: "12.331" },
  };
  // Scene#update with dotted keys (flags.sightline.override...), not an own field.
  Object.defineProperty(scene, "update", { enumerable: false, value: async (changes) => updateDocument(scene, changes) });
  scene.walls = embed(data.walls, scene, "Wall");
  scene.tokens = embed(data.tokens, scene, "Token");
  scene.lights = embed(data.lights, scene, "AmbientLight");
  scene.regions = embed(data.regions, scene, "Region");
  if (Array.isArray(data.levels)) scene.levels = embed(data.levels, scene, "Level");
  return scene;
}

/** `canvas.dimensions` of a square or gridless scene: padding rounded up to whole cells. */
export function dimensionsOf(scene) {
  const size = scene.grid.size;
  const padX = Math.ceil((scene.width * (scene.padding ?? 0)) / size) * size;
  const padY = Math.ceil((scene.height * (scene.padding ?? 0)) / size) * size;
  return { size, sceneX: padX, sceneY: padY, width: scene.width + 2 * padX, height: scene.height + 2 * padY };
}

/** The canvas: the scene, its grid (diagonals from the core setting), token placeables. */
export function makeCanvas(scene, { diagonals = 0 } = {}) {
  // Token placeables are PIXI containers: `w`, `h` px, `children`, addChild / removeChild.
  const placeables = scene.tokens.contents.map((document) => ({
    id: document.id,
    name: document.name,
    document,
    visible: document.hidden !== true,
    w: (document.width ?? 1) * scene.grid.size,
    h: (document.height ?? 1) * scene.grid.size,
    children: [],
    addChild(child) {
      this.children.push(child);
      return child;
    },
    removeChild(child) {
      this.children = this.children.filter((c) => c !== child);
      return child;
    },
  }));
  const tokens = {
    placeables,
    controlled: [],
    get: (id) => placeables.find((t) => t.id === id) ?? null,
  };
  return { scene, grid: { type: scene.grid.type, size: scene.grid.size, diagonals }, dimensions: dimensionsOf(scene), tokens };
}

// ---------------------------------------------------------------------------- game

/**
 * `game.settings`: values by their full `namespace.key` only (a value stored for another
 * namespace is not this one's), an unregistered setting throws as Foundry does, and
 * `register` refuses a scope Foundry does not know. Core's `rollMode` is registered.
 */
export function makeSettings(initial = {}) {
  const registered = new Map();
  const values = new Map(Object.entries(initial));
  const settings = {
    registered,
    menus: new Map(),
    register(ns, key, config) {
      if (!["world", "client", "user"].includes(config.scope ?? "client")) throw new Error(`setting ${ns}.${key}: scope ${config.scope}`);
      registered.set(`${ns}.${key}`, config);
    },
    registerMenu(ns, key, config) {
      this.menus.set(`${ns}.${key}`, config);
    },
    get(ns, key) {
      const full = `${ns}.${key}`;
      if (!registered.has(full)) throw new Error(`setting ${full} is not registered`);
      if (values.has(full)) return clone(values.get(full));
      return clone(registered.get(full).default);
    },
    async set(ns, key, value) {
      const full = `${ns}.${key}`;
      if (!registered.has(full)) throw new Error(`setting ${full} is not registered`);
      values.set(full, value);
      registered.get(full)?.onChange?.(value);
      return value;
    },
  };
  settings.register("core", "rollMode", { scope: "client", type: String, default: "publicroll" });
  return settings;
}

/** Short module setting keys (`serviceUrl`) as their full names (`sightline.serviceUrl`). */
export function moduleSettings(values = {}) {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k.includes(".") ? k : `sightline.${k}`, v]));
}

export function makeChatMessageClass(messages) {
  let next = 1;
  return class ChatMessage {
    constructor(data, user) {
      Object.assign(this, clone(data));
      this.id = `msg${next++}`;
      this.author = user;
      this.updates = 0;
    }

    static current = null;

    static async create(data) {
      const message = new ChatMessage(data, ChatMessage.current);
      messages.contents.push(message);
      return message;
    }

    static getSpeaker({ token } = {}) {
      return { token: token?.id ?? null, alias: token?.name ?? null };
    }

    async update(changes) {
      for (const [key, value] of Object.entries(changes)) utils.setProperty(this, key, value);
      this.updates += 1;
      return this;
    }
  };
}

export function makeUi() {
  const log = { error: [], warn: [], info: [] };
  return {
    log,
    notifications: {
      error: (m) => log.error.push(m),
      warn: (m) => log.warn.push(m),
      info: (m) => log.info.push(m),
    },
  };
}

/**
 * A whole mocked Foundry around one scene export.
 *
 * @returns {{game, canvas, Hooks, ChatMessage, ui, foundry}}
 */
export function makeFoundry(exportDoc, { systemId = "dnd5e", settings = {}, isGM = true, generation = 13, diagonals = 0, table = null, userId = "user1", modules = {} } = {}) {
  const scene = table?.scene ?? makeSceneDocument(exportDoc);
  const canvas = makeCanvas(scene, { diagonals });
  const users = table?.users ?? new Users([{ id: userId, name: isGM ? "Gamemaster" : "Player", isGM, active: true }]);
  const user = users.get(userId);
  user.targets = new Set();
  const messages = table?.messages ?? { contents: [] };
  const ChatMessage = makeChatMessageClass(messages);
  ChatMessage.current = user;
  const game = {
    user,
    users,
    i18n,
    messages,
    system: { id: systemId },
    release: { generation },
    settings: makeSettings(moduleSettings(settings)),
    modules: new Map([[MANIFEST.id, { id: MANIFEST.id, active: true }], ...Object.entries(modules).map(([id, m]) => [id, { id, ...m }])]),
    socket: table ? table.hub.socket(userId) : null,
  };
  return { game, canvas, Hooks: makeHooks(), ChatMessage, ui: makeUi(), foundry: { utils } };
}

// ---------------------------------------------------------------------------- a table

export const MANIFEST = JSON.parse(readFileSync(join(FOUNDRY_DIR, "module.json"), "utf8"));

/** `game.users`: a collection with Foundry's `activeGM` (the active GM of lowest id). */
export class Users extends Collection {
  constructor(list) {
    super(list.map((u) => [u.id, { ...u }]));
  }

  get activeGM() {
    return this.contents.filter((u) => u.isGM && u.active).sort((a, b) => (a.id < b.id ? -1 : 1))[0] ?? null;
  }
}

/**
 * The module socket between the clients of one table, as Foundry's server relays it: a
 * message reaches every other connected client (never its sender), as JSON, later; only a
 * module whose manifest says `"socket": true` may use `module.<id>`.
 */
export class SocketHub {
  constructor() {
    this.listeners = new Map();
    this.sent = [];
  }

  socket(userId) {
    const hub = this;
    return {
      on(event, fn) {
        hub.#check(event);
        if (!hub.listeners.has(event)) hub.listeners.set(event, []);
        hub.listeners.get(event).push({ userId, fn });
      },
      off(event, fn) {
        hub.listeners.set(event, (hub.listeners.get(event) ?? []).filter((l) => l.fn !== fn));
      },
      emit(event, data) {
        hub.#check(event);
        const wire = JSON.stringify(data);
        hub.sent.push({ from: userId, event, data: JSON.parse(wire) });
        for (const l of hub.listeners.get(event) ?? []) {
          if (l.userId !== userId) setTimeout(() => l.fn(JSON.parse(wire)), 0);
        }
      },
    };
  }

  #check(event) {
    if (event !== `module.${MANIFEST.id}` || MANIFEST.socket !== true) throw new Error(`socket event ${event}: module.json has no "socket": true`);
  }
}

/**
 * One scene, one chat log and one socket shared by several users' clients.
 *
 * @param {object} exportDoc  scene export
 * @param {object[]} users    `{id, name, isGM, active}`
 */
export function makeTable(exportDoc, users) {
  return { scene: makeSceneDocument(exportDoc), users: new Users(users), messages: { contents: [] }, hub: new SocketHub() };
}

// ---------------------------------------------------------------------------- applications, data models

/**
 * Foundry's ApplicationV2 and HandlebarsApplicationMixin as far as a settings menu uses them:
 * `render()` merges DEFAULT_OPTIONS up the class chain, asks `_prepareContext`, renders each
 * of PARTS' templates into `this.element` (a real HTMLElement, a `<form>` when `tag` is
 * "form"), then calls `_onRender`; submitting the form calls `options.form.handler` with
 * `this` bound and a FormDataExtended-like `{object}`.
 */
export function applicationsApi(window) {
  class ApplicationV2 {
    static DEFAULT_OPTIONS = {};

    constructor(options = {}) {
      const chain = [];
      for (let c = this.constructor; c && c !== Object; c = Object.getPrototypeOf(c)) chain.unshift(c);
      this.options = Object.assign({}, ...chain.map((c) => (Object.hasOwn(c, "DEFAULT_OPTIONS") ? c.DEFAULT_OPTIONS : {})), options);
      this.element = null;
    }

    async _prepareContext() {
      return {};
    }

    _onRender() {}

    async render() {
      const context = await this._prepareContext({});
      const tag = this.options.tag ?? "div";
      this.element = window.document.createElement(tag);
      this.element.innerHTML = await this._renderHTML(context);
      this._onRender(context, {});
      return this;
    }

    async submit(object) {
      return this.options.form.handler.call(this, new window.Event("submit"), this.element, { object });
    }
  }
  const HandlebarsApplicationMixin = (Base) =>
    class extends Base {
      async _renderHTML(context) {
        const parts = Object.values(this.constructor.PARTS ?? {});
        const html = await Promise.all(parts.map((p) => renderTemplate(p.template, context)));
        return html.join("");
      }
    };
  return { ApplicationV2, HandlebarsApplicationMixin };
}

/** foundry.data: the region behaviour base type and the fields its schema uses. */
export function dataApi() {
  class Field {
    constructor(options = {}) {
      this.options = options;
      this.initial = options.initial;
    }
  }
  class StringField extends Field {}
  class BooleanField extends Field {}
  class NumberField extends Field {}
  class RegionBehaviorType {
    static defineSchema() {
      return {};
    }
  }
  return { regionBehaviors: { RegionBehaviorType }, fields: { StringField, BooleanField, NumberField } };
}
