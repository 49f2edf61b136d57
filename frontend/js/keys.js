// @ts-check
// The keys people use without a mouse: `?` lists them all in a dialog; j and k move to the
// next and the previous message of the transcript (each message under its speaker's head),
// scrolled to the pane's top and given the keyboard. The other keys are handled where they
// act (app.js, sidebar.js, turnnav.js); their list here is what `?` shows.

import { clear, el } from "./dom.js";

/** Every key of the page, as `?` lists them. */
export const KEY_LIST = [
  ["Ctrl+K, ⌘K or /", "Search (from anywhere)"],
  ["Escape", "Close the results, a dialog or the drawer"],
  ["↑ ↓", "Move in the task list and in the results"],
  ["Enter", "Open the task or the result"],
  ["j / k", "Next / previous message in the transcript"],
  ["[ / ]", "Previous / next turn"],
  ["{ / }", "First / last turn"],
  ["e", "Next turn with an error"],
  ["?", "This list of keys"],
];

/** @param {EventTarget|null} target */
const typing = (target) => target instanceof HTMLElement && Boolean(target.closest("input, textarea, select, [contenteditable]"));

/** The transcript's messages, each the element under a speaker's head. @param {HTMLElement} pane */
const messages = (pane) => [...pane.querySelectorAll("[data-events] .event")].filter((n) => n.querySelector(":scope > .speaker") && n instanceof HTMLElement && n.offsetParent !== null);

/** Move to the next (1) or previous (-1) message from the one at the pane's top. @param {HTMLElement} pane @param {number} step */
export function moveMessage(pane, step) {
  const all = /** @type {HTMLElement[]} */ (messages(pane));
  if (!all.length) return false;
  const top = pane.getBoundingClientRect().top + 8;
  const active = document.activeElement;
  let at = active instanceof HTMLElement ? all.indexOf(active) : -1;
  if (at < 0) { // from what is in view: the first message whose head is at or below the top
    const below = all.findIndex((n) => n.getBoundingClientRect().top >= top - 1);
    at = below < 0 ? all.length : below;
    if (step > 0 && below >= 0 && all[below].getBoundingClientRect().top > top + 2) at -= 1;
  }
  const next = all[Math.min(all.length - 1, Math.max(0, at + step))];
  next.setAttribute("tabindex", "-1");
  next.scrollIntoView({ block: "start" });
  next.focus({ preventScroll: true });
  return true;
}

/** The dialog that lists every key. @param {HTMLDialogElement} dialog */
export function showKeys(dialog) {
  clear(dialog).append(el("h2", {}, "Keys"),
    el("table", { class: "keys-table" }, el("tbody", {}, KEY_LIST.map(([keys, does]) =>
      el("tr", {}, el("th", { scope: "row" }, el("kbd", {}, keys)), el("td", {}, does))))),
    el("form", { method: "dialog", class: "dialog-buttons" }, el("button", { value: "close" }, "Close")));
  dialog.showModal();
}

/** `?` and j / k, wherever the page is not being typed into. @param {HTMLElement} pane */
export function installKeys(pane) {
  const dialog = /** @type {HTMLDialogElement} */ (el("dialog", { class: "keys-dialog", "aria-label": "Keys", "data-keys": "" }));
  document.body.append(dialog);
  document.querySelector("[data-keys-button]")?.addEventListener("click", () => showKeys(dialog));
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target) || document.querySelector("dialog[open]")) return;
    if (event.key === "?") {
      event.preventDefault();
      showKeys(dialog);
    } else if ((event.key === "j" || event.key === "k") && moveMessage(pane, event.key === "j" ? 1 : -1)) {
      event.preventDefault();
    }
  });
}
