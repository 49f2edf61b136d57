// @ts-check
// The one module that calls fetch: it knows the API's URLs and carries the token (from the
// page's meta tag, put there by the server) in a header on every request.

const TOKEN = document.querySelector('meta[name="nodwyn-token"]')?.getAttribute("content") || "";

export class ApiError extends Error {
  /** @param {string} message @param {number} status */
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {Record<string, any>} [params]
 * @param {any} [body]
 * @param {AbortSignal} [signal]
 */
async function call(method, path, params, body, signal) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(key, String(value));
  }
  /** @type {RequestInit} */
  const init = { method, signal, headers: { "X-Nodwyn-Token": TOKEN }, cache: "no-store" };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, "Content-Type": "application/json" };
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError("nodwyn is not answering (was it closed?)", 0);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    throw new ApiError(`unreadable answer (HTTP ${response.status})`, response.status);
  }
  if (!response.ok || (data && data.ok === false)) {
    throw new ApiError(data?.error || `HTTP ${response.status}`, response.status);
  }
  return data;
}

/**
 * A file the API sends (an export): its bytes and the name it suggests.
 * @param {string} path @param {Record<string, any>} params
 * @returns {Promise<{blob: Blob, name: string}>}
 */
async function file(path, params) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(key, String(value));
  }
  let response;
  try {
    response = await fetch(url, { headers: { "X-Nodwyn-Token": TOKEN }, cache: "no-store" });
  } catch {
    throw new ApiError("nodwyn is not answering (was it closed?)", 0);
  }
  if (!response.ok) {
    const data = await response.json().catch(() => null);
    throw new ApiError(data?.error || `HTTP ${response.status}`, response.status);
  }
  const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
  return { blob: await response.blob(), name: named ? named[1] : "export" };
}

export const api = {
  tasks: () => call("GET", "/api/tasks"),
  /** @param {string} id */
  task: (id) => call("GET", `/api/tasks/${encodeURIComponent(id)}`),
  /** @param {string} id @param {string} title */
  rename: (id, title) => call("POST", `/api/tasks/${encodeURIComponent(id)}/title`, {}, { title }),
  /** @param {string} id @param {boolean} archived */
  archive: (id, archived) =>
    call("POST", `/api/tasks/${encodeURIComponent(id)}/archive`, {}, { archived }),
  /** @param {string} id */
  remove: (id) => call("DELETE", `/api/tasks/${encodeURIComponent(id)}`),
  /** @param {string} id @param {AbortSignal} [signal] */
  cards: (id, signal) => call("GET", `/api/tasks/${encodeURIComponent(id)}/cards`, {}, undefined, signal),
  /**
   * @param {string} id
   * @param {{seq?: number|null, before?: number, after?: number}} around
   * @param {AbortSignal} [signal]
   */
  context: (id, around, signal) =>
    call("GET", `/api/tasks/${encodeURIComponent(id)}/context`, around, undefined, signal),
  /** @param {{q: string, scope: string, task?: string}} query @param {AbortSignal} [signal] */
  search: (query, signal) => call("GET", "/api/search", query, undefined, signal),
  /** @param {number} since @param {number} wait seconds @param {AbortSignal} [signal] */
  changes: (since, wait, signal) => call("GET", "/api/changes", { since, wait }, undefined, signal),
  places: () => call("GET", "/api/places"),
  quota: () => call("GET", "/api/quota"),
  /** @param {string} agent the agent's key ("claude"; sent as `tool`) @param {string} path */
  importFolder: (agent, path) => call("POST", "/api/import", {}, { tool: agent, path }),
  settings: () => call("GET", "/api/settings"),
  /** @param {string} id @param {"md"|"html"} format @param {number|null} [turn] */
  exportFile: (id, format, turn) => file(`/api/tasks/${encodeURIComponent(id)}/export`, { format, turn }),
  /** @param {string} id */
  resume: (id) => call("GET", `/api/tasks/${encodeURIComponent(id)}/resume`),
  /** @param {string} id */
  terminal: (id) => call("POST", `/api/tasks/${encodeURIComponent(id)}/terminal`),
  /** @param {string} id */
  taskStars: (id) => call("GET", `/api/tasks/${encodeURIComponent(id)}/starred`),
  /** @param {string} id @param {number} turn @param {boolean} starred @param {string} note */
  star: (id, turn, starred, note) =>
    call("POST", `/api/tasks/${encodeURIComponent(id)}/turns/${turn}/star`, {}, { starred, note }),
  starred: () => call("GET", "/api/starred"),
  /** @param {{by: string, split?: string, since?: string, until?: string}} query */
  usage: (query, signal) => call("GET", "/api/usage", query, undefined, signal),
  /** @param {AbortSignal} [signal] the archive's activity: figures, heatmaps, top tasks */
  activity: (signal) => call("GET", "/api/activity", {}, undefined, signal),
  /** @param {{task?: string, project?: string, since?: string}} query */
  board: (query, signal) => call("GET", "/api/board", query, undefined, signal),
  /** @param {Record<string, any>} changes */
  saveSettings: (changes) => call("POST", "/api/settings", {}, changes),
  /** @param {{kind: string, model: string, url: string}} query */
  embeddingsCost: (query) => call("GET", "/api/embeddings/cost", query),
  connections: () => call("GET", "/api/mcp"),
  machines: () => call("GET", "/api/machines"),
  syncMachines: () => call("POST", "/api/machines/sync"),
  /** @param {string} folder */
  shareFolder: (folder) => call("POST", "/api/machines/share", {}, { folder }),
  /** @param {string} name */
  nameMachine: (name) => call("POST", "/api/machines/name", {}, { name }),
  /** @param {string} id */
  forgetMachine: (id) => call("POST", `/api/machines/${encodeURIComponent(id)}/forget`),
  /** @param {string} agent */
  connect: (agent) => call("POST", `/api/mcp/${encodeURIComponent(agent)}`),
  hooks: () => call("GET", "/api/hooks"),
  /** @param {string} agent @param {boolean} install */
  setHooks: (agent, install) => call("POST", `/api/hooks/${encodeURIComponent(agent)}`, {}, { install }),
  /** @param {string} file */
  blame: (file) => call("GET", "/api/blame", { file }),
  /** @param {{code?: string, file?: string, line?: number}} asked */
  whoWrote: (asked) => call("POST", "/api/who-wrote", {}, asked),
  /** @param {{tasks?: string[], project?: string, token?: string}} asked */
  summariesEstimate: (asked) => call("POST", "/api/summaries/estimate", {}, asked),
  /** @param {{tasks?: string[], project?: string, token: string}} asked */
  summariesRun: (asked) => call("POST", "/api/summaries/run", {}, asked),
  summariesProgress: () => call("GET", "/api/summaries/progress"),
  summariesCancel: () => call("POST", "/api/summaries/cancel"),
  sshMachines: () => call("GET", "/api/machines/ssh"),
  /** @param {string} host @param {string[]} folders AGENT=PATH @param {string} name */
  sshAdd: (host, folders, name) => call("POST", "/api/machines/ssh", {}, { host, folders, name }),
  /** @param {string} id a machine's id; "" pulls every one */
  sshPull: (id) => call("POST", "/api/machines/ssh/pull", {}, { id }),
};

/** The URL of the page with some state, keeping the token so a reload still works. */
export function pageUrl(/** @type {Record<string, any>} */ state) {
  const url = new URL(location.pathname, location.origin);
  url.searchParams.set("token", TOKEN);
  for (const [key, value] of Object.entries(state)) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(key, String(value));
  }
  return url.pathname + url.search;
}
