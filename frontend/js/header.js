// @ts-check
// The task header: the title (pencil or double click renames: Enter or leaving saves,
// Escape keeps the old name), Archive/Unarchive and Delete… (asks first) for closed tasks,
// a History button, Resume (the agent's own command, copied), Export… and Summarize… (an
// estimate first, then a provider's summaries once confirmed: summarize.js), and the task's
// project, branch, agent and cost.

import { api } from "./api.js";
import { agentLabel } from "./agents.js";
import { machineLabel } from "./machines.js";
import { clear, cost, el, NO_FOLDER } from "./dom.js";
import { resumeButton } from "./resume.js";
import { deferred, withLoaded } from "./deferred.js";

// the dialogs' modules, loaded when their button is first clicked
const exporting = deferred(() => import("./exporting.js"));
const summarizing = deferred(() => import("./summarize.js"));

/**
 * @param {{titleBox: HTMLElement, actions: HTMLElement, meta: HTMLElement,
 *   dialog: HTMLDialogElement, onChanged: (task: any) => void, onDeleted: (id: string) => void,
 *   onHistory: () => void, onError: (message: string, retry: () => void) => void,
 *   exportDialog: HTMLDialogElement, announce: (message: string) => void}} options
 */
export function createHeader({ titleBox, actions, meta, dialog, onChanged, onDeleted, onHistory, onError, exportDialog, announce }) {
  /** @type {any} */
  let task = null;
  let historyOpen = false;

  function showTitle() {
    clear(titleBox);
    if (!task) {
      titleBox.append(el("h1", { class: "task-name" }, "nodwyn"));
      return;
    }
    // a long title is cut short on one line: the whole of it on hover
    const name = el("h1", { class: "task-name", title: `${task.title}\n(double click to rename)`, "data-title": "" }, task.title);
    name.addEventListener("dblclick", startRename);
    titleBox.append(
      name,
      el("button", { type: "button", class: "icon", "aria-label": "Rename", title: "Rename", "data-rename": "", onclick: startRename }, "✎"),
    );
  }

  function startRename() {
    if (!task) return;
    const before = task.title;
    const field = /** @type {HTMLInputElement} */ (
      el("input", { class: "title-field", "aria-label": "Task name", maxlength: "120", value: before })
    );
    let done = false;
    const finish = async (/** @type {boolean} */ save) => {
      if (done) return;
      done = true;
      // Enter or Escape: the keyboard goes back to the pencil (leaving the field already moved it)
      const keyboard = document.activeElement === field;
      const back = () => {
        showTitle();
        if (keyboard) /** @type {HTMLElement|null} */ (titleBox.querySelector("[data-rename]"))?.focus();
      };
      const title = field.value.trim();
      if (!save || title === before || !title) {
        back();
        return;
      }
      const saved = await rename(task.id, title);
      back();
      if (saved) onChanged(saved);
    };
    field.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        finish(true);
      } else if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        finish(false);
      }
    });
    field.addEventListener("blur", () => finish(true));
    clear(titleBox).append(field);
    field.focus();
    field.select();
  }

  /** Save a name; a failure is said with Retry. @param {string} id @param {string} title */
  async function rename(id, title) {
    try {
      const saved = await api.rename(id, title);
      if (task && task.id === id) task = saved;
      return saved;
    } catch (err) {
      onError(`Could not rename: ${err.message}`, async () => {
        const saved = await rename(id, title);
        if (saved && task && task.id === id) showTitle();
        if (saved) onChanged(saved);
      });
      return null;
    }
  }

  /** @param {boolean} archived @param {string} [id] */
  async function setArchived(archived, id = task.id) {
    try {
      const saved = await api.archive(id, archived);
      if (task && task.id === id) show(saved, historyOpen); // redrawn as its opposite, the button keeps the keyboard
      onChanged(saved);
    } catch (err) {
      onError(`Could not ${archived ? "archive" : "unarchive"}: ${err.message}`, () => setArchived(archived, id));
    }
  }

  /** @param {string} id */
  async function remove(id) {
    try {
      await api.remove(id);
      onDeleted(id);
    } catch (err) {
      onError(`Could not delete: ${err.message}`, () => remove(id));
    }
  }

  function askDelete() {
    const text = dialog.querySelector("[data-confirm-text]");
    if (text) text.textContent = `Delete “${task.title}” and everything nodwyn keeps of it? This cannot be undone.`;
    dialog.returnValue = "";
    const id = task.id;
    dialog.addEventListener(
      "close",
      () => {
        if (dialog.returnValue === "ok") remove(id);
      },
      { once: true },
    );
    dialog.showModal();
  }

  function showActions() {
    clear(actions);
    if (!task) return;
    actions.append(
      el("button", { type: "button", "aria-pressed": String(historyOpen), "data-history-button": "", onclick: onHistory, title: "All of this task's turns" }, "History"),
      resumeButton(task.id, announce),
      el("button", { type: "button", "data-export-button": "", onclick: exportTask, title: "Save this task as one Markdown or HTML file" }, "Export…"),
      el("button", { type: "button", "data-summarize-button": "", onclick: summarize, title: "Have the model chosen in Settings summarize this task's turns (an estimate first)" }, "Summarize…"),
    );
    // as the store: only a task nodwyn runs and has not closed refuses archive and delete
    if ((task.state === "open" || task.state === "needs an answer") && !task.live) return;
    actions.append(
      el("button", { type: "button", "data-archive": "", onclick: () => setArchived(!task.archived) }, task.archived ? "Unarchive" : "Archive"),
      el("button", { type: "button", class: "danger", "data-delete": "", onclick: askDelete }, "Delete…"),
    );
  }

  function exportTask() {
    const id = task.id;
    withLoaded(exporting, "Export", onError, ({ openExport }) => openExport(exportDialog, id));
  }

  function summarize() {
    const dialog = /** @type {HTMLDialogElement} */ (document.querySelector("[data-summarize-dialog]"));
    const { id, title } = task;
    withLoaded(summarizing, "Summarize", onError, ({ openSummarize }) => openSummarize(dialog, { tasks: [id] }, `Summarize “${title}”`));
  }

  function showMeta() {
    clear(meta);
    if (!task) return;
    const agent = [agentLabel(task.origin), task.model]
      .filter(Boolean)
      .join(" · ");
    const parts = [
      task.project
        ? el("span", { class: "mono path", title: task.project, "data-field": "project" }, el("bdi", {}, task.project))
        : el("span", { class: "muted", "data-field": "project", title: "its log names no project folder" }, NO_FOLDER),
      task.branch ? el("span", { class: "mono", "data-field": "branch", title: `branch ${task.branch}` }, task.branch) : null,
      el("span", { "data-field": "agent" }, agent),
      machineLabel(task.ran_on) ? el("span", { "data-field": "machine", title: "the machine it ran on" }, `on ${machineLabel(task.ran_on)}`) : null,
      costEl(task),
      task.state !== "closed" ? el("span", { class: `state state-${task.state.replace(/ /g, "-")}`, "data-field": "state" }, task.live?.what ? `${task.state}: ${task.live.what}` : task.state) : null,
      task.archived ? el("span", { class: "state" }, "archived") : null,
      // the task's digest (ADR 0033): its start on the line, the whole of it on hover
      task.digest ? el("span", { class: "digest", "data-field": "digest", title: `digest by ${task.digest_by}, ${task.digest_at}\n${task.digest}` }, `digest: ${task.digest}`) : null,
    ].filter(Boolean);
    // each field keeps its separator on its own line; a long path or branch is cut short
    // (whole on hover) instead of wrapping the header over several lines
    // every field has its "·" in front; the one that starts a line is clipped off (style.css)
    parts.forEach((part) => {
      meta.append(el("span", { class: "meta-item" }, el("span", { class: "sep", "aria-hidden": "true" }, "·"), part));
    });
  }

  /** A task's cost as the CLI says it: dollars, or why there is none ("no usage in the log",
   * "no price for glm-9"). @param {any} task */
  function costEl(task) {
    const priced = task.cost_usd !== null && task.cost_usd !== undefined ? cost(task.cost_usd) : "";
    const said = [priced, task.cost_note].filter(Boolean).join(" + ");
    if (!said) return null;
    return el("span", { "data-field": "cost", title: task.cost_note ? "what is priced, and why the rest is not" : "cost so far" }, said);
  }

  /** @param {any} next @param {boolean} [history] */
  function show(next, history = false) {
    const renaming = titleBox.querySelector(".title-field") && next && task && next.id === task.id;
    task = next;
    historyOpen = history;
    const active = document.activeElement;
    const place = ["data-rename", "data-history-button", "data-archive", "data-delete", "data-export-button", "data-summarize-button"].find((name) => active?.hasAttribute(name));
    if (!renaming) showTitle(); // a refresh never takes a half-typed name away
    showActions();
    showMeta();
    // nor the keyboard's place: the button it was on is drawn again
    if (place && !active?.isConnected) /** @type {HTMLElement|null} */ (document.querySelector(`[${place}]`))?.focus();
  }

  return { show, current: () => task };
}
