// @ts-check
// The pane with no task open: an overview of usage (cost, tokens and turns over time, split by
// agent, model or project; the tasks that cost most). Its figures are GET /api/usage's, the
// same as `nodwyn usage --json`. Bars are HTML buttons drawn to scale (docs/decisions/0030):
// each names its figures for a screen reader, shows them on hover, and opens the tasks behind it.
//
// The overview is a list of sections, each a function of the overview's context returning an
// element (or a promise of one). Another panel joins with one import and one call:
//   import { addSection } from "./overview.js"; addSection((context) => myPanel(context));

import { activitySection } from "./activity.js";
import { api } from "./api.js";
import { agentLabel } from "./agents.js";
import { clear, el } from "./dom.js";
import { barChart, shareRows, figure } from "./charts.js";

/** @typedef {{href: (task: string) => string, onOpen: (task: string) => void,
 *   titleOf: (task: string) => string, labelOf: (split: string, key: string) => string,
 *   signal: AbortSignal}} Context */
/** @typedef {(context: Context) => HTMLElement|null|Promise<HTMLElement|null>} Section */

/** @type {Section[]} */
const sections = [activitySection, usageSection];

/** Append a section to the overview, drawn after the others. @param {Section} section */
export function addSection(section) {
  sections.push(section);
}

const PERIODS = { day: "Day", week: "Week", month: "Month" };
const MEASURES = { cost: "Cost", tokens: "Tokens", turns: "Turns" };
const SPLITS = { agent: "Agent", model: "Model", project: "Project", machine: "Machine" };
const SINCE_DAYS = { day: 30, week: 7 * 16, month: 0 }; // a month's view shows all time
const CHOICE_KEY = "nodwyn.overview";

/** @returns {{by: string, measure: string, split: string}} */
function loadChoice() {
  try {
    const kept = JSON.parse(localStorage.getItem(CHOICE_KEY) || "{}");
    return { by: kept.by in PERIODS ? kept.by : "month", measure: kept.measure in MEASURES ? kept.measure : "cost", split: kept.split in SPLITS ? kept.split : "agent" };
  } catch {
    return { by: "month", measure: "cost", split: "agent" }; // all the archive's time
  }
}

/** @param {Date} day */
const isoDay = (day) => `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}`;

/**
 * @param {{pane: HTMLElement, href: (task: string) => string, onOpen: (task: string) => void,
 *   titleOf: (task: string) => string, folderOf: (project: string) => string,
 *   failure: (message: string, retry: () => void) => HTMLElement}} options
 */
export function createOverview({ pane, href, onOpen, titleOf, folderOf, failure }) {
  let controller = new AbortController();
  const labelOf = (/** @type {string} */ split, /** @type {string} */ key) =>
    split === "agent" ? agentLabel(key) || "nodwyn" : split === "project" ? folderOf(key) : key;

  async function show() {
    controller.abort();
    controller = new AbortController();
    const signal = controller.signal;
    const root = el("div", { class: "overview", "data-overview": "" }, el("h2", { class: "pane-title" }, "Overview"));
    clear(pane).append(root);
    /** @type {Context} */
    const context = { href, onOpen, titleOf, labelOf, signal };
    // every section asked at once, each drawn in its place as it comes
    await Promise.all(sections.map(async (section) => {
      const place = el("section", { class: "overview-section" }, el("p", { class: "muted" }, "Reading…"));
      root.append(place);
      try {
        const made = await section(context);
        if (signal.aborted) return;
        if (made) place.replaceWith(made);
        else place.remove();
      } catch (err) {
        if (signal.aborted) return;
        place.replaceWith(failure(`Could not read the overview: ${err.message}`, show));
      }
    }));
  }
  return { show, cancel: () => controller.abort() };
}

/** Cost, tokens and turns over time, the split, and the tasks that cost most. @param {Context} context */
async function usageSection(context) {
  const choice = loadChoice();
  const box = el("section", { class: "overview-section", "data-section": "usage", "aria-label": "Usage" });
  const draw = async () => {
    localStorage.setItem(CHOICE_KEY, JSON.stringify(choice));
    const days = SINCE_DAYS[/** @type {"day"|"week"|"month"} */ (choice.by)];
    let since = days ? isoDay(new Date(Date.now() - (days - 1) * 86400000)) : "";
    let until = "";
    let report = await api.usage({ by: choice.by, split: choice.split, since }, context.signal);
    if (since && report.newest && report.newest < since) { // nothing lately: the span that ends at the newest turn
      until = report.newest;
      since = isoDay(new Date(new Date(`${until}T12:00:00`).getTime() - (days - 1) * 86400000));
      report = await api.usage({ by: choice.by, split: choice.split, since, until }, context.signal);
    }
    const detail = el("div", { class: "usage-detail", "data-usage-detail": "", "aria-live": "polite" });
    const opened = (/** @type {string} */ title, /** @type {any} */ row) => showTasks(detail, title, row, context);
    const rows = everyPeriod(report.rows, choice.by, since, until || isoDay(new Date()));
    clear(box).append(
      controls(choice, () => draw().catch(() => {})),
      totals(report.total, since, until),
      barChart(rows, choice.measure, choice.split, context.labelOf, opened, choice.by),
      detail,
      el("div", { class: "usage-columns" },
        shareBlock(`By ${choice.split}`, report.total.split, choice, context, since, until),
        topBlock(report.top, choice.measure, context)),
    );
  };
  await draw();
  return box;
}

/** The key of the period after `key`: the next day, the next week's Monday, the next month.
 * @param {string} key @param {string} by */
function nextKey(key, by) {
  if (by === "month") {
    const [year, month] = key.split("-").map(Number);
    return month === 12 ? `${year + 1}-01` : `${year}-${String(month + 1).padStart(2, "0")}`;
  }
  return isoDay(new Date(new Date(`${key}T12:00:00`).getTime() + (by === "week" ? 7 : 1) * 86400000));
}

/** The key of the period a day falls in. @param {string} day @param {string} by */
function keyOf(day, by) {
  if (by === "month") return day.slice(0, 7);
  if (by === "day") return day;
  const when = new Date(`${day}T12:00:00`);
  return isoDay(new Date(when.getTime() - ((when.getDay() + 6) % 7) * 86400000)); // its Monday
}

/** Every period of a span, those with no turn as empty rows: a gap in the work stays a gap on
 * the axis (Jul 2023 never stands beside Jul 2025). From `since` (or the first row) to `until`.
 * @param {any[]} rows @param {string} by @param {string} since @param {string} until */
function everyPeriod(rows, by, since, until) {
  if (!rows.length && !since) return rows;
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const last = keyOf(until, by);
  const out = [];
  for (let key = since ? keyOf(since, by) : rows[0].key; key <= last && out.length < 1000; key = nextKey(key, by)) {
    out.push(byKey.get(key) || { key, turns: 0, tokens: 0, cost_usd: 0, unpriced: 0, split: [], tasks: [] });
  }
  const drawn = new Set(out.map((row) => row.key)); // a row the span missed (a clock ahead) is kept
  return [...out, ...rows.filter((row) => !drawn.has(row.key))].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** @param {{by: string, measure: string, split: string}} choice @param {() => void} redraw */
function controls(choice, redraw) {
  const group = (/** @type {string} */ name, /** @type {Record<string, string>} */ options, /** @type {"by"|"measure"|"split"} */ key) =>
    el("div", { class: "segmented", role: "group", "aria-label": name },
      Object.entries(options).map(([value, label]) => el("button", {
        type: "button", "aria-pressed": String(choice[key] === value), "data-choice": `${key}:${value}`,
        onclick: () => {
          choice[key] = value;
          redraw();
        },
      }, label)));
  return el("div", { class: "usage-controls" }, group("Period", PERIODS, "by"), group("Measure", MEASURES, "measure"), group("Split by", SPLITS, "split"));
}

/** @param {any} total @param {string} since @param {string} until */
function totals(total, since, until) {
  const unknown = total.unpriced ? `${total.unpriced} turn${total.unpriced === 1 ? "" : "s"} with no price` : "";
  const span = since ? `${since} to ${until || "today"}` : "all time";
  return el("p", { class: "usage-totals", "data-usage-totals": "" },
    el("strong", { "data-total-cost": total.cost_usd }, figure(total, "cost")), " · ",
    `${figure(total, "tokens")} tokens · ${total.turns} turns`, unknown ? ` · ${unknown}` : "",
    el("span", { class: "usage-span" }, ` · ${span}`));
}

/** Each agent's, model's or project's share; a row opens the tasks behind it (the report by that).
 * @param {string} title @param {any[]} shares @param {any} choice @param {Context} context @param {string} since @param {string} until */
function shareBlock(title, shares, choice, context, since, until) {
  const open = async (/** @type {any} */ share) => {
    const byShare = await api.usage({ by: choice.split, since, until }, context.signal);
    const row = byShare.rows.find((/** @type {any} */ r) => r.key === share.key) || share;
    showTasks(/** @type {HTMLElement} */ (document.querySelector("[data-usage-detail]")), context.labelOf(choice.split, share.key), row, context);
  };
  return el("div", { class: "usage-block", "data-usage-split": choice.split },
    el("h3", {}, title),
    shareRows(shares, choice.measure, (share) => context.labelOf(choice.split, share.key), (share) => open(share).catch(() => {}), choice.split));
}

/** @param {any[]} top @param {string} measure @param {Context} context */
function topBlock(top, measure, context) {
  return el("div", { class: "usage-block", "data-usage-top": "" },
    el("h3", {}, measure === "turns" ? "Tasks with most turns in this time" : "Tasks that cost most in this time"),
    top.length
      ? el("ol", { class: "top-tasks" }, top.map((t) => el("li", {},
        el("a", { href: context.href(t.task), "data-top-task": t.task, onclick: (/** @type {MouseEvent} */ event) => {
          event.preventDefault();
          context.onOpen(t.task);
        } }, el("span", { class: "top-title" }, t.title), el("span", { class: "muted" }, figure(t, measure === "turns" ? "turns" : "cost"))))))
      : el("p", { class: "muted" }, "No turns yet."));
}

/** The tasks behind a bar or row, under the chart. @param {HTMLElement} detail @param {string} title
 * @param {any} row @param {Context} context */
function showTasks(detail, title, row, context) {
  clear(detail).append(el("h3", {}, `${title} · ${figure(row, "cost")} · ${row.turns} turn${row.turns === 1 ? "" : "s"}`),
    el("ul", { class: "behind" }, (row.tasks || []).map((/** @type {any} */ t) => el("li", {},
      el("a", { href: context.href(t.key), "data-behind-task": t.key, onclick: (/** @type {MouseEvent} */ event) => {
        event.preventDefault();
        context.onOpen(t.key);
      } }, context.titleOf(t.key)), " ", el("span", { class: "muted" }, `${figure(t, "cost")} · ${t.turns} turn${t.turns === 1 ? "" : "s"}`)))));
  const first = detail.querySelector("a");
  if (first instanceof HTMLElement) first.focus();
}

