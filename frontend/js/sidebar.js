// @ts-check
// The task list (foundations: tasks): what needs an answer first, then every other task under its
// project folder (newest activity first, folders in the order of their newest task), five a
// folder with "Show N more", machine runs and the archive folded at the end. A folder's fold
// is remembered in localStorage; the filter shows matches in every folder and the archive.

import { agentLabel } from "./agents.js";
import { machineLabel, machineName } from "./machines.js";
import { clear, cost, el, folderLabels } from "./dom.js";
import { listTime, plainTitle, titleNodes } from "./titles.js";

const PER_FOLDER = 5;
const FOLDS_KEY = "nodwyn.folds";

/** @typedef {{id: string, title: string, project: string, archived: boolean, state: string,
 *   last_activity: string, machine: boolean, origin: string, turns: number, ran_on?: string,
 *   cost_usd: number|null, live?: {state: string, what: string}}} Task */

/** @returns {Record<string, boolean>} */
function loadFolds() {
  try {
    return JSON.parse(localStorage.getItem(FOLDS_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

/**
 * @param {{list: HTMLElement, filter: HTMLInputElement, href: (id: string) => string,
 *          onOpen: (id: string) => void}} options
 */
export function createSidebar({ list, filter, href, onOpen }) {
  /** @type {Task[]} */
  let tasks = [];
  let selected = "";
  let loaded = false;
  let reveal = ""; // a task opened whose row is yet to be brought into view
  const folds = loadFolds();
  /** @type {Set<string>} */
  const expanded = new Set();

  function toggleFold(/** @type {string} */ key) {
    folds[key] = !isFolded(key);
    localStorage.setItem(FOLDS_KEY, JSON.stringify(folds));
    render();
  }

  /** Archived and machine runs start folded; folders start open. @param {string} key */
  function isFolded(key) {
    if (key in folds) return folds[key];
    return key === ":archived" || key === ":machine";
  }

  /** A row read by its title: the title on its own line (two at most, then cut), and under it,
   * small and grey, "Codex · 5 turns · $0.23 · 2h", led by the folder's name for a folder of one.
   * @param {Task} task @param {string} [folder] */
  function item(task, folder = "") {
    const marks = task.state === "needs an answer" || task.state === "running" ? task.state : "";
    const agent = agentLabel(task.origin);
    const machine = machineLabel(task.ran_on);
    const facts = [`${task.turns} turn${task.turns === 1 ? "" : "s"}`, cost(task.cost_usd)].filter(Boolean);
    return el(
      "a",
      {
        class: "task-item",
        href: href(task.id),
        "data-task": task.id,
        "data-state": task.state,
        "aria-current": task.id === selected ? "page" : null,
        onclick: (/** @type {MouseEvent} */ event) => {
          if (event.ctrlKey || event.metaKey || event.shiftKey || event.button) return;
          event.preventDefault();
          onOpen(task.id);
        },
      },
      marks ? el("span", { class: "dot", title: marks, "aria-label": marks }) : null,
      el("span", { class: "task-title", title: plainTitle(task.title) }, titleNodes(task.title)), // cut short: whole on hover
      liveLine(task), // what the agent asks, or that it waits for your next prompt (ADR 0046)
      el("span", { class: "task-facts", "data-task-facts": "" },
        folder ? el("span", { class: "task-folder", title: task.project, "data-folder": task.project }, folder) : null,
        agent ? el("span", { class: `agent-label agent-chip agent-${task.origin}`, "data-agent": task.origin, title: agent }, agent.replace(/ (Code|CLI)$/, "")) : null, // "Claude", "Qwen": the row is narrow
        machine ? el("span", { class: "machine-label", "data-ran-on": task.ran_on, title: `ran on ${machine}` }, machine) : null,
        facts.map((fact) => el("span", {}, fact)),
        listTime(task.last_activity)),
    );
  }

  /** @param {Task} task */
  function liveLine(task) {
    const said = task.live?.what || (task.live?.state === "your turn" ? "your turn" : "");
    return said ? el("span", { class: "task-asks", "data-task-asks": "", "data-live": task.live?.state }, said) : null;
  }

  /** A folder of one task: no heading of its own, its name leads the row's grey line.
   * @param {string} key @param {string} label @param {Task} task */
  function lone(key, label, task) {
    return el("section", { class: "group lone", "data-group-key": key },
      el("div", { class: "group-items" }, item(task, label)));
  }

  /**
   * A foldable group: heading button, up to PER_FOLDER items, "Show N more".
   * @param {string} key @param {any} label @param {Task[]} group @param {string} [hover]
   */
  function section(key, label, group, hover, filtering = false) {
    const folded = !filtering && isFolded(key);
    const limit = filtering || expanded.has(key) ? group.length : PER_FOLDER;
    const heading = el(
      "button",
      {
        type: "button",
        class: "group-heading",
        "aria-expanded": String(!folded),
        title: hover || null,
        "data-group": key,
        onclick: () => toggleFold(key),
      },
      el("span", { class: "chevron", "aria-hidden": "true" }, folded ? "▸" : "▾"),
      label,
    );
    const body = folded
      ? null
      : el("div", { class: "group-items" }, group.slice(0, limit).map((t) => item(t)));
    const more =
      !folded && group.length > limit
        ? el(
            "button",
            {
              type: "button",
              class: "show-more",
              onclick: () => {
                expanded.add(key);
                render();
              },
            },
            `Show ${group.length - limit} more`,
          )
        : null;
    return el("section", { class: "group", "data-group-key": key }, heading, body, more);
  }

  /** What has the keyboard focus in the list, to give it back after a render. */
  function focused() {
    const node = document.activeElement;
    if (!(node instanceof HTMLElement) || !list.contains(node)) return null;
    const group = node.closest("[data-group-key]")?.getAttribute("data-group-key") || "";
    if (node.dataset.task) return { task: node.dataset.task, group };
    if (node.dataset.group) return { heading: node.dataset.group };
    if (node.classList.contains("show-more")) return { more: group, at: node.previousElementSibling?.children.length || 0 };
    return null;
  }

  /** The same thing after a render, or what took its place ("Show N more" gives way to the
   * first task it showed). @param {any} was */
  function refocus(was) {
    if (!was) return;
    /** @type {Element|null|undefined} */
    let node = null;
    const inGroup = (/** @type {string} */ key) => [...list.querySelectorAll("[data-group-key]")].find((g) => g.getAttribute("data-group-key") === key);
    if (was.task) {
      node = inGroup(was.group)?.querySelector(`[data-task="${CSS.escape(was.task)}"]`) || list.querySelector(`[data-task="${CSS.escape(was.task)}"]`);
    } else if (was.heading) {
      node = list.querySelector(`[data-group="${CSS.escape(was.heading)}"]`);
    } else if (was.more) {
      const group = inGroup(was.more);
      node = group?.querySelectorAll(".task-item")[was.at] || group?.querySelector(".group-heading");
    }
    if (node instanceof HTMLElement) node.focus({ preventScroll: true });
  }

  /** The first task row in sight and how far down the list's window it sits. */
  function anchor() {
    if (list.scrollTop <= 0) return null; // at the top a new task may push the rest down
    const top = list.getBoundingClientRect().top;
    for (const node of list.querySelectorAll(".task-item")) {
      const box = node.getBoundingClientRect();
      if (box.bottom > top && node instanceof HTMLElement) return { task: node.dataset.task, at: box.top - top };
    }
    return null;
  }

  function render() {
    const scrollTop = list.scrollTop;
    const had = focused(); // a refresh or a fold never takes the keyboard's place away
    const seen = anchor();
    clear(list);
    const words = filter.value.trim().toLowerCase();
    const filtering = words.length > 0;
    const shown = filtering
      ? tasks.filter((t) => `${t.title}\n${t.project}\n${machineName(t.ran_on)}`.toLowerCase().includes(words))
      : tasks;
    if (!shown.length) {
      list.append(emptyList(filtering));
      return;
    }
    const live = shown.filter((t) => !t.archived);
    const asking = live.filter((t) => t.state === "needs an answer");
    const machine = live.filter((t) => t.machine && t.state !== "needs an answer");
    const rest = live.filter((t) => !t.machine && t.state !== "needs an answer");
    const archived = shown.filter((t) => t.archived);
    /** @type {Map<string, Task[]>} */
    const folders = new Map(); // insertion order = order of each folder's newest task
    for (const task of rest) {
      if (!folders.has(task.project)) folders.set(task.project, []);
      folders.get(task.project)?.push(task);
    }
    const labels = folderLabels([...folders.keys()]);
    if (asking.length) {
      list.append(
        el("section", { class: "group asking", "data-group-key": ":asking" },
          el("h2", { class: "group-title" }, "Needs an answer"),
          el("div", { class: "group-items" }, asking.map((t) => item(t)))),
      );
    }
    for (const [project, group] of folders) {
      list.append(group.length === 1 ? lone(project, labels[project], group[0]) : section(project, labels[project], group, project, filtering));
    }
    if (machine.length) list.append(section(":machine", `Machine runs (${machine.length})`, machine, "", filtering));
    if (archived.length) list.append(section(":archived", `Archived (${archived.length})`, archived, "", filtering));
    list.scrollTop = scrollTop; // a refresh never moves what the person is reading:
    const again = seen && list.querySelector(`.task-item[data-task="${CSS.escape(seen.task || "")}"]`);
    if (seen && again) { // a task that came in above it shifts the scroll, not the rows in sight
      list.scrollTop += again.getBoundingClientRect().top - list.getBoundingClientRect().top - seen.at;
    }
    refocus(had);
    bringIntoView();
  }

  /** The open task's row, once drawn, scrolled into the list's view: its folder unfolded and
   * shown whole if the row lay past "Show N more" or in a fold. */
  function bringIntoView() {
    const id = reveal;
    if (!id || !loaded) return;
    reveal = "";
    let node = list.querySelector(`.task-item[data-task="${CSS.escape(id)}"]`);
    const task = tasks.find((t) => t.id === id);
    if (!node && task && !filter.value.trim()) {
      const key = task.archived ? ":archived" : task.machine ? ":machine" : task.project;
      folds[key] = false;
      expanded.add(key);
      render();
      node = list.querySelector(`.task-item[data-task="${CSS.escape(id)}"]`);
    }
    if (node) node.scrollIntoView({ block: "nearest" });
  }

  function emptyList(/** @type {boolean} */ filtering) {
    if (!loaded) return el("p", { class: "muted empty-list" }, "Loading tasks…");
    if (filtering) return el("p", { class: "muted empty-list" }, `No task matches “${filter.value.trim()}”.`);
    return el("div", { class: "empty-list", "data-empty": "tasks" },
      el("p", {}, "No tasks yet."),
      // where nodwyn looked is the first-run pane's to say: it asks the server, which knows
      // CLAUDE_CONFIG_DIR and CODEX_HOME; a fixed ~/.claude here would be wrong for some
      el("p", { class: "muted" }, "Your agents' sessions appear here as nodwyn imports them."),
      el("p", { class: "muted" }, "Import them with ", el("code", {}, "nodwyn import claude"), " or ",
        el("code", {}, "nodwyn import codex"), "; a folder with ", el("code", {}, "nodwyn import claude PATH"), "."));
  }

  filter.addEventListener("input", render);
  filter.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && filter.value) {
      filter.value = "";
      render();
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      /** @type {HTMLElement|null} */ (list.querySelector(".task-item, button"))?.focus();
    }
  });
  list.addEventListener("keydown", (event) => moveFocus(list, event));

  return {
    /** @param {Task[]} next */
    setTasks(next) {
      tasks = next;
      loaded = true;
      render();
    },
    /** @param {string} id */
    select(id) {
      if (id !== selected) reveal = id;
      selected = id;
      for (const node of list.querySelectorAll(".task-item")) {
        if (node instanceof HTMLElement) {
          if (node.dataset.task === id) node.setAttribute("aria-current", "page");
          else node.removeAttribute("aria-current");
        }
      }
      bringIntoView();
    },
    /** @param {string} id */
    find: (id) => tasks.find((task) => task.id === id),
    all: () => tasks,
  };
}

/** Arrow keys move between the focusable things of a list. @param {HTMLElement} root @param {KeyboardEvent} event */
export function moveFocus(root, event) {
  if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
  const items = [...root.querySelectorAll("a[href], button:not([disabled])")];
  const at = items.indexOf(/** @type {Element} */ (document.activeElement));
  if (at < 0) return;
  event.preventDefault();
  const next = items[at + (event.key === "ArrowDown" ? 1 : -1)];
  if (next instanceof HTMLElement) next.focus();
}
