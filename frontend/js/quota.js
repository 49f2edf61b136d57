// @ts-check
// The quota panel (issue 30): a bar per rate-limit window of each agent whose logs hold limits,
// with its used percent, its reset time, the burn rate over the last hours and when at that
// rate it would be used up. The figures are GET /api/quota's (quota.meter, which the tray and
// `nodwyn quota` show too); this module only draws them. A stale figure says how old it is,
// a window whose reset passed says so, and with no limits in any log the panel draws nothing.
// A limit message with no share (Claude Code's, Gemini CLI's) is a line, with no bar.

import { api } from "./api.js";
import { el } from "./dom.js";

/**
 * @typedef {{name: string, label: string, window_minutes: number, used_percent: number,
 *   resets_at: string, as_of: string, state: string, reached: boolean, plan: string,
 *   text: string, burn_per_hour: number|null, runs_out_at: string, share: boolean}} Window
 * @typedef {{tool: string, label: string, line: string, windows: Window[]}} AgentQuota
 */

/**
 * Draw the panel into `container` (emptied first); resolves when drawn, and marks the container
 * `data-drawn` then (so a test can tell "nothing to show" from "not yet asked").
 * @param {HTMLElement} container
 */
export async function drawQuota(container) {
  await fill(container);
  container.dataset.drawn = "";
}

/** @param {HTMLElement} container */
async function fill(container) {
  let meter;
  try {
    meter = await api.quota();
  } catch (err) {
    container.replaceChildren(el("p", { class: "muted", "data-quota-error": "" },
      `Rate limits could not be read: ${err instanceof Error ? err.message : err}`));
    return;
  }
  const agents = /** @type {AgentQuota[]} */ (meter.agents);
  if (!agents.length) {
    container.replaceChildren(); // no agent's logs hold limits: nothing to show
    return;
  }
  container.replaceChildren(el("section", { class: "quota", "data-quota": "", "aria-label": "Rate limits" },
    el("h3", {}, "Rate limits"),
    ...agents.map(agentBlock)));
}

/** @param {AgentQuota} agent */
function agentBlock(agent) {
  return el("div", { class: "quota-agent", "data-quota-agent": agent.tool },
    el("div", { class: "quota-name" }, agent.label),
    ...agent.windows.map(windowRow));
}

/** @param {Window} w */
function windowRow(w) {
  if (w.share === false) { // a limit message gives no share: a line, not a bar (ADR 0039)
    return el("div", { class: "quota-window quota-line", "data-quota-window": w.label, "data-state": w.state, title: `as of ${exact(w.as_of)}` },
      el("span", { class: "quota-label" }, w.label === "limit" ? "" : w.label),
      el("span", { class: "quota-text", "data-quota-text": "" }, w.text),
      asOf(w) ? el("span", { class: "quota-more muted" }, asOf(w)) : null);
  }
  const shown = w.state === "reset" ? 0 : Math.min(Math.max(w.used_percent, 0), 100);
  const fill = el("div", { class: "quota-fill" });
  fill.style.width = `${shown}%`; // through the CSSOM: the page's CSP refuses style attributes
  const bar = el("div", {
    class: `quota-bar ${w.state}${w.used_percent >= 90 && w.state === "current" ? " high" : ""}`,
    role: "meter", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": String(shown),
    "aria-label": `${w.label} window used`, title: `as of ${exact(w.as_of)}`,
  }, fill);
  return el("div", { class: "quota-window", "data-quota-window": w.label, "data-state": w.state },
    el("span", { class: "quota-label" }, w.label),
    bar,
    el("span", { class: "quota-text", "data-quota-text": "" }, w.text),
    el("span", { class: "quota-more muted" }, details(w)));
}

/** Reset time, burn rate and run-out time, as far as the figures say them; a figure that is
 * not current says its date inline ("as of Jul 12"). @param {Window} w */
function details(w) {
  const parts = [];
  if (asOf(w)) parts.push(asOf(w));
  if (w.state !== "reset" && w.resets_at) parts.push(`resets ${clock(w.resets_at)}`);
  if (w.burn_per_hour) parts.push(`${round(w.burn_per_hour)} points an hour lately`);
  if (w.runs_out_at) parts.push(`used up at ${clock(w.runs_out_at)} at that rate`);
  else if (w.burn_per_hour && w.resets_at) parts.push("lasts to the reset at that rate");
  return parts.join(" · ");
}

/** "as of Jul 12" for a window that is not current (its figure is old), else "". @param {Window} w */
function asOf(w) {
  if (w.state === "current" || !w.as_of) return "";
  return `as of ${new Date(w.as_of).toLocaleDateString([], { month: "short", day: "numeric" })}`;
}

/** @param {number} value */
function round(value) {
  return value >= 10 ? value.toFixed(0) : value.toFixed(1);
}

/** "14:08" today, "Thu 14:08" otherwise (the exact time is on hover). @param {string} stamp */
function clock(stamp) {
  const when = new Date(stamp);
  const time = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  if (when.toDateString() === new Date().toDateString()) return time;
  return `${when.toLocaleDateString([], { weekday: "short" })} ${time}`;
}

/** @param {string} stamp */
function exact(stamp) {
  return new Date(stamp).toLocaleString();
}
