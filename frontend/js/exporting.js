// @ts-check
// Taking a task out of nodwyn: "Export…" saves the task (or one turn) as one Markdown or one
// self-contained HTML file (the window asks where, through its own save dialog; a browser
// saves it as a download). Loaded when Export… is first clicked.

import { api } from "./api.js";
import { el } from "./dom.js";

/**
 * Save an export: fetched with the token, handed to the browser or window as a download.
 * @param {string} task @param {"md"|"html"} format @param {number|null} [turn]
 */
export async function saveExport(task, format, turn = null) {
  const { blob, name } = await api.exportFile(task, format, turn);
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}

/**
 * The Export… dialog: format buttons for the task (or a turn); says what it saved or why not.
 * @param {HTMLDialogElement} dialog @param {string} task @param {number|null} [turn]
 */
export function openExport(dialog, task, turn = null) {
  const said = el("p", { class: "muted", role: "status", "data-export-status": "" });
  const go = async (/** @type {"md"|"html"} */ format) => {
    said.textContent = "Preparing…";
    try {
      said.textContent = `Saved as ${await saveExport(task, format, turn)}`;
    } catch (err) {
      said.textContent = `Could not export: ${err.message}`;
      said.classList.add("error");
    }
  };
  dialog.replaceChildren(el("form", { method: "dialog" },
    el("h2", {}, turn ? "Export this turn" : "Export this task"),
    el("p", {}, "One file, secrets redacted, readable without nodwyn."),
    el("div", { class: "dialog-buttons" },
      el("button", { type: "button", "data-export": "html", onclick: () => go("html") }, "HTML page"),
      el("button", { type: "button", "data-export": "md", onclick: () => go("md") }, "Markdown"),
      el("button", { value: "cancel" }, "Close")),
    said));
  dialog.showModal();
}
