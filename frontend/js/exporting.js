// @ts-check
// Taking a task out of nodwyn: "Export…" saves the task (or one turn) as one Markdown or one
// self-contained HTML file (the window asks where, through its own save dialog; a browser
// saves it as a download), and "Resume" copies the agent's own command that goes back to
// the session in its folder (disabled, with the reason, where there is none); beside it,
// "Open in terminal" runs that command in the person's terminal, in the task's folder (shown
// only where there is a command; what stops it is said beside it, and Copy still works).

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

/**
 * The Resume control of a task: its Copy button, filled in once the command is known, and
 * "Open in terminal" beside it when there is one.
 * @param {string} task @param {(message: string) => void} announce
 */
export function resumeButton(task, announce) {
  const button = /** @type {HTMLButtonElement} */ (el("button", { type: "button", "data-resume": "", disabled: true, title: "Looking for the agent's resume command…" }, "Resume"));
  const control = el("span", { class: "resume-control", "data-resume-control": "" }, button);
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
    control.append(terminalButton(task, announce));
  }, (err) => {
    button.title = `No resume command: ${err.message}`;
  });
  return control;
}

/**
 * "Open in terminal": the agent's resume command run in the person's terminal, in the task's
 * folder; why it could not (the folder gone, the agent not installed, no terminal) is said
 * beside it in one line.
 * @param {string} task @param {(message: string) => void} announce
 */
function terminalButton(task, announce) {
  const said = el("span", { class: "resume-said", role: "status", "data-terminal-said": "" });
  const open = /** @type {HTMLButtonElement} */ (el("button", { type: "button", "data-open-terminal": "", title: "Go on with this session in your terminal, in its folder" }, "Open in terminal"));
  open.addEventListener("click", async () => {
    open.disabled = true;
    said.textContent = "";
    said.classList.remove("error");
    try {
      const opened = await api.terminal(task);
      said.textContent = `Opened in ${opened.terminal}`;
      announce(`Opened ${opened.terminal} in ${opened.folder}: ${opened.command}`);
    } catch (err) {
      said.textContent = `Not opened: ${err.message}`;
      said.classList.add("error");
      announce(said.textContent);
    } finally {
      open.disabled = false;
    }
  });
  return el("span", { class: "resume-terminal" }, open, said);
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

/**
 * Settings > Terminal: the terminal "Open in terminal" starts (setting `terminal`); empty means
 * $TERMINAL, else the desktop's own. Saved when the field is left; a program not found is refused.
 * @param {Record<string, any>} current @param {HTMLElement} said
 * @param {(settings: Record<string, any>) => void} onChange
 */
export function terminalChoice(current, said, onChange) {
  const input = /** @type {HTMLInputElement} */ (el("input", { type: "text", spellcheck: "false", autocomplete: "off", "data-terminal-setting": "", placeholder: "automatic: $TERMINAL, else this desktop's own" }));
  input.value = current.terminal || "";
  input.addEventListener("change", async () => {
    try {
      onChange(await api.saveSettings({ terminal: input.value.trim() }));
      said.textContent = "Saved.";
    } catch (err) {
      said.textContent = `Not saved: ${err.message}`;
    }
  });
  return el("div", {},
    el("label", { class: "field" }, el("span", {}, "Open in terminal starts"), input),
    el("p", { class: "muted" }, "A command such as kitty, alacritty or wezterm; the task's agent runs in it, in the task's folder."));
}
