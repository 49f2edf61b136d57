// @ts-check
// Search results in the pane: grouped by task, then turn (the card's head line), then events
// with their time, heading and up to three snippet lines, the matched words marked. Only the
// answer to the latest question is shown: an earlier request is aborted, and an answer that
// arrives after the person moved on is dropped.

import { api } from "./api.js";
import { clear, el, exact, relative } from "./dom.js";
import { machineLabel } from "./machines.js";
import { marked } from "./marks.js";
import { numberTurns, withoutSeqs } from "./turnnames.js";

const PROSE = new Set(["message", "reply", "memory.summary", "context.compact"]); // kinds whose lines are a person's or an agent's words

/** The words searched for that no turn found by words shows (a turn found by meaning alone
 * holds none of them by definition). @param {string[]} terms @param {any[]} turns */
function unmatched(terms, turns) {
  const texts = turns.filter((t) => t.found_by !== "meaning")
    .flatMap((t) => [t.head || "", t.title || "", ...(t.events || []).flatMap((/** @type {any} */ e) => [e.heading || "", ...(e.lines || [])])])
    .join("\n").toLowerCase();
  return terms.filter((term) => !texts.includes(term.toLowerCase()));
}

export const SCOPES = { task: "this task", project: "earlier tasks in this project", all: "all tasks" };

/**
 * @param {{pane: HTMLElement, href: (task: string, seq: number) => string,
 *   onOpen: (task: string, seq: number) => void,
 *   failure: (message: string, retry: () => void) => HTMLElement,
 *   announce: (text: string) => void, folder: (project: string) => string,
 *   agentOf?: (task: string) => any}} options
 */
export function createResults({ pane, href, onOpen, failure, announce, folder, agentOf = (/** @type {string} */ _task) => null }) {
  let asked = 0; // number of the latest question
  /** @type {{task: string, seq: number}|null} */
  let opened = null; // the hit last opened: coming back, the keyboard finds it again
  /** @type {AbortController|null} */
  let inFlight = null;

  /** @param {{q: string, scope: string, task: string}} query */
  async function run(query) {
    const mine = ++asked;
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    clear(pane).append(el("p", { class: "muted loading", "data-searching": "" }, `Searching ${SCOPES[/** @type {keyof SCOPES} */ (query.scope)] || ""} for “${query.q}”…`));
    try {
      const results = await api.search(
        { q: query.q, scope: query.scope, task: query.scope === "all" ? "" : query.task },
        controller.signal,
      );
      if (mine !== asked) return; // the person asked something else meanwhile
      show(query, results);
    } catch (err) {
      if (mine !== asked || (err instanceof DOMException && err.name === "AbortError")) return;
      clear(pane).append(failure(`Search failed: ${err.message}`, () => run(query)));
    }
  }

  /** @param {{q: string, scope: string, task: string}} query @param {any} results */
  function show(query, results) {
    clear(pane);
    const turns = results.turns || [];
    /** @type {Map<string, any[]>} */
    const byTask = new Map();
    for (const turn of turns) {
      if (!byTask.has(turn.task)) byTask.set(turn.task, []);
      byTask.get(turn.task)?.push(turn);
    }
    const scope = SCOPES[/** @type {keyof SCOPES} */ (query.scope)] || query.scope;
    const title = turns.length
      ? `${turns.length} turn${turns.length > 1 ? "s" : ""} in ${byTask.size} task${byTask.size > 1 ? "s" : ""} for “${query.q}” in ${scope}`
      : `Nothing found for “${query.q}” in ${scope}`;
    pane.append(el("h2", { class: "pane-title", "data-results-title": "" }, title));
    announce(title);
    if (!turns.length) {
      pane.append(el("p", { class: "empty muted", "data-empty": "results" },
        query.scope === "all" ? "Try fewer or other words." : "Try fewer words, or search All tasks."));
    }
    if ((results.incomplete || []).length) {
      pane.append(el("p", { class: "muted" }, `Not searched (being indexed or unreadable): ${results.incomplete.length} task(s).`));
    }
    if (results.note) pane.append(el("p", { class: "muted", "data-search-note": "" }, results.note));
    if (results.covered < results.searched) {
      pane.append(el("p", { class: "muted", "data-search-coverage": "" },
        `meaning: ${results.covered.toLocaleString()} of ${results.searched.toLocaleString()} tasks so far; the rest by words until they are encoded`));
    }
    const terms = results.terms || [];
    const missing = unmatched(terms, turns);
    if (missing.length && turns.length) {
      pane.append(el("p", { class: "muted", "data-unmatched": "" }, "No result holds ",
        missing.map((word, i) => [i ? (i === missing.length - 1 ? " or " : ", ") : "", el("strong", { class: "unmatched" }, `“${word}”`)])));
    }
    const list = el("div", { class: "results", "data-results": "" });
    for (const [task, group] of byTask) {
      const name = folder(group[0].project || "");
      list.append(el("section", { class: "result-task", "data-result-task": task },
        el("h3", {}, el("span", {}, group[0].title), el("span", { class: "muted mono", title: group[0].project }, ` ${name}`), agentOf(task),
          machineLabel(group[0].ran_on) ? el("span", { class: "machine-label", "data-ran-on": group[0].ran_on }, ` on ${machineLabel(group[0].ran_on)}`) : null),
        group.map((turn) => turnEl(turn, terms))));
    }
    pane.append(list);
    numberTurns(list, inFlight?.signal);
    pane.scrollTop = 0;
    const active = document.activeElement;
    const lost = !active || active === document.body || active === pane || pane.contains(active);
    const again = opened && [...list.querySelectorAll("a[data-hit]")].find((a) =>
      a.getAttribute("data-hit-task") === opened?.task && a.getAttribute("data-hit") === String(opened?.seq));
    if (lost && again instanceof HTMLElement) {
      again.focus({ preventScroll: true });
      again.scrollIntoView({ block: "center" });
    }
  }

  /** @param {any} turn @param {string[]} terms */
  function turnEl(turn, terms) {
    const events = turn.events || [];
    const [rest, records] = withoutSeqs(turn.head || "");
    const head = el("div", { class: "result-turn-head", title: [records, exact(turn.at)].filter(Boolean).join(" · ") },
      el("span", { "data-turn-name": turn.first_seq, "data-task": turn.task }, "turn"), rest ? " · " : "", marked(rest, terms),
      turn.found_by === "meaning" ? el("span", { class: "by-meaning", "data-by-meaning": "", title: "None of the words searched for is in this turn: it was found by what it means" }, "by meaning only") : null);
    const items = events.length
      ? events.map((/** @type {any} */ ev) => link(turn.task, ev.seq,
        el("div", { class: "result-event-head" },
          el("time", { datetime: ev.at, title: exact(ev.at) }, relative(ev.at)),
          el("span", { class: "heading" }, marked(ev.heading || ev.kind, terms))),
        (ev.lines || []).slice(0, 3).map((/** @type {string} */ line) => el("div", { class: PROSE.has(ev.kind) ? "snippet prose-line" : "snippet" }, marked(line, terms)))))
      : [link(turn.task, turn.first_seq, el("div", { class: "result-event-head" }, "open this turn"))];
    // the close summary of the chat this turn was in (ADR 0033), when an agent or provider wrote one
    const summary = turn.summary ? el("div", { class: "result-summary muted", "data-summary": "" }, `summary: ${turn.summary}`) : null;
    return el("div", { class: "result-turn", "data-result-turn": turn.first_seq }, head, summary, items);
  }

  /** @param {string} task @param {number} seq @param {...any} body */
  function link(task, seq, ...body) {
    return el("a", {
      class: "result-event", href: href(task, seq), "data-hit": seq, "data-hit-task": task,
      onclick: (/** @type {MouseEvent} */ event) => {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.button) return;
        event.preventDefault();
        opened = { task, seq };
        onOpen(task, seq);
      },
    }, ...body);
  }

  return {
    run,
    /** Forget any question in flight (the person left the results). */
    cancel() {
      asked++;
      inFlight?.abort();
      inFlight = null;
    },
  };
}
