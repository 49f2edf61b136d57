// @ts-check
// Going back to a task's session: "Resume" copies the agent's own command that goes back to
// the session in its folder (disabled, with the reason, where there is none); beside it,
// "Open in terminal" runs that command in the person's terminal, in the task's folder (shown
// only where there is a command; what stops it is said beside it, and Copy still works), and
// Settings > Terminal names that terminal.

import { api } from "./api.js";
import { el } from "./dom.js";

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
