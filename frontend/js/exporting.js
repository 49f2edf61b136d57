// @ts-check
// Taking a task out of nodwyn: "Export…" saves the task (or one turn) as one Markdown or one
// self-contained HTML file (the window asks where, through its own save dialog; a browser
// saves it as a download), and "Resume" copies the agent's own command that goes back to
// the session in its folder (disabled, with the reason, where there is none).

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
    el("h2", {}, turn ? `Export turn ${turn}` : "Export this task"),
    el("p", {}, "One file, secrets redacted, readable without nodwyn."),
    el("div", { class: "dialog-buttons" },
      el("button", { type: "button", "data-export": "html", onclick: () => go("html") }, "HTML page"),
      el("button", { type: "button", "data-export": "md", onclick: () => go("md") }, "Markdown"),
      el("button", { value: "cancel" }, "Close")),
    said));
  dialog.showModal();
}

/**
 * The Resume button of a task: filled in once the command is known.
 * @param {string} task @param {(message: string) => void} announce
 */
export function resumeButton(task, announce) {
  const button = /** @type {HTMLButtonElement} */ (el("button", { type: "button", "data-resume": "", disabled: true, title: "Looking for the agent's resume command…" }, "Resume"));
  api.resume(task).then((found) => {
    if (!found.command) {
      button.title = `No resume command: ${found.reason}`;
      button.setAttribute("aria-description", button.title);
      return;
    }
    button.disabled = false;
    button.dataset.command = found.command;
    button.title = `Copy: ${found.command}`;
    button.addEventListener("click", () => copy(button, found.command, announce));
  }, (err) => {
    button.title = `No resume command: ${err.message}`;
  });
  return button;
}

/**
 * Copy the command; where the clipboard is refused, show it selected beside the button.
 * @param {HTMLButtonElement} button @param {string} text @param {(message: string) => void} announce
 */
async function copy(button, text, announce) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied ✓";
    announce(`Copied: ${text}`);
    setTimeout(() => { button.textContent = "Resume"; }, 2000);
  } catch {
    const field = /** @type {HTMLInputElement} */ (el("input", { class: "resume-field mono", readonly: "", value: text, "aria-label": "Resume command", "data-resume-field": "" }));
    button.nextElementSibling?.matches("[data-resume-field]") && button.nextElementSibling.remove();
    button.after(field);
    field.select();
    announce(`Copy this command: ${text}`);
  }
}
