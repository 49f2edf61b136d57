// @ts-check
// Small DOM helpers. Text goes into the page only as text nodes: `el` turns every string
// child into a text node and never sets innerHTML, so a log full of <script> stays text.

/**
 * An element with attributes and children (strings become text nodes, null is skipped).
 * Attribute names starting with "on" take a listener; `class`, `data-*`, `aria-*` are set.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...any} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (name === "open" || name === "hidden" || name === "disabled") {
      /** @type {any} */ (node)[name] = Boolean(value);
    } else {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(node, children);
  return node;
}

/** @param {Node} node @param {any[]} children */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** @template {Node} T @param {T} node @returns {T} */
export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** A time as lists show it: "now", "5m", "2h", "yesterday", "3d" or the date. @param {string} at */
export function relative(at) {
  if (!at) return "";
  const then = new Date(at);
  const seconds = (Date.now() - then.getTime()) / 1000;
  if (seconds < 60) return "now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`;
  if (seconds < 2 * 86400) return "yesterday";
  if (seconds < 30 * 86400) return `${Math.floor(seconds / 86400)}d`;
  return localDate(then);
}

const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");

/** A date as YYYY-MM-DD in the person's own time zone (the log's stamps are UTC). @param {Date} when */
function localDate(when) {
  return `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}`;
}

/** The local time of day, HH:MM:SS, as the transcript shows it beside each event. @param {string} at */
export function clock(at) {
  if (!at) return "";
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) return "";
  return `${pad(when.getHours())}:${pad(when.getMinutes())}:${pad(when.getSeconds())}`;
}

/** The exact local time, for hover titles. @param {string} at */
export function exact(at) {
  return at ? new Date(at).toLocaleString() : "";
}

/** A <time> showing a relative time with the exact one on hover. @param {string} at */
export function timeEl(at) {
  return el("time", { datetime: at, title: exact(at) }, relative(at));
}

/** @param {number|null|undefined} ms */
export function duration(ms) {
  if (ms === null || ms === undefined) return "";
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** @param {number|null|undefined} usd */
export function cost(usd) {
  if (usd === null || usd === undefined) return "";
  if (usd === 0) return "$0.00"; // a free or local model: nothing, not a little
  return usd < 0.01 ? "<$0.01" : `$${usd.toFixed(2)}`;
}

/** What a task with no project folder is shown under (the sidebar, results, the header). */
export const NO_FOLDER = "No folder";

/** The last part of a path, and the part before it. @param {string} path */
export function pathParts(path) {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return { name: parts.at(-1) || path, parent: parts.at(-2) || "" };
}

/**
 * Each project folder's short name: its last part, or "parent/name" where two folders of
 * the same name would be told apart only so (the sidebar's headings and result headings).
 * @param {string[]} projects
 * @returns {Record<string, string>}
 */
export function folderLabels(projects) {
  /** @type {Record<string, Set<string>>} */
  const named = {};
  for (const project of projects) {
    const { name } = pathParts(project);
    (named[name] ||= new Set()).add(project);
  }
  /** @type {Record<string, string>} */
  const labels = {};
  for (const project of projects) {
    const { name, parent } = pathParts(project);
    labels[project] = named[name].size > 1 && parent ? `${parent}/${name}` : name;
  }
  if ("" in labels) labels[""] = NO_FOLDER; // a task whose log names none (issue 37)
  return labels;
}

/** Text with terminal escapes (colours, cursor moves) taken out, for one-line summaries. @param {string} text */
export function plainText(text) {
  return String(text).replace(/\x1b(?:\[[0-9;?]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])/g, "");
}

/** A message with Retry, for a failed read. @param {string} message @param {() => void} retry */
export function failure(message, retry) {
  return el("div", { class: "failure", role: "alert", "data-failure": "" },
    el("p", {}, message),
    el("button", { type: "button", onclick: retry }, "Retry"));
}

/** A failed change, said in `where` with Retry; it stays until dismissed or retried.
 * @param {HTMLElement} where @returns {(message: string, retry: () => void) => void} */
export function noticeIn(where) {
  return (message, retry) => {
    const box = el("div", { class: "notice", role: "alert", "data-notice": "" }, message,
      el("button", { type: "button", onclick: () => {
        box.remove();
        retry();
      } }, "Retry"),
      el("button", { type: "button", class: "icon", "aria-label": "Dismiss", onclick: () => box.remove() }, "×"));
    where.append(box);
  };
}
