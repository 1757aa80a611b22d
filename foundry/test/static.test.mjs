/**
 * The module's files: module.json for v12 to v14, every visible string in lang/en.json, the
 * rule summaries cover every rule id of shared/RULES.md.
 */

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { EN, FOUNDRY_DIR, REPO_DIR, SHARED_DIR } from "../test-support/foundry.mjs";

const read = (p) => readFileSync(join(FOUNDRY_DIR, p), "utf8");
const manifest = JSON.parse(read("module.json"));

test("module.json: id, v12 to v14 (verified on v14 scenes: test/parity.test.mjs), esmodules, styles and languages that exist", () => {
  assert.equal(manifest.id, "sightline");
  assert.equal(manifest.compatibility.minimum, "12");
  assert.equal(manifest.compatibility.verified, "14");
  for (const path of [...manifest.esmodules, ...manifest.styles, ...manifest.languages.map((l) => l.path)]) {
    assert.ok(existsSync(join(FOUNDRY_DIR, path)), path);
  }
  assert.deepEqual(manifest.languages.map((l) => l.lang), ["en"]);
  for (const key of ["manifest", "download", "url"]) assert.match(manifest[key], /^https:\/\//, key);
  assert.deepEqual(Object.keys(manifest.documentTypes.RegionBehavior), ["environment"]);
  assert.equal(manifest.socket, true, "players ask through the GM over module.sightline");
  assert.equal(manifest.license, "LICENSE");
});

test("the release workflow: URLs from the repository, a zip with the LICENSE and every file the module loads", () => {
  const workflow = readFileSync(join(REPO_DIR, ".github", "workflows", "release.yml"), "utf8");
  assert.ok(existsSync(join(REPO_DIR, "LICENSE")), "the project's LICENSE");
  assert.match(readFileSync(join(REPO_DIR, "LICENSE"), "utf8"), /^MIT License/, "pyproject.toml: license = \"MIT\"");
  assert.match(workflow, /REPOSITORY_URL: \$\{\{ github\.server_url \}\}\/\$\{\{ github\.repository \}\}/);
  for (const key of ["version", "url", "manifest", "download", "bugs"]) assert.match(workflow, new RegExp(`\\.${key} = `), key);
  assert.match(workflow, /\.manifest = \(\$repo \+ "\/releases\/latest\/download\/module\.json"\)/);
  assert.match(workflow, /cp LICENSE foundry\/LICENSE/);
  const zipped = workflow.match(/zip -r \.\.\/sightline\.zip (.*)/)[1].split(/\s+/);
  const loaded = [...manifest.esmodules, ...manifest.styles, ...manifest.languages.map((l) => l.path), "templates/chat-card.hbs", "data/rules.json", manifest.license, "module.json"];
  for (const path of loaded) assert.ok(zipped.includes(path.split("/")[0]), `${path} is in the zip`);
  // the committed manifest names the repository by a placeholder the workflow replaces
  for (const key of ["url", "manifest", "download", "bugs"]) assert.ok(manifest[key].startsWith("https://github.com/SIGHTLINE_REPOSITORY"), key);
});

function lookup(key) {
  return key.split(".").reduce((node, part) => (node && typeof node === "object" ? node[part] : undefined), EN);
}

test("every SIGHTLINE.* key the scripts and templates name is in lang/en.json", () => {
  const files = [
    ...readdirSync(join(FOUNDRY_DIR, "scripts")).map((f) => join("scripts", f)),
    ...readdirSync(join(FOUNDRY_DIR, "templates")).map((f) => join("templates", f)),
  ];
  let count = 0;
  for (const file of files) {
    for (const [, key] of read(file).matchAll(/"(SIGHTLINE\.[A-Za-z0-9.-]+)"/g)) {
      if (key.endsWith(".")) continue; // a prefix completed at run time
      // A LOCALIZATION_PREFIXES entry names a branch holding its data model's FIELDS.
      const value = lookup(key);
      assert.ok(typeof value === "string" || typeof value?.FIELDS === "object", `${file}: ${key}`);
      count += 1;
    }
  }
  assert.ok(count > 40, `${count} keys checked`);
  for (const [, key] of read("templates/chat-card.hbs").matchAll(/localize "([^"]+)"/g)) assert.equal(typeof lookup(key), "string", key);
});

test("templates show no English outside lang/en.json", () => {
  for (const file of readdirSync(join(FOUNDRY_DIR, "templates"))) {
    const text = read(join("templates", file))
      .replace(/{{[^}]*}}/g, "")
      .replace(/<[^>]*>/g, "");
    assert.equal(text.replace(/[\s·]+/g, ""), "", `${file} has literal text`);
  }
});

test("a one-line summary for every rule id of RULES.md", (t) => {
  const rulesMd = join(SHARED_DIR, "RULES.md");
  if (!existsSync(rulesMd)) return t.skip(`no ${rulesMd}`);
  const summaries = JSON.parse(read("data/rules.json"));
  const ids = [...readFileSync(rulesMd, "utf8").matchAll(/^- ([A-Z0-9]+-(?:[A-Z]+-)?[0-9]+[a-z]?) /gm)].map((m) => m[1]);
  assert.ok(ids.length > 80, `${ids.length} rule ids`);
  for (const id of ids) {
    assert.equal(typeof summaries[id], "string", id);
    assert.ok(summaries[id].length <= 110 && !summaries[id].includes("\n"), `${id}: one line`);
  }
  assert.deepEqual(Object.keys(summaries).filter((id) => !ids.includes(id)), []);
});

test("data/bounds.json is current with service/model.py, adapters/foundry and the rulesets' cover tables (foundry/tools/bounds.py)", async (t) => {
  const { VENV } = await import("../test-support/service.mjs");
  const python = join(VENV, "bin", "python");
  if (!existsSync(python)) return t.skip(`no ${python}: run 'make install' first`);
  const { spawnSync } = await import("node:child_process");
  const run = spawnSync(python, ["foundry/tools/bounds.py", "--check"], { cwd: REPO_DIR, env: { ...process.env, PYTHONPATH: REPO_DIR }, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const data = JSON.parse(read("data/bounds.json"));
  assert.equal(data.model.MIN_GRID_DISTANCE, 0.001, "service.model: grid.distance >= 0.001");
  assert.equal(data.enums.doorTypes["2"], "secret");
});
