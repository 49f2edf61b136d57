// @ts-check
// The History board (foundations: task memory): every turn's card of a task, or of its whole project folder over a
// chosen time, newest first: outcome, duration, cost, files written, commands with their exit
// codes, errors, the start of the answer and the summary or digest (ADR 0033). Failed turns stand out in red, cancelled ones in
// grey. Filters: outcome (Failed: a turn that ended failed; With errors: one whose card shows a
// failed command or an error), agent, a word; a folder's board opens on the smallest time span that has turns. A
// card opens the transcript at its turn; arrow keys move between cards as in the results list,
// Enter opens. `boardCard` draws one card.

import { agentLabel } from "./agents.js";
import { api } from "./api.js";
import { clear, cost, duration, el, timeEl } from "./dom.js";
import { openSummarize } from "./summarize.js";
import { errorsEl, recordsOf, turnName } from "./turncard.js";

const OUTCOMES = { all: "All", failed: "Failed", errors: "With errors", cancelled: "Cancelled" };
const SPANS = [["7", "7 days"], ["30", "30 days"], ["0", "All time"]]; // in this order (integer keys of an object sort)
const DAY = 86400000;

/** The days a span shows from, as the API takes them ("" for all time). @param {number} days */
const sinceOf = (days) => days ? isoDay(new Date(Date.now() - (days - 1) * DAY)) : "";

/** The smallest span that shows a turn of `latest` (its time; "" none: the first). @param {string} latest */
const spanFor = (latest) => [7, 30, 0].find((days) => !latest || !days || isoDay(new Date(latest)) >= sinceOf(days)) ?? 0;

/** Whether a card is shown under an outcome: Failed is the turns that ended failed, as their
 * cards say; With errors the cards that show an error or a failed command (board.py, ADR 0057).
 * @param {any} entry @param {string} outcome */
const shows = (entry, outcome) => outcome === "all" || (outcome === "errors" ? entry.errored : entry.card.outcome === outcome);

/** @param {Date} day */
const isoDay = (day) => `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}`;

/**
 * One turn's card on the board, as a link to its turn.
 * @param {{task: string, title: string, agent: string, card: any, number?: number, turns?: number,
 *   summary?: string, digest?: string}} entry
 * @param {{href: string, onOpen: () => void, showTask: boolean}} how
 */
export function boardCard(entry, { href, onOpen, showTask }) {
  const c = entry.card;
  const outcome = String(c.outcome || "").replace(/ /g, "-");
  const facts = [duration(c.duration_ms), c.unpriced && c.cost_usd == null ? `no price for ${c.no_price || "its model"}` : cost(c.cost_usd)].filter(Boolean);
  return el("a", { class: `board-card outcome-${outcome}`, href, "data-board-card": `${entry.task}:${c.first_seq}`, "data-turn-seq": c.first_seq, "data-outcome": c.outcome,
    onclick: (/** @type {MouseEvent} */ event) => {
      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button) return;
      event.preventDefault();
      onOpen();
    } },
  el("div", { class: "board-head" },
    el("span", { class: "outcome" }, c.outcome), facts.map((f) => el("span", { class: "muted" }, f)), timeEl(c.at),
    entry.number ? el("span", { class: "muted", "data-board-turn": "", title: recordsOf(c) }, turnName(entry.number, entry.turns || 0)) : null),
  showTask ? el("div", { class: "board-task muted" }, agentLabel(entry.agent) ? `${agentLabel(entry.agent)} · ` : "", entry.title) : null,
  el("div", { class: "board-asked" }, c.asked || "(no prompt)"),
  (c.files || []).length ? el("div", { class: "board-line" }, el("span", { class: "label" }, `${c.files.length} file${c.files.length === 1 ? "" : "s"} `),
    el("span", { class: "mono" }, c.files.slice(0, 3).map((/** @type {string} */ f) => f.split(/[\\/]/).pop()).join(", ") + (c.files.length > 3 ? " …" : ""))) : null,
  (c.commands || []).length ? el("ul", { class: "board-commands" }, c.commands.slice(0, 4).map((/** @type {any} */ cmd) =>
    el("li", { class: cmd.error ? "error" : "" }, el("code", {}, cmd.command), cmd.exit != null ? el("span", { class: "exit" }, ` exit ${cmd.exit}`) : null)),
  c.commands.length > 4 ? el("li", { class: "muted" }, `${c.commands.length - 4} more`) : null) : null,
  el("div", { class: "board-errors" }, errorsEl(c.errors || [])),
  c.answer ? el("div", { class: "board-answer" }, c.answer) : null,
  // ADR 0033: the close summary of the turn's stretch, or the task's digest, on one line
  summaryLine(entry));
}

/** @param {{summary?: string, digest?: string}} entry */
function summaryLine(entry) {
  const [label, text] = entry.summary ? ["summary", entry.summary] : entry.digest ? ["digest", entry.digest] : ["", ""];
  if (!text) return null;
  return el("div", { class: "board-summary", "data-board-summary": label, title: text }, el("span", { class: "label" }, `${label} `), text);
}

/**
 * @param {{pane: HTMLElement, href: (task: string, seq: number) => string,
 *   onOpen: (task: string, seq: number) => void, folderOf: (project: string) => string,
 *   failure: (message: string, retry: () => void) => HTMLElement}} options
 */
export function createBoard({ pane, href, onOpen, folderOf, failure }) {
  let loading = 0;
  // a folder opens on the smallest span that has turns, until the person picks one (ADR 0039)
  const filters = { outcome: "all", agent: "", word: "", folder: false, days: 7, picked: false };
  /** @type {any[]} */
  let entries = [];
  let openedAt = "";

  /** @param {{id: string, project: string}} info */
  async function show(info) {
    const mine = ++loading;
    clear(pane).append(el("p", { class: "muted loading" }, "Reading…"));
    try {
      const query = filters.folder ? { project: info.project, since: sinceOf(filters.days) } : { task: info.id };
      const found = await api.board(query);
      if (mine !== loading) return;
      if (filters.folder && !filters.picked && spanFor(found.latest) !== filters.days) {
        filters.days = spanFor(found.latest);
        return show(info);
      }
      entries = found.cards;
      draw(info);
    } catch (err) {
      if (mine === loading) clear(pane).append(failure(`Could not read the history: ${err.message}`, () => show(info)));
    }
  }

  /** @param {{id: string, project: string}} info */
  function draw(info) {
    const list = el("ol", { class: "board", "data-history": "", "data-board": "" });
    // the folder's board summarizes the tasks its filters show (a selection; ADR 0033)
    const summarize = el("button", { type: "button", "data-summarize-shown": "", hidden: !filters.folder, onclick: () => {
      const tasks = [...new Set(shownNow.map((e) => e.task))];
      openSummarize(/** @type {HTMLDialogElement} */ (document.querySelector("[data-summarize-dialog]")), { tasks },
        `Summarize ${tasks.length} task${tasks.length === 1 ? "" : "s"} of ${folderOf(info.project)}`);
    } }, "Summarize these tasks…");
    /** @type {any[]} */
    let shownNow = [];
    const fill = () => {
      const word = filters.word.trim().toLowerCase();
      const shown = entries.filter((e) => shows(e, filters.outcome)
        && (!filters.agent || e.agent === filters.agent)
        && (!word || [e.title, e.card.asked, e.card.answer, ...(e.card.files || []), ...(e.card.errors || []),
          ...(e.card.commands || []).map((/** @type {any} */ c) => c.command)].join("\n").toLowerCase().includes(word)));
      clear(list).append(...shown.map((e) => el("li", {}, boardCard(e, { href: href(e.task, e.card.first_seq), showTask: filters.folder,
        onOpen: () => {
          openedAt = `${e.task}:${e.card.first_seq}`;
          onOpen(e.task, e.card.first_seq);
        } }))));
      count.textContent = `${shown.length} of ${entries.length} turn${entries.length === 1 ? "" : "s"}`;
      shownNow = shown;
      summarize.toggleAttribute("disabled", !shown.length);
      if (!shown.length) list.append(el("li", { class: "empty muted", "data-empty": "board" }, entries.length ? "No turn matches these filters." : "No turns yet."));
    };
    const count = el("span", { class: "muted", "data-board-count": "" });
    const agents = [...new Set(entries.map((e) => e.agent))];
    const choose = (/** @type {string} */ key, /** @type {any} */ value, again = false) => () => {
      /** @type {any} */ (filters)[key] = value;
      filters.picked = filters.picked || key === "days";
      if (again) show(info);
      else draw(info);
    };
    const segmented = (/** @type {string} */ name, /** @type {Record<string, string>|string[][]} */ options, /** @type {string} */ key, again = false) =>
      el("div", { class: "segmented", role: "group", "aria-label": name }, (Array.isArray(options) ? options : Object.entries(options)).map(([value, label]) =>
        el("button", { type: "button", "aria-pressed": String(String(/** @type {any} */ (filters)[key]) === value), "data-filter-choice": `${key}:${value}`,
          onclick: choose(key, key === "days" ? Number(value) : key === "folder" ? value === "folder" : value, again) }, label,
          key === "outcome" && value !== "all" ? el("span", { class: "muted", "data-outcome-count": value }, ` ${entries.filter((e) => shows(e, value)).length}`) : null)));
    const word = /** @type {HTMLInputElement} */ (el("input", { type: "search", class: "board-word", placeholder: "Filter by a word", "aria-label": "Filter turns by a word", value: filters.word }));
    word.addEventListener("input", () => {
      filters.word = word.value;
      fill();
    });
    const agentPick = agents.length > 1 ? el("select", { "aria-label": "Agent", onchange: (/** @type {Event} */ e) => {
      filters.agent = /** @type {HTMLSelectElement} */ (e.target).value;
      fill();
    } }, el("option", { value: "" }, "Every agent"), agents.map((a) => el("option", { value: a, selected: a === filters.agent ? "" : null }, agentLabel(a) || "nodwyn"))) : null;
    clear(pane).append(
      el("h2", { class: "pane-title" }, "History · ", count),
      el("div", { class: "board-filters" },
        segmented("Scope", { task: "This task", folder: `All of ${folderOf(info.project)}` }, "folder", true),
        filters.folder ? segmented("Time", SPANS, "days", true) : null,
        segmented("Outcome", OUTCOMES, "outcome"), agentPick, word, summarize),
      list);
    // the scope's buttons are drawn as "task"/"folder": their pressed state follows `folder`
    for (const button of pane.querySelectorAll("[data-filter-choice^='folder:']")) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-filter-choice") === (filters.folder ? "folder:folder" : "folder:task")));
    }
    fill();
    const back = openedAt && pane.querySelector(`[data-board-card="${CSS.escape(openedAt)}"]`);
    if (back instanceof HTMLElement) back.focus();
  }

  return { show, cancel: () => { loading++; } };
}
