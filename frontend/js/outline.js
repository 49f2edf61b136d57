// @ts-check
// A task's outline: every turn in one list (its number, the prompt's first words, how it
// ended, when, what it cost), the turn in view marked, and buttons to the first, the last and
// the next turn that went wrong. A row jumps to its turn, reading it from the log when it is
// not among the events shown (transcript.js). Beside the transcript on a wide window, folded
// above it on a narrow one. Keys in the pane: [ and ] the previous and next turn, { and } the
// first and last, e the next error.

import { clock, cost, el, exact } from "./dom.js";
import { recordsOf, turnName } from "./turncard.js";

const WENT_WRONG = new Set(["failed", "interrupted", "cancelled"]);
const MARKS = { completed: "✓", failed: "✗", interrupted: "⊘", cancelled: "⊘", unfinished: "…", "under way": "…" };

/** @param {any} card */
const wentWrong = (card) => WENT_WRONG.has(card.outcome) || (card.errors || []).length > 0;

/** @param {string} text */
function firstWords(text) {
  const line = String(text || "").replace(/\s+/g, " ").trim();
  return line || "(a prompt without words)";
}

/**
 * @param {any[]} cards the task's cards, oldest first
 * @param {number|null} current the first seq of the turn in view
 * @param {(seq: number) => void} onJump
 * @param {boolean} narrow drawn folded above the transcript
 */
export function outlineEl(cards, current, onJump, narrow) {
  const of = cards.length;
  const at = cards.findIndex((c) => c.first_seq === current);
  const go = (/** @type {string} */ label, /** @type {string} */ key, /** @type {string} */ keys) =>
    el("button", { type: "button", class: "outline-go", "data-outline-go": key, title: `${label} (key ${keys})`,
      onclick: () => {
        const card = target(cards, key, outline);
        if (card) onJump(card.first_seq);
      } }, label);
  const tools = el("div", { class: "outline-tools" }, go("First", "first", "{"), go("Last", "last", "}"), go("Next error", "error", "e"));
  const rows = el("ol", { class: "outline-rows" }, cards.map((card, i) => {
    const wrong = wentWrong(card);
    const errors = (card.errors || []).length;
    const facts = [`${MARKS[/** @type {keyof MARKS} */ (card.outcome)] || ""} ${card.outcome}`.trim(), clock(card.at), card.cost_usd ? cost(card.cost_usd) : ""];
    return el("li", {}, el("button", {
      type: "button", class: `outline-row${WENT_WRONG.has(card.outcome) ? " failed" : ""}${wrong ? " error" : ""}`, "data-outline-turn": card.first_seq,
      "aria-current": card.first_seq === current ? "true" : null,
      title: `${turnName(i + 1, of)} · ${recordsOf(card)} · ${exact(card.at)}`,
      onclick: () => onJump(card.first_seq),
    }, el("span", { class: "outline-number" }, String(i + 1)),
    el("span", { class: "outline-words" }, firstWords(card.asked)),
    el("span", { class: "outline-facts" }, facts.filter(Boolean).join(" · "),
      errors ? el("span", { class: "outline-errors" }, ` · ${errors} error${errors === 1 ? "" : "s"}`) : null)));
  }));
  const where = el("span", { "data-outline-where": "" }, at >= 0 ? turnName(at + 1, of) : `${of} turn${of === 1 ? "" : "s"}`);
  const outline = narrow
    ? el("details", { class: "outline narrow", "data-outline": "" }, el("summary", {}, "Outline · ", where), tools, rows)
    : el("nav", { class: "outline wide", "data-outline": "", "aria-label": "Turns of this task" },
      el("div", { class: "outline-head" }, "Outline · ", where), tools, rows);
  markTurn(outline, cards, current);
  return outline;
}

/** The turn a tool button or key goes to: first, last, previous, next, or the next that went
 * wrong, counted from the turn in view. @param {any[]} cards @param {string} key @param {HTMLElement} outline */
export function target(cards, key, outline) {
  const at = cards.findIndex((c) => String(c.first_seq) === outline.dataset.current);
  if (key === "first") return cards[0];
  if (key === "last") return cards[cards.length - 1];
  if (key === "previous") return cards[Math.max(0, at - 1)];
  if (key === "next") return cards[Math.min(cards.length - 1, at + 1)];
  return cards.find((c, i) => i > at && wentWrong(c)) || null;
}

/** Move the mark to the turn now in view, without drawing the outline again.
 * @param {HTMLElement} outline @param {any[]} cards @param {number|null} current */
export function markTurn(outline, cards, current) {
  const at = cards.findIndex((c) => c.first_seq === current);
  for (const row of outline.querySelectorAll("[aria-current]")) row.removeAttribute("aria-current");
  const row = outline.querySelector(`[data-outline-turn="${current}"]`);
  if (row) row.setAttribute("aria-current", "true");
  const where = outline.querySelector("[data-outline-where]");
  if (where) where.textContent = at >= 0 ? turnName(at + 1, cards.length) : `${cards.length} turns`;
  outline.dataset.current = String(current ?? "");
  const error = outline.querySelector('[data-outline-go="error"]');
  if (error instanceof HTMLButtonElement) error.disabled = !target(cards, "error", outline);
  if (row instanceof HTMLElement && outline.classList.contains("wide")) {
    const list = outline.querySelector(".outline-rows");
    if (list instanceof HTMLElement) {
      const top = row.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top + row.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top - list.clientHeight / 3;
    }
  }
}
