// @ts-check
// A turn's card above its prompt: "turn 12 of 40 · outcome · time · cost" (the records it
// spans on hover), then its plan, commands, files and errors folded. The prompt itself is
// not repeated: it is the message drawn right under the card.

import { errorText } from "./calls.js";
import { cost, duration, el, plainText } from "./dom.js";
import { fold } from "./folds.js";

/** "turn 12 of 40". @param {number} number @param {number} of */
export const turnName = (number, of) => `turn ${number} of ${of}`;

/** "records #2–#19" (what a card's or outline row's hover says). @param {any} card */
export const recordsOf = (card) => `records #${card.first_seq}–${card.last_seq === null || card.last_seq === undefined ? "…" : `#${card.last_seq}`}`;

/**
 * Open the last edit in this turn that wrote `file` (its diff names it), and bring it into view.
 * @param {HTMLElement} from the card's button @param {string} file
 */
function openEdit(from, file) {
  const turn = from.closest("[data-turn]");
  const paths = [...(turn?.querySelectorAll("[data-diff-path]") || [])];
  const path = (/** @type {Element} */ n) => n.getAttribute("data-diff-path") || "";
  // the same name first; else a patch's path relative to the project ("pager/order.go")
  const exact = paths.filter((n) => path(n) === file || path(n).startsWith(`${file} →`));
  const named = exact.length ? exact : paths.filter((n) => file.endsWith(`/${path(n)}`) || path(n).endsWith(`/${file}`));
  const call = named.at(-1)?.closest("details.call");
  if (!(call instanceof HTMLDetailsElement)) return;
  for (let fold = call.parentElement?.closest("details"); fold; fold = fold.parentElement?.closest("details")) {
    /** @type {HTMLDetailsElement} */ (fold).open = true; // the row of calls it is folded in
  }
  call.open = true;
  call.scrollIntoView({ block: "start" });
  /** @type {HTMLElement|null} */ (call.querySelector("summary"))?.focus();
}

/** @param {any} card @param {Set<string>} opened */
function folds(card, opened) {
  const plan = card.plan || [];
  const commands = card.commands || [];
  const files = card.files || [];
  const failed = commands.filter((/** @type {any} */ c) => c.error).length;
  return el("div", { class: "card-folds" },
    plan.length ? fold(`plan:${card.first_seq}`, opened,
      `plan (${plan.filter((/** @type {any} */ p) => p.status === "completed").length}/${plan.length} done)`,
      el("ul", { class: "plan" }, plan.map((/** @type {any} */ p) => el("li", { "data-status": p.status }, p.text)))) : null,
    commands.length ? fold(`cmds:${card.first_seq}`, opened,
      `${commands.length} command${commands.length > 1 ? "s" : ""}${failed ? ` (${failed} failed)` : ""}`,
      el("ul", { class: "commands" }, commands.map((/** @type {any} */ c) => el("li", { class: c.error ? "error" : "" },
        el("code", {}, plainText(c.command)), c.exit !== null && c.exit !== undefined ? el("span", { class: "muted" }, ` exit ${c.exit}`) : null)))) : null,
    files.length ? fold(`files:${card.first_seq}`, opened, `${files.length} file${files.length > 1 ? "s" : ""}`,
      el("ul", { class: "files" }, files.map((/** @type {string} */ f) => el("li", {}, el("button", { type: "button", class: "link file-link", "data-file": f,
        title: "Show the edit that wrote it", onclick: (/** @type {Event} */ e) => openEdit(/** @type {HTMLElement} */ (e.currentTarget), f) }, el("code", {}, f)))))) : null);
}

const SHOWN_ERRORS = 3;

/** A card's errors, each once: the first three, then "+N more" that shows the rest. @param {string[]} errors */
export function errorsEl(errors) {
  const said = [...new Set(errors.map((e) => plainText(errorText(e))))];
  if (!said.length) return null;
  const list = el("ul", { class: "errors", "data-errors": "" }, said.map((e, i) => el("li", { class: "error", hidden: i >= SHOWN_ERRORS }, e)));
  if (said.length > SHOWN_ERRORS) {
    const more = el("li", {}, el("button", { type: "button", class: "link", "data-more-errors": "", onclick: (/** @type {Event} */ event) => {
      event.preventDefault(); // on a board card, a link: the button only shows the rest
      event.stopPropagation();
      for (const item of list.querySelectorAll("li[hidden]")) /** @type {HTMLElement} */ (item).hidden = false;
      more.remove();
    } }, `+${said.length - SHOWN_ERRORS} more`));
    list.append(more);
  }
  return list;
}

/** @param {any} card @param {Set<string>} opened @param {number} number @param {number} of */
export function cardEl(card, opened, number, of) {
  const errors = card.errors || [];
  const head = [turnName(number, of), card.outcome, duration(card.duration_ms), card.cost_usd ? cost(card.cost_usd) : ""].filter(Boolean).join(" · ");
  const body = el("div", { class: "card-body" }, folds(card, opened), errorsEl(errors));
  const key = `card:${card.first_seq}`;
  const node = el("details", { class: `card outcome-${String(card.outcome).replace(/ /g, "-")}`, "data-fold": key, "data-card": card.first_seq,
    "data-turn-number": number, open: !opened.has(`closed:${key}`) },
  el("summary", { class: "card-head", title: recordsOf(card) }, head), body);
  node.addEventListener("toggle", () => {
    if (/** @type {HTMLDetailsElement} */ (node).open) opened.delete(`closed:${key}`);
    else opened.add(`closed:${key}`);
  });
  return node;
}
