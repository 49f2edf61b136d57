// @ts-check
// Starred turns: a star on each turn of the transcript (with a note of the person's, saved
// on Enter or on leaving the field), and the "Starred" view that lists every starred turn of
// every task, newest star first, each opening its turn. Stars are records in the task's log
// (the server's store.star), so they are kept with the archive and found by search.

import { api } from "./api.js";
import { append, clear, el, timeEl } from "./dom.js";
import { openExport } from "./exporting.js";
import { numberTurns } from "./turnnames.js";

/**
 * The tools under a turn's card: star, its note, export of the turn.
 * @param {string} task @param {number} turn @param {Map<number, string>} stars
 * @param {(message: string, retry: () => void) => void} onError
 */
export function turnTools(task, turn, stars, onError) {
  const box = el("div", { class: "turn-tools", "data-turn-tools": turn });
  const draw = () => {
    const starred = stars.has(turn);
    const star = el("button", { type: "button", class: `icon star${starred ? " on" : ""}`, "data-star": turn,
      "aria-pressed": String(starred), "aria-label": starred ? "Starred: unstar this turn" : "Star this turn",
      title: starred ? "Unstar this turn" : "Star this turn (listed under Starred, found by search)",
      onclick: () => save(!starred, stars.get(turn) || "", true) }, starred ? "★" : "☆");
    const exportTurn = el("button", { type: "button", class: "link", "data-export-turn": turn,
      onclick: () => openExport(/** @type {HTMLDialogElement} */ (document.querySelector("[data-export-dialog]")), task, turn) }, "Export turn");
    append(clear(box), [star, starred ? noteField() : null, exportTurn]); // the DOM's own append writes a null as "null"
  };
  const noteField = () => {
    const field = /** @type {HTMLInputElement} */ (el("input", { class: "star-note", "data-star-note": turn, placeholder: "Add a note…",
      "aria-label": "Note on this starred turn", maxlength: "500", value: stars.get(turn) || "" }));
    const keep = () => {
      if (field.value.trim() !== (stars.get(turn) || "")) save(true, field.value.trim(), false);
    };
    field.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        keep();
      }
    });
    field.addEventListener("blur", keep);
    return field;
  };
  /** @param {boolean} starred @param {string} note @param {boolean} refocus */
  async function save(starred, note, refocus) {
    try {
      const saved = await api.star(task, turn, starred, note);
      if (saved.starred) stars.set(turn, saved.note);
      else stars.delete(turn);
      draw();
      // what the log now says, on this box and on the one a refresh drew meanwhile, if any
      const said = saved.starred ? `starred:${saved.note}` : "unstarred";
      box.dataset.saved = said;
      const shown = box.isConnected ? null : document.querySelector(`[data-turn-tools="${turn}"]`);
      if (shown instanceof HTMLElement) shown.dataset.saved = said;
      if (refocus) /** @type {HTMLElement|null} */ (box.querySelector("[data-star]"))?.focus();
    } catch (err) {
      onError(`Could not ${starred ? "star" : "unstar"} this turn: ${err.message}`, () => save(starred, note, refocus));
    }
  }
  draw();
  return box;
}

/**
 * The "Starred" view in the pane.
 * @param {{pane: HTMLElement, href: (task: string, seq: number) => string,
 *   onOpen: (task: string, seq: number) => void,
 *   failure: (message: string, retry: () => void) => HTMLElement}} options
 */
export function createStarred({ pane, href, onOpen, failure }) {
  let loading = 0;
  async function show() {
    const mine = ++loading;
    clear(pane).append(el("p", { class: "muted loading" }, "Reading…"));
    try {
      const { turns } = await api.starred();
      if (mine !== loading) return;
      clear(pane).append(el("h2", { class: "pane-title" }, `Starred · ${turns.length} turn${turns.length === 1 ? "" : "s"}`));
      if (!turns.length) {
        pane.append(el("p", { class: "empty muted", "data-empty": "starred" }, "No starred turns yet. Star a turn with ☆ under its card in a transcript."));
        return;
      }
      const list = el("ol", { class: "starred-list", "data-starred": "" }, turns.map((/** @type {any} */ t) =>
        el("li", {}, el("a", { class: "starred-item", href: href(t.task, t.turn), "data-starred-item": `${t.task}:${t.turn}`,
          onclick: (/** @type {MouseEvent} */ event) => {
            event.preventDefault();
            onOpen(t.task, t.turn);
          } },
        el("span", { class: "starred-title" }, "★ ", t.title),
        t.note ? el("span", { class: "starred-note" }, t.note) : null,
        el("span", { class: "starred-asked muted", title: `record #${t.turn}` },
          el("span", { "data-turn-name": t.turn, "data-task": t.task }, "turn"), ` · asked “${t.asked}”`),
        timeEl(t.at)))));
      pane.append(list);
      numberTurns(list); // "turn 12 of 40", as the transcript names it
    } catch (err) {
      if (mine === loading) clear(pane).append(failure(`Could not list starred turns: ${err.message}`, show));
    }
  }
  return { show, cancel: () => { loading++; } };
}
