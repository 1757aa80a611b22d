/**
 * Module settings (world scope: the table shares one service and one ruleset).
 *
 * Shown in the settings list: service URL, API key (this browser only: `client` scope), when
 * to ask, pictures, who calls the service, the targeting marker (this browser), cover applied
 * or told, and each roll integration. The ruleset and
 * its options live behind a menu ("Ruleset and options") whose form is built from
 * `GET /v1/rulesets`, so the choices are the service's, not the module's.
 */

import { ASK_WHEN, MODULE_ID, TEMPLATES, rulesetForSystem } from "./constants.js";
import { optionFields, readOptions } from "./options.js";
import { INTEGRATIONS } from "./apply.js";

export const SETTINGS = {
  url: "serviceUrl",
  apiKey: "apiKey",
  askWhen: "askWhen",
  pictures: "pictures",
  ruleset: "ruleset",
  options: "rulesetOptions",
  connection: "connection",
  marker: "marker",
  applyCover: "applyCover",
};

/** Setting key of each roll integration (apply.js INTEGRATIONS). */
export const integrationKey = (id) => `integration-${id}`;

/** Who calls the service: the GM's client for everyone (default), or every client itself. */
export const CONNECTIONS = ["gm", "direct"];

/**
 * What is done with the cover: applied to the roll (default), applied once the GM confirms or
 * overrides it on the card (override.js), or only told.
 */
export const APPLY_COVER = ["roll", "confirm", "tell"];

/** Default service URL: `make run` on the GM's machine. */
export const DEFAULT_URL = "http://127.0.0.1:8000";

/**
 * Register every setting and the rules menu.
 *
 * @param {object} deps
 * @param {object} deps.settings   `game.settings`
 * @param {string} deps.systemId   `game.system.id`
 * @param {string|null} deps.rulesVersion  dnd5e's `rulesVersion` setting ("modern" → dnd2024)
 * @param {Function} [deps.menu]   the rules menu class (absent in tests without ApplicationV2)
 * @param {Function} [deps.onChange] called with the key of any setting that changes
 */
export function registerSettings({ settings, systemId, rulesVersion = null, menu = null, onChange = () => {} }) {
  const common = (key) => ({ scope: "world", onChange: () => onChange(key) });
  settings.register(MODULE_ID, SETTINGS.url, {
    ...common(SETTINGS.url),
    name: "SIGHTLINE.Settings.ServiceUrl.Name",
    hint: "SIGHTLINE.Settings.ServiceUrl.Hint",
    config: true,
    type: String,
    default: DEFAULT_URL,
  });
  settings.register(MODULE_ID, SETTINGS.apiKey, {
    ...common(SETTINGS.apiKey),
    scope: "client", // world settings reach every player's client; the key stays in this browser
    name: "SIGHTLINE.Settings.ApiKey.Name",
    hint: "SIGHTLINE.Settings.ApiKey.Hint",
    config: true,
    type: String,
    default: "",
  });
  settings.register(MODULE_ID, SETTINGS.askWhen, {
    ...common(SETTINGS.askWhen),
    name: "SIGHTLINE.Settings.AskWhen.Name",
    hint: "SIGHTLINE.Settings.AskWhen.Hint",
    config: true,
    type: String,
    choices: Object.fromEntries(ASK_WHEN.map((k) => [k, `SIGHTLINE.Settings.AskWhen.${k}`])),
    default: "attack",
  });
  settings.register(MODULE_ID, SETTINGS.connection, {
    ...common(SETTINGS.connection),
    name: "SIGHTLINE.Settings.Connection.Name",
    hint: "SIGHTLINE.Settings.Connection.Hint",
    config: true,
    type: String,
    choices: Object.fromEntries(CONNECTIONS.map((k) => [k, `SIGHTLINE.Settings.Connection.${k}`])),
    default: "gm",
  });
  settings.register(MODULE_ID, SETTINGS.marker, {
    ...common(SETTINGS.marker),
    scope: "client",
    name: "SIGHTLINE.Settings.Marker.Name",
    hint: "SIGHTLINE.Settings.Marker.Hint",
    config: true,
    type: Boolean,
    default: true,
  });
  settings.register(MODULE_ID, SETTINGS.applyCover, {
    ...common(SETTINGS.applyCover),
    name: "SIGHTLINE.Settings.ApplyCover.Name",
    hint: "SIGHTLINE.Settings.ApplyCover.Hint",
    config: true,
    type: String,
    choices: Object.fromEntries(APPLY_COVER.map((k) => [k, `SIGHTLINE.Settings.ApplyCover.${k}`])),
    default: "roll",
  });
  for (const id of INTEGRATIONS) {
    settings.register(MODULE_ID, integrationKey(id), {
      ...common(integrationKey(id)),
      name: `SIGHTLINE.Settings.Integration.${id}.Name`,
      hint: `SIGHTLINE.Settings.Integration.${id}.Hint`,
      config: true,
      type: Boolean,
      default: true,
    });
  }
  settings.register(MODULE_ID, SETTINGS.pictures, {
    ...common(SETTINGS.pictures),
    name: "SIGHTLINE.Settings.Pictures.Name",
    hint: "SIGHTLINE.Settings.Pictures.Hint",
    config: true,
    type: Boolean,
    default: true,
  });
  settings.register(MODULE_ID, SETTINGS.ruleset, {
    ...common(SETTINGS.ruleset),
    config: false,
    type: String,
    default: rulesetForSystem(systemId, rulesVersion),
  });
  settings.register(MODULE_ID, SETTINGS.options, {
    ...common(SETTINGS.options),
    config: false,
    type: Object,
    default: {},
  });
  if (menu) {
    settings.registerMenu(MODULE_ID, "rules", {
      name: "SIGHTLINE.Settings.Rules.Name",
      label: "SIGHTLINE.Settings.Rules.Label",
      hint: "SIGHTLINE.Settings.Rules.Hint",
      icon: "fa-solid fa-scale-balanced",
      type: menu,
      restricted: true,
    });
  }
}

/**
 * Current settings as one object: `{url, apiKey, askWhen, pictures, ruleset, options,
 * connection, marker, applyCover, integrations}` (`integrations`: id -> on).
 */
export function readSettings(settings) {
  const get = (key) => settings.get(MODULE_ID, key);
  const ruleset = get(SETTINGS.ruleset);
  return {
    url: get(SETTINGS.url),
    apiKey: get(SETTINGS.apiKey),
    askWhen: get(SETTINGS.askWhen),
    pictures: get(SETTINGS.pictures),
    ruleset,
    options: (get(SETTINGS.options) ?? {})[ruleset] ?? {},
    connection: get(SETTINGS.connection),
    marker: get(SETTINGS.marker),
    applyCover: get(SETTINGS.applyCover),
    integrations: Object.fromEntries(INTEGRATIONS.map((id) => [id, get(integrationKey(id)) !== false])),
  };
}

/**
 * The context of the rules form: the service's rulesets, the chosen one, its option fields.
 *
 * @param {object} listing  `GET /v1/rulesets` answer
 * @param {string} chosen   ruleset id shown
 * @param {object} saved    saved options of every ruleset (id -> name -> value)
 */
export function rulesContext(listing, chosen, saved) {
  const rulesets = listing.rulesets ?? [];
  const current = rulesets.find((r) => r.id === chosen) ?? rulesets[0];
  return {
    rulesets: rulesets.map((r) => ({ id: r.id, title: r.title || r.id, selected: r.id === current?.id })),
    fields: current ? optionFields(current, saved?.[current.id] ?? {}) : [],
    selected: current?.id ?? null,
  };
}

/**
 * The rules menu class (ApplicationV2, Foundry v12+). Built when Foundry's classes exist.
 *
 * @param {object} deps
 * @param {object} deps.foundry    the `foundry` namespace
 * @param {Function} deps.client   returns a SightlineClient for the current settings
 * @param {object} deps.game       `game`
 * @param {object} deps.notifier   Notifier
 */
export function rulesMenuClass({ foundry, client, game, notifier }) {
  const { ApplicationV2, HandlebarsApplicationMixin } = foundry.applications.api;
  return class SightlineRulesConfig extends HandlebarsApplicationMixin(ApplicationV2) {
    static DEFAULT_OPTIONS = {
      id: `${MODULE_ID}-rules`,
      tag: "form",
      window: { title: "SIGHTLINE.Rules.Title", contentClasses: ["standard-form"] },
      position: { width: 520 },
      form: { handler: SightlineRulesConfig.#submit, closeOnSubmit: true },
    };

    static PARTS = { form: { template: TEMPLATES.rules } };

    #listing = null;
    #chosen = null;

    async _prepareContext() {
      try {
        this.#listing ??= await client().rulesets();
      } catch (err) {
        return { error: game.i18n.format("SIGHTLINE.Rules.Unavailable", { message: notifier.error(err) }) };
      }
      this.#chosen ??= game.settings.get(MODULE_ID, SETTINGS.ruleset);
      return rulesContext(this.#listing, this.#chosen, game.settings.get(MODULE_ID, SETTINGS.options));
    }

    _onRender(context, options) {
      super._onRender?.(context, options);
      this.element.querySelector("select[name=ruleset]")?.addEventListener("change", (event) => {
        this.#chosen = event.target.value;
        this.render();
      });
    }

    /** @this {SightlineRulesConfig} (ApplicationV2 calls the form handler on the instance) */
    static async #submit(event, form, formData) {
      const data = foundry.utils.expandObject(formData.object);
      const ruleset = (this.#listing?.rulesets ?? []).find((r) => r.id === data.ruleset);
      if (!ruleset) return;
      const saved = foundry.utils.deepClone(game.settings.get(MODULE_ID, SETTINGS.options) ?? {});
      saved[ruleset.id] = readOptions(ruleset, data.options ?? {});
      await game.settings.set(MODULE_ID, SETTINGS.options, saved);
      await game.settings.set(MODULE_ID, SETTINGS.ruleset, ruleset.id);
      notifier.info("SIGHTLINE.Rules.Saved", { ruleset: ruleset.title || ruleset.id });
    }
  };
}
