// The ruleset a world gets by default, from its game system (and dnd5e's rules version).
import assert from "node:assert/strict";
import { test } from "node:test";

import { rulesetForSystem } from "../scripts/constants.js";
import { dnd5eRulesVersion } from "../scripts/module.js";

test("each game system's default ruleset: the published rules where the service has them", () => {
  const cases = [
    ["dnd5e", null, "dnd5e"],
    ["dnd5e", "legacy", "dnd5e"],
    ["dnd5e", "modern", "dnd2024"],
    ["pf2e", null, "pf2e"],
    ["pf2e", "modern", "pf2e"],
    ["sfrpg", null, "starfinder"],
    ["swade", null, "dnd5e"],
  ];
  for (const [system, version, ruleset] of cases) {
    assert.equal(rulesetForSystem(system, version), ruleset, `${system} ${version}`);
  }
});

test("dnd5e's rules version is read from its world setting, null where it has none", () => {
  const game = (id, get) => ({ system: { id }, settings: { get } });
  assert.equal(dnd5eRulesVersion(game("dnd5e", () => "modern")), "modern");
  assert.equal(dnd5eRulesVersion(game("dnd5e", () => { throw new Error("not registered"); })), null);
  assert.equal(dnd5eRulesVersion(game("pf2e", () => "modern")), null);
});
