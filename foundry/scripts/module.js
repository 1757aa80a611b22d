/**
 * The module itself: settings, scene sync, chat cards, buttons, hooks.
 *
 * Every Foundry global it uses is passed in (`deps`), so tests run it on a mocked Foundry.
 * main.js builds it from the real globals.
 */

import { SightlineClient } from "./client.js";
import { askAttack, askVision, cardData, postCard, visionData } from "./card.js";
import { MODULE_ID, TEMPLATES } from "./constants.js";
import { Notifier } from "./notify.js";
import { SETTINGS, readSettings, registerSettings, rulesMenuClass } from "./settings.js";
import { registerBehavior } from "./behavior.js";
import { SceneSync } from "./sync.js";

/** Milliseconds to wait after the last target change before asking (several clicks: one card). */
export const TARGETING_DEBOUNCE_MS = 150;

/** Whether a chat message is an attack roll of a system the module knows (dnd5e, pf2e). */
export function isAttackRoll(message) {
  const flags = message?.flags ?? {};
  if (flags.dnd5e?.roll?.type === "attack") return true;
  const pf2e = flags.pf2e?.context?.type;
  return pf2e === "attack-roll" || pf2e === "spell-attack-roll";
}

export class SightlineModule {
  /**
   * @param {object} deps
   * @param {object} deps.game
   * @param {Function} deps.canvas          returns the current `canvas`
   * @param {object} deps.Hooks
   * @param {Function} deps.ChatMessage
   * @param {object} deps.ui
   * @param {object} deps.foundry
   * @param {object} [deps.CONFIG]
   * @param {Function} deps.renderTemplate  `(path, data) => Promise<string>`
   * @param {Function} deps.loadRules       `() => Promise<{ruleId: summary}>`
   * @param {Function} [deps.fetch]
   * @param {number} [deps.debounceMs]      scene sync debounce
   * @param {Function} [deps.log]           error details besides the notification (console)
   */
  constructor(deps) {
    this.deps = deps;
    this.notifier = new Notifier({ ui: deps.ui, i18n: deps.game.i18n, log: deps.log });
    this.summaries = {};
    this.client = null;
    this.sync = null;
    this.targetTimer = null;
  }

  /** `init` hook: settings, the rules menu and the region behaviour type. */
  init() {
    const { game, foundry, CONFIG } = this.deps;
    registerBehavior(foundry, CONFIG);
    const menu = foundry?.applications?.api?.ApplicationV2
      ? rulesMenuClass({ foundry, client: () => this.makeClient(), game, notifier: this.notifier })
      : null;
    registerSettings({ settings: game.settings, systemId: game.system?.id, menu, onChange: (key) => this.settingChanged(key) });
  }

  /** `ready` hook: client, scene sync and the hooks that ask the service. */
  async ready() {
    const { Hooks } = this.deps;
    this.client = this.makeClient();
    this.sync = new SceneSync({
      live: () => this.live(),
      client: this.client,
      hooks: Hooks,
      onError: (err) => this.notifier.error(err),
      debounceMs: this.deps.debounceMs,
    }).start();
    Hooks.on("targetToken", (user, token, targeted) => this.targeted(user, token, targeted));
    Hooks.on("createChatMessage", (message) => this.chatMessage(message));
    const generation = this.deps.game.release?.generation ?? 12;
    const renderHook = generation >= 13 ? "renderChatMessageHTML" : "renderChatMessage";
    Hooks.on(renderHook, (message, html) => this.bindCard(html?.[0] ?? html));
    Hooks.on("getSceneControlButtons", (controls) => this.addControls(controls));
    try {
      this.summaries = await this.deps.loadRules();
    } catch (err) {
      this.notifier.error(err);
    }
    if (this.live()?.scene) this.sync.changed();
  }

  makeClient() {
    const s = readSettings(this.deps.game.settings);
    return new SightlineClient({ url: s.url, apiKey: s.apiKey, fetch: this.deps.fetch ?? globalThis.fetch?.bind(globalThis) });
  }

  settingChanged(key) {
    if (!this.sync) return;
    if (key === SETTINGS.url || key === SETTINGS.apiKey) {
      this.client = this.makeClient();
      this.sync.client = this.client;
      this.sync.sceneId = null;
      this.notifier.clear();
      this.sync.changed();
    }
  }

  /** What scene.js reads from the canvas, or null before a scene is drawn. */
  live() {
    const canvas = this.deps.canvas();
    if (!canvas?.scene) return null;
    return { scene: canvas.scene, grid: canvas.grid, dimensions: canvas.dimensions };
  }

  get settings() {
    return readSettings(this.deps.game.settings);
  }

  // ------------------------------------------------------------------------ triggers

  targeted(user, _token, _targeted) {
    if (user?.id !== this.deps.game.user.id || this.settings.askWhen !== "targeting") return;
    clearTimeout(this.targetTimer);
    this.targetTimer = setTimeout(() => {
      this.targetTimer = null;
      this.askCover({ update: true, quiet: true });
    }, TARGETING_DEBOUNCE_MS);
  }

  chatMessage(message) {
    const me = this.deps.game.user.id;
    const author = message?.author?.id ?? message?.user?.id ?? message?.author ?? message?.user;
    if (author !== me || this.settings.askWhen !== "attack" || !isAttackRoll(message)) return null;
    return this.askCover({ update: false, speakerToken: message.speaker?.token });
  }

  // ------------------------------------------------------------------------ cards

  /** The token that attacks or observes: the controlled one, else the message's speaker. */
  actingToken(speakerToken = null) {
    const canvas = this.deps.canvas();
    const controlled = canvas?.tokens?.controlled ?? [];
    if (controlled.length) return controlled[0];
    return speakerToken ? canvas?.tokens?.get?.(speakerToken) ?? null : null;
  }

  /**
   * Post (or update) the cover card of the user's targets.
   *
   * @param {object} [opts]
   * @param {boolean} [opts.update] update the user's last card for this attacker
   * @param {boolean} [opts.quiet]  no notification for a missing attacker or target
   * @param {string} [opts.speakerToken] token id of an attack message's speaker
   * @returns {Promise<object|null>} the chat message, or null
   */
  async askCover({ update = false, quiet = false, speakerToken = null } = {}) {
    const { game, ChatMessage, renderTemplate } = this.deps;
    const attacker = this.actingToken(speakerToken);
    if (!attacker) {
      if (!quiet) this.notifier.warn("SIGHTLINE.Error.noController");
      return null;
    }
    const targets = [...(game.user.targets ?? [])].filter((t) => t.id !== attacker.id);
    if (!targets.length) {
      if (!quiet) this.notifier.warn("SIGHTLINE.Error.noTargets");
      return null;
    }
    const s = this.settings;
    try {
      const answers = await askAttack(
        { sync: this.sync, client: this.client },
        { ruleset: s.ruleset, options: s.options, attacker: attacker.id, targets: targets.map((t) => t.id), pictures: s.pictures },
      );
      this.notifier.clear();
      const names = Object.fromEntries(targets.map((t) => [t.id, t.name]));
      const data = cardData({
        i18n: game.i18n,
        ruleset: s.ruleset,
        attacker: { id: attacker.id, name: attacker.name },
        names,
        ...answers,
        summaries: this.summaries,
      });
      const content = await renderTemplate(TEMPLATES.card, data);
      return await postCard(
        { ChatMessage, messages: game.messages, user: game.user },
        {
          content,
          update,
          speaker: ChatMessage.getSpeaker?.({ token: attacker.document ?? attacker }) ?? {},
          flags: { card: "attack", attacker: attacker.id, targets: targets.map((t) => t.id), ruleset: s.ruleset },
        },
      );
    } catch (err) {
      this.notifier.error(err);
      return null;
    }
  }

  /**
   * Whisper to the user what `observerId` (default: the controlled token) can see: every
   * other token for a GM, the tokens the user's canvas shows for a player.
   */
  async askVision(observerId = null) {
    const { game, ChatMessage, renderTemplate } = this.deps;
    const canvas = this.deps.canvas();
    const observer = observerId ? canvas?.tokens?.get?.(observerId) : this.actingToken();
    if (!observer) {
      this.notifier.warn("SIGHTLINE.Error.noController");
      return null;
    }
    const others = (canvas.tokens.placeables ?? []).filter(
      (t) => t.id !== observer.id && (game.user.isGM || t.visible !== false),
    );
    const s = this.settings;
    try {
      const vision = others.length
        ? await askVision({ sync: this.sync, client: this.client }, { ruleset: s.ruleset, options: s.options, observer: observer.id, targets: others.map((t) => t.id) })
        : { results: [] };
      this.notifier.clear();
      const data = visionData({
        i18n: game.i18n,
        ruleset: s.ruleset,
        observer: { id: observer.id, name: observer.name },
        names: Object.fromEntries(others.map((t) => [t.id, t.name])),
        vision,
        summaries: this.summaries,
      });
      const content = await renderTemplate(TEMPLATES.vision, data);
      return await postCard(
        { ChatMessage, messages: game.messages, user: game.user },
        { content, whisper: [game.user.id], flags: { card: "vision", attacker: observer.id, ruleset: s.ruleset } },
      );
    } catch (err) {
      this.notifier.error(err);
      return null;
    }
  }

  /** The "vision" button of a rendered card. */
  bindCard(element) {
    if (!element?.querySelectorAll) return;
    for (const button of element.querySelectorAll("[data-action=sightline-vision]")) {
      button.addEventListener("click", (event) => {
        event.preventDefault();
        this.askVision(button.dataset.token || null);
      });
    }
  }

  /** Two buttons in the token controls: cover of my targets, what my token can see. */
  addControls(controls) {
    const { game } = this.deps;
    const tools = [
      { name: `${MODULE_ID}-cover`, title: "SIGHTLINE.Controls.Cover", icon: "fa-solid fa-shield-halved", run: () => this.askCover() },
      { name: `${MODULE_ID}-vision`, title: "SIGHTLINE.Controls.Vision", icon: "fa-solid fa-eye", run: () => this.askVision() },
    ];
    if (Array.isArray(controls)) {
      // v12: an array of controls, each with an array of tools and onClick.
      const token = controls.find((c) => c.name === "token");
      for (const tool of tools) {
        token?.tools.push({ name: tool.name, title: game.i18n.localize(tool.title), icon: tool.icon, button: true, onClick: tool.run });
      }
      return;
    }
    // v13: a record of controls, each with a record of tools and onChange.
    const token = controls?.tokens;
    if (!token?.tools) return;
    for (const tool of tools) {
      token.tools[tool.name] = {
        name: tool.name,
        title: tool.title,
        icon: tool.icon,
        order: Object.keys(token.tools).length,
        button: true,
        onChange: () => tool.run(),
      };
    }
  }
}
