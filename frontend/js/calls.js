// @ts-check
// A tool call said in words, whatever agent made it: its tool and main argument on one line
// (a command, a file, a query: Claude Code's `command`, Codex's `cmd`, Antigravity's
// `CommandLine` or `AbsolutePath`), an edit or a patch as its files with their +/− counts and
// the diff one fold away, and its result under it with `<tool_use_error>` tags taken off.

import { diffEl } from "./diffs.js";
import { copyButton } from "./copy.js";
import { el } from "./dom.js";
import { fold, preText } from "./folds.js";

// the argument a person would name a call by, in the order it is looked for (keys compared
// without case or underscores: `file_path`, `filePath` and `FilePath` are one key)
const MAIN = ["command", "commandline", "cmd", "filepath", "absolutepath", "targetfile", "path", "directorypath",
  "dirpath", "pattern", "query", "url", "sql", "description", "prompt", "intent", "thought", "name", "toolname", "title"];
const ASIDE = /^tool(action|summary)$/i; // Antigravity's own words about the call: a fallback

/** @param {string} key */
const bare = (key) => key.toLowerCase().replace(/[_-]/g, "");

/** A call's input on one line, as a person would name it. @param {any} input */
export function callLine(input) {
  if (input === null || input === undefined) return "";
  if (typeof input !== "object") return patchFiles(String(input)) || String(input);
  const keys = new Map(Object.keys(input).map((key) => [bare(key), key]));
  for (const name of MAIN) {
    const value = input[keys.get(name) || ""];
    if (typeof value === "string" && value.trim()) return unquoted(value);
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(" ");
  }
  const asked = Array.isArray(input.questions) ? input.questions[0] : null;
  if (asked) return typeof asked === "string" ? asked : String(asked.question || asked.text || asked.header || "");
  const summary = Object.keys(input).find((key) => ASIDE.test(key) && typeof input[key] === "string");
  if (summary) return input[summary];
  // else its plain fields as "name: value", never the raw JSON
  return Object.entries(input).filter(([, v]) => v !== null && typeof v !== "object")
    .map(([k, v]) => `${k}: ${String(v)}`).join(" · ").slice(0, 200);
}

/** A value its agent wrote as a JSON string ("\"C:\\\\a.md\""), as its text. @param {string} value */
function unquoted(value) {
  if (!/^".*"$/s.test(value)) return value;
  try {
    const text = JSON.parse(value);
    return typeof text === "string" ? text : value;
  } catch {
    return value;
  }
}

/** The files a patch text names ("*** Update File: a.go"), joined; "" when it names none. @param {string} text */
function patchFiles(text) {
  if (!text.startsWith("*** Begin Patch")) return "";
  return [...text.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)].map((m) => m[1].trim()).join(", ");
}

/** The file's last parts, enough to tell it: "app/page.tsx". @param {string} path */
function shortPath(path) {
  const parts = path.split(" → ").pop()?.split(/[\\/]/).filter(Boolean) || [path];
  return parts.slice(-2).join("/");
}

/** An edit's files with their counts: "page.tsx +3 −1, layout.tsx +1 −0". @param {any} diff */
function diffLine(diff) {
  const files = diff.files.map((/** @type {any} */ f) =>
    el("span", { class: "diff-file-name", title: f.path }, shortPath(f.path), " ",
      el("span", { class: "diff-added" }, `+${f.added}`), " ", el("span", { class: "diff-removed" }, `−${f.removed}`)));
  const shown = files.slice(0, 3).flatMap((/** @type {HTMLElement} */ f, /** @type {number} */ i) => (i ? [", ", f] : [f]));
  return el("span", { class: "call-files" }, shown, files.length > 3 ? ` and ${files.length - 3} more` : "");
}

/** `<tool_use_error>…</tool_use_error>` as the error's own text. @param {string} text */
export function errorText(text) {
  return String(text || "").replace(/<\/?tool_use_error>/g, "").trim();
}

/**
 * A call as a fold: the line in words (with a copy button for the command, path or query),
 * the diff (or the input) inside. `parallel` is how many calls its reply made at once.
 * @param {any} c @param {Set<string>} opened @param {number} [parallel]
 * @returns {{node: HTMLElement, body: HTMLElement, summary: HTMLElement}}
 */
export function callEl(c, opened, parallel = 1) {
  const line = c.diff ? c.diff.files.map((/** @type {any} */ f) => f.path.split(" → ").pop()).join("\n") : callLine(c.input);
  const said = c.diff ? diffLine(c.diff) : el("code", { class: "call-line", title: line.length > 80 ? line : null }, line);
  const summary = el("summary", {}, el("span", { class: "tool" }, c.tool), " ", said,
    line ? copyButton(c.diff ? "path" : "command", () => line) : null);
  const input = preText(typeof c.input === "string" ? c.input : JSON.stringify(c.input, null, 2));
  const body = c.diff
    ? el("div", { class: "call-body" }, diffEl(c.diff), fold(`input:${c.id}`, opened, "input as sent", input))
    : el("div", { class: "call-body" }, el("div", { class: "label" }, "input"), input);
  const key = `call:${c.id}`;
  const node = el("details", { class: "call", "data-call": c.id, "data-tool": c.tool, "data-fold": key, open: opened.has(key),
    "data-parallel": parallel > 1 ? parallel : null, title: parallel > 1 ? `made at once with ${parallel - 1} other call${parallel > 2 ? "s" : ""}` : null }, summary, body);
  node.addEventListener("toggle", () => (/** @type {HTMLDetailsElement} */ (node).open ? opened.add(key) : opened.delete(key)));
  return { node, body, summary };
}

/** A result under its call, or alone where its call is not shown. @param {any} ev */
export function resultEl(ev) {
  const exit = ev.exit !== undefined && ev.exit !== null ? `exit ${ev.exit}` : "";
  const status = ev.error ? ["error", exit].filter(Boolean).join(" · ") : exit;
  const tagged = /<\/?tool_use_error>/.test(ev.output || ""); // Claude Code's wrapping of a refused call
  const node = el("div", { class: `result${ev.error ? " error" : ""}`, "data-seq": ev.seq, "data-kind": "result" },
    el("div", { class: "label", title: `record #${ev.seq}` }, "result", status ? ` · ${status}` : ""),
    !String(ev.output || "").trim() ? el("p", { class: "no-output muted" }, "(no output)")
      : tagged ? preText(errorText(ev.output)) : preText(ev.output || "", ev.ansi));
  return { node, status };
}
