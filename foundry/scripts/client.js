/**
 * HTTP client of the Sightline service (shared/API.md, contract v1).
 *
 * `fetch` with the API key, JSON in and out, and one error type whose `kind` says what the
 * user should be told: the service could not be reached, the key was refused (401), the
 * scene is too large (413), the service no longer knows a `scene_id` (404 at
 * `errors.json.scene_id`, answered by sending the scene again), no GM connected to ask
 * through (relay.js), or anything else.
 */

/** Kinds of failure, each with its own notification (lang/en.json SIGHTLINE.Error.*). */
export const ERROR_KINDS = ["unreachable", "unauthorized", "tooLarge", "sceneUnknown", "notFound", "invalid", "server", "noGm"];

/** Raised for every failed request; `kind` is one of ERROR_KINDS. */
export class SightlineError extends Error {
  /**
   * @param {string} kind     one of ERROR_KINDS
   * @param {object} details  `{code, status, message, errors, url}` (JSON error body fields)
   */
  constructor(kind, { code = null, status = "", message = "", errors = {}, url = "" } = {}) {
    super(message || kind);
    this.name = "SightlineError";
    this.kind = kind;
    this.code = code;
    this.status = status;
    this.errors = errors;
    this.url = url;
  }
}

/** Kind of an HTTP failure from its status code and JSON error body. */
export function errorKind(code, body) {
  if (code === 401) return "unauthorized";
  if (code === 413) return "tooLarge";
  if (code === 404) return body?.errors?.json?.scene_id ? "sceneUnknown" : "notFound";
  if (code === 400 || code === 415 || code === 422) return "invalid";
  return "server";
}

export class SightlineClient {
  /**
   * @param {object} options
   * @param {string} options.url       service base URL, e.g. `http://127.0.0.1:8000`
   * @param {string} [options.apiKey]  sent as `Authorization: Bearer <key>` when not empty
   * @param {Function} [options.fetch] the fetch function (tests pass their own)
   */
  constructor({ url, apiKey = "", fetch: fetchImpl = globalThis.fetch }) {
    this.url = String(url ?? "").replace(/\/+$/, "");
    this.apiKey = apiKey ?? "";
    this.fetch = fetchImpl;
  }

  /**
   * One request.
   *
   * @param {string} method
   * @param {string} path     e.g. `/v1/cover`
   * @param {object} [body]   sent as JSON
   * @param {object} [opts]
   * @param {boolean} [opts.text]  return the body as text (SVG of /v1/render), not JSON
   * @returns {Promise<object|string>}
   * @throws {SightlineError}
   */
  async request(method, path, body = undefined, { text = false } = {}) {
    const url = `${this.url}${path}`;
    const headers = { Accept: text ? "image/svg+xml, application/json" : "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    let response;
    try {
      response = await this.fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new SightlineError("unreachable", { message: String(err?.message ?? err), url: this.url });
    }
    if (!response.ok) {
      let payload = null;
      try {
        payload = await response.json();
      } catch {
        payload = null;
      }
      throw new SightlineError(errorKind(response.status, payload), {
        code: response.status,
        status: payload?.status ?? response.statusText ?? "",
        message: payload?.message ?? "",
        errors: payload?.errors ?? {},
        url: this.url,
      });
    }
    return text ? response.text() : response.json();
  }

  /** `GET /v1/rulesets` -> `{rulesets: [...]}`. */
  rulesets() {
    return this.request("GET", "/v1/rulesets");
  }

  /** `POST /v1/scenes` with a canonical scene -> `{scene_id, stats, warnings}`. */
  uploadScene(scene) {
    return this.request("POST", "/v1/scenes", { scene });
  }

  /**
   * `PATCH /v1/scenes/{scene_id}` with a change (patch.js) -> `{scene_id, parent, stats, warnings}`;
   * a 404 at `scene_id` (kind `sceneUnknown`) when the service no longer holds the parent.
   */
  patchScene(sceneId, change) {
    return this.request("PATCH", `/v1/scenes/${encodeURIComponent(sceneId)}`, change);
  }

  post(path, body) {
    return this.request("POST", path, body);
  }

  /** `POST /v1/render` -> the SVG text. */
  render(body) {
    return this.request("POST", "/v1/render", body, { text: true });
  }
}
