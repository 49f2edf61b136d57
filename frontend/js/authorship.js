// @ts-check
// Who wrote this? (issue 25): a box taking pasted code, or a file's path and a line, that lists
// the turns whose edits hold it as search results read (task, then the turn's head line, then
// the lines it holds, marked); and a file's blame: each line with the turn whose edit last put
// it there, "changed since" or "not from a session". Both in the URL (?view=who, &file=...).

import { api, pageUrl } from "./api.js";
import { clear, el, exact, timeEl } from "./dom.js";

/**
 * @param {{pane: HTMLElement, onOpen: (task: string, seq: number) => void,
 *   failure: (message: string, retry: () => void) => HTMLElement}} parts
 */
export function createAuthorship({ pane, onOpen, failure }) {
  let asking = 0;

  /** A link to a turn that opens in this page. @param {string} task @param {number} seq @param {any[]} children */
  const turnLink = (task, seq, ...children) => el("a", { href: pageUrl({ task, seq }), "data-who-turn": `${task}:${seq}`,
    onclick: (/** @type {MouseEvent} */ event) => { event.preventDefault(); onOpen(task, seq); } }, ...children);

  /** @param {any} o */
  const originHead = (o) => el("div", { class: "result-turn-head", title: exact(o.at) },
    `turn ${o.turn} · ${o.agent}${o.model ? ` · ${o.model}` : ""} · ${o.tool} · asked “${o.asked}” · `, timeEl(o.at));

  function show() {
    const params = new URLSearchParams(location.search);
    const file = params.get("file") || "";
    if (file) blameOf(file);
    else box(params.get("code") || "");
  }

  /** The box: pasted code, or a path and a line. @param {string} code */
  function box(code) {
    asking++;
    const area = /** @type {HTMLTextAreaElement} */ (el("textarea", { class: "who-code mono", "data-who-code": "", rows: "8",
      "aria-label": "Pasted code", placeholder: "Paste some code…", spellcheck: "false" }));
    area.value = code;
    const path = /** @type {HTMLInputElement} */ (el("input", { "data-who-file": "", "aria-label": "File path", placeholder: "or a file's path on this computer", spellcheck: "false" }));
    const line = /** @type {HTMLInputElement} */ (el("input", { "data-who-line": "", "aria-label": "Line", type: "number", min: "1", value: "1" }));
    const out = el("div", { class: "results", "data-who-results": "" });
    const form = el("form", { class: "who-form", "data-who-form": "", role: "search" },
      area, el("div", { class: "who-where" }, path, line, el("button", { type: "submit" }, "Who wrote this?")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      ask(out, path.value.trim() ? { file: path.value.trim(), line: Number(line.value) || 1 } : { code: area.value });
    });
    clear(pane).append(el("h2", { class: "pane-title" }, "Who wrote this?"),
      el("p", { class: "muted" }, "The turns whose edits hold the code: from every agent's logs, no hook needed."), form, out);
    area.focus();
    if (code.trim()) ask(out, { code });
  }

  /** @param {HTMLElement} out @param {{code?: string, file?: string, line?: number}} asked */
  async function ask(out, asked) {
    const mine = ++asking;
    clear(out).append(el("p", { class: "muted loading" }, "Looking…"));
    try {
      const found = await api.whoWrote(asked);
      if (mine !== asking) return;
      clear(out).append(...holdersEl(found));
    } catch (err) {
      if (mine === asking) clear(out).append(failure(`Could not look: ${err.message}`, () => ask(out, asked)));
    }
  }

  /** @param {any} found */
  function holdersEl(found) {
    if (!found.turns.length) return [el("p", { class: "empty muted", "data-empty": "who" }, "No session's edit holds this: it was written by hand, or by a session nodwyn has not imported.")];
    return found.turns.map((/** @type {any} */ held) => {
      const o = held.origin;
      const marks = new Set(held.lines);
      const shown = found.file
        ? [el("div", { class: "snippet mono" }, el("mark", {}, `${held.lines[0]}: ${found.lines[0]}`))]
        : found.lines.map((/** @type {string} */ text, /** @type {number} */ n) => marks.has(n)
          ? el("div", { class: "snippet mono", "data-who-marked": n }, el("mark", {}, text)) : null).filter(Boolean);
      return el("section", { class: "result-task", "data-who-hit": `${o.task}:${o.turn}` },
        el("h3", {}, el("span", {}, o.title || o.task), el("span", { class: "muted mono" }, ` ${held.path}`)),
        el("div", { class: "result-turn" }, turnLink(o.task, o.turn, originHead(o)), ...shown));
    });
  }

  /** A file's blame, a run of lines from one turn headed by that turn. @param {string} file */
  async function blameOf(file) {
    const mine = ++asking;
    clear(pane).append(el("p", { class: "muted loading" }, `Reading who wrote ${file}…`));
    try {
      const done = await api.blame(file);
      if (mine !== asking) return;
      clear(pane).append(el("h2", { class: "pane-title" }, "Who wrote ", el("span", { class: "mono" }, file)),
        el("p", { class: "muted" }, `${done.edits} edit(s) of this file in the logs`), blameTable(done));
    } catch (err) {
      if (mine === asking) clear(pane).append(failure(`Could not blame ${file}: ${err.message}`, () => blameOf(file)));
    }
  }

  /** @param {any} done */
  function blameTable(done) {
    let before = -2;
    const rows = done.lines.map((/** @type {any} */ line) => {
      const o = line.origin === null ? null : done.origins[line.origin];
      const first = line.origin !== before;
      before = line.origin;
      const who = !first ? "" : o ? turnLink(o.task, o.turn, `${o.agent} · turn ${o.turn} · “${o.asked}”`) : "not from a session";
      return el("tr", { "data-blame-line": line.line, "data-blame-status": line.status, title: o ? `${o.title} · ${exact(o.at)}` : "" },
        el("td", { class: "muted blame-who" }, who, line.status === "changed since" ? el("span", { class: "muted" }, " (changed since)") : null),
        el("td", { class: "muted mono" }, String(line.line)),
        el("td", { class: "mono blame-text" }, line.text));
    });
    return el("table", { class: "diff-lines blame", "data-blame": "" }, el("tbody", {}, rows));
  }

  return { show, cancel: () => { asking++; } };
}
