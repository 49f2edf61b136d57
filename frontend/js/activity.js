// @ts-check
// The overview's first section: the whole archive at a glance (GET /api/activity). The range
// it covers, then the figures (tasks, turns, active days, cost, the share of input read from a
// cache), a heatmap of turns by day and one by weekday and hour, and the tasks that cost most,
// ran longest and had most turns. Each cell and row opens what is behind it.

import { api } from "./api.js";
import { agentLabel } from "./agents.js";
import { cost, clear, duration, el } from "./dom.js";

const DAY = 86400000;
const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/** @typedef {{key: string, turns: number, cost_usd: number, tasks: string[]}} Cell */
/** @typedef {{href: (task: string) => string, onOpen: (task: string) => void, titleOf: (task: string) => string, signal: AbortSignal}} Context */

/** @param {Date} day */
const isoDay = (day) => `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}`;

/** How dark a cell is, 0-4: turns against the busiest cell's. @param {number} turns @param {number} top */
const level = (turns, top) => (turns ? Math.min(4, 1 + Math.floor((3.999 * Math.log1p(turns)) / Math.log1p(top || 1))) : 0);

/** A link to a task that opens it in the page. @param {Context} context @param {string} task @param {any} title */
function taskLink(context, task, title) {
  return el("a", { href: context.href(task), "data-activity-task": task, onclick: (/** @type {MouseEvent} */ event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button) return;
    event.preventDefault();
    context.onOpen(task);
  } }, title);
}

/** @param {Context} context */
export async function activitySection(context) {
  const a = await api.activity(context.signal);
  const box = el("section", { class: "overview-section activity", "data-section": "activity", "aria-label": "Activity" });
  if (!a.turns) return null; // the usage section says there is nothing yet
  const detail = el("div", { class: "usage-detail", "data-activity-detail": "", "aria-live": "polite" });
  const open = (/** @type {string} */ title, /** @type {Cell} */ cell) => {
    clear(detail).append(el("h3", {}, `${title} · ${cell.turns} turn${cell.turns === 1 ? "" : "s"} · ${cost(cell.cost_usd) || "$0.00"}`),
      el("ul", { class: "behind" }, cell.tasks.map((task) => el("li", {}, taskLink(context, task, context.titleOf(task))))));
    /** @type {HTMLElement|null} */ (detail.querySelector("a"))?.focus();
  };
  const share = a.input_tokens ? Math.round((100 * a.cache_read) / a.input_tokens) : null;
  box.append(
    el("p", { class: "activity-range", "data-activity-range": "" }, `All of the archive: ${a.first_day} to ${a.last_day}`),
    el("dl", { class: "activity-figures" },
      fact("Tasks", String(a.tasks)), fact("Turns", String(a.turns)), fact("Active days", String(a.active_days)),
      fact("Cost", cost(a.cost_usd) || "$0.00"), share === null ? null : fact("Cache reads", `${share}% of input`, "input tokens read from the models' caches")),
    el("div", { class: "activity-maps" },
      el("div", {}, el("h3", {}, "Turns by day"), calendar(a.days, open)),
      el("div", {}, el("h3", {}, "By weekday and hour"), clock(a.hours, open))),
    detail,
    el("div", { class: "usage-columns" },
      ranked("Cost most", a.by_cost, (v) => cost(v), context),
      ranked("Ran longest", a.by_duration, (v) => duration(v), context),
      ranked("Most turns", a.by_turns, (v) => String(v), context)));
  requestAnimationFrame(() => { // the newest weeks in view; the older ones a scroll away
    const scroller = box.querySelector(".calendar-scroll");
    if (scroller) scroller.scrollLeft = scroller.scrollWidth;
  });
  return box;
}

/** @param {string} name @param {string} value @param {string} [hover] */
function fact(name, value, hover) {
  return el("div", { class: "activity-fact", "data-fact": name, title: hover || null }, el("dt", {}, name), el("dd", {}, value));
}

/** Weeks as columns, Monday to Sunday down, from the first active day's week to the last's.
 * @param {Cell[]} days @param {(title: string, cell: Cell) => void} open */
function calendar(days, open) {
  const byDay = new Map(days.map((d) => [d.key, d]));
  const top = Math.max(...days.map((d) => d.turns));
  const first = new Date(`${days[0].key}T12:00:00`);
  const start = new Date(first.getTime() - ((first.getDay() + 6) % 7) * DAY);
  const end = new Date(`${days[days.length - 1].key}T12:00:00`);
  const weeks = [];
  for (let week = start; week <= end && weeks.length < 600; week = new Date(week.getTime() + 7 * DAY)) {
    const month = week.getDate() <= 7 ? week.toLocaleDateString(undefined, week.getMonth() === 0 ? { month: "short", year: "numeric" } : { month: "short" }) : "";
    const cells = [];
    for (let d = 0; d < 7; d++) {
      const day = isoDay(new Date(week.getTime() + d * DAY));
      const cell = byDay.get(day);
      const said = `${day}: ${cell ? `${cell.turns} turn${cell.turns === 1 ? "" : "s"}` : "no turns"}`;
      cells.push(cell
        ? el("button", { type: "button", class: `heat heat-${level(cell.turns, top)}`, "data-day": day, title: said, "aria-label": said, onclick: () => open(day, cell) })
        : el("span", { class: "heat heat-0", title: said }));
    }
    weeks.push(el("div", { class: "calendar-week" }, el("span", { class: "calendar-month", "aria-hidden": "true" }, month), cells));
  }
  return el("div", { class: "calendar-scroll" }, el("div", { class: "calendar", role: "group", "aria-label": "Turns by day" }, weeks));
}

/** Seven rows (Monday first) of 24 hours. @param {Cell[]} hours @param {(title: string, cell: Cell) => void} open */
function clock(hours, open) {
  const byKey = new Map(hours.map((h) => [h.key, h]));
  const top = Math.max(...hours.map((h) => h.turns));
  const rows = WEEKDAYS.map((name, d) => el("div", { class: "clock-row" }, el("span", { class: "clock-day" }, name),
    Array.from({ length: 24 }, (_, hour) => {
      const cell = byKey.get(`${d}-${hour}`);
      const said = `${name} ${String(hour).padStart(2, "0")}:00: ${cell ? `${cell.turns} turn${cell.turns === 1 ? "" : "s"}` : "no turns"}`;
      return cell
        ? el("button", { type: "button", class: `heat heat-${level(cell.turns, top)}`, "data-hour": `${d}-${hour}`, title: said, "aria-label": said, onclick: () => open(`${name} ${hour}:00–${hour + 1}:00`, cell) })
        : el("span", { class: "heat heat-0", title: said });
    })));
  const axis = el("div", { class: "clock-row clock-axis", "aria-hidden": "true" }, el("span", { class: "clock-day" }),
    Array.from({ length: 24 }, (_, hour) => el("span", { class: "clock-hour" }, hour % 6 === 0 ? String(hour) : "")));
  return el("div", { class: "clock", role: "group", "aria-label": "Turns by weekday and hour" }, rows, axis);
}

/** A top list: each task with its agent's chip and figure. @param {string} title @param {any[]} rows
 * @param {(value: number) => string} said @param {Context} context */
function ranked(title, rows, said, context) {
  return el("div", { class: "usage-block", "data-top": title },
    el("h3", {}, `Tasks that ${title.toLowerCase()}`.replace("that most turns", "with most turns")),
    rows.length ? el("ol", { class: "ranked-tasks" }, rows.map((row) => el("li", {},
      taskLink(context, row.task, [el("span", { class: `agent-dot agent-${row.agent}`, title: agentLabel(row.agent) || row.agent }),
        el("span", { class: "top-title", title: row.title }, row.title), el("span", { class: "muted" }, said(row.value))]))))
      : el("p", { class: "muted" }, "None yet."));
}
