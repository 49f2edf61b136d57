// @ts-check
// The page: keeps its state (open task, search query and scope, the event shown, the
// history panel) in the URL so Back and reload bring it back, wires the sidebar, header,
// search and transcript together, and follows the change feed. What the first screen (the
// list, the header and the overview) does not draw is loaded when first shown (deferred.js).

import { agentTag, loadAgents } from "./agents.js";
import { loadMachines } from "./machines.js";
import { api, pageUrl } from "./api.js";
import { clear, el, failure, folderLabels, noticeIn } from "./dom.js";
import { createHeader } from "./header.js";
import { addSection, createOverview } from "./overview.js";
import { createSidebar, moveFocus } from "./sidebar.js";
import { installKeys } from "./keys.js";
import { drawQuota } from "./quota.js";
import { deferred, withLoaded } from "./deferred.js";
import { createDrawer } from "./drawer.js";
import { createHeaderMenu } from "./headermenu.js";
import { showProgress } from "./progress.js";

/** @typedef {{task: string, q: string, scope: string, seq: number|null, view: string}} State */

const $ = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (document.querySelector(sel));
const layout = $("[data-layout]");
const pane = $("[data-pane]");
const form = /** @type {HTMLFormElement} */ ($("[data-search-form]"));
const input = /** @type {HTMLInputElement} */ ($("[data-search-input]"));
const scopeSelect = /** @type {HTMLSelectElement} */ ($("[data-scope]"));
const progress = $("[data-progress]");
const { close: closeDrawer } = createDrawer({ layout, sidebar: $("[data-sidebar]"),
  button: $("[data-drawer-button]"), scrim: $("[data-scrim]"), filter: $("[data-filter]") });
const notice = noticeIn($("[data-header]")); // a failed change, said over the header
const menu = createHeaderMenu({ header: $("[data-header]"), button: $("[data-menu-button]"), actions: $("[data-actions]"), form });

/** @returns {State} */
function readState() {
  const params = new URLSearchParams(location.search);
  const seq = Number.parseInt(params.get("seq") || "", 10);
  const task = params.get("task") || "";
  const scope = params.get("scope") || (task ? "task" : "all");
  const scoped = [...scopeSelect.options].some((option) => option.value === scope); // the scopes search.js knows
  return { task, q: params.get("q") || "", scope: scoped ? scope : "all", seq: Number.isNaN(seq) ? null : seq, view: params.get("view") || "" };
}

let state = readState();

/** @param {Partial<State>} next @param {boolean} [replace] */
let moves = 0; // how often the person has moved (a search, a task opened, Back)

function navigate(next, replace = false) {
  moves += 1;
  const url = pageUrl(next);
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  state = readState();
  apply();
}

const sidebar = createSidebar({
  list: $("[data-task-list]"),
  filter: /** @type {HTMLInputElement} */ ($("[data-filter]")),
  href: (id) => pageUrl({ task: id }),
  onOpen: (id) => {
    closeDrawer();
    menu.close();
    navigate({ task: id });
  },
});

const header = createHeader({
  titleBox: $("[data-title-box]"),
  actions: $("[data-actions]"),
  meta: $("[data-meta]"),
  dialog: /** @type {HTMLDialogElement} */ ($("[data-confirm]")),
  onChanged: () => reloadTasks(),
  onDeleted: async () => {
    await reloadTasks();
    navigate({});
  },
  onHistory: () => navigate(state.view === "history" ? { task: state.task } : { task: state.task, view: "history" }),
  onError: notice,
  exportDialog: /** @type {HTMLDialogElement} */ ($("[data-export-dialog]")),
  announce: (text) => announce(text),
});

/** A project's short name as the sidebar's heading says it ("src/site" beside "work/site").
 * @param {string} project */
function folderOf(project) {
  return folderLabels([...new Set([...sidebar.all().map((t) => t.project), project])])[project];
}

/** One line for screen readers (the pane itself is not a live region: a transcript is long). */
function announce(/** @type {string} */ text) {
  $("[data-announce]").textContent = text;
}

// The pane's views, each made when first shown (its module loaded then: deferred.js).
const results = deferred(async () => (await import("./search.js")).createResults({
  pane,
  announce,
  folder: folderOf,
  // the agent's name beside each task's heading, from the task as the list knows it
  agentOf: (task) => agentTag(el, sidebar.find(task)?.origin),
  href: (task, seq) => pageUrl({ task, seq, q: state.q, scope: state.scope, from: state.task }),
  onOpen: (task, seq) => navigate({ task, seq, q: state.q, scope: state.scope, from: state.task }),
  failure,
}));

/** From a historical view back to the results (or the history panel) that opened it. */
function back() {
  const from = new URLSearchParams(location.search).get("from") || state.task;
  if (from === "starred" && !state.q) {
    navigate({ view: "starred" });
    return;
  }
  navigate(state.q ? { task: from, q: state.q, scope: state.scope } : { task: state.task, view: "history" });
}

const transcript = deferred(async () => (await import("./transcript.js")).createTranscript({
  pane,
  onBack: back,
  onOpenTurn: (seq) => navigate({ task: state.task, seq }),
  failure,
  onError: notice,
}));

const starredView = deferred(async () => (await import("./stars.js")).createStarred({
  pane,
  href: (task, seq) => pageUrl({ task, seq, from: "starred" }),
  onOpen: (task, seq) => navigate({ task, seq, from: "starred" }),
  failure,
}));
const whoView = deferred(async () => (await import("./authorship.js")).createAuthorship({ pane, onOpen: (task, seq) => navigate({ task, seq }), failure }));
$("[data-who-link]").setAttribute("href", pageUrl({ view: "who" }));
$("[data-who-link]").addEventListener("click", (event) => {
  event.preventDefault();
  closeDrawer();
  navigate({ view: "who" });
});
$("[data-starred-link]").setAttribute("href", pageUrl({ view: "starred" }));
$("[data-starred-link]").addEventListener("click", (event) => {
  event.preventDefault();
  closeDrawer();
  navigate({ view: "starred" });
});

// each agent's rate limits, as its logs last said them (issue 30), after the usage charts
addSection(async () => {
  const limits = el("section", { class: "overview-section", "data-section": "quota" });
  await drawQuota(limits);
  return limits.childElementCount ? limits : null; // no agent's logs hold limits: no section
});
const overview = createOverview({
  pane,
  href: (task) => pageUrl({ task }),
  onOpen: (task) => navigate({ task }),
  titleOf: (task) => sidebar.find(task)?.title || task,
  folderOf,
  failure,
});

const board = deferred(async () => (await import("./board.js")).createBoard({
  pane,
  href: (task, seq) => pageUrl({ task, seq }),
  onOpen: (task, seq) => navigate({ task, seq }),
  folderOf,
  failure,
}));
const settings = deferred(() => import("./settings.js")); // the dialog, and the first run's pane
const marks = deferred(() => import("./marks.js")); // a search's words, marked in the turn it opens

/** @type {Record<string, any>} */
const agentsNamed = loadAgents(); // the agents' names: asked at once, awaited before a list is drawn
// Asked at once, not awaited here: a click on Settings or a search typed while the answer is on
// its way must land on a bound control, so nothing below waits for it but the task list.
/** @type {Record<string, any>} */
let preferences = {};
const preferencesRead = api.settings().then((read) => { preferences = read; }, () => {});
$("[data-settings-button]").addEventListener("click", () =>
  withLoaded(settings, "Settings", notice, ({ openSettings }) =>
    openSettings(/** @type {HTMLDialogElement} */ ($("[data-settings]")), (saved) => {
      preferences = saved;
      reloadTasks();
    })));

async function reloadTasks() {
  try {
    // the machines' names asked with each list: a machine met since names its tasks at once
    const [{ tasks }] = await Promise.all([api.tasks(), agentsNamed, preferencesRead, loadMachines()]);
    // Settings > Search: machine runs listed with the others, or folded at the end.
    sidebar.setTasks(preferences.show_machine_runs ? tasks.map((t) => ({ ...t, machine: false })) : tasks);
    sidebar.select(state.task);
    return true;
  } catch (err) {
    clear($("[data-task-list]")).append(failure(`Could not list tasks: ${err.message}`, reloadTasks));
    return false;
  }
}

let applied = 0; // apply()'s count: a view loaded after the person moved on is not drawn

/**
 * A view of the pane, loaded if it is not yet; null where the person moved on while it loaded,
 * or where it could not load (the pane then says so, with Retry).
 * @template T @param {{get: () => Promise<T>}} view @param {string} what
 * @returns {Promise<T|null>}
 */
async function loaded(view, what) {
  const turn = applied;
  try {
    const made = await view.get();
    return turn === applied ? made : null;
  } catch (err) {
    if (turn === applied) clear(pane).append(failure(`Could not load ${what}: ${err.message}`, () => apply()));
    return null;
  }
}

async function emptyPane() {
  clear(pane);
  if (sidebar.all().length) {
    overview.show(); // cost, tokens and turns over time; the tasks that cost most
    return;
  }
  // where nodwyn looked for the agents' sessions, and "Import a folder…"
  (await loaded(settings, "the first run's page"))?.firstRun(pane);
}

function syncSearchForm() {
  if (document.activeElement !== input) input.value = state.q;
  for (const option of scopeSelect.options) option.disabled = !state.task && option.value !== "all";
  scopeSelect.value = state.task ? state.scope : "all";
}

async function apply() {
  applied += 1;
  whoView.now()?.cancel();
  sidebar.select(state.task);
  syncSearchForm();
  const info = state.task ? sidebar.find(state.task) || (await api.task(state.task).catch(() => null)) : null;
  header.show(info, state.view === "history" && state.seq === null);
  document.title = info ? `${info.title} · nodwyn` : "nodwyn";
  if (state.seq !== null && state.task) {
    results.now()?.cancel();
    const from = new URLSearchParams(location.search).get("from");
    const label = state.q ? "Back to results" : from === "starred" ? "Back to Starred" : "Back to the history";
    const view = await loaded(transcript, "the transcript");
    const terms = view && (await loaded(marks, "the transcript"))?.queryTerms(state.q);
    if (terms) view.around(state.task, state.seq, label, terms, info?.origin);
  } else if (state.q) {
    transcript.now()?.cancel();
    const query = { q: state.q, scope: state.task ? state.scope : "all", task: state.task };
    (await loaded(results, "the search's results"))?.run(query);
  } else await showPane(info);
}

/** The pane with no search and no turn asked: a task's transcript or history, or a page of its own. @param {any} info */
async function showPane(info) {
  for (const view of [results, starredView, board]) view.now()?.cancel();
  overview.cancel();
  if (state.task && info && state.view !== "history") {
    (await loaded(transcript, "the transcript"))?.live(state.task, info.origin);
    return;
  }
  transcript.now()?.cancel();
  if (!state.task && state.view === "who") (await loaded(whoView, "Who wrote this?"))?.show();
  else if (!state.task && state.view === "starred") (await loaded(starredView, "Starred"))?.show();
  else if (!state.task) await emptyPane();
  else if (!info) clear(pane).append(el("p", { class: "empty muted" }, "This task no longer exists."));
  else (await loaded(board, "the history"))?.show(info);
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const q = input.value.trim();
  if (!q) {
    navigate({ task: state.task });
    return;
  }
  // submitting the same question again asks again (a refresh); the URL keeps one entry
  const same = q === state.q && scopeSelect.value === state.scope && state.seq === null;
  navigate({ task: state.task, q, scope: scopeSelect.value }, same);
});
scopeSelect.addEventListener("change", () => {
  if (input.value.trim()) form.requestSubmit();
  else state.scope = scopeSelect.value;
});
input.addEventListener("keydown", (event) => {
  if (event.key === "ArrowDown") {
    const first = pane.querySelector("a[data-hit]");
    if (first instanceof HTMLElement) {
      event.preventDefault();
      first.focus();
    }
  }
});
pane.addEventListener("keydown", (event) => moveFocus(pane, event));

const isTyping = (/** @type {EventTarget|null} */ target) =>
  target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));

document.addEventListener("keydown", (event) => {
  if (((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") || (event.key === "/" && !isTyping(event.target))) {
    event.preventDefault();
    closeDrawer(); // at phone width the search box sits under the drawer
    menu.showSearch(); // and, a task open, in its header's menu
    input.focus();
    input.select();
  } else if (event.key === "Escape" && !document.querySelector("dialog[open]")) {
    if (layout.classList.contains("drawer-open")) closeDrawer();
    else if (state.q && state.seq === null) {
      input.value = "";
      const inResults = pane.contains(document.activeElement);
      navigate({ task: state.task });
      if (inResults) input.focus(); // the results that held the keyboard are gone: back to where they came from
    } else if (document.activeElement === input) input.blur();
    else if (state.seq !== null && state.task && !isTyping(event.target)) back(); // as "Back to results"
  }
});

installKeys(pane); // ? lists every key; j / k move between messages

window.addEventListener("popstate", () => {
  moves += 1;
  state = readState();
  apply();
});

/** Follow the change feed: re-read the list, and the open task when it changed. */
/** @param {number} since the feed's version before the page first read the list */
async function follow(since) {
  for (;;) {
    try {
      const changes = await api.changes(since, 55);
      since = changes.version;
      showProgress(progress, changes.progress);
      if (!changes.tasks.length) continue;
      await reloadTasks();
      if (state.task && changes.tasks.includes(state.task)) {
        const info = sidebar.find(state.task);
        if (!info) await apply(); // deleted elsewhere: the pane says so
        else header.show(info, state.view === "history" && state.seq === null);
        if (info && !state.q && state.seq === null && state.view !== "history") transcript.now()?.refresh(state.task);
      }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 3000)); // nodwyn busy or restarting
    }
  }
}

// The feed's version is taken before the list is read, so no change falls in between.
const movedBefore = moves;
const start = await api.changes(0, 0).catch(() => null);
showProgress(progress, start?.progress);
await reloadTasks();
// A person who searched or opened a task while the page started has their answer already:
// drawing the first state again would ask their search twice and wipe what it showed.
if (moves === movedBefore) await apply();
follow(start ? start.version : 0);
