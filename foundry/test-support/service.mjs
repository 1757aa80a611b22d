/**
 * A real Sightline service for the tests: gunicorn from the project's .venv on 127.0.0.1.
 *
 * `startService(env)` picks a free port, starts `gunicorn -c gunicorn.conf.py
 * 'service.app:create_app()'` from the repository root with the given SIGHTLINE_* settings,
 * waits for `/healthz`, and returns `{url, stop()}`; or `{skip: reason}` when the venv is not
 * installed (`make install`).
 */

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { REPO_DIR } from "./foundry.mjs";

/** The venv whose gunicorn serves the tests: SIGHTLINE_VENV, else the checkout's `.venv`. */
export const VENV = process.env.SIGHTLINE_VENV ?? join(REPO_DIR, ".venv");
export const GUNICORN = join(VENV, "bin", "gunicorn");

/** Why the service cannot be started here, or null. */
export function serviceMissing() {
  return existsSync(GUNICORN) ? null : `no ${GUNICORN}: run 'make install' first`;
}

/** A TCP port nobody listens on right now. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * Start gunicorn; resolves once `/healthz` answers.
 *
 * @param {object} env  extra environment (SIGHTLINE_API_KEYS, SIGHTLINE_WORKERS, ...)
 */
export async function startService(env = {}) {
  const missing = serviceMissing();
  if (missing) return { skip: missing };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    GUNICORN,
    ["-c", "gunicorn.conf.py", "--bind", `127.0.0.1:${port}`, "service.app:create_app()"],
    {
      cwd: REPO_DIR,
      env: { ...process.env, SIGHTLINE_WORKERS: "1", SIGHTLINE_PRELOAD_SAMPLE: "0", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise((resolveExit) => child.once("exit", resolveExit));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gunicorn exited (${child.exitCode}): ${stderr}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  if (Date.now() >= deadline) {
    child.kill("SIGTERM");
    throw new Error(`gunicorn did not answer /healthz within 60 s: ${stderr}`);
  }
  return {
    url,
    port,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

/** POST JSON to the service; resolves to the parsed answer or throws with the error body. */
export async function postJson(url, path, body, { apiKey = "" } = {}) {
  const headers = { "Content-Type": "application/json" };
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  const response = await fetch(`${url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path} ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** A promise that resolves after `ms` milliseconds. */
export const settle = (ms) => new Promise((r) => setTimeout(r, ms));

/** Wait until `check()` is true, polling every 25 ms; fail naming `what` after `ms`. */
export async function until(check, what, ms = 8000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await settle(25);
  }
}
